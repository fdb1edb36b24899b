//! Loading any supported model or animation file into the scene model,
//! chosen by content (magic bytes), not by extension.

use crate::error::{Error, ParseError, Result};
use crate::formats::{grimrock, rsm};
use crate::scene::animation::Animation;
use crate::scene::lower_grimrock::{self, MaterialDef, RestPose};
use crate::scene::{self, Model};
use crate::texture::TextureResolver;
use std::path::{Path, PathBuf};

/// What a file is, judged by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Ragnarok RSM 1.x or RSM2.
    Rsm,
    /// Legend of Grimrock model.
    GrimrockModel,
    /// Legend of Grimrock animation.
    GrimrockAnimation,
}

pub fn sniff(data: &[u8], path: &Path) -> Result<FileKind> {
    if data.starts_with(b"GRSM") {
        return Ok(FileKind::Rsm);
    }
    if data.starts_with(b"MDL1") {
        return Ok(FileKind::GrimrockModel);
    }
    if data.starts_with(b"ANIM") {
        return Ok(FileKind::GrimrockAnimation);
    }
    let head: String = data.iter().take(8).map(|b| format!("{b:02x}")).collect();
    Err(Error::Parse(ParseError {
        file: path.to_path_buf(),
        field: "magic".into(),
        offset: 0,
        message: format!(
            "not a file kiln can read (first bytes {head}); expected GRSM (Ragnarok RSM/RSM2), \
             MDL1 (Grimrock model) or ANIM (Grimrock animation)"
        ),
    }))
}

pub fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(path, e))
}

/// How to load a model beyond the file itself.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Extra texture folders (Ragnarok).
    pub resolver: TextureResolver,
    /// Material name → image file, overriding the model's own definitions.
    pub materials: Vec<(String, PathBuf)>,
    /// Grimrock: start skinned models from the file's node matrices or the bind pose.
    pub pose: RestPose,
}

/// Loads a model and its textures.
pub fn load_model(path: &Path, resolver: &TextureResolver) -> Result<Model> {
    load_model_with(
        path,
        &LoadOptions {
            resolver: resolver.clone(),
            ..LoadOptions::default()
        },
    )
}

pub fn load_model_with(path: &Path, opts: &LoadOptions) -> Result<Model> {
    let data = read(path)?;
    match sniff(&data, path)? {
        FileKind::Rsm => {
            let parsed = rsm::parse(&data, path)?;
            Ok(scene::lower_rsm::lower(&parsed, path, &opts.resolver))
        }
        FileKind::GrimrockModel => {
            let parsed = grimrock::parse_model(&data, path)?;
            let (defs, warnings) = grimrock_materials(path, &parsed, &opts.materials);
            let mut model = lower_grimrock::lower(&parsed, path, &defs, opts.pose);
            model.warnings.splice(0..0, warnings);
            Ok(model)
        }
        FileKind::GrimrockAnimation => Err(Error::Usage(format!(
            "{}: this is an animation, not a model; name it as a clip's `animation:` in a recipe",
            path.display()
        ))),
    }
}

/// Loads an animation file for `model`; tracks matching no node are returned
/// as notes.
pub fn load_animation(path: &Path) -> Result<Animation> {
    let data = read(path)?;
    match sniff(&data, path)? {
        FileKind::GrimrockAnimation => {
            let parsed = grimrock::parse_animation(&data, path)?;
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok(lower_grimrock::lower_animation(&parsed, &name))
        }
        _ => Err(Error::Usage(format!(
            "{}: not an animation file kiln can read",
            path.display()
        ))),
    }
}

/// A model posed by an animation file: a copy whose nodes carry its tracks.
pub fn animate(model: &Model, path: &Path) -> Result<Model> {
    let anim = load_animation(path)?;
    let (mut out, unmatched) = scene::animation::apply(model, &anim);
    if !unmatched.is_empty() {
        out.warnings.push(format!(
            "{}: {} track(s) name no node of the model and are ignored: {}",
            path.display(),
            unmatched.len(),
            unmatched.join(", ")
        ));
    }
    Ok(out)
}

/// Every material the model's segments use: the recipe's overrides first,
/// then the `defineMaterial` calls in the Lua files around the model.
fn grimrock_materials(
    path: &Path,
    model: &grimrock::Model,
    overrides: &[(String, PathBuf)],
) -> (Vec<MaterialDef>, Vec<String>) {
    let (found, mut warnings) = crate::texture::grimrock::find_materials(path);
    let mut used: Vec<String> = Vec::new();
    for n in &model.nodes {
        if let Some(m) = n.mesh() {
            for s in &m.mesh.segments {
                let name = s.material_str();
                if !used.contains(&name) {
                    used.push(name);
                }
            }
        }
    }
    // Names nobody defines get no entry: the lowering draws them neutral
    // grey and says so once.
    let defs = used
        .into_iter()
        .filter(|name| {
            found.iter().any(|m| m.name == *name) || overrides.iter().any(|(n, _)| n == name)
        })
        .map(|name| {
            let lua = found.iter().find(|m| m.name == name);
            let texture = match overrides.iter().find(|(n, _)| *n == name) {
                Some((_, file)) => Some(file.clone()),
                None => lua.and_then(|m| m.diffuse_map.as_deref()).and_then(|d| {
                    let found = crate::texture::grimrock::resolve_texture(path, d);
                    if found.is_none() {
                        warnings.push(format!(
                            "material '{name}': texture '{d}' not found (nor its .dds)"
                        ));
                    }
                    found
                }),
            };
            MaterialDef {
                double_sided: lua.is_some_and(|m| m.double_sided),
                alpha_test: lua.is_some_and(|m| m.alpha_test),
                blend: lua.is_some_and(|m| {
                    !m.blend_mode.is_empty() && !m.blend_mode.eq_ignore_ascii_case("opaque")
                }),
                unlit: lua.is_some_and(|m| !m.lighting),
                texture,
                name,
            }
        })
        .collect();
    (defs, warnings)
}
