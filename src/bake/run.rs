//! One job of a bake: load its model and clips, pose every sampled frame of
//! every clip once, frame the job once over all clips, frames and
//! directions (so the model keeps its size and pivot from clip to clip),
//! render every (clip, direction, frame) image in parallel
//! ([`crate::render`]), then hand the job's outputs to the sink, the
//! glTF export of its clips among them.

use super::outputs::ClipFrames;
use super::recipe::{ClipSpec, Job};
use super::sink::Sink;
use crate::error::{Error, Result};
use crate::export::gltf::GltfReport;
use crate::model::ExportClip;
use crate::render::{fit, pivot, pose_frames, render_frames, ClipPlan};
use crate::scene::clip::FrameTimes;
use crate::scene::{Model, PosedModel};
use crate::source::{Lookup, SourceRef};
use crate::spec::ModelSpec;
use std::path::PathBuf;

/// What one finished job (or map) did.
#[derive(Debug, Clone)]
pub struct JobReport {
    /// The job's or map's name.
    pub name: String,
    /// Images rendered.
    pub images: usize,
    /// Every file handed to the bake's sink, in order.
    pub files: Vec<PathBuf>,
    /// What the user should know, each once: missing textures, unmatched
    /// tracks, a map's missing models.
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
#[derive(Debug, Clone)]
pub struct JobPlan {
    pub clips: Vec<PlannedClip>,
    pub view: ClipPlan,
    /// What planning read (the recipe, model, textures, animations,
    /// configs) with the digest of each, sorted.
    pub reads: Vec<(PathBuf, String)>,
    /// The glTF file's bytes and what its export said, when the job
    /// writes one.
    pub gltf: Option<(Vec<u8>, GltfReport)>,
    /// Whether the job renders images at all.
    pub renders: bool,
    /// The job's looks with its palette file read.
    pub look: crate::look::Look,
}

impl JobPlan {
    /// Images the job will render (for progress bars).
    pub fn images(&self) -> usize {
        if !self.renders {
            return 0;
        }
        self.clips
            .iter()
            .map(|c| c.times.times.len())
            .sum::<usize>()
            * self.view.yaws.len()
    }
}

/// The model a clip animates: the job's model posed by the clip's
/// animation file, or the job's model itself (its own animation, or its
/// rest pose) when the clip names none.
pub fn clip_model(
    model: &Model,
    spec: &ClipSpec,
    job: &ModelSpec,
    lookup: &Lookup,
) -> Result<Model> {
    match &spec.animation {
        None => Ok(model.clone()),
        Some(file) => crate::load::animate(model, file, &job.animation, lookup),
    }
}

/// Loads the job's model, applies each clip's animation, works out every
/// clip's frames, and returns the plan. `extra` sources are searched after
/// the job's own `data:` folders.
pub fn plan_job(job: &Job, extra: &[SourceRef]) -> Result<JobPlan> {
    let spec = &job.model;
    let lookup = Lookup::with_folders(&spec.data, extra)?;
    lookup.note_read(&job.recipe);
    let model = crate::load::load_model(spec, &lookup)?;
    let mut clips = Vec::with_capacity(job.clips.len());
    for clip in &job.clips {
        let m = clip_model(&model, clip, spec, &lookup)?;
        // `duration` stands in for animations that do not know their length.
        let length = match spec.animation.duration {
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
        let (w, h) = (job.view.width, job.view.height);
        super::grid::GridLayout::for_clips(w, h, &lengths, job.directions.len())
            .map_err(Error::Usage)?;
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
        look,
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

/// Renders a planned job and hands its outputs to `sink`.
pub fn run_planned(
    job: &Job,
    plan: &JobPlan,
    tick: &(dyn Fn() + Sync),
    sink: &dyn Sink,
) -> Result<JobReport> {
    let mut files = Vec::new();
    let mut rendered: Vec<ClipFrames> = Vec::new();
    if plan.renders {
        let posed: Vec<Vec<PosedModel>> = plan
            .clips
            .iter()
            .map(|c| pose_frames(&c.model, &c.times.times))
            .collect();
        let sets: Vec<&[PosedModel]> = posed.iter().map(Vec::as_slice).collect();
        let look = &plan.look;
        let cameras = if look.is_off() {
            fit(&sets, &plan.view)
        } else {
            crate::look::frames::fit(&sets, &plan.view, look)
        };
        let ground = crate::look::frames::ground_of(&sets);
        rendered = plan
            .clips
            .iter()
            .zip(&posed)
            .map(|(c, p)| ClipFrames {
                times: c.times.clone(),
                frames: if look.is_off() {
                    render_frames(&c.model, p, &cameras, &plan.view, tick)
                } else {
                    crate::look::frames::render_frames(
                        &c.model, p, &cameras, &plan.view, look, ground, tick,
                    )
                },
            })
            .collect();
        apply_palette(look, &mut rendered);
        files = super::write_outputs(job, &rendered, pivot(&cameras), sink)?;
        if look.passes.any() {
            files.extend(write_passes(job, plan, &posed, &cameras, sink)?);
        }
    }
    let warnings = plan_warnings(plan);
    if let (Some(path), Some((bytes, _))) = (&job.output.gltf, &plan.gltf) {
        sink.write(path, bytes)?;
        files.push(path.clone());
    }
    Ok(JobReport {
        name: job.name.clone(),
        images: rendered
            .iter()
            .map(|c| c.frames.iter().map(Vec::len).sum::<usize>())
            .sum(),
        files,
        warnings,
        inputs: plan.reads.iter().map(|(p, _)| p.clone()).collect(),
    })
}

/// Renders the job's passes and writes each as a sheet (and metadata) laid
/// out exactly like the colour sheet: the same cameras, the same atlas.
fn write_passes(
    job: &Job,
    plan: &JobPlan,
    posed: &[Vec<PosedModel>],
    cameras: &[crate::raster::Camera],
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
    let mut files = Vec::new();
    for (suffix, kind) in kinds {
        let Some((sheet, meta)) = job.pass_paths(suffix) else {
            continue;
        };
        let frames: Vec<ClipFrames> = plan
            .clips
            .iter()
            .zip(posed)
            .map(|(c, p)| ClipFrames {
                times: c.times.clone(),
                frames: passes::render_frames(&c.model, p, cameras, &plan.view, kind),
            })
            .collect();
        let mut only = job.clone();
        only.output.sheet = Some(sheet);
        only.output.meta = meta;
        only.output.frames = None;
        only.output.gif = None;
        only.output.gltf = None;
        let written = match (kind, p.depth) {
            (PassKind::Depth { .. }, Some(bits)) => super::write_outputs(
                &only,
                &frames,
                pivot(cameras),
                &DepthSink { inner: sink, bits },
            )?,
            _ => super::write_outputs(&only, &frames, pivot(cameras), sink)?,
        };
        files.extend(written);
        if let (PassKind::Id(by), Some(c)) = (kind, plan.clips.first()) {
            if let Some((legend, _)) = job.pass_paths("id_legend") {
                let legend = legend.with_extension("json");
                sink.write(&legend, passes::id_legend(&c.model, by).as_bytes())?;
                files.push(legend);
            }
        }
    }
    Ok(files)
}

/// Writes a depth sheet's PNG as grey with alpha at the job's bits.
struct DepthSink<'a> {
    inner: &'a dyn Sink,
    bits: crate::look::passes::DepthBits,
}

impl Sink for DepthSink<'_> {
    fn write(&self, path: &std::path::Path, bytes: &[u8]) -> Result<()> {
        self.inner.write(path, bytes)
    }

    fn records(&self) -> Vec<super::sink::OutputRecord> {
        self.inner.records()
    }

    fn write_png(&self, path: &std::path::Path, img: &image::RgbaImage) -> Result<()> {
        let bytes = crate::look::passes::encode_depth_png(img, self.bits)?;
        self.inner.write(path, &bytes)
    }
}

/// The job's palette on every frame, chosen once over every frame of every
/// clip and direction when it is not given.
fn apply_palette(look: &crate::look::Look, clips: &mut [ClipFrames]) {
    use rayon::prelude::*;
    if look.palette.is_none() {
        return;
    }
    let mut frames: Vec<&mut image::RgbaImage> = clips
        .iter_mut()
        .flat_map(|c| c.frames.iter_mut().flatten())
        .collect();
    let palette = {
        let all: Vec<&image::RgbaImage> = frames.iter().map(|f| &**f).collect();
        look.job_palette(&all)
    };
    if let Some(p) = palette {
        frames
            .par_iter_mut()
            .for_each(|f| look.map_to_palette(f, &p));
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
