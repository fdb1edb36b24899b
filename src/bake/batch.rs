//! The bake entry point: recipes in, files out, one report back. The
//! command line and a `build.rs` call the same [`bake`].

use super::map_run::{plan_map, run_map};
use super::prune::stale_files;
use super::recipe::{Job, Recipe};
use super::run::{framing_points, plan_job, run_framed, run_planned, JobReport};
use super::sink::{DryRunSink, FileSink, OutputRecord, Sink, VerifySink};
use crate::error::{Error, Result};
use crate::raster::Camera;
use crate::source::SourceRef;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How a bake runs.
#[derive(Debug, Clone, Default)]
pub struct BakeOptions {
    /// Bake only the jobs and maps with these names; all when empty. A name
    /// that no job or map of the recipes has is an error.
    pub only: Vec<String>,
    /// Data sources searched after each job's own `data:` folders (and
    /// before the model's own tree): archives, in-memory files, folders.
    pub sources: Vec<SourceRef>,
    /// Worker threads for this bake; `None` uses rayon's global pool (one
    /// thread per core unless the program configured it).
    pub threads: Option<usize>,
    /// What happens to the files a bake makes.
    pub mode: OutputMode,
    /// Remove, after each job, the files an earlier bake of it wrote and
    /// this one did not (as every job's `output.prune`).
    pub prune: bool,
}

/// What happens to the files a bake makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputMode {
    /// Written, each atomically (a temporary file, then a rename).
    #[default]
    Write,
    /// Compared with the files already at their paths; nothing is written.
    Verify,
    /// Only listed; nothing is written or read back.
    DryRun,
}

impl OutputMode {
    fn sink(self) -> Box<dyn Sink> {
        match self {
            OutputMode::Write => Box::new(FileSink::default()),
            OutputMode::Verify => Box::new(VerifySink::default()),
            OutputMode::DryRun => Box::new(DryRunSink::default()),
        }
    }
}

/// Told about a bake as it goes; every method has a do-nothing default.
/// `image_done` is called from worker threads, hence `Sync`.
pub trait Progress: Sync {
    /// A job or map is planned and about to render `images` images.
    fn job_started(&self, name: &str, images: usize) {
        let _ = (name, images);
    }
    /// One image finished rendering.
    fn image_done(&self) {}
    /// A job or map finished, well or not.
    fn job_finished(&self, outcome: &JobOutcome) {
        let _ = outcome;
    }
}

/// A [`Progress`] that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// Whether an outcome is a sprite job or a map preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// An entry of a recipe's `jobs:`.
    Job,
    /// An entry of a recipe's `maps:`.
    Map,
}

/// What became of one job or map.
#[derive(Debug)]
pub struct JobOutcome {
    /// The job's or map's name.
    pub name: String,
    /// Job or map.
    pub kind: JobKind,
    /// The folder its outputs go to (a job's `output.dir`, a map's
    /// `output`), lexically tidied for messages (`recipes/../out` → `out`).
    pub dir: PathBuf,
    /// What it did, or why it failed. A failed job never stops the others,
    /// and the files it wrote before failing are whole.
    pub result: Result<JobReport>,
    /// Every file handed over, in order, and what became of it (written,
    /// same, different, missing, would write) — also for a failed job.
    pub records: Vec<OutputRecord>,
}

impl JobOutcome {
    /// `job 'name'` or `map 'name'`, for messages.
    pub fn label(&self) -> String {
        match self.kind {
            JobKind::Job => format!("job '{}'", self.name),
            JobKind::Map => format!("map '{}'", self.name),
        }
    }
}

/// What a whole bake did, job by job in recipe order.
#[derive(Debug, Default)]
pub struct BakeReport {
    /// Every job, then every map, of every recipe, in order.
    pub jobs: Vec<JobOutcome>,
    /// The recipe files the bake was given.
    pub recipes: Vec<PathBuf>,
}

impl BakeReport {
    /// Jobs and maps that succeeded.
    pub fn succeeded(&self) -> usize {
        self.jobs.iter().filter(|j| j.result.is_ok()).count()
    }

    /// Jobs and maps that failed.
    pub fn failed(&self) -> usize {
        self.jobs.len() - self.succeeded()
    }

    /// Images rendered by the jobs that succeeded.
    pub fn images(&self) -> usize {
        self.reports().map(|r| r.images).sum()
    }

    /// Files written (or compared, or listed) by the jobs that succeeded.
    pub fn files(&self) -> Vec<&Path> {
        self.reports()
            .flat_map(|r| r.files.iter().map(PathBuf::as_path))
            .collect()
    }

    /// Every file and folder the bake read — the recipes, models,
    /// textures, animations, configs, maps — sorted and each once: what a
    /// build script prints as `cargo:rerun-if-changed` lines.
    pub fn inputs(&self) -> Vec<PathBuf> {
        let mut all: Vec<PathBuf> = self.recipes.clone();
        for r in self.reports() {
            all.extend(r.inputs.iter().cloned());
        }
        all.sort();
        all.dedup();
        all
    }

    fn reports(&self) -> impl Iterator<Item = &JobReport> {
        self.jobs.iter().filter_map(|j| j.result.as_ref().ok())
    }
}

/// Loads recipe files and bakes them; a recipe that cannot be read or is
/// invalid is an [`Error::Usage`] naming its file, line and column.
pub fn bake_files(
    recipes: &[impl AsRef<Path>],
    options: &BakeOptions,
    progress: &dyn Progress,
) -> Result<BakeReport> {
    let loaded = recipes
        .iter()
        .map(|p| Recipe::load(p.as_ref()).map_err(Error::from))
        .collect::<Result<Vec<_>>>()?;
    bake(&loaded, options, progress)
}

/// Bakes every job and map of `recipes` (or those `options.only` names),
/// one after another, each job's images in parallel. A failed job is
/// reported in its [`JobOutcome`] and the others still run; only an
/// unusable option (an `only` name no job has, a thread pool that cannot
/// start) fails the whole bake.
pub fn bake(
    recipes: &[Recipe],
    options: &BakeOptions,
    progress: &dyn Progress,
) -> Result<BakeReport> {
    let jobs: Vec<_> = recipes.iter().flat_map(|r| r.jobs()).collect();
    let maps: Vec<_> = recipes.iter().flat_map(|r| r.maps()).collect();
    for name in &options.only {
        if !jobs.iter().any(|j| &j.name == name) && !maps.iter().any(|m| &m.name == name) {
            return Err(Error::Usage(format!(
                "--only {name}: no job of that name in the recipe(s)"
            )));
        }
    }
    let wanted = |name: &str| options.only.is_empty() || options.only.iter().any(|n| n == name);
    let run = || {
        let mut report = BakeReport {
            jobs: Vec::new(),
            recipes: recipes.iter().map(|r| r.path().to_path_buf()).collect(),
        };
        let tick = || progress.image_done();
        // Framing groups' cameras, fitted when a group's first job runs.
        let mut groups: BTreeMap<String, std::result::Result<Vec<Camera>, String>> =
            BTreeMap::new();
        for job in jobs.iter().filter(|j| wanted(&j.name)) {
            let sink = options.mode.sink();
            let cameras = job.framing_group.as_ref().map(|g| {
                groups
                    .entry(g.name.clone())
                    .or_insert_with(|| group_cameras(&g.name, &jobs, &options.sources))
                    .clone()
            });
            let result = match cameras {
                Some(Err(e)) => Err(Error::Other(e)),
                Some(Ok(c)) => plan_job(job, &options.sources).and_then(|plan| {
                    progress.job_started(&job.name, plan.images());
                    run_framed(job, &plan, Some(&c), &tick, sink.as_ref())
                }),
                None => plan_job(job, &options.sources).and_then(|plan| {
                    progress.job_started(&job.name, plan.images());
                    run_planned(job, &plan, &tick, sink.as_ref())
                }),
            };
            let result = result.and_then(|report| {
                if options.prune || job.output.prune {
                    for stale in stale_files(job, &report.files, &jobs) {
                        sink.remove(&stale)?;
                    }
                }
                Ok(report)
            });
            let outcome = JobOutcome {
                name: job.name.clone(),
                kind: JobKind::Job,
                dir: crate::paths::normalize(&job.output.dir),
                result,
                records: sink.records(),
            };
            progress.job_finished(&outcome);
            report.jobs.push(outcome);
        }
        for map in maps.iter().filter(|m| wanted(&m.name)) {
            let sink = options.mode.sink();
            let result = plan_map(map, &options.sources).and_then(|plan| {
                progress.job_started(&map.name, plan.images());
                run_map(map, &plan, &tick, sink.as_ref())
            });
            let outcome = JobOutcome {
                name: map.name.clone(),
                kind: JobKind::Map,
                dir: crate::paths::normalize(&map.dir),
                result,
                records: sink.records(),
            };
            progress.job_finished(&outcome);
            report.jobs.push(outcome);
        }
        report
    };
    match options.threads {
        None => Ok(run()),
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| Error::Other(format!("cannot start {n} worker threads: {e}")))?;
            Ok(pool.install(run))
        }
    }
}

/// The cameras of framing group `group`: fitted over the frames of every
/// job of the group in `jobs` — also those `--only` leaves out, so a
/// monster baked alone keeps its size relative to the others. The recipe
/// checked that the group's jobs share directions, pitch, size and
/// framing, so the first job's view serves all.
fn group_cameras(
    group: &str,
    jobs: &[Job],
    sources: &[SourceRef],
) -> std::result::Result<Vec<Camera>, String> {
    let members: Vec<&Job> = jobs
        .iter()
        .filter(|j| j.framing_group.as_ref().is_some_and(|g| g.name == group))
        .collect();
    let mut points = Vec::new();
    let mut view = None;
    for m in &members {
        let plan = plan_job(m, sources)
            .map_err(|e| format!("framing group `{group}`: job '{}': {e}", m.name))?;
        points.extend(framing_points(&plan));
        view.get_or_insert(plan.view);
    }
    let Some(view) = view else {
        return Err(format!("framing group `{group}` has no jobs"));
    };
    let views: Vec<(f32, f32)> = view.yaws.iter().map(|&y| (y, view.view.pitch)).collect();
    Ok(crate::camera::frame_cameras(
        &points,
        &views,
        view.view.width,
        view.view.height,
        &view.view.framing,
    ))
}
