//! The parallel bake: pose every sampled frame once, frame the clip once over
//! all frames and directions, render every (direction, frame) image in
//! parallel. Output order never depends on thread scheduling.

use crate::raster::{Light, RenderOptions};
use crate::scene::{self, Model, PosedModel};
use crate::view::{self, Framing};
use glam::Vec3;
use rayon::prelude::*;

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

/// A light relative to the camera, so every direction is lit alike.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LightSpec {
    pub yaw: f32,
    pub pitch: f32,
    pub color: Vec3,
    pub ambient: Vec3,
}

impl Default for LightSpec {
    fn default() -> Self {
        LightSpec { yaw: -35.0, pitch: 40.0, color: Vec3::splat(0.65), ambient: Vec3::splat(0.45) }
    }
}

/// Rendered images, `images[direction][frame]`.
pub struct ClipImages {
    pub images: Vec<Vec<image::RgbaImage>>,
}

/// Renders a clip. `tick` is called once per finished image (from any thread).
pub fn render_clip(model: &Model, plan: &ClipPlan, tick: &(dyn Fn() + Sync)) -> ClipImages {
    let posed: Vec<PosedModel> = plan.times.par_iter().map(|&t| scene::pose(model, t)).collect();
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
    let jobs: Vec<(usize, usize)> = (0..cameras.len()).flat_map(|d| (0..frames).map(move |f| (d, f))).collect();
    let rendered: Vec<image::RgbaImage> = jobs
        .par_iter()
        .map(|&(d, f)| {
            let cam = &cameras[d];
            let light = Light {
                direction: view::camera_relative_light_dir(cam, plan.light.yaw, plan.light.pitch),
                color: plan.light.color,
                ambient: plan.light.ambient,
            };
            let img = crate::render::render_posed(model, &posed[f], cam, &light, &opts);
            tick();
            img
        })
        .collect();
    let mut it = rendered.into_iter();
    let images = (0..cameras.len()).map(|_| it.by_ref().take(frames).collect()).collect();
    ClipImages { images }
}
