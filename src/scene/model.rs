use super::track::Track;
use crate::texture::Texture;
use glam::{Mat3, Mat4, Quat, Vec2, Vec3, Vec4};
pub use kiln_raster::material::{AlphaMode, Filter, Sampler, Wrap};
use std::path::PathBuf;
use std::sync::Arc;

/// kiln's one intermediate form of a model, whatever the file: the node tree, meshes, materials, textures and animation, every format quirk resolved.
#[derive(Debug, Clone)]
pub struct Model {
    /// The model's name (its file stem).
    pub name: String,
    /// The file it was read from.
    pub source: PathBuf,
    /// Parents always come before their children.
    pub nodes: Vec<Node>,
    /// Meshes, each placed by a node.
    pub meshes: Vec<Mesh>,
    /// Materials, indexed by primitives.
    pub materials: Vec<Material>,
    /// Textures, indexed by materials.
    pub textures: Vec<TextureSlot>,
    /// Loop period in seconds; 0 for a static model.
    pub duration: f32,
    /// The file's own frame rate, used as the default sampling rate.
    pub frame_rate: f32,
    /// Whether the animation loops: time wraps into `duration`. A one-shot
    /// (`false`) holds its last pose from its last key on
    /// ([`crate::scene::playback::one_shot`]).
    pub looping: bool,
    /// Displacement per `duration` that the animation declares but does
    /// not apply to the geometry (Arma's `step` when the model animates in
    /// place), in the model's own space before `display`. Root motion
    /// reports it; drawing ignores it.
    pub travel: Vec3,
    /// Maps the format's model space into kiln's world (Y up, right-handed,
    /// ground at y = 0). Applied after every node transform.
    pub display: Mat4,
    /// Notes for the user (missing textures, clamped indices, trailing bytes).
    pub warnings: Vec<String>,
    /// What only some formats hold (glTF's morph targets and its several
    /// animations); empty for the rest.
    pub extras: Extras,
}

/// The parts of a model only some formats have. Every field is empty for a
/// format without them, and posing then does exactly what it did without.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// Morph targets, by mesh index (a mesh beyond the list has none).
    pub morphs: Vec<Option<Morph>>,
    /// Every animation the file holds, in file order; the nodes (and
    /// morphs) carry the first ([`crate::scene::animation::take`] gives a
    /// copy carrying another).
    pub takes: Vec<Take>,
}

/// A mesh's morph targets: displacements blended by weights.
#[derive(Debug, Clone)]
pub struct Morph {
    /// The targets, each a displacement per vertex.
    pub targets: Vec<MorphTarget>,
    /// The weight of each target where no track gives one.
    pub weights: Vec<f32>,
    /// Per target, its weight over time; empty when not animated.
    pub tracks: Vec<Track<f32>>,
}

/// One morph target: what a weight of 1 adds to each vertex.
#[derive(Debug, Clone, Default)]
pub struct MorphTarget {
    /// Added to the positions (empty: none).
    pub positions: Vec<Vec3>,
    /// Added to the normals (empty: none).
    pub normals: Vec<Vec3>,
}

/// One animation a file holds besides the one the model carries.
#[derive(Debug, Clone)]
pub struct Take {
    /// Its name as the file gives it (may be empty).
    pub name: String,
    /// Its length in seconds: its last key.
    pub duration: f32,
    /// Tracks by node index.
    pub nodes: Vec<(usize, NodeAnim)>,
    /// Morph weight tracks by mesh index, one track per target.
    pub morphs: Vec<(usize, Vec<Track<f32>>)>,
}

/// One node of the tree: rest values, tracks and its own geometry matrix.
#[derive(Debug, Clone)]
pub struct Node {
    /// The node's name, as tracks address it.
    pub name: String,
    /// Index of the parent node; `None` for a root.
    pub parent: Option<usize>,
    /// Rest values, used for every component that has no track.
    pub translation: Vec3,
    /// General 3×3 linear part (not always a pure rotation: RSM2's
    /// `inv(M3_parent)·M3`).
    pub linear: Mat3,
    /// Rest scale, used where there is no scale track.
    pub scale: Vec3,
    /// The node's tracks.
    pub anim: NodeAnim,
    /// Applied to this node's own meshes only, never inherited by children
    /// (RSM1's `T(offset)·M3`).
    pub geometry: Mat4,
}

impl Node {
    /// A node that does not move its meshes: identity rest values, no
    /// animation, no geometry matrix.
    pub fn identity(name: impl Into<String>, parent: Option<usize>) -> Node {
        Node {
            name: name.into(),
            parent,
            translation: Vec3::ZERO,
            linear: Mat3::IDENTITY,
            scale: Vec3::ONE,
            anim: NodeAnim::default(),
            geometry: Mat4::IDENTITY,
        }
    }
}

/// `local(t) = T(translation) · R(rotation) · S(scale)`; a missing track uses
/// the node's rest value.
#[derive(Debug, Clone, Default)]
pub struct NodeAnim {
    /// Translation keys.
    pub translation: Option<Track<Vec3>>,
    /// Rotation keys.
    pub rotation: Option<Track<Quat>>,
    /// Scale keys.
    pub scale: Option<Track<Vec3>>,
    /// In place of `scale`: a symmetric 3×3 stretch after the rotation
    /// (the polar factor `K` of a key matrix `R·K`), for keys that scale
    /// along other directions than the node's axes or shear, which a
    /// rotation and an axis scale cannot hold (plain Arma RTM matrices).
    pub stretch: Option<Track<Mat3>>,
}

/// Vertices and their triangles, placed by one node (or skinned).
#[derive(Debug, Clone)]
pub struct Mesh {
    /// The mesh's name.
    pub name: String,
    /// The node whose world transform places this mesh.
    pub node: usize,
    /// Vertex positions, the mesh's own space.
    pub positions: Vec<Vec3>,
    /// Vertex normals, the mesh's own space.
    pub normals: Vec<Vec3>,
    /// Texture coordinates, one per vertex.
    pub uvs: Vec<Vec2>,
    /// Straight linear RGBA per vertex, multiplying the material's colour
    /// (glTF's `COLOR_0`); empty for none, which is white.
    pub colors: Vec<Vec4>,
    /// Skinning, when bones move the vertices.
    pub skin: Option<Skin>,
    /// Triangles by material.
    pub primitives: Vec<Primitive>,
    /// Named per-vertex weights (Arma named selections), from which a skin is
    /// built once an animation says which names are bones.
    pub groups: Vec<VertexGroup>,
}

/// A named set of weighted vertices.
#[derive(Debug, Clone)]
pub struct VertexGroup {
    /// The selection's name.
    pub name: String,
    /// One weight per vertex, 0..=1.
    pub weights: Vec<f32>,
}

/// Triangles sharing one material and face mode.
#[derive(Debug, Clone)]
pub struct Primitive {
    /// Index into the model's materials.
    pub material: usize,
    /// Counter-clockwise = front, in the mesh's own space before `display`.
    /// Posing swaps winding where the final matrix mirrors.
    pub triangles: Vec<[u32; 3]>,
    /// Back faces drawn too.
    pub two_sided: bool,
    /// Texture-coordinate animation, applied in order (RSM2 2.3).
    pub uv_anims: Vec<UvAnim>,
}

/// One texture-coordinate animation.
#[derive(Debug, Clone)]
pub struct UvAnim {
    /// What it moves.
    pub kind: UvAnimKind,
    /// Its value over time.
    pub track: Track<f32>,
}

/// What a texture-coordinate animation moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UvAnimKind {
    /// Shifts u.
    TranslateU,
    /// Shifts v.
    TranslateV,
    /// Scales u.
    ScaleU,
    /// Scales v.
    ScaleV,
    /// Radians, about `(0.5, 0.5)`.
    Rotate,
}

/// Linear-blend skinning: `v = Σ w · world(joint) · inverse_bind · v_stored`.
#[derive(Debug, Clone)]
pub struct Skin {
    /// Node indices of the joints.
    pub joints: Vec<usize>,
    /// One inverse bind matrix per joint.
    pub inverse_bind: Vec<Mat4>,
    /// Per vertex: indices into `joints`.
    pub vertex_joints: Vec<[u16; 4]>,
    /// Per vertex: the weight of each of `vertex_joints`, summing to 1.
    pub vertex_weights: Vec<[f32; 4]>,
}

impl Skin {
    /// Vertex `v`'s joints (indices into `joints`) and weights; a vertex
    /// the lists do not reach follows the first joint alone.
    pub fn influence(&self, v: usize) -> ([u16; 4], [f32; 4]) {
        (
            self.vertex_joints.get(v).copied().unwrap_or([0; 4]),
            self.vertex_weights
                .get(v)
                .copied()
                .unwrap_or([1.0, 0.0, 0.0, 0.0]),
        )
    }
}

/// How a primitive's triangles are shaded.
#[derive(Debug, Clone)]
pub struct Material {
    /// The material's name.
    pub name: String,
    /// Index into the model's textures.
    pub texture: Option<usize>,
    /// How alpha is drawn.
    pub alpha: AlphaMode,
    /// Shade type 0: no lighting.
    pub unlit: bool,
    /// Multiplies the texture (or is the colour when there is none), straight RGBA.
    pub base_color: [f32; 4],
    /// Linear RGB the surface gives off, added after lighting (lit
    /// materials only); zero for none.
    pub emissive: [f32; 3],
    /// Index into the model's textures: multiplies `emissive`, sampled at
    /// the mesh's texture coordinates.
    pub emissive_texture: Option<usize>,
}

/// A texture a model names, and what was found for it.
#[derive(Debug, Clone)]
pub struct TextureSlot {
    /// The name as the model gives it.
    pub name: String,
    /// Where it was found, if anywhere.
    pub path: Option<PathBuf>,
    /// The decoded image; the checker when the file was not found or not readable.
    pub image: Arc<Texture>,
    /// How the image is sampled.
    pub sampler: Sampler,
}
