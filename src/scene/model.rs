use super::track::Track;
use crate::texture::Texture;
use glam::{Mat3, Mat4, Quat, Vec2, Vec3};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct Model {
    pub name: String,
    pub source: PathBuf,
    /// Parents always come before their children.
    pub nodes: Vec<Node>,
    pub meshes: Vec<Mesh>,
    pub materials: Vec<Material>,
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
}

#[derive(Debug, Clone)]
pub struct Node {
    pub name: String,
    pub parent: Option<usize>,
    /// Rest values, used for every component that has no track.
    pub translation: Vec3,
    /// General 3×3 linear part (not always a pure rotation: RSM2's
    /// `inv(M3_parent)·M3`).
    pub linear: Mat3,
    pub scale: Vec3,
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
    pub translation: Option<Track<Vec3>>,
    pub rotation: Option<Track<Quat>>,
    pub scale: Option<Track<Vec3>>,
    /// In place of `scale`: a symmetric 3×3 stretch after the rotation
    /// (the polar factor `K` of a key matrix `R·K`), for keys that scale
    /// along other directions than the node's axes or shear, which a
    /// rotation and an axis scale cannot hold (plain Arma RTM matrices).
    pub stretch: Option<Track<Mat3>>,
}

#[derive(Debug, Clone)]
pub struct Mesh {
    pub name: String,
    /// The node whose world transform places this mesh.
    pub node: usize,
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<Vec2>,
    pub skin: Option<Skin>,
    pub primitives: Vec<Primitive>,
    /// Named per-vertex weights (Arma named selections), from which a skin is
    /// built once an animation says which names are bones.
    pub groups: Vec<VertexGroup>,
}

#[derive(Debug, Clone)]
pub struct VertexGroup {
    pub name: String,
    /// One weight per vertex, 0..=1.
    pub weights: Vec<f32>,
}

/// Triangles sharing one material and face mode.
#[derive(Debug, Clone)]
pub struct Primitive {
    pub material: usize,
    /// Counter-clockwise = front, in the mesh's own space before `display`.
    /// Posing swaps winding where the final matrix mirrors.
    pub triangles: Vec<[u32; 3]>,
    pub two_sided: bool,
    /// Texture-coordinate animation, applied in order (RSM2 2.3).
    pub uv_anims: Vec<UvAnim>,
}

#[derive(Debug, Clone)]
pub struct UvAnim {
    pub kind: UvAnimKind,
    pub track: Track<f32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UvAnimKind {
    TranslateU,
    TranslateV,
    ScaleU,
    ScaleV,
    /// Radians, about `(0.5, 0.5)`.
    Rotate,
}

/// Linear-blend skinning: `v = Σ w · world(joint) · inverse_bind · v_stored`.
#[derive(Debug, Clone)]
pub struct Skin {
    pub joints: Vec<usize>,
    pub inverse_bind: Vec<Mat4>,
    /// Per vertex: indices into `joints`.
    pub vertex_joints: Vec<[u16; 4]>,
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

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AlphaMode {
    Opaque,
    /// Alpha test: texels below the cutoff are discarded (colour keys).
    Mask(f32),
    /// Blended after opaque geometry, back to front.
    Blend,
}

#[derive(Debug, Clone)]
pub struct Material {
    pub name: String,
    pub texture: Option<usize>,
    pub alpha: AlphaMode,
    /// Shade type 0: no lighting.
    pub unlit: bool,
    /// Multiplies the texture (or is the colour when there is none), straight RGBA.
    pub base_color: [f32; 4],
}

#[derive(Debug, Clone)]
pub struct TextureSlot {
    /// The name as the model gives it.
    pub name: String,
    /// Where it was found, if anywhere.
    pub path: Option<PathBuf>,
    /// The decoded image; the checker when the file was not found or not readable.
    pub image: Arc<Texture>,
}
