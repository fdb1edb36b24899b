//! The Grimrock rows of the format table: `MDL1` models and `ANIM`
//! animations.

use super::{lower, materials, Animation, Model as GrModel};
use crate::error::Result;
use crate::formats::seam::{ClipInfo, Context, FileKind, Format, Opened, Summary, TrackKeys};
use crate::scene::animation::Animation as SceneAnimation;
use crate::scene::skeleton::BoneSpec;
use crate::scene::Model;
use crate::source::Layout;
use crate::spec::FileRef;
use std::path::Path;

/// Legend of Grimrock models.
pub(crate) struct ModelFormat;

impl Format for ModelFormat {
    fn sniff(&self, head: &[u8], _: &Path) -> bool {
        head.starts_with(b"MDL1")
    }
    fn role(&self) -> FileKind {
        FileKind::Model
    }
    fn layout(&self) -> Layout {
        Layout::GRIMROCK
    }
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>> {
        Ok(Box::new(OpenModel(super::parse_model(bytes, file)?)))
    }
}

struct OpenModel(GrModel);

impl Opened for OpenModel {
    fn summary(&self, _: &Context) -> Result<Summary> {
        let summary = super::model_summary(&self.0);
        let mut notes = Vec::new();
        for n in &summary.nodes {
            notes.push(format!(
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
            notes.push(format!(
                "mesh on '{}': {} vertices, {} indices; arrays: {}",
                m.node_name,
                m.vertex_count,
                m.index_count,
                arrays.join(", ")
            ));
            for sg in &m.segments {
                notes.push(format!(
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
                notes.push(format!("  {} bones: {}", m.bones.len(), names.join(", ")));
            }
        }
        Ok(Summary {
            format: "Grimrock model (MDL1)".into(),
            version: self.0.version.to_string(),
            details: serde_json::to_value(&summary).unwrap_or(serde_json::Value::Null),
            notes,
            ..Summary::default()
        })
    }

    fn model(&self, cx: &Context) -> Result<Model> {
        let (defs, warnings) =
            materials::material_defs(cx.lookup, &cx.tree, &self.0, &cx.options.materials);
        let mut model = lower::lower(&self.0, cx.file, &defs, cx.options.pose);
        model.warnings.splice(0..0, warnings);
        Ok(model)
    }
}

/// Legend of Grimrock animations.
pub(crate) struct AnimationFormat;

impl Format for AnimationFormat {
    fn sniff(&self, head: &[u8], _: &Path) -> bool {
        head.starts_with(b"ANIM")
    }
    fn role(&self) -> FileKind {
        FileKind::Animation
    }
    fn layout(&self) -> Layout {
        Layout::GRIMROCK
    }
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>> {
        Ok(Box::new(OpenAnimation(super::parse_animation(
            bytes, file,
        )?)))
    }
}

struct OpenAnimation(Animation);

impl Opened for OpenAnimation {
    fn summary(&self, cx: &Context) -> Result<Summary> {
        let parsed = &self.0;
        let summary = super::animation_summary(parsed);
        let mut warnings = parsed.warnings.clone();
        if let Some(model_path) = cx.companion {
            let (bytes, origin) = cx.lookup.read_named(&FileRef::from(model_path))?;
            let m = super::parse_model(&bytes, &origin.name())?;
            let missing = super::unmatched_tracks(parsed, &m);
            if !missing.is_empty() {
                warnings.push(format!(
                    "{} track(s) name no node of {} and are ignored: {}",
                    missing.len(),
                    model_path.display(),
                    missing.join(", ")
                ));
            }
        }
        Ok(Summary {
            format: "Grimrock animation (ANIM)".into(),
            version: parsed.version.to_string(),
            details: serde_json::to_value(&summary).unwrap_or(serde_json::Value::Null),
            notes: vec![format!("name: '{}'", summary.name)],
            warnings,
            tracks: summary
                .tracks
                .iter()
                .map(|t| TrackKeys {
                    node: t.node.clone(),
                    rotation: t.rotation_keys,
                    position: t.position_keys,
                    scale: t.scale_keys,
                })
                .collect(),
            clip: Some(ClipInfo {
                duration_seconds: parsed.duration(),
                fps: parsed.fps,
                frames: parsed.frames.max(0) as u32,
            }),
        })
    }

    fn animation(&self, _: &Context) -> Result<(SceneAnimation, Option<Vec<BoneSpec>>)> {
        Ok((lower::lower_animation(&self.0), None))
    }
}
