//! Loading any supported model or animation file into the scene model,
//! chosen by content (magic bytes), not by extension.

use crate::error::{Error, ParseError, Result};
use crate::formats::{grimrock, rsm};
use crate::scene::animation::Animation;
use crate::scene::lower_grimrock::{self, MaterialDef, RestPose};
use crate::scene::skeleton::BoneSpec;
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
    /// Arma MLOD P3D model (`MLOD`) or its binarised form (`ODOL`, refused).
    P3d,
    /// Arma RTM animation, plain (`RTM_MDAT`/`RTM_0101`) or binarised (`BMTR`).
    Rtm,
    /// Arma `model.cfg` / `config.cpp` text.
    ArmaConfig,
    /// Ragnarok map scene (`GRSW`).
    Rsw,
    /// Ragnarok map ground (`GRGN`).
    Gnd,
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
    if data.starts_with(b"GRSW") {
        return Ok(FileKind::Rsw);
    }
    if data.starts_with(b"GRGN") {
        return Ok(FileKind::Gnd);
    }
    if data.starts_with(b"MLOD") || data.starts_with(b"ODOL") {
        return Ok(FileKind::P3d);
    }
    if data.starts_with(b"RTM_") || data.starts_with(b"BMTR") {
        return Ok(FileKind::Rtm);
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if (ext == "cfg" || ext == "cpp" || ext == "hpp") && std::str::from_utf8(data).is_ok() {
        return Ok(FileKind::ArmaConfig);
    }
    let head: String = data.iter().take(8).map(|b| format!("{b:02x}")).collect();
    Err(Error::Parse(ParseError {
        file: path.to_path_buf(),
        field: "magic".into(),
        offset: 0,
        message: format!(
            "not a file kiln can read (first bytes {head}); expected GRSM/GRSW/GRGN (Ragnarok model/map/ground), \
             MDL1/ANIM (Grimrock model/animation), MLOD (Arma P3D) or RTM_/BMTR (Arma animation)"
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
    /// Arma: which LOD; `None` = the most detailed visual LOD.
    pub lod: Option<LodChoice>,
}

/// A P3D level of detail, by position in the file or by resolution value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LodChoice {
    Index(usize),
    Resolution(f32),
}

/// How to read an animation beyond the file itself.
#[derive(Debug, Clone, Default)]
pub struct AnimOptions {
    /// Seconds for animations whose length is not in the file (RTM phases
    /// run 0..1); default 1 s.
    pub duration: Option<f32>,
    /// (bone, parent) pairs for binarised RTMs, from `model.cfg` or inline.
    pub skeleton: Option<Vec<(String, String)>>,
    /// Arma: move by the RTM's `step` instead of animating in place.
    pub travel: bool,
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
        FileKind::P3d => {
            let parsed = crate::formats::arma::p3d::parse(&data, path)?;
            let lod = match opts.lod {
                None => parsed.most_detailed_visual_lod().unwrap_or(0),
                Some(LodChoice::Index(i)) => i,
                Some(LodChoice::Resolution(r)) => parsed
                    .lods
                    .iter()
                    .position(|l| (l.resolution - r).abs() <= r.abs() * 1e-5)
                    .ok_or_else(|| {
                        let have: Vec<String> = parsed
                            .lods
                            .iter()
                            .map(|l| l.resolution.to_string())
                            .collect();
                        Error::Usage(format!(
                            "{}: no LOD with resolution {r} (has {})",
                            path.display(),
                            have.join(", ")
                        ))
                    })?,
            };
            Ok(scene::lower_arma::lower_mlod(
                &parsed,
                lod,
                path,
                &opts.materials,
            ))
        }
        FileKind::Rsw => Err(Error::Usage(format!(
            "{}: a Ragnarok map, not a model; render it with `kiln render MAP.rsw` or a recipe's `maps:`",
            path.display()
        ))),
        FileKind::Gnd => Err(Error::Usage(format!(
            "{}: a Ragnarok map's ground; render the map's .rsw, which names it",
            path.display()
        ))),
        FileKind::ArmaConfig => Err(Error::Usage(format!(
            "{}: a config file, not a model; name it as a recipe's `skeleton: {{ config, class }}`",
            path.display()
        ))),
        FileKind::GrimrockAnimation | FileKind::Rtm => Err(Error::Usage(format!(
            "{}: this is an animation, not a model; name it as a clip's `animation:` in a recipe \
             (or --animation on the command line)",
            path.display()
        ))),
    }
}

/// Loads a Grimrock animation file.
pub fn load_animation(path: &Path) -> Result<Animation> {
    load_animation_with(path, &AnimOptions::default()).map(|(a, _)| a)
}

/// Loads an animation file and the bones it needs bound (Arma RTM).
pub fn load_animation_with(
    path: &Path,
    opts: &AnimOptions,
) -> Result<(Animation, Option<Vec<BoneSpec>>)> {
    let data = read(path)?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match sniff(&data, path)? {
        FileKind::GrimrockAnimation => {
            let parsed = grimrock::parse_animation(&data, path)?;
            Ok((lower_grimrock::lower_animation(&parsed, &name), None))
        }
        FileKind::Rtm => {
            let duration = opts.duration.unwrap_or(1.0);
            match crate::formats::arma::rtm::parse(&data, path)? {
                crate::formats::arma::rtm::Rtm::Plain(p) => {
                    let (a, bones) =
                        scene::lower_arma::lower_plain(&p, duration, &name, opts.travel);
                    Ok((a, Some(bones)))
                }
                crate::formats::arma::rtm::Rtm::Binarised(b) => {
                    let skeleton = opts.skeleton.as_ref().ok_or_else(|| {
                        Error::Usage(format!(
                            "{}: a binarised RTM (BMTR v{}) stores parent-relative bones; give the \
                             skeleton (recipe `skeleton: {{ config: model.cfg, class: NAME }}`)",
                            path.display(),
                            b.version
                        ))
                    })?;
                    let (a, bones) =
                        scene::lower_arma::lower_bmtr(&b, skeleton, duration, &name, opts.travel);
                    Ok((a, Some(bones)))
                }
            }
        }
        _ => Err(Error::Usage(format!(
            "{}: not an animation file kiln can read",
            path.display()
        ))),
    }
}

/// A model posed by an animation file: a copy whose nodes carry its tracks.
pub fn animate(model: &Model, path: &Path) -> Result<Model> {
    animate_with(model, path, &AnimOptions::default())
}

/// As [`animate`], with the duration and skeleton an Arma RTM needs.
pub fn animate_with(model: &Model, path: &Path, opts: &AnimOptions) -> Result<Model> {
    let (anim, bones) = load_animation_with(path, opts)?;
    let bound;
    let model = match bones {
        Some(b) => {
            bound = scene::skeleton::bind(model, &b);
            &bound
        }
        None => model,
    };
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

/// The (bone, parent) pairs of skeleton `class` in a `model.cfg`.
pub fn skeleton_bones(config: &Path, class: &str) -> Result<Vec<(String, String)>> {
    let cfg = crate::formats::arma::cfg::parse_file(config)?;
    let skeletons = crate::formats::arma::cfg::skeletons(&cfg);
    crate::formats::arma::cfg::resolve_bones(&skeletons, class)
        .map_err(|e| Error::Usage(format!("{}: skeleton '{class}': {e}", config.display())))
}
