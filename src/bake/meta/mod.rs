//! Sheet metadata, one file per format, each a writer over the same
//! [`Atlas`](super::atlas::Atlas) and [`AtlasJob`](super::atlas::AtlasJob):
//! where every frame sits, its source rect, pivot and duration, and the tags
//! over them. A writer decides only how to spell that; it never lays out
//! frames itself.
//!
//! Every writer gives the same bytes for the same atlas: fixed key order,
//! frames in sheet order, no timestamps.

pub mod texturepacker;
