//! What a job's earlier bakes left, and what this one leaves: the
//! restore of a job's files from a shared cache, the end of every job
//! that writes — its stale files pruned (or remembered for a later prune)
//! and its state saved — and the modification times of files kept.

use crate::bake::outputs::prune::{judge, stale, Owned};
use crate::bake::outputs::sink::Sink;
use crate::bake::outputs::state::{self, Cache, Cached, JobState, OutputState};
use crate::confined::Root;
use crate::error::Result;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Restores a job's files from `cache`: every file it lists for `key` that
/// is not already in `root` with its bytes is handed to `sink`. `None`
/// when the cache has nothing usable (what was wrong with it is added to
/// `warnings`); nothing is handed over then, and the job is baked instead,
/// which repairs the cache.
pub(crate) fn restore(
    cache: &Cache,
    key: &str,
    root: &Root,
    owned: &Owned,
    sink: &dyn Sink,
    warnings: &mut Vec<String>,
) -> Result<Option<Vec<OutputState>>> {
    let outputs = match cache.lookup(key, &|rel| owned.contains(rel)) {
        Cached::Miss => return Ok(None),
        Cached::Refused(why) => {
            warnings.push(format!("{why}; baked instead"));
            return Ok(None);
        }
        Cached::Hit(outputs) => outputs,
    };
    // Every blob is checked before any file is handed over, so a corrupt
    // one leaves the job to bake whole.
    let mut wanted = Vec::new();
    for o in &outputs {
        if state::intact(root, o) {
            continue;
        }
        if cache.read(o)?.is_none() {
            warnings.push(format!(
                "{}: missing, or not the bytes its name says (removed); baked instead",
                cache.blob_path(o).display()
            ));
            return Ok(None);
        }
        wanted.push(o);
    }
    for o in wanted {
        // Read again: checked above, and not held in memory all at once.
        let Some(bytes) = cache.read(o)? else {
            warnings.push(format!(
                "{}: changed while restored (removed); baked instead",
                cache.blob_path(o).display()
            ));
            return Ok(None);
        };
        sink.write(&root.path_of(&o.path), &bytes)?;
    }
    sink.settle()?;
    Ok(Some(outputs))
}

/// How a job that wrote (or kept) its files ends.
pub(crate) struct Ending<'a> {
    /// The job's folder.
    pub root: &'a Root,
    /// Its key in the folder's state.
    pub id: &'a str,
    /// Its content key.
    pub key: &'a str,
    /// What the last bake recorded.
    pub earlier: Option<&'a JobState>,
    /// Remove stale files now (`--prune`, `output.prune`).
    pub pruning: bool,
    /// Save the state (a real bake; not a dry run or a comparison).
    pub save: bool,
    /// Every job of the bake: its name, folder and the names it writes.
    pub others: &'a [(String, std::path::PathBuf, Owned)],
    /// This job's name among them (`None` for a map).
    pub me: Option<&'a str>,
}

impl Ending<'_> {
    /// Hands the stale files to `sink` for removal when pruning, then
    /// records `written` (and the stale files not removed) as the job's
    /// state. Warnings go to `warnings`.
    pub fn finish(
        &self,
        written: Vec<OutputState>,
        sink: &dyn Sink,
        warnings: &mut Vec<String>,
    ) -> Result<()> {
        let leftover = match self.earlier {
            Some(e) => stale(e, &written, self.root.dir(), self.others, self.me),
            None => Vec::new(),
        };
        let verdicts = judge(self.root, leftover, self.pruning);
        warnings.extend(verdicts.warnings);
        for o in &verdicts.remove {
            sink.remove(&self.root.path_of(&o.path))?;
        }
        sink.settle()?;
        let now = JobState {
            key: self.key.to_string(),
            outputs: written,
            left: verdicts.keep,
        };
        // A job found up to date touches nothing, its state included.
        if self.save && self.earlier != Some(&now) {
            state::save(self.root, self.id, now)?;
        }
        Ok(())
    }
}

/// The newest modification time among `inputs` that are files on disk
/// (an entry inside an archive is passed over; the archive is an input
/// too).
pub(crate) fn newest_time(inputs: &[PathBuf]) -> Option<SystemTime> {
    inputs
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .filter(|m| m.is_file())
        .filter_map(|m| m.modified().ok())
        .max()
}

/// Makes each of `files` (below a job's folder `dir`) modified now when it
/// is older than `newest`, without touching its bytes (`docs/builds.md`,
/// "make"). What could not be refreshed is a warning: the file is right,
/// only its time is old.
pub(crate) fn refresh_times(
    dir: &Path,
    files: &[PathBuf],
    newest: SystemTime,
    warnings: &mut Vec<String>,
) {
    let root = Root::new(dir);
    for f in files {
        let done = root.name_of(f).and_then(|rel| root.refresh(&rel, newest));
        if let Err(e) = done {
            warnings.push(format!(
                "{e}; its modification time stays older than the bake's inputs"
            ));
        }
    }
}
