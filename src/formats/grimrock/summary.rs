//! Plain, serialisable descriptions of Grimrock files for `kiln inspect`.

use super::*;
use serde::Serialize;

/// The node tree, meshes and warnings of one `.model` file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelSummary {
    /// Always "MDL1".
    pub format: &'static str,
    /// The file's version (2).
    pub version: i32,
    /// Every node, in file order.
    pub nodes: Vec<NodeSummary>,
    /// One entry per mesh node, in file order.
    pub meshes: Vec<MeshSummary>,
    /// Bytes after the last node.
    pub trailing_bytes: usize,
    /// The parser's warnings.
    pub warnings: Vec<String>,
}

/// One node of the tree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeSummary {
    /// Index in the file's node list.
    pub index: usize,
    /// Node name.
    pub name: String,
    /// Parent index as stored (-1 for roots).
    pub parent: i32,
    /// "none", "mesh" or "light".
    pub kind: &'static str,
    /// Depth in the node tree (roots 0).
    pub depth: usize,
}

/// One mesh entity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeshSummary {
    /// Index of the node carrying the mesh.
    pub node: usize,
    /// Name of that node.
    pub node_name: String,
    /// Vertices in every present array.
    pub vertex_count: usize,
    /// The present vertex arrays, in slot order.
    pub arrays: Vec<VertexArraySummary>,
    /// Entries in the index buffer.
    pub index_count: usize,
    /// The mesh's segments.
    pub segments: Vec<SegmentSummary>,
    /// The skinning bones (empty for rigid meshes).
    pub bones: Vec<BoneSummary>,
}

/// One present vertex array.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VertexArraySummary {
    /// Slot index, 0..15.
    pub slot: usize,
    /// Slot name from [`VERTEX_ARRAY_NAMES`].
    pub name: &'static str,
    /// "u8", "i16", "i32", "f32" or "unknown".
    pub data_type: &'static str,
    /// Components per vertex.
    pub dim: i32,
    /// Bytes per vertex.
    pub stride: i32,
}

/// One segment of the index buffer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SegmentSummary {
    /// Material name.
    pub material: String,
    /// 2 (triangle list) in real files.
    pub primitive_type: i32,
    /// First index of the segment.
    pub first_index: i32,
    /// Triangles in the segment.
    pub triangle_count: i32,
}

/// One skinning bone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoneSummary {
    /// Index of the driving node, as stored.
    pub node: i32,
    /// Name of that node; None when the index names no node.
    pub node_name: Option<String>,
}

/// The header, tracks and warnings of one `.animation` file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnimationSummary {
    /// Always "ANIM".
    pub format: &'static str,
    /// 1 (Grimrock 1) or 2 (Grimrock 2).
    pub version: i32,
    /// The animation's stored name (empty in real files).
    pub name: String,
    /// Frames per second.
    pub fps: f32,
    /// Length in frames.
    pub frames: i32,
    /// Seconds: `frames / fps` (0 when fps is not positive).
    pub duration: f32,
    /// One entry per track, in file order.
    pub tracks: Vec<TrackSummary>,
    /// Bytes after the last track.
    pub trailing_bytes: usize,
    /// The parser's warnings.
    pub warnings: Vec<String>,
}

/// Key counts of one track.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrackSummary {
    /// Name of the node the track drives.
    pub node: String,
    /// Position keys.
    pub position_keys: usize,
    /// Rotation keys.
    pub rotation_keys: usize,
    /// Scale keys.
    pub scale_keys: usize,
}

/// Summarises a model: the node tree in file order, then one entry per mesh.
pub fn model_summary(model: &Model) -> ModelSummary {
    let nodes = model
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| NodeSummary {
            index: i,
            name: n.name_str(),
            parent: n.parent,
            kind: match n.entity {
                Entity::None => "none",
                Entity::Mesh(_) => "mesh",
                Entity::Light(_) => "light",
            },
            depth: depth(model, i),
        })
        .collect();
    let meshes = model
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| n.mesh().map(|m| (i, n, m)))
        .map(|(i, n, m)| MeshSummary {
            node: i,
            node_name: n.name_str(),
            vertex_count: m.mesh.vertex_count,
            arrays: m
                .mesh
                .arrays
                .iter()
                .enumerate()
                .filter(|(_, a)| a.is_present())
                .map(|(slot, a)| VertexArraySummary {
                    slot,
                    name: VERTEX_ARRAY_NAMES.get(slot).copied().unwrap_or("extra"),
                    data_type: data_type_name(a.data_type),
                    dim: a.dim,
                    stride: a.stride,
                })
                .collect(),
            index_count: m.mesh.indices.len(),
            segments: m
                .mesh
                .segments
                .iter()
                .map(|s| SegmentSummary {
                    material: s.material_str(),
                    primitive_type: s.primitive_type,
                    first_index: s.first_index,
                    triangle_count: s.triangle_count,
                })
                .collect(),
            bones: m
                .bones
                .iter()
                .map(|b| BoneSummary {
                    node: b.node,
                    node_name: usize::try_from(b.node)
                        .ok()
                        .and_then(|k| model.nodes.get(k))
                        .map(|n| n.name_str()),
                })
                .collect(),
        })
        .collect();
    ModelSummary {
        format: "MDL1",
        version: model.version,
        nodes,
        meshes,
        trailing_bytes: model.trailing_bytes,
        warnings: model.warnings.clone(),
    }
}

/// Steps from node `i` up to a root; a parent chain that loops or leaves the
/// node list stops counting there.
fn depth(model: &Model, i: usize) -> usize {
    let mut d = 0;
    let mut cur = model.nodes[i].parent_index();
    while let Some(c) = cur {
        if c >= model.nodes.len() || d >= model.nodes.len() {
            break;
        }
        d += 1;
        cur = model.nodes[c].parent_index();
    }
    d
}

/// Summarises an animation: header fields and per-track key counts.
pub fn animation_summary(anim: &Animation) -> AnimationSummary {
    AnimationSummary {
        format: "ANIM",
        version: anim.version,
        name: name_str(&anim.name),
        fps: anim.fps,
        frames: anim.frames,
        duration: anim.duration(),
        tracks: anim
            .tracks
            .iter()
            .map(|t| TrackSummary {
                node: t.node_str(),
                position_keys: t.positions.len(),
                rotation_keys: t.rotations.len(),
                scale_keys: t.scales.len(),
            })
            .collect(),
        trailing_bytes: anim.trailing_bytes,
        warnings: anim.warnings.clone(),
    }
}

/// Names of the tracks whose node the model lacks, in track order.
pub fn unmatched_tracks(anim: &Animation, model: &Model) -> Vec<String> {
    anim.tracks
        .iter()
        .filter(|t| model.find_node(&t.node).is_none())
        .map(|t| t.node_str())
        .collect()
}
