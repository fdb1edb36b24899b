//! The bake entry point: recipes in, files out, one report back. The
//! command line and a `build.rs` call the same [`bake`].

use crate::bake::job::{one, Env, Work};
use crate::bake::options::{BakeOptions, OutputMode, Progress, Sinks, DEFAULT_MEMORY_LIMIT};
use crate::bake::outputs::claims::Claims;
use crate::bake::outputs::incremental::{newest_time, refresh_times};
use crate::bake::outputs::prune::Owned;
use crate::bake::outputs::state::Cache;
use crate::bake::plan::schedule::{run_in_order, Attempt, Budget, Pool};
use crate::bake::plan::shard::map_cost;
use crate::bake::recipe::{MapJob, Recipe};
use crate::bake::report::{BakeReport, Interned, JobOutcome, JobStatus, Spent};
use crate::bake::run::{framing_points, plan_job};
use crate::error::{Error, Result};
use crate::raster::Camera;
use crate::source::SourceRef;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

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

/// Whether `--only only` picks the job named `name`: by its name, or, for
/// the instances of a catalogue job (`<job>/<path>`), by the job's name or
/// any folder of the path.
fn picks(only: &str, name: &str) -> bool {
    name == only
        || name
            .strip_prefix(only)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// A job of a bake: its recipe and its place there.
#[derive(Clone, Copy)]
struct JobAt {
    recipe: usize,
    k: usize,
}

/// What a bake's task runs: a job, resolved when it starts, or a map.
#[derive(Clone, Copy)]
enum Item<'a> {
    Job(JobAt),
    Map(&'a MapJob),
}

/// [`bake`], each job's files handed to a sink `sinks` makes for its
/// folder.
pub(crate) fn bake_into(
    recipes: &[Recipe],
    options: &BakeOptions,
    progress: &dyn Progress,
    sinks: &Sinks,
) -> Result<BakeReport> {
    crate::env::check()?;
    let started = SystemTime::now();
    // A recipe already below the root (the command line loads it so) is
    // used as it is: a catalogue's jobs are held once.
    let recipes: Vec<std::borrow::Cow<Recipe>> = recipes
        .iter()
        .map(|r| match &options.out_dir {
            Some(root) if r.out_dir() != Some(root.as_path()) => r
                .below(root)
                .map(std::borrow::Cow::Owned)
                .map_err(Error::from),
            _ => Ok(std::borrow::Cow::Borrowed(r)),
        })
        .collect::<Result<_>>()?;
    let all: Vec<JobAt> = recipes
        .iter()
        .enumerate()
        .flat_map(|(r, rec)| (0..rec.job_count()).map(move |k| JobAt { recipe: r, k }))
        .collect();
    let name_of = |a: &JobAt| recipes[a.recipe].job_name(a.k);
    let maps: Vec<&MapJob> = recipes.iter().flat_map(|r| r.map_list()).collect();
    for name in &options.only {
        if !all.iter().any(|a| picks(name, &name_of(a))) && !maps.iter().any(|m| &m.name == name) {
            return Err(Error::Usage(format!(
                "--only {name}: no job of that name in the recipe(s)"
            )));
        }
    }
    let wanted =
        |name: &str| options.only.is_empty() || options.only.iter().any(|n| picks(n, name));
    let maps: Vec<&MapJob> = maps
        .into_iter()
        .filter(|m| options.only.is_empty() || options.only.contains(&m.name))
        .collect();
    let Survey {
        jobs,
        costs,
        group_of,
        members,
        owners,
    } = survey(&recipes, &all, &maps, &wanted)?;
    let (picked, maps): (Vec<usize>, Vec<&MapJob>) = match options.shard {
        Some(shard) => {
            let map_costs: Vec<f64> = maps.iter().map(|m| map_cost(m)).collect();
            let (j, m) = crate::bake::plan::shard::select(&costs, &map_costs, shard)?;
            (j, m.into_iter().map(|i| maps[i]).collect())
        }
        None => ((0..jobs.len()).collect(), maps),
    };
    // The groups of the jobs this bake runs.
    let mut used: Vec<&str> = picked
        .iter()
        .filter_map(|&i| group_of[i].as_deref())
        .collect();
    used.sort_unstable();
    used.dedup();
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
    let work: Vec<Item> = picked
        .iter()
        .map(|&i| Item::Job(jobs[i]))
        .chain(maps.iter().map(|m| Item::Map(m)))
        .collect();
    // Framing groups' cameras, fitted over every job of the group (also
    // those --only or the shard leave out, so sizes stay relative whatever
    // is baked) before any job runs: jobs run side by side, and a group's
    // fitting loads every member.
    let fit_groups = || -> BTreeMap<String, std::result::Result<Vec<Camera>, String>> {
        use rayon::prelude::*;
        used.par_iter()
            .map(|&g| {
                let cameras = group_cameras(g, &recipes, &members[g], &options.sources);
                (g.to_string(), cameras)
            })
            .collect()
    };
    let groups = match &pool {
        Some(p) => p.install(fit_groups),
        None => fit_groups(),
    };
    let budget = Budget::new(options.memory_limit.unwrap_or(DEFAULT_MEMORY_LIMIT));
    // The originals of relocated outcomes, dropped by the next task to
    // start, on a worker (`JobOutcome::relocated`).
    let spent: Mutex<Vec<Spent>> = Mutex::new(Vec::new());
    let task = |i: usize| {
        drop(std::mem::take(
            &mut *spent.lock().unwrap_or_else(|e| e.into_inner()),
        ));
        let env = Env {
            options,
            cache: cache.as_ref(),
            progress,
            sinks,
            owners: &owners,
            budget: &budget,
        };
        match work[i] {
            // A catalogue instance is resolved here, on the worker that
            // bakes it, and dropped when its bake ends.
            Item::Job(a) => match recipes[a.recipe].job(a.k) {
                Ok(j) => {
                    let cameras = j
                        .framing_group
                        .as_ref()
                        .and_then(|g| groups.get(&g.name).cloned());
                    one(&env, Work::Job(&j), cameras)
                }
                Err(e) => Attempt::Done(JobOutcome::unresolved(
                    name_of(&a).into_owned(),
                    recipes[a.recipe].path(),
                    Error::from(e),
                )),
            },
            Item::Map(m) => one(&env, Work::Map(m), None),
        }
    };
    let mut report = BakeReport {
        jobs: Vec::with_capacity(work.len()),
        recipes: recipes.iter().map(|r| r.path().to_path_buf()).collect(),
        dry_run: options.mode == OutputMode::DryRun,
    };
    let place = match &pool {
        Some(p) => Pool::Own(p),
        None => Pool::Global,
    };
    let mut interned = Interned::default();
    let summary = options.summary_only && recipes.iter().all(|r| r.gallery().is_none());
    run_in_order(place, work.len(), &task, &mut |outcome: JobOutcome| {
        progress.job_finished(&outcome);
        let (kept, originals) = outcome.relocated(&mut interned, summary);
        report.jobs.push(kept);
        spent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(originals);
    });
    if options.mode == OutputMode::Write {
        keep_newer_than_inputs(&mut report, started);
        // A gallery shows every job of its recipe: a bake of some of them
        // (--only, one shard) would write a page missing the others, so
        // only a whole bake writes it (after shards, a no-op bake does).
        if options.only.is_empty() && options.shard.is_none() {
            let recipes: Vec<&Recipe> = recipes.iter().map(|r| r.as_ref()).collect();
            crate::bake::gallery::write_galleries(&recipes, &report)?;
        }
    }
    Ok(report)
}

/// What the bake needs to know of every job before any runs.
struct Survey {
    /// The jobs `--only` wants, in order.
    jobs: Vec<JobAt>,
    /// Each wanted job's estimated cost, for the shard.
    costs: Vec<f64>,
    /// Each wanted job's framing group, if it has one.
    group_of: Vec<Option<String>>,
    /// Every framing group's members, wanted or not.
    members: BTreeMap<String, Vec<JobAt>>,
    /// For prune: what the jobs that share a folder tree can write.
    owners: Vec<(String, PathBuf, Owned)>,
}

/// Walks every job — each catalogue instance resolved and dropped in turn
/// — once for the output claims of every job and map (also those --only
/// or the shard leave out), whose index goes before the next walk starts,
/// so the two never take memory together; then for the rest of
/// [`Survey`]. An instance that no longer resolves claims and owns nothing
/// and fails when its turn comes. (`clips: all` reads each model to
/// resolve it: such a catalogue reads its models in both walks.)
fn survey(
    recipes: &[std::borrow::Cow<Recipe>],
    all: &[JobAt],
    maps: &[&MapJob],
    wanted: &dyn Fn(&str) -> bool,
) -> Result<Survey> {
    let job = |a: &JobAt| recipes[a.recipe].job(a.k);
    {
        let mut claims = Claims::default();
        for j in all.iter().filter_map(|a| job(a).ok()) {
            claims.job(&j)?;
        }
        for m in maps {
            claims.map(m)?;
        }
    }
    let mut s = Survey {
        jobs: Vec::new(),
        costs: Vec::new(),
        group_of: Vec::new(),
        members: BTreeMap::new(),
        owners: Vec::new(),
    };
    let mut dirs: Vec<Option<PathBuf>> = Vec::with_capacity(all.len());
    for a in all {
        let j = job(a).ok();
        let group = j.as_ref().and_then(|j| j.framing_group.as_ref());
        dirs.push(j.as_ref().map(|j| crate::paths::normalize(&j.output.dir)));
        if let Some(g) = group {
            s.members.entry(g.name.clone()).or_default().push(*a);
        }
        let name = match &j {
            Some(j) => std::borrow::Cow::Borrowed(j.name.as_str()),
            None => recipes[a.recipe].job_name(a.k),
        };
        if wanted(&name) {
            s.jobs.push(*a);
            s.costs.push(
                j.as_ref()
                    .map_or(0.0, |j| crate::bake::plan::shard::job_cost(j)),
            );
            s.group_of.push(group.map(|g| g.name.clone()));
        }
    }
    let shared = shared_folders(&dirs);
    drop(dirs);
    for (a, _) in all.iter().zip(&shared).filter(|(_, s)| **s) {
        if let Ok(j) = job(a) {
            s.owners
                .push((j.name.clone(), j.output.dir.clone(), Owned::of_job(&j)));
        }
    }
    Ok(s)
}

/// Which of the jobs' folders (`None`: a job that no longer resolves) is,
/// holds or lies in another job's folder: prune asks who else can write a
/// file in a job's folder, and only those can. A catalogue's instances,
/// each in its own folder, need no entry (thousands of them would take
/// megabytes).
fn shared_folders(dirs: &[Option<PathBuf>]) -> Vec<bool> {
    use std::collections::{HashMap, HashSet};
    let mut count: HashMap<&Path, usize> = HashMap::new();
    for d in dirs.iter().flatten() {
        *count.entry(d.as_path()).or_default() += 1;
    }
    let mut shared: HashSet<&Path> = HashSet::new();
    for d in dirs.iter().flatten() {
        if count[d.as_path()] > 1 {
            shared.insert(d);
        }
        for above in d.ancestors().skip(1) {
            if let Some((&a, _)) = count.get_key_value(above) {
                shared.insert(d);
                shared.insert(a);
            }
        }
    }
    dirs.iter()
        .map(|d| d.as_deref().is_some_and(|d| shared.contains(d)))
        .collect()
}

/// Makes every file a job kept — skipped, or restored over bytes already
/// there — at least as new as the newest file the whole bake read, when
/// that input is newer than it: an input touched without a change leaves
/// its jobs skipped, and make, which compares times, would run the bake on
/// every build after it. Against the whole bake's inputs, not the job's
/// own: make's grouped rule over all of a recipe's outputs, like ninja's
/// one edge, compares every target with every prerequisite of the group.
/// A bake where no input moved changes no time. An input modified after
/// the bake began may not be what it read: then nothing is refreshed, and
/// the next build bakes again.
fn keep_newer_than_inputs(report: &mut BakeReport, started: SystemTime) {
    let Some(newest) = newest_time(&report.inputs()) else {
        return;
    };
    if newest > started {
        return;
    }
    for j in &mut report.jobs {
        if !matches!(j.status, JobStatus::Skipped | JobStatus::Restored) {
            continue;
        }
        if let Ok(r) = &mut j.result {
            refresh_times(&j.dir, &r.files, newest, &mut r.warnings);
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
    recipes: &[std::borrow::Cow<Recipe>],
    members: &[JobAt],
    sources: &[SourceRef],
) -> std::result::Result<Vec<Camera>, String> {
    let mut points = Vec::new();
    let mut view = None;
    for a in members {
        let m = recipes[a.recipe]
            .job(a.k)
            .map_err(|e| format!("framing group `{group}`: {e}"))?;
        let plan = plan_job(&m, sources)
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
