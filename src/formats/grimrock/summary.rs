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

pub fn model_summary(_model: &Model) -> ModelSummary {
    ModelSummary {
        format: "MDL1",
        version: 0,
        nodes: Vec::new(),
        meshes: Vec::new(),
        trailing_bytes: 0,
        warnings: Vec::new(),
    }
}

pub fn animation_summary(anim: &Animation) -> AnimationSummary {
    AnimationSummary {
        format: "ANIM",
        version: anim.version,
        name: name_str(&anim.name),
        fps: anim.fps,
        frames: anim.frames,
        duration: anim.duration(),
        tracks: Vec::new(),
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
