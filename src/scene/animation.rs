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

/// A copy of `model` carrying its file's animation `index` of
/// [`Model::extras`]`.takes` in place of its own: every other node at rest,
/// every morph at its rest weights; `None` when there is no such animation.
pub fn take(model: &Model, index: usize) -> Option<Model> {
    let take = model.extras.takes.get(index)?;
    let mut out = model.clone();
    for n in &mut out.nodes {
        n.anim = NodeAnim::default();
    }
    for m in out.extras.morphs.iter_mut().flatten() {
        m.tracks.clear();
    }
    for (i, anim) in &take.nodes {
        if let Some(n) = out.nodes.get_mut(*i) {
            n.anim = anim.clone();
        }
    }
    for (mesh, tracks) in &take.morphs {
        if let Some(Some(m)) = out.extras.morphs.get_mut(*mesh) {
            m.tracks = tracks.clone();
        }
    }
    out.duration = take.duration;
    Some(out)
}

/// Which of `model`'s animations `wanted` names: an exact name first, then
/// a name differing only in case, then an index (`"2"`); `None` when none.
pub fn find_take(model: &Model, wanted: &str) -> Option<usize> {
    let takes = &model.extras.takes;
    takes
        .iter()
        .position(|t| t.name == wanted)
        .or_else(|| {
            takes
                .iter()
                .position(|t| t.name.eq_ignore_ascii_case(wanted))
        })
        .or_else(|| wanted.parse::<usize>().ok().filter(|&i| i < takes.len()))
}
