//! The ground shadow: the model's own triangles flattened onto the ground
//! plane along the light (or straight down), drawn by the rasterizer from
//! the frame's camera as a black silhouette, softened, and put under the
//! model at the chosen opacity. Being geometry, it follows every pose and
//! falls where the light says, unlike a blurred copy of the sprite.
//!
//! The ground is the horizontal plane through the lowest point the model
//! reaches over the whole job (its feet), so the shadow does not slide
//! up and down with the animation.

use super::{blur::blur, over_pixel, GroundShadow, ShadowFrom};
use crate::raster::{self, Batch, Camera, Light, RenderOptions};
use crate::scene::{Model, PosedModel};
use glam::Vec3;
use image::RgbaImage;

/// The least elevation a casting light keeps (sin 10°): lower lights would
/// throw shadows toward the horizon.
const MIN_LIGHT_Y: f32 = 0.173_648_18;

/// The unit direction shadows are cast along (toward the light), given the
/// light's world direction for this frame.
pub fn cast_direction(from: ShadowFrom, light: Vec3) -> Vec3 {
    match from {
        ShadowFrom::Down => Vec3::Y,
        ShadowFrom::Light => {
            let l = light.normalize_or_zero();
            if !l.is_finite() || l == Vec3::ZERO {
                return Vec3::Y;
            }
            if l.y >= MIN_LIGHT_Y {
                return l;
            }
            let flat = Vec3::new(l.x, 0.0, l.z).normalize_or_zero();
            let c = (1.0 - MIN_LIGHT_Y * MIN_LIGHT_Y).sqrt();
            (flat * c + Vec3::Y * MIN_LIGHT_Y).normalize_or_zero()
        }
    }
}

/// `p` moved along `dir` onto the plane `y = ground`.
pub fn project(p: Vec3, dir: Vec3, ground: f32) -> Vec3 {
    let t = (p.y - ground) / dir.y.max(MIN_LIGHT_Y);
    Vec3::new(p.x - dir.x * t, ground, p.z - dir.z * t)
}

/// The lowest height any posed frame reaches.
pub fn ground_of<'a>(posed: impl Iterator<Item = &'a PosedModel>) -> f32 {
    let g = posed
        .flat_map(crate::render::posed_points)
        .filter(|p| p.is_finite())
        .map(|p| p.y)
        .fold(f32::INFINITY, f32::min);
    if g.is_finite() {
        g
    } else {
        0.0
    }
}

/// The shadow's silhouette on the ground for one frame, from `camera`.
pub fn silhouette(
    model: &Model,
    posed: &PosedModel,
    camera: &Camera,
    dir: Vec3,
    ground: f32,
    opts: &RenderOptions,
) -> RgbaImage {
    let flat: Vec<Vec<Vec3>> = posed
        .meshes
        .iter()
        .map(|m| {
            m.positions
                .iter()
                .map(|&p| project(p, dir, ground))
                .collect()
        })
        .collect();
    let batches: Vec<Batch> = posed
        .primitives
        .iter()
        .filter_map(|p| {
            let positions = flat.get(p.mesh)?;
            let b = crate::render::primitive_batch(model, p, positions, &[], &p.triangles)?;
            // Black, unlit and seen from either side (a flattened triangle
            // may face away); the texture stays for its alpha test.
            Some(Batch {
                base_color: [0.0, 0.0, 0.0, b.base_color[3]],
                unlit: true,
                two_sided: true,
                ..b
            })
        })
        .collect();
    let opts = RenderOptions {
        background: [0, 0, 0, 0],
        ..*opts
    };
    let no_light = Light {
        direction: Vec3::Y,
        color: Vec3::ZERO,
        ambient: Vec3::ONE,
    };
    raster::render(&batches, camera, &no_light, &opts)
}

/// Puts the shadow whose silhouette is `shape` under `img`.
pub fn put_under(img: &mut RgbaImage, shape: &RgbaImage, s: &GroundShadow) {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let mut cover: Vec<u8> = shape.pixels().map(|p| p[3]).collect();
    blur(&mut cover, w, h, s.softness);
    let opacity = (s.opacity.clamp(0.0, 1.0) * 255.0).round() as u32;
    for (px, c) in img.pixels_mut().zip(cover) {
        let a = ((c as u32 * opacity + 127) / 255) as u8;
        if a > 0 {
            px.0 = over_pixel(px.0, [s.color[0], s.color[1], s.color[2], a]);
        }
    }
}
