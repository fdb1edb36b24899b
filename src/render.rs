//! Drawing models: how a model is drawn ([`ViewSpec`]), a posed model's
//! draw batches for the rasterizer, and clips rendered from several
//! directions with one camera fit — what a bake's job and `kiln render`
//! both draw with. Output bytes never depend on
//! thread scheduling: each image is rendered by one thread and results are
//! collected in index order.

use crate::camera::{self, Framing, LightSpec};
use crate::error::ValueError;
use crate::range;
use crate::raster::{self, Batch, Camera, Light, RenderOptions};
use crate::scene::{self, Model, PosedModel, PosedPrimitive};
use glam::{Vec3, Vec4Swizzles};
use rayon::prelude::*;

/// How a model is drawn: everything but the camera's yaw, shared by a
/// recipe job (which adds its directions) and `kiln render` (one yaw).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewSpec {
    /// Camera elevation above the horizon, degrees, −90..=90.
    pub pitch: f32,
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Projection, padding and zoom of the fitted camera.
    pub framing: Framing,
    /// The light.
    pub light: LightSpec,
    /// Straight RGBA; alpha 0 is a transparent background.
    pub background: [u8; 4],
    /// Supersampling factor per axis, 1..=4.
    pub antialias: u32,
}

/// Largest image side, in pixels.
pub const MAX_SIZE: u32 = 8192;
/// Most supersampling per axis.
pub const MAX_ANTIALIAS: u32 = 4;
/// Camera elevation, degrees.
pub const PITCH_RANGE: (f32, f32) = (-90.0, 90.0);
/// Vertical field of view of a perspective camera, degrees.
pub const FOV_RANGE: (f32, f32) = (1.0, 170.0);
/// Largest yaw, degrees either way (ten turns: anything more is a typo).
pub const MAX_YAW: f32 = 3600.0;

impl ViewSpec {
    /// Refuses values the renderer cannot use, as a usage error.
    pub fn check(&self) -> crate::Result<()> {
        let bad = |m: String| Err(crate::Error::Usage(m));
        ViewSpec::check_size(self.width.into(), self.height.into())
            .map_err(|e| crate::Error::Usage(format!("image {e}")))?;
        ViewSpec::check_antialias(self.antialias.into())?;
        // A NaN is named by the range it misses, as before the checks were shared.
        ViewSpec::check_pitch(self.pitch).map_err(|_| {
            crate::Error::Usage(format!(
                "pitch must be in [{}, {}], got {}",
                PITCH_RANGE.0, PITCH_RANGE.1, self.pitch
            ))
        })?;
        let f = &self.framing;
        if !(f.padding.is_finite() && (0.0..0.5).contains(&f.padding)) {
            return bad(format!("padding must be in [0, 0.5), got {}", f.padding));
        }
        if !(f.zoom.is_finite() && f.zoom > 0.0 && f.zoom <= 100.0) {
            return bad(format!("zoom must be in (0, 100], got {}", f.zoom));
        }
        if let Some(ppu) = f.pixels_per_unit {
            if !(ppu.is_finite() && ppu > 0.0 && ppu <= 1.0e6) {
                return bad(format!(
                    "pixels per unit must be in (0, 1000000], got {ppu}"
                ));
            }
        }
        if let crate::camera::Projection::Perspective { fov_deg } = f.projection {
            ViewSpec::check_fov(fov_deg).map_err(|_| {
                crate::Error::Usage(format!(
                    "fov must be in [{}, {}], got {fov_deg}",
                    FOV_RANGE.0, FOV_RANGE.1
                ))
            })?;
        }
        let light = &self.light;
        let channels = [light.color, light.ambient];
        if !light.direction.is_finite() || light.direction.length() < 1e-6 {
            return bad(format!(
                "light direction must be a non-zero vector, got {:?}",
                light.direction.to_array()
            ));
        }
        if channels
            .iter()
            .any(|c| !c.is_finite() || c.min_element() < 0.0 || c.max_element() > 4.0)
        {
            return bad("light colour and ambient channels must be in [0, 4]".into());
        }
        Ok(())
    }

    /// An image of `width × height` pixels, each side in
    /// 1..=[`MAX_SIZE`].
    pub fn check_size(width: i64, height: i64) -> Result<(u32, u32), ValueError> {
        let side = 1..=i64::from(MAX_SIZE);
        if side.contains(&width) && side.contains(&height) {
            Ok((width as u32, height as u32))
        } else {
            Err(ValueError {
                field: "size",
                message: format!("{width}x{height} out of range 1..{MAX_SIZE}"),
            })
        }
    }

    /// Supersampling per axis, 1..=[`MAX_ANTIALIAS`].
    pub fn check_antialias(n: i64) -> Result<u32, ValueError> {
        range::whole("antialias", n, 1, MAX_ANTIALIAS)
    }

    /// Camera elevation in degrees, within [`PITCH_RANGE`].
    pub fn check_pitch(pitch: f32) -> Result<f32, ValueError> {
        range::closed("pitch", pitch, PITCH_RANGE.0, PITCH_RANGE.1)
    }

    /// A perspective camera's vertical field of view in degrees, within
    /// [`FOV_RANGE`].
    pub fn check_fov(fov: f32) -> Result<f32, ValueError> {
        range::closed("fov", fov, FOV_RANGE.0, FOV_RANGE.1)
    }

    /// The yaw a view is drawn from (what [`crate::Model::render`] takes
    /// beside it), in degrees, at most [`MAX_YAW`] either way.
    pub fn check_yaw(yaw: f32) -> Result<f32, ValueError> {
        range::closed("yaw", yaw, -MAX_YAW, MAX_YAW)
    }
}

impl Default for ViewSpec {
    /// A recipe job's defaults: 128×128, pitch 30°, orthographic with 5 %
    /// padding, the default light, transparent, 2× supersampling.
    fn default() -> Self {
        ViewSpec {
            pitch: 30.0,
            width: 128,
            height: 128,
            framing: Framing::default(),
            light: LightSpec::default(),
            background: [0, 0, 0, 0],
            antialias: 2,
        }
    }
}

/// Everything needed to render one clip from several directions.
#[derive(Debug, Clone)]
pub struct ClipPlan {
    /// Sample times in seconds.
    pub times: Vec<f32>,
    /// Camera yaws in degrees, one per direction.
    pub yaws: Vec<f32>,
    /// Size, pitch, framing, light, background and supersampling.
    pub view: ViewSpec,
}

/// Rendered images, `images[direction][frame]`, and where the model's origin
/// lands in a frame (fractions of its width and height, y down).
pub struct ClipImages {
    /// The images, `[direction][frame]`.
    pub images: Vec<Vec<image::RgbaImage>>,
    /// Where the model's origin lands in a frame (fractions, y down).
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
    scene::pose::pose_all(model, times)
}

/// One camera per direction of `plan`, framed on every posed frame of
/// every set together (`plan.times` is not used): fitted, or at the fixed
/// scale of `framing.pixels_per_unit`.
pub fn fit(posed: &[&[PosedModel]], plan: &ClipPlan) -> Vec<Camera> {
    let points = fit_points(posed);
    let v = &plan.view;
    let views: Vec<(f32, f32)> = plan.yaws.iter().map(|&y| (y, v.pitch)).collect();
    camera::frame_cameras(&points, &views, v.width, v.height, &v.framing)
}

/// Renders `posed` from every camera: `[direction][frame]`.
pub fn render_frames(
    model: &Model,
    posed: &[PosedModel],
    cameras: &[Camera],
    plan: &ClipPlan,
    tick: &(dyn Fn() + Sync),
) -> Vec<Vec<image::RgbaImage>> {
    let opts = render_options(plan);
    every_view(cameras.len(), posed.len(), |d, f| {
        let img = render_posed(model, &posed[f], &cameras[d], &light_for(plan, d), &opts);
        tick();
        img
    })
}

/// The raster options of `plan`'s frames.
pub fn render_options(plan: &ClipPlan) -> RenderOptions {
    let v = &plan.view;
    RenderOptions {
        width: v.width,
        height: v.height,
        supersample: v.antialias,
        background: v.background,
    }
}

/// The job's light as seen from direction `d` of `plan`.
pub fn light_for(plan: &ClipPlan, d: usize) -> Light {
    let v = &plan.view;
    Light {
        direction: v.light.world_direction(plan.yaws[d]),
        color: v.light.color,
        ambient: v.light.ambient,
    }
}

/// `draw(d, f)` for every direction `d` and frame `f`, in parallel:
/// `[direction][frame]`. The images land in place whatever order the
/// threads finish in.
pub fn every_view(
    directions: usize,
    frames: usize,
    draw: impl Fn(usize, usize) -> image::RgbaImage + Sync,
) -> Vec<Vec<image::RgbaImage>> {
    let jobs: Vec<(usize, usize)> = (0..directions)
        .flat_map(|d| (0..frames).map(move |f| (d, f)))
        .collect();
    let rendered: Vec<image::RgbaImage> = jobs.par_iter().map(|&(d, f)| draw(d, f)).collect();
    let mut it = rendered.into_iter();
    (0..directions)
        .map(|_| it.by_ref().take(frames).collect())
        .collect()
}

/// Where the model's origin lands in the first direction's frame.
pub fn pivot(cameras: &[Camera]) -> [f32; 2] {
    cameras.first().map_or([0.5, 0.5], |c| {
        let clip = c.proj * c.view * glam::Vec4::new(0.0, 0.0, 0.0, 1.0);
        let ndc = clip.xy() / clip.w;
        [(ndc.x + 1.0) * 0.5, (1.0 - ndc.y) * 0.5]
    })
}

/// The draw list of a posed model: one batch per posed primitive.
pub fn batches<'a>(model: &'a Model, posed: &'a PosedModel) -> Vec<Batch<'a>> {
    posed
        .primitives
        .iter()
        .filter_map(|p| {
            let pm = posed.meshes.get(p.mesh)?;
            primitive_batch(model, p, &pm.positions, &pm.normals, &p.triangles)
        })
        .collect()
}

/// One posed primitive of `model` as a batch over the given vertices (the
/// posed mesh's own, or a copy moved elsewhere, as a map instance is).
pub fn primitive_batch<'a>(
    model: &'a Model,
    p: &PosedPrimitive,
    positions: &'a [glam::Vec3],
    normals: &'a [glam::Vec3],
    triangles: &'a [[u32; 3]],
) -> Option<Batch<'a>> {
    let mesh = model.meshes.get(p.mesh)?;
    let mat = model.materials.get(p.material)?;
    let slot = mat.texture.and_then(|t| model.textures.get(t));
    let emission = (mat.emissive != [0.0; 3]).then(|| raster::Emission {
        color: mat.emissive,
        texture: mat
            .emissive_texture
            .and_then(|t| model.textures.get(t))
            .map(|s| (&*s.image, s.sampler)),
    });
    Some(Batch {
        positions,
        normals,
        uvs: &mesh.uvs,
        triangles,
        uv_transform: p.uv_transform,
        texture: slot.map(|s| &*s.image),
        sampler: slot.map_or_else(Default::default, |s| s.sampler),
        colors: &mesh.colors,
        emission,
        base_color: mat.base_color,
        alpha: mat.alpha,
        two_sided: p.two_sided,
        unlit: mat.unlit,
        lightmap: None,
    })
}

/// Renders a posed model with one camera.
pub fn render_posed(
    model: &Model,
    posed: &PosedModel,
    camera: &Camera,
    light: &Light,
    opts: &RenderOptions,
) -> image::RgbaImage {
    raster::render(&batches(model, posed), camera, light, opts)
}

/// [`render_posed`] straight into `rows`, one slice of at least
/// `4 × opts.width` bytes per image row (a cell of a sheet, say): the same
/// pixels, without an image of their own.
///
/// # Panics
///
/// When `rows` holds fewer than `opts.height` rows or one is too short.
pub fn render_posed_into(
    model: &Model,
    posed: &PosedModel,
    camera: &Camera,
    light: &Light,
    opts: &RenderOptions,
    rows: &mut [&mut [u8]],
) {
    raster::render_into(
        &batches(model, posed),
        camera,
        light,
        opts,
        raster::Level::detect(),
        rows,
    );
}

/// The points cameras are fitted to: every posed vertex of every frame,
/// but a frame that shares the vertices of the one before it ([`pose_frames`]
/// shares every exact repeat: every frame of a still model) only once.
/// Every bound a fit takes is a minimum or a maximum over the points,
/// which a repeated point cannot change, so the poses need not be compared
/// again here.
pub fn fit_points(posed: &[&[PosedModel]]) -> Vec<Vec3> {
    let shares = |a: &PosedModel, b: &PosedModel| {
        a.meshes.len() == b.meshes.len()
            && a.meshes
                .iter()
                .zip(&b.meshes)
                .all(|(m, n)| std::sync::Arc::ptr_eq(&m.positions, &n.positions))
    };
    let mut points = Vec::new();
    for set in posed {
        let mut last: Option<&PosedModel> = None;
        for p in set.iter() {
            if !last.is_some_and(|l| shares(l, p)) {
                points.extend(posed_points(p));
            }
            last = Some(p);
        }
    }
    points
}

/// Every posed vertex position, for framing.
pub fn posed_points(posed: &PosedModel) -> impl Iterator<Item = glam::Vec3> + '_ {
    posed
        .meshes
        .iter()
        .flat_map(|m| m.positions.iter().copied())
}
