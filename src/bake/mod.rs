//! Recipes, planning, the parallel bake, sheets and outputs.
//!
//! A bake goes: [`Recipe::load`] → [`Recipe::jobs`] (resolved, validated
//! [`Job`](recipe::Job)s) → per job (as many side by side as the bake has
//! threads, their outcomes reported in recipe order: `schedule.rs`),
//! [`Clip::frame_times`](crate::scene::clip::Clip::frame_times) with the
//! model's duration (looping, or once) → pose every frame, clips drawn in
//! place taken back to their root → frame them (the job alone, or its
//! framing group) → draw `directions × times` frames straight into what
//! keeps them until the outputs are written ([`stream`]: the grid sheet's
//! pages, a packed sheet's trimmed boxes ([`kept`]), or nothing when each
//! frame is encoded as it is drawn) → the outputs, the same as
//! [`write_outputs`] makes from held frames, which lays the frames out in
//! an [`atlas`] (the
//! [`grid`]'s rows and columns, or [`packed`]: trimmed, twins stored once,
//! placed by the [`skyline`] packer on pages), composes the pages from it
//! ([`sheet`]), describes them for each engine ([`meta`]), encodes the
//! per-frame PNGs and one GIF ([`gif`]) and APNG ([`apng`]) per clip ×
//! direction with exact timing ([`timing`]), and hands every file to a
//! [`sink`] (written, dry run or verified); [`prune`] then hands over the
//! files an earlier bake left behind.

pub mod apng;
pub mod atlas;
pub mod batch;
pub mod claims;
pub mod gif;
pub mod grid;
mod incremental;
pub mod kept;
pub mod map_run;
pub mod meta;
mod need;
pub mod outputs;
pub mod packed;
pub mod prune;
pub mod recipe;
pub mod ro_sprite;
pub mod run;
mod schedule;
pub mod shard;
pub mod sheet;
pub mod sink;
pub mod skyline;
pub mod sprite_run;
pub mod state;
pub mod stream;
pub mod timing;

pub use batch::{
    bake, bake_files, BakeOptions, BakeReport, JobKind, JobOutcome, JobStatus, NoProgress,
    OutputMode, Progress, Shard, DEFAULT_MEMORY_LIMIT,
};
pub use outputs::write_outputs;
pub use recipe::{Recipe, RecipeError};
pub use run::JobReport;
pub use sink::{OutputRecord, OutputStatus};
