//! The keys of every channel in every clip, the resting values they give
//! the nodes, and the glTF animations that key the channels that move.

use super::super::keys::{keys, Keyable, Keys, Window};
use super::super::material::TEXTURE_TRANSFORM;
use super::super::motion::{signals, Frame, Tolerances};
use super::super::texture_motion;
use super::{AnimationReport, Builder, ClipInput, Geometry, GltfReport, OutNode, Tree, POINTER};
use glam::{Quat, Vec2, Vec3};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// A keyed property of one output node, or of one material's texture
/// transform.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    Node(usize, &'static str),
    Texture(usize, &'static str),
}

enum AnyKeys {
    Vec3(Keys<Vec3>),
    Quat(Keys<Quat>),
    Vec2(Keys<Vec2>),
    F32(Keys<f32>),
}

impl AnyKeys {
    fn len(&self) -> usize {
        match self {
            AnyKeys::Vec3(k) => k.times.len(),
            AnyKeys::Quat(k) => k.times.len(),
            AnyKeys::Vec2(k) => k.times.len(),
            AnyKeys::F32(k) => k.times.len(),
        }
    }
}

/// Every channel's keys, one entry per clip, and its first clip's start.
pub(super) struct Keyed {
    channels: BTreeMap<Target, Vec<AnyKeys>>,
    statics: BTreeMap<Target, AnyKeys>,
}

/// One clip's keys as they are added: how many were added for the
/// format's interpolation, and the longest seam.
struct ClipKeys<'a> {
    channels: &'a mut BTreeMap<Target, Vec<AnyKeys>>,
    added: BTreeMap<&'static str, (usize, usize)>,
    seams: usize,
}

impl ClipKeys<'_> {
    fn put<V: Keyable>(
        &mut self,
        target: Target,
        k: Keys<V>,
        wrap: fn(Keys<V>) -> AnyKeys,
        why: &'static str,
        counted: bool,
    ) {
        let (added, seams) = if counted { (k.added, k.seams) } else { (0, 0) };
        if added > 0 {
            let e = self.added.entry(why).or_insert((0, 0));
            e.0 += 1;
            e.1 += added;
        }
        self.seams = self.seams.max(seams);
        self.channels.entry(target).or_default().push(wrap(k));
    }
}

impl Keyed {
    /// The keys of every clip; notes on what glTF could not hold go to
    /// `report`.
    pub(super) fn collect(
        clips: &[ClipInput],
        frame: Frame,
        tol: Tolerances,
        tree: &Tree,
        geometry: &Geometry,
        textured: &[bool],
        report: &mut GltfReport,
    ) -> Keyed {
        let mut channels: BTreeMap<Target, Vec<AnyKeys>> = BTreeMap::new();
        let mut statics: BTreeMap<Target, AnyKeys> = BTreeMap::new();
        for (ci, clip) in clips.iter().enumerate() {
            let w = Window {
                start: clip.start,
                length: clip.length.max(0.0),
                period: clip.model.duration,
            };
            let mut ck = ClipKeys {
                channels: &mut channels,
                added: BTreeMap::new(),
                seams: 0,
            };
            node_keys(clip, frame, tol, tree, &w, &mut ck, report);
            for &(v, mi, pi) in &geometry.animated {
                if !textured[v] {
                    continue;
                }
                let s =
                    texture_motion::signals(&clip.model.meshes[mi].primitives[pi].uv_anims, 1e-5);
                let why = "texture offsets of rotating textures";
                ck.put(
                    Target::Texture(v, "offset"),
                    keys(&s.offset, &w),
                    AnyKeys::Vec2,
                    why,
                    true,
                );
                let r = keys(&s.rotation, &w);
                ck.put(
                    Target::Texture(v, "rotation"),
                    r,
                    AnyKeys::F32,
                    "texture rotations",
                    false,
                );
                let sc = keys(&s.scale, &w);
                ck.put(
                    Target::Texture(v, "scale"),
                    sc,
                    AnyKeys::Vec2,
                    "texture scales",
                    false,
                );
            }
            let (added, seams) = (ck.added, ck.seams);
            for (why, (channels_n, keys_n)) in added {
                report.notes.push(format!(
                    "clip '{}': {keys_n} key(s) added on {channels_n} channel(s) of {why}, so glTF's interpolation follows the format's between its keys",
                    clip.name
                ));
            }
            if seams > 0 {
                report.notes.push(format!(
                    "clip '{}' runs past the end of the loop; each wrap back to the start takes {} ms in glTF",
                    clip.name,
                    super::super::keys::SEAM * 1000.0
                ));
            }
            if ci == 0 {
                for (target, ks) in &channels {
                    if let Some(k) = ks.first() {
                        statics.insert(target.clone(), first_of(k));
                    }
                }
            }
        }
        Keyed { channels, statics }
    }

    /// A node's resting values are its first clip's start.
    pub(super) fn rest(&self, nodes: &mut [OutNode]) {
        for (target, k) in &self.statics {
            if let Target::Node(node, path) = target {
                let trs = nodes[*node]
                    .trs
                    .get_or_insert((Vec3::ZERO, Quat::IDENTITY, Vec3::ONE));
                match (path, k) {
                    (&"translation", AnyKeys::Vec3(k)) => trs.0 = k.values[0],
                    (&"rotation", AnyKeys::Quat(k)) => trs.1 = k.values[0],
                    (&"scale", AnyKeys::Vec3(k)) => trs.2 = k.values[0],
                    _ => {}
                }
            }
        }
    }

    /// One glTF animation per clip keying the channels that move in some
    /// clip (none when nothing moves), and whether any keys a texture
    /// transform through a pointer.
    pub(super) fn animations(
        &self,
        clips: &[ClipInput],
        b: &mut Builder,
        report: &mut GltfReport,
    ) -> (Vec<Value>, bool) {
        let moving: Vec<&Target> = self
            .channels
            .iter()
            .filter(|(target, ks)| {
                let first = &self.statics[*target];
                ks.iter().any(|k| !same_as(k, first))
            })
            .map(|(t, _)| t)
            .collect();
        let mut animations = Vec::new();
        let mut inputs: BTreeMap<Vec<u32>, usize> = BTreeMap::new();
        let mut any_pointer = false;
        for (ci, clip) in clips.iter().enumerate() {
            let mut samplers = Vec::new();
            let mut chans = Vec::new();
            let mut texture_extras = Vec::new();
            let mut key_count = 0;
            for &target in &moving {
                let k = &self.channels[target][ci];
                key_count += k.len();
                let (times, values, kind, width, step) = flatten(k);
                let bits: Vec<u32> = times.iter().map(|t| t.to_bits()).collect();
                let input = *inputs
                    .entry(bits)
                    .or_insert_with(|| b.floats(&times, "SCALAR", 1, true));
                let output = b.floats(&values, kind, width, false);
                let sampler_index = samplers.len();
                samplers.push(json!({
                    "input": input,
                    "output": output,
                    "interpolation": if step { "STEP" } else { "LINEAR" },
                }));
                match target {
                    Target::Node(node, path) => chans.push(json!({
                        "sampler": sampler_index,
                        "target": { "node": node, "path": path },
                    })),
                    Target::Texture(v, path) => {
                        any_pointer = true;
                        chans.push(pointer_channel(sampler_index, *v, path));
                        texture_extras.push(json!({
                            "material": v,
                            "property": path,
                            "sampler": sampler_index,
                        }));
                    }
                }
            }
            let mut a = Map::new();
            a.insert("name".into(), json!(clip.name));
            a.insert("channels".into(), Value::Array(chans));
            a.insert("samplers".into(), Value::Array(samplers));
            let mut extras = Map::new();
            extras.insert("start".into(), json!(clip.start));
            if let Some(s) = &clip.source {
                extras.insert("source".into(), json!(s));
            }
            if !texture_extras.is_empty() {
                extras.insert("textureTransforms".into(), Value::Array(texture_extras));
            }
            if let Some(r) = &clip.root_motion {
                extras.insert("rootMotion".into(), r.clone());
            }
            a.insert("extras".into(), Value::Object(extras));
            report.animations.push(AnimationReport {
                name: clip.name.clone(),
                seconds: clip.length.max(0.0),
                channels: moving.len(),
                keys: key_count,
            });
            animations.push(Value::Object(a));
        }
        if moving.is_empty() {
            // A clip that moves nothing is no glTF animation (which needs a
            // channel); the file holds the pose.
            animations.clear();
            report
                .notes
                .push("nothing moves in any clip; the file holds the pose alone".into());
        }
        (animations, any_pointer)
    }
}

/// Every node's translation, rotation and scale keys in one clip, and its
/// shape node's.
fn node_keys(
    clip: &ClipInput,
    frame: Frame,
    tol: Tolerances,
    tree: &Tree,
    w: &Window,
    ck: &mut ClipKeys,
    report: &mut GltfReport,
) {
    for (i, node) in clip.model.nodes.iter().enumerate() {
        let sig = signals(node, frame, tol);
        let head = tree.heads[i];
        let rot_why = if sig.nlerp {
            "rotations nlerped by the format (glTF slerps)"
        } else {
            "rotations"
        };
        let t = keys(&sig.translation, w);
        let r = keys(&sig.rotation, w);
        let s = keys(&sig.scale, w);
        ck.put(
            Target::Node(head, "translation"),
            t,
            AnyKeys::Vec3,
            "translations",
            true,
        );
        ck.put(
            Target::Node(head, "rotation"),
            r,
            AnyKeys::Quat,
            rot_why,
            true,
        );
        ck.put(
            Target::Node(head, "scale"),
            s,
            AnyKeys::Vec3,
            "scales",
            true,
        );
        if let Some(shape) = tree.shapes[i] {
            let r = keys(&sig.shape_rotation, w);
            let s = keys(&sig.shape_scale, w);
            ck.put(
                Target::Node(shape, "rotation"),
                r,
                AnyKeys::Quat,
                "rotations",
                false,
            );
            ck.put(
                Target::Node(shape, "scale"),
                s,
                AnyKeys::Vec3,
                "scales",
                true,
            );
        }
        if let Some(lost) = sig.lost_stretch {
            report.notes.push(format!(
                "clip '{}': bone '{}' scales off its axes or shears by up to {:.3} % in its keys; glTF's TRS keeps its rotation and axis scale (kiln poses the full matrix)",
                clip.name,
                node.name,
                lost * 100.0
            ));
        }
    }
}

/// A channel keying a material's texture transform, which glTF reaches
/// only through `KHR_animation_pointer`.
fn pointer_channel(sampler: usize, material: usize, path: &str) -> Value {
    let pointer = format!(
        "/materials/{material}/pbrMetallicRoughness/baseColorTexture/extensions/{TEXTURE_TRANSFORM}/{path}"
    );
    json!({
        "sampler": sampler,
        "target": {
            "path": "pointer",
            "extensions": { POINTER: { "pointer": pointer } },
        },
    })
}

fn first_of(k: &AnyKeys) -> AnyKeys {
    fn one<V: Keyable>(k: &Keys<V>) -> Keys<V> {
        Keys {
            times: vec![0.0],
            values: vec![k.values[0]],
            step: k.step,
            added: 0,
            seams: 0,
        }
    }
    match k {
        AnyKeys::Vec3(k) => AnyKeys::Vec3(one(k)),
        AnyKeys::Quat(k) => AnyKeys::Quat(one(k)),
        AnyKeys::Vec2(k) => AnyKeys::Vec2(one(k)),
        AnyKeys::F32(k) => AnyKeys::F32(one(k)),
    }
}

/// Whether every key of `k` holds exactly the value of `first`.
fn same_as(k: &AnyKeys, first: &AnyKeys) -> bool {
    match (k, first) {
        (AnyKeys::Vec3(k), AnyKeys::Vec3(f)) => k.constant(f.values[0], 0.0),
        (AnyKeys::Quat(k), AnyKeys::Quat(f)) => k.constant(f.values[0], 0.0),
        (AnyKeys::Vec2(k), AnyKeys::Vec2(f)) => k.constant(f.values[0], 0.0),
        (AnyKeys::F32(k), AnyKeys::F32(f)) => k.constant(f.values[0], 0.0),
        _ => false,
    }
}

/// Times, flattened values, accessor type and width, and whether stepped.
fn flatten(k: &AnyKeys) -> (Vec<f32>, Vec<f32>, &'static str, usize, bool) {
    fn go<V: Keyable>(k: &Keys<V>) -> (Vec<f32>, Vec<f32>, &'static str, usize, bool) {
        let mut values = Vec::with_capacity(k.values.len() * V::WIDTH);
        for &v in &k.values {
            v.push(&mut values);
        }
        (k.times.clone(), values, V::KIND, V::WIDTH, k.step)
    }
    match k {
        AnyKeys::Vec3(k) => go(k),
        AnyKeys::Quat(k) => go(k),
        AnyKeys::Vec2(k) => go(k),
        AnyKeys::F32(k) => go(k),
    }
}
