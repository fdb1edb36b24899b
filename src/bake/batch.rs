//! The bake entry point: recipes in, files out, one report back. The
//! command line and a `build.rs` call the same [`bake`].

use super::incremental::{restore, Ending};
use super::map_run::{plan_map_within, run_map, MapPlan};
use super::prune::Owned;
use super::recipe::{Job, MapJob, Recipe};
use super::run::{framing_points, plan_job, plan_job_within, run_framed, JobPlan, JobReport};
use super::schedule::{run_in_order, Attempt, Budget, Pool};
use super::sink::{DryRunSink, FileSink, OutputRecord, Sink, VerifySink};
use super::state::{self, Cache, Recorder};
use crate::confined::Root;
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
    /// Bake every job even when its inputs and outputs are unchanged since
    /// the last bake (its key and files, kept in [`STATE_FILE`](crate::STATE_FILE)).
    pub force: bool,
    /// A folder of baked files by content, shared between bakes and
    /// machines: a job another bake already made is restored from it.
    pub cache: Option<PathBuf>,
    /// Bake only this shard of the jobs (and maps).
    pub shard: Option<Shard>,
    /// Remove, after each job, the files an earlier bake of it wrote and
    /// this one did not (as every job's `output.prune`).
    pub prune: bool,
    /// Bytes a job's images may take in memory at once (its rendered
    /// frames, the sheet made from them and a pass's); a job needing more
    /// fails before it renders. Jobs run side by side only while their
    /// images fit in it together; one that does not fit beside the others
    /// waits for them. `None` is [`DEFAULT_MEMORY_LIMIT`].
    pub memory_limit: Option<u64>,
}

pub use crate::memory::DEFAULT_MEMORY_LIMIT;

/// One of `count` deterministic, cost-balanced parts of a bake's jobs: N
/// machines baking shards 1..=N of the same recipes together write exactly
/// the files one machine would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

/// What happens to the files a bake makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputMode {
    /// Written, each atomically (a temporary file, then a rename).
    #[default]
    Write,
    /// Compared with the files already at their paths; nothing is written.
    Verify,
    /// Only listed; nothing is written or read back. Jobs that are up to
    /// date are reported skipped, the others are rendered in memory.
    DryRun,
    /// Nothing rendered or written: each job is planned and reported up to
    /// date ([`JobStatus::Skipped`]) or not ([`JobStatus::Stale`]).
    Check,
}

impl OutputMode {
    /// The sink of a job writing below `root`.
    fn sink(self, root: &Root) -> Box<dyn Sink> {
        let root = root.clone();
        match self {
            // Every job settles its sink before relying on its files.
            OutputMode::Write => Box::new(FileSink::in_background(root)),
            OutputMode::Verify => Box::new(VerifySink::for_root(root)),
            OutputMode::DryRun | OutputMode::Check => Box::new(DryRunSink::for_root(root)),
        }
    }
}

/// What a bake did with one job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    /// Rendered and its files handed to the sink.
    Baked,
    /// Up to date: its inputs and files unchanged since the last bake.
    Skipped,
    /// Restored from the cache instead of rendered.
    Restored,
    /// Would be baked (a check, which renders nothing).
    Stale,
    /// It failed; see [`JobOutcome::result`].
    Failed,
}

impl JobStatus {
    /// `baked`, `skipped`, `restored`, `stale` or `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Baked => "baked",
            JobStatus::Skipped => "skipped",
            JobStatus::Restored => "restored",
            JobStatus::Stale => "stale",
            JobStatus::Failed => "failed",
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
    /// Baked, skipped, restored, stale or failed.
    pub status: JobStatus,
    /// The job's content key, once planned.
    pub key: Option<String>,
    /// Wall-clock seconds it took (not deterministic; for reports only).
    pub seconds: f64,
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

    /// Jobs with each status.
    pub fn count(&self, status: JobStatus) -> usize {
        self.jobs.iter().filter(|j| j.status == status).count()
    }

    /// A Makefile rule per job: its files depend on every file it read.
    /// make, ninja (`depfile = …`) and cargo's build scripts read it. A
    /// path holding a control character (a newline would end the rule and
    /// start another) cannot be named there: an error naming it.
    pub fn depfile(&self) -> Result<String> {
        let mut out = String::new();
        for j in &self.jobs {
            let Ok(r) = &j.result else { continue };
            if r.files.is_empty() {
                continue;
            }
            let tidy = |p: &PathBuf| make_escape(&crate::paths::normalize(p));
            let targets = r.files.iter().map(tidy).collect::<Result<Vec<String>>>()?;
            let mut inputs = r.inputs.iter().map(tidy).collect::<Result<Vec<String>>>()?;
            inputs.sort();
            inputs.dedup();
            out.push_str(&format!("{}: {}\n", targets.join(" "), inputs.join(" ")));
        }
        Ok(out)
    }

    /// A machine-readable summary: per job its status, files, inputs,
    /// warnings, error and time.
    pub fn to_json(&self) -> serde_json::Value {
        let jobs: Vec<serde_json::Value> = self
            .jobs
            .iter()
            .map(|j| {
                let path = |p: &PathBuf| p.display().to_string();
                let (files, inputs, warnings, images, error) = match &j.result {
                    Ok(r) => (
                        r.files.iter().map(path).collect(),
                        r.inputs.iter().map(path).collect(),
                        r.warnings.clone(),
                        r.images,
                        None,
                    ),
                    Err(e) => (Vec::new(), Vec::new(), Vec::new(), 0, Some(e.to_string())),
                };
                serde_json::json!({
                    "name": j.name,
                    "kind": match j.kind { JobKind::Job => "job", JobKind::Map => "map" },
                    "status": j.status.as_str(),
                    "dir": j.dir.display().to_string(),
                    "key": j.key,
                    "images": images,
                    "outputs": files,
                    "inputs": inputs,
                    "warnings": warnings,
                    "error": error,
                    "seconds": (j.seconds * 1000.0).round() / 1000.0,
                })
            })
            .collect();
        serde_json::json!({
            "recipes": self.recipes.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "jobs": jobs,
            "baked": self.count(JobStatus::Baked),
            "skipped": self.count(JobStatus::Skipped),
            "restored": self.count(JobStatus::Restored),
            "stale": self.count(JobStatus::Stale),
            "failed": self.count(JobStatus::Failed),
        })
    }

    fn reports(&self) -> impl Iterator<Item = &JobReport> {
        self.jobs.iter().filter_map(|j| j.result.as_ref().ok())
    }
}

/// A path as a Makefile names it: spaces, `#`, `:` and `\` escaped with a
/// backslash, `$` doubled; a control character is refused.
fn make_escape(p: &Path) -> Result<String> {
    let text = p.display().to_string();
    if text.chars().any(char::is_control) {
        return Err(Error::Other(format!(
            "{}: a control character in the name; a depfile cannot name it",
            text.escape_debug()
        )));
    }
    let mut out = String::new();
    for c in text.chars() {
        match c {
            ' ' | '#' | ':' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '$' => out.push_str("$$"),
            _ => out.push(c),
        }
    }
    Ok(out)
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

/// Bakes every job and map of `recipes` (or those `options.only` names, of
/// `options.shard`): as many at once as there are threads, each job's
/// images in parallel on the same threads, while their images fit in the
/// memory limit together ([`BakeOptions::memory_limit`]); the report and
/// [`Progress::job_finished`] come in recipe order. A job
/// whose inputs and files are unchanged since the last bake is skipped
/// (unless `options.force`). A failed job is reported in its
/// [`JobOutcome`] and the others still run; only an unusable option (an
/// `only` name no job has, a thread pool that cannot start) or two jobs
/// that would write one file fail the whole bake, before anything is baked.
pub fn bake(
    recipes: &[Recipe],
    options: &BakeOptions,
    progress: &dyn Progress,
) -> Result<BakeReport> {
    bake_into(recipes, options, progress, &|root| options.mode.sink(root))
}

/// A sink for the files of a job writing below a root.
pub(crate) type Sinks<'a> = dyn Fn(&Root) -> Box<dyn Sink> + Sync + 'a;

/// [`bake`], each job's files handed to a sink `sinks` makes for its
/// folder.
pub(crate) fn bake_into(
    recipes: &[Recipe],
    options: &BakeOptions,
    progress: &dyn Progress,
    sinks: &Sinks,
) -> Result<BakeReport> {
    crate::env::check()?;
    let every_job: Vec<Job> = recipes.iter().flat_map(|r| r.jobs()).collect();
    let jobs = &every_job;
    let maps: Vec<MapJob> = recipes.iter().flat_map(|r| r.maps()).collect();
    for name in &options.only {
        if !jobs.iter().any(|j| &j.name == name) && !maps.iter().any(|m| &m.name == name) {
            return Err(Error::Usage(format!(
                "--only {name}: no job of that name in the recipe(s)"
            )));
        }
    }
    super::claims::check(jobs, &maps)?;
    let wanted = |name: &str| options.only.is_empty() || options.only.iter().any(|n| n == name);
    let jobs: Vec<&Job> = jobs.iter().filter(|j| wanted(&j.name)).collect();
    let maps: Vec<&MapJob> = maps.iter().filter(|m| wanted(&m.name)).collect();
    let (jobs, maps) = match options.shard {
        Some(shard) => super::shard::select(&jobs, &maps, shard)?,
        None => (jobs, maps),
    };
    let cache = options.cache.as_ref().map(Cache::new);
    let pool = match options.threads {
        None => None,
        Some(n) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| Error::Other(format!("cannot start {n} worker threads: {e}")))?,
        ),
    };
    let work: Vec<Work> = jobs
        .iter()
        .map(|j| Work::Job(j))
        .chain(maps.iter().map(|m| Work::Map(m)))
        .collect();
    // Framing groups' cameras, fitted over every job of the group (also
    // those --only or the shard leave out, so sizes stay relative whatever
    // is baked) before any job runs: jobs run side by side, and a group's
    // fitting loads every member.
    let fit_groups = || -> BTreeMap<String, std::result::Result<Vec<Camera>, String>> {
        let mut names: Vec<&str> = jobs
            .iter()
            .filter_map(|j| j.framing_group.as_ref().map(|g| g.name.as_str()))
            .collect();
        names.sort_unstable();
        names.dedup();
        use rayon::prelude::*;
        names
            .par_iter()
            .map(|&g| {
                let cameras = group_cameras(g, &every_job, &options.sources);
                (g.to_string(), cameras)
            })
            .collect()
    };
    let groups = match &pool {
        Some(p) => p.install(fit_groups),
        None => fit_groups(),
    };
    let budget = Budget::new(options.memory_limit.unwrap_or(DEFAULT_MEMORY_LIMIT));
    // What each job can write, for prune to keep other jobs' files.
    let owners: Vec<(&str, &Path, Owned)> = every_job
        .iter()
        .map(|j| (j.name.as_str(), j.output.dir.as_path(), Owned::of_job(j)))
        .collect();
    let task = |i: usize| {
        let cameras = match work[i] {
            Work::Job(j) => j
                .framing_group
                .as_ref()
                .and_then(|g| groups.get(&g.name).cloned()),
            Work::Map(_) => None,
        };
        let env = Env {
            options,
            cache: cache.as_ref(),
            progress,
            sinks,
            owners: &owners,
            budget: &budget,
        };
        one(&env, work[i], cameras)
    };
    let mut report = BakeReport {
        jobs: Vec::with_capacity(work.len()),
        recipes: recipes.iter().map(|r| r.path().to_path_buf()).collect(),
    };
    let place = match &pool {
        Some(p) => Pool::Own(p),
        None => Pool::Global,
    };
    run_in_order(place, work.len(), &task, &mut |outcome: JobOutcome| {
        progress.job_finished(&outcome);
        report.jobs.push(outcome);
    });
    Ok(report)
}

/// A job or a map, as the bake loop handles both.
#[derive(Clone, Copy)]
enum Work<'a> {
    Job(&'a Job),
    Map(&'a MapJob),
}

impl Work<'_> {
    fn name(&self) -> &str {
        match self {
            Work::Job(j) => &j.name,
            Work::Map(m) => &m.name,
        }
    }

    fn recipe(&self) -> &Path {
        match self {
            Work::Job(j) => &j.recipe,
            Work::Map(m) => &m.recipe,
        }
    }

    fn dir(&self) -> &Path {
        match self {
            Work::Job(j) => &j.output.dir,
            Work::Map(m) => &m.dir,
        }
    }

    /// The key under which its state is kept in its folder.
    fn id(&self) -> String {
        match self {
            Work::Job(j) => format!("job:{}", j.name),
            Work::Map(m) => format!("map:{}", m.name),
        }
    }
}

/// What every job of a bake shares.
struct Env<'a> {
    options: &'a BakeOptions,
    cache: Option<&'a Cache>,
    progress: &'a dyn Progress,
    sinks: &'a Sinks<'a>,
    /// Every job of the bake: its name, folder and what it can write.
    owners: &'a [(&'a str, &'a Path, Owned)],
    budget: &'a Budget,
}

/// Plans, then skips, restores or bakes one job or map; defers it when its
/// images do not fit in the memory the jobs rendering beside it left.
fn one(
    env: &Env,
    work: Work,
    group: Option<std::result::Result<Vec<Camera>, String>>,
) -> Attempt<JobOutcome> {
    let Env {
        options,
        cache,
        progress,
        sinks,
        owners,
        budget,
    } = *env;
    let started = std::time::Instant::now();
    let limit = options.memory_limit.unwrap_or(DEFAULT_MEMORY_LIMIT);
    let root = Root::new(work.dir());
    let sink = sinks(&root);
    let mut status = JobStatus::Baked;
    let mut key = None;
    let tick = || progress.image_done();
    let mut deferred = false;
    let mut notes = Vec::new();
    let result = (|| -> Result<JobReport> {
        let cameras = group.transpose().map_err(Error::Other)?;
        let planned = match work {
            Work::Job(j) => Planned::Job(Box::new(plan_job_within(j, &options.sources, limit)?)),
            Work::Map(m) => Planned::Map(Box::new(plan_map_within(m, &options.sources, limit)?)),
        };
        let base = work.recipe().parent().unwrap_or(Path::new(""));
        let reads: Vec<(PathBuf, String)> = planned
            .reads()
            .iter()
            .map(|(p, d)| (state::from_recipe(base, p), d.clone()))
            .collect();
        let mut description = describe(work);
        // A framing group's cameras depend on the other jobs of the group:
        // they are part of what this job's images are made from.
        if let Some(c) = &cameras {
            description.push_str(&format!("\ncameras: {c:?}"));
        }
        let k = state::job_key(&state::unlocated(&description, base), &reads);
        key = Some(k.clone());
        let dir = work.dir();
        let id = work.id();
        let mode = options.mode;
        let owned = match work {
            Work::Job(j) => Owned::of_job(j),
            Work::Map(m) => Owned::of_map(m),
        };
        let earlier = state::load(&root, &id);
        let ending = Ending {
            root: &root,
            id: &id,
            key: &k,
            earlier: earlier.as_ref(),
            pruning: options.prune || matches!(work, Work::Job(j) if j.output.prune),
            save: mode == OutputMode::Write,
            others: owners,
            me: matches!(work, Work::Job(_)).then(|| work.name()),
        };
        if mode != OutputMode::Verify && !options.force {
            if let Some(st) = &earlier {
                if st.key == k && state::outputs_intact(&root, st, &|rel| owned.contains(rel)) {
                    status = JobStatus::Skipped;
                    let report = planned.report_without_rendering(work, dir, &st.outputs);
                    ending.finish(st.outputs.clone(), sink.as_ref(), &mut notes)?;
                    return Ok(report);
                }
            }
        }
        if mode == OutputMode::Check {
            status = JobStatus::Stale;
            return Ok(planned.report_without_rendering(work, dir, &[]));
        }
        if let (Some(c), OutputMode::Write, false) = (cache, mode, options.force) {
            if let Some(outputs) = restore(c, &k, &root, &owned, sink.as_ref(), &mut notes)? {
                status = JobStatus::Restored;
                let report = planned.report_without_rendering(work, dir, &outputs);
                ending.finish(outputs, sink.as_ref(), &mut notes)?;
                return Ok(report);
            }
        }
        let need = match (&planned, work) {
            (Planned::Job(plan), Work::Job(j)) => plan.check_memory(j, limit)?,
            (Planned::Map(plan), _) => plan.check_memory(limit)?,
            _ => 0,
        };
        // Held until the job's files are written; without room beside the
        // jobs rendering now, nothing has been written yet and the whole
        // attempt is dropped (the report returned here is never used).
        let Some(_held) = budget.try_take(need) else {
            deferred = true;
            return Ok(planned.report_without_rendering(work, dir, &[]));
        };
        let keep = (mode == OutputMode::Write).then_some(cache).flatten();
        let recorder = Recorder::new(sink.as_ref(), dir, keep);
        progress.job_started(work.name(), planned.images());
        let report = match (&planned, work) {
            (Planned::Job(plan), Work::Job(j)) => {
                run_framed(j, plan, cameras.as_deref(), &tick, &recorder)?
            }
            (Planned::Map(plan), Work::Map(m)) => run_map(m, plan, &tick, &recorder)?,
            _ => unreachable!("a job's plan runs as a job, a map's as a map"),
        };
        // The state names the job's files: they are written first.
        sink.settle()?;
        let outputs = recorder.outputs();
        if let (Some(c), OutputMode::Write) = (cache, mode) {
            c.store(&k, &outputs)?;
        }
        ending.finish(outputs, sink.as_ref(), &mut notes)?;
        Ok(report)
    })();
    // Whatever happened, the files handed over are written before the job
    // is reported; a file that failed is the job's first error.
    let result = match (sink.settle(), result) {
        (Err(e), _) | (Ok(()), Err(e)) => Err(e),
        (Ok(()), Ok(mut report)) => {
            report.warnings.extend(notes);
            Ok(report)
        }
    };
    if deferred {
        return Attempt::Deferred;
    }
    if result.is_err() {
        status = JobStatus::Failed;
    }
    Attempt::Done(JobOutcome {
        name: work.name().to_string(),
        kind: match work {
            Work::Job(_) => JobKind::Job,
            Work::Map(_) => JobKind::Map,
        },
        dir: crate::paths::normalize(work.dir()),
        result,
        records: sink.records(),
        status,
        key,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// A job's or a map's plan.
enum Planned {
    Job(Box<JobPlan>),
    Map(Box<MapPlan>),
}

impl Planned {
    fn reads(&self) -> &[(PathBuf, String)] {
        match self {
            Planned::Job(p) => &p.reads,
            Planned::Map(p) => &p.reads,
        }
    }

    fn images(&self) -> usize {
        match self {
            Planned::Job(p) => p.images(),
            Planned::Map(p) => p.images(),
        }
    }

    /// The report of a job that was not rendered: the files it has (from
    /// its state, or none), what planning read and warned about.
    fn report_without_rendering(
        &self,
        work: Work,
        dir: &Path,
        outputs: &[state::OutputState],
    ) -> JobReport {
        let warnings = match self {
            Planned::Job(p) => super::run::plan_warnings(p),
            Planned::Map(p) => p.scene.notes(),
        };
        JobReport {
            name: work.name().to_string(),
            images: 0,
            files: outputs.iter().map(|o| dir.join(&o.path)).collect(),
            warnings,
            inputs: self.reads().iter().map(|(p, _)| p.clone()).collect(),
        }
    }
}

/// A job as resolved, without where it sits in its recipe, so moving it
/// (or editing its neighbours) does not make it stale.
fn describe(work: Work) -> String {
    match work {
        Work::Job(j) => {
            let mut j = j.clone();
            j.recipe = PathBuf::new();
            j.line = 0;
            for c in &mut j.clips {
                c.line = 0;
            }
            j.output.sites.clear();
            let mut text = format!("{j:?}");
            // Likewise a job at the default PNG compression.
            if j.png == crate::output::PngCompression::Default {
                text = text.replacen(", png: Default", "", 1);
            }
            // A job without looks keeps the key it had before looks existed,
            // so upgrading kiln does not rebake it (`look` is the last field).
            if j.look.is_off() {
                if let Some(cut) = text.rfind(", look: Look {") {
                    text.truncate(cut);
                    text.push_str(" }");
                }
            }
            text
        }
        Work::Map(m) => {
            let mut m = m.clone();
            m.recipe = PathBuf::new();
            m.line = 0;
            for v in &mut m.views {
                v.line = 0;
                v.column = 0;
            }
            format!("{m:?}")
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
