//! Legend of Grimrock models (`MDL1` version 2) and animations (`ANIM`
//! version 1 for Grimrock 1, version 2 for Grimrock 2). These structs mirror
//! the files; turning node matrices, skinning and keys into a scene happens in
//! the lowering (`lower.rs` beside this file), not here.
//!
//! Layout checked byte for byte against every corpus file (all parse to the
//! exact end and write back identically). The light entity (node type 1) is
//! not present in any corpus file: its layout comes from the field notes and
//! is unverified.

mod anim;
/// Small synthetic files built in code, for kiln's own tests only (the
/// source is `tests/fixtures/grimrock.rs`, shared with the integration tests).
#[cfg(test)]
pub mod fixture {
    use super::*;
    include!("../../../tests/fixtures/grimrock.rs");
}
mod format;
pub mod lower;
pub mod materials;
mod model;
mod summary;
mod write;

pub use anim::{parse_animation, parse_animation_file};
pub(crate) use format::{AnimationFormat, ModelFormat};
pub use materials::GrimrockMaterial;
pub use model::{parse_model, parse_model_file};
pub use summary::{
    animation_summary, model_summary, unmatched_tracks, AnimationSummary, BoneSummary, MeshSummary,
    ModelSummary, NodeSummary, SegmentSummary, TrackSummary, VertexArraySummary,
};
pub use write::{write_animation, write_model};

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};

/// A string as stored in the file (`i32 length + bytes`, no terminator).
/// Kept raw so names with trailing spaces (real files have them) round-trip.
pub type RawName = Vec<u8>;

/// Decodes a file string for display (Grimrock names are ASCII in practice).
pub fn name_str(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}

/// The number of vertex-array headers every mesh carries.
pub const VERTEX_ARRAY_COUNT: usize = 15;

/// Vertex-array slot of positions (slots are in file order).
pub const POSITION: usize = 0;
/// Vertex-array slot of normals.
pub const NORMAL: usize = 1;
/// Vertex-array slot of tangents.
pub const TANGENT: usize = 2;
/// Vertex-array slot of bitangents.
pub const BITANGENT: usize = 3;
/// Vertex-array slot of vertex colours (u8 × 4 in real files).
pub const COLOR: usize = 4;
/// Vertex-array slot of the first texture coordinates (the ones kiln draws with).
pub const TEXCOORD0: usize = 5;
/// Vertex-array slot of the second texture coordinates.
pub const TEXCOORD1: usize = 6;
/// The last texture-coordinate slot: slots 7..=12 hold TEXCOORD2..TEXCOORD7.
pub const TEXCOORD7: usize = 12;
/// Vertex-array slot of bone indices (i32 × 4 in real files), indices into
/// [`MeshEntity::bones`].
pub const BONE_INDEX: usize = 13;
/// Vertex-array slot of bone weights (f32 × 4 in real files).
pub const BONE_WEIGHT: usize = 14;

/// Display names of the 15 slots.
pub const VERTEX_ARRAY_NAMES: [&str; VERTEX_ARRAY_COUNT] = [
    "position",
    "normal",
    "tangent",
    "bitangent",
    "color",
    "texcoord0",
    "texcoord1",
    "texcoord2",
    "texcoord3",
    "texcoord4",
    "texcoord5",
    "texcoord6",
    "texcoord7",
    "bone_index",
    "bone_weight",
];

/// Vertex-array element type (`dataType`) 0: unsigned byte.
pub const DATA_BYTE: i32 = 0;
/// Vertex-array element type 1: little-endian i16.
pub const DATA_INT16: i32 = 1;
/// Vertex-array element type 2: little-endian i32.
pub const DATA_INT32: i32 = 2;
/// Vertex-array element type 3: little-endian f32.
pub const DATA_FLOAT32: i32 = 3;

/// Node entity type (`type`) -1: no entity (a transform only).
pub const NODE_NONE: i32 = -1;
/// Node entity type 0: a mesh entity.
pub const NODE_MESH: i32 = 0;
/// Node entity type 1: a light entity.
pub const NODE_LIGHT: i32 = 1;

/// Bytes of one element of `data_type`, or None for an unknown type.
pub fn data_type_size(data_type: i32) -> Option<usize> {
    match data_type {
        DATA_BYTE => Some(1),
        DATA_INT16 => Some(2),
        DATA_INT32 | DATA_FLOAT32 => Some(4),
        _ => None,
    }
}

/// Display name of a vertex-array element type.
pub fn data_type_name(data_type: i32) -> &'static str {
    match data_type {
        DATA_BYTE => "u8",
        DATA_INT16 => "i16",
        DATA_INT32 => "i32",
        DATA_FLOAT32 => "f32",
        _ => "unknown",
    }
}

/// A parsed `.model` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Always 2 in real files.
    pub version: i32,
    /// Nodes in file order; parents are indices into this list.
    pub nodes: Vec<Node>,
    /// Bytes left after the last node; tolerated with a warning.
    pub trailing_bytes: usize,
    /// Non-fatal findings: trailing bytes, parent or bone indices that name no
    /// node, out-of-range vertex indices, segments and bone slots, odd MESH
    /// versions.
    pub warnings: Vec<String>,
}

impl Model {
    /// An empty version-2 model.
    pub fn new() -> Self {
        Model {
            version: 2,
            nodes: Vec::new(),
            trailing_bytes: 0,
            warnings: Vec::new(),
        }
    }
    /// Index of the first node whose raw name equals `name`.
    pub fn find_node(&self, name: &[u8]) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }
    /// Indices of the nodes carrying a mesh, in file order.
    pub fn mesh_nodes(&self) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&i| matches!(self.nodes[i].entity, Entity::Mesh(_)))
            .collect()
    }
    /// The model-space matrix of node `i`: `world(parent) · local`. Parents
    /// that are out of range end the chain; a cycle ends once every node has
    /// been counted.
    pub fn world_matrix(&self, i: usize) -> Mat4 {
        let mut m = Mat4::IDENTITY;
        let mut cur = Some(i);
        let mut steps = 0;
        while let Some(c) = cur {
            if c >= self.nodes.len() || steps >= self.nodes.len() {
                break;
            }
            m = self.nodes[c].local.to_mat4() * m;
            cur = self.nodes[c].parent_index();
            steps += 1;
        }
        m
    }
}

impl Default for Model {
    fn default() -> Self {
        Self::new()
    }
}

/// The `Mat4x3` of the file: four column vectors,
/// `p' = x·base_x + y·base_y + z·base_z + translation`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mat4x3 {
    /// Image of the X axis (floats 0–2).
    pub base_x: Vec3,
    /// Image of the Y axis (floats 3–5).
    pub base_y: Vec3,
    /// Image of the Z axis (floats 6–8).
    pub base_z: Vec3,
    /// Translation (floats 9–11).
    pub translation: Vec3,
}

impl Mat4x3 {
    /// The identity transform.
    pub const IDENTITY: Mat4x3 = Mat4x3 {
        base_x: Vec3::X,
        base_y: Vec3::Y,
        base_z: Vec3::Z,
        translation: Vec3::ZERO,
    };
    /// The affine 4×4 matrix with the same columns.
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_cols(
            self.base_x.extend(0.0),
            self.base_y.extend(0.0),
            self.base_z.extend(0.0),
            self.translation.extend(1.0),
        )
    }
    /// The first three rows of an affine matrix (the projective row is dropped).
    pub fn from_mat4(m: &Mat4) -> Self {
        Mat4x3 {
            base_x: m.x_axis.truncate(),
            base_y: m.y_axis.truncate(),
            base_z: m.z_axis.truncate(),
            translation: m.w_axis.truncate(),
        }
    }
    /// The 12 floats in file order.
    pub fn to_array(&self) -> [f32; 12] {
        let mut a = [0.0; 12];
        for (k, v) in [self.base_x, self.base_y, self.base_z, self.translation]
            .iter()
            .enumerate()
        {
            a[k * 3..k * 3 + 3].copy_from_slice(&v.to_array());
        }
        a
    }
    /// The matrix from its 12 floats in file order.
    pub fn from_array(a: &[f32; 12]) -> Self {
        Mat4x3 {
            base_x: Vec3::new(a[0], a[1], a[2]),
            base_y: Vec3::new(a[3], a[4], a[5]),
            base_z: Vec3::new(a[6], a[7], a[8]),
            translation: Vec3::new(a[9], a[10], a[11]),
        }
    }
}

/// One node of the model's tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The node name; animation tracks refer to nodes by it.
    pub name: RawName,
    /// `localToParent`: `world = world(parent) · local`.
    pub local: Mat4x3,
    /// Index of the parent node, -1 for none (as stored; may be out of range
    /// in a broken file — see [`Node::parent_index`]).
    pub parent: i32,
    /// What the node carries, from its `type` field.
    pub entity: Entity,
}

impl Node {
    /// A node with an identity matrix and no entity.
    pub fn new(name: &[u8], parent: i32) -> Self {
        Node {
            name: name.to_vec(),
            local: Mat4x3::IDENTITY,
            parent,
            entity: Entity::None,
        }
    }
    /// The node name for display.
    pub fn name_str(&self) -> String {
        name_str(&self.name)
    }
    /// The parent as an index, None for roots (any negative value).
    pub fn parent_index(&self) -> Option<usize> {
        usize::try_from(self.parent).ok()
    }
    /// The `type` field as stored: -1 none, 0 mesh, 1 light.
    pub fn node_type(&self) -> i32 {
        match self.entity {
            Entity::None => NODE_NONE,
            Entity::Mesh(_) => NODE_MESH,
            Entity::Light(_) => NODE_LIGHT,
        }
    }
    /// The mesh entity, if the node carries one.
    pub fn mesh(&self) -> Option<&MeshEntity> {
        match &self.entity {
            Entity::Mesh(m) => Some(m),
            _ => None,
        }
    }
}

/// The entity a node carries, selected by its `type` field.
#[derive(Debug, Clone, PartialEq)]
pub enum Entity {
    /// `type = -1`.
    None,
    /// `type = 0`.
    Mesh(MeshEntity),
    /// `type = 1` (layout unverified: no corpus file carries a light).
    Light(Light),
}

/// A mesh entity (node type 0): geometry plus its skinning bones.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshEntity {
    /// The `MESH` block.
    pub mesh: MeshData,
    /// Skinning bones; empty for rigid meshes.
    pub bones: Vec<Bone>,
    /// Emissive colour as stored; kiln does not draw it.
    pub emissive: Vec3,
    /// 1 in every real file.
    pub cast_shadow: u8,
}

/// One skinning bone of a mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// Index of the node that drives this bone.
    pub node: i32,
    /// Model space → bone space at rest. Skinned vertices are stored in model
    /// space: `v' = Σ w · world(bone) · inv_rest · v`. At rest the product
    /// `world(bone) · inv_rest` is the identity in most files but not all:
    /// `sewers_pressure_plate.model` stores centimetres and its inverse rest
    /// matrices carry the 0.01 scale, so always apply the full product.
    pub inv_rest: Mat4x3,
}

/// A `MESH` block: vertex arrays, indices, segments and bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshData {
    /// `MESH` block version; 2 in every real file (others are read with a warning).
    pub version: i32,
    /// Vertices in every present array.
    pub vertex_count: usize,
    /// Always [`VERTEX_ARRAY_COUNT`] entries, in slot order (absent arrays
    /// have `dim == 0`).
    pub arrays: Vec<VertexArray>,
    /// Triangle-list vertex indices; out-of-range ones are kept and warned about.
    pub indices: Vec<u32>,
    /// Slices of `indices`, one material each.
    pub segments: Vec<Segment>,
    /// Centre of the bounding sphere, as stored.
    pub bound_center: Vec3,
    /// Radius of the bounding sphere, as stored.
    pub bound_radius: f32,
    /// Minimum corner of the bounding box, as stored.
    pub bbox_min: Vec3,
    /// Maximum corner of the bounding box, as stored.
    pub bbox_max: Vec3,
}

impl MeshData {
    /// An empty version-2 mesh with 15 absent arrays.
    pub fn new() -> Self {
        MeshData {
            version: 2,
            vertex_count: 0,
            arrays: vec![VertexArray::absent(); VERTEX_ARRAY_COUNT],
            indices: Vec::new(),
            segments: Vec::new(),
            bound_center: Vec3::ZERO,
            bound_radius: 0.0,
            bbox_min: Vec3::ZERO,
            bbox_max: Vec3::ZERO,
        }
    }
    /// The array in `slot` if present (`dim > 0`).
    pub fn array(&self, slot: usize) -> Option<&VertexArray> {
        self.arrays.get(slot).filter(|a| a.is_present())
    }
    /// Positions (first three components of slot 0).
    pub fn positions(&self) -> Option<Vec<Vec3>> {
        self.array(POSITION).map(|a| a.vec3s())
    }
    /// Normals (first three components of slot 1).
    pub fn normals(&self) -> Option<Vec<Vec3>> {
        self.array(NORMAL).map(|a| a.vec3s())
    }
    /// First texture coordinates (first two components of slot 5).
    pub fn texcoords0(&self) -> Option<Vec<Vec2>> {
        self.array(TEXCOORD0).map(|a| a.vec2s())
    }
    /// Vertex colours as stored (bytes 0..=255 as floats, in file order).
    pub fn colors(&self) -> Option<Vec<Vec4>> {
        self.array(COLOR).map(|a| a.vec4s())
    }
    /// Up to four bone slots per vertex (indices into [`MeshEntity::bones`]);
    /// missing and negative components read 0.
    pub fn bone_indices(&self) -> Option<Vec<[u32; 4]>> {
        self.array(BONE_INDEX).map(|a| {
            a.vec4s()
                .iter()
                .map(|v| v.to_array().map(|x| if x > 0.0 { x as u32 } else { 0 }))
                .collect()
        })
    }
    /// Up to four bone weights per vertex, matching [`bone_indices`](Self::bone_indices);
    /// missing components read 0.
    pub fn bone_weights(&self) -> Option<Vec<[f32; 4]>> {
        self.array(BONE_WEIGHT)
            .map(|a| a.vec4s().iter().map(|v| v.to_array()).collect())
    }
}

impl Default for MeshData {
    fn default() -> Self {
        Self::new()
    }
}

/// One vertex-array header and its data.
#[derive(Debug, Clone, PartialEq)]
pub struct VertexArray {
    /// 0 u8, 1 i16, 2 i32, 3 f32.
    pub data_type: i32,
    /// Components per vertex; 0 = array absent.
    pub dim: i32,
    /// Bytes per vertex (at least `dim × element size` when present).
    pub stride: i32,
    /// The `vertex_count × stride` bytes exactly as stored; this is what the
    /// writer emits. Build arrays with the `from_*` constructors to keep it
    /// consistent with `values`.
    pub raw: Vec<u8>,
    /// Decoded components, `vertex_count × dim`, integers converted to f32
    /// without normalisation.
    pub values: Vec<f32>,
}

impl VertexArray {
    /// An absent array (`0, 0, 0`, no data).
    pub fn absent() -> Self {
        VertexArray {
            data_type: DATA_BYTE,
            dim: 0,
            stride: 0,
            raw: Vec::new(),
            values: Vec::new(),
        }
    }
    /// True when the array holds data (`dim > 0`).
    pub fn is_present(&self) -> bool {
        self.dim > 0
    }
    /// Components per vertex (0 for an absent array or a negative `dim`).
    pub fn dim(&self) -> usize {
        self.dim.max(0) as usize
    }
    /// A tightly packed f32 array of `dim` components per vertex.
    pub fn from_f32(dim: usize, values: &[f32]) -> Self {
        let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        Self::packed(DATA_FLOAT32, dim, 4, raw, values.to_vec())
    }
    /// A tightly packed i32 array (the bone-index layout of real files).
    pub fn from_i32(dim: usize, values: &[i32]) -> Self {
        let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let vals = values.iter().map(|&v| v as f32).collect();
        Self::packed(DATA_INT32, dim, 4, raw, vals)
    }
    /// A tightly packed i16 array.
    pub fn from_i16(dim: usize, values: &[i16]) -> Self {
        let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let vals = values.iter().map(|&v| v as f32).collect();
        Self::packed(DATA_INT16, dim, 2, raw, vals)
    }
    /// A tightly packed byte array (the colour layout of real files).
    pub fn from_u8(dim: usize, values: &[u8]) -> Self {
        let vals = values.iter().map(|&v| v as f32).collect();
        Self::packed(DATA_BYTE, dim, 1, values.to_vec(), vals)
    }
    fn packed(data_type: i32, dim: usize, size: usize, raw: Vec<u8>, values: Vec<f32>) -> Self {
        VertexArray {
            data_type,
            dim: dim as i32,
            stride: (dim * size) as i32,
            raw,
            values,
        }
    }
    /// Number of vertices held in `values`.
    pub fn len(&self) -> usize {
        self.values.len().checked_div(self.dim()).unwrap_or(0)
    }
    /// True when the array holds no vertices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Component `c` of vertex `v`, 0 when out of range.
    pub fn get(&self, v: usize, c: usize) -> f32 {
        let d = self.dim();
        if c >= d {
            return 0.0;
        }
        self.values.get(v * d + c).copied().unwrap_or(0.0)
    }
    /// Per-vertex vectors of the first 2 components (missing ones read 0).
    pub fn vec2s(&self) -> Vec<Vec2> {
        (0..self.len())
            .map(|v| Vec2::new(self.get(v, 0), self.get(v, 1)))
            .collect()
    }
    /// Per-vertex vectors of the first 3 components (missing ones read 0).
    pub fn vec3s(&self) -> Vec<Vec3> {
        (0..self.len())
            .map(|v| Vec3::new(self.get(v, 0), self.get(v, 1), self.get(v, 2)))
            .collect()
    }
    /// Per-vertex vectors of the first 4 components (missing ones read 0).
    pub fn vec4s(&self) -> Vec<Vec4> {
        (0..self.len())
            .map(|v| {
                Vec4::new(
                    self.get(v, 0),
                    self.get(v, 1),
                    self.get(v, 2),
                    self.get(v, 3),
                )
            })
            .collect()
    }
}

/// A renderable slice of the index buffer with one material.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// Material name, defined in Lua (`defineMaterial{ name = … }`).
    pub material: RawName,
    /// 2 (triangle list) in every real file.
    pub primitive_type: i32,
    /// First index (not triangle) of the segment in `MeshData::indices`.
    /// Every corpus mesh has a single segment starting at 0, so index vs
    /// triangle units are unconfirmed for multi-segment files.
    pub first_index: i32,
    /// Number of triangles: the segment covers `3 × triangle_count` indices.
    pub triangle_count: i32,
}

impl Segment {
    /// The material name for display.
    pub fn material_str(&self) -> String {
        name_str(&self.material)
    }
}

/// A light entity (node type 1). Unverified layout: no corpus file has one.
#[derive(Debug, Clone, PartialEq)]
pub struct Light {
    /// Light kind, as stored.
    pub kind: i32,
    /// Light colour.
    pub color: Vec3,
    /// Light range.
    pub range: f32,
    /// Spot cone angle, as stored.
    pub spot_angle: f32,
    /// Spot edge sharpness, as stored.
    pub spot_sharpness: f32,
    /// Non-zero when the light casts shadows.
    pub cast_shadow: u8,
}

/// A parsed `.animation` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    /// 1 (Grimrock 1: interleaved keys) or 2 (Grimrock 2: three arrays).
    pub version: i32,
    /// Empty in every real file.
    pub name: RawName,
    /// Frames per second; a value that is not positive is kept and warned about.
    pub fps: f32,
    /// Length in frames (duration = `frames / fps`); a negative count is kept
    /// and warned about.
    pub frames: i32,
    /// One track per animated node.
    pub tracks: Vec<Track>,
    /// Bytes left after the last track; tolerated with a warning.
    pub trailing_bytes: usize,
    /// Non-fatal findings: odd fps or frame count, trailing bytes.
    pub warnings: Vec<String>,
}

impl Animation {
    /// An empty animation of `version` (1 or 2).
    pub fn new(version: i32, fps: f32, frames: i32) -> Self {
        Animation {
            version,
            name: Vec::new(),
            fps,
            frames,
            tracks: Vec::new(),
            trailing_bytes: 0,
            warnings: Vec::new(),
        }
    }
    /// Seconds covered: `frames / fps` (0 when fps is not positive).
    pub fn duration(&self) -> f32 {
        if self.fps > 0.0 {
            self.frames as f32 / self.fps
        } else {
            0.0
        }
    }
    /// The first track whose raw node name equals `node`.
    pub fn find_track(&self, node: &[u8]) -> Option<&Track> {
        self.tracks.iter().find(|t| t.node == node)
    }
}

/// Keys for one node. In version 1 the three arrays have the same length (one
/// key per frame); in version 2 each array may differ, and an array with one
/// key is constant. Key `i` falls on frame `i`; the node's local matrix
/// becomes `T(position) · R(rotation) · S(scale)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    /// Name of the node the track drives; a track naming no node of the model
    /// is ignored when applied.
    pub node: RawName,
    /// Parent-relative positions, one per key.
    pub positions: Vec<Vec3>,
    /// Stored x, y, z, w.
    pub rotations: Vec<Quat>,
    /// Scales, one per key.
    pub scales: Vec<Vec3>,
}

impl Track {
    /// An empty track for the node named `node`.
    pub fn new(node: &[u8]) -> Self {
        Track {
            node: node.to_vec(),
            positions: Vec::new(),
            rotations: Vec::new(),
            scales: Vec::new(),
        }
    }
    /// The node name for display.
    pub fn node_str(&self) -> String {
        name_str(&self.node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mat4x3_columns_map_points_as_the_file_says() {
        let m = Mat4x3::from_array(&[
            0.0, 1.0, 0.0, // base_x
            -1.0, 0.0, 0.0, // base_y
            0.0, 0.0, 2.0, // base_z
            5.0, 6.0, 7.0, // translation
        ]);
        // p' = x·base_x + y·base_y + z·base_z + translation
        let p = m.to_mat4().transform_point3(Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(p, Vec3::new(3.0, 7.0, 13.0));
        assert_eq!(Mat4x3::from_mat4(&m.to_mat4()), m);
        assert_eq!(Mat4x3::from_array(&m.to_array()), m);
    }

    #[test]
    fn vertex_array_accessors_pad_missing_components() {
        let a = VertexArray::from_f32(2, &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!((a.len(), a.stride, a.raw.len()), (2, 8, 16));
        assert_eq!(
            a.vec3s(),
            [Vec3::new(1.0, 2.0, 0.0), Vec3::new(3.0, 4.0, 0.0)]
        );
        assert_eq!(a.get(5, 0), 0.0);
        let b = VertexArray::from_i16(1, &[-3, 7]);
        assert_eq!(
            (b.data_type, b.stride, b.values.clone()),
            (DATA_INT16, 2, vec![-3.0, 7.0])
        );
        assert_eq!(VertexArray::absent().len(), 0);
        assert_eq!(data_type_size(DATA_INT16), Some(2));
        assert_eq!(data_type_size(4), None);
    }

    #[test]
    fn world_matrix_survives_parent_cycles() {
        let mut m = Model::new();
        let mut a = Node::new(b"a", 1);
        a.local.translation = Vec3::X;
        let mut b = Node::new(b"b", 0);
        b.local.translation = Vec3::Y;
        m.nodes = vec![a, b];
        // The chain a → b → a … counts each node of the cycle once.
        let w = m.world_matrix(0).transform_point3(Vec3::ZERO);
        assert_eq!(w, Vec3::new(1.0, 1.0, 0.0));
    }
}
