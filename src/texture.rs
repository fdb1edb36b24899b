//! The decoded image every texture becomes (`kiln_raster::texture`): the
//! rasterizer samples it, so it lives with the rasterizer; the decoders
//! live with the other file formats (`formats::texture`).

pub use kiln_raster::texture::*;
