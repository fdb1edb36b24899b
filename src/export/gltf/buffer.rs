//! The binary side of a `.glb`: one buffer of 4-byte-aligned views, the
//! accessors that read them, and the container that wraps JSON and BIN.

use crate::error::{Error, Result};
use glam::{Mat4, Vec2, Vec3};
use serde_json::{json, Map, Value};

const GLB_MAGIC: u32 = 0x4654_6C67; // "glTF"
const CHUNK_JSON: u32 = 0x4E4F_534A; // "JSON"
const CHUNK_BIN: u32 = 0x004E_4942; // "BIN\0"

pub(super) const FLOAT: u32 = 5126;
pub(super) const UNSIGNED_BYTE: u32 = 5121;
pub(super) const UNSIGNED_SHORT: u32 = 5123;
pub(super) const UNSIGNED_INT: u32 = 5125;
pub(super) const ARRAY_BUFFER: u32 = 34962;
pub(super) const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// The shortest decimal that reads back as the same f32, so a colour of 0.8
/// is written `0.8` rather than the f64 expansion of the f32. Geometry bounds
/// keep the exact expansion instead (see `Builder::vec3`).
pub(super) fn short(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(0.0)
}

/// JSON chunk and BIN chunk in a GLB container.
pub(super) fn assemble(mut json: Vec<u8>, mut bin: Vec<u8>) -> Result<Vec<u8>> {
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
pub(super) struct Builder {
    pub bin: Vec<u8>,
    pub views: Vec<Value>,
    pub accessors: Vec<Value>,
}

impl Builder {
    /// Appends bytes as a new bufferView starting on a 4-byte boundary, which
    /// satisfies the alignment of every component type used here.
    pub fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
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

    pub fn vec3(&mut self, data: &[Vec3], min_max: bool) -> usize {
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

    pub fn vec2(&mut self, data: &[Vec2]) -> usize {
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

    pub fn indices(&mut self, tris: &[[u32; 3]]) -> usize {
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

    /// Floats read `width` at a time as `kind` ("SCALAR", "VEC2", "VEC4",
    /// "MAT4", …), in a view without a target (animation samplers and
    /// inverse bind matrices), with per-component bounds when asked
    /// (animation inputs need them).
    pub fn floats(&mut self, data: &[f32], kind: &str, width: usize, bounds: bool) -> usize {
        let mut bytes = Vec::with_capacity(data.len() * 4);
        for x in data {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        let view = self.view(&bytes, None);
        let mut a = Map::new();
        a.insert("bufferView".into(), json!(view));
        a.insert("componentType".into(), json!(FLOAT));
        a.insert("count".into(), json!(data.len() / width.max(1)));
        a.insert("type".into(), json!(kind));
        if bounds && !data.is_empty() {
            let mut min = vec![f32::INFINITY; width];
            let mut max = vec![f32::NEG_INFINITY; width];
            for chunk in data.chunks_exact(width) {
                for (k, &x) in chunk.iter().enumerate() {
                    min[k] = min[k].min(x);
                    max[k] = max[k].max(x);
                }
            }
            a.insert("min".into(), json!(min));
            a.insert("max".into(), json!(max));
        }
        self.accessor(Value::Object(a))
    }

    /// Column-major 4×4 matrices (inverse bind matrices).
    pub fn mat4(&mut self, data: &[Mat4]) -> usize {
        let flat: Vec<f32> = data.iter().flat_map(|m| m.to_cols_array()).collect();
        self.floats(&flat, "MAT4", 16, false)
    }

    /// Four joint indices per vertex, as bytes when every index fits.
    pub fn joints(&mut self, data: &[[u16; 4]]) -> usize {
        let small = data.iter().flatten().all(|&j| j <= 255);
        let mut bytes = Vec::with_capacity(data.len() * if small { 4 } else { 8 });
        for j in data.iter().flatten() {
            if small {
                bytes.push(*j as u8);
            } else {
                bytes.extend_from_slice(&j.to_le_bytes());
            }
        }
        let view = self.view(&bytes, Some(ARRAY_BUFFER));
        self.accessor(json!({
            "bufferView": view,
            "componentType": if small { UNSIGNED_BYTE } else { UNSIGNED_SHORT },
            "count": data.len(),
            "type": "VEC4",
        }))
    }

    /// Four weights per vertex.
    pub fn weights(&mut self, data: &[[f32; 4]]) -> usize {
        let mut bytes = Vec::with_capacity(data.len() * 16);
        for w in data.iter().flatten() {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        let view = self.view(&bytes, Some(ARRAY_BUFFER));
        self.accessor(json!({
            "bufferView": view,
            "componentType": FLOAT,
            "count": data.len(),
            "type": "VEC4",
        }))
    }
}
