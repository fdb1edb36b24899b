//! Root motion: the horizontal travel of a clip's root (a walk's forward
//! motion), found once per animated model, so a bake can draw the clip in
//! place and hand the travel to the engine instead.
//!
//! Formats name no root, so it is found from the animation: the shallowest
//! node whose translation track carries it sideways from its first key to
//! its last by more than 1 % of the model's size — travel, not sway —
//! provided the nodes moving with it at that depth carry at least 90 % of
//! the model's vertices. The skeleton warrior's walk moves `hip` and
//! `spine` (siblings under a still `local_srt`) three metres forward
//! together: `hip` is the root and drags the whole body. Its attack lunges
//! and comes back, the DayZ zombie's pelvis lurches and comes back: no
//! travel, so those clips keep their motion in the frames. A lever's handle
//! or a button moving on a still base carries too little of the model to
//! be a root, so such clips are never pinned.
//!
//! Two quantities come out of the root:
//! - [`drawn_offset`]: where the root is, sideways, relative to time 0, as
//!   posed (a Grimrock loop's last frame blends the root back to its start
//!   with the rest of the pose). Subtracting it pins the root in place.
//! - [`travel`]: the distance covered, which only grows over a loop: the
//!   root's path up to its last key, plus one whole cycle per loop, plus
//!   any travel the animation declares without applying (Arma's `step`).
//!   Per-frame differences of it are what an engine moves the sprite by.

use super::model::Model;
use super::pose::{node_local, node_worlds, pose, PosedModel};
use glam::{Mat4, Vec3};
use std::sync::Arc;

/// Samples over the duration when looking for a root.
const SAMPLES: usize = 128;
/// Sideways travel below this fraction of the model's size is not root motion.
const MIN_TRAVEL: f32 = 0.01;
/// Share of the vertices the moving root nodes must carry.
const MIN_COVERAGE: f64 = 0.9;

/// The node whose horizontal travel is the model's root motion, if any.
pub fn root_node(model: &Model) -> Option<usize> {
    root_group(model).map(|(root, _)| root)
}

/// The root ([`root_node`]) and the nodes at its depth travelling with it
/// (the root among them): the warrior's `hip` and `spine`.
pub fn root_group(model: &Model) -> Option<(usize, Vec<usize>)> {
    if model.duration <= 0.0 || !model.duration.is_finite() {
        return None;
    }
    let size = model_size(model)?;
    let eps = size * MIN_TRAVEL;
    let times: Vec<f32> = (0..=SAMPLES)
        .map(|i| model.duration * i as f32 / SAMPLES as f32)
        .collect();
    let worlds: Vec<Vec<Mat4>> = times.iter().map(|&t| node_worlds(model, t)).collect();
    let at = |node: usize, k: usize| -> Vec3 {
        let w = worlds[k].get(node).copied().unwrap_or(Mat4::IDENTITY);
        horizontal((model.display * w).transform_point3(Vec3::ZERO))
    };
    // Each travelling candidate's sideways path relative to time 0.
    let mut moving: Vec<(usize, usize, Vec<Vec3>)> = Vec::new();
    for (i, n) in model.nodes.iter().enumerate() {
        if n.anim
            .translation
            .as_ref()
            .is_none_or(|t| t.times.len() < 2)
        {
            continue;
        }
        let last = last_translation_key(model, i)
            .unwrap_or(model.duration)
            .clamp(0.0, model.duration);
        let net = horizontal(world_at(model, i, last) - world_at(model, i, 0.0));
        if net.length() <= eps {
            continue;
        }
        let start = at(i, 0);
        let path: Vec<Vec3> = (0..times.len()).map(|k| at(i, k) - start).collect();
        moving.push((i, depth(model, i), path));
    }
    let top = moving.iter().map(|m| m.1).min()?;
    let (root, _, root_path) = moving.iter().find(|m| m.1 == top)?;
    let group: Vec<usize> = moving
        .iter()
        .filter(|(_, d, path)| {
            *d == top
                && path
                    .iter()
                    .zip(root_path)
                    .all(|(a, b)| (*a - *b).length() <= eps)
        })
        .map(|m| m.0)
        .collect();
    (coverage(model, &group) >= MIN_COVERAGE).then_some((*root, group))
}

/// Where `root` is sideways at time `t` relative to time 0, in kiln's world,
/// as posed. Subtracting it from the posed vertices draws the model in
/// place.
pub fn drawn_offset(model: &Model, root: usize, t: f32) -> Vec3 {
    let p = |t: f32| {
        let w = node_worlds(model, t)
            .get(root)
            .copied()
            .unwrap_or(Mat4::IDENTITY);
        horizontal((model.display * w).transform_point3(Vec3::ZERO))
    };
    p(t) - p(0.0)
}

/// Draws `posed` (frame k posed at `times[k]`) in place: each frame's
/// vertices moved back by [`drawn_offset`]. A frame that shares its
/// vertices with the one before it ([`super::pose::share_repeats`]) and is
/// moved by the same offset shares the moved vertices too, so a still
/// model keeps one copy.
pub fn take_out(model: &Model, root: usize, posed: &mut [PosedModel], times: &[f32]) {
    // Per mesh of the frame before: where its vertices were as posed, and
    // the moved ones. Every frame's vertices are alive from the start, so
    // a later frame at the same address holds the very same vertices; only
    // the address is kept (a handle would force `make_mut` to copy).
    let mut before: Vec<(*const Vec<Vec3>, Arc<Vec<Vec3>>)> = Vec::new();
    let mut before_off: Option<[u32; 3]> = None;
    for (p, &t) in posed.iter_mut().zip(times) {
        let off = drawn_offset(model, root, t);
        let bits = off.to_array().map(f32::to_bits);
        let mut moved = Vec::with_capacity(p.meshes.len());
        for (k, m) in p.meshes.iter_mut().enumerate() {
            let as_posed = Arc::as_ptr(&m.positions);
            match before.get(k) {
                Some((b, shifted)) if before_off == Some(bits) && *b == as_posed => {
                    m.positions = shifted.clone();
                }
                _ => {
                    for v in Arc::make_mut(&mut m.positions).iter_mut() {
                        *v -= off;
                    }
                }
            }
            moved.push((as_posed, m.positions.clone()));
        }
        before = moved;
        before_off = Some(bits);
    }
}

/// `model` with `root`'s travel taken out of the translation keys of the
/// nodes travelling with it (`group`, from [`root_group`]), for
/// writers that keep the animation rather than posed frames (glTF): each
/// key moves back by the root's [`drawn_offset`] at its time, carried
/// into the parent's frame at that time, so the root's origin stays where
/// it was at time 0 sideways and keeps its height. Linear keys under a
/// still parent move by exactly the offset between keys too. Returns the
/// pinned model and, per key, its time and the offset removed (kiln's
/// world, the frame glTF's scene is in).
pub fn pin(model: &Model, root: usize, group: &[usize]) -> (Model, Vec<(f32, Vec3)>) {
    let mut out = model.clone();
    for &g in group {
        let parent = model.nodes.get(g).and_then(|n| n.parent);
        let Some(track) = out
            .nodes
            .get_mut(g)
            .and_then(|n| n.anim.translation.as_mut())
        else {
            continue;
        };
        for (k, &t) in track.times.iter().enumerate() {
            let off = drawn_offset(model, root, t);
            let frame = match parent {
                Some(p) => {
                    model.display
                        * node_worlds(model, t)
                            .get(p)
                            .copied()
                            .unwrap_or(Mat4::IDENTITY)
                }
                None => model.display,
            };
            let local = frame.inverse().transform_vector3(off);
            if let Some(v) = track.values.get_mut(k) {
                if local.is_finite() {
                    *v -= local;
                }
            }
        }
    }
    let removed = model
        .nodes
        .get(root)
        .and_then(|n| n.anim.translation.as_ref())
        .map(|t| {
            t.times
                .iter()
                .map(|&t| (t, drawn_offset(model, root, t)))
                .collect()
        })
        .unwrap_or_default();
    (out, removed)
}

/// The distance the clip has covered sideways from time 0 to `t`, in
/// kiln's world: the root's path held at its last key, one whole cycle more
/// per completed loop, plus the travel the animation declares
/// ([`Model::travel`]) in proportion to time.
pub fn travel(model: &Model, root: Option<usize>, t: f32) -> Vec3 {
    let d = model.duration;
    if !(d > 0.0 && d.is_finite() && t.is_finite()) {
        return Vec3::ZERO;
    }
    let (cycles, local) = if model.looping {
        let c = (t / d).floor();
        (c, t - c * d)
    } else {
        (0.0, t.clamp(0.0, d))
    };
    let declared = horizontal(model.display.transform_vector3(model.travel));
    let mut out = declared * ((cycles * d + local) / d);
    if let Some(root) = root {
        let last = last_translation_key(model, root).unwrap_or(d).clamp(0.0, d);
        let held = |u: f32| horizontal(world_at(model, root, u.min(last)));
        let start = held(0.0);
        out += held(local) - start + (held(last) - start) * cycles;
    }
    out
}

/// The sideways part of a vector of kiln's world (Y is up).
fn horizontal(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

/// `node`'s origin in kiln's world at `t` seconds, sampled without wrapping
/// (`t` within the clip).
fn world_at(model: &Model, node: usize, t: f32) -> Vec3 {
    let mut m = Mat4::IDENTITY;
    let mut chain = Vec::new();
    let mut cur = Some(node);
    while let Some(i) = cur {
        if i >= model.nodes.len() || chain.len() > model.nodes.len() {
            break;
        }
        chain.push(i);
        cur = model.nodes[i].parent.filter(|&p| p < i);
    }
    for &i in chain.iter().rev() {
        m *= node_local(&model.nodes[i], t);
    }
    (model.display * m).transform_point3(Vec3::ZERO)
}

fn last_translation_key(model: &Model, node: usize) -> Option<f32> {
    model
        .nodes
        .get(node)?
        .anim
        .translation
        .as_ref()?
        .times
        .last()
        .copied()
}

/// Ancestors above `node` (parents come before their children).
fn depth(model: &Model, node: usize) -> usize {
    let mut d = 0;
    let mut cur = model.nodes.get(node).and_then(|n| n.parent);
    while let Some(p) = cur.filter(|&p| p < model.nodes.len()) {
        d += 1;
        if d > model.nodes.len() {
            break;
        }
        cur = model.nodes[p].parent.filter(|&q| q < p);
    }
    d
}

fn is_under(model: &Model, node: usize, ancestor: usize) -> bool {
    let mut cur = Some(node);
    let mut steps = 0;
    while let Some(i) = cur {
        if i == ancestor {
            return true;
        }
        steps += 1;
        if i >= model.nodes.len() || steps > model.nodes.len() {
            return false;
        }
        cur = model.nodes[i].parent.filter(|&p| p < i);
    }
    false
}

/// The share of the model's vertices moved by nodes under `group`: a rigid
/// mesh's by its node, a skinned vertex's by its heaviest joint.
fn coverage(model: &Model, group: &[usize]) -> f64 {
    let under = |node: usize| group.iter().any(|&g| is_under(model, node, g));
    let (mut total, mut moved) = (0usize, 0usize);
    for mesh in &model.meshes {
        match &mesh.skin {
            None => {
                total += mesh.positions.len();
                if under(mesh.node) {
                    moved += mesh.positions.len();
                }
            }
            Some(skin) => {
                for v in 0..mesh.positions.len() {
                    total += 1;
                    let (js, ws) = skin.influence(v);
                    let k = (0..4).fold(0, |b, k| if ws[k] > ws[b] { k } else { b });
                    let joint = skin.joints.get(js[k] as usize).copied();
                    if joint.is_some_and(under) {
                        moved += 1;
                    }
                }
            }
        }
    }
    if total == 0 {
        0.0
    } else {
        moved as f64 / total as f64
    }
}

/// The diagonal of the model's bounding box at time 0.
fn model_size(model: &Model) -> Option<f32> {
    let posed = pose(model, 0.0);
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for p in posed.meshes.iter().flat_map(|m| m.positions.iter()) {
        if p.is_finite() {
            lo = lo.min(*p);
            hi = hi.max(*p);
        }
    }
    let size = (hi - lo).length();
    (size.is_finite() && size > 0.0).then_some(size)
}
