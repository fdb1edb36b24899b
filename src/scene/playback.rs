//! How a clip plays: looping, or once. A looping clip wraps its time into
//! the model's duration and, where the format blends its last key back into
//! its first (Grimrock), closes the loop that way. A one-shot — a door
//! opening, a lever pulled — must end on its last pose: its tracks hold the
//! last key and its time never wraps.

use super::model::{Model, NodeAnim};
use super::track::Track;

/// A copy of `model` that plays once: no track blends past its last key
/// back into its first, and posing holds the time within the duration.
pub fn one_shot(model: &Model) -> Model {
    let mut out = model.clone();
    out.looping = false;
    for n in &mut out.nodes {
        hold_last(&mut n.anim);
    }
    for m in &mut out.meshes {
        for p in &mut m.primitives {
            for a in &mut p.uv_anims {
                a.track.wrap_to_first = None;
            }
        }
    }
    out
}

fn hold_last(a: &mut NodeAnim) {
    if let Some(t) = &mut a.translation {
        t.wrap_to_first = None;
    }
    if let Some(t) = &mut a.rotation {
        t.wrap_to_first = None;
    }
    if let Some(t) = &mut a.scale {
        t.wrap_to_first = None;
    }
}

/// The time of the model's last key (node and texture tracks), or `None`
/// when nothing is keyed. A one-shot's last pose is reached there, which
/// for Grimrock is one frame before the loop length (the last frame of a
/// loop blends back into the first).
pub fn last_key_time(model: &Model) -> Option<f32> {
    fn last<T>(t: &Option<Track<T>>) -> Option<f32> {
        t.as_ref().and_then(|t| t.times.last().copied())
    }
    let nodes = model.nodes.iter().flat_map(|n| {
        [
            last(&n.anim.translation),
            last(&n.anim.rotation),
            last(&n.anim.scale),
        ]
    });
    let uvs = model
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .flat_map(|p| &p.uv_anims)
        .map(|a| a.track.times.last().copied());
    let morphs = model
        .extras
        .morphs
        .iter()
        .flatten()
        .flat_map(|m| &m.tracks)
        .map(|t| t.times.last().copied());
    nodes
        .chain(uvs)
        .chain(morphs)
        .flatten()
        .filter(|t| t.is_finite())
        .fold(None, |acc: Option<f32>, t| {
            Some(acc.map_or(t, |a| a.max(t)))
        })
}

/// Where a one-shot clip of `model` naturally ends: its last key, within
/// its duration; the duration when nothing is keyed.
pub fn one_shot_end(model: &Model) -> f32 {
    let d = model.duration.max(0.0);
    match last_key_time(model) {
        Some(t) if t > 0.0 && (d <= 0.0 || t <= d) => t,
        _ => d,
    }
}
