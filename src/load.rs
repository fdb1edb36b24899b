//! Loading models and animations: every file goes through the one format
//! table ([`crate::formats::registry`]), read from disk or from the caller's
//! data sources, chosen by content (magic bytes), not by extension.

use crate::error::Result;
use crate::formats::registry;
use crate::formats::seam::{FileKind, LoadOptions, Summary};
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
    };
    let cx = file.context(lookup, &options, &spec.animation);
    file.parsed.model(&cx)
}

/// A copy of `model` posed by the animation file `anim`: its tracks replace
/// the nodes' own (by node name), bones it names are bound first (Arma).
pub(crate) fn animate(
    model: &Model,
    anim: &FileRef,
    settings: &AnimationSettings,
    lookup: &Lookup,
) -> Result<Model> {
    let file = registry::open(lookup, anim)?;
    let options = LoadOptions::default();
    let cx = file.context(lookup, &options, settings);
    let (animation, bones) = file.parsed.animation(&cx)?;
    let bound;
    let model = match bones {
        Some(b) => {
            bound = scene::skeleton::bind(model, &b);
            &bound
        }
        None => model,
    };
    let (mut out, unmatched) = scene::animation::apply(model, &animation);
    if !unmatched.is_empty() {
        out.warnings.push(format!(
            "{}: {} track(s) name no node of the model and are ignored: {}",
            file.name.display(),
            unmatched.len(),
            unmatched.join(", ")
        ));
    }
    Ok(out)
}

/// What `kiln inspect` needs of a file: its summary, and for a model the
/// lowered model.
pub(crate) struct Summarised {
    pub summary: Summary,
    pub model: Option<Model>,
    /// How the file is named in messages.
    pub name: std::path::PathBuf,
}

/// Opens `file` once and summarises it; models are also lowered. For an
/// animation, `companion` names the model its tracks should match.
pub(crate) fn summarise(
    lookup: &Lookup,
    file: &FileRef,
    companion: Option<&Path>,
) -> Result<Summarised> {
    let opened = registry::open(lookup, file)?;
    let options = LoadOptions::default();
    let settings = AnimationSettings::default();
    let mut cx = opened.context(lookup, &options, &settings);
    cx.companion = companion;
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
