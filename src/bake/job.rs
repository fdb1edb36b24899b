//! One job of a bake: planned, then skipped when up to date, restored
//! from the cache, or baked; then its stale files pruned and its state
//! saved. A job whose images do not fit beside the jobs rendering now is
//! deferred.

use crate::bake::map_run::{plan_map_within, run_map, MapPlan};
use crate::bake::options::{BakeOptions, OutputMode, Progress, Sinks, DEFAULT_MEMORY_LIMIT};
use crate::bake::outputs::incremental::{restore, Ending};
use crate::bake::outputs::prune::Owned;
use crate::bake::outputs::state::{self, Cache, Recorder};
use crate::bake::plan::schedule::{Attempt, Budget};
use crate::bake::recipe::{Job, MapJob};
use crate::bake::report::{JobKind, JobOutcome, JobReport, JobStatus};
use crate::bake::run::{plan_job_within, run_framed, JobPlan};
use crate::confined::Root;
use crate::error::{Error, Result};
use crate::raster::Camera;
use std::path::{Path, PathBuf};

/// A job or a map, as the bake loop handles both.
#[derive(Clone, Copy)]
pub(super) enum Work<'a> {
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
pub(super) struct Env<'a> {
    pub(super) options: &'a BakeOptions,
    pub(super) cache: Option<&'a Cache>,
    pub(super) progress: &'a dyn Progress,
    pub(super) sinks: &'a Sinks<'a>,
    /// Every job of the bake: its name, folder and what it can write.
    pub(super) owners: &'a [(String, PathBuf, Owned)],
    pub(super) budget: &'a Budget,
}

/// Plans, then skips, restores or bakes one job or map; defers it when its
/// images do not fit in the memory the jobs rendering beside it left.
pub(super) fn one(
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
        // The root first: it may lie inside the recipe's folder.
        if let Some(out) = &options.out_dir {
            description = state::unrooted(&description, out);
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
            Planned::Job(p) => crate::bake::run::plan_warnings(p),
            Planned::Map(p) => p.scene.notes(),
        };
        JobReport {
            name: work.name().to_string(),
            images: 0,
            files: outputs.iter().map(|o| dir.join(&o.path)).collect(),
            warnings,
            inputs: self
                .reads()
                .iter()
                .map(|(p, _)| p.as_path().into())
                .collect(),
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
            j.output.sites = Vec::new().into();
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
