//! Ragnarok Online RSM models: RSM 1.1–1.5 (with the 1.6/1.7 per-node scale
//! keys) and RSM2 2.2/2.3. These structs mirror the file; every quirk of
//! interpretation (milliseconds vs frames, mirrors, centering) is resolved in
//! `scene::lower_rsm`, not here.

pub mod fixture;
mod parse;
mod summary;
mod write;

pub use parse::{parse, parse_file};
pub use summary::{summary, RsmSummary, SummaryNode};
pub use write::write;

use glam::{Quat, Vec3};

/// A name as stored in the file: raw bytes (CP949 in Korean clients).
pub type RawName = Vec<u8>;

#[derive(Debug, Clone, PartialEq)]
pub struct Rsm {
    pub major: u8,
    pub minor: u8,
    /// Animation length: milliseconds in 1.x, frames in 2.x.
    pub anim_len: i32,
    pub shade_type: i32,
    /// Header alpha byte (1.4+); unused by the game client.
    pub alpha: u8,
    /// The 16 reserved header bytes of 1.x files, kept so files round-trip.
    pub reserved: [u8; 16],
    /// Frames per second (2.x only).
    pub fps: Option<f32>,
    /// Model-level texture names (1.x: 40-byte names; 2.2: length-prefixed; 2.3: empty).
    pub textures: Vec<RawName>,
    /// Root node names: one in 1.x (40-byte main node name), a list in 2.x.
    pub root_names: Vec<RawName>,
    pub nodes: Vec<RsmNode>,
    /// Model-level position keys of 1.x files before 1.6 (always empty in practice).
    pub model_pos_keys: Vec<PosKey>,
    pub volume_boxes: Vec<VolumeBox>,
    /// False when a 2.3 file ends right after its nodes, with no volume-box
    /// count (as every real 2.3 file does). Always true for other versions.
    pub volume_box_block: bool,
    /// A 1.5 file laid out with a per-node position-key block after each
    /// node's rotation keys (the roBrowser/RagLite reading). Real 1.5 files
    /// read like 1.4; this layout is only chosen when it alone fits the file.
    pub node_pos_keys_v15: bool,
    /// The raw 40-byte name fields of a 1.x file in file order (textures,
    /// main node, then each node's name and parent), kept only when some
    /// field holds bytes after its NUL (uninitialised memory in real exports)
    /// so the writer can reproduce the file byte for byte. Empty otherwise.
    pub raw_name_fields: Vec<[u8; 40]>,
    /// Bytes left after the last structure; tolerated with a warning.
    pub trailing_bytes: usize,
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
            node_pos_keys_v15: false,
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
            .map(|n| crate::formats::text::decode_cp949(n))
    }
    /// Model-level texture names decoded from CP949.
    pub fn texture_names(&self) -> Vec<String> {
        self.textures
            .iter()
            .map(|n| crate::formats::text::decode_cp949(n))
            .collect()
    }
    /// Index of the first node whose raw name equals `name`.
    pub fn find_node(&self, name: &[u8]) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }
    pub fn is_rsm2(&self) -> bool {
        self.major >= 2
    }
    /// True when `(major, minor) >= (maj, min)`.
    pub fn at_least(&self, maj: u8, min: u8) -> bool {
        (self.major, self.minor) >= (maj, min)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct RsmNode {
    pub name: RawName,
    pub parent: RawName,
    /// Indices into `Rsm::textures` (1.x and 2.2).
    pub texture_ids: Vec<i32>,
    /// Per-node texture names (2.3).
    pub texture_names: Vec<RawName>,
    /// 3×3 matrix as three basis images: [0..3] image of X, [3..6] of Y, [6..9] of Z.
    pub matrix: [f32; 9],
    /// The "offset" translation applied to the node's own geometry (`T(offset)·M3`).
    pub offset: Vec3,
    /// 1.x only: node position, rotation (radians about axis) and scale.
    pub position: Vec3,
    pub rot_angle: f32,
    pub rot_axis: Vec3,
    pub scale: Vec3,
    pub vertices: Vec<Vec3>,
    pub tex_coords: Vec<TexCoord>,
    pub faces: Vec<Face>,
    /// 1.6+ and 2.x.
    pub scale_keys: Vec<ScaleKey>,
    pub rot_keys: Vec<RotKey>,
    /// 2.x.
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
        crate::formats::text::decode_cp949(&self.name)
    }
    /// The parent name decoded from CP949 (empty for roots).
    pub fn parent_str(&self) -> String {
        crate::formats::text::decode_cp949(&self.parent)
    }
    /// Per-node texture names (2.3) decoded from CP949.
    pub fn texture_names_str(&self) -> Vec<String> {
        self.texture_names
            .iter()
            .map(|n| crate::formats::text::decode_cp949(n))
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

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TexCoord {
    /// Vertex colour (1.2+), ARGB as stored; 0xFFFFFFFF before 1.2.
    pub color: u32,
    pub u: f32,
    pub v: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Face {
    pub vertex_ids: [u16; 3],
    pub tex_coord_ids: [u16; 3],
    pub texture_id: u16,
    pub padding: u16,
    pub two_side: i32,
    /// One id in 1.2+ files, `(len - 24) / 4` ids in 2.x, none before 1.2.
    pub smooth_groups: Vec<i32>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScaleKey {
    pub frame: i32,
    pub scale: Vec3,
    pub data: f32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RotKey {
    pub frame: i32,
    pub rotation: Quat,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PosKey {
    pub frame: i32,
    pub position: Vec3,
    /// Trailing 4 bytes of the key (f32 in 1.x model keys, i32 in 2.x), kept raw.
    pub data: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TextureAnim {
    /// Index into the node's `texture_names`.
    pub texture: i32,
    pub channels: Vec<TexAnimChannel>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TexAnimChannel {
    /// 0/1 translate U/V, 2/3 scale U/V, 4 rotate (radians).
    pub kind: i32,
    pub keys: Vec<TexAnimKey>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TexAnimKey {
    pub frame: i32,
    pub value: f32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VolumeBox {
    pub size: Vec3,
    pub position: Vec3,
    pub rotation: Vec3,
    /// 1.3+ flag.
    pub flag: i32,
}
