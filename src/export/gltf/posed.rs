//! One posed instant: every vertex in world space, every node at the
//! identity.

use super::buffer::Builder;
use super::document::{primitive, variant_index, Attributes, Document};
use super::material::{materials, Variant};
use crate::error::Result;
use crate::export::{finite3, transformed_uvs, unit_normal, valid_triangles};
use crate::scene::{Model, PosedModel};
use glam::{Affine2, Vec3};
use serde_json::json;
use std::path::Path;

/// Writes the posed model as a `.glb` file (atomically).
pub fn write_glb(model: &Model, posed: &PosedModel, path: &Path) -> Result<()> {
    let bytes = glb_bytes(model, posed)?;
    crate::output::write_atomic(path, &bytes)
}

/// The posed model as glTF binary bytes. Deterministic: the same model and
/// pose always give the same bytes.
pub fn glb_bytes(model: &Model, posed: &PosedModel) -> Result<Vec<u8>> {
    let mut b = Builder::default();

    let mut variants: Vec<Variant> = Vec::new();
    let mut nodes = Vec::new();
    let mut meshes = Vec::new();
    for (mi, (mesh, pm)) in model.meshes.iter().zip(&posed.meshes).enumerate() {
        let count = pm.positions.len();
        let prims: Vec<_> = posed
            .primitives
            .iter()
            .filter(|p| p.mesh == mi)
            .map(|p| (p, valid_triangles(p, count)))
            .filter(|(_, tris)| !tris.is_empty())
            .collect();
        if prims.is_empty() {
            // A glTF mesh needs at least one primitive and an accessor at
            // least one element; the node alone keeps the name visible.
            nodes.push(json!({ "name": mesh.name }));
            continue;
        }

        let positions: Vec<Vec3> = pm.positions.iter().map(|&p| finite3(p)).collect();
        let pos_acc = b.vec3(&positions, true);
        let nrm_acc = (pm.normals.len() == count).then(|| {
            let normals: Vec<Vec3> = pm.normals.iter().map(|&n| unit_normal(n)).collect();
            b.vec3(&normals, false)
        });
        let mut uv_accs: Vec<(Affine2, usize)> = Vec::new();

        let mut prim_json = Vec::new();
        for (prim, tris) in prims {
            let uv = (!mesh.uvs.is_empty()).then(|| {
                match uv_accs.iter().find(|(t, _)| *t == prim.uv_transform) {
                    Some(&(_, a)) => a,
                    None => {
                        let uvs = transformed_uvs(&mesh.uvs, count, &prim.uv_transform);
                        let a = b.vec2(&uvs);
                        uv_accs.push((prim.uv_transform, a));
                        a
                    }
                }
            });
            let attributes = Attributes {
                position: pos_acc,
                normal: nrm_acc,
                uv,
                skin: None,
            };
            let indices = b.indices(&tris);
            let material = (prim.material < model.materials.len()).then(|| {
                let key = Variant {
                    material: prim.material,
                    two_sided: prim.two_sided,
                    transform: None,
                };
                variant_index(&mut variants, key)
            });
            prim_json.push(primitive(&attributes, indices, material));
        }
        nodes.push(json!({ "name": mesh.name, "mesh": meshes.len() }));
        meshes.push(json!({ "name": mesh.name, "primitives": prim_json }));
    }

    // Images go after the geometry; only textures a drawn material uses.
    let mats = materials(model, &variants, &mut b)?;

    let scene_nodes = (0..nodes.len()).collect();
    Document {
        scene_name: model.name.clone(),
        scene_nodes,
        nodes,
        meshes,
        skins: Vec::new(),
        animations: Vec::new(),
        extensions: mats.extensions.clone(),
        materials: mats,
    }
    .glb(b)
}
