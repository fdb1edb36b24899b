//! One posed instant: every vertex in world space, every node at the
//! identity.

use super::buffer::{assemble, Builder};
use super::material::{materials, sampler, Variant};
use crate::error::{Error, Result};
use crate::export::{finite3, transformed_uvs, unit_normal, valid_triangles};
use crate::scene::{Model, PosedModel};
use glam::{Affine2, Vec3};
use serde_json::{json, Map, Value};
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

    // Materials are emitted per (material, two-sided) pair actually drawn,
    // because glTF puts doubleSided on the material while kiln puts it on
    // the primitive.
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
            let mut attrs = Map::new();
            attrs.insert("POSITION".into(), json!(pos_acc));
            if let Some(n) = nrm_acc {
                attrs.insert("NORMAL".into(), json!(n));
            }
            if !mesh.uvs.is_empty() {
                let acc = match uv_accs.iter().find(|(t, _)| *t == prim.uv_transform) {
                    Some(&(_, a)) => a,
                    None => {
                        let uvs = transformed_uvs(&mesh.uvs, count, &prim.uv_transform);
                        let a = b.vec2(&uvs);
                        uv_accs.push((prim.uv_transform, a));
                        a
                    }
                };
                attrs.insert("TEXCOORD_0".into(), json!(acc));
            }
            let mut p = Map::new();
            p.insert("attributes".into(), Value::Object(attrs));
            p.insert("indices".into(), json!(b.indices(&tris)));
            if prim.material < model.materials.len() {
                let key = Variant {
                    material: prim.material,
                    two_sided: prim.two_sided,
                    transform: None,
                };
                let idx = match variants.iter().position(|v| *v == key) {
                    Some(i) => i,
                    None => {
                        variants.push(key);
                        variants.len() - 1
                    }
                };
                p.insert("material".into(), json!(idx));
            }
            prim_json.push(Value::Object(p));
        }
        nodes.push(json!({ "name": mesh.name, "mesh": meshes.len() }));
        meshes.push(json!({ "name": mesh.name, "primitives": prim_json }));
    }

    // Images go after the geometry; only textures a drawn material uses.
    let mats = materials(model, &variants, &mut b)?;

    let mut scene = Map::new();
    scene.insert("name".into(), json!(model.name));
    if !nodes.is_empty() {
        scene.insert("nodes".into(), json!((0..nodes.len()).collect::<Vec<_>>()));
    }
    let mut root = Map::new();
    root.insert("asset".into(), super::asset());
    root.insert("scene".into(), json!(0));
    root.insert("scenes".into(), json!([Value::Object(scene)]));
    // glTF forbids empty top-level arrays, so each appears only when used.
    let mut put = |key: &str, v: Vec<Value>| {
        if !v.is_empty() {
            root.insert(key.into(), Value::Array(v));
        }
    };
    put("nodes", nodes);
    put("meshes", meshes);
    put("materials", mats.materials);
    put("textures", mats.textures);
    put("images", mats.images);
    put("accessors", b.accessors);
    put("bufferViews", b.views);
    if !b.bin.is_empty() {
        root.insert("buffers".into(), json!([{ "byteLength": b.bin.len() }]));
    }
    if root.contains_key("textures") {
        root.insert("samplers".into(), sampler());
    }
    if !mats.extensions.is_empty() {
        root.insert("extensionsUsed".into(), json!(mats.extensions));
    }

    let json = serde_json::to_vec(&Value::Object(root))
        .map_err(|e| Error::Other(format!("glTF JSON encoding: {e}")))?;
    assemble(json, b.bin)
}
