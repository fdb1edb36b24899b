//! Sheet metadata, one file per format, each a writer over the same
//! [`Atlas`](super::atlas::Atlas) and [`AtlasJob`](super::atlas::AtlasJob):
//! where every frame sits, its source rect, pivot, duration and root
//! motion, and the tags over them. A writer decides only how to spell
//! that; it never lays out frames itself. Each follows the loader of the
//! engine it is for (named in its module docs).
//!
//! Every writer gives the same bytes for the same atlas: fixed key order,
//! frames in sheet order, no timestamps.

pub mod aseprite;
pub mod godot;
pub mod pixi;
pub mod texturepacker;
