//! Ragnarok Online RSM models: RSM 1.1–1.5 (with the 1.6/1.7 per-node scale
//! keys) and RSM2 2.2/2.3. These structs mirror the file; every quirk of
//! interpretation (milliseconds vs frames, mirrors, centering) is resolved in
//! the lowering (`lower.rs` beside this file), not here.

mod by_vertex;
/// Small synthetic files built in code, for kiln's own tests only (the
/// source is `tests/fixtures/rsm.rs`, shared with the integration tests).
#[cfg(test)]
pub mod fixture {
    use super::*;
    include!("../../../tests/fixtures/rsm.rs");
}
mod format;
pub mod lower;
mod parse;
mod summary;
mod write;

pub(crate) use format::RsmFormat;
pub use parse::{parse, parse_file};
pub use summary::{summary, RsmSummary, SummaryNode};
pub use write::write;

use crate::formats::json;
use glam::{Quat, Vec3};
use serde::Serialize;

/// A name as stored in the file: raw bytes (CP949 in Korean clients).
pub type RawName = Vec<u8>;

/// One RSM or RSM2 model as stored in the file. It serialises (for
/// `kiln inspect --json`) field by field, with names decoded and raw byte
/// blocks as hex (see [`crate::formats::json`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rsm {
    /// Major version: 1 for RSM, 2 for RSM2.
    pub major: u8,
    /// Minor version (1.1–1.7, 2.2–2.3).
    pub minor: u8,
    /// Animation length: milliseconds in 1.x, frames in 2.x.
    pub anim_len: i32,
    /// 0 no lighting, 1 flat (face normals), 2 smooth (normals averaged per
    /// smoothing group).
    pub shade_type: i32,
    /// Header alpha byte (1.4+ and 2.x; 255 when absent); unused by the game client.
    pub alpha: u8,
    /// The 16 reserved header bytes of 1.x files, kept so files round-trip.
    #[serde(serialize_with = "json::hex")]
    pub reserved: [u8; 16],
    /// Frames per second (2.x only).
    pub fps: Option<f32>,
    /// Model-level texture names (1.x: 40-byte names; 2.2: length-prefixed; 2.3: empty).
    #[serde(serialize_with = "json::names")]
    pub textures: Vec<RawName>,
    /// Root node names: one in 1.x (40-byte main node name), a list in 2.x.
    #[serde(serialize_with = "json::names")]
    pub root_names: Vec<RawName>,
    /// The nodes (meshes) in file order; parents are named, not indexed.
    pub nodes: Vec<RsmNode>,
    /// Model-level position keys of 1.x files before 1.6 (always empty in practice).
    pub model_pos_keys: Vec<PosKey>,
    /// Volume boxes after the nodes; kept for round trips, not rendered.
    pub volume_boxes: Vec<VolumeBox>,
    /// False when a 2.3 file ends right after its nodes, with no volume-box
    /// count (as every real 2.3 file does). Always true for other versions.
    pub volume_box_block: bool,
    /// Where a 1.5 file keeps the bytes its readers place differently
    /// (ignored for other versions).
    pub v15_layout: V15Layout,
    /// The raw 40-byte name fields of a 1.x file in file order (textures,
    /// main node, then each node's name and parent), kept only when some
    /// field holds bytes after its NUL (uninitialised memory in real exports)
    /// so the writer can reproduce the file byte for byte. Empty otherwise.
    #[serde(serialize_with = "json::hexes")]
    pub raw_name_fields: Vec<[u8; 40]>,
    /// Bytes left after the last structure; tolerated with a warning.
    pub trailing_bytes: usize,
    /// Non-fatal findings of the parser (trailing bytes, the 1.5 layout chosen).
    pub warnings: Vec<String>,
}

impl Rsm {
    /// An empty model of the given version with the fields a parse of a
    /// minimal file of that version would produce.
    pub fn new(major: u8, minor: u8) -> Self {
        Rsm {
            major,
            minor,
            anim_len: 0,
            shade_type: 0,
            alpha: 255,
            reserved: [0; 16],
            fps: if major >= 2 { Some(30.0) } else { None },
            textures: Vec::new(),
            root_names: if major >= 2 {
                Vec::new()
            } else {
                vec![Vec::new()]
            },
            nodes: Vec::new(),
            model_pos_keys: Vec::new(),
            volume_boxes: Vec::new(),
            volume_box_block: (major, minor) != (2, 3),
            v15_layout: V15Layout::Documented,
            raw_name_fields: Vec::new(),
            trailing_bytes: 0,
            warnings: Vec::new(),
        }
    }
    /// "1.4", "2.3".
    pub fn version_string(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }
    /// The single main node name of a 1.x file, or the first root of a 2.x file.
    pub fn main_node_name(&self) -> Option<String> {
        self.root_names
            .first()
            .map(|n| crate::text::decode_cp949(n))
    }
    /// Model-level texture names decoded from CP949.
    pub fn texture_names(&self) -> Vec<String> {
        self.textures
            .iter()
            .map(|n| crate::text::decode_cp949(n))
            .collect()
    }
    /// Index of the first node whose raw name equals `name`.
    pub fn find_node(&self, name: &[u8]) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }
    /// True for RSM2 (major version 2 and above).
    pub fn is_rsm2(&self) -> bool {
        self.major >= 2
    }
    /// True when `(major, minor) >= (maj, min)`.
    pub fn at_least(&self, maj: u8, min: u8) -> bool {
        (self.major, self.minor) >= (maj, min)
    }
}

/// Where a 1.5 file keeps the bytes its readers place differently. Every
/// reading is tried and the file's structure decides (`parse.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum V15Layout {
    /// Nodes exactly as in 1.4; the 4 bytes real files carry after the
    /// volume boxes are trailing bytes (RagnarokResearchLab's notes, GRF
    /// Editor, BrowEdit, korangar).
    Documented,
    /// A position-key block after each node's rotation keys (roBrowser).
    NodePositionKeys,
    /// One more model-level count, 0, between the nodes and the model key
    /// block (RagLite, which reads it as a number of legacy position
    /// animations and requires it to be 0).
    EmptyModelBlock,
}

/// One node: a named mesh with its transform, geometry and keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RsmNode {
    /// The node's name (40-byte field in 1.x, length-prefixed in 2.x).
    #[serde(serialize_with = "json::name")]
    pub name: RawName,
    /// The parent's name; empty (or the node's own name) for a root.
    #[serde(serialize_with = "json::name")]
    pub parent: RawName,
    /// Indices into [`Rsm::textures`] (1.x and 2.2).
    pub texture_ids: Vec<i32>,
    /// Per-node texture names (2.3).
    #[serde(serialize_with = "json::names")]
    pub texture_names: Vec<RawName>,
    /// 3×3 matrix as three basis images: [0..3] image of X, [3..6] of Y, [6..9] of Z.
    /// In 1.x it applies to the node's own geometry only; in 2.x it is the
    /// absolute rest pose's linear part.
    pub matrix: [f32; 9],
    /// The "offset" translation applied to the node's own geometry (`T(offset)·M3`);
    /// in 2.x the absolute rest position.
    #[serde(serialize_with = "json::vec3")]
    pub offset: Vec3,
    /// 1.x only: node position relative to its parent (`T(pos)` of the chain).
    #[serde(serialize_with = "json::vec3")]
    pub position: Vec3,
    /// 1.x only: rest rotation angle in radians about `rot_axis`.
    pub rot_angle: f32,
    /// 1.x only: rest rotation axis (a zero axis means no rotation).
    #[serde(serialize_with = "json::vec3")]
    pub rot_axis: Vec3,
    /// 1.x only: node scale (`S(scale)` of the chain).
    #[serde(serialize_with = "json::vec3")]
    pub scale: Vec3,
    /// Vertex positions, placed by `T(offset)·M3` (and in 1.x the node chain).
    #[serde(serialize_with = "json::vec3s")]
    pub vertices: Vec<Vec3>,
    /// Texture coordinates (and 1.2+ vertex colours) that faces index.
    pub tex_coords: Vec<TexCoord>,
    /// Triangles.
    pub faces: Vec<Face>,
    /// 1.6+ and 2.x.
    pub scale_keys: Vec<ScaleKey>,
    /// Rotation keys (all versions); in 2.x parent-relative.
    pub rot_keys: Vec<RotKey>,
    /// 2.x (parent-relative), and 1.5 files read with per-node position keys
    /// ([`V15Layout::NodePositionKeys`]).
    pub pos_keys: Vec<PosKey>,
    /// 2.3 texture animations.
    pub tex_anims: Vec<TextureAnim>,
}

impl RsmNode {
    /// A node with no geometry, identity matrix and unit scale.
    pub fn new(name: &[u8], parent: &[u8]) -> Self {
        RsmNode {
            name: name.to_vec(),
            parent: parent.to_vec(),
            texture_ids: Vec::new(),
            texture_names: Vec::new(),
            matrix: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            offset: Vec3::ZERO,
            position: Vec3::ZERO,
            rot_angle: 0.0,
            rot_axis: Vec3::ZERO,
            scale: Vec3::ONE,
            vertices: Vec::new(),
            tex_coords: Vec::new(),
            faces: Vec::new(),
            scale_keys: Vec::new(),
            rot_keys: Vec::new(),
            pos_keys: Vec::new(),
            tex_anims: Vec::new(),
        }
    }
    /// The node name decoded from CP949.
    pub fn name_str(&self) -> String {
        crate::text::decode_cp949(&self.name)
    }
    /// The parent name decoded from CP949 (empty for roots).
    pub fn parent_str(&self) -> String {
        crate::text::decode_cp949(&self.parent)
    }
    /// Per-node texture names (2.3) decoded from CP949.
    pub fn texture_names_str(&self) -> Vec<String> {
        self.texture_names
            .iter()
            .map(|n| crate::text::decode_cp949(n))
            .collect()
    }
    /// True when the parent name is empty or names the node itself (some
    /// exporters write a self-parent for the root).
    pub fn is_root(&self) -> bool {
        self.parent.is_empty() || self.parent == self.name
    }
    /// The 3×3 matrix as a glam matrix (columns = basis images).
    pub fn matrix3(&self) -> glam::Mat3 {
        glam::Mat3::from_cols_array(&self.matrix)
    }
    /// Total number of texture-animation channels.
    pub fn tex_anim_channel_count(&self) -> usize {
        self.tex_anims.iter().map(|a| a.channels.len()).sum()
    }
}

/// One texture coordinate with its vertex colour.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TexCoord {
    /// Vertex colour (1.2+), ARGB as stored; 0xFFFFFFFF before 1.2.
    pub color: u32,
    /// Horizontal texture coordinate.
    pub u: f32,
    /// Vertical texture coordinate; v = 0 is the top row of the image.
    pub v: f32,
}

/// One triangle.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Face {
    /// Indices into the node's `vertices` (kept as stored, even out of range).
    pub vertex_ids: [u16; 3],
    /// Indices into the node's `tex_coords` (kept as stored, even out of range).
    pub tex_coord_ids: [u16; 3],
    /// Index into the node's texture list: `texture_ids` (1.x, 2.2) or
    /// `texture_names` (2.3).
    pub texture_id: u16,
    /// The u16 after `texture_id`, kept so files round-trip.
    pub padding: u16,
    /// Non-zero: double-sided, never culled.
    pub two_side: i32,
    /// One id in 1.2+ files, `(len - 24) / 4` ids in 2.x, none before 1.2.
    pub smooth_groups: Vec<i32>,
}

/// A scale key (1.6+ and 2.x).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScaleKey {
    /// Key time: milliseconds in 1.x, frames in 2.x.
    pub frame: i32,
    /// Scale per axis.
    #[serde(serialize_with = "json::vec3")]
    pub scale: Vec3,
    /// Trailing f32 of the key; unused, kept so files round-trip.
    pub data: f32,
}

/// A rotation key.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RotKey {
    /// Key time: milliseconds in 1.x, frames in 2.x.
    pub frame: i32,
    /// Rotation, stored as x, y, z, w; slerped between keys.
    #[serde(serialize_with = "json::quat")]
    pub rotation: Quat,
}

/// A position key.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PosKey {
    /// Key time: milliseconds in 1.x, frames in 2.x.
    pub frame: i32,
    /// Position (parent-relative in 2.x).
    #[serde(serialize_with = "json::vec3")]
    pub position: Vec3,
    /// Trailing 4 bytes of the key (f32 in 1.x model keys, i32 in 2.x), kept raw.
    pub data: u32,
}

/// The texture animations of one of a node's textures (2.3).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextureAnim {
    /// Index into the node's `texture_names`.
    pub texture: i32,
    /// One channel per animated property.
    pub channels: Vec<TexAnimChannel>,
}

/// One animated texture property (2.3).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TexAnimChannel {
    /// 0/1 translate U/V, 2/3 scale U/V, 4 rotate (radians); other values
    /// are kept but not animated.
    pub kind: i32,
    /// Keys, lerped; the value is 0 before the first key.
    pub keys: Vec<TexAnimKey>,
}

/// One texture-animation key (2.3).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TexAnimKey {
    /// Key time in frames.
    pub frame: i32,
    /// A UV offset, a UV scale factor or an angle in radians, by channel kind.
    pub value: f32,
}

/// A volume box, as stored after the nodes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct VolumeBox {
    /// Box size.
    #[serde(serialize_with = "json::vec3")]
    pub size: Vec3,
    /// Box position.
    #[serde(serialize_with = "json::vec3")]
    pub position: Vec3,
    /// Box rotation, as stored.
    #[serde(serialize_with = "json::vec3")]
    pub rotation: Vec3,
    /// 1.3+ flag.
    pub flag: i32,
}
