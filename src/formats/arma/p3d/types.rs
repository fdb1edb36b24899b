//! The structs that mirror an MLOD file, and the names and weights
//! their fields are read as.

use super::*;
use crate::formats::reader::Reader;
use glam::Vec3;
use std::path::Path;

/// An MLOD P3D model: its LODs in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Mlod {
    /// The LODs in file order (not sorted by resolution).
    pub lods: Vec<Lod>,
}

/// One level of detail (a `P3DM` block).
#[derive(Debug, Clone, PartialEq)]
pub struct Lod {
    /// The LOD's resolution, stored after its tags: below [`VISUAL_LIMIT`] a
    /// visual LOD (lower = more detailed), above a special LOD (see [`lod_name`]).
    pub resolution: f32,
    /// `P3DM` header major version, 0x1C in every known file (others are refused).
    pub version_major: u32,
    /// `P3DM` header minor version, 0x100 in every known file (others are refused).
    pub version_minor: u32,
    /// LOD header flags (0 in the corpus).
    pub flags: u32,
    /// The vertices (Y up, left-handed).
    pub points: Vec<Point>,
    /// Vertex normals that face vertices index.
    pub normals: Vec<Vec3>,
    /// Triangles and quads.
    pub faces: Vec<Face>,
    /// Named selections (tags whose name does not start with `#`); in a
    /// skinned model these are the bones.
    pub selections: Vec<Selection>,
    /// `#Animation#` key poses, in file order.
    pub animations: Vec<AnimationTag>,
    /// Every other `#...#` tag, data untouched.
    pub other_tags: Vec<RawTag>,
    /// The order the tags appear in the file, so writing reproduces it.
    /// Empty means: selections, then animations, then other tags.
    pub tag_order: Vec<TagRef>,
}

/// One point (vertex) of a LOD.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Position in model space (Y up, left-handed).
    pub pos: Vec3,
    /// Point flags, as stored.
    pub flags: u32,
}

/// One corner of a face.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FaceVertex {
    /// Index into the LOD's `points` (checked for the used corners).
    pub point: u32,
    /// Index into the LOD's `normals` (checked for the used corners).
    pub normal: u32,
    /// Texture coordinate u.
    pub u: f32,
    /// Texture coordinate v.
    pub v: f32,
}

/// One triangle or quad.
#[derive(Debug, Clone, PartialEq)]
pub struct Face {
    /// 3 or 4; only the first `sides` vertices are meaningful.
    pub sides: u32,
    /// Always four corners as stored; the fourth of a triangle is leftover data.
    pub vertices: [FaceVertex; 4],
    /// Face flags, as stored.
    pub flags: u32,
    /// Texture path as written in the file (Latin-1 decoded; may be empty).
    pub texture: String,
    /// Material (`.rvmat`) path as written in the file (Latin-1 decoded; may be empty).
    pub material: String,
}

/// A named selection tag.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// Selection name (a bone name in skinned models).
    pub name: String,
    /// The tag's active byte (0 or 1).
    pub active: bool,
    /// One weight per point, 0..=1 (0 = not in the selection), decoded with
    /// [`decode_weight`].
    pub point_weights: Vec<f32>,
    /// One flag per face: whether the face is in the selection.
    pub face_selected: Vec<bool>,
}

/// An `#Animation#` tag: a full key pose of the LOD.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationTag {
    /// The tag's active byte (0 or 1).
    pub active: bool,
    /// Animation phase of this key pose (0..1 in practice).
    pub phase: f32,
    /// One position per point.
    pub positions: Vec<Vec3>,
}

/// A `#...#` tag kiln keeps without interpreting.
#[derive(Debug, Clone, PartialEq)]
pub struct RawTag {
    /// Tag name, including the `#`s.
    pub name: String,
    /// The tag's active byte (0 or 1).
    pub active: bool,
    /// The tag's data bytes.
    pub data: Vec<u8>,
}

/// Where a tag of the file went: an index into `selections`, `animations`
/// or `other_tags`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagRef {
    /// Index into `selections`.
    Selection(usize),
    /// Index into `animations`.
    Animation(usize),
    /// Index into `other_tags`.
    Other(usize),
}

/// A parsed `#UVSet#` tag: one (u, v) per face vertex, `sides` per face.
#[derive(Debug, Clone, PartialEq)]
pub struct UvSet {
    /// The UV stage (texture-coordinate set number).
    pub stage: u32,
    /// Per face, its `sides` (u, v) pairs.
    pub uvs: Vec<Vec<[f32; 2]>>,
}

impl Face {
    /// The meaningful vertices (3 or 4).
    pub fn used_vertices(&self) -> &[FaceVertex] {
        &self.vertices[..(self.sides as usize).min(4)]
    }
}

impl Selection {
    /// Points with a non-zero weight, ascending.
    pub fn selected_points(&self) -> Vec<usize> {
        (0..self.point_weights.len())
            .filter(|&i| self.point_weights[i] > 0.0)
            .collect()
    }
}

impl Mlod {
    /// Index of the most detailed visual LOD: the lowest resolution among
    /// LODs with resolution below [`VISUAL_LIMIT`] (the first on a tie).
    /// Resolution 0.0 is a valid visual LOD (`agm_fastroping.p3d` uses it).
    pub fn most_detailed_visual_lod(&self) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, lod) in self.lods.iter().enumerate() {
            if !is_visual(lod.resolution) {
                continue;
            }
            match best {
                Some(b) if self.lods[b].resolution <= lod.resolution => {}
                _ => best = Some(i),
            }
        }
        best
    }
}

impl Lod {
    /// The named selection called `name`, matched ASCII case-insensitively.
    pub fn selection(&self, name: &str) -> Option<&Selection> {
        self.selections
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
    }

    /// The first uninterpreted tag called exactly `name`.
    pub fn other_tag(&self, name: &str) -> Option<&RawTag> {
        self.other_tags.iter().find(|t| t.name == name)
    }

    /// Decodes the first `#UVSet#` tag if present and consistent with the faces.
    pub fn uv_set(&self) -> Option<UvSet> {
        let tag = self.other_tag(UVSET_TAG)?;
        parse_uv_set(&tag.data, &self.faces)
    }

    /// Distinct texture paths in order of first use (empty names skipped).
    pub fn textures(&self) -> Vec<String> {
        distinct(self.faces.iter().map(|f| f.texture.as_str()))
    }

    /// Distinct material paths in order of first use (empty names skipped).
    pub fn materials(&self) -> Vec<String> {
        distinct(self.faces.iter().map(|f| f.material.as_str()))
    }
}

pub(super) fn distinct<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        if !n.is_empty() && !out.iter().any(|o| o == n) {
            out.push(n.to_string());
        }
    }
    out
}

/// `#UVSet#`: `u32 stage`, then for each face its `sides` (u, v) pairs.
/// None when the data is short or does not end exactly after the last face.
pub fn parse_uv_set(data: &[u8], faces: &[Face]) -> Option<UvSet> {
    let mut r = Reader::new(data, Path::new(UVSET_TAG));
    let stage = r.u32("stage").ok()?;
    let mut uvs = Vec::with_capacity(faces.len().min(r.remaining() / 8));
    for f in faces {
        let mut face = Vec::with_capacity(4);
        for _ in 0..(f.sides as usize).min(4) {
            let u = r.f32("u").ok()?;
            let v = r.f32("v").ok()?;
            face.push([u, v]);
        }
        uvs.push(face);
    }
    r.at_end().then_some(UvSet { stage, uvs })
}

/// True for a visual LOD's resolution (below [`VISUAL_LIMIT`]).
pub fn is_visual(resolution: f32) -> bool {
    resolution < VISUAL_LIMIT
}

/// The display name of a LOD resolution. Special values follow the LOD table
/// used by the Arma tools (Object Builder, Arma 3 Object Builder): view LODs
/// at 1e3..1.2e3, shadow volumes at 1e4 + n, shadow buffers at 1.1e4 + n,
/// edit LODs at 2e4 + n, and fixed large values (1e13 Geometry, 1e15
/// Memory, ...). The corpus holds visual LODs (0.0, 1.0, 2.0, 3.0, 5.0),
/// 1e4 (Shadow Volume 0), 1.1e4 (Shadow Buffer 0), 1e13, 2e13, 1e15 and
/// 3e15; the other values come from the tools' table and are unverified.
pub fn lod_name(resolution: f32) -> String {
    let r = resolution;
    if r < VISUAL_LIMIT {
        return format!("{r:.3}");
    }
    // Large special values are exact multiples of 1e13 stored as f32; compare
    // with a relative tolerance since f32 cannot hold them exactly.
    const FIXED: [(f32, &str); 27] = [
        (1.0e13, "Geometry"),
        (2.0e13, "Geometry Buoyancy"),
        (4.0e13, "Geometry PhysX"),
        (1.0e15, "Memory"),
        (2.0e15, "Land Contact"),
        (3.0e15, "Roadway"),
        (4.0e15, "Paths"),
        (5.0e15, "Hit-points"),
        (6.0e15, "View Geometry"),
        (7.0e15, "Fire Geometry"),
        (8.0e15, "View Cargo Geometry"),
        (9.0e15, "View Cargo Fire Geometry"),
        (1.0e16, "View Commander"),
        (1.1e16, "View Commander Geometry"),
        (1.2e16, "View Commander Fire Geometry"),
        (1.3e16, "View Pilot Geometry"),
        (1.4e16, "View Pilot Fire Geometry"),
        (1.5e16, "View Gunner Geometry"),
        (1.6e16, "View Gunner Fire Geometry"),
        (1.7e16, "Sub Parts"),
        (1.8e16, "Shadow Volume - View Cargo"),
        (1.9e16, "Shadow Volume - View Pilot"),
        (2.0e16, "Shadow Volume - View Gunner"),
        (2.1e16, "Wreck"),
        (1.0e3, "View Gunner"),
        (1.1e3, "View Pilot"),
        (1.2e3, "View Cargo"),
    ];
    for (value, name) in FIXED {
        if (r - value).abs() <= value * 1e-6 {
            return name.to_string();
        }
    }
    let band = |base: f32, width: f32, name: &str| -> Option<String> {
        (r >= base && r < base + width).then(|| format!("{name} {}", trim(r - base)))
    };
    band(1.0e4, 1.0e3, "Shadow Volume")
        .or_else(|| band(1.1e4, 1.0e3, "Shadow Buffer"))
        .or_else(|| band(2.0e4, 1.0e4, "Edit"))
        .unwrap_or_else(|| format!("Unknown {r:e}"))
}

/// Shadow/edit offsets are small integers or simple decimals: show them
/// without trailing zeros ("10", "0.5").
pub(super) fn trim(v: f32) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

pub(super) fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| c as char).collect()
}

pub(super) fn latin1_bytes(s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| u8::try_from(c as u32).unwrap_or(b'?'))
        .collect()
}

/// Selection weight byte → weight: 0 = out, 1 = full, else (255 - b) / 254.
pub fn decode_weight(b: u8) -> f32 {
    match b {
        0 => 0.0,
        1 => 1.0,
        b => (255 - b) as f32 / 254.0,
    }
}

/// Inverse of [`decode_weight`] (0 and 1 use the short codes).
pub fn encode_weight(w: f32) -> u8 {
    if w.is_nan() || w <= 0.0 {
        0
    } else if w >= 1.0 {
        1
    } else {
        let b = (255.0 - w * 254.0).round();
        // 255 would read back as 0 via the formula; keep the point selected.
        b.clamp(2.0, 254.0) as u8
    }
}
