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

mod channels;

use super::buffer::Builder;
use super::document::{primitive, variant_index, Attributes, Document};
use super::keys::Keyable;
use super::material::{materials, TextureTransform, Variant};
use super::motion::{fixed_nodes, needs_shape, Frame, Tolerances};
use super::texture_motion;
use crate::error::{Error, Result};
use crate::export::{finite3, transformed_uvs, unit_normal, valid_triangles};
use crate::scene::pose::{mesh_matrix, node_worlds, normal_matrix};
use crate::scene::{Mesh, Model};
use channels::Keyed;
use glam::{Affine2, Mat4, Quat, Vec3};
use serde_json::{json, Map, Value};

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
    pub root_motion: Option<serde_json::Value>,
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
    let mut tree = Tree::new(clips, frame);
    let mut b = Builder::default();
    let geometry = Geometry::new(clips, frame, &mut tree, &mut b);
    let mats = materials(base, &geometry.variants, &mut b)?;
    let keyed = Keyed::collect(
        clips,
        frame,
        tol,
        &tree,
        &geometry,
        &mats.textured,
        &mut report,
    );
    keyed.rest(&mut tree.nodes);
    let (animations, any_pointer) = keyed.animations(clips, &mut b, &mut report);
    let mut seen = Vec::new();
    report.notes.retain(|n| {
        let fresh = !seen.contains(n);
        seen.push(n.clone());
        fresh
    });
    let mut extensions = mats.extensions.clone();
    if any_pointer && !animations.is_empty() {
        extensions.push(POINTER);
    }
    let glb = Document {
        scene_name: base.name.clone(),
        scene_nodes: geometry.scene_roots,
        nodes: tree.nodes.iter().map(node_value).collect(),
        meshes: geometry.meshes,
        skins: geometry.skins,
        animations,
        materials: mats,
        extensions,
    }
    .glb(b)?;
    Ok((glb, report))
}

/// The output's node tree: the root (the display's translation), then a
/// head and perhaps a shape node per scene node.
struct Tree {
    nodes: Vec<OutNode>,
    /// The deepest of the root's nodes, which holds everything else.
    root: usize,
    /// Per scene node: its head (keyed with its translation, rotation and
    /// scale), its shape node (keyed with the rest), the deeper of the two.
    heads: Vec<usize>,
    shapes: Vec<Option<usize>>,
    deepest: Vec<usize>,
}

impl Tree {
    fn new(clips: &[ClipInput], frame: Frame) -> Tree {
        let base = clips[0].model;
        let mut nodes: Vec<OutNode> = Vec::new();
        let mut root = 0;
        for (k, &(t, q, s)) in fixed_nodes(frame.root).iter().enumerate() {
            let name = if k == 0 {
                base.name.clone()
            } else {
                format!("{} (shape)", base.name)
            };
            if k > 0 {
                let next = nodes.len();
                nodes[root].children.push(next);
            }
            root = nodes.len();
            nodes.push(OutNode {
                name,
                trs: Some((t, q, s)),
                ..OutNode::default()
            });
        }
        let n = base.nodes.len();
        let mut tree = Tree {
            nodes,
            root,
            heads: Vec::with_capacity(n),
            shapes: Vec::with_capacity(n),
            deepest: Vec::with_capacity(n),
        };
        for (i, node) in base.nodes.iter().enumerate() {
            let head = tree.add(node.name.clone());
            let parent = node
                .parent
                .filter(|&p| p < i)
                .map_or(root, |p| tree.deepest[p]);
            tree.nodes[parent].children.push(head);
            let shape = clips
                .iter()
                .any(|c| needs_shape(&c.model.nodes[i]))
                .then(|| {
                    let s = tree.add(format!("{} (shape)", node.name));
                    tree.nodes[head].children.push(s);
                    s
                });
            tree.heads.push(head);
            tree.shapes.push(shape);
            tree.deepest.push(shape.unwrap_or(head));
        }
        tree
    }

    fn add(&mut self, name: String) -> usize {
        self.nodes.push(OutNode {
            name,
            ..OutNode::default()
        });
        self.nodes.len() - 1
    }
}

/// Meshes, skins and the material variants their primitives draw with.
struct Geometry {
    meshes: Vec<Value>,
    skins: Vec<Value>,
    scene_roots: Vec<usize>,
    variants: Vec<Variant>,
    /// (variant, mesh, primitive) of each primitive whose texture moves.
    animated: Vec<(usize, usize, usize)>,
}

impl Geometry {
    fn new(clips: &[ClipInput], frame: Frame, tree: &mut Tree, b: &mut Builder) -> Geometry {
        let base = clips[0].model;
        let mut g = Geometry {
            meshes: Vec::new(),
            skins: Vec::new(),
            scene_roots: vec![0],
            variants: Vec::new(),
            animated: Vec::new(),
        };
        let worlds0 = node_worlds(base, clips[0].start);
        for (mi, mesh) in base.meshes.iter().enumerate() {
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
            let count = mesh.positions.len();
            let prims: Vec<(usize, Vec<[u32; 3]>)> = (0..mesh.primitives.len())
                .map(|pi| (pi, triangles(mesh, pi, count, flip)))
                .filter(|(_, t)| !t.is_empty())
                .collect();
            if prims.is_empty() {
                continue;
            }
            let attributes = g.attributes(mesh, to_file, frame, tree, b);
            let mut prim_json = Vec::new();
            for (pi, tris) in prims {
                let indices = b.indices(&tris);
                let material = g.material(clips, mi, pi);
                prim_json.push(primitive(&attributes, indices, material));
            }
            let mesh_index = g.meshes.len();
            g.meshes
                .push(json!({ "name": mesh.name, "primitives": prim_json }));
            g.place(mesh, mesh_index, tree);
        }
        g
    }

    /// The accessors of `mesh`'s vertices (and its skin, added to the
    /// skins), in file space.
    fn attributes(
        &mut self,
        mesh: &Mesh,
        to_file: Mat4,
        frame: Frame,
        tree: &mut Tree,
        b: &mut Builder,
    ) -> Attributes {
        let count = mesh.positions.len();
        let positions: Vec<Vec3> = mesh
            .positions
            .iter()
            .map(|&p| finite3(to_file.transform_point3(p)))
            .collect();
        let position = b.vec3(&positions, true);
        let normal = (mesh.normals.len() == count).then(|| {
            let nm = normal_matrix(to_file);
            let normals: Vec<Vec3> = mesh.normals.iter().map(|&v| unit_normal(nm * v)).collect();
            b.vec3(&normals, false)
        });
        let uv = (!mesh.uvs.is_empty())
            .then(|| b.vec2(&transformed_uvs(&mesh.uvs, count, &Affine2::IDENTITY)));
        let skin = mesh.skin.as_ref().map(|_| {
            let (skin_json, joints, weights) =
                skin(mesh, &frame, &tree.deepest, tree.root, &mut tree.nodes, b);
            self.skins.push(skin_json);
            (b.joints(&joints), b.weights(&weights))
        });
        Attributes {
            position,
            normal,
            uv,
            skin,
        }
    }

    /// The material variant of primitive `pi` of mesh `mi`, if it has a
    /// material.
    fn material(&mut self, clips: &[ClipInput], mi: usize, pi: usize) -> Option<usize> {
        let base = clips[0].model;
        let prim = &base.meshes[mi].primitives[pi];
        if prim.material >= base.materials.len() {
            return None;
        }
        if prim.uv_anims.is_empty() {
            let key = Variant {
                material: prim.material,
                two_sided: prim.two_sided,
                transform: None,
            };
            return Some(variant_index(&mut self.variants, key));
        }
        // Its own material, whose texture transform it animates.
        let s = texture_motion::signals(&prim.uv_anims, 1e-5);
        let u0 = crate::scene::pose::clip_time(base, clips[0].start);
        self.variants.push(Variant {
            material: prim.material,
            two_sided: prim.two_sided,
            transform: Some(TextureTransform {
                offset: (s.offset.eval)(u0).clean(),
                rotation: (s.rotation.eval)(u0).clean(),
                scale: (s.scale.eval)(u0).clean(),
            }),
        });
        self.animated.push((self.variants.len() - 1, mi, pi));
        Some(self.variants.len() - 1)
    }

    /// Hangs mesh `mesh_index` in the tree: a skinned mesh at the scene's
    /// root, a rigid one on its node (or a child of it, when the node
    /// already holds a mesh).
    fn place(&mut self, mesh: &Mesh, mesh_index: usize, tree: &mut Tree) {
        if mesh.skin.is_some() {
            self.scene_roots.push(tree.nodes.len());
            tree.nodes.push(OutNode {
                name: mesh.name.clone(),
                mesh: Some(mesh_index),
                skin: Some(self.skins.len() - 1),
                ..OutNode::default()
            });
            return;
        }
        let holder = if mesh.node < tree.deepest.len() {
            tree.deepest[mesh.node]
        } else {
            tree.root
        };
        if tree.nodes[holder].mesh.is_none() && holder != tree.root {
            tree.nodes[holder].mesh = Some(mesh_index);
        } else {
            let extra = tree.nodes.len();
            tree.nodes.push(OutNode {
                name: mesh.name.clone(),
                mesh: Some(mesh_index),
                ..OutNode::default()
            });
            tree.nodes[holder].children.push(extra);
        }
    }
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
