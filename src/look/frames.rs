//! Rendering a job's frames with its looks: the shading mode, the ground
//! shadow, then outline and drop shadow on each frame — the same parallel
//! order as [`crate::render::render_frames`], which a job with every look
//! off keeps using, so its bytes never change.

use super::{ground_shadow, Look};
use crate::raster::{self, Camera, Light, RenderOptions};
use crate::render::ClipPlan;
use crate::scene::{Model, PosedModel};
use glam::Vec3;
use image::RgbaImage;

/// One camera per direction of `plan`, fitted around every posed frame and,
/// with a ground shadow, around where the shadow can fall too.
pub fn fit(posed: &[&[PosedModel]], plan: &ClipPlan, look: &Look) -> Vec<Camera> {
    let mut points = crate::render::fit_points(posed);
    if let Some(gs) = &look.ground_shadow {
        let ground = ground_of(posed);
        let dirs: Vec<Vec3> = plan
            .yaws
            .iter()
            .map(|&y| ground_shadow::cast_direction(gs.from, plan.view.light.world_direction(y)))
            .collect();
        // The shadow of a frame lies within the shadow of its bounding
        // box's corners (the projection is affine).
        for set in posed {
            for p in set.iter() {
                let corners = corners(crate::render::posed_points(p));
                for c in corners {
                    for &d in &dirs {
                        points.push(ground_shadow::project(c, d, ground));
                    }
                }
            }
        }
    }
    let v = &plan.view;
    let views: Vec<(f32, f32)> = plan.yaws.iter().map(|&y| (y, v.pitch)).collect();
    crate::camera::frame_cameras(&points, &views, v.width, v.height, &v.framing)
}

/// The ground height of a job: the lowest point of every posed frame.
pub fn ground_of(posed: &[&[PosedModel]]) -> f32 {
    ground_shadow::ground_of(posed.iter().flat_map(|s| s.iter()))
}

fn corners(points: impl Iterator<Item = Vec3>) -> Vec<Vec3> {
    let (lo, hi) = points.filter(|p| p.is_finite()).fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(p), hi.max(p)),
    );
    if !(lo.is_finite() && hi.is_finite()) {
        return Vec::new();
    }
    (0..8)
        .map(|k| {
            Vec3::new(
                if k & 1 == 0 { lo.x } else { hi.x },
                if k & 2 == 0 { lo.y } else { hi.y },
                if k & 4 == 0 { lo.z } else { hi.z },
            )
        })
        .collect()
}

/// Renders `posed` from every camera with `look`: `[direction][frame]`.
/// `ground` is the job's ground height ([`ground_of`]).
pub fn render_frames(
    model: &Model,
    posed: &[PosedModel],
    cameras: &[Camera],
    plan: &ClipPlan,
    look: &Look,
    ground: f32,
    tick: &(dyn Fn() + Sync),
) -> Vec<Vec<RgbaImage>> {
    let opts = crate::render::render_options(plan);
    let depth = inner_depth(look, posed, cameras);
    crate::render::every_view(cameras.len(), posed.len(), |d, f| {
        let light = crate::render::light_for(plan, d);
        let img = render_one(
            model,
            &posed[f],
            &cameras[d],
            &light,
            &opts,
            look,
            ground,
            depth,
        );
        tick();
        img
    })
}

/// The depth along each camera a clip's frames span, which inner lines
/// measure depth jumps against; `None` when the look draws none.
pub fn inner_depth(look: &Look, posed: &[PosedModel], cameras: &[Camera]) -> Option<(f32, f32)> {
    look.outline
        .and_then(|o| o.inner)
        .map(|_| super::passes::depth_range(&[posed], cameras))
}

/// One frame with every per-frame look; `depth` is the clip's depth range
/// along the camera, for inner lines.
#[allow(clippy::too_many_arguments)]
pub fn render_one(
    model: &Model,
    posed: &PosedModel,
    camera: &Camera,
    light: &Light,
    opts: &RenderOptions,
    look: &Look,
    ground: f32,
    depth: Option<(f32, f32)>,
) -> RgbaImage {
    let batches = crate::render::batches(model, posed);
    let mut img = raster::render_shaded(&batches, camera, light, opts, look.shading);
    if let Some(gs) = &look.ground_shadow {
        // Shadows fall on the background, not on a filled one.
        let dir = ground_shadow::cast_direction(gs.from, light.direction);
        let shape = ground_shadow::silhouette(model, posed, camera, dir, ground, opts);
        ground_shadow::put_under(&mut img, &shape, gs);
    }
    // Depth cannot be averaged: one sample a pixel, on the colour image's
    // pixel grid.
    let depth = depth.map(|(near, far)| {
        let one = RenderOptions {
            supersample: 1,
            background: [0, 0, 0, 0],
            ..*opts
        };
        let kind = super::passes::PassKind::Depth { near, far };
        super::passes::render_one(model, posed, camera, &one, kind)
    });
    look.apply_frame_with_depth(&mut img, depth.as_ref());
    img
}
