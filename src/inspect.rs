//! `kiln inspect`: what a file holds, as text or JSON.
//!
//! The report is built from two views of the file: the format's own summary
//! (version, raw fields, as stored) and the lowered scene model (what kiln
//! will draw: nodes, meshes, textures found or not, animation tracks).

use crate::error::{Error, Result};
use crate::formats::seam::{Detail, Summary};
use crate::load::Summarised;
use crate::scene::Model;
use crate::source::Lookup;
use crate::spec::FileRef;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What a file holds, as `kiln inspect` prints it (text or JSON).
#[derive(Debug, Serialize)]
pub struct Report {
    /// The file, as named.
    pub file: String,
    /// Format name ("RSM2", "Grimrock model (MDL1)", "Arma RTM", ...).
    pub format: String,
    /// Version as the format numbers it.
    pub version: String,
    /// Nodes of a model, or the tracks of an animation.
    pub nodes: Vec<NodeInfo>,
    /// A model's textures and where each was found.
    pub textures: Vec<TextureInfo>,
    /// Length and sampling of the file's animation.
    pub animation: AnimationInfo,
    /// What the user should know (trailing bytes, clamped indices, missing
    /// textures).
    pub warnings: Vec<String>,
    /// Format-specific lines for the text form (node types, vertex arrays,
    /// segments, bones).
    #[serde(skip)]
    pub notes: Vec<String>,
    /// The format's own fields, as stored in the file: for RSW, RSM and GND
    /// every field the parser holds, or with
    /// [`InspectDetail::Summary`](crate::InspectDetail::Summary) the header
    /// and counts (`docs/inspect.md` gives the shape).
    pub details: serde_json::Value,
    /// For an archive: its entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive: Option<ArchiveInfo>,
    /// For a texture: format, size, mips, alpha and colour-key statistics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture: Option<crate::formats::texture::TextureSummary>,
    /// What the file is, deciding which lines the text form has.
    #[serde(skip)]
    kind: Kind,
}

/// What kind of file a report is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Kind {
    #[default]
    Model,
    Animation,
    /// Maps, grounds, configs: their own lines only.
    Other,
    Archive,
    Texture,
}

/// An archive's entries, for `kiln inspect`.
#[derive(Debug, Serialize)]
pub struct ArchiveInfo {
    /// Header fields (`prefix` of a PBO, …).
    pub properties: Vec<(String, String)>,
    /// Every file entry, in table order.
    pub entries: Vec<crate::source::Item>,
}

/// One node of a model (or one track of an animation).
#[derive(Debug, Serialize)]
pub struct NodeInfo {
    /// Node (or bone) name.
    pub name: String,
    /// The parent node's name.
    pub parent: Option<String>,
    /// Meshes the node places.
    pub meshes: Vec<MeshInfo>,
    /// Rotation keys.
    pub rotation_keys: usize,
    /// Position keys.
    pub position_keys: usize,
    /// Scale keys.
    pub scale_keys: usize,
    /// Texture-coordinate animations on its meshes (RSM2 2.3).
    pub uv_channels: usize,
}

/// One mesh as kiln draws it.
#[derive(Debug, Serialize)]
pub struct MeshInfo {
    /// Mesh name.
    pub name: String,
    /// Vertices.
    pub vertices: usize,
    /// Triangles.
    pub triangles: usize,
}

/// One texture a model names.
#[derive(Debug, Serialize)]
pub struct TextureInfo {
    /// The name as the model gives it.
    pub name: String,
    /// Where it was found, if anywhere.
    pub found: Option<String>,
    /// Decoded width (the checker's 64 when not found).
    pub width: u32,
    /// Decoded height.
    pub height: u32,
    /// `Opaque`, `ColorKey` or `Translucent`.
    pub alpha: String,
}

/// Length and sampling of a file's animation.
#[derive(Debug, Serialize)]
pub struct AnimationInfo {
    /// Loop period in seconds (0 for a static model).
    pub duration_seconds: f32,
    /// The file's own frame rate.
    pub fps: f32,
    /// Frames in the loop at that rate.
    pub frames: u32,
    /// Nodes with keys.
    pub animated_nodes: usize,
}

/// Inspects a file: `data` folders are searched first for what it names
/// (textures, a map's models); for an animation, `companion` (if given) is
/// the model whose nodes its tracks should name. `details` holds every
/// field the format's parser holds.
pub fn inspect(file: &FileRef, data: &[PathBuf], companion: Option<&Path>) -> Result<Report> {
    inspect_with(file, data, companion, Detail::Full)
}

/// [`inspect`], with `details` in the given
/// [`InspectDetail`](crate::InspectDetail): the summary form is what
/// `kiln inspect --json --summary` prints.
pub fn inspect_with(
    file: &FileRef,
    data: &[PathBuf],
    companion: Option<&Path>,
    detail: Detail,
) -> Result<Report> {
    inspect_within(
        file,
        data,
        companion,
        detail,
        crate::memory::DEFAULT_MEMORY_LIMIT,
    )
}

/// [`inspect_with`], the images it decodes (a texture, a model's
/// textures, a sprite's images) allowed `memory_limit` bytes together
/// (`kiln inspect --memory-limit`).
pub fn inspect_within(
    file: &FileRef,
    data: &[PathBuf],
    companion: Option<&Path>,
    detail: Detail,
    memory_limit: u64,
) -> Result<Report> {
    if let Some(report) = inspect_archive(&file.disk)? {
        return Ok(report);
    }
    let lookup = Lookup::with_folders(data, &[])?.with_memory_limit(memory_limit);
    if let Some(report) = inspect_texture(&lookup, file)? {
        return Ok(report);
    }
    let Summarised {
        summary,
        model,
        name,
    } = crate::load::summarise(&lookup, file, companion, detail).map_err(also_read)?;
    let Summary {
        format,
        version,
        details,
        notes,
        warnings,
        tracks,
        clip,
    } = summary;
    if let Some(model) = model {
        let mut report = report_from_model(&name, &format, &version, &model, details);
        for w in warnings {
            if !report.warnings.contains(&w) {
                report.warnings.push(w);
            }
        }
        report.notes = notes;
        return Ok(report);
    }
    if let Some(clip) = clip {
        let nodes: Vec<NodeInfo> = tracks
            .into_iter()
            .map(|t| NodeInfo {
                name: t.node,
                parent: None,
                meshes: Vec::new(),
                rotation_keys: t.rotation,
                position_keys: t.position,
                scale_keys: t.scale,
                uv_channels: 0,
            })
            .collect();
        return Ok(Report {
            file: name.display().to_string(),
            format,
            version,
            animation: AnimationInfo {
                duration_seconds: clip.duration_seconds,
                fps: clip.fps,
                frames: clip.frames,
                animated_nodes: nodes.len(),
            },
            nodes,
            textures: Vec::new(),
            warnings,
            notes,
            details,
            archive: None,
            texture: None,
            kind: Kind::Animation,
        });
    }
    Ok(file_report(
        &name, &format, version, warnings, notes, details,
    ))
}

/// A report of a file that holds no drawable model (maps, configs, and the
/// start of an archive's or a texture's): its format-specific lines,
/// warnings and raw fields only.
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
        archive: None,
        texture: None,
        kind: Kind::Other,
    }
}

/// The report of an archive on disk (told by its first bytes), if `path`
/// is one.
/// An unreadable file's message, completed with what `inspect` takes
/// beyond the model formats the sniffer lists.
fn also_read(e: Error) -> Error {
    match e {
        Error::Parse(mut p) if p.message.starts_with("not a file kiln can read") => {
            p.message.push_str(
                "; inspect also reads textures (BMP, TGA, PNG, DDS, PAA/PAC), archives (GRF, PBO, \
                 Grimrock .dat) and Arma model.cfg",
            );
            Error::Parse(p)
        }
        e => e,
    }
}

fn inspect_archive(path: &Path) -> Result<Option<Report>> {
    // Only regular files: opening a FIFO to peek would block.
    if !path.is_file() {
        return Ok(None);
    }
    let head = match std::fs::File::open(path) {
        Ok(f) => {
            use std::io::Read;
            let mut head = Vec::new();
            let _ = f.take(1024).read_to_end(&mut head);
            head
        }
        _ => return Ok(None),
    };
    if crate::source::archive::sniff(&head).is_none() {
        return Ok(None);
    }
    let archive = crate::source::open_archive(path)?;
    let entries = archive.items().to_vec();
    let refused = entries.iter().filter(|e| e.refused.is_some()).count();
    let mut notes = Vec::new();
    let mut warnings = archive.warnings();
    if refused > 0 {
        warnings.push(format!(
            "{refused} entries cannot be extracted (see `refused`)"
        ));
    }
    let total: u64 = entries.iter().map(|e| e.size).sum();
    notes.push(format!(
        "entries: {} ({total} bytes extracted)",
        entries.len()
    ));
    let mut report = file_report(
        path,
        &archive.format(),
        String::new(),
        warnings,
        notes,
        serde_json::Value::Null,
    );
    report.archive = Some(ArchiveInfo {
        properties: archive.properties(),
        entries,
    });
    report.kind = Kind::Archive;
    Ok(Some(report))
}

/// The report of a texture (BMP, TGA, PNG, DDS, PAA), if `file` is one
/// and no model format claims it.
fn inspect_texture(lookup: &Lookup, file: &FileRef) -> Result<Option<Report>> {
    let (bytes, origin) = lookup.read_named(file)?;
    let name = origin.name();
    if crate::formats::registry::sniff(&bytes, &name).is_ok()
        || !crate::formats::texture::looks_like_texture(&bytes, &name)
    {
        return Ok(None);
    }
    let summary = crate::formats::texture::summarize_within(&bytes, &name, lookup.memory())?;
    let mut report = file_report(
        &name,
        &summary.format,
        String::new(),
        Vec::new(),
        Vec::new(),
        serde_json::Value::Null,
    );
    report.texture = Some(summary);
    report.kind = Kind::Texture;
    Ok(Some(report))
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
        archive: None,
        texture: None,
        kind: Kind::Model,
    }
}

impl Report {
    /// The human-readable form.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let head = format!("{}: {} {}", self.file, self.format, self.version);
        let _ = writeln!(s, "{}", head.trim_end());
        match self.kind {
            Kind::Model | Kind::Animation => self.model_lines(&mut s),
            Kind::Archive => self.archive_lines(&mut s),
            Kind::Texture => self.texture_lines(&mut s),
            Kind::Other => {}
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

    fn archive_lines(&self, s: &mut String) {
        let Some(a) = &self.archive else { return };
        for (k, v) in &a.properties {
            let _ = writeln!(s, "{k}: {v}");
        }
        let _ = writeln!(
            s,
            "  {:>10} {:>10} {:>5}  {:<5} {:<10}  name",
            "size", "stored", "flags", "pack", "encryption"
        );
        for e in &a.entries {
            let _ = write!(
                s,
                "  {:>10} {:>10} {:>5}  {:<5} {:<10}  {}",
                e.size,
                e.stored,
                format!("{:#x}", e.flags),
                e.compression,
                e.encryption,
                e.name
            );
            if let Some(why) = &e.refused {
                let _ = write!(s, "  (cannot extract: {why})");
            }
            let _ = writeln!(s);
        }
    }

    fn texture_lines(&self, s: &mut String) {
        let Some(t) = &self.texture else { return };
        let _ = writeln!(s, "size: {}x{}, alpha: {}", t.width, t.height, t.alpha);
        let mips: Vec<String> = t.mips.iter().map(|[w, h]| format!("{w}x{h}")).collect();
        let _ = writeln!(s, "mips: {} ({})", t.mips.len(), mips.join(", "));
        let _ = writeln!(
            s,
            "colour key: {} texels keyed; {} opaque near-magenta texels left",
            t.keyed_texels, t.near_key_texels
        );
        for (c, n) in &t.near_key_colours {
            let _ = writeln!(s, "  ({}, {}, {}) × {n}", c[0], c[1], c[2]);
        }
        for n in &t.notes {
            let _ = writeln!(s, "{n}");
        }
    }

    fn model_lines(&self, s: &mut String) {
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
        // An animation names no textures; only its tracks are listed.
        let textures = if self.kind == Kind::Animation {
            &[][..]
        } else {
            let _ = writeln!(s, "textures: {}", self.textures.len());
            &self.textures[..]
        };
        for t in textures {
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
    }
}
