//! The glTF document both exporters write: the top-level JSON (asset,
//! scene, every array that is used) and the GLB container around it, and
//! the primitive and material-variant entries they build it from.

use super::buffer::{assemble, Builder};
use super::material::{sampler, Materials, Variant};
use crate::error::{Error, Result};
use serde_json::{json, Map, Value};

/// Everything a `.glb` holds besides the buffer.
pub(super) struct Document {
    /// The scene's name.
    pub scene_name: String,
    /// The scene's root nodes (left out of the JSON when empty).
    pub scene_nodes: Vec<usize>,
    pub nodes: Vec<Value>,
    pub meshes: Vec<Value>,
    pub skins: Vec<Value>,
    pub animations: Vec<Value>,
    pub materials: Materials,
    /// Extensions used, materials' first.
    pub extensions: Vec<&'static str>,
}

impl Document {
    /// The GLB bytes of the document and the buffer `b`.
    pub fn glb(self, b: Builder) -> Result<Vec<u8>> {
        let mut scene = Map::new();
        scene.insert("name".into(), json!(self.scene_name));
        if !self.scene_nodes.is_empty() {
            scene.insert("nodes".into(), json!(self.scene_nodes));
        }
        let mut root = Map::new();
        root.insert("asset".into(), asset());
        root.insert("scene".into(), json!(0));
        root.insert("scenes".into(), json!([Value::Object(scene)]));
        // glTF forbids empty top-level arrays, so each appears only when used.
        let mut put = |key: &str, v: Vec<Value>| {
            if !v.is_empty() {
                root.insert(key.into(), Value::Array(v));
            }
        };
        put("nodes", self.nodes);
        put("meshes", self.meshes);
        put("skins", self.skins);
        put("animations", self.animations);
        put("materials", self.materials.materials);
        put("textures", self.materials.textures);
        put("images", self.materials.images);
        put("accessors", b.accessors);
        put("bufferViews", b.views);
        if !b.bin.is_empty() {
            root.insert("buffers".into(), json!([{ "byteLength": b.bin.len() }]));
        }
        if root.contains_key("textures") {
            root.insert("samplers".into(), sampler());
        }
        if !self.extensions.is_empty() {
            root.insert("extensionsUsed".into(), json!(self.extensions));
        }
        let json = serde_json::to_vec(&Value::Object(root))
            .map_err(|e| Error::Other(format!("glTF JSON encoding: {e}")))?;
        assemble(json, b.bin)
    }
}

fn asset() -> Value {
    json!({
        "version": "2.0",
        "generator": concat!("kiln ", env!("CARGO_PKG_VERSION")),
    })
}

/// The accessors one primitive reads.
pub(super) struct Attributes {
    pub position: usize,
    pub normal: Option<usize>,
    pub uv: Option<usize>,
    /// Joints and weights.
    pub skin: Option<(usize, usize)>,
}

/// A mesh primitive's JSON.
pub(super) fn primitive(a: &Attributes, indices: usize, material: Option<usize>) -> Value {
    let mut attrs = Map::new();
    attrs.insert("POSITION".into(), json!(a.position));
    if let Some(n) = a.normal {
        attrs.insert("NORMAL".into(), json!(n));
    }
    if let Some(uv) = a.uv {
        attrs.insert("TEXCOORD_0".into(), json!(uv));
    }
    if let Some((j, w)) = a.skin {
        attrs.insert("JOINTS_0".into(), json!(j));
        attrs.insert("WEIGHTS_0".into(), json!(w));
    }
    let mut p = Map::new();
    p.insert("attributes".into(), Value::Object(attrs));
    p.insert("indices".into(), json!(indices));
    if let Some(m) = material {
        p.insert("material".into(), json!(m));
    }
    Value::Object(p)
}

/// The index of `key` among `variants`, added when new: materials are
/// written per variant actually drawn, because glTF puts doubleSided on
/// the material while kiln puts it on the primitive.
pub(super) fn variant_index(variants: &mut Vec<Variant>, key: Variant) -> usize {
    match variants.iter().position(|v| *v == key) {
        Some(i) => i,
        None => {
            variants.push(key);
            variants.len() - 1
        }
    }
}
