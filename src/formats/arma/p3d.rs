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

use crate::error::ParseError;
use crate::formats::reader::{Reader, Writer};
use glam::Vec3;
use serde::Serialize;
use std::path::Path;

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

fn distinct<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
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
fn trim(v: f32) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| c as char).collect()
}

fn latin1_bytes(s: &str) -> Vec<u8> {
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

/// Reads and parses an MLOD P3D file.
pub fn parse_file(path: &Path) -> crate::Result<Mlod> {
    let data = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    Ok(parse(&data, path)?)
}

/// Parses an MLOD P3D file held in memory; `file` names it in errors.
/// Binarised `ODOL` models are refused with a clear message; bytes after the
/// last LOD, out-of-range point/normal indices and malformed tags are errors.
pub fn parse(data: &[u8], file: &Path) -> Result<Mlod, ParseError> {
    let mut r = Reader::new(data, file);
    let magic = r.bytes(4, "signature")?;
    if magic == b"ODOL" {
        let version = r.u32("ODOL version")?;
        return Err(r.error_at(
            0,
            "signature",
            format!(
                "binarised P3D (ODOL version {version}) is not supported; use the MLOD source model"
            ),
        ));
    }
    if magic != b"MLOD" {
        return Err(r.error_at(
            0,
            "signature",
            format!(
                "expected \"MLOD\", found {:?}",
                String::from_utf8_lossy(magic)
            ),
        ));
    }
    let vpos = r.pos();
    let version = r.u32("version")?;
    if version != MLOD_VERSION {
        return Err(r.error_at(
            vpos,
            "version",
            format!("MLOD version {version} is not supported (expected {MLOD_VERSION})"),
        ));
    }
    let count = r.count_u32("lod_count", MIN_LOD_SIZE)?;
    let mut lods = Vec::with_capacity(count);
    for i in 0..count {
        lods.push(parse_lod(&mut r, i)?);
    }
    if !r.at_end() {
        return Err(r.error(
            "end",
            format!("{} unexpected bytes after the last LOD", r.remaining()),
        ));
    }
    Ok(Mlod { lods })
}

fn parse_lod(r: &mut Reader, li: usize) -> Result<Lod, ParseError> {
    let p = format!("lod[{li}]");
    let start = r.pos();
    let magic = r.bytes(4, &format!("{p}.signature"))?;
    if magic != b"P3DM" {
        return Err(r.error_at(
            start,
            &format!("{p}.signature"),
            format!(
                "expected \"P3DM\", found {:?}",
                String::from_utf8_lossy(magic)
            ),
        ));
    }
    let vpos = r.pos();
    let version_major = r.u32(&format!("{p}.version_major"))?;
    let version_minor = r.u32(&format!("{p}.version_minor"))?;
    if version_major != P3DM_MAJOR || version_minor != P3DM_MINOR {
        return Err(r.error_at(
            vpos,
            &format!("{p}.version"),
            format!(
                "P3DM version 0x{version_major:x}.0x{version_minor:x} is not supported \
                 (expected 0x{P3DM_MAJOR:x}.0x{P3DM_MINOR:x})"
            ),
        ));
    }
    // The three counts come before any of the arrays, so each is checked
    // against the bytes left now; the arrays themselves check as they read.
    let n_points = r.count_u32(&format!("{p}.point_count"), POINT_SIZE)?;
    let n_normals = r.count_u32(&format!("{p}.normal_count"), NORMAL_SIZE)?;
    let n_faces = r.count_u32(&format!("{p}.face_count"), MIN_FACE_SIZE)?;
    let flags = r.u32(&format!("{p}.flags"))?;

    let mut points = Vec::with_capacity(n_points);
    for i in 0..n_points {
        let f = format!("{p}.points[{i}]");
        let pos = r.vec3(&f)?;
        let flags = r.u32(&f)?;
        points.push(Point { pos, flags });
    }
    let mut normals = Vec::with_capacity(n_normals);
    for i in 0..n_normals {
        normals.push(r.vec3(&format!("{p}.normals[{i}]"))?);
    }
    let mut faces = Vec::with_capacity(n_faces);
    for i in 0..n_faces {
        faces.push(parse_face(
            r,
            &format!("{p}.faces[{i}]"),
            n_points,
            n_normals,
        )?);
    }

    let tpos = r.pos();
    let tagg = r.bytes(4, &format!("{p}.tagg"))?;
    if tagg != b"TAGG" {
        return Err(r.error_at(
            tpos,
            &format!("{p}.tagg"),
            format!(
                "expected \"TAGG\", found {:?}",
                String::from_utf8_lossy(tagg)
            ),
        ));
    }
    let mut lod = Lod {
        resolution: 0.0,
        version_major,
        version_minor,
        flags,
        points,
        normals,
        faces,
        selections: Vec::new(),
        animations: Vec::new(),
        other_tags: Vec::new(),
        tag_order: Vec::new(),
    };
    let mut ti = 0usize;
    loop {
        let f = format!("{p}.tags[{ti}]");
        let tag_start = r.pos();
        let active_byte = r.u8(&format!("{f}.active"))?;
        let name = latin1(&r.asciiz(&format!("{f}.name"))?);
        let len_pos = r.pos();
        let len = r.u32(&format!("{f}.length"))? as usize;
        if len > r.remaining() {
            return Err(r.error_at(
                len_pos,
                &format!("{f}.length"),
                format!(
                    "tag {name:?} length {len} does not fit in the {} bytes left",
                    r.remaining()
                ),
            ));
        }
        let data_pos = r.pos();
        let data = r.bytes(len, &format!("{f}.data"))?;
        if active_byte > 1 {
            return Err(r.error_at(
                tag_start,
                &format!("{f}.active"),
                format!("tag {name:?} active flag is {active_byte} (expected 0 or 1)"),
            ));
        }
        let active = active_byte == 1;
        if name == END_OF_FILE_TAG {
            if len != 0 || !active {
                return Err(r.error_at(
                    tag_start,
                    &f,
                    format!("{END_OF_FILE_TAG} tag must be active and empty (length {len})"),
                ));
            }
            break;
        }
        let bad_len = |want: usize| {
            r.error_at(
                len_pos,
                &format!("{f}.length"),
                format!("tag {name:?} holds {len} bytes but this LOD needs {want}"),
            )
        };
        if name == ANIMATION_TAG {
            let want = 4 + 12 * lod.points.len();
            if len != want {
                return Err(bad_len(want));
            }
            let mut tr = Reader::new(data, r.file());
            let phase = tr.f32("phase").map_err(|_| bad_len(want))?;
            let mut positions = Vec::with_capacity(lod.points.len());
            for _ in 0..lod.points.len() {
                positions.push(tr.vec3("position").map_err(|_| bad_len(want))?);
            }
            lod.tag_order.push(TagRef::Animation(lod.animations.len()));
            lod.animations.push(AnimationTag {
                active,
                phase,
                positions,
            });
        } else if !name.starts_with('#') {
            let want = lod.points.len() + lod.faces.len();
            if len != want {
                return Err(bad_len(want));
            }
            let (pb, fb) = data.split_at(lod.points.len());
            if let Some(k) = fb.iter().position(|&b| b > 1) {
                return Err(r.error_at(
                    data_pos + pb.len() + k,
                    &format!("{f}.faces[{k}]"),
                    format!(
                        "selection {name:?} face byte is {} (expected 0 or 1)",
                        fb[k]
                    ),
                ));
            }
            // 255 decodes to weight 0 like 0 does, so writing would change it.
            if let Some(k) = pb.iter().position(|&b| b == 255) {
                return Err(r.error_at(
                    data_pos + k,
                    &format!("{f}.points[{k}]"),
                    format!("selection {name:?} point weight byte 255 is not a known code"),
                ));
            }
            lod.tag_order.push(TagRef::Selection(lod.selections.len()));
            lod.selections.push(Selection {
                name,
                active,
                point_weights: pb.iter().map(|&b| decode_weight(b)).collect(),
                face_selected: fb.iter().map(|&b| b == 1).collect(),
            });
        } else {
            lod.tag_order.push(TagRef::Other(lod.other_tags.len()));
            lod.other_tags.push(RawTag {
                name,
                active,
                data: data.to_vec(),
            });
        }
        ti += 1;
    }
    lod.resolution = r.f32(&format!("{p}.resolution"))?;
    Ok(lod)
}

fn parse_face(
    r: &mut Reader,
    f: &str,
    n_points: usize,
    n_normals: usize,
) -> Result<Face, ParseError> {
    let spos = r.pos();
    let sides = r.u32(&format!("{f}.sides"))?;
    if sides != 3 && sides != 4 {
        return Err(r.error_at(
            spos,
            &format!("{f}.sides"),
            format!("face has {sides} sides (expected 3 or 4)"),
        ));
    }
    let mut vertices = [FaceVertex::default(); 4];
    for (k, v) in vertices.iter_mut().enumerate() {
        let vf = format!("{f}.vertices[{k}]");
        let vpos = r.pos();
        let point = r.u32(&format!("{vf}.point"))?;
        let normal = r.u32(&format!("{vf}.normal"))?;
        let u = r.f32(&format!("{vf}.u"))?;
        let vv = r.f32(&format!("{vf}.v"))?;
        if k < sides as usize {
            if point as usize >= n_points {
                return Err(r.error_at(
                    vpos,
                    &format!("{vf}.point"),
                    format!("point index {point} out of range ({n_points} points)"),
                ));
            }
            if normal as usize >= n_normals {
                return Err(r.error_at(
                    vpos + 4,
                    &format!("{vf}.normal"),
                    format!("normal index {normal} out of range ({n_normals} normals)"),
                ));
            }
        }
        *v = FaceVertex {
            point,
            normal,
            u,
            v: vv,
        };
    }
    let flags = r.u32(&format!("{f}.flags"))?;
    let texture = latin1(&r.asciiz(&format!("{f}.texture"))?);
    let material = latin1(&r.asciiz(&format!("{f}.material"))?);
    Ok(Face {
        sides,
        vertices,
        flags,
        texture,
        material,
    })
}

/// Writes an MLOD file. `write(&parse(f)?) == f` for every corpus MLOD.
pub fn write(m: &Mlod) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(b"MLOD").u32(MLOD_VERSION).u32(m.lods.len() as u32);
    for lod in &m.lods {
        write_lod(&mut w, lod);
    }
    w.into_bytes()
}

fn write_lod(w: &mut Writer, lod: &Lod) {
    w.bytes(b"P3DM")
        .u32(lod.version_major)
        .u32(lod.version_minor)
        .u32(lod.points.len() as u32)
        .u32(lod.normals.len() as u32)
        .u32(lod.faces.len() as u32)
        .u32(lod.flags);
    for p in &lod.points {
        w.vec3(p.pos).u32(p.flags);
    }
    for n in &lod.normals {
        w.vec3(*n);
    }
    for f in &lod.faces {
        w.u32(f.sides);
        for v in &f.vertices {
            w.u32(v.point).u32(v.normal).f32(v.u).f32(v.v);
        }
        w.u32(f.flags)
            .asciiz(&latin1_bytes(&f.texture))
            .asciiz(&latin1_bytes(&f.material));
    }
    w.bytes(b"TAGG");
    let order: Vec<TagRef> = if lod.tag_order.is_empty() {
        (0..lod.selections.len())
            .map(TagRef::Selection)
            .chain((0..lod.animations.len()).map(TagRef::Animation))
            .chain((0..lod.other_tags.len()).map(TagRef::Other))
            .collect()
    } else {
        lod.tag_order.clone()
    };
    for t in order {
        match t {
            TagRef::Selection(i) => {
                let Some(s) = lod.selections.get(i) else {
                    continue;
                };
                let mut data: Vec<u8> = (0..lod.points.len())
                    .map(|k| encode_weight(s.point_weights.get(k).copied().unwrap_or(0.0)))
                    .collect();
                data.extend(
                    (0..lod.faces.len())
                        .map(|k| u8::from(s.face_selected.get(k).copied().unwrap_or(false))),
                );
                tag(w, s.active, &s.name, &data);
            }
            TagRef::Animation(i) => {
                let Some(a) = lod.animations.get(i) else {
                    continue;
                };
                let mut tw = Writer::new();
                tw.f32(a.phase);
                for k in 0..lod.points.len() {
                    // A short position list falls back to the rest pose so
                    // the tag keeps the size the format requires.
                    let p = a.positions.get(k).copied().unwrap_or(lod.points[k].pos);
                    tw.vec3(p);
                }
                tag(w, a.active, ANIMATION_TAG, &tw.into_bytes());
            }
            TagRef::Other(i) => {
                if let Some(t) = lod.other_tags.get(i) {
                    tag(w, t.active, &t.name, &t.data);
                }
            }
        }
    }
    tag(w, true, END_OF_FILE_TAG, &[]);
    w.f32(lod.resolution);
}

fn tag(w: &mut Writer, active: bool, name: &str, data: &[u8]) {
    w.u8(u8::from(active))
        .asciiz(&latin1_bytes(name))
        .u32(data.len() as u32)
        .bytes(data);
}

/// A plain, serialisable description of an MLOD model for `kiln inspect`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MlodSummary {
    /// Always "MLOD".
    pub format: &'static str,
    /// The container version (257).
    pub version: u32,
    /// Index of the most detailed visual LOD, if any.
    pub most_detailed_visual_lod: Option<usize>,
    /// One entry per LOD, in file order.
    pub lods: Vec<LodSummary>,
}

/// Counts and names of one LOD.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LodSummary {
    /// Index in the file's LOD list.
    pub index: usize,
    /// The LOD's resolution value.
    pub resolution: f32,
    /// Display name of the resolution ([`lod_name`]).
    pub name: String,
    /// Points.
    pub points: usize,
    /// Normals.
    pub normals: usize,
    /// Faces (triangles plus quads).
    pub faces: usize,
    /// Faces with 3 sides.
    pub triangles: usize,
    /// Faces with 4 sides.
    pub quads: usize,
    /// Distinct texture paths in order of first use.
    pub textures: Vec<String>,
    /// Distinct material paths in order of first use.
    pub materials: Vec<String>,
    /// Named-selection names, in file order.
    pub selections: Vec<String>,
    /// `#Animation#` tags.
    pub animation_count: usize,
    /// The phase of each `#Animation#` tag, in file order.
    pub animation_phases: Vec<f32>,
    /// Names of the uninterpreted tags, in file order.
    pub other_tags: Vec<String>,
}

/// Summarises `m`: per LOD its resolution name, counts, textures, materials
/// and tags.
pub fn summary(m: &Mlod) -> MlodSummary {
    MlodSummary {
        format: "MLOD",
        version: MLOD_VERSION,
        most_detailed_visual_lod: m.most_detailed_visual_lod(),
        lods: m
            .lods
            .iter()
            .enumerate()
            .map(|(index, l)| LodSummary {
                index,
                resolution: l.resolution,
                name: lod_name(l.resolution),
                points: l.points.len(),
                normals: l.normals.len(),
                faces: l.faces.len(),
                triangles: l.faces.iter().filter(|f| f.sides == 3).count(),
                quads: l.faces.iter().filter(|f| f.sides == 4).count(),
                textures: l.textures(),
                materials: l.materials(),
                selections: l.selections.iter().map(|s| s.name.clone()).collect(),
                animation_count: l.animations.len(),
                animation_phases: l.animations.iter().map(|a| a.phase).collect(),
                other_tags: l.other_tags.iter().map(|t| t.name.clone()).collect(),
            })
            .collect(),
    }
}
