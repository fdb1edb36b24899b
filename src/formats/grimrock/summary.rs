//! Plain, serialisable descriptions of Grimrock files for `kiln inspect`.

use super::*;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelSummary {
    pub format: &'static str,
    pub version: i32,
    pub nodes: Vec<NodeSummary>,
    pub meshes: Vec<MeshSummary>,
    pub trailing_bytes: usize,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeSummary {
    pub index: usize,
    pub name: String,
    pub parent: i32,
    /// "none", "mesh" or "light".
    pub kind: &'static str,
    /// Depth in the node tree (roots 0).
    pub depth: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeshSummary {
    pub node: usize,
    pub node_name: String,
    pub vertex_count: usize,
    pub arrays: Vec<VertexArraySummary>,
    pub index_count: usize,
    pub segments: Vec<SegmentSummary>,
    pub bones: Vec<BoneSummary>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VertexArraySummary {
    pub slot: usize,
    pub name: &'static str,
    pub data_type: &'static str,
    pub dim: i32,
    pub stride: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SegmentSummary {
    pub material: String,
    pub primitive_type: i32,
    pub first_index: i32,
    pub triangle_count: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoneSummary {
    pub node: i32,
    pub node_name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnimationSummary {
    pub format: &'static str,
    pub version: i32,
    pub name: String,
    pub fps: f32,
    pub frames: i32,
    pub duration: f32,
    pub tracks: Vec<TrackSummary>,
    pub trailing_bytes: usize,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrackSummary {
    pub node: String,
    pub position_keys: usize,
    pub rotation_keys: usize,
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
