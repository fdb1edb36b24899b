//! `kiln inspect`: what a file holds, as text or JSON.
//!
//! The report is built from two views of the file: the format's own summary
//! (version, raw fields, as stored) and the lowered scene model (what kiln
//! will draw: nodes, meshes, textures found or not, animation tracks).

use crate::error::Result;
use crate::formats::grimrock;
use crate::load::{self, FileKind};
use crate::scene::Model;
use crate::texture::TextureResolver;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

#[derive(Debug, Serialize)]
pub struct Report {
    pub file: String,
    pub format: String,
    pub version: String,
    pub nodes: Vec<NodeInfo>,
    pub textures: Vec<TextureInfo>,
    pub animation: AnimationInfo,
    pub warnings: Vec<String>,
    /// Format-specific lines for the text form (node types, vertex arrays,
    /// segments, bones).
    #[serde(skip)]
    pub notes: Vec<String>,
    /// The format's own fields, as stored in the file.
    pub details: serde_json::Value,
}

#[derive(Debug, Serialize)]
pub struct NodeInfo {
    pub name: String,
    pub parent: Option<String>,
    pub meshes: Vec<MeshInfo>,
    pub rotation_keys: usize,
    pub position_keys: usize,
    pub scale_keys: usize,
    pub uv_channels: usize,
}

#[derive(Debug, Serialize)]
pub struct MeshInfo {
    pub name: String,
    pub vertices: usize,
    pub triangles: usize,
}

#[derive(Debug, Serialize)]
pub struct TextureInfo {
    pub name: String,
    pub found: Option<String>,
    pub width: u32,
    pub height: u32,
    pub alpha: String,
}

#[derive(Debug, Serialize)]
pub struct AnimationInfo {
    pub duration_seconds: f32,
    pub fps: f32,
    pub frames: u32,
    pub animated_nodes: usize,
}

/// Inspects a model file.
pub fn inspect(path: &Path, resolver: &TextureResolver) -> Result<Report> {
    inspect_with(path, resolver, None)
}

/// Inspects a file; for an animation, `model` (if given) is checked for the
/// nodes its tracks name.
pub fn inspect_with(
    path: &Path,
    resolver: &TextureResolver,
    model: Option<&Path>,
) -> Result<Report> {
    let data = load::read(path)?;
    match load::sniff(&data, path)? {
        FileKind::Rsm => {
            let rsm = crate::formats::rsm::parse(&data, path)?;
            let model = crate::scene::lower_rsm::lower(&rsm, path, resolver);
            let summary = crate::formats::rsm::summary(&rsm);
            let format = if rsm.is_rsm2() { "RSM2" } else { "RSM" };
            let version = format!("{}.{}", rsm.major, rsm.minor);
            let details = serde_json::to_value(&summary).unwrap_or(serde_json::Value::Null);
            let mut report = report_from_model(path, format, &version, &model, details);
            // The summary adds index-range findings; the parser's own
            // warnings are already in the model's.
            for w in summary.warnings {
                if !report.warnings.contains(&w) {
                    report.warnings.push(w);
                }
            }
            Ok(report)
        }
        FileKind::GrimrockModel => {
            let parsed = grimrock::parse_model(&data, path)?;
            let opts = load::LoadOptions {
                resolver: resolver.clone(),
                ..Default::default()
            };
            let model = load::load_model_with(path, &opts)?;
            let summary = grimrock::model_summary(&parsed);
            let details = serde_json::to_value(&summary).unwrap_or(serde_json::Value::Null);
            let mut report = report_from_model(
                path,
                "Grimrock model (MDL1)",
                &parsed.version.to_string(),
                &model,
                details,
            );
            for n in &summary.nodes {
                report.notes.push(format!(
                    "{}[{}] {} ({})",
                    "  ".repeat(n.depth),
                    n.index,
                    n.name,
                    n.kind
                ));
            }
            for m in &summary.meshes {
                let arrays: Vec<String> = m
                    .arrays
                    .iter()
                    .map(|a| format!("{} {}×{}", a.name, a.data_type, a.dim))
                    .collect();
                report.notes.push(format!(
                    "mesh on '{}': {} vertices, {} indices; arrays: {}",
                    m.node_name,
                    m.vertex_count,
                    m.index_count,
                    arrays.join(", ")
                ));
                for sg in &m.segments {
                    report.notes.push(format!(
                        "  segment '{}': {} triangles from index {}",
                        sg.material, sg.triangle_count, sg.first_index
                    ));
                }
                if !m.bones.is_empty() {
                    let names: Vec<String> = m
                        .bones
                        .iter()
                        .map(|b| {
                            b.node_name
                                .clone()
                                .unwrap_or_else(|| format!("#{}", b.node))
                        })
                        .collect();
                    report
                        .notes
                        .push(format!("  {} bones: {}", m.bones.len(), names.join(", ")));
                }
            }
            Ok(report)
        }
        FileKind::P3d => {
            let parsed = crate::formats::arma::p3d::parse(&data, path)?;
            let model = load::load_model_with(
                path,
                &load::LoadOptions {
                    resolver: resolver.clone(),
                    ..Default::default()
                },
            )?;
            let summary = crate::formats::arma::p3d::summary(&parsed);
            let details = serde_json::to_value(&summary).unwrap_or(serde_json::Value::Null);
            let mut report = report_from_model(path, "Arma MLOD P3D", "257", &model, details);
            for l in &summary.lods {
                let star = if Some(l.index) == summary.most_detailed_visual_lod {
                    " (drawn by default)"
                } else {
                    ""
                };
                report.notes.push(format!(
                    "LOD {} {}{}: {} points, {} faces ({} quads), textures: [{}], {} named selections, {} #Animation# tags{}",
                    l.index,
                    l.name,
                    star,
                    l.points,
                    l.faces,
                    l.quads,
                    l.textures.join(", "),
                    l.selections.len(),
                    l.animation_count,
                    if l.animation_phases.is_empty() {
                        String::new()
                    } else {
                        format!(" at phases {:?}", l.animation_phases)
                    }
                ));
                if !l.selections.is_empty() {
                    report
                        .notes
                        .push(format!("  selections: {}", l.selections.join(", ")));
                }
            }
            Ok(report)
        }
        FileKind::Rtm => {
            let parsed = crate::formats::arma::rtm::parse(&data, path)?;
            let summary = crate::formats::arma::rtm::summary(&parsed);
            let details = serde_json::to_value(&summary).unwrap_or(serde_json::Value::Null);
            let (anim, _) = load::load_animation_with(
                path,
                &load::AnimOptions {
                    duration: Some(1.0),
                    skeleton: Some(Vec::new()),
                    travel: false,
                },
            )?;
            let nodes = anim
                .tracks
                .iter()
                .map(|t| NodeInfo {
                    name: t.node.clone(),
                    parent: None,
                    meshes: Vec::new(),
                    rotation_keys: t.anim.rotation.as_ref().map_or(0, |k| k.values.len()),
                    position_keys: t.anim.translation.as_ref().map_or(0, |k| k.values.len()),
                    scale_keys: t.anim.scale.as_ref().map_or(0, |k| k.values.len()),
                    uv_channels: 0,
                })
                .collect::<Vec<_>>();
            let notes = serde_json::to_string_pretty(&summary)
                .unwrap_or_default()
                .lines()
                .map(String::from)
                .collect();
            Ok(Report {
                file: path.display().to_string(),
                format: "Arma RTM".into(),
                version: details
                    .get("version")
                    .map(|v| v.to_string())
                    .unwrap_or_default(),
                animation: AnimationInfo {
                    duration_seconds: 1.0,
                    fps: anim.frame_rate,
                    frames: anim
                        .tracks
                        .first()
                        .and_then(|t| t.anim.rotation.as_ref())
                        .map_or(0, |k| k.values.len() as u32),
                    animated_nodes: nodes.len(),
                },
                nodes,
                textures: Vec::new(),
                warnings: Vec::new(),
                notes,
                details,
            })
        }
        FileKind::Rsw => {
            let parsed = crate::formats::rsw::parse(&data, path)?;
            let summary = crate::formats::rsw::summary(&parsed);
            let mut notes = vec![
                format!(
                    "files: ini '{}', gnd '{}', gat '{}', src '{}'",
                    summary.ini, summary.gnd, summary.gat, summary.src
                ),
                format!(
                    "objects: {} models, {} lights, {} sounds, {} effects; quad tree: {} nodes",
                    summary.models,
                    summary.lights,
                    summary.sounds,
                    summary.effects,
                    summary.quad_tree_nodes
                ),
            ];
            let base = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            // The same lookup as rendering: --data folders first, then the
            // data folders around the map.
            let folders = crate::map::DataFolders::new(resolver.search_dirs.clone());
            let mut found_cache: Vec<(String, bool)> = Vec::new();
            for (m, inst) in summary.instances.iter().zip(parsed.models()) {
                let file = &m.file.text;
                let found = match found_cache.iter().find(|(f, _)| f == file) {
                    Some((_, f)) => *f,
                    None => {
                        let f = folders.find("model", inst.file.bytes(), base).is_some();
                        found_cache.push((file.clone(), f));
                        f
                    }
                };
                notes.push(format!(
                    "  model '{}' at {:?} rot {:?} scale {:?} anim {} x{}{}",
                    file,
                    m.position,
                    m.rotation,
                    m.scale,
                    m.anim_type,
                    m.anim_speed,
                    if found { "" } else { "  (file not found)" }
                ));
            }
            let details = serde_json::to_value(&summary).unwrap_or(serde_json::Value::Null);
            Ok(file_report(
                path,
                "Ragnarok map scene (RSW)",
                summary.version.clone(),
                summary.warnings.clone(),
                notes,
                details,
            ))
        }
        FileKind::Gnd => {
            let parsed = crate::formats::gnd::parse(&data, path)?;
            let summary = crate::formats::gnd::summary(&parsed);
            let notes = vec![
                format!(
                    "size: {}×{} tiles, scale {}",
                    summary.width, summary.height, summary.scale
                ),
                format!(
                    "textures ({}): {}",
                    summary.textures.len(),
                    summary.textures.join(", ")
                ),
                format!(
                    "lightmaps: {}, surfaces: {}, cubes: {}, water planes: {}",
                    summary.lightmaps, summary.surfaces, summary.cubes, summary.water_planes
                ),
            ];
            let details = serde_json::to_value(&summary).unwrap_or(serde_json::Value::Null);
            Ok(file_report(
                path,
                "Ragnarok map ground (GND)",
                summary.version.clone(),
                summary.warnings.clone(),
                notes,
                details,
            ))
        }
        FileKind::ArmaConfig => {
            use crate::formats::arma::cfg;
            let parsed = cfg::parse_file(path)?;
            let skeletons = cfg::skeletons(&parsed);
            let mut notes = Vec::new();
            let mut warnings = parsed.notes.clone();
            for s in &skeletons {
                match cfg::resolve_bones(&skeletons, &s.name) {
                    Ok(bones) => {
                        notes.push(format!(
                            "skeleton {}{}: {} bones{}",
                            s.name,
                            s.inherit
                                .as_deref()
                                .filter(|i| !i.is_empty())
                                .map(|i| format!(" (inherits {i})"))
                                .unwrap_or_default(),
                            bones.len(),
                            if s.is_discrete { ", discrete" } else { "" }
                        ));
                    }
                    Err(e) => warnings.push(format!("skeleton {}: {e}", s.name)),
                }
            }
            let details = serde_json::json!({
                "skeletons": skeletons.iter().map(|s| serde_json::json!({
                    "name": s.name,
                    "inherit": s.inherit,
                    "bones": cfg::resolve_bones(&skeletons, &s.name).map(|b| b.len()).unwrap_or(0),
                    "is_discrete": s.is_discrete,
                })).collect::<Vec<_>>()
            });
            Ok(file_report(
                path,
                "Arma config (CfgSkeletons)",
                String::new(),
                warnings,
                notes,
                details,
            ))
        }
        FileKind::GrimrockAnimation => {
            let parsed = grimrock::parse_animation(&data, path)?;
            let summary = grimrock::animation_summary(&parsed);
            let mut warnings = parsed.warnings.clone();
            if let Some(model_path) = model {
                let m = grimrock::parse_model_file(model_path)?;
                let missing = grimrock::unmatched_tracks(&parsed, &m);
                if !missing.is_empty() {
                    warnings.push(format!(
                        "{} track(s) name no node of {} and are ignored: {}",
                        missing.len(),
                        model_path.display(),
                        missing.join(", ")
                    ));
                }
            }
            let nodes = summary
                .tracks
                .iter()
                .map(|t| NodeInfo {
                    name: t.node.clone(),
                    parent: None,
                    meshes: Vec::new(),
                    rotation_keys: t.rotation_keys,
                    position_keys: t.position_keys,
                    scale_keys: t.scale_keys,
                    uv_channels: 0,
                })
                .collect::<Vec<_>>();
            let details = serde_json::to_value(&summary).unwrap_or(serde_json::Value::Null);
            Ok(Report {
                file: path.display().to_string(),
                format: "Grimrock animation (ANIM)".into(),
                version: parsed.version.to_string(),
                animation: AnimationInfo {
                    duration_seconds: parsed.duration(),
                    fps: parsed.fps,
                    frames: parsed.frames.max(0) as u32,
                    animated_nodes: nodes.len(),
                },
                nodes,
                textures: Vec::new(),
                warnings,
                notes: vec![format!("name: '{}'", summary.name)],
                details,
            })
        }
    }
}

/// A report of a file that holds no drawable model (maps, configs): its
/// format-specific lines, warnings and raw fields only.
fn file_report(
    path: &Path,
    format: &str,
    version: String,
    warnings: Vec<String>,
    notes: Vec<String>,
    details: serde_json::Value,
) -> Report {
    Report {
        file: path.display().to_string(),
        format: format.into(),
        version,
        nodes: Vec::new(),
        textures: Vec::new(),
        animation: AnimationInfo {
            duration_seconds: 0.0,
            fps: 0.0,
            frames: 0,
            animated_nodes: 0,
        },
        warnings,
        notes,
        details,
    }
}

fn report_from_model(
    path: &Path,
    format: &str,
    version: &str,
    model: &Model,
    details: serde_json::Value,
) -> Report {
    let nodes = model
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let meshes: Vec<&crate::scene::Mesh> =
                model.meshes.iter().filter(|m| m.node == i).collect();
            let uv_channels = meshes
                .iter()
                .flat_map(|m| &m.primitives)
                .map(|p| p.uv_anims.len())
                .sum();
            NodeInfo {
                name: n.name.clone(),
                parent: n
                    .parent
                    .and_then(|p| model.nodes.get(p))
                    .map(|p| p.name.clone()),
                meshes: meshes
                    .iter()
                    .map(|m| MeshInfo {
                        name: m.name.clone(),
                        vertices: m.positions.len(),
                        triangles: m.primitives.iter().map(|p| p.triangles.len()).sum(),
                    })
                    .collect(),
                rotation_keys: n.anim.rotation.as_ref().map_or(0, |t| t.values.len()),
                position_keys: n.anim.translation.as_ref().map_or(0, |t| t.values.len()),
                scale_keys: n.anim.scale.as_ref().map_or(0, |t| t.values.len()),
                uv_channels,
            }
        })
        .collect::<Vec<_>>();
    let animated_nodes = nodes
        .iter()
        .filter(|n| n.rotation_keys + n.position_keys + n.scale_keys + n.uv_channels > 0)
        .count();
    Report {
        file: path.display().to_string(),
        format: format.into(),
        version: version.into(),
        nodes,
        textures: model
            .textures
            .iter()
            .map(|t| TextureInfo {
                name: t.name.clone(),
                found: t.path.as_ref().map(|p| p.display().to_string()),
                width: t.image.width,
                height: t.image.height,
                alpha: format!("{:?}", t.image.alpha),
            })
            .collect(),
        animation: AnimationInfo {
            duration_seconds: model.duration,
            fps: model.frame_rate,
            frames: (model.duration * model.frame_rate).round() as u32,
            animated_nodes,
        },
        warnings: model.warnings.clone(),
        notes: Vec::new(),
        details,
    }
}

impl Report {
    /// The human-readable form.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{}: {} {}", self.file, self.format, self.version);
        let a = &self.animation;
        if self.format == "Arma RTM" {
            let _ = writeln!(
                s,
                "animation: {} frames over phases 0..1 (the real length lives in game config: recipe `duration`, default 1 s)",
                a.frames
            );
        } else if a.duration_seconds > 0.0 {
            let _ = writeln!(
                s,
                "animation: {:.3} s, {} fps, {} frames, {} animated node(s)",
                a.duration_seconds, a.fps, a.frames, a.animated_nodes
            );
        } else {
            let _ = writeln!(s, "animation: none (static)");
        }
        let _ = writeln!(s, "textures: {}", self.textures.len());
        for t in &self.textures {
            match &t.found {
                Some(p) => {
                    let _ = writeln!(
                        s,
                        "  {}  found {} ({}x{}, {})",
                        t.name, p, t.width, t.height, t.alpha
                    );
                }
                None => {
                    let _ = writeln!(s, "  {}  NOT FOUND (drawn as a checker)", t.name);
                }
            }
        }
        let _ = writeln!(s, "nodes: {}", self.nodes.len());
        for n in &self.nodes {
            let parent = n
                .parent
                .as_deref()
                .map(|p| format!(" (parent {p})"))
                .unwrap_or_default();
            let geo: Vec<String> = n
                .meshes
                .iter()
                .map(|m| format!("{} vertices, {} triangles", m.vertices, m.triangles))
                .collect();
            let geo = if geo.is_empty() {
                "no mesh".to_string()
            } else {
                geo.join("; ")
            };
            let _ = write!(s, "  {}{}: {}", n.name, parent, geo);
            let keys = [
                ("rotation", n.rotation_keys),
                ("position", n.position_keys),
                ("scale", n.scale_keys),
                ("uv", n.uv_channels),
            ];
            let keys: Vec<String> = keys
                .iter()
                .filter(|(_, c)| *c > 0)
                .map(|(k, c)| format!("{c} {k}"))
                .collect();
            if !keys.is_empty() {
                let _ = write!(s, "; keys: {}", keys.join(", "));
            }
            let _ = writeln!(s);
        }
        for n in &self.notes {
            let _ = writeln!(s, "{n}");
        }
        if self.warnings.is_empty() {
            let _ = writeln!(s, "warnings: none");
        } else {
            let _ = writeln!(s, "warnings:");
            for w in &self.warnings {
                let _ = writeln!(s, "  {w}");
            }
        }
        s
    }
}
