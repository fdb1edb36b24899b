//! Arma RTM animations: plain `RTM_0101` (with optional `RTM_MDAT`) and
//! binarised `BMTR` v3/v4/v5. Values are kept exactly as stored; the BMTR
//! axis flip and parent chaining belong to lowering, not here.

use glam::{Mat4, Quat, Vec3};
use serde::Serialize;

/// One `RTM_MDAT` / BMTR property: an event at a phase (e.g. `Step`/`Sound`).
#[derive(Debug, Clone, PartialEq)]
pub struct MetaEntry {
    pub phase: f32,
    pub name: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PlainFrame {
    pub phase: f32,
    /// Bone name as written in the frame, and the row-vector 4×3 matrix
    /// `r0 r1 r2 r3` (see [`matrix`]).
    pub transforms: Vec<(String, [f32; 12])>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PlainRtm {
    pub metadata: Vec<MetaEntry>,
    pub step: Vec3,
    pub bones: Vec<String>,
    pub frames: Vec<PlainFrame>,
}

/// One bone's key in a BMTR frame, raw as stored (no axis flip).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneKey {
    /// `(x, y, z, w)` each `i16 / 16384`.
    pub rotation: Quat,
    /// Three IEEE half floats widened to f32.
    pub translation: Vec3,
}

/// How one BMTR array (the times, or one frame) was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ArrayInfo {
    /// Byte offset of the array's `u32 count`.
    pub offset: u64,
    pub count: u32,
    pub lzo: bool,
    /// Bytes the array's data occupied in the file (compressed size if LZO).
    pub stored_bytes: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bmtr {
    pub version: u32,
    /// The byte after the version (1 in every known file; meaning unknown).
    pub flag_byte: u8,
    pub step: Vec3,
    /// The u32 after the frame count (1 in armaio's files; meaning unknown).
    pub unknown: u32,
    pub bones: Vec<String>,
    /// v4+ only; empty for v3.
    pub metadata: Vec<MetaEntry>,
    pub times: Vec<f32>,
    /// `frames[f][b]` is bone `bones[b]` at time `times[f]`.
    pub frames: Vec<Vec<BoneKey>>,
    /// Per array in file order: `[0]` is the times, `[1 + f]` frame `f`.
    pub compressed_arrays: Vec<ArrayInfo>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Rtm {
    Plain(PlainRtm),
    Binarised(Bmtr),
}

/// The column-vector matrix equal to the row-vector 4×3 `m`
/// (`v' = x·r0 + y·r1 + z·r2 + r3`), so `matrix(m).transform_point3(v)` poses `v`.
pub fn matrix(m: &[f32; 12]) -> Mat4 {
    Mat4::from_cols(
        glam::Vec4::new(m[0], m[1], m[2], 0.0),
        glam::Vec4::new(m[3], m[4], m[5], 0.0),
        glam::Vec4::new(m[6], m[7], m[8], 0.0),
        glam::Vec4::new(m[9], m[10], m[11], 1.0),
    )
}
