//! What a bake tells its caller: per job its status, files, inputs and
//! warnings ([`JobReport`], [`JobOutcome`]), the whole bake's
//! [`BakeReport`] with its depfile and JSON forms.

use crate::bake::outputs::sink::{OutputRecord, OutputStatus};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// for `cargo:rerun-if-changed` lines and dependency files. Shared:
    /// the jobs of a bake read many of the same files (the recipe, an
    /// archive's textures), and the report holds each path once.
    pub inputs: Vec<Arc<Path>>,
}

/// The `version` of [`BakeReport::to_json`]'s summary.
pub const JSON_VERSION: u32 = 1;

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

/// Whether an outcome is a sprite job or a map preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// An entry of a recipe's `jobs:`.
    Job,
    /// An entry of a recipe's `maps:`.
    Map,
}

/// What [`JobOutcome::relocated`] copied: the originals, dropped by a worker
/// so that their blocks go back to the worker's own cache.
pub(crate) struct Spent {
    _parts: (
        String,
        PathBuf,
        Option<JobReport>,
        Vec<OutputRecord>,
        Option<String>,
    ),
}

/// The input paths a bake's report holds, each once.
#[derive(Default)]
pub(crate) struct Interned {
    paths: std::collections::HashSet<Arc<Path>>,
}

impl Interned {
    /// The held copy of `path`, made (on the calling thread) the first
    /// time it is asked for.
    fn get(&mut self, path: &Path) -> Arc<Path> {
        if let Some(p) = self.paths.get(path) {
            return p.clone();
        }
        let p: Arc<Path> = Arc::from(path);
        self.paths.insert(p.clone());
        p
    }
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
    /// The files its records mark `status` (removed, or would be), each
    /// once, in order.
    fn removals(&self, status: OutputStatus) -> Vec<&PathBuf> {
        let mut out: Vec<&PathBuf> = Vec::new();
        for r in self.records.iter().filter(|r| r.outcome == status) {
            if !out.contains(&&r.path) {
                out.push(&r.path);
            }
        }
        out
    }

    /// The outcome with every part it owns copied into memory allocated by
    /// the calling thread (without warnings, records and key for a
    /// `summary`), and the originals, to be dropped on the thread that
    /// made them.
    ///
    /// A job's outcome is made on the worker that ran it, among the frame
    /// buffers, sheets and encoders of that job; kept there until the bake
    /// ends, its small strings would pin the worker's memory, which the
    /// allocator could then neither reuse whole for the next job's large
    /// buffers nor give back (glibc's per-thread arenas: peak memory grew
    /// with the number of jobs baked). The bake keeps this copy instead,
    /// made on the coordinating thread. The originals must not be freed
    /// there either: glibc's per-thread cache takes small blocks freed by a
    /// thread whatever arena they came from and hands them to that
    /// thread's next allocations, so the coordinator's copies of later
    /// outcomes would land in the worker's arena again.
    pub(crate) fn relocated(self, paths: &mut Interned, summary: bool) -> (JobOutcome, Spent) {
        // A clone allocates on the thread that makes it; a shared input is
        // taken from the paths the bake already holds.
        let (result, report) = match self.result {
            Ok(r) => {
                let kept = JobReport {
                    name: r.name.clone(),
                    images: r.images,
                    files: r.files.clone(),
                    warnings: match summary {
                        true => Vec::new(),
                        false => r.warnings.clone(),
                    },
                    inputs: r.inputs.iter().map(|p| paths.get(p)).collect(),
                };
                (Ok(kept), Some(r))
            }
            Err(e) => (Err(e), None),
        };
        let copy = JobOutcome {
            name: self.name.clone(),
            kind: self.kind,
            dir: self.dir.clone(),
            result,
            records: match summary {
                true => Vec::new(),
                false => self.records.clone(),
            },
            status: self.status,
            key: match summary {
                true => None,
                false => self.key.clone(),
            },
            seconds: self.seconds,
        };
        let spent = Spent {
            _parts: (self.name, self.dir, report, self.records, self.key),
        };
        (copy, spent)
    }

    /// The outcome of a catalogue instance that could not be resolved
    /// again when its turn came (`clips: all` over a model changed since
    /// the recipe was read): failed, nothing written.
    pub(crate) fn unresolved(name: String, recipe: &Path, error: Error) -> JobOutcome {
        JobOutcome {
            name,
            kind: JobKind::Job,
            dir: crate::paths::normalize(recipe.parent().unwrap_or(Path::new(""))),
            result: Err(error),
            records: Vec::new(),
            status: JobStatus::Failed,
            key: None,
            seconds: 0.0,
        }
    }

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
    /// A dry run: the files were named, not written.
    pub dry_run: bool,
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

    /// What a dry run prints: per job in order, `would write FILE` for
    /// every file it would write, then `would remove FILE` for every file
    /// a prune (`--prune`, `output.prune`) would remove, the paths as
    /// `--json` gives them.
    pub fn would_write(&self) -> Vec<String> {
        let mut out = Vec::new();
        for j in &self.jobs {
            let Ok(r) = &j.result else { continue };
            for f in &r.files {
                out.push(format!(
                    "would write {}",
                    crate::paths::normalize(f).display()
                ));
            }
            for f in j.removals(OutputStatus::WouldRemove) {
                out.push(format!(
                    "would remove {}",
                    crate::paths::normalize(f).display()
                ));
            }
        }
        out
    }

    /// Every file and folder the bake read — the recipes, models,
    /// textures, animations, configs, maps — sorted and each once: what a
    /// build script prints as `cargo:rerun-if-changed` lines.
    pub fn inputs(&self) -> Vec<PathBuf> {
        let mut all: Vec<PathBuf> = self.recipes.clone();
        for r in self.reports() {
            all.extend(r.inputs.iter().map(|p| p.to_path_buf()));
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
            let tidy = |p: &Path| make_escape(&crate::paths::normalize(p));
            let targets = r
                .files
                .iter()
                .map(|p| tidy(p))
                .collect::<Result<Vec<String>>>()?;
            let mut inputs = r
                .inputs
                .iter()
                .map(|p| tidy(p))
                .collect::<Result<Vec<String>>>()?;
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
                let path = |p: &Path| crate::paths::normalize(p).display().to_string();
                let (files, inputs, warnings, images, error) = match &j.result {
                    Ok(r) => (
                        r.files.iter().map(|p| path(p)).collect(),
                        r.inputs.iter().map(|p| path(p)).collect(),
                        r.warnings.clone(),
                        r.images,
                        None,
                    ),
                    Err(e) => (Vec::new(), Vec::new(), Vec::new(), 0, Some(e.to_string())),
                };
                // Files a prune removed, or in a dry run would remove.
                let mut removals = Vec::new();
                for (status, word) in [
                    (OutputStatus::Removed, "removed"),
                    (OutputStatus::WouldRemove, "would-remove"),
                ] {
                    for f in j.removals(status) {
                        removals.push(serde_json::json!({ "path": path(f), "status": word }));
                    }
                }
                serde_json::json!({
                    "name": j.name,
                    "kind": match j.kind { JobKind::Job => "job", JobKind::Map => "map" },
                    "status": match (j.status, self.dry_run) {
                        (JobStatus::Baked, true) => "would-bake",
                        (status, _) => status.as_str(),
                    },
                    "dir": path(&j.dir),
                    "key": j.key,
                    "images": images,
                    "outputs": files,
                    "removals": removals,
                    "inputs": inputs,
                    "warnings": warnings,
                    "error": error,
                    "seconds": (j.seconds * 1000.0).round() / 1000.0,
                })
            })
            .collect();
        serde_json::json!({
            // The shape of this summary; raised when a field changes meaning
            // or goes (new fields do not raise it).
            "version": JSON_VERSION,
            "dry_run": self.dry_run,
            "recipes": self.recipes.iter().map(|p| crate::paths::normalize(p).display().to_string()).collect::<Vec<_>>(),
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
