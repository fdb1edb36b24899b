//! Baking a recipe's `maps:`: load the scene once, frame every view, render
//! (views and frames in parallel, each image in blocks), hand each file to
//! the bake's sink.

use crate::bake::outputs::sink::Sink;
use crate::bake::recipe::MapJob;
use crate::bake::report::JobReport;
use crate::error::{Error, Result};
use crate::map::{self, MapCamera, MapScene, Region};
use crate::raster::RenderOptions;
use crate::source::{Lookup, SourceRef};
use rayon::prelude::*;

/// A map job ready to render.
pub struct MapPlan {
    /// The map, loaded.
    pub scene: MapScene,
    /// What loading the map read with the digest of each, sorted.
    pub reads: Vec<(std::path::PathBuf, String)>,
    /// Per view: its camera and the map times of its frames.
    pub views: Vec<(MapCamera, Vec<f32>)>,
    /// Bytes its decoded textures take (ground and models), charged while
    /// loading.
    pub decoded: u64,
}

impl MapPlan {
    /// Images the job will render (for progress bars).
    pub fn images(&self) -> usize {
        self.views.iter().map(|(_, t)| t.len()).sum()
    }

    /// Bytes its images take at once: one view's frames are held until its
    /// file is written (a GIF's all of them), one view after another.
    pub fn image_bytes(&self) -> u64 {
        self.views
            .iter()
            .map(|(cam, t)| {
                (t.len() as u64).saturating_mul(cam.width as u64 * cam.height as u64 * 4)
            })
            .max()
            .unwrap_or(0)
    }

    /// Refuses, before anything is rendered, a map whose largest view's
    /// images and its textures would not fit in `limit` bytes; returns
    /// what they need.
    pub fn check_memory(&self, limit: u64) -> Result<u64> {
        let images = self.image_bytes();
        let need = images.saturating_add(self.decoded);
        if need <= limit {
            return Ok(need);
        }
        let h = crate::memory::human_bytes;
        let (cam, times) = self
            .views
            .iter()
            .max_by_key(|(c, t)| (t.len() as u64).saturating_mul(c.width as u64 * c.height as u64))
            .expect("a map over the limit has a view");
        Err(Error::Other(format!(
            "its view of {} image(s) of {}x{} needs {} in memory at once beside the {} its \
             decoded textures take, more than the memory limit of {}; use fewer pixels per \
             tile, a smaller region or fewer frames, or raise the limit (kiln bake \
             --memory-limit)",
            times.len(),
            cam.width,
            cam.height,
            h(images),
            h(self.decoded),
            h(limit)
        )))
    }
}

/// Loads the map and frames every view; a region off the ground or an
/// oversized image is refused here, before any rendering. `extra` sources
/// are searched after the map's own `data:` folders.
/// The textures it decodes are allowed `memory_limit` bytes together (one
/// that does not fit is drawn flat, with a warning).
pub fn plan_map_within(job: &MapJob, extra: &[SourceRef], memory_limit: u64) -> Result<MapPlan> {
    let lookup = Lookup::with_folders(&job.data, extra)?.with_memory_limit(memory_limit);
    lookup.note_read(&job.recipe);
    let scene = MapScene::load(&job.map, &lookup)?;
    let (w, h) = (scene.ground.width, scene.ground.height);
    let mut views = Vec::with_capacity(job.views.len());
    for v in &job.views {
        let fail = |m: String| {
            // The run loop names the map; this names the view and its line.
            Error::Usage(format!(
                "{}:{}: view '{}': {m}",
                job.recipe.display(),
                v.line,
                v.name
            ))
        };
        let region = v.region.unwrap_or(Region::whole(w, h));
        region.check(w, h).map_err(fail)?;
        let camera = v.camera.frame(&scene, region).map_err(fail)?;
        let times = match &v.gif {
            Some(g) => g.times(v.time),
            None => vec![v.time],
        };
        views.push((camera, times));
    }
    Ok(MapPlan {
        scene,
        reads: lookup.read_digests(),
        views,
        decoded: lookup.memory().used(),
    })
}

/// Renders every view of a planned map and hands its files to `sink`, one
/// view at a time so that only one view's images are held at once (a still
/// renders its blocks in parallel, a GIF its frames).
pub fn run_map(
    job: &MapJob,
    plan: &MapPlan,
    tick: &(dyn Fn() + Sync),
    sink: &dyn Sink,
) -> Result<JobReport> {
    let mut files = Vec::new();
    let mut images = 0;
    for (v, (cam, times)) in job.views.iter().zip(&plan.views) {
        let opts = RenderOptions {
            width: cam.width,
            height: cam.height,
            supersample: job.antialias,
            background: job.background,
        };
        let frames: Vec<image::RgbaImage> = times
            .par_iter()
            .map(|&t| {
                let img = map::render(&plan.scene, &cam.camera, t, &opts);
                tick();
                img
            })
            .collect();
        images += frames.len();
        match &v.gif {
            Some(g) => {
                let refs: Vec<&image::RgbaImage> = frames.iter().collect();
                let bytes = crate::bake::encode::gif::encode(
                    &refs,
                    crate::bake::encode::gif::delay_cs(1.0 / g.fps),
                )
                .map_err(|m| Error::Other(format!("{}: {m}", v.file.display())))?;
                sink.write(&v.file, &bytes)?;
            }
            None => {
                if let Some(img) = frames.first() {
                    sink.write_png(&v.file, img)?;
                }
            }
        }
        files.push(v.file.clone());
    }
    Ok(JobReport {
        name: job.name.clone(),
        images,
        files,
        warnings: plan.scene.notes(),
        inputs: plan.reads.iter().map(|(p, _)| p.as_path().into()).collect(),
    })
}
