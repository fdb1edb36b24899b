//! Recipes, planning, the parallel bake, sheets and outputs.
//!
//! A bake goes: [`Recipe::load`] → [`Recipe::jobs`] (resolved, validated
//! [`Job`](recipe::Job)s) → per job,
//! [`Clip::frame_times`](crate::scene::clip::Clip::frame_times) with the
//! model's duration → render `directions × times` frames →
//! [`write_outputs`], which lays the frames out in an [`atlas`] (the
//! [`grid`]'s rows and columns), composes the sheet from it
//! ([`sheet`]), describes it in JSON ([`meta`]), encodes the per-frame PNGs
//! and one GIF per direction ([`gif`]), and hands every file to a [`sink`]
//! (written, dry run or verified).

pub mod atlas;
pub mod batch;
pub mod claims;
pub mod gif;
pub mod grid;
pub mod map_run;
pub mod meta;
pub mod outputs;
pub mod recipe;
pub mod ro_sprite;
pub mod run;
pub mod shard;
pub mod sheet;
pub mod sink;
pub mod sprite_run;
pub mod state;

pub use batch::{
    bake, bake_files, BakeOptions, BakeReport, JobKind, JobOutcome, JobStatus, NoProgress,
    OutputMode, Progress, Shard,
};
pub use outputs::write_outputs;
pub use recipe::{Recipe, RecipeError};
pub use run::JobReport;
pub use sink::{OutputRecord, OutputStatus};
