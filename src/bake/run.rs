//! The parallel bake: pose every sampled frame of every clip once, frame the
//! job once over all clips, frames and directions (so the model keeps its
//! size and pivot from clip to clip), render every (clip, direction, frame)
//! image in parallel, then write the job's outputs. Output order and bytes
//! never depend on thread scheduling: each image is rendered by one thread
//! and results are collected in index order.

use super::outputs::ClipFrames;
use super::recipe::{ClipSpec, Job, LodSpec, PoseMode};
use super::sink::Sink;
use crate::camera::{self, Framing, LightSpec};
use crate::error::{Error, Result};
use crate::raster::{Camera, Light, RenderOptions};
use crate::scene::clip::FrameTimes;
use crate::scene::{self, Model, PosedModel};
use crate::source::{Lookup, SourceRef};
use crate::spec::{AnimationSettings, FileRef, Lod, ModelSpec, RestPose, SkeletonSpec};
use glam::{Vec3, Vec4Swizzles};
use rayon::prelude::*;
use std::path::PathBuf;

/// Everything needed to render one clip from several directions.
#[derive(Debug, Clone)]
pub struct ClipPlan {
    /// Sample times in seconds.
    pub times: Vec<f32>,
    /// (yaw, pitch) in degrees, one per direction.
    pub views: Vec<(f32, f32)>,
    pub width: u32,
    pub height: u32,
    pub framing: Framing,
    pub light: LightSpec,
    pub supersample: u32,
    pub background: [u8; 4],
}

/// Rendered images, `images[direction][frame]`, and where the model's origin
/// lands in a frame (fractions of its width and height, y down).
pub struct ClipImages {
    pub images: Vec<Vec<image::RgbaImage>>,
    pub pivot: [f32; 2],
}

/// Renders a single clip, framed on its own frames. `tick` is called once
/// per finished image (from any thread).
pub fn render_clip(model: &Model, plan: &ClipPlan, tick: &(dyn Fn() + Sync)) -> ClipImages {
    let posed = pose_frames(model, &plan.times);
    let cameras = fit(&[posed.as_slice()], plan);
    let images = render_frames(model, &posed, &cameras, plan, tick);
    ClipImages {
        images,
        pivot: pivot(&cameras),
    }
}

/// Poses `model` at every time, in parallel, in time order.
pub fn pose_frames(model: &Model, times: &[f32]) -> Vec<PosedModel> {
    times.par_iter().map(|&t| scene::pose(model, t)).collect()
}

/// One camera per direction of `plan`, fitted around every posed frame of
/// every set together (`plan.times` is not used).
pub fn fit(posed: &[&[PosedModel]], plan: &ClipPlan) -> Vec<Camera> {
    let points: Vec<Vec3> = posed
        .iter()
        .flat_map(|set| set.iter())
        .flat_map(crate::render::posed_points)
        .collect();
    let aspect = plan.width as f32 / plan.height.max(1) as f32;
    camera::fit_cameras(&points, &plan.views, aspect, &plan.framing)
}

/// Renders `posed` from every camera: `[direction][frame]`.
pub fn render_frames(
    model: &Model,
    posed: &[PosedModel],
    cameras: &[Camera],
    plan: &ClipPlan,
    tick: &(dyn Fn() + Sync),
) -> Vec<Vec<image::RgbaImage>> {
    let opts = RenderOptions {
        width: plan.width,
        height: plan.height,
        supersample: plan.supersample,
        background: plan.background,
    };
    let frames = posed.len();
    let jobs: Vec<(usize, usize)> = (0..cameras.len())
        .flat_map(|d| (0..frames).map(move |f| (d, f)))
        .collect();
    let rendered: Vec<image::RgbaImage> = jobs
        .par_iter()
        .map(|&(d, f)| {
            let light = Light {
                direction: plan.light.world_direction(plan.views[d].0),
                color: plan.light.color,
                ambient: plan.light.ambient,
            };
            let img = crate::render::render_posed(model, &posed[f], &cameras[d], &light, &opts);
            tick();
            img
        })
        .collect();
    let mut it = rendered.into_iter();
    (0..cameras.len())
        .map(|_| it.by_ref().take(frames).collect())
        .collect()
}

/// Where the model's origin lands in the first direction's frame.
fn pivot(cameras: &[Camera]) -> [f32; 2] {
    cameras.first().map_or([0.5, 0.5], |c| {
        let clip = c.proj * c.view * glam::Vec4::new(0.0, 0.0, 0.0, 1.0);
        let ndc = clip.xy() / clip.w;
        [(ndc.x + 1.0) * 0.5, (1.0 - ndc.y) * 0.5]
    })
}

/// What one finished job did.
#[derive(Debug, Clone)]
pub struct JobReport {
    pub name: String,
    pub images: usize,
    pub files: Vec<PathBuf>,
    pub warnings: Vec<String>,
    /// Every file and folder read to make it (sorted): the recipe's inputs
    /// for `cargo:rerun-if-changed` lines and dependency files.
    pub inputs: Vec<PathBuf>,
}

/// One clip ready to render: the model it animates and its sample times.
#[derive(Debug, Clone)]
pub struct PlannedClip {
    pub model: Model,
    pub times: FrameTimes,
}

/// A job ready to render: its clips in job order, and the views and render
/// settings they share (`view.times` is empty; each clip has its own).
#[derive(Debug)]
pub struct JobPlan {
    pub clips: Vec<PlannedClip>,
    pub view: ClipPlan,
    /// What planning read (the model, textures, animations, configs).
    pub lookup: Lookup,
}

impl JobPlan {
    /// Images the job will render (for progress bars).
    pub fn images(&self) -> usize {
        self.clips
            .iter()
            .map(|c| c.times.times.len())
            .sum::<usize>()
            * self.view.views.len()
    }
}

/// The job's model as the one model specification the command line shares.
pub fn model_spec(job: &Job) -> ModelSpec {
    ModelSpec {
        model: FileRef::from(job.model.as_path()),
        data: job.data.clone(),
        pose: match job.pose {
            super::recipe::PoseMode::Rest => RestPose::Nodes,
            super::recipe::PoseMode::Bind => RestPose::Bind,
        },
        materials: job
            .materials
            .iter()
            .map(|(n, p)| (n.clone(), FileRef::from(p.as_path())))
            .collect(),
        lod: job.lod.map(|l| match l {
            super::recipe::LodSpec::Index(i) => Lod::Index(i),
            super::recipe::LodSpec::Resolution(r) => Lod::Resolution(r),
        }),
        animation: AnimationSettings {
            duration: job.duration,
            skeleton: job.skeleton.as_ref().map(|s| match s {
                super::recipe::SkeletonSpec::Config { config, class } => SkeletonSpec::Config {
                    config: FileRef::from(config.as_path()),
                    class: class.clone(),
                },
                super::recipe::SkeletonSpec::Bones(b) => SkeletonSpec::Bones(b.clone()),
            }),
            travel: job.travel,
        },
    }
}

/// The model a clip animates: the job's model posed by the clip's
/// animation file, or the job's model itself (its own animation, or its
/// rest pose) when the clip names none.
pub fn clip_model(model: &Model, spec: &ClipSpec, job: &ModelSpec, lookup: &Lookup) -> Result<Model> {
    match &spec.animation {
        None => Ok(model.clone()),
        Some(path) => crate::load::animate(
            model,
            &FileRef::from(path.as_path()),
            &job.animation,
            lookup,
        ),
    }
}

/// Loads the job's model, applies each clip's animation, works out every
/// clip's frames, and returns the plan. `extra` sources are searched after
/// the job's own `data:` folders.
pub fn plan_job(job: &Job, extra: &[SourceRef]) -> Result<JobPlan> {
    let spec = model_spec(job);
    let lookup = crate::load::lookup_for(&spec, extra);
    lookup.note(&job.recipe);
    let model = crate::load::load_model(&spec, &lookup)?;
    let mut clips = Vec::with_capacity(job.clips.len());
    for clip in &job.clips {
        let m = clip_model(&model, clip, &spec, &lookup)?;
        // `duration` stands in for animations that do not know their length.
        let length = match job.duration {
            Some(d) if m.duration <= 0.0 => d,
            _ => m.duration,
        };
        let times = clip.clip.frame_times(length).map_err(|msg| {
            let name = if job.named_clips {
                format!("clip '{}': ", clip.name)
            } else {
                String::new()
            };
            Error::Usage(format!(
                "{}:{}: job '{}': {name}{msg}",
                job.recipe.display(),
                clip.line,
                job.name
            ))
        })?;
        clips.push(PlannedClip { model: m, times });
    }
    // Refuse an oversized sheet before rendering every frame of every clip.
    if job.output.sheet.is_some() {
        let lengths: Vec<usize> = clips.iter().map(|c| c.times.times.len()).collect();
        super::grid::GridLayout::for_clips(job.width, job.height, &lengths, job.directions.len())
            .map_err(Error::Usage)?;
    }
    let view = ClipPlan {
        times: Vec::new(),
        views: job.directions.iter().map(|d| (d.yaw, job.pitch)).collect(),
        width: job.width,
        height: job.height,
        framing: job.camera,
        light: job.light,
        supersample: job.antialias,
        background: job.background,
    };
    Ok(JobPlan {
        clips,
        view,
        lookup,
    })
}

/// Renders a planned job and hands its outputs to `sink`.
pub fn run_planned(
    job: &Job,
    plan: &JobPlan,
    tick: &(dyn Fn() + Sync),
    sink: &dyn Sink,
) -> Result<JobReport> {
    let posed: Vec<Vec<PosedModel>> = plan
        .clips
        .iter()
        .map(|c| pose_frames(&c.model, &c.times.times))
        .collect();
    let sets: Vec<&[PosedModel]> = posed.iter().map(Vec::as_slice).collect();
    let cameras = fit(&sets, &plan.view);
    let rendered: Vec<ClipFrames> = plan
        .clips
        .iter()
        .zip(&posed)
        .map(|(c, p)| ClipFrames {
            times: c.times.clone(),
            frames: render_frames(&c.model, p, &cameras, &plan.view, tick),
        })
        .collect();
    let files = super::write_outputs(job, &rendered, pivot(&cameras), sink)?;
    // Each clip's model repeats the job model's warnings; keep each once.
    let mut warnings: Vec<String> = Vec::new();
    for c in &plan.clips {
        for w in &c.model.warnings {
            if !warnings.contains(w) {
                warnings.push(w.clone());
            }
        }
    }
    Ok(JobReport {
        name: job.name.clone(),
        images: rendered
            .iter()
            .map(|c| c.frames.iter().map(Vec::len).sum::<usize>())
            .sum(),
        files,
        warnings,
        inputs: plan.lookup.reads(),
    })
}
