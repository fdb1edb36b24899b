//! One job of a bake: load its model and clips, pose every sampled frame of
//! every clip once (clips drawn in place taken back to their root's
//! start), frame the job once over all clips, frames and directions (so
//! the model keeps its size and pivot from clip to clip) or take its
//! framing group's cameras, render every (clip, direction, frame) image in
//! parallel (`crate::render`), then hand the job's outputs to the sink,
//! the glTF export of its clips among them.

use crate::bake::encode::clip_frames::ClipFrames;
use crate::bake::outputs::sink::Sink;
use crate::bake::recipe::{ClipSpec, Job, PackLayout};
use crate::bake::report::JobReport;
use crate::bake::sprite_run::{plan_sprite, run_sprite, SpritePlan};
use crate::error::{Error, Result};
use crate::export::gltf::GltfReport;
use crate::model::ExportClip;
use crate::raster::Camera;
use crate::render::{
    fit, light_for, pose_frames, render_options, render_posed, ClipPlan, ViewSpec,
};
use crate::scene::clip::FrameTimes;
use crate::scene::{playback, root_motion, Model, PosedModel};
use crate::source::{Lookup, SourceRef};
use crate::spec::{ModelSpec, RootMotion};
use glam::{Vec3, Vec4Swizzles};
use std::path::PathBuf;
use std::sync::Arc;

/// One clip ready to render: the model it animates, its sample times and
/// how it plays.
#[derive(Debug, Clone)]
pub struct PlannedClip {
    /// The job's model posed by the clip's animation; a one-shot's tracks
    /// hold their last key. Shared with the job and its other clips when
    /// the clip changes nothing (a recipe that cuts a long take into
    /// clips of one model held a copy of it per clip).
    pub model: Arc<Model>,
    /// The sample times.
    pub times: FrameTimes,
    /// Whether the clip loops (else it plays once and ends on its last
    /// pose).
    pub looping: bool,
    /// Whether the clip's travel is taken out of its frames
    /// (`root_motion: in_place`).
    pub in_place: bool,
    /// The node whose sideways travel is taken out, when the clip is drawn
    /// in place and has one ([`root_motion::root_node`]).
    pub root: Option<usize>,
}

/// A job ready to render: its clips in job order, and the views and render
/// settings they share (`view.times` is empty; each clip has its own).
#[derive(Debug, Clone)]
pub struct JobPlan {
    /// The clips, in job order.
    pub clips: Vec<PlannedClip>,
    /// The views and render settings every clip shares.
    pub view: ClipPlan,
    /// What planning read (the recipe, model, textures, animations,
    /// configs) with the digest of each, sorted.
    pub reads: Vec<(PathBuf, String)>,
    /// The glTF file's bytes and what its export said, when the job
    /// writes one.
    pub gltf: Option<(Vec<u8>, GltfReport)>,
    /// Whether the job renders images at all.
    pub renders: bool,
    /// For a job whose model is a client sprite (`.act`): the sprite and
    /// its clips, drawn instead of `clips`.
    pub sprite: Option<SpritePlan>,
    /// The job's looks with its palette file read.
    pub look: crate::look::Look,
    /// Bytes the decoded inputs it holds take (the model's textures, a
    /// sprite's images), charged while planning.
    pub decoded: u64,
}

impl JobPlan {
    /// Images the job will render (for progress bars).
    pub fn images(&self) -> usize {
        if !self.renders {
            return 0;
        }
        if let Some(s) = &self.sprite {
            return s.images();
        }
        self.clips
            .iter()
            .map(|c| c.times.times.len())
            .sum::<usize>()
            * self.view.yaws.len()
    }

    /// Every clip's frames posed, each clip drawn in place taken back to its
    /// root's start, sideways: `[clip][frame]`.
    pub fn posed(&self) -> Vec<Vec<PosedModel>> {
        self.clips
            .iter()
            .map(|c| {
                let mut posed = pose_frames(&c.model, &c.times.times);
                if let Some(root) = c.root {
                    root_motion::take_out(&c.model, root, &mut posed, &c.times.times);
                }
                posed
            })
            .collect()
    }
}

/// The model a clip animates: the job's model posed by the clip's
/// animation file, or the job's model itself (its own animation, or its
/// rest pose) when the clip names none.
pub fn clip_model(
    model: &Arc<Model>,
    spec: &ClipSpec,
    job: &ModelSpec,
    lookup: &Lookup,
) -> Result<Arc<Model>> {
    match (&spec.animation, &spec.embedded) {
        (None, None) => Ok(Arc::clone(model)),
        (None, Some(name)) => crate::load::embedded(model, name).map(Arc::new),
        (Some(file), _) => crate::load::animate(model, file, &job.animation, lookup).map(Arc::new),
    }
}

/// Loads the job's model, applies each clip's animation, works out every
/// clip's frames, and returns the plan. `extra` sources are searched after
/// the job's own `data:` folders.
pub fn plan_job(job: &Job, extra: &[SourceRef]) -> Result<JobPlan> {
    plan_job_within(job, extra, crate::memory::DEFAULT_MEMORY_LIMIT)
}

/// [`plan_job`], the textures (or a sprite's images) it decodes allowed
/// `memory_limit` bytes together: a texture that does not fit is drawn as
/// the checker, with a warning, as an unreadable one is.
pub fn plan_job_within(job: &Job, extra: &[SourceRef], memory_limit: u64) -> Result<JobPlan> {
    let spec = &job.model;
    if crate::bake::sprite_run::is_sprite_job(job, extra)? {
        return plan_sprite_job(job, extra, memory_limit);
    }
    let lookup = Lookup::with_folders(&spec.data, extra)?.with_memory_limit(memory_limit);
    lookup.note_read(&job.recipe);
    // A `data:` entry that is not there is most often a typo or a corpus
    // moved: said beside the model's error, or as a warning when the model
    // is found all the same.
    let missing: Vec<String> = spec
        .data
        .iter()
        .filter(|d| std::fs::metadata(d).is_err())
        .map(|d| format!("data folder {} does not exist", d.display()))
        .collect();
    let mut model = match crate::load::load_model(spec, &lookup) {
        Ok(m) => m,
        Err(e) => {
            // A model that is not there is the recipe's mistake: say where.
            let e = match e {
                Error::Io { path, source } if source.kind() == std::io::ErrorKind::NotFound => {
                    Error::Other(format!(
                        "{}:{}: the model {} does not exist ({source})",
                        job.recipe.display(),
                        job.line,
                        path.display()
                    ))
                }
                e => e,
            };
            if missing.is_empty() {
                return Err(e);
            }
            return Err(Error::Other(format!("{e} ({})", missing.join("; "))));
        }
    };
    model.warnings.splice(0..0, missing);
    let model = Arc::new(model);
    let mut clips = Vec::with_capacity(job.clips.len());
    for clip in &job.clips {
        let root_mode = clip.root_motion.unwrap_or(spec.animation.root_motion);
        let mut clip_spec = spec.clone();
        clip_spec.animation.root_motion = root_mode;
        let m = clip_model(&model, clip, &clip_spec, &lookup)?;
        let looping = clip.looping.unwrap_or(m.looping);
        let m = if looping {
            m
        } else {
            Arc::new(playback::one_shot(&m))
        };
        // `duration` stands in for animations that do not know their length.
        let length = match spec.animation.duration {
            Some(d) if m.duration <= 0.0 => d,
            _ => m.duration,
        };
        let times = if looping {
            clip.clip.frame_times(length)
        } else {
            let end = if m.duration > 0.0 {
                playback::one_shot_end(&m)
            } else {
                length
            };
            clip.clip.frame_times_once(end)
        };
        let times = times.map_err(|msg| {
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
        let in_place = root_mode == RootMotion::InPlace;
        let root = if in_place {
            root_motion::root_node(&m)
        } else {
            None
        };
        clips.push(PlannedClip {
            model: m,
            times,
            looping,
            in_place,
            root,
        });
    }
    // Refuse a sheet that cannot be laid out before rendering every frame.
    if job.output.sheet.is_some() {
        check_layout(job, &clips).map_err(Error::Usage)?;
    }
    let mut look = job.look.clone();
    look.load_palette(|f| lookup.read_named(f).map(|(bytes, _)| bytes))
        .map_err(|e| match e {
            Error::Usage(m) => Error::Usage(format!(
                "{}:{}: job '{}': look.palette: {m}",
                job.recipe.display(),
                job.line,
                job.name
            )),
            other => other,
        })?;
    let mut view = ClipPlan {
        times: Vec::new(),
        yaws: job.directions.iter().map(|d| d.yaw).collect(),
        view: job.view,
    };
    view.view.framing = look.framing(view.view.framing, view.view.width, view.view.height);
    let gltf = match &job.output.gltf {
        Some(_) => Some(gltf_export(job, &model, &lookup)?),
        None => None,
    };
    Ok(JobPlan {
        clips,
        view,
        reads: lookup.read_digests(),
        gltf,
        renders: job.output.renders(),
        sprite: None,
        look,
        decoded: lookup.memory().used(),
    })
}

/// The plan of a job whose model is a client sprite.
fn plan_sprite_job(job: &Job, extra: &[SourceRef], memory_limit: u64) -> Result<JobPlan> {
    if job.output.gltf.is_some() {
        return Err(Error::Usage(format!(
            "{}:{}: job '{}': a client sprite is 2D images; it has no glTF form",
            job.recipe.display(),
            job.line,
            job.name
        )));
    }
    if !job.look.is_off() {
        return Err(Error::Usage(format!(
            "{}:{}: job '{}': a client sprite is drawn as it is; looks are for models",
            job.recipe.display(),
            job.line,
            job.name
        )));
    }
    let sprite = plan_sprite(job, extra, memory_limit)?;
    let decoded = sprite.sprite.image_bytes();
    let mut reads = sprite.sprite.reads().to_vec();
    reads.push((job.recipe.clone(), String::new()));
    reads.sort();
    reads.dedup();
    Ok(JobPlan {
        clips: Vec::new(),
        view: ClipPlan {
            times: Vec::new(),
            yaws: Vec::new(),
            view: job.view,
        },
        reads,
        gltf: None,
        renders: job.output.renders(),
        sprite: Some(sprite),
        look: crate::look::Look::default(),
        decoded,
    })
}

/// The job's clips as glTF animations: each clip's animation file over the
/// clip's range (its `fps`/`frames` do not matter: glTF keeps the keys). A
/// job given `clip:` has one animation, named after the job.
fn gltf_export(job: &Job, model: &Model, lookup: &Lookup) -> Result<(Vec<u8>, GltfReport)> {
    let clips: Vec<ExportClip> = job
        .clips
        .iter()
        .map(|c| ExportClip {
            name: if job.named_clips {
                c.name.clone()
            } else {
                job.name.clone()
            },
            animation: c.animation.clone(),
            embedded: c.embedded.clone(),
            clip: c.clip,
        })
        .collect();
    crate::model::animated_glb(model, &job.model, &clips, lookup).map_err(|e| match e {
        Error::Usage(m) => Error::Usage(format!(
            "{}:{}: job '{}': glTF: {m}",
            job.recipe.display(),
            job.line,
            job.name
        )),
        other => other,
    })
}

/// The job's grid atlas over its planned clips, laid out before anything
/// is drawn (a grid needs no frames).
pub(super) fn grid_atlas(
    job: &Job,
    clips: &[PlannedClip],
) -> std::result::Result<crate::bake::sheet::atlas::Atlas, String> {
    let metas = crate::bake::emit::atlas_clips(job, clips.iter().map(|c| (&c.times, c.looping)));
    let info = crate::bake::emit::atlas_job(job, &metas);
    let (w, h) = (job.view.width, job.view.height);
    crate::bake::sheet::grid::paged_atlas(&info, w, h, [0.5, 0.5], &job.pack)
}

/// Whether the job's frames can be laid out as `pack` asks, judged before
/// they are rendered: a grid's rows must fit a page; a packed frame, even
/// untrimmed, must fit one.
fn check_layout(job: &Job, clips: &[PlannedClip]) -> std::result::Result<(), String> {
    let (w, h) = (job.view.width, job.view.height);
    match job.pack.layout {
        PackLayout::Grid => grid_atlas(job, clips).map(|_| ()),
        PackLayout::Packed if !job.pack.trim => {
            let (mw, mh) = crate::bake::sheet::grid::page_limits(&job.pack);
            let e = 2 * job.pack.extrude as u64;
            if w as u64 + e > mw || h as u64 + e > mh {
                return Err(format!(
                    "frames of {w}x{h} (with extrusion) do not fit a page of max_size {mw}x{mh}"
                ));
            }
            Ok(())
        }
        PackLayout::Packed => Ok(()),
    }
}

/// Renders a planned job, framed on its own frames, and hands its outputs
/// to `sink` (for kiln's tests; a bake goes through [`run_framed`]).
pub fn run_planned(
    job: &Job,
    plan: &JobPlan,
    tick: &(dyn Fn() + Sync),
    sink: &dyn Sink,
) -> Result<JobReport> {
    run_framed(job, plan, None, tick, sink)
}

/// Every posed point of the job's frames (clips drawn in place taken back
/// to their start): what a framing group fits its shared cameras to.
pub fn framing_points(plan: &JobPlan) -> Vec<Vec3> {
    plan.posed()
        .iter()
        .flatten()
        .flat_map(|p| crate::render::posed_points(p).collect::<Vec<_>>())
        .collect()
}

/// Renders a planned job with the given cameras (one per direction, a
/// framing group's), or framed on its own frames, and hands its outputs to
/// `sink`.
pub fn run_framed(
    job: &Job,
    plan: &JobPlan,
    cameras: Option<&[Camera]>,
    tick: &(dyn Fn() + Sync),
    sink: &dyn Sink,
) -> Result<JobReport> {
    if let Some(sprite) = &plan.sprite {
        if !plan.renders {
            return Ok(JobReport {
                name: job.name.clone(),
                images: 0,
                files: Vec::new(),
                warnings: sprite.sprite.warnings().to_vec(),
                inputs: plan.reads.iter().map(|(p, _)| p.as_path().into()).collect(),
            });
        }
        return run_sprite(job, sprite, tick, sink);
    }
    let mut files = Vec::new();
    if plan.renders {
        files = render_and_write(job, plan, cameras, tick, sink)?;
    }
    let warnings = plan_warnings(plan);
    if let (Some(path), Some((bytes, _))) = (&job.output.gltf, &plan.gltf) {
        sink.write(path, bytes)?;
        files.push(path.clone());
    }
    Ok(JobReport {
        name: job.name.clone(),
        images: plan.images(),
        files,
        warnings,
        inputs: plan.reads.iter().map(|(p, _)| p.as_path().into()).collect(),
    })
}

/// Frames (or takes the given cameras), renders every image with the
/// job's looks and writes the job's image outputs and passes, frames
/// drawn straight into what keeps them ([`crate::bake::stream`]).
fn render_and_write(
    job: &Job,
    plan: &JobPlan,
    cameras: Option<&[Camera]>,
    tick: &(dyn Fn() + Sync),
    sink: &dyn Sink,
) -> Result<Vec<PathBuf>> {
    let posed = plan.posed();
    let sets: Vec<&[PosedModel]> = posed.iter().map(Vec::as_slice).collect();
    let look = &plan.look;
    let cameras: Vec<Camera> = match cameras {
        Some(c) if c.len() == plan.view.yaws.len() => c.to_vec(),
        _ if look.is_off() => fit(&sets, &plan.view),
        _ => crate::look::frames::fit(&sets, &plan.view, look),
    };
    let ground = crate::look::frames::ground_of(&sets);
    let pivots: Vec<[f32; 2]> = cameras.iter().map(pivot_of).collect();
    let clips: Vec<ClipFrames> = plan
        .clips
        .iter()
        .map(|c| ClipFrames {
            times: c.times.clone(),
            frames: Vec::new(),
            pivots: pivots.clone(),
            root_motion: root_motion_pixels(c, &cameras, &plan.view.view),
            looping: c.looping,
        })
        .collect();
    let opts = render_options(&plan.view);
    let depths: Vec<Option<(f32, f32)>> = posed
        .iter()
        .map(|p| crate::look::frames::inner_depth(look, p, &cameras))
        .collect();
    let draw = |c: usize, d: usize, f: usize| {
        let (model, light) = (&plan.clips[c].model, light_for(&plan.view, d));
        let img = if look.is_off() {
            render_posed(model, &posed[c][f], &cameras[d], &light, &opts)
        } else {
            crate::look::frames::render_one(
                model,
                &posed[c][f],
                &cameras[d],
                &light,
                &opts,
                look,
                ground,
                depths[c],
            )
        };
        tick();
        img
    };
    // Without looks a frame is the rasterizer's image as it is, so it can
    // be drawn straight into the sheet's rows.
    let into = |c: usize, d: usize, f: usize, rows: &mut [&mut [u8]]| {
        let (model, light) = (&plan.clips[c].model, light_for(&plan.view, d));
        crate::render::render_posed_into(model, &posed[c][f], &cameras[d], &light, &opts, rows);
        tick();
    };
    let into: Option<&crate::bake::stream::DrawInto<'_>> =
        if look.is_off() { Some(&into) } else { None };
    // Frames mapped to a palette are written as indexed PNGs: the same
    // pixels in a quarter of the bytes or less, deflated that much faster.
    let compression = job.png;
    let indexed = |img: &image::RgbaImage| crate::output::encode_png_indexed(img, compression);
    let rgba = |img: &image::RgbaImage| crate::output::encode_png_with(img, compression);
    let images = PngSink {
        inner: sink,
        encode: if look.palette.is_some() {
            &indexed
        } else {
            &rgba
        },
        rows: look.palette.is_none().then_some(compression),
    };
    let (mut files, kept) =
        crate::bake::stream::draw_and_write(job, &clips, &draw, into, look, &images)?;
    if let Some(kept) = kept {
        files.extend(crate::bake::encode::ro_sprite::write(job, &kept, sink)?);
    }
    if look.passes.any() {
        files.extend(write_passes(job, plan, &posed, &cameras, &clips, sink)?);
    }
    Ok(files)
}

/// Renders the job's passes and writes each as a sheet (and metadata) laid
/// out exactly like the colour sheet: the same cameras, the same atlas.
fn write_passes(
    job: &Job,
    plan: &JobPlan,
    posed: &[Vec<PosedModel>],
    cameras: &[Camera],
    clips: &[ClipFrames],
    sink: &dyn Sink,
) -> Result<Vec<PathBuf>> {
    use crate::look::passes::{self, PassKind};
    let p = &plan.look.passes;
    let sets: Vec<&[PosedModel]> = posed.iter().map(Vec::as_slice).collect();
    let mut kinds: Vec<(&str, PassKind)> = Vec::new();
    if p.normal {
        kinds.push(("normal", PassKind::Normal));
    }
    if p.depth.is_some() {
        let (near, far) = passes::depth_range(&sets, cameras);
        kinds.push(("depth", PassKind::Depth { near, far }));
    }
    if let Some(by) = p.id {
        kinds.push(("id", PassKind::Id(by)));
    }
    let plain = crate::look::Look::default();
    let mut files = Vec::new();
    for (suffix, kind) in kinds {
        let Some(outputs) = job.pass_outputs(suffix) else {
            continue;
        };
        let opts = passes::pass_options(&plan.view, kind);
        let draw = |c: usize, d: usize, f: usize| {
            passes::render_one(&plan.clips[c].model, &posed[c][f], &cameras[d], &opts, kind)
        };
        let mut only = job.clone();
        only.output = outputs;
        let (written, _) = match (kind, p.depth) {
            (PassKind::Depth { .. }, Some(bits)) => {
                let encode =
                    |img: &image::RgbaImage| crate::look::passes::encode_depth_png(img, bits);
                let depth_sink = PngSink {
                    inner: sink,
                    encode: &encode,
                    rows: None,
                };
                crate::bake::stream::draw_and_write(&only, clips, &draw, None, &plain, &depth_sink)?
            }
            _ => crate::bake::stream::draw_and_write(&only, clips, &draw, None, &plain, sink)?,
        };
        files.extend(written);
        if let (PassKind::Id(by), Some(c)) = (kind, plan.clips.first()) {
            if let Some(legend) = job.id_legend_path() {
                sink.write(&legend, passes::id_legend(&c.model, by).as_bytes())?;
                files.push(legend);
            }
        }
    }
    Ok(files)
}

/// A sink that encodes PNG images its own way (a depth pass's grey, a
/// palette look's indexed colours) and hands every file on to `inner`.
struct PngSink<'a> {
    inner: &'a dyn Sink,
    encode: &'a (dyn Fn(&image::RgbaImage) -> Result<Vec<u8>> + Sync),
    /// Set when `encode` is plain RGBA at this compression, which
    /// [`Sink::png_rows`] can then give in strips.
    rows: Option<crate::output::PngCompression>,
}

impl Sink for PngSink<'_> {
    fn write(&self, path: &std::path::Path, bytes: &[u8]) -> Result<()> {
        self.inner.write(path, bytes)
    }

    fn remove(&self, path: &std::path::Path) -> Result<()> {
        self.inner.remove(path)
    }

    fn records(&self) -> Vec<crate::bake::outputs::sink::OutputRecord> {
        self.inner.records()
    }

    fn settle(&self) -> Result<()> {
        self.inner.settle()
    }

    fn encode_png(&self, img: &image::RgbaImage) -> Result<Vec<u8>> {
        (self.encode)(img)
    }

    fn png_rows(&self, width: u32, height: u32) -> Option<crate::parallel_png::RowStream> {
        self.rows
            .and_then(|c| crate::output::png_rows(width, height, c))
    }
}

/// The warnings of a planned job's models and its glTF export, each once
/// (every clip's model repeats the job model's).
pub fn plan_warnings(plan: &JobPlan) -> Vec<String> {
    let mut warnings: Vec<String> = Vec::new();
    let glb_notes = plan.gltf.iter().flat_map(|(_, r)| &r.notes);
    for w in plan
        .clips
        .iter()
        .flat_map(|c| &c.model.warnings)
        .chain(glb_notes)
    {
        if !warnings.contains(w) {
            warnings.push(w.clone());
        }
    }
    warnings
}

/// Where the model's ground point under its origin lands in a frame drawn
/// by `cam`, as fractions of the frame from its top-left corner.
pub fn pivot_of(cam: &Camera) -> [f32; 2] {
    let clip = cam.proj * cam.view * glam::Vec4::new(0.0, 0.0, 0.0, 1.0);
    let ndc = clip.xy() / clip.w;
    [(ndc.x + 1.0) * 0.5, (1.0 - ndc.y) * 0.5]
}

/// The pixels each frame of an in-place clip moves the sprite by, per
/// direction: the clip's travel from this frame's time to the next one's —
/// to the clip's end after the last frame of a loop, so one pass through
/// the frames moves the sprite by the clip's whole travel; nothing after
/// the held last frame of a one-shot — seen through each camera from the
/// pivot. Empty when the clip keeps its travel or has none.
fn root_motion_pixels(c: &PlannedClip, cameras: &[Camera], view: &ViewSpec) -> Vec<Vec<[f32; 2]>> {
    if !c.in_place {
        return Vec::new();
    }
    let times = &c.times.times;
    let next = |i: usize| match times.get(i + 1) {
        Some(&t) => t,
        None if c.looping => c.times.end.max(times[i]),
        None => times[i],
    };
    let deltas: Vec<Vec3> = (0..times.len())
        .map(|i| {
            root_motion::travel(&c.model, c.root, next(i))
                - root_motion::travel(&c.model, c.root, times[i])
        })
        .collect();
    if deltas.iter().all(|d| d.length() < 1e-6) {
        return Vec::new();
    }
    cameras
        .iter()
        .map(|cam| {
            deltas
                .iter()
                .map(|&d| screen_delta(cam, view.width, view.height, d))
                .collect()
        })
        .collect()
}

/// `d` (kiln's world, from the origin) in pixels on a `w × h` frame drawn
/// by `cam`, x right and y down, to 1/1000 pixel.
fn screen_delta(cam: &Camera, w: u32, h: u32, d: Vec3) -> [f32; 2] {
    let ndc = |v: Vec3| {
        let c = cam.proj * cam.view * v.extend(1.0);
        c.xy() / c.w
    };
    let (a, b) = (ndc(Vec3::ZERO), ndc(d));
    let round = |v: f32| (v * 1000.0).round() / 1000.0 + 0.0;
    [
        round((b.x - a.x) * w as f32 * 0.5),
        round(-(b.y - a.y) * h as f32 * 0.5),
    ]
}
