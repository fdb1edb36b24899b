//! The glTF 2.0 JSON document as the specification names its properties:
//! only what kiln reads (and `kiln inspect` reports), every property
//! optional where the schema makes it so, unknown properties ignored.

use serde::Deserialize;
use std::collections::BTreeMap;

/// A glTF document's top level.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Document {
    pub asset: Asset,
    pub scene: Option<usize>,
    pub scenes: Vec<Scene>,
    pub nodes: Vec<Node>,
    pub meshes: Vec<Mesh>,
    pub accessors: Vec<Accessor>,
    pub buffer_views: Vec<BufferView>,
    pub buffers: Vec<Buffer>,
    pub materials: Vec<Material>,
    pub textures: Vec<Texture>,
    pub images: Vec<Image>,
    pub samplers: Vec<Sampler>,
    pub skins: Vec<Skin>,
    pub animations: Vec<Animation>,
    pub cameras: Vec<serde_json::Value>,
    pub extensions_used: Vec<String>,
    pub extensions_required: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Asset {
    pub version: String,
    pub min_version: Option<String>,
    pub generator: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Scene {
    pub name: Option<String>,
    pub nodes: Vec<usize>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Node {
    pub name: Option<String>,
    pub children: Vec<usize>,
    pub matrix: Option<[f32; 16]>,
    pub translation: Option<[f32; 3]>,
    pub rotation: Option<[f32; 4]>,
    pub scale: Option<[f32; 3]>,
    pub mesh: Option<usize>,
    pub skin: Option<usize>,
    pub camera: Option<usize>,
    pub weights: Option<Vec<f32>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Mesh {
    pub name: Option<String>,
    pub primitives: Vec<Primitive>,
    pub weights: Option<Vec<f32>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Primitive {
    pub attributes: BTreeMap<String, usize>,
    pub indices: Option<usize>,
    pub material: Option<usize>,
    pub mode: Option<u32>,
    pub targets: Vec<BTreeMap<String, usize>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Accessor {
    pub buffer_view: Option<usize>,
    pub byte_offset: u64,
    pub component_type: u32,
    pub normalized: bool,
    pub count: u64,
    #[serde(rename = "type")]
    pub kind: String,
    pub sparse: Option<Sparse>,
    pub name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Sparse {
    pub count: u64,
    pub indices: SparseIndices,
    pub values: SparseValues,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SparseIndices {
    pub buffer_view: usize,
    pub byte_offset: u64,
    pub component_type: u32,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SparseValues {
    pub buffer_view: usize,
    pub byte_offset: u64,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BufferView {
    pub buffer: usize,
    pub byte_offset: u64,
    pub byte_length: u64,
    pub byte_stride: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Buffer {
    pub uri: Option<String>,
    pub byte_length: u64,
    pub name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Material {
    pub name: Option<String>,
    pub pbr_metallic_roughness: Option<Pbr>,
    pub normal_texture: Option<TextureInfo>,
    pub occlusion_texture: Option<TextureInfo>,
    pub emissive_texture: Option<TextureInfo>,
    pub emissive_factor: Option<[f32; 3]>,
    pub alpha_mode: Option<String>,
    pub alpha_cutoff: Option<f32>,
    pub double_sided: bool,
    pub extensions: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Pbr {
    pub base_color_factor: Option<[f32; 4]>,
    pub base_color_texture: Option<TextureInfo>,
    pub metallic_factor: Option<f32>,
    pub roughness_factor: Option<f32>,
    pub metallic_roughness_texture: Option<TextureInfo>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TextureInfo {
    pub index: usize,
    pub tex_coord: u32,
    pub extensions: TextureInfoExtensions,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TextureInfoExtensions {
    #[serde(rename = "KHR_texture_transform")]
    pub transform: Option<TextureTransform>,
}

/// `KHR_texture_transform`.
#[derive(Debug, Default, Deserialize, Clone, Copy, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct TextureTransform {
    pub offset: Option<[f32; 2]>,
    pub rotation: Option<f32>,
    pub scale: Option<[f32; 2]>,
    pub tex_coord: Option<u32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Texture {
    pub sampler: Option<usize>,
    pub source: Option<usize>,
    pub name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Image {
    pub uri: Option<String>,
    pub mime_type: Option<String>,
    pub buffer_view: Option<usize>,
    pub name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Sampler {
    pub mag_filter: Option<u32>,
    pub min_filter: Option<u32>,
    pub wrap_s: Option<u32>,
    pub wrap_t: Option<u32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Skin {
    pub name: Option<String>,
    pub inverse_bind_matrices: Option<usize>,
    pub skeleton: Option<usize>,
    pub joints: Vec<usize>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Animation {
    pub name: Option<String>,
    pub channels: Vec<Channel>,
    pub samplers: Vec<AnimationSampler>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Channel {
    pub sampler: usize,
    pub target: Target,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Target {
    pub node: Option<usize>,
    pub path: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct AnimationSampler {
    pub input: usize,
    pub output: usize,
    pub interpolation: Option<String>,
}
