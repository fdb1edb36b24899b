//! The flags that name a model and how it is loaded and posed, shared by
//! `kiln render` and `kiln export`.

use super::values::number;
use clap::{Args, ValueEnum};
use kiln::{
    AnimationSettings, Clip, Error, FileRef, Lod, Model, ModelSpec, RestPose, RootMotion,
    SkeletonSpec,
};
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
enum RootMotionArg {
    #[value(name = "in-place", alias = "in_place")]
    InPlace,
    Keep,
}

#[derive(Args)]
pub struct TimeArgs {
    /// Time in seconds
    #[arg(long, conflicts_with = "frame", value_parser = number(Clip::check_time))]
    pub time: Option<f32>,
    /// Frame number at the model's own frame rate
    #[arg(long)]
    pub frame: Option<u32>,
}

impl TimeArgs {
    /// The instant these flags name on `model`: `--time`, `--frame` at its
    /// frame rate, or 0.
    pub fn of(&self, model: &Model) -> f32 {
        match (self.time, self.frame) {
            (Some(s), _) => s,
            (None, Some(f)) => model.frame_time(f),
            _ => 0.0,
        }
    }
}

#[derive(Args)]
pub struct ModelArgs {
    /// Model file (.rsm, .rsm2, .model, .p3d)
    pub model: PathBuf,
    /// Pose the model with this animation file (Grimrock .animation, Arma .rtm); repeatable for `export --clip`
    #[arg(long, value_name = "FILE")]
    pub animation: Vec<PathBuf>,
    /// glTF: play this animation of the model file itself, by name or index (default: its first)
    #[arg(long, value_name = "NAME|INDEX", conflicts_with = "animation")]
    pub embedded: Option<String>,
    /// glTF: draw this scene of the file, by name or index (default: the file's default scene)
    #[arg(long, value_name = "NAME|INDEX")]
    scene: Option<String>,
    /// Grimrock: draw skinned meshes in their bind pose instead of the file's node pose
    #[arg(long)]
    bind_pose: bool,
    /// Arma: seconds the animation lasts (RTM phases run 0..1) [default: 1]
    #[arg(long, value_name = "SECONDS", value_parser = number(AnimationSettings::check_duration))]
    duration: Option<f32>,
    /// Arma: model.cfg holding the skeleton of a binarised RTM
    #[arg(long, value_name = "FILE", requires = "skeleton_class")]
    skeleton_config: Option<PathBuf>,
    /// Arma: the skeleton's class name in --skeleton-config
    #[arg(long, value_name = "NAME", requires = "skeleton_config")]
    skeleton_class: Option<String>,
    /// What happens to a clip's root travel: taken out so the model animates in place, or kept
    #[arg(long, value_enum, value_name = "MODE", default_value = "in-place")]
    root_motion: RootMotionArg,
    /// Deprecated: the same as --root-motion keep
    #[arg(long, hide = true, conflicts_with = "root_motion")]
    travel: bool,
    /// Arma: which LOD of a P3D, by index (default: the most detailed visual LOD)
    #[arg(long, value_name = "INDEX")]
    lod: Option<usize>,
    /// Extra folder or archive (GRF, PBO, .dat) to search for the model's textures and animations first (repeatable)
    #[arg(long = "data", value_name = "DIR|ARCHIVE")]
    pub data: Vec<PathBuf>,
    /// The texture of a material the model names, as a recipe's `materials:` (Grimrock materials, Arma face textures), e.g. --material 'kiln\lever_co.paa=lever_co.tga' (repeatable)
    #[arg(long = "material", value_name = "NAME=FILE", value_parser = material)]
    materials: Vec<(String, PathBuf)>,
}

/// `NAME=FILE`, split at the last `=` (a material name may hold one; a
/// file name rarely does), both parts non-empty.
fn material(s: &str) -> Result<(String, PathBuf), String> {
    match s.rsplit_once('=') {
        Some((name, file)) if !name.trim().is_empty() && !file.trim().is_empty() => {
            Ok((name.to_string(), PathBuf::from(file)))
        }
        _ => Err(format!(
            "`{s}` is not NAME=FILE (a material name and its texture file)"
        )),
    }
}

impl ModelArgs {
    /// The model specification these flags describe (the one a recipe job
    /// resolves to).
    pub fn spec(&self) -> ModelSpec {
        let mut spec = ModelSpec::new(self.model.as_path());
        spec.data = self.data.clone();
        for (name, file) in &self.materials {
            // The last one given for a name wins, as flags usually do.
            spec.materials.retain(|(n, _)| n != name);
            spec.materials
                .push((name.clone(), FileRef::from(file.as_path())));
        }
        if self.bind_pose {
            spec.pose = RestPose::Bind;
        }
        spec.lod = self.lod.map(|i| Lod::Index(i as u32));
        spec.scene = self.scene.clone();
        spec.animation.duration = self.duration;
        spec.animation.root_motion = match (self.root_motion, self.travel) {
            (_, true) | (RootMotionArg::Keep, _) => RootMotion::Keep,
            (RootMotionArg::InPlace, false) => RootMotion::InPlace,
        };
        if let (Some(config), Some(class)) = (&self.skeleton_config, &self.skeleton_class) {
            spec.animation.skeleton = Some(SkeletonSpec::Config {
                config: FileRef::from(config.as_path()),
                class: class.clone(),
            });
        }
        spec
    }

    /// Loads the model and applies `--animation`.
    pub fn load(&self) -> Result<Model, Error> {
        let mut model = Model::load(&self.spec())?;
        if let Some(e) = &self.embedded {
            model = model.embedded(e)?;
        }
        match self.animation.as_slice() {
            [] => {}
            [a] => model = model.animated(a.as_path())?,
            several => {
                return Err(Error::Usage(format!(
                    "--animation is given {} times; one pose takes one animation (`kiln export --clip` takes several)",
                    several.len()
                )))
            }
        }
        warn(&model);
        Ok(model)
    }
}

/// The model's load warnings, on standard error.
pub fn warn(model: &Model) {
    for w in model.warnings() {
        say!("kiln: warning: {}: {w}", model.source().display());
    }
}
