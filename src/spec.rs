//! What to load and how: one model specification shared by the command line
//! and recipes, so `kiln render --lod 2 --bind-pose` and a recipe's
//! `lod: 2` + `pose: bind` are the same value, resolved the same way.

pub use kiln_recipe_yaml::keys::{RestPose, RootMotion};
use std::path::PathBuf;

pub use crate::source::FileRef;

/// A level of detail (Arma P3D): by position in the file or by resolution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lod {
    /// The LOD at this index (`lod: 2`, `--lod 2`).
    Index(u32),
    /// The LOD with this resolution value (`lod: {resolution: 1.5}`).
    Resolution(f32),
}

/// A skeleton kept outside the model (Arma binarised RTMs store
/// parent-relative bones without their hierarchy).
#[derive(Debug, Clone, PartialEq)]
pub enum SkeletonSpec {
    /// A `model.cfg` and the skeleton's class name in it.
    Config {
        /// The config file.
        config: FileRef,
        /// The class in `CfgSkeletons`.
        class: String,
    },
    /// `(bone, parent)` pairs written out; an empty parent marks a root.
    Bones(Vec<(String, String)>),
}

/// Longest `duration`, seconds: a day (anything longer is a typo).
pub const MAX_DURATION: f32 = crate::scene::clip::MAX_SECONDS;

/// How animation files are read, beyond the files themselves.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnimationSettings {
    /// Seconds for animations whose length is not in the file (Arma RTM
    /// phases run 0..1; default 1 s). Also the length of a still model's
    /// clip when a recipe samples a range.
    pub duration: Option<f32>,
    /// The skeleton a binarised RTM needs.
    pub skeleton: Option<SkeletonSpec>,
    /// What happens to the travel of a clip's root: removed so the model
    /// animates in place (the default), or kept in the frames. For Arma
    /// `Keep` moves the model by the RTM's `step`.
    pub root_motion: RootMotion,
}

impl AnimationSettings {
    /// A [`duration`](AnimationSettings::duration) in seconds: finite,
    /// above 0 and at most [`MAX_DURATION`].
    pub fn check_duration(seconds: f32) -> Result<f32, crate::error::ValueError> {
        crate::range::above("duration", seconds, 0.0, MAX_DURATION)
    }
}

/// A model to load: the file, where its textures and other files are
/// looked up, and the options some formats take.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSpec {
    /// The model file.
    pub model: FileRef,
    /// Folders searched before the model's own tree (recipe `data:`,
    /// `--data`), first wins.
    pub data: Vec<PathBuf>,
    /// Grimrock: the rest pose of skinned meshes.
    pub pose: RestPose,
    /// Material name → texture file, overriding the model's own lookup for
    /// those materials (Grimrock materials, Arma face textures).
    pub materials: Vec<(String, FileRef)>,
    /// Arma: which LOD; `None` draws the most detailed visual LOD.
    pub lod: Option<Lod>,
    /// glTF: which scene, by name or index; `None` draws the file's
    /// default scene (else its first).
    pub scene: Option<String>,
    /// How animation files applied to this model are read.
    pub animation: AnimationSettings,
}

impl ModelSpec {
    /// A model with every option at its default.
    pub fn new(model: impl Into<FileRef>) -> ModelSpec {
        ModelSpec {
            model: model.into(),
            data: Vec::new(),
            pose: RestPose::default(),
            materials: Vec::new(),
            lod: None,
            scene: None,
            animation: AnimationSettings::default(),
        }
    }
}
