//! Animations kept in their own files (Grimrock `.animation`, Arma `.rtm`):
//! tracks addressed by node name, applied to a model to give a posable copy.

use super::model::{Model, NodeAnim};

/// One node's tracks, by node name as the animation file gives it.
#[derive(Debug, Clone)]
pub struct NodeTrack {
    /// The node's name as the animation file gives it.
    pub node: String,
    /// Its tracks.
    pub anim: NodeAnim,
}

/// An animation file lowered into tracks by node name, to pose a model with.
#[derive(Debug, Clone)]
pub struct Animation {
    /// Loop period in seconds.
    pub duration: f32,
    /// The file's frame rate, frames per second.
    pub frame_rate: f32,
    /// One entry per animated node.
    pub tracks: Vec<NodeTrack>,
    /// Displacement per `duration` the file declares but the tracks do
    /// not apply (see [`Model::travel`]).
    pub travel: glam::Vec3,
}

/// A copy of `model` animated by `anim`: nodes with a track take it (names
/// match exactly, then case-insensitively), nodes without one keep their
/// rest values. Returns the names of tracks that matched no node.
pub fn apply(model: &Model, anim: &Animation) -> (Model, Vec<String>) {
    let mut out = model.clone();
    for n in &mut out.nodes {
        n.anim = NodeAnim::default();
    }
    let mut unmatched = Vec::new();
    for t in &anim.tracks {
        let i = out.nodes.iter().position(|n| n.name == t.node).or_else(|| {
            out.nodes
                .iter()
                .position(|n| n.name.eq_ignore_ascii_case(&t.node))
        });
        match i {
            Some(i) => out.nodes[i].anim = t.anim.clone(),
            None => unmatched.push(t.node.clone()),
        }
    }
    out.duration = anim.duration;
    out.frame_rate = anim.frame_rate;
    out.travel = anim.travel;
    (out, unmatched)
}
