//! kiln's rasterizer: the crate `kiln-raster` (`crates/raster/`), seen
//! from kiln by the name it has always had. Its renderers return its own
//! [`kiln_raster::Image`] (so that it builds without `image`); the ones
//! here are the same renderers, returning the `RgbaImage` kiln works in.

pub use kiln_raster::*;

use image::RgbaImage;

/// An `RgbaImage` holding a rendered frame's pixels, without a copy.
fn rgba(img: Image) -> RgbaImage {
    RgbaImage::from_raw(img.width, img.height, img.pixels)
        .expect("the rasterizer returns 4 × width × height bytes")
}

/// [`kiln_raster::render`], as an `RgbaImage`.
pub fn render(
    batches: &[Batch<'_>],
    camera: &Camera,
    light: &Light,
    opts: &RenderOptions,
) -> RgbaImage {
    rgba(kiln_raster::render(batches, camera, light, opts))
}

/// [`kiln_raster::render_at`], as an `RgbaImage`.
pub fn render_at(
    batches: &[Batch<'_>],
    camera: &Camera,
    light: &Light,
    opts: &RenderOptions,
    level: Level,
) -> RgbaImage {
    rgba(kiln_raster::render_at(batches, camera, light, opts, level))
}

/// [`kiln_raster::render_shaded`], as an `RgbaImage`.
pub fn render_shaded(
    batches: &[Batch<'_>],
    camera: &Camera,
    light: &Light,
    opts: &RenderOptions,
    shading: Shading,
) -> RgbaImage {
    rgba(kiln_raster::render_shaded(
        batches, camera, light, opts, shading,
    ))
}

/// [`kiln_raster::render_pass`], as an `RgbaImage`.
pub fn render_pass(
    batches: &[Batch<'_>],
    camera: &Camera,
    opts: &RenderOptions,
    pass: Pass,
) -> RgbaImage {
    rgba(kiln_raster::render_pass(batches, camera, opts, pass))
}
