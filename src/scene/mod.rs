//! The one intermediate form every format lowers into, and posing.
//!
//! A [`Model`] is fully resolved: times in seconds, interpolation mode per
//! track, a display matrix that brings the format's axes into kiln's world
//! (right-handed, Y up, ground at y = 0). Posing is one function for all
//! formats.

pub mod animation;
pub mod clip;
pub mod decompose;
pub(crate) mod geometry;
mod model;
pub mod playback;
pub mod pose;
pub mod root_motion;
pub mod skeleton;
mod track;

pub use model::*;
pub use pose::{pose, PosedModel, PosedPrimitive};
pub use track::{Interp, Interpolate, Track};
