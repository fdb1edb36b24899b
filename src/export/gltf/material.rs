//! glTF materials, textures and images from kiln's materials: one glTF
//! material per way a kiln material is drawn (one- or two-sided, and with
//! its own texture transform where a primitive's texture coordinates are
//! animated), since glTF keeps both on the material.

use super::buffer::{short, Builder};
use crate::error::Result;
use crate::export::{finite, used_texture_pngs};
use crate::scene::{AlphaMode, Model};
use glam::Vec2;
use serde_json::{json, Map, Value};

const LINEAR: u32 = 9729;
const LINEAR_MIPMAP_LINEAR: u32 = 9987;
const REPEAT: u32 = 10497;

pub(super) const UNLIT: &str = "KHR_materials_unlit";
pub(super) const TEXTURE_TRANSFORM: &str = "KHR_texture_transform";

/// `KHR_texture_transform`: `uv' = T(offset) · R(rotation) · S(scale) · uv`,
/// the rotation turning the other way from kiln's (see `texture_motion`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct TextureTransform {
    pub offset: Vec2,
    pub rotation: f32,
    pub scale: Vec2,
}

/// One way a kiln material is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Variant {
    /// Index into the model's materials.
    pub material: usize,
    pub two_sided: bool,
    /// The texture transform at rest, for a primitive whose texture
    /// coordinates are animated (its material is its own).
    pub transform: Option<TextureTransform>,
}

pub(super) struct Materials {
    pub materials: Vec<Value>,
    pub textures: Vec<Value>,
    pub images: Vec<Value>,
    /// Whether a variant's material holds a texture, by variant.
    pub textured: Vec<bool>,
    /// Extensions the materials use, in a fixed order.
    pub extensions: Vec<&'static str>,
}

/// Materials for `variants`, with the images of the textures they draw
/// appended to `b`.
pub(super) fn materials(model: &Model, variants: &[Variant], b: &mut Builder) -> Result<Materials> {
    let mut tex_index: Vec<Option<usize>> = vec![None; model.textures.len()];
    let used: Vec<usize> = variants
        .iter()
        .filter_map(|v| model.materials[v.material].texture)
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
    let mut any_transform = false;
    let mut textured = Vec::with_capacity(variants.len());
    let materials: Vec<Value> = variants
        .iter()
        .map(|v| {
            let m = &model.materials[v.material];
            let mut pbr = Map::new();
            pbr.insert(
                "baseColorFactor".into(),
                json!(m.base_color.map(|c| short(finite(c).clamp(0.0, 1.0)))),
            );
            let texture = m.texture.and_then(|t| tex_index.get(t).copied().flatten());
            textured.push(texture.is_some());
            if let Some(t) = texture {
                let mut info = Map::new();
                info.insert("index".into(), json!(t));
                if let Some(tt) = v.transform {
                    any_transform = true;
                    info.insert(
                        "extensions".into(),
                        json!({ TEXTURE_TRANSFORM: {
                            "offset": [finite(tt.offset.x), finite(tt.offset.y)],
                            "rotation": finite(tt.rotation),
                            "scale": [finite(tt.scale.x), finite(tt.scale.y)],
                        } }),
                    );
                }
                pbr.insert("baseColorTexture".into(), Value::Object(info));
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
            o.insert("doubleSided".into(), json!(v.two_sided));
            if m.unlit {
                any_unlit = true;
                o.insert("extensions".into(), json!({ UNLIT: {} }));
            }
            Value::Object(o)
        })
        .collect();
    let mut extensions = Vec::new();
    if any_unlit {
        extensions.push(UNLIT);
    }
    if any_transform {
        extensions.push(TEXTURE_TRANSFORM);
    }
    Ok(Materials {
        materials,
        textures,
        images,
        textured,
        extensions,
    })
}

/// The one sampler every texture uses: bilinear, mipmapped, repeating
/// (RSM texture animations scroll past the edges).
pub(super) fn sampler() -> Value {
    json!([{
        "magFilter": LINEAR,
        "minFilter": LINEAR_MIPMAP_LINEAR,
        "wrapS": REPEAT,
        "wrapT": REPEAT,
    }])
}
