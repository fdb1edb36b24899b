//! Drawing a map scene.
//!
//! The image is cut into blocks of [`BLOCK`] pixels (smaller where more
//! than [`TRIANGLE_BUDGET`] triangles reach into one); each block gets its own
//! off-centre projection and only the ground chunks and instances whose
//! bounds reach into it, so the triangles set up at any moment are those of
//! one block, whatever the map's size. Every pixel belongs to one block and
//! each block is drawn by one thread, so the result does not depend on the
//! thread count. Models are posed once per (model, local time) and shared by
//! their instances.

use super::scene::{Instance, MapScene};
use crate::raster::{self, Batch, Camera, LightmapLayer, RenderOptions};
use crate::scene::{self, AlphaMode, PosedModel};
use glam::{Affine2, Mat4, Vec3, Vec4};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Block edge in pixels.
pub const BLOCK: u32 = 512;

/// Renders the scene at `time` seconds (map time; each instance plays at its
/// own `animSpeed`).
pub fn render(
    scene: &MapScene,
    camera: &Camera,
    time: f32,
    opts: &RenderOptions,
) -> image::RgbaImage {
    render_with_budget(scene, camera, time, opts, TRIANGLE_BUDGET)
}

/// [`render`] with another triangle budget per block (tests use a tiny one
/// to force splitting on small scenes).
pub fn render_with_budget(
    scene: &MapScene,
    camera: &Camera,
    time: f32,
    opts: &RenderOptions,
    budget: usize,
) -> image::RgbaImage {
    let (w, h) = (opts.width, opts.height);
    let img = image::RgbaImage::from_pixel(w, h, image::Rgba(opts.background));
    if w == 0 || h == 0 {
        return img;
    }
    let view_proj = camera.proj * camera.view;
    let in_view = scene
        .instances
        .iter()
        .filter(|i| box_visible(&view_proj, i.bounds));
    let (visible, posed) = pose_all(scene, in_view, time);

    let counts = TriangleCounts::new(scene);
    let mut blocks: Vec<(u32, u32, u32, u32)> = Vec::new();
    for by in 0..h.div_ceil(BLOCK) {
        for bx in 0..w.div_ceil(BLOCK) {
            let (x0, y0) = (bx * BLOCK, by * BLOCK);
            let block = (x0, y0, BLOCK.min(w - x0), BLOCK.min(h - y0));
            let split = Split {
                scene,
                visible: &visible,
                counts: &counts,
                camera,
                size: (w, h),
                budget,
            };
            split.block(block, &mut blocks);
        }
    }
    // Each block is copied into the image as soon as it is drawn, so at most
    // one block per thread is alive besides the image: collecting every
    // block first held a second copy of the whole image.
    let out = Mutex::new(img);
    blocks.par_iter().for_each(|&(x0, y0, bw, bh)| {
        let sub = Camera {
            view: camera.view,
            proj: block_projection(w, h, x0, y0, bw, bh) * camera.proj,
        };
        let block_opts = RenderOptions {
            width: bw,
            height: bh,
            ..*opts
        };
        let part = draw_block(scene, &visible, &posed, &sub, &block_opts);
        // A poisoned lock means another block panicked; that panic is
        // re-raised by rayon, so the image is never returned half drawn.
        let mut img = out.lock().unwrap_or_else(|e| e.into_inner());
        image::imageops::replace(&mut *img, &part, x0 as i64, y0 as i64);
    });
    out.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Most triangles a block may set up at once: a zoomed-out view of a big map
/// puts the whole map in one block, so such a block is split in four until
/// it fits or reaches [`MIN_BLOCK`]. Memory then follows this budget, not
/// the map.
pub const TRIANGLE_BUDGET: usize = 100_000;
/// The smallest block side, pixels, a crowded block is split down to.
pub const MIN_BLOCK: u32 = 32;

/// Triangles drawn per model (placeholder last), per ground and water chunk.
struct TriangleCounts {
    models: Vec<usize>,
    placeholder: usize,
}

impl TriangleCounts {
    fn new(scene: &MapScene) -> Self {
        let count = |m: &crate::scene::Model| -> usize {
            m.meshes
                .iter()
                .flat_map(|mesh| &mesh.primitives)
                .map(|p| p.triangles.len())
                .sum()
        };
        TriangleCounts {
            models: scene
                .models
                .iter()
                .map(|m| m.model.as_deref().map_or(0, count))
                .collect(),
            placeholder: count(&scene.placeholder),
        }
    }

    fn of(&self, inst: &Instance) -> usize {
        if inst.missing {
            self.placeholder
        } else {
            self.models.get(inst.model).copied().unwrap_or(0)
        }
    }
}

/// What deciding a block's split needs.
struct Split<'a> {
    scene: &'a MapScene,
    visible: &'a [(&'a Instance, usize)],
    counts: &'a TriangleCounts,
    camera: &'a Camera,
    size: (u32, u32),
    budget: usize,
}

impl Split<'_> {
    /// Appends `block`, or its quarters (recursively) when more than the
    /// budget of triangles reach into it. The order depends only on the
    /// scene and the camera, never on threads.
    fn block(&self, block: (u32, u32, u32, u32), out: &mut Vec<(u32, u32, u32, u32)>) {
        let (x0, y0, bw, bh) = block;
        if bw >= 2 * MIN_BLOCK && bh >= 2 * MIN_BLOCK && self.triangles(block) > self.budget {
            let (hw, hh) = (bw / 2, bh / 2);
            for quarter in [
                (x0, y0, hw, hh),
                (x0 + hw, y0, bw - hw, hh),
                (x0, y0 + hh, hw, bh - hh),
                (x0 + hw, y0 + hh, bw - hw, bh - hh),
            ] {
                self.block(quarter, out);
            }
            return;
        }
        out.push(block);
    }

    /// Triangles of everything whose bounds reach into the block.
    fn triangles(&self, (x0, y0, bw, bh): (u32, u32, u32, u32)) -> usize {
        let (w, h) = self.size;
        let vp = block_projection(w, h, x0, y0, bw, bh) * self.camera.proj * self.camera.view;
        let ground: usize = self
            .scene
            .ground
            .chunks
            .iter()
            .filter(|c| box_visible(&vp, (c.min, c.max)))
            .map(|c| c.triangle_count())
            .sum();
        let water: usize = self
            .scene
            .water
            .iter()
            .filter(|c| box_visible(&vp, (c.min, c.max)))
            .map(|c| c.triangles.len())
            .sum();
        let models: usize = self
            .visible
            .iter()
            .filter(|(i, _)| box_visible(&vp, i.bounds))
            .map(|(i, _)| self.counts.of(i))
            .sum();
        ground + water + models
    }
}

/// Maps the NDC rectangle of pixels `x0..x0+bw`, `y0..y0+bh` of a `w × h`
/// image onto the whole NDC square (pixel rows grow downward, NDC y up).
fn block_projection(w: u32, h: u32, x0: u32, y0: u32, bw: u32, bh: u32) -> Mat4 {
    let (w, h) = (w as f32, h as f32);
    let (x0, y0, bw, bh) = (x0 as f32, y0 as f32, bw as f32, bh as f32);
    let (sx, sy) = (w / bw, h / bh);
    let tx = (w - 2.0 * x0 - bw) / bw;
    let ty = -(h - 2.0 * y0 - bh) / bh;
    Mat4::from_cols(
        Vec4::new(sx, 0.0, 0.0, 0.0),
        Vec4::new(0.0, sy, 0.0, 0.0),
        Vec4::new(0.0, 0.0, 1.0, 0.0),
        Vec4::new(tx, ty, 0.0, 1.0),
    )
}

/// Key of a posed model: the model and the local time's bits.
type PoseKey = (usize, u32);

fn local_time(inst: &Instance, time: f32) -> f32 {
    time * inst.speed
}

fn pose_key(scene: &MapScene, inst: &Instance, time: f32) -> PoseKey {
    let model = scene.model_of(inst);
    let t = if model.duration > 0.0 {
        scene::pose::clip_time(model, local_time(inst, time))
    } else {
        0.0
    };
    let id = if inst.missing { usize::MAX } else { inst.model };
    (id, t.to_bits())
}

/// Poses what the instances need, once per (model, local time): returns
/// each instance with the index of its pose, and the poses.
fn pose_all<'a>(
    scene: &MapScene,
    instances: impl Iterator<Item = &'a Instance>,
    time: f32,
) -> (Vec<(&'a Instance, usize)>, Vec<PosedModel>) {
    let mut slots: BTreeMap<PoseKey, usize> = BTreeMap::new();
    let mut wanted: Vec<(PoseKey, &Instance)> = Vec::new();
    let visible = instances
        .map(|i| {
            let key = pose_key(scene, i, time);
            let next = wanted.len();
            let slot = *slots.entry(key).or_insert(next);
            if slot == next {
                wanted.push((key, i));
            }
            (i, slot)
        })
        .collect();
    let posed = wanted
        .par_iter()
        .map(|&(k, i)| scene::pose(scene.model_of(i), f32::from_bits(k.1)))
        .collect();
    (visible, posed)
}

/// One instance's posed geometry moved into the world.
struct Placed {
    meshes: Vec<(Vec<Vec3>, Vec<Vec3>)>,
    /// Per posed primitive: triangles reversed when the placement mirrors.
    flipped: Option<Vec<Vec<[u32; 3]>>>,
}

fn place(inst: &Instance, posed: &PosedModel) -> Placed {
    let m = inst.world;
    let nm = scene::pose::normal_matrix(m);
    let meshes = posed
        .meshes
        .iter()
        .map(|pm| {
            (
                pm.positions
                    .iter()
                    .map(|&p| m.transform_point3(p))
                    .collect(),
                pm.normals
                    .iter()
                    .map(|&n| (nm * n).normalize_or_zero())
                    .collect(),
            )
        })
        .collect();
    let flipped = (m.determinant() < 0.0).then(|| {
        posed
            .primitives
            .iter()
            .map(|p| p.triangles.iter().map(|&[a, b, c]| [a, c, b]).collect())
            .collect()
    });
    Placed { meshes, flipped }
}

fn draw_block(
    scene: &MapScene,
    visible: &[(&Instance, usize)],
    posed: &[PosedModel],
    camera: &Camera,
    opts: &RenderOptions,
) -> image::RgbaImage {
    let view_proj = camera.proj * camera.view;
    let ground = &scene.ground;
    let lightmap_ok = ground.lightmap_width > 0
        && ground.lightmap_height > 0
        && ground.lightmap.len() >= (ground.lightmap_width * ground.lightmap_height) as usize;
    let mut batches: Vec<Batch> = Vec::new();
    for chunk in &ground.chunks {
        if !box_visible(&view_proj, (chunk.min, chunk.max)) {
            continue;
        }
        for (ti, tris) in &chunk.parts {
            let texture = ground.textures.get(*ti).map(|s| &*s.image);
            batches.push(Batch {
                positions: &chunk.positions,
                normals: &chunk.normals,
                uvs: &chunk.uvs,
                triangles: tris,
                uv_transform: Affine2::IDENTITY,
                texture,
                base_color: [1.0; 4],
                // The client discards nearly transparent ground texels.
                alpha: AlphaMode::Mask(0.1),
                two_sided: false,
                unlit: false,
                lightmap: lightmap_ok.then(|| LightmapLayer {
                    width: ground.lightmap_width,
                    height: ground.lightmap_height,
                    texels: &ground.lightmap,
                    uvs: &chunk.lightmap_uvs,
                }),
                sampler: Default::default(),
                colors: &[],
                emission: None,
            });
        }
    }
    for w in &scene.water {
        if !box_visible(&view_proj, (w.min, w.max)) {
            continue;
        }
        batches.push(Batch {
            positions: &w.positions,
            normals: &w.normals,
            uvs: &w.uvs,
            triangles: &w.triangles,
            uv_transform: Affine2::IDENTITY,
            texture: None,
            base_color: super::water::WATER_COLOR,
            alpha: AlphaMode::Blend,
            two_sided: true,
            unlit: false,
            lightmap: None,
            sampler: Default::default(),
            colors: &[],
            emission: None,
        });
    }
    let here: Vec<(&Instance, &PosedModel)> = visible
        .iter()
        .filter(|(i, _)| box_visible(&view_proj, i.bounds))
        .filter_map(|&(i, slot)| posed.get(slot).map(|p| (i, p)))
        .collect();
    let placed: Vec<Placed> = here.iter().map(|(i, p)| place(i, p)).collect();
    for ((inst, p), pl) in here.iter().zip(&placed) {
        let model = scene.model_of(inst);
        for (k, prim) in p.primitives.iter().enumerate() {
            let Some((positions, normals)) = pl.meshes.get(prim.mesh) else {
                continue;
            };
            let triangles: &[[u32; 3]] = match &pl.flipped {
                Some(f) => &f[k],
                None => &prim.triangles,
            };
            batches.extend(crate::render::primitive_batch(
                model, prim, positions, normals, triangles,
            ));
        }
    }
    raster::render(&batches, camera, &scene.light, opts)
}

/// False only when the box is certainly outside the view volume: all eight
/// corners beyond one clip plane.
pub fn box_visible(view_proj: &Mat4, (lo, hi): (Vec3, Vec3)) -> bool {
    if !(lo.is_finite() && hi.is_finite()) {
        return false;
    }
    let mut outside = [true; 6];
    for c in super::scene::box_corners((lo, hi)) {
        let p = *view_proj * c.extend(1.0);
        let tests = [
            p.x < -p.w,
            p.x > p.w,
            p.y < -p.w,
            p.y > p.w,
            p.z < 0.0,
            p.z > p.w,
        ];
        for (o, t) in outside.iter_mut().zip(tests) {
            *o &= t;
        }
    }
    !outside.iter().any(|&o| o)
}
