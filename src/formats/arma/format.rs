//! The Arma rows of the format table: MLOD P3D models, RTM animations and
//! `model.cfg` configs.

use super::lower::{self, FaceImage};
use super::{cfg, p3d, rtm};
use crate::error::{Error, Result};
use crate::formats::seam::{ClipInfo, Context, FileKind, Format, Opened, Summary, TrackKeys};
use crate::scene::animation::Animation;
use crate::scene::skeleton::BoneSpec;
use crate::scene::Model;
use crate::source::{Found, GamePath, Layout, Lookup, SourceRef, Tree};
use crate::spec::{FileRef, Lod, RootMotion, SkeletonSpec};
use std::path::Path;

/// Arma MLOD P3D models (`MLOD`; binarised `ODOL` is refused by the parser).
pub(crate) struct P3dFormat;

impl Format for P3dFormat {
    fn sniff(&self, head: &[u8], _: &Path) -> bool {
        head.starts_with(b"MLOD") || head.starts_with(b"ODOL")
    }
    fn role(&self) -> FileKind {
        FileKind::Model
    }
    fn layout(&self) -> Layout {
        Layout::FOLDER
    }
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>> {
        Ok(Box::new(OpenP3d(p3d::parse(bytes, file)?)))
    }
}

struct OpenP3d(p3d::Mlod);

impl Opened for OpenP3d {
    fn summary(&self, _: &Context) -> Result<Summary> {
        let summary = p3d::summary(&self.0);
        let mut notes = Vec::new();
        for l in &summary.lods {
            let star = if Some(l.index) == summary.most_detailed_visual_lod {
                " (drawn by default)"
            } else {
                ""
            };
            notes.push(format!(
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
                notes.push(format!("  selections: {}", l.selections.join(", ")));
            }
        }
        Ok(Summary {
            format: "Arma MLOD P3D".into(),
            version: "257".into(),
            details: serde_json::to_value(&summary).unwrap_or(serde_json::Value::Null),
            notes,
            ..Summary::default()
        })
    }

    fn model(&self, cx: &Context) -> Result<Model> {
        let parsed = &self.0;
        let lod = match cx.options.lod {
            None => parsed.most_detailed_visual_lod().unwrap_or(0),
            Some(Lod::Index(i)) => i as usize,
            Some(Lod::Resolution(r)) => parsed
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
                        cx.file.display(),
                        have.join(", ")
                    ))
                })?,
        };
        let mut image = |name: &str| -> Option<FaceImage> {
            match cx
                .options
                .materials
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
            {
                Some((_, file)) => Some(crate::formats::texture::read_named(cx.lookup, file)),
                None => {
                    let found = face_texture(cx.lookup, &cx.tree, name)?;
                    Some(crate::formats::texture::read_found(cx.lookup, &found))
                }
            }
        };
        Ok(lower::lower_mlod(parsed, lod, cx.file, &mut image))
    }
}

/// The names a face texture may be found under: as written, then (for
/// `.tga`, `.png` and other source images, which the game converts) the
/// `.paa` and `.pac` of the same stem.
fn texture_names(name: &str) -> Vec<GamePath> {
    let path = GamePath::new(name);
    let mut out = vec![path.clone()];
    let Some(file) = path.file_name() else {
        return out;
    };
    let stem = match file.iter().rposition(|&b| b == b'.') {
        Some(dot) => &file[..dot],
        None => file,
    };
    let ext = file[stem.len()..].to_ascii_lowercase();
    if ext != b".paa" && ext != b".pac" {
        for new_ext in [&b".paa"[..], b".pac"] {
            let mut f = stem.to_vec();
            f.extend_from_slice(new_ext);
            out.push(path.parent().child(f));
        }
    }
    out
}

/// Finds a face texture: in the caller's sources by its full path (a
/// folder holding the game's `P:` tree, or a PBO whose `prefix` starts
/// it), then in the model's own folder by the path and by each shorter
/// tail of it (`kiln\lever_co.paa`, `lever_co.paa`), never above.
/// Procedural textures (`#(argb,…)`) are not files.
fn face_texture(lookup: &Lookup, tree: &Tree, name: &str) -> Option<Found> {
    if name.is_empty() || name.starts_with('#') {
        return None;
    }
    let names = texture_names(name);
    let mut candidates: Vec<(SourceRef, GamePath)> = Vec::new();
    for s in lookup.sources() {
        for n in &names {
            candidates.push((s.clone(), n.clone()));
        }
    }
    let folder = tree.folder();
    for n in &names {
        for skip in 0..n.parts().len() {
            candidates.push((tree.source.clone(), folder.join(&n.skip(skip))));
        }
    }
    lookup.first(candidates)
}

/// Arma RTM animations, plain (`RTM_MDAT`/`RTM_0101`) or binarised (`BMTR`).
pub(crate) struct RtmFormat;

impl Format for RtmFormat {
    fn sniff(&self, head: &[u8], _: &Path) -> bool {
        head.starts_with(b"RTM_") || head.starts_with(b"BMTR")
    }
    fn role(&self) -> FileKind {
        FileKind::Animation
    }
    fn layout(&self) -> Layout {
        Layout::FOLDER
    }
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>> {
        Ok(Box::new(OpenRtm(rtm::parse(bytes, file)?)))
    }
}

struct OpenRtm(rtm::Rtm);

impl OpenRtm {
    fn lower(
        &self,
        file: &Path,
        duration: f32,
        skeleton: Option<&[(String, String)]>,
        travel: bool,
    ) -> Result<(Animation, Option<Vec<BoneSpec>>)> {
        match &self.0 {
            rtm::Rtm::Plain(p) => {
                let (a, bones) = lower::lower_plain(p, skeleton, duration, travel);
                Ok((a, Some(bones)))
            }
            rtm::Rtm::Binarised(b) => {
                let skeleton = skeleton.ok_or_else(|| {
                    Error::Usage(format!(
                        "{}: a binarised RTM (BMTR v{}) stores parent-relative bones; give the \
                         skeleton (recipe `skeleton: {{ config: model.cfg, class: NAME }}`)",
                        file.display(),
                        b.version
                    ))
                })?;
                let (a, bones) = lower::lower_bmtr(b, skeleton, duration, travel);
                Ok((a, Some(bones)))
            }
        }
    }
}

impl Opened for OpenRtm {
    fn summary(&self, cx: &Context) -> Result<Summary> {
        let summary = rtm::summary(&self.0);
        let details = serde_json::to_value(&summary).unwrap_or(serde_json::Value::Null);
        // Tracks as the lowering sees them; a binarised file's bones are
        // listed without their hierarchy.
        let (anim, _) = self.lower(cx.file, 1.0, Some(&[]), false)?;
        let tracks: Vec<TrackKeys> = anim
            .tracks
            .iter()
            .map(|t| TrackKeys {
                node: t.node.clone(),
                rotation: t.anim.rotation.as_ref().map_or(0, |k| k.values.len()),
                position: t.anim.translation.as_ref().map_or(0, |k| k.values.len()),
                scale: t.anim.scale.as_ref().map_or(0, |k| k.values.len()),
            })
            .collect();
        let notes = rtm_lines(&summary);
        Ok(Summary {
            format: "Arma RTM".into(),
            // BMTR files number their versions; plain RTMs are told by
            // their magic.
            version: match summary.version {
                Some(v) => v.to_string(),
                None if summary.metadata.is_empty() => "plain (RTM_0101)".into(),
                None => "plain (RTM_MDAT + RTM_0101)".into(),
            },
            clip: Some(ClipInfo {
                duration_seconds: 1.0,
                fps: anim.frame_rate,
                frames: anim
                    .tracks
                    .first()
                    .and_then(|t| t.anim.rotation.as_ref())
                    .map_or(0, |k| k.values.len() as u32),
            }),
            tracks,
            notes,
            details,
            ..Summary::default()
        })
    }

    fn animation(&self, cx: &Context) -> Result<(Animation, Option<Vec<BoneSpec>>)> {
        let settings = cx.animation;
        let skeleton = match &settings.skeleton {
            Some(SkeletonSpec::Config { config, class }) => {
                Some(skeleton_bones(cx.lookup, config, class)?)
            }
            Some(SkeletonSpec::Bones(b)) => Some(b.clone()),
            None => None,
        };
        self.lower(
            cx.file,
            settings.duration.unwrap_or(1.0),
            skeleton.as_deref(),
            settings.root_motion == RootMotion::Keep,
        )
    }
}

/// The (bone, parent) pairs of skeleton `class` in a `model.cfg`; errors
/// name the file where it was read (on disk, or in a source).
fn skeleton_bones(lookup: &Lookup, config: &FileRef, class: &str) -> Result<Vec<(String, String)>> {
    let (bytes, origin) = lookup.read_named(config)?;
    let file = origin.name();
    let parsed = cfg::parse_bytes(&bytes, &file)?;
    let skeletons = cfg::skeletons(&parsed);
    cfg::resolve_bones(&skeletons, class)
        .map_err(|e| Error::Usage(format!("{}: skeleton '{class}': {e}", file.display())))
}

/// Arma `model.cfg` / `config.cpp` text.
pub(crate) struct ConfigFormat;

impl Format for ConfigFormat {
    fn sniff(&self, head: &[u8], file: &Path) -> bool {
        let ext = file
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        (ext == "cfg" || ext == "cpp" || ext == "hpp") && std::str::from_utf8(head).is_ok()
    }
    fn role(&self) -> FileKind {
        FileKind::Config
    }
    fn layout(&self) -> Layout {
        Layout::FOLDER
    }
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>> {
        Ok(Box::new(OpenConfig(cfg::parse_bytes(bytes, file)?)))
    }
}

struct OpenConfig(cfg::Cfg);

impl Opened for OpenConfig {
    fn summary(&self, _: &Context) -> Result<Summary> {
        let parsed = &self.0;
        let skeletons = cfg::skeletons(parsed);
        let mut notes = Vec::new();
        let mut warnings = parsed.notes.clone();
        for s in &skeletons {
            match cfg::resolve_bones(&skeletons, &s.name) {
                Ok(bones) => notes.push(format!(
                    "skeleton {}{}: {} bones{}",
                    s.name,
                    s.inherit
                        .as_deref()
                        .filter(|i| !i.is_empty())
                        .map(|i| format!(" (inherits {i})"))
                        .unwrap_or_default(),
                    bones.len(),
                    if s.is_discrete { ", discrete" } else { "" }
                )),
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
        Ok(Summary {
            format: "Arma config (CfgSkeletons)".into(),
            notes,
            warnings,
            details,
            ..Summary::default()
        })
    }
}

/// The text lines `kiln inspect` prints for an RTM (the JSON form holds
/// the same under `details`).
fn rtm_lines(s: &rtm::RtmSummary) -> Vec<String> {
    let mut out = vec![format!(
        "step: {} {} {} (root displacement per cycle)",
        s.step[0], s.step[1], s.step[2]
    )];
    if let Some([lo, hi]) = s.phases {
        out.push(format!("phases: {lo} to {hi}"));
    }
    out.push(format!("bones: {}", s.bones.len()));
    if !s.metadata.is_empty() {
        out.push(format!("metadata: {}", s.metadata.len()));
        for m in &s.metadata {
            out.push(format!("  {} at phase {}: {}", m.name, m.phase, m.value));
        }
    }
    if !s.arrays.is_empty() {
        out.push(format!(
            "arrays: {} ({} LZO1X-compressed)",
            s.arrays.len(),
            s.lzo_arrays
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{MemorySource, SourceRef};
    use std::sync::Arc;

    #[test]
    fn a_skeleton_read_from_a_source_is_named_by_its_location() {
        let mut mem = MemorySource::new("mem");
        mem.insert(
            "addon/model.cfg",
            b"class CfgSkeletons { class S { skeletonBones[] = {\"a\", \"\"}; }; };".to_vec(),
        );
        let lookup = Lookup::new(vec![Arc::new(mem) as SourceRef]);
        let config = FileRef {
            disk: "no/such/folder/model.cfg".into(),
            written: "addon/model.cfg".into(),
        };
        let bones = skeleton_bones(&lookup, &config, "S").unwrap();
        assert_eq!(bones, [("a".to_string(), String::new())]);
        let e = skeleton_bones(&lookup, &config, "Nope").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("mem:/addon/model.cfg: skeleton 'Nope': "),
            "{e}"
        );
    }
}
