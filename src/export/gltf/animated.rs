//! A model with its animation: the node tree, skins, and one glTF
//! animation per clip.
//!
//! Every clip's model must share one node tree and one set of meshes (the
//! model posed by each clip's animation file, its bones bound together:
//! `load::animate_together`). Rigid meshes hang off their nodes with the
//! nodes' own geometry matrices (RSM1's `T(offset)·M3`) applied to their
//! vertices; skinned meshes sit at the scene's root, as glTF wants, with
//! one joint per kiln joint. Every clip keys every channel any clip
//! animates, so playing one clip after another never leaves a node where
//! the previous one put it.

use super::buffer::{assemble, Builder};
use super::keys::{keys, Keyable, Keys, Window};
use super::material::{materials, sampler, TextureTransform, Variant, TEXTURE_TRANSFORM};
use super::motion::{fixed_nodes, needs_shape, signals, Frame, Tolerances};
use super::texture_motion;
use crate::error::{Error, Result};
use crate::export::{finite3, transformed_uvs, unit_normal, valid_triangles};
use crate::scene::pose::{mesh_matrix, node_worlds, normal_matrix};
use crate::scene::{Mesh, Model};
use glam::{Affine2, Mat4, Quat, Vec2, Vec3};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

const POINTER: &str = "KHR_animation_pointer";

/// One glTF animation to write.
#[derive(Debug, Clone)]
pub struct ClipInput<'a> {
    /// The animation's name.
    pub name: String,
    /// The model posed by this clip's animation.
    pub model: &'a Model,
    /// Model time at the clip's first instant, seconds.
    pub start: f32,
    /// How long the clip lasts, seconds; 0 for a single pose.
    pub length: f32,
    /// The animation file, as the user named it, for the file's notes.
    pub source: Option<String>,
    /// The root travel taken out of the keys, written as the animation's
    /// `extras.rootMotion`; `None` when it was kept or there is none.
    pub root_motion: Option<Value>,
}

/// What was written for one clip.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationReport {
    /// The glTF animation's name.
    pub name: String,
    /// Its length in seconds.
    pub seconds: f32,
    /// Channels (node properties and texture transforms) it keys.
    pub channels: usize,
    /// Keys over all its channels.
    pub keys: usize,
}

/// What an animated export wrote, and what the user should know about it:
/// where keys were added because glTF interpolates differently from the
/// format, and what glTF could not hold.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GltfReport {
    /// One entry per glTF animation, in order.
    pub animations: Vec<AnimationReport>,
    /// Notes for the user, each once.
    pub notes: Vec<String>,
}

/// A node of the output, before it becomes JSON.
#[derive(Default)]
struct OutNode {
    name: String,
    children: Vec<usize>,
    mesh: Option<usize>,
    skin: Option<usize>,
    trs: Option<(Vec3, Quat, Vec3)>,
}

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

/// The glTF bytes of the clips' model and animations.
pub fn animated_glb_bytes(clips: &[ClipInput]) -> Result<(Vec<u8>, GltfReport)> {
    let base = clips
        .first()
        .ok_or_else(|| Error::Other("an animated glTF needs at least one clip".into()))?
        .model;
    check_shared(clips)?;
    let frame = Frame::of(base.display);
    let size = model_size(base, clips[0].start);
    let tol = Tolerances {
        translation: size * 1e-5,
        rotation: 1e-5,
        scale: 1e-5,
    };
    let mut report = GltfReport::default();

    // The node tree: the root (the display's translation), then a head and
    // perhaps a shape node per scene node.
    let mut nodes: Vec<OutNode> = Vec::new();
    let mut root_deepest = 0;
    for (k, &(t, q, s)) in fixed_nodes(frame.root).iter().enumerate() {
        let name = if k == 0 {
            base.name.clone()
        } else {
            format!("{} (shape)", base.name)
        };
        if k > 0 {
            let next = nodes.len();
            nodes[root_deepest].children.push(next);
        }
        root_deepest = nodes.len();
        nodes.push(OutNode {
            name,
            trs: Some((t, q, s)),
            ..OutNode::default()
        });
    }
    let n = base.nodes.len();
    let mut heads = Vec::with_capacity(n);
    let mut deepest = Vec::with_capacity(n);
    let mut shapes: Vec<Option<usize>> = Vec::with_capacity(n);
    for (i, node) in base.nodes.iter().enumerate() {
        let head = nodes.len();
        nodes.push(OutNode {
            name: node.name.clone(),
            ..OutNode::default()
        });
        let parent = node
            .parent
            .filter(|&p| p < i)
            .map_or(root_deepest, |p| deepest[p]);
        nodes[parent].children.push(head);
        let shape = clips
            .iter()
            .any(|c| needs_shape(&c.model.nodes[i]))
            .then(|| {
                let s = nodes.len();
                nodes.push(OutNode {
                    name: format!("{} (shape)", node.name),
                    ..OutNode::default()
                });
                nodes[head].children.push(s);
                s
            });
        heads.push(head);
        shapes.push(shape);
        deepest.push(shape.unwrap_or(head));
    }

    // Geometry, materials and skins.
    let mut b = Builder::default();
    let mut variants: Vec<Variant> = Vec::new();
    let mut animated_variants: Vec<(usize, usize, usize)> = Vec::new(); // (variant, mesh, primitive)
    let mut meshes = Vec::new();
    let mut skins = Vec::new();
    let mut scene_roots = vec![0];
    let worlds0 = node_worlds(base, clips[0].start);
    for (mi, mesh) in base.meshes.iter().enumerate() {
        let count = mesh.positions.len();
        let skinned = mesh.skin.is_some();
        let geometry = base
            .nodes
            .get(mesh.node)
            .map_or(Mat4::IDENTITY, |n| n.geometry);
        let to_file = if skinned {
            frame.vertex()
        } else {
            frame.vertex() * geometry
        };
        // glTF turns a rigid mesh's winding with its node's mirroring, as
        // kiln does; a skinned mesh's it never turns, so kiln's choice at
        // the clip's start is written into the triangles.
        let flip = if skinned {
            mesh_matrix(base, &worlds0, mesh).determinant() < 0.0
        } else {
            to_file.determinant() < 0.0
        };
        let prims: Vec<(usize, Vec<[u32; 3]>)> = mesh
            .primitives
            .iter()
            .enumerate()
            .map(|(pi, _)| (pi, triangles(mesh, pi, count, flip)))
            .filter(|(_, t)| !t.is_empty())
            .collect();
        if prims.is_empty() {
            continue;
        }
        let positions: Vec<Vec3> = mesh
            .positions
            .iter()
            .map(|&p| finite3(to_file.transform_point3(p)))
            .collect();
        let pos_acc = b.vec3(&positions, true);
        let nrm_acc = (mesh.normals.len() == count).then(|| {
            let nm = normal_matrix(to_file);
            let normals: Vec<Vec3> = mesh.normals.iter().map(|&v| unit_normal(nm * v)).collect();
            b.vec3(&normals, false)
        });
        let uv_acc = (!mesh.uvs.is_empty())
            .then(|| b.vec2(&transformed_uvs(&mesh.uvs, count, &Affine2::IDENTITY)));
        let skin_accs = match &mesh.skin {
            Some(_) => {
                let (skin_json, joints, weights) =
                    skin(mesh, &frame, &deepest, root_deepest, &mut nodes, &mut b);
                skins.push(skin_json);
                Some((b.joints(&joints), b.weights(&weights)))
            }
            None => None,
        };
        let mut prim_json = Vec::new();
        for (pi, tris) in prims {
            let prim = &mesh.primitives[pi];
            let mut attrs = Map::new();
            attrs.insert("POSITION".into(), json!(pos_acc));
            if let Some(a) = nrm_acc {
                attrs.insert("NORMAL".into(), json!(a));
            }
            if let Some(a) = uv_acc {
                attrs.insert("TEXCOORD_0".into(), json!(a));
            }
            if let Some((j, w)) = skin_accs {
                attrs.insert("JOINTS_0".into(), json!(j));
                attrs.insert("WEIGHTS_0".into(), json!(w));
            }
            let mut p = Map::new();
            p.insert("attributes".into(), Value::Object(attrs));
            p.insert("indices".into(), json!(b.indices(&tris)));
            if prim.material < base.materials.len() {
                let idx = if prim.uv_anims.is_empty() {
                    let key = Variant {
                        material: prim.material,
                        two_sided: prim.two_sided,
                        transform: None,
                    };
                    match variants.iter().position(|v| *v == key) {
                        Some(i) => i,
                        None => {
                            variants.push(key);
                            variants.len() - 1
                        }
                    }
                } else {
                    // Its own material, whose texture transform it animates.
                    let s = texture_motion::signals(&prim.uv_anims, 1e-5);
                    let u0 = crate::scene::pose::clip_time(base, clips[0].start);
                    variants.push(Variant {
                        material: prim.material,
                        two_sided: prim.two_sided,
                        transform: Some(TextureTransform {
                            offset: (s.offset.eval)(u0).clean(),
                            rotation: (s.rotation.eval)(u0).clean(),
                            scale: (s.scale.eval)(u0).clean(),
                        }),
                    });
                    animated_variants.push((variants.len() - 1, mi, pi));
                    variants.len() - 1
                };
                p.insert("material".into(), json!(idx));
            }
            prim_json.push(Value::Object(p));
        }
        let mesh_index = meshes.len();
        meshes.push(json!({ "name": mesh.name, "primitives": prim_json }));
        if skinned {
            scene_roots.push(nodes.len());
            nodes.push(OutNode {
                name: mesh.name.clone(),
                mesh: Some(mesh_index),
                skin: Some(skins.len() - 1),
                ..OutNode::default()
            });
        } else {
            let holder = if mesh.node < n {
                deepest[mesh.node]
            } else {
                root_deepest
            };
            if nodes[holder].mesh.is_none() && holder != root_deepest {
                nodes[holder].mesh = Some(mesh_index);
            } else {
                let extra = nodes.len();
                nodes.push(OutNode {
                    name: mesh.name.clone(),
                    mesh: Some(mesh_index),
                    ..OutNode::default()
                });
                nodes[holder].children.push(extra);
            }
        }
    }
    let mats = materials(base, &variants, &mut b)?;

    // Keys of every channel in every clip.
    let mut channels: BTreeMap<Target, Vec<AnyKeys>> = BTreeMap::new();
    let mut statics: BTreeMap<Target, AnyKeys> = BTreeMap::new();
    for (ci, clip) in clips.iter().enumerate() {
        let m = clip.model;
        let w = Window {
            start: clip.start,
            length: clip.length.max(0.0),
            period: m.duration,
        };
        let mut added: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
        let mut seams = 0;
        let mut put = |target: Target, k: AnyKeys, why: &'static str, added_n: usize, s: usize| {
            if added_n > 0 {
                let e = added.entry(why).or_insert((0, 0));
                e.0 += 1;
                e.1 += added_n;
            }
            seams = seams.max(s);
            channels.entry(target).or_default().push(k);
        };
        for (i, node) in m.nodes.iter().enumerate() {
            let sig = signals(node, frame, tol);
            let t = keys(&sig.translation, &w);
            let r = keys(&sig.rotation, &w);
            let s = keys(&sig.scale, &w);
            let rot_why = if sig.nlerp {
                "rotations nlerped by the format (glTF slerps)"
            } else {
                "rotations"
            };
            let (ta, ts) = (t.added, t.seams);
            put(
                Target::Node(heads[i], "translation"),
                AnyKeys::Vec3(t),
                "translations",
                ta,
                ts,
            );
            let (ra, rs) = (r.added, r.seams);
            put(
                Target::Node(heads[i], "rotation"),
                AnyKeys::Quat(r),
                rot_why,
                ra,
                rs,
            );
            let (sa, ss) = (s.added, s.seams);
            put(
                Target::Node(heads[i], "scale"),
                AnyKeys::Vec3(s),
                "scales",
                sa,
                ss,
            );
            if let Some(shape) = shapes[i] {
                let r = keys(&sig.shape_rotation, &w);
                let s = keys(&sig.shape_scale, &w);
                put(
                    Target::Node(shape, "rotation"),
                    AnyKeys::Quat(r),
                    "rotations",
                    0,
                    0,
                );
                let (sa, ss) = (s.added, s.seams);
                put(
                    Target::Node(shape, "scale"),
                    AnyKeys::Vec3(s),
                    "scales",
                    sa,
                    ss,
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
        for &(v, mi, pi) in &animated_variants {
            if !mats.textured[v] {
                continue;
            }
            let s = texture_motion::signals(&m.meshes[mi].primitives[pi].uv_anims, 1e-5);
            let o = keys(&s.offset, &w);
            let r = keys(&s.rotation, &w);
            let sc = keys(&s.scale, &w);
            let (oa, os) = (o.added, o.seams);
            put(
                Target::Texture(v, "offset"),
                AnyKeys::Vec2(o),
                "texture offsets of rotating textures",
                oa,
                os,
            );
            put(
                Target::Texture(v, "rotation"),
                AnyKeys::F32(r),
                "texture rotations",
                0,
                0,
            );
            put(
                Target::Texture(v, "scale"),
                AnyKeys::Vec2(sc),
                "texture scales",
                0,
                0,
            );
        }
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
                super::keys::SEAM * 1000.0
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

    // A node's resting values are its first clip's start.
    for (target, k) in &statics {
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

    // Channels that move in some clip, keyed in every clip.
    let moving: Vec<&Target> = channels
        .iter()
        .filter(|(target, ks)| {
            let first = &statics[*target];
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
            let k = &channels[target][ci];
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
                    let pointer = format!(
                        "/materials/{v}/pbrMetallicRoughness/baseColorTexture/extensions/{TEXTURE_TRANSFORM}/{path}"
                    );
                    chans.push(json!({
                        "sampler": sampler_index,
                        "target": {
                            "path": "pointer",
                            "extensions": { POINTER: { "pointer": pointer } },
                        },
                    }));
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

    let mut scene = Map::new();
    scene.insert("name".into(), json!(base.name));
    scene.insert("nodes".into(), json!(scene_roots));
    let mut root = Map::new();
    root.insert("asset".into(), super::asset());
    root.insert("scene".into(), json!(0));
    root.insert("scenes".into(), json!([Value::Object(scene)]));
    let node_json: Vec<Value> = nodes.iter().map(node_value).collect();
    let mut extensions = mats.extensions.clone();
    if any_pointer && !animations.is_empty() {
        extensions.push(POINTER);
    }
    let mut put = |key: &str, v: Vec<Value>| {
        if !v.is_empty() {
            root.insert(key.into(), Value::Array(v));
        }
    };
    put("nodes", node_json);
    put("meshes", meshes);
    put("skins", skins);
    put("animations", animations);
    put("materials", mats.materials);
    put("textures", mats.textures);
    put("images", mats.images);
    put("accessors", b.accessors);
    put("bufferViews", b.views);
    if !b.bin.is_empty() {
        root.insert("buffers".into(), json!([{ "byteLength": b.bin.len() }]));
    }
    if root.contains_key("textures") {
        root.insert("samplers".into(), sampler());
    }
    if !extensions.is_empty() {
        root.insert("extensionsUsed".into(), json!(extensions));
    }
    let mut seen = Vec::new();
    report.notes.retain(|n| {
        let fresh = !seen.contains(n);
        seen.push(n.clone());
        fresh
    });
    let json = serde_json::to_vec(&Value::Object(root))
        .map_err(|e| Error::Other(format!("glTF JSON encoding: {e}")))?;
    Ok((assemble(json, b.bin)?, report))
}

/// Every clip's model must be the same model, posed differently.
fn check_shared(clips: &[ClipInput]) -> Result<()> {
    let base = clips[0].model;
    for c in &clips[1..] {
        let m = c.model;
        let same_nodes = m.nodes.len() == base.nodes.len()
            && m.nodes
                .iter()
                .zip(&base.nodes)
                .all(|(a, b)| a.name == b.name && a.parent == b.parent);
        let same_meshes = m.meshes.len() == base.meshes.len()
            && m.meshes.iter().zip(&base.meshes).all(|(a, b)| {
                a.node == b.node
                    && a.positions.len() == b.positions.len()
                    && a.primitives.len() == b.primitives.len()
                    && a.skin.is_some() == b.skin.is_some()
            });
        if !same_nodes || !same_meshes || m.display != base.display {
            return Err(Error::Other(format!(
                "clip '{}' does not share the node tree and meshes of clip '{}'; a glTF file holds one",
                c.name, clips[0].name
            )));
        }
    }
    Ok(())
}

/// The model's largest extent at `t`, at least a millimetre's worth of its
/// units, which sets how closely translations must follow.
fn model_size(model: &Model, t: f32) -> f32 {
    let posed = crate::scene::pose(model, t);
    let mut min = Vec3::splat(f32::INFINITY);
    let mut max = Vec3::splat(f32::NEG_INFINITY);
    for m in &posed.meshes {
        for &p in m.positions.iter() {
            if p.is_finite() {
                min = min.min(p);
                max = max.max(p);
            }
        }
    }
    if min.x <= max.x {
        (max - min).max_element().max(1e-3)
    } else {
        1.0
    }
}

/// A primitive's triangles that name vertices of the mesh, turned when
/// `flip`.
fn triangles(mesh: &Mesh, prim: usize, count: usize, flip: bool) -> Vec<[u32; 3]> {
    let p = &mesh.primitives[prim];
    let posed = crate::scene::PosedPrimitive {
        mesh: 0,
        material: p.material,
        two_sided: p.two_sided,
        triangles: if flip {
            p.triangles.iter().map(|&[a, b, c]| [a, c, b]).collect()
        } else {
            p.triangles.as_slice().into()
        },
        uv_transform: Affine2::IDENTITY,
    };
    valid_triangles(&posed, count)
}

/// The glTF skin of `mesh`: one joint per kiln joint (a node used twice,
/// or missing, gets a joint node of its own, since glTF joints are
/// unique), the root as the joint of vertices no bone holds (kiln leaves
/// them at rest), weights normalised as kiln normalises them. Returns the
/// skin JSON and each vertex's joints and weights.
fn skin(
    mesh: &Mesh,
    frame: &Frame,
    deepest: &[usize],
    root: usize,
    nodes: &mut Vec<OutNode>,
    b: &mut Builder,
) -> (Value, Vec<[u16; 4]>, Vec<[f32; 4]>) {
    let skin = mesh.skin.as_ref().expect("a skinned mesh");
    let usable = skin.joints.len().min(skin.inverse_bind.len());
    let mut joints: Vec<usize> = Vec::with_capacity(usable + 1);
    let mut ibms: Vec<Mat4> = Vec::with_capacity(usable + 1);
    for k in 0..usable {
        let scene_node = skin.joints[k];
        let mut target = if scene_node < deepest.len() {
            deepest[scene_node]
        } else {
            let extra = nodes.len();
            nodes.push(OutNode {
                name: format!("{} (missing joint {k})", mesh.name),
                ..OutNode::default()
            });
            nodes[root].children.push(extra);
            extra
        };
        if joints.contains(&target) {
            let extra = nodes.len();
            nodes.push(OutNode {
                name: format!("{} (joint {k})", nodes[target].name),
                ..OutNode::default()
            });
            nodes[target].children.push(extra);
            target = extra;
        }
        joints.push(target);
        ibms.push(frame.mat(skin.inverse_bind[k]));
    }
    let mut root_slot = None;
    let count = mesh.positions.len();
    let mut vj = Vec::with_capacity(count);
    let mut vw = Vec::with_capacity(count);
    for v in 0..count {
        let (js, ws) = skin.influence(v);
        let mut held: Vec<(u16, f64)> = Vec::with_capacity(4);
        for k in 0..4 {
            let (j, w) = (js[k], ws[k]);
            if w > 0.0 && w.is_finite() && usize::from(j) < usable {
                match held.iter_mut().find(|(x, _)| *x == j) {
                    Some(e) => e.1 += f64::from(w),
                    None => held.push((j, f64::from(w))),
                }
            }
        }
        let total: f64 = held.iter().map(|x| x.1).sum();
        if held.is_empty() || total.is_nan() || total <= 0.0 {
            let slot = *root_slot.get_or_insert_with(|| {
                joints.push(root);
                ibms.push(Mat4::IDENTITY);
                joints.len() - 1
            });
            vj.push([slot as u16, 0, 0, 0]);
            vw.push([1.0, 0.0, 0.0, 0.0]);
            continue;
        }
        held.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut jj = [0u16; 4];
        let mut ww = [0f32; 4];
        for (k, &(j, w)) in held.iter().enumerate() {
            jj[k] = j;
            ww[k] = (w / total) as f32;
        }
        // The heaviest weight takes the rounding, so the sum is 1 in f32.
        let rest: f32 = ww[1..].iter().sum();
        ww[0] = 1.0 - rest;
        vj.push(jj);
        vw.push(ww);
    }
    let ibm = b.mat4(&ibms);
    let skin_json = json!({
        "name": mesh.name,
        "joints": joints,
        "inverseBindMatrices": ibm,
        "skeleton": root,
    });
    (skin_json, vj, vw)
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

fn node_value(n: &OutNode) -> Value {
    let mut o = Map::new();
    o.insert("name".into(), json!(n.name));
    if !n.children.is_empty() {
        o.insert("children".into(), json!(n.children));
    }
    if let Some(m) = n.mesh {
        o.insert("mesh".into(), json!(m));
    }
    if let Some(s) = n.skin {
        o.insert("skin".into(), json!(s));
    }
    if let Some((t, q, s)) = n.trs {
        let (t, s) = (finite3(t), finite3(s));
        if t != Vec3::ZERO {
            o.insert("translation".into(), json!(t.to_array()));
        }
        let q = q.clean();
        if q != Quat::IDENTITY {
            o.insert("rotation".into(), json!(q.to_array()));
        }
        if s != Vec3::ONE {
            o.insert("scale".into(), json!(s.to_array()));
        }
    }
    Value::Object(o)
}
