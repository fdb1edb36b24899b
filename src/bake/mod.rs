//! Recipes, planning, the parallel bake, sheets and outputs.
//!
//! The bake's peers, none importing the orchestration above them:
//!
//! - [`recipe`]: the recipe language — typed, validated jobs with
//!   line:column errors.
//! - [`plan`]: across jobs — shards and the schedule that runs jobs side by
//!   side within the memory budget.
//! - [`sheet`]: where frames go on a sheet (grid or packed), the pages
//!   composed from it and the metadata for each engine.
//! - [`encode`]: GIF, APNG and the client's SPR + ACT, with exact timing.
//! - [`outputs`]: the sink every file is handed to, the job's state and
//!   the shared cache, prune, and the claims check.
//!
//! The orchestration ties them together: [`batch`] (the entry point: every
//! job of the recipes, side by side) → `job.rs` (one job: skip, restore or
//! bake, then prune and save its state) → [`run`] (plan a job: frame times,
//! poses, framing; then draw it) → [`stream`] (draw `directions × times`
//! frames straight into what keeps them until the outputs are written: the
//! grid sheet's pages, a packed sheet's trimmed boxes, or nothing when each
//! frame is encoded as it is drawn) → [`emit`] (the job's files from its
//! frames, in order), with [`map_run`] and [`sprite_run`] for maps and
//! client sprites. [`report`] is what a bake tells its caller.

pub mod batch;
pub mod emit;
pub mod encode;
mod gallery;
mod job;
pub mod map_run;
mod need;
pub mod options;
pub mod outputs;
pub mod plan;
pub mod recipe;
pub mod report;
pub mod run;
pub mod sheet;
pub mod sprite_run;
pub mod stream;

pub use batch::{bake, bake_files};
pub use emit::write_outputs;
pub use options::DEFAULT_MEMORY_LIMIT;
pub use options::{BakeOptions, NoProgress, OutputMode, Progress};
pub use outputs::sink::{OutputRecord, OutputStatus};
pub use plan::shard::Shard;
pub use recipe::{Recipe, RecipeError};
pub use report::{BakeReport, JobKind, JobOutcome, JobReport, JobStatus};
