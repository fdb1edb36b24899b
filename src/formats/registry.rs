//! The one table of formats: every file kiln reads is recognised here by
//! its first bytes, parsed once, then asked for what the caller needs — a
//! model, an animation, or a summary for `kiln inspect`. Loading, inspecting
//! and exporting all go through [`open`]; a new format is one folder under
//! `formats/` and one row in [`FORMATS`].

use crate::error::{Error, ParseError, Result};
use crate::scene::animation::Animation;
use crate::scene::skeleton::BoneSpec;
use crate::scene::Model;
use crate::source::{Layout, Lookup, Tree};
use crate::spec::{AnimationSettings, FileRef, Lod, RestPose};
use std::path::{Path, PathBuf};

/// What a file is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// A model (drawable on its own).
    Model,
    /// An animation applied to a model.
    Animation,
    /// A Ragnarok map scene.
    Map,
    /// A Ragnarok map's ground.
    Ground,
    /// A configuration file (Arma `model.cfg`).
    Config,
}

/// One file format.
pub(crate) trait Format: Sync {
    /// Recognises the format by its first bytes (and, for text formats
    /// without magic bytes, the file name).
    fn sniff(&self, head: &[u8], file: &Path) -> bool;
    /// What its files are for.
    fn role(&self) -> Role;
    /// How the game roots the data tree its files sit in.
    fn layout(&self) -> Layout;
    /// Parses the whole file.
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>>;
}

/// A parsed file, asked once or several times for what the caller needs.
pub(crate) trait Opened: Send {
    /// The role of the format that opened it.
    fn role(&self) -> Role;
    /// What `kiln inspect` shows beyond the lowered model: the format's own
    /// fields as stored, and lines only this format has.
    fn summary(&self, cx: &Context) -> Result<Summary>;
    /// The model, lowered into kiln's scene form with its textures.
    fn model(&self, cx: &Context) -> Result<Model> {
        Err(wrong_role(self.role(), cx.file))
    }
    /// The animation, and the bones it needs bound (Arma).
    fn animation(&self, cx: &Context) -> Result<(Animation, Option<Vec<BoneSpec>>)> {
        let _ = cx;
        Err(Error::Usage(format!(
            "{}: not an animation file kiln can read",
            cx.file.display()
        )))
    }
}

/// Everything a parsed file may need to finish loading.
pub(crate) struct Context<'a> {
    /// The caller's sources and the record of what was read.
    pub lookup: &'a Lookup,
    /// The file's own tree.
    pub tree: Tree,
    /// How the file is named in messages.
    pub file: &'a Path,
    /// Model options (materials, pose, LOD).
    pub options: &'a LoadOptions,
    /// Animation options (duration, skeleton, travel).
    pub animation: &'a AnimationSettings,
    /// For an animation's summary: the model its tracks should name.
    pub companion: Option<&'a Path>,
}

/// Options a model's lowering takes.
#[derive(Debug, Clone, Default)]
pub(crate) struct LoadOptions {
    /// Material name → texture file, overriding the model's own lookup.
    pub materials: Vec<(String, FileRef)>,
    /// Grimrock: the rest pose of skinned meshes.
    pub pose: RestPose,
    /// Arma: which LOD.
    pub lod: Option<Lod>,
}

/// A format's own view of a file, for `kiln inspect`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Summary {
    /// Format name ("RSM2", "Grimrock model (MDL1)").
    pub format: String,
    /// Version as the format numbers it.
    pub version: String,
    /// The format's fields as stored, for `--json`.
    pub details: serde_json::Value,
    /// Lines for the text report that only this format has.
    pub notes: Vec<String>,
    /// Findings beyond the lowered model's own warnings.
    pub warnings: Vec<String>,
    /// For animations: key counts per track.
    pub tracks: Vec<TrackKeys>,
    /// For animations: length and sampling.
    pub clip: Option<ClipInfo>,
}

/// Key counts of one animation track.
#[derive(Debug, Clone, Default)]
pub(crate) struct TrackKeys {
    pub node: String,
    pub rotation: usize,
    pub position: usize,
    pub scale: usize,
}

/// An animation file's length and sampling.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ClipInfo {
    pub duration_seconds: f32,
    pub fps: f32,
    pub frames: u32,
}

/// Every format kiln reads, in sniffing order.
pub(crate) static FORMATS: &[&dyn Format] = &[
    &super::rsm::RsmFormat,
    &super::grimrock::ModelFormat,
    &super::grimrock::AnimationFormat,
    &super::ragnarok::RswFormat,
    &super::ragnarok::GndFormat,
    &super::arma::P3dFormat,
    &super::arma::RtmFormat,
    &super::arma::ConfigFormat,
];

/// The format of `data` (the whole file or at least its first bytes).
pub(crate) fn sniff(data: &[u8], path: &Path) -> Result<&'static dyn Format> {
    if let Some(f) = FORMATS.iter().find(|f| f.sniff(data, path)) {
        return Ok(*f);
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

/// A file read and parsed once, with its tree.
pub(crate) struct OpenFile {
    pub format: &'static dyn Format,
    pub parsed: Box<dyn Opened>,
    pub tree: Tree,
    /// How the file is named in messages.
    pub name: PathBuf,
}

/// Reads `file` (from disk, else from the caller's sources by the name as
/// written), recognises its format and parses it.
pub(crate) fn open(lookup: &Lookup, file: &FileRef) -> Result<OpenFile> {
    let (bytes, origin) = lookup.read_named(file)?;
    let name = origin.name();
    let format = sniff(&bytes, &name)?;
    let parsed = format.open(&bytes, &name)?;
    Ok(OpenFile {
        format,
        parsed,
        tree: origin.tree(format.layout()),
        name,
    })
}

impl OpenFile {
    /// The context the parsed file finishes loading in.
    pub fn context<'a>(
        &'a self,
        lookup: &'a Lookup,
        options: &'a LoadOptions,
        animation: &'a AnimationSettings,
    ) -> Context<'a> {
        Context {
            lookup,
            tree: self.tree.clone(),
            file: &self.name,
            options,
            animation,
            companion: None,
        }
    }
}

/// Why a file of `role` cannot be loaded as a model.
fn wrong_role(role: Role, file: &Path) -> Error {
    let f = file.display();
    Error::Usage(match role {
        Role::Map => format!(
            "{f}: a Ragnarok map, not a model; render it with `kiln render MAP.rsw` or a recipe's `maps:`"
        ),
        Role::Ground => format!("{f}: a Ragnarok map's ground; render the map's .rsw, which names it"),
        Role::Config => format!(
            "{f}: a config file, not a model; name it as a recipe's `skeleton: {{ config, class }}`"
        ),
        Role::Animation => format!(
            "{f}: this is an animation, not a model; name it as a clip's `animation:` in a recipe \
             (or --animation on the command line)"
        ),
        Role::Model => format!("{f}: not a model kiln can draw"),
    })
}
