//! Loading models and animations: every file goes through the one format
//! table ([`crate::formats::registry`]), read from disk or from the caller's
//! data sources, chosen by content (magic bytes), not by extension.

use crate::error::Result;
use crate::formats::registry;
use crate::formats::seam::{Detail, FileKind, LoadOptions, Summary};
use crate::scene::{self, Model};
use crate::source::Lookup;
use crate::spec::{AnimationSettings, FileRef, ModelSpec};
use std::path::Path;

/// Loads the model of `spec` with its textures (no animation file applied).
pub(crate) fn load_model(spec: &ModelSpec, lookup: &Lookup) -> Result<Model> {
    let file = registry::open(lookup, &spec.model)?;
    let options = LoadOptions {
        materials: spec.materials.clone(),
        pose: spec.pose,
        lod: spec.lod,
        scene: spec.scene.clone(),
    };
    let cx = file.context(lookup, &options, &spec.animation);
    file.parsed.model(&cx)
}

/// The names of the animations `file` itself holds (glTF), in file order,
/// read from disk or from `data` folders; empty for a format without.
pub(crate) fn embedded_animations(
    file: &FileRef,
    data: &[std::path::PathBuf],
) -> Result<Vec<String>> {
    let lookup = Lookup::with_folders(data, &[])?;
    Ok(registry::open(&lookup, file)?.parsed.takes())
}

/// A copy of `model` carrying the animation of its own file that `wanted`
/// names (a name, else an index) in place of the first.
pub(crate) fn embedded(model: &Model, wanted: &str) -> Result<Model> {
    let found =
        scene::animation::find_take(model, wanted).and_then(|i| scene::animation::take(model, i));
    found.ok_or_else(|| {
        let names: Vec<String> = model
            .extras
            .takes
            .iter()
            .enumerate()
            .map(|(i, t)| format!("{i} {:?}", t.name))
            .collect();
        crate::error::Error::Usage(format!(
            "{}: no animation {wanted:?} in the file; it holds {}",
            model.source.display(),
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ))
    })
}

/// A copy of `model` posed by the animation file `anim`: its tracks replace
/// the nodes' own (by node name), bones it names are bound first (Arma).
pub(crate) fn animate(
    model: &Model,
    anim: &FileRef,
    settings: &AnimationSettings,
    lookup: &Lookup,
) -> Result<Model> {
    let read = read_animation(anim, settings, lookup)?;
    let bound;
    let model = match &read.bones {
        Some(b) => {
            bound = scene::skeleton::bind(model, b);
            &bound
        }
        None => model,
    };
    Ok(read.apply(model))
}

/// Copies of `model` posed by each of `anims` in turn (`None`: the model
/// as it is, with its own animation or at rest), all on one node tree: the
/// bones any of the files names are bound once, so every copy has the same
/// nodes and skins (a glTF file holds one skeleton for all its clips). A
/// bone one file names and another does not stays at rest in the other.
pub(crate) fn animate_together(
    model: &Model,
    anims: &[Option<&FileRef>],
    settings: &AnimationSettings,
    lookup: &Lookup,
) -> Result<Vec<Model>> {
    let mut reads = Vec::with_capacity(anims.len());
    for a in anims {
        reads.push(match a {
            Some(file) => Some(read_animation(file, settings, lookup)?),
            None => None,
        });
    }
    let mut bones: Vec<scene::skeleton::BoneSpec> = Vec::new();
    for b in reads
        .iter()
        .flatten()
        .filter_map(|r| r.bones.as_ref())
        .flatten()
    {
        if !bones.iter().any(|x| x.name.eq_ignore_ascii_case(&b.name)) {
            bones.push(b.clone());
        }
    }
    let bound;
    let base = if bones.is_empty() {
        model
    } else {
        bound = scene::skeleton::bind(model, &bones);
        &bound
    };
    Ok(reads
        .iter()
        .map(|r| match r {
            Some(r) => r.apply(base),
            None => base.clone(),
        })
        .collect())
}

/// An animation file as read for a model: its tracks, and the bones it
/// needs bound first (Arma).
struct ReadAnimation {
    animation: scene::animation::Animation,
    bones: Option<Vec<scene::skeleton::BoneSpec>>,
    name: std::path::PathBuf,
}

fn read_animation(
    anim: &FileRef,
    settings: &AnimationSettings,
    lookup: &Lookup,
) -> Result<ReadAnimation> {
    let file = registry::open(lookup, anim)?;
    let options = LoadOptions::default();
    let cx = file.context(lookup, &options, settings);
    let (animation, bones) = file.parsed.animation(&cx)?;
    Ok(ReadAnimation {
        animation,
        bones,
        name: file.name.clone(),
    })
}

impl ReadAnimation {
    /// `model` (already bound) animated by these tracks, with a warning
    /// naming the tracks that match no node.
    fn apply(&self, model: &Model) -> Model {
        let (mut out, unmatched) = scene::animation::apply(model, &self.animation);
        if !unmatched.is_empty() {
            out.warnings.push(format!(
                "{}: {} track(s) name no node of the model and are ignored: {}",
                self.name.display(),
                unmatched.len(),
                unmatched.join(", ")
            ));
        }
        out
    }
}

/// What `kiln inspect` needs of a file: its summary, and for a model the
/// lowered model.
pub(crate) struct Summarised {
    pub summary: Summary,
    pub model: Option<Model>,
    /// How the file is named in messages.
    pub name: std::path::PathBuf,
}

/// Opens `file` once and summarises it, its own fields in `detail`; models
/// are also lowered. For an animation, `companion` names the model its
/// tracks should match.
pub(crate) fn summarise(
    lookup: &Lookup,
    file: &FileRef,
    companion: Option<&Path>,
    detail: Detail,
) -> Result<Summarised> {
    let opened = registry::open(lookup, file)?;
    let options = LoadOptions::default();
    let settings = AnimationSettings::default();
    let mut cx = opened.context(lookup, &options, &settings);
    cx.companion = companion;
    cx.detail = detail;
    let summary = opened.parsed.summary(&cx)?;
    let model = match opened.format.role() {
        FileKind::Model => Some(opened.parsed.model(&cx)?),
        _ => None,
    };
    Ok(Summarised {
        summary,
        model,
        name: opened.name.clone(),
    })
}

/// What kind of file `file` is (read from disk, else from `data` folders by
/// the name as written), judged by its first bytes.
pub fn file_kind(file: &FileRef, data: &[std::path::PathBuf]) -> Result<FileKind> {
    let lookup = Lookup::with_folders(data, &[])?;
    let (bytes, origin) = lookup.read_named(file)?;
    Ok(registry::sniff(&bytes, &origin.name())?.role())
}
