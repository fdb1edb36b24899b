//! glTF materials as kiln shades them: the base colour factor and
//! texture, alpha mode, `KHR_materials_unlit`, and the emissive factor
//! (times `KHR_materials_emissive_strength`) and texture.

use super::doc;
use crate::scene::{AlphaMode, Material};

/// The texture whose texture coordinates a primitive of `m` is drawn
/// with: the base colour texture's, else the emissive texture's (kiln's
/// meshes carry one set).
pub(crate) fn uv_source(m: &doc::Material) -> Option<&doc::TextureInfo> {
    m.pbr_metallic_roughness
        .as_ref()
        .and_then(|p| p.base_color_texture.as_ref())
        .or(m.emissive_texture.as_ref())
}

/// Which `TEXCOORD_n` a texture reads, and the transform applied to it.
fn uv_set(t: &doc::TextureInfo) -> (u32, Option<doc::TextureTransform>) {
    let transform = t.extensions.transform;
    let set = transform.and_then(|x| x.tex_coord).unwrap_or(t.tex_coord);
    (set, transform)
}

/// Material `i` of the document (`textures`: how many texture slots the
/// model has).
pub(crate) fn lower(
    m: &doc::Material,
    i: usize,
    textures: usize,
    warnings: &mut Vec<String>,
) -> Material {
    let pbr = m.pbr_metallic_roughness.as_ref();
    let base_color = pbr.and_then(|p| p.base_color_factor).unwrap_or([1.0; 4]);
    let texture = pbr
        .and_then(|p| p.base_color_texture.as_ref())
        .map(|t| t.index)
        .filter(|&t| t < textures);
    let alpha = match m.alpha_mode.as_deref() {
        Some("MASK") => AlphaMode::Mask(m.alpha_cutoff.unwrap_or(0.5)),
        Some("BLEND") => AlphaMode::Blend,
        _ => AlphaMode::Opaque,
    };
    let unlit = m.extensions.contains_key("KHR_materials_unlit");
    let strength = m
        .extensions
        .get("KHR_materials_emissive_strength")
        .and_then(|e| e.get("emissiveStrength"))
        .and_then(serde_json::Value::as_f64)
        .filter(|s| s.is_finite() && *s >= 0.0)
        .unwrap_or(1.0) as f32;
    // The specification's default factor is black: a texture alone emits
    // nothing. An unlit material is its base colour alone.
    let emissive = match unlit {
        true => [0.0; 3],
        false => m.emissive_factor.unwrap_or([0.0; 3]).map(|c| c * strength),
    };
    let mut emissive_texture = m
        .emissive_texture
        .as_ref()
        .map(|t| t.index)
        .filter(|&t| t < textures && emissive != [0.0; 3]);
    if let (Some(_), Some(e), Some(drawn)) =
        (emissive_texture, m.emissive_texture.as_ref(), uv_source(m))
    {
        if uv_set(e) != uv_set(drawn) {
            warnings.push(format!(
                "materials[{i}].emissiveTexture reads other texture coordinates than the \
                 base colour texture; kiln's meshes carry one set, so only its factor is drawn"
            ));
            emissive_texture = None;
        }
    }
    Material {
        name: m.name.clone().unwrap_or_else(|| format!("material{i}")),
        texture,
        alpha,
        unlit,
        base_color,
        emissive,
        emissive_texture,
    }
}
