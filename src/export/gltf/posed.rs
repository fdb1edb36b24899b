//! glTF 2.0 binary (`.glb`): one JSON chunk, one BIN chunk holding every
//! vertex array, index array and PNG image.

use super::{finite, finite3, transformed_uvs, unit_normal, used_texture_pngs, valid_triangles};
use crate::error::{Error, Result};
use crate::scene::{AlphaMode, Model, PosedModel};
use glam::{Affine2, Vec2, Vec3};
use serde_json::{json, Map, Value};
use std::path::Path;

const GLB_MAGIC: u32 = 0x4654_6C67; // "glTF"
const CHUNK_JSON: u32 = 0x4E4F_534A; // "JSON"
const CHUNK_BIN: u32 = 0x004E_4942; // "BIN\0"

const FLOAT: u32 = 5126;
const UNSIGNED_INT: u32 = 5125;
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const LINEAR: u32 = 9729;
const LINEAR_MIPMAP_LINEAR: u32 = 9987;
const REPEAT: u32 = 10497;

const UNLIT: &str = "KHR_materials_unlit";

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
    let mut variants: Vec<(usize, bool)> = Vec::new();
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
                let key = (prim.material, prim.two_sided);
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
    let mut tex_index: Vec<Option<usize>> = vec![None; model.textures.len()];
    let used: Vec<usize> = variants
        .iter()
        .filter_map(|&(m, _)| model.materials[m].texture)
        .collect();
    let mut images = Vec::new();
    let mut textures = Vec::new();
    for (slot, png) in used_texture_pngs(model)? {
        if !used.contains(&slot) {
            continue;
        }
        let view = b.view(&png, None);
        tex_index[slot] = Some(textures.len());
        textures.push(json!({ "sampler": 0, "source": images.len() }));
        images.push(json!({
            "name": model.textures[slot].name,
            "bufferView": view,
            "mimeType": "image/png",
        }));
    }

    let mut any_unlit = false;
    let materials: Vec<Value> = variants
        .iter()
        .map(|&(mi, two_sided)| {
            let m = &model.materials[mi];
            let mut pbr = Map::new();
            pbr.insert(
                "baseColorFactor".into(),
                json!(m.base_color.map(|c| short(finite(c).clamp(0.0, 1.0)))),
            );
            if let Some(t) = m.texture.and_then(|t| tex_index.get(t).copied().flatten()) {
                pbr.insert("baseColorTexture".into(), json!({ "index": t }));
            }
            pbr.insert("metallicFactor".into(), json!(0.0));
            pbr.insert("roughnessFactor".into(), json!(1.0));
            let mut o = Map::new();
            o.insert("name".into(), json!(m.name));
            o.insert("pbrMetallicRoughness".into(), Value::Object(pbr));
            match m.alpha {
                AlphaMode::Opaque => {
                    o.insert("alphaMode".into(), json!("OPAQUE"));
                }
                AlphaMode::Mask(cut) => {
                    o.insert("alphaMode".into(), json!("MASK"));
                    o.insert("alphaCutoff".into(), json!(short(finite(cut).max(0.0))));
                }
                AlphaMode::Blend => {
                    o.insert("alphaMode".into(), json!("BLEND"));
                }
            }
            o.insert("doubleSided".into(), json!(two_sided));
            if m.unlit {
                any_unlit = true;
                o.insert("extensions".into(), json!({ UNLIT: {} }));
            }
            Value::Object(o)
        })
        .collect();

    let mut scene = Map::new();
    scene.insert("name".into(), json!(model.name));
    if !nodes.is_empty() {
        scene.insert("nodes".into(), json!((0..nodes.len()).collect::<Vec<_>>()));
    }
    let mut root = Map::new();
    root.insert(
        "asset".into(),
        json!({
            "version": "2.0",
            "generator": concat!("kiln ", env!("CARGO_PKG_VERSION")),
        }),
    );
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
    put("materials", materials);
    put("textures", textures);
    put("images", images);
    put("accessors", b.accessors);
    put("bufferViews", b.views);
    if !b.bin.is_empty() {
        root.insert("buffers".into(), json!([{ "byteLength": b.bin.len() }]));
    }
    if root.contains_key("textures") {
        root.insert(
            "samplers".into(),
            json!([{
                "magFilter": LINEAR,
                "minFilter": LINEAR_MIPMAP_LINEAR,
                "wrapS": REPEAT,
                "wrapT": REPEAT,
            }]),
        );
    }
    if any_unlit {
        root.insert("extensionsUsed".into(), json!([UNLIT]));
    }

    let json = serde_json::to_vec(&Value::Object(root))
        .map_err(|e| Error::Other(format!("glTF JSON encoding: {e}")))?;
    assemble(json, b.bin)
}

/// The shortest decimal that reads back as the same f32, so a colour of 0.8
/// is written `0.8` rather than the f64 expansion of the f32. Geometry bounds
/// keep the exact expansion instead (see `Builder::vec3`).
fn short(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(0.0)
}

fn assemble(mut json: Vec<u8>, mut bin: Vec<u8>) -> Result<Vec<u8>> {
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let bin_chunk = if bin.is_empty() { 0 } else { 8 + bin.len() };
    let total = 12 + 8 + json.len() + bin_chunk;
    let total32 = u32::try_from(total).map_err(|_| {
        Error::Other(format!(
            "the model is too large for glTF binary ({total} bytes; the limit is 4 GiB)"
        ))
    })?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&GLB_MAGIC.to_le_bytes());
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    // Both chunk lengths are below `total`, which fits in u32.
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.extend_from_slice(&json);
    if !bin.is_empty() {
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        out.extend_from_slice(&bin);
    }
    Ok(out)
}

#[derive(Default)]
struct Builder {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Builder {
    /// Appends bytes as a new bufferView starting on a 4-byte boundary, which
    /// satisfies the alignment of every component type used here.
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut v = Map::new();
        v.insert("buffer".into(), json!(0));
        v.insert("byteOffset".into(), json!(self.bin.len()));
        v.insert("byteLength".into(), json!(bytes.len()));
        if let Some(t) = target {
            v.insert("target".into(), json!(t));
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(Value::Object(v));
        self.views.len() - 1
    }

    fn accessor(&mut self, acc: Value) -> usize {
        self.accessors.push(acc);
        self.accessors.len() - 1
    }

    fn vec3(&mut self, data: &[Vec3], min_max: bool) -> usize {
        let mut bytes = Vec::with_capacity(data.len() * 12);
        for v in data {
            for c in v.to_array() {
                bytes.extend_from_slice(&c.to_le_bytes());
            }
        }
        let view = self.view(&bytes, Some(ARRAY_BUFFER));
        let mut a = Map::new();
        a.insert("bufferView".into(), json!(view));
        a.insert("componentType".into(), json!(FLOAT));
        a.insert("count".into(), json!(data.len()));
        a.insert("type".into(), json!("VEC3"));
        if min_max {
            let mut min = Vec3::splat(f32::INFINITY);
            let mut max = Vec3::splat(f32::NEG_INFINITY);
            for &v in data {
                min = min.min(v);
                max = max.max(v);
            }
            // f32 → f64 is exact, so readers get back the very same floats.
            a.insert("min".into(), json!(min.to_array()));
            a.insert("max".into(), json!(max.to_array()));
        }
        self.accessor(Value::Object(a))
    }

    fn vec2(&mut self, data: &[Vec2]) -> usize {
        let mut bytes = Vec::with_capacity(data.len() * 8);
        for v in data {
            bytes.extend_from_slice(&v.x.to_le_bytes());
            bytes.extend_from_slice(&v.y.to_le_bytes());
        }
        let view = self.view(&bytes, Some(ARRAY_BUFFER));
        self.accessor(json!({
            "bufferView": view,
            "componentType": FLOAT,
            "count": data.len(),
            "type": "VEC2",
        }))
    }

    fn indices(&mut self, tris: &[[u32; 3]]) -> usize {
        let mut bytes = Vec::with_capacity(tris.len() * 12);
        for t in tris {
            for i in t {
                bytes.extend_from_slice(&i.to_le_bytes());
            }
        }
        let view = self.view(&bytes, Some(ELEMENT_ARRAY_BUFFER));
        self.accessor(json!({
            "bufferView": view,
            "componentType": UNSIGNED_INT,
            "count": tris.len() * 3,
            "type": "SCALAR",
        }))
    }
}
