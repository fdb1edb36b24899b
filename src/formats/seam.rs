//! What every format provides: the [`Format`] a row of the format table
//! implements ([`super::registry`]), and the parsed file ([`Opened`]) it
//! hands back, asked for a model, an animation or a summary.

use crate::error::{Error, Result};
use crate::scene::animation::Animation;
use crate::scene::skeleton::BoneSpec;
use crate::scene::Model;
use crate::source::{Layout, Lookup, Tree};
use crate::spec::{AnimationSettings, FileRef, Lod, RestPose};
use std::path::Path;

/// What a file is for, judged by its contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
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
    /// A Ragnarok client sprite: SPR images or the ACT animation that
    /// places them.
    Sprite,
}

/// One file format.
pub(crate) trait Format: Sync {
    /// Recognises the format by its first bytes (and, for text formats
    /// without magic bytes, the file name).
    fn sniff(&self, head: &[u8], file: &Path) -> bool;
    /// What its files are for.
    fn role(&self) -> FileKind;
    /// How the game roots the data tree its files sit in.
    fn layout(&self) -> Layout;
    /// Parses the whole file.
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>>;
}

/// A parsed file, asked once or several times for what the caller needs.
pub(crate) trait Opened: Send {
    /// What `kiln inspect` shows beyond the lowered model: the format's own
    /// fields as stored, and lines only this format has.
    fn summary(&self, cx: &Context) -> Result<Summary>;
    /// The model, lowered into kiln's scene form with its textures.
    fn model(&self, cx: &Context) -> Result<Model> {
        Err(wrong_role(cx.role, cx.file))
    }
    /// The names of the animations the file itself holds (glTF), in file
    /// order; read without loading the model.
    fn takes(&self) -> Vec<String> {
        Vec::new()
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
    /// What the file is for (its format's role).
    pub role: FileKind,
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
    /// How much of the format's own fields a summary's `details` holds.
    pub detail: Detail,
}

/// How much of a file's own fields `kiln inspect --json` shows under
/// `details`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Detail {
    /// Every field the parser holds (`kiln inspect --json`).
    #[default]
    Full,
    /// Header values and counts only (`kiln inspect --json --summary`).
    Summary,
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
    /// glTF: which scene, by name or index.
    pub scene: Option<String>,
}

/// A format's own view of a file, for `kiln inspect`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Summary {
    /// Format name ("RSM2", "Grimrock model (MDL1)").
    pub format: String,
    /// Version as the format numbers it.
    pub version: String,
    /// The format's fields as stored, for `--json`, in the context's
    /// [`Detail`].
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

/// Why a file of `role` cannot be loaded as a model.
fn wrong_role(role: FileKind, file: &Path) -> Error {
    let f = file.display();
    Error::Usage(match role {
        FileKind::Map => format!(
            "{f}: a Ragnarok map, not a model; render it with `kiln render MAP.rsw` or a recipe's `maps:`"
        ),
        FileKind::Ground => format!("{f}: a Ragnarok map's ground; render the map's .rsw, which names it"),
        FileKind::Config => format!(
            "{f}: a config file, not a model; name it as a recipe's `skeleton: {{ config, class }}`"
        ),
        FileKind::Animation => format!(
            "{f}: this is an animation, not a model; name it as a clip's `animation:` in a recipe \
             (or --animation on the command line)"
        ),
        FileKind::Sprite => format!(
            "{f}: a Ragnarok client sprite (SPR/ACT), 2D images rather than a 3D model; \
             draw it with `kiln render` or a recipe job, which take it as a model"
        ),
        FileKind::Model => format!("{f}: not a model kiln can draw"),
    })
}
