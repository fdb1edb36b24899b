//! kiln's rasterizer: the crate `kiln-raster` (`crates/raster/`), seen
//! from kiln by the name it has always had.

pub use kiln_raster::*;
