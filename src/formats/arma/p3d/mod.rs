//! Arma MLOD P3D models (the editable source format written by Object
//! Builder). These structs mirror the file; splitting quads and lowering to
//! kiln's scene model happen in the lowering (`lower.rs` beside this file).
//!
//! Layout, checked byte for byte with `xxd` on every corpus MLOD (all parse
//! to the exact end and write back identically):
//!
//! ```text
//! "MLOD" u32 version (257) u32 lod_count
//! per LOD:
//!   "P3DM" u32 major (0x1C) u32 minor (0x100)
//!   u32 points u32 normals u32 faces u32 flags
//!   points  {vec3 pos; u32 flags}
//!   normals {vec3}
//!   faces   {u32 sides (3|4); 4 × {u32 point; u32 normal; f32 u; f32 v};
//!            u32 flags; asciiz texture; asciiz material}
//!   "TAGG" then tags {u8 active; asciiz name; u32 length; data}
//!   up to and including "#EndOfFile#" (length 0)
//!   f32 resolution
//! ```
//!
//! A triangle still stores four face vertices; the fourth is whatever the
//! tool left there, kept as is so files round-trip. Positions are Y up and
//! left-handed.
//!
//! Strings (textures, materials, tag names) are decoded as Latin-1 so every
//! byte maps to one `char` and writing gives back the same bytes.

mod parse;
mod summary;
mod types;
mod write;

pub use parse::{parse, parse_file};
pub use summary::{summary, LodSummary, MlodSummary};
pub use types::*;
pub use write::write;

/// The only MLOD container version known (`u32` after `MLOD`).
pub const MLOD_VERSION: u32 = 257;
/// `P3DM` LOD header major version read and written by kiln.
pub const P3DM_MAJOR: u32 = 0x1C;
/// `P3DM` LOD header minor version read and written by kiln.
pub const P3DM_MINOR: u32 = 0x100;

/// Resolutions at or above this value are special LODs (view, shadow,
/// geometry, memory, ...); below it they are visual LODs.
pub const VISUAL_LIMIT: f32 = 1.0e3;

const POINT_SIZE: usize = 16;
const NORMAL_SIZE: usize = 12;
/// sides + 4 face vertices + flags + two empty strings.
const MIN_FACE_SIZE: usize = 4 + 4 * 16 + 4 + 1 + 1;
/// `P3DM` header + `TAGG` + `#EndOfFile#` tag + resolution.
const MIN_LOD_SIZE: usize = 28 + 4 + 1 + 12 + 4 + 4;

/// The tag that ends a LOD's tag list (active, length 0).
pub const END_OF_FILE_TAG: &str = "#EndOfFile#";
/// A key-pose tag: `f32 phase` then one position per point.
pub const ANIMATION_TAG: &str = "#Animation#";
/// A texture-coordinate set tag: `u32 stage`, then `sides` (u, v) per face.
pub const UVSET_TAG: &str = "#UVSet#";
