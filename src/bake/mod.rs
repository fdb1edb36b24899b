//! Recipes, planning, the parallel bake, sheets and outputs.
//!
//! A bake goes: [`Recipe::load`] → [`Recipe::jobs`] (resolved, validated
//! [`Job`]s) → per job, [`Clip::frame_times`] with the model's duration →
//! render `directions × times` frames → [`write_outputs`], which composes the
//! sheet ([`sheet`]), writes its JSON ([`meta`]), the per-frame PNGs and one
//! GIF per direction ([`gif`]).

pub mod gif;
pub mod map_run;
pub mod meta;
pub mod outputs;
pub mod recipe;
pub mod run;
pub mod sheet;

pub use crate::camera::{Framing, LightSpace, LightSpec, Projection};
pub use crate::scene::clip::{Clip, FrameTimes, Step};
pub use outputs::write_outputs;
pub use recipe::{
    Direction, GifSpec, Job, MapJob, MapViewCamera, MapViewSpec, Outputs, Recipe, RecipeError,
    Template,
};
pub use sheet::SheetLayout;
