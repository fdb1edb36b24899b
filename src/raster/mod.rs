//! kiln's own CPU rasterizer.
//!
//! Conventions: clip = `camera.proj · camera.view · world`; NDC x right, y up,
//! z in [0, 1] (glam's `*_rh` projections), depth test "less". A triangle whose
//! projected vertices run counter-clockwise on screen (y up) is front-facing;
//! back faces are culled unless the batch is two-sided, and two-sided back
//! faces are lit with the flipped normal.

use crate::scene::AlphaMode;
use crate::texture::Texture;
use glam::{Affine2, Mat4, Vec2, Vec3};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    pub view: Mat4,
    pub proj: Mat4,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Light {
    /// Unit vector from the surface toward the light, world space.
    pub direction: Vec3,
    /// Diffuse colour (linear 0..1 per channel).
    pub color: Vec3,
    pub ambient: Vec3,
}

/// Triangles sharing one material, in world space.
#[derive(Clone, Copy)]
pub struct Batch<'a> {
    pub positions: &'a [Vec3],
    pub normals: &'a [Vec3],
    pub uvs: &'a [Vec2],
    pub triangles: &'a [[u32; 3]],
    pub uv_transform: Affine2,
    pub texture: Option<&'a Texture>,
    /// Straight RGBA multiplier (or the colour when there is no texture).
    pub base_color: [f32; 4],
    pub alpha: AlphaMode,
    pub two_sided: bool,
    pub unlit: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenderOptions {
    pub width: u32,
    pub height: u32,
    /// Supersampling factor per axis (1 = none, 2 = 4 samples per pixel, …, max 4).
    pub supersample: u32,
    /// Straight RGBA background; alpha 0 gives a transparent image.
    pub background: [u8; 4],
}

/// Renders the batches into a straight-alpha RGBA image.
pub fn render(
    batches: &[Batch<'_>],
    camera: &Camera,
    light: &Light,
    opts: &RenderOptions,
) -> image::RgbaImage {
    let _ = (batches, camera, light, opts);
    todo!("rasterizer")
}
