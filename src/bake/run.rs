//! The parallel bake: pose every sampled frame once, frame the clip once over
//! all frames and directions, render every (direction, frame) image in
//! parallel, then write the job's outputs. Output order and bytes never
//! depend on thread scheduling: each image is rendered by one thread and
//! results are collected in index order.

use super::recipe::{Job, LightSpec, Projection as RecipeProjection};
use crate::error::{Error, Result};
use crate::raster::{Light, RenderOptions};
use crate::scene::{self, Model, PosedModel};
use crate::texture::TextureResolver;
use crate::view::{self, Framing, Projection};
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

/// Renders a clip. `tick` is called once per finished image (from any thread).
pub fn render_clip(model: &Model, plan: &ClipPlan, tick: &(dyn Fn() + Sync)) -> ClipImages {
    let posed: Vec<PosedModel> = plan
        .times
        .par_iter()
        .map(|&t| scene::pose(model, t))
        .collect();
    let points: Vec<Vec3> = posed.iter().flat_map(crate::render::posed_points).collect();
    let aspect = plan.width as f32 / plan.height.max(1) as f32;
    let cameras = view::fit_cameras(&points, &plan.views, aspect, &plan.framing);
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
            let cam = &cameras[d];
            let light = Light {
                direction: plan.light.world_direction(plan.views[d].0),
                color: plan.light.color,
                ambient: plan.light.ambient,
            };
            let img = crate::render::render_posed(model, &posed[f], cam, &light, &opts);
            tick();
            img
        })
        .collect();
    let mut it = rendered.into_iter();
    let images = (0..cameras.len())
        .map(|_| it.by_ref().take(frames).collect())
        .collect();
    let pivot = cameras.first().map_or([0.5, 0.5], |c| {
        let clip = c.proj * c.view * glam::Vec4::new(0.0, 0.0, 0.0, 1.0);
        let ndc = clip.xy() / clip.w;
        [(ndc.x + 1.0) * 0.5, (1.0 - ndc.y) * 0.5]
    });
    ClipImages { images, pivot }
}

/// What one finished job did.
#[derive(Debug, Clone)]
pub struct JobReport {
    pub name: String,
    pub images: usize,
    pub files: Vec<PathBuf>,
    pub warnings: Vec<String>,
}

/// Loads the job's model, works out its frames, and returns the plan.
pub fn plan_job(job: &Job) -> Result<(Model, ClipPlan)> {
    let resolver = TextureResolver::new(job.data.clone());
    let model = crate::load::load_model(&job.model, &resolver)?;
    let times = job.clip.frame_times(model.duration).map_err(|m| {
        Error::Usage(format!(
            "{}:{}: job '{}': {m}",
            job.recipe.display(),
            job.line,
            job.name
        ))
    })?;
    let plan = ClipPlan {
        times: times.times,
        views: job.directions.iter().map(|d| (d.yaw, job.pitch)).collect(),
        width: job.width,
        height: job.height,
        framing: Framing {
            projection: match job.camera.projection {
                RecipeProjection::Orthographic => Projection::Orthographic,
                RecipeProjection::Perspective => Projection::Perspective {
                    fov_deg: job.camera.fov,
                },
            },
            padding: job.camera.padding,
            zoom: job.camera.zoom,
        },
        light: job.light,
        supersample: job.antialias,
        background: job.background,
    };
    Ok((model, plan))
}

/// Renders a planned job and writes its outputs.
pub fn run_planned(
    job: &Job,
    model: &Model,
    plan: &ClipPlan,
    tick: &(dyn Fn() + Sync),
) -> Result<JobReport> {
    let clip = render_clip(model, plan, tick);
    let times = job
        .clip
        .frame_times(model.duration)
        .map_err(|m| Error::Usage(format!("job '{}': {m}", job.name)))?;
    let files = super::write_outputs(job, &times, &clip.images, clip.pivot)?;
    Ok(JobReport {
        name: job.name.clone(),
        images: clip.images.iter().map(Vec::len).sum(),
        files,
        warnings: model.warnings.clone(),
    })
}
