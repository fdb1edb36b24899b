//! Glue between a posed model and the rasterizer.

use crate::raster::{self, Batch, Camera, Light, RenderOptions};
use crate::scene::{Model, PosedModel, PosedPrimitive};

/// The draw list of a posed model: one batch per posed primitive.
pub fn batches<'a>(model: &'a Model, posed: &'a PosedModel) -> Vec<Batch<'a>> {
    posed
        .primitives
        .iter()
        .filter_map(|p| {
            let pm = posed.meshes.get(p.mesh)?;
            primitive_batch(model, p, &pm.positions, &pm.normals, &p.triangles)
        })
        .collect()
}

/// One posed primitive of `model` as a batch over the given vertices (the
/// posed mesh's own, or a copy moved elsewhere, as a map instance is).
pub fn primitive_batch<'a>(
    model: &'a Model,
    p: &PosedPrimitive,
    positions: &'a [glam::Vec3],
    normals: &'a [glam::Vec3],
    triangles: &'a [[u32; 3]],
) -> Option<Batch<'a>> {
    let mesh = model.meshes.get(p.mesh)?;
    let mat = model.materials.get(p.material)?;
    Some(Batch {
        positions,
        normals,
        uvs: &mesh.uvs,
        triangles,
        uv_transform: p.uv_transform,
        texture: mat
            .texture
            .and_then(|t| model.textures.get(t))
            .map(|s| &*s.image),
        base_color: mat.base_color,
        alpha: mat.alpha,
        two_sided: p.two_sided,
        unlit: mat.unlit,
        lightmap: None,
    })
}

/// Renders a posed model with one camera.
pub fn render_posed(
    model: &Model,
    posed: &PosedModel,
    camera: &Camera,
    light: &Light,
    opts: &RenderOptions,
) -> image::RgbaImage {
    raster::render(&batches(model, posed), camera, light, opts)
}

/// Every posed vertex position, for framing.
pub fn posed_points(posed: &PosedModel) -> impl Iterator<Item = glam::Vec3> + '_ {
    posed
        .meshes
        .iter()
        .flat_map(|m| m.positions.iter().copied())
}
