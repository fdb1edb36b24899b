//! How a bake runs: its options, what happens to its files, and who is
//! told as it goes.

use crate::bake::outputs::sink::{DryRunSink, FileSink, Sink, VerifySink};
use crate::bake::plan::shard::Shard;
use crate::bake::report::JobOutcome;
use crate::confined::Root;
use crate::source::SourceRef;
use std::path::PathBuf;

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
    /// The output root: every job's `output.dir` and every map's `output`
    /// resolve below this folder instead of the recipe's (which still
    /// anchors the models, textures and data folders it names), and must
    /// stay inside it. A build script passes its `OUT_DIR`. `None` writes
    /// where the recipe says.
    pub out_dir: Option<PathBuf>,
    /// Keep in the report only what its totals read: each job's name,
    /// status, folder, files, inputs and error, not its warnings, its
    /// per-file records ([`JobOutcome::records`]) or its content key.
    /// [`Progress::job_finished`] still gets every outcome whole as its job
    /// ends. For a caller that
    /// prints as jobs end and counts at the end (`kiln bake` without
    /// `--json` or `--dry-run`): a catalogue's thousands of instances then
    /// hold a kilobyte or so less each. A recipe with a gallery, which
    /// shows the warnings, keeps them anyway.
    pub summary_only: bool,
}

pub use crate::memory::DEFAULT_MEMORY_LIMIT;

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
    /// date ([`JobStatus::Skipped`](crate::bake::JobStatus::Skipped)) or not ([`JobStatus::Stale`](crate::bake::JobStatus::Stale)).
    Check,
}

impl OutputMode {
    /// The sink of a job writing below `root`.
    pub(crate) fn sink(self, root: &Root) -> Box<dyn Sink> {
        let root = root.clone();
        match self {
            // Every job settles its sink before relying on its files.
            OutputMode::Write => Box::new(FileSink::in_background(root)),
            OutputMode::Verify => Box::new(VerifySink::for_root(root)),
            OutputMode::DryRun | OutputMode::Check => Box::new(DryRunSink::for_root(root)),
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

/// A sink for the files of a job writing below a root.
pub(crate) type Sinks<'a> = dyn Fn(&Root) -> Box<dyn Sink> + Sync + 'a;
