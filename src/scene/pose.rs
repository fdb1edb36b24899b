//! Posing: a model at a time becomes world-space geometry ready to draw.

use super::model::*;
use glam::{Affine2, Mat3, Mat4, Vec2, Vec3};
use std::sync::Arc;

/// One mesh's vertices in kiln's world space at one instant. Shared
/// between the instants that pose them alike ([`share_repeats`]): a still
/// model's frames hold one copy, not one each.
#[derive(Debug, Clone)]
pub struct PosedMesh {
    /// Vertex positions, kiln world.
    pub positions: Arc<Vec<Vec3>>,
    /// Vertex normals, kiln world.
    pub normals: Arc<Vec<Vec3>>,
}

/// One primitive of a posed model, wound as drawn.
#[derive(Debug, Clone)]
pub struct PosedPrimitive {
    /// Index into the posed meshes.
    pub mesh: usize,
    /// Index into the model's materials.
    pub material: usize,
    /// Back faces drawn too.
    pub two_sided: bool,
    /// Counter-clockwise = front in world space (winding already swapped
    /// where the posed transform mirrors). Shared by every pose of a set
    /// ([`Triangles`]): a clip's frames hold one copy, not one each.
    pub triangles: Arc<[[u32; 3]]>,
    /// Texture-coordinate transform at this instant (identity unless animated).
    pub uv_transform: Affine2,
}

/// A model at one instant, in kiln's world.
#[derive(Debug, Clone)]
pub struct PosedModel {
    /// Every mesh's vertices.
    pub meshes: Vec<PosedMesh>,
    /// Every primitive.
    pub primitives: Vec<PosedPrimitive>,
}

/// Wraps a time into the model's loop; a one-shot's time is held within
/// `[0, duration]` instead, so its end never turns back into its start.
///
/// The end of the first cycle itself (`t` = duration, as `--time` or the
/// last frame number of an Arma RTM names it) is not wrapped either: the
/// tracks are sampled there. Formats that key their end (RTM phase 1, an
/// RSM key on `animLen`) give their last key — a death ends dead — and a
/// closed loop's last key is its first pose anyway; Grimrock loops blend
/// their last key back into the first by that moment, so a looping walk
/// at its duration is still frame 0.
pub fn clip_time(model: &Model, t: f32) -> f32 {
    if model.duration > 0.0 && t.is_finite() {
        if model.looping {
            if (t - model.duration).abs() <= model.duration * END_TOLERANCE {
                model.duration
            } else {
                t.rem_euclid(model.duration)
            }
        } else {
            t.clamp(0.0, model.duration)
        }
    } else {
        0.0
    }
}

/// How close to the duration, as a fraction of it, a time counts as the
/// clip's end: frame `N-1` of an RTM at `(N-1) / rate` lands a few units in
/// the last place away from it.
const END_TOLERANCE: f32 = 1e-5;

/// Each node's local matrix at time `t` (already wrapped).
pub fn node_local(node: &Node, t: f32) -> Mat4 {
    let tr = node
        .anim
        .translation
        .as_ref()
        .and_then(|k| k.sample(t))
        .unwrap_or(node.translation);
    let lin = match node.anim.rotation.as_ref().and_then(|k| k.sample(t)) {
        Some(q) => Mat3::from_quat(q.normalize()),
        None => node.linear,
    };
    if let Some(k) = node.anim.stretch.as_ref().and_then(|k| k.sample(t)) {
        return Mat4::from_translation(tr) * Mat4::from_mat3(lin) * Mat4::from_mat3(k);
    }
    let sc = node
        .anim
        .scale
        .as_ref()
        .and_then(|k| k.sample(t))
        .unwrap_or(node.scale);
    Mat4::from_translation(tr) * Mat4::from_mat3(lin) * Mat4::from_scale(sc)
}

/// World matrices of every node at time `t` (seconds, wrapped into the clip),
/// without the display matrix.
pub fn node_worlds(model: &Model, t: f32) -> Vec<Mat4> {
    let t = clip_time(model, t);
    let mut world: Vec<Mat4> = Vec::with_capacity(model.nodes.len());
    for node in &model.nodes {
        let local = node_local(node, t);
        let w = match node.parent {
            Some(p) if p < world.len() => world[p] * local,
            _ => local,
        };
        world.push(w);
    }
    world
}

/// The full transform of a mesh's vertices at time `t`, display included
/// (`display · world(node) · geometry`). For skinned meshes this is only the
/// transform used to decide winding.
pub fn mesh_matrix(model: &Model, worlds: &[Mat4], mesh: &Mesh) -> Mat4 {
    let w = worlds.get(mesh.node).copied().unwrap_or(Mat4::IDENTITY);
    model.display
        * w
        * model
            .nodes
            .get(mesh.node)
            .map_or(Mat4::IDENTITY, |n| n.geometry)
}

/// Poses the model at time `t` seconds.
pub fn pose(model: &Model, t: f32) -> PosedModel {
    pose_sharing(model, t, &Triangles::of(model))
}

/// One primitive's triangles, shared.
type TriangleList = Arc<[[u32; 3]]>;

/// Every primitive's triangles in both windings, made once for a model and
/// shared by the poses made with them ([`pose_sharing`]).
pub struct Triangles {
    /// `[mesh][primitive]`: as stored, and with the winding swapped.
    kept: Vec<Vec<(TriangleList, TriangleList)>>,
}

impl Triangles {
    /// Both windings of every primitive of `model`.
    pub fn of(model: &Model) -> Triangles {
        Triangles {
            kept: model
                .meshes
                .iter()
                .map(|mesh| {
                    mesh.primitives
                        .iter()
                        .map(|prim| {
                            let swapped: TriangleList =
                                prim.triangles.iter().map(|&[a, b, c]| [a, c, b]).collect();
                            (Arc::from(prim.triangles.as_slice()), swapped)
                        })
                        .collect()
                })
                .collect(),
        }
    }
}

/// [`pose`], the triangles taken from `shared` (made by
/// [`Triangles::of`] for this model).
pub fn pose_sharing(model: &Model, t: f32, shared: &Triangles) -> PosedModel {
    pose_from(model, &Inputs::at(model, t), shared)
}

/// What a pose is made of at one instant: every node's world matrix and
/// every primitive's texture transform. Posing is a function of these
/// alone, so two instants with the same inputs, to the bit, pose the model
/// to the same bits.
struct Inputs {
    worlds: Vec<Mat4>,
    /// Per primitive, meshes in order.
    uvs: Vec<Affine2>,
    /// Per mesh with morph targets, its weights (empty for a model without).
    weights: Vec<Option<Vec<f32>>>,
}

impl Inputs {
    fn at(model: &Model, t: f32) -> Inputs {
        let tw = clip_time(model, t);
        let uvs = model
            .meshes
            .iter()
            .flat_map(|mesh| &mesh.primitives)
            .map(|prim| uv_transform(&prim.uv_anims, tw))
            .collect();
        let weights = model
            .extras
            .morphs
            .iter()
            .map(|m| m.as_ref().map(|m| morph_weights(m, tw)))
            .collect();
        Inputs {
            worlds: node_worlds(model, t),
            uvs,
            weights,
        }
    }

    fn same(&self, other: &Inputs) -> bool {
        let mats = |m: &Mat4| m.to_cols_array().map(f32::to_bits);
        let uvs = |a: &Affine2| a.to_cols_array().map(f32::to_bits);
        self.worlds.len() == other.worlds.len()
            && self
                .worlds
                .iter()
                .zip(&other.worlds)
                .all(|(a, b)| mats(a) == mats(b))
            && self.uvs.len() == other.uvs.len()
            && self
                .uvs
                .iter()
                .zip(&other.uvs)
                .all(|(a, b)| uvs(a) == uvs(b))
            && self.weights.len() == other.weights.len()
            && self.weights.iter().zip(&other.weights).all(|(a, b)| {
                let bits = |w: &Option<Vec<f32>>| {
                    w.as_ref()
                        .map(|w| w.iter().map(|x| x.to_bits()).collect::<Vec<u32>>())
                };
                bits(a) == bits(b)
            })
    }
}

/// [`pose_sharing`] at every time of `times`, in parallel and in time
/// order, then [`share_repeats`]. An instant whose `Inputs` are those of
/// the instant before is not posed at all but shares that pose: the
/// vertices would be the same bits, which is all `share_repeats` would
/// find after comparing them. A still model is posed once per run of
/// equal instants instead of once per frame.
pub fn pose_all(model: &Model, times: &[f32]) -> Vec<PosedModel> {
    use rayon::prelude::*;
    let shared = Triangles::of(model);
    let inputs: Vec<Inputs> = times.par_iter().map(|&t| Inputs::at(model, t)).collect();
    let repeats: Vec<bool> = (0..inputs.len())
        .map(|k| k > 0 && inputs[k].same(&inputs[k - 1]))
        .collect();
    let made: Vec<PosedModel> = (0..inputs.len())
        .into_par_iter()
        .filter(|&k| !repeats[k])
        .map(|k| pose_from(model, &inputs[k], &shared))
        .collect();
    let mut made = made.into_iter();
    let mut posed: Vec<PosedModel> = Vec::with_capacity(times.len());
    for &repeat in &repeats {
        // The first instant is never a repeat, and `made` holds a pose
        // for every instant that is not.
        let pose = if repeat {
            posed.last().cloned()
        } else {
            made.next()
        };
        posed.extend(pose);
    }
    share_repeats(&mut posed);
    posed
}

/// Poses the model from its inputs at one instant.
fn pose_from(model: &Model, inputs: &Inputs, shared: &Triangles) -> PosedModel {
    let worlds = &inputs.worlds;
    let mut uvs = inputs.uvs.iter();
    let mut meshes = Vec::with_capacity(model.meshes.len());
    let mut primitives = Vec::new();
    for (mi, mesh) in model.meshes.iter().enumerate() {
        let m = mesh_matrix(model, worlds, mesh);
        let morph = model.extras.morphs.get(mi).and_then(Option::as_ref);
        let weights = inputs.weights.get(mi).and_then(Option::as_ref);
        let morphed = match (morph, weights) {
            (Some(morph), Some(w)) => Some(morph_vertices(mesh, morph, w)),
            _ => None,
        };
        let (base_positions, base_normals) = match &morphed {
            Some((p, n)) => (p.as_slice(), n.as_slice()),
            None => (mesh.positions.as_slice(), mesh.normals.as_slice()),
        };
        let (positions, normals) = match &mesh.skin {
            Some(skin) => skin_vertices(model, worlds, base_positions, base_normals, skin),
            None => {
                let nm = normal_matrix(m);
                (
                    base_positions
                        .iter()
                        .map(|&p| m.transform_point3(p))
                        .collect(),
                    base_normals
                        .iter()
                        .map(|&n| (nm * n).normalize_or_zero())
                        .collect(),
                )
            }
        };
        let mirrored = m.determinant() < 0.0;
        for (pi, prim) in mesh.primitives.iter().enumerate() {
            let (kept, swapped) = &shared.kept[mi][pi];
            primitives.push(PosedPrimitive {
                mesh: mi,
                material: prim.material,
                two_sided: prim.two_sided,
                triangles: Arc::clone(if mirrored { swapped } else { kept }),
                // `uvs` has one entry per primitive, in this order.
                uv_transform: uvs.next().copied().unwrap_or(Affine2::IDENTITY),
            });
        }
        meshes.push(PosedMesh {
            positions: Arc::new(positions),
            normals: Arc::new(normals),
        });
    }
    PosedModel { meshes, primitives }
}

/// `posed` with each pose that is exactly the one before it (every bit of
/// every vertex, the same triangles and texture transforms) replaced by a
/// second handle on that one's vertices.
pub fn share_repeats(posed: &mut [PosedModel]) {
    for k in 1..posed.len() {
        let (done, rest) = posed.split_at_mut(k);
        if same_pose(&done[k - 1], &rest[0]) {
            rest[0] = done[k - 1].clone();
        }
    }
}

/// Whether two poses are the same to the bit.
pub fn same_pose(a: &PosedModel, b: &PosedModel) -> bool {
    a.meshes.len() == b.meshes.len()
        && a.meshes.iter().zip(&b.meshes).all(|(m, n)| {
            same_bits(&m.positions, &n.positions) && same_bits(&m.normals, &n.normals)
        })
        && a.primitives.len() == b.primitives.len()
        && a.primitives.iter().zip(&b.primitives).all(|(p, q)| {
            (p.mesh, p.material, p.two_sided) == (q.mesh, q.material, q.two_sided)
                && p.triangles == q.triangles
                && p.uv_transform.to_cols_array().map(f32::to_bits)
                    == q.uv_transform.to_cols_array().map(f32::to_bits)
        })
}

fn same_bits(x: &Arc<Vec<Vec3>>, y: &Arc<Vec<Vec3>>) -> bool {
    let bits = |p: &Vec3| p.to_array().map(f32::to_bits);
    Arc::ptr_eq(x, y)
        || (x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| bits(p) == bits(q)))
}

/// The inverse transpose of `m`'s linear part (the part itself when singular).
pub fn normal_matrix(m: Mat4) -> Mat3 {
    let m3 = Mat3::from_mat4(m);
    if m3.determinant().abs() > 1e-12 {
        m3.inverse().transpose()
    } else {
        m3
    }
}

/// A morphed mesh's weights at time `t` (already wrapped): each target's
/// track, else its rest weight.
pub fn morph_weights(morph: &Morph, t: f32) -> Vec<f32> {
    (0..morph.targets.len())
        .map(|i| {
            morph
                .tracks
                .get(i)
                .and_then(|k| k.sample(t))
                .or_else(|| morph.weights.get(i).copied())
                .unwrap_or(0.0)
        })
        .collect()
}

/// The mesh's positions and normals with its targets added by `weights`.
fn morph_vertices(mesh: &Mesh, morph: &Morph, weights: &[f32]) -> (Vec<Vec3>, Vec<Vec3>) {
    let mut positions = mesh.positions.clone();
    let mut normals = mesh.normals.clone();
    for (target, &w) in morph.targets.iter().zip(weights) {
        if w == 0.0 {
            continue;
        }
        for (p, d) in positions.iter_mut().zip(&target.positions) {
            *p += *d * w;
        }
        for (n, d) in normals.iter_mut().zip(&target.normals) {
            *n += *d * w;
        }
    }
    (positions, normals)
}

fn skin_vertices(
    model: &Model,
    worlds: &[Mat4],
    mesh_positions: &[Vec3],
    mesh_normals: &[Vec3],
    skin: &Skin,
) -> (Vec<Vec3>, Vec<Vec3>) {
    let joint_mats: Vec<Mat4> = skin
        .joints
        .iter()
        .zip(&skin.inverse_bind)
        .map(|(&j, ib)| model.display * worlds.get(j).copied().unwrap_or(Mat4::IDENTITY) * *ib)
        .collect();
    let mut positions = Vec::with_capacity(mesh_positions.len());
    let mut normals = Vec::with_capacity(mesh_normals.len());
    for (i, &p) in mesh_positions.iter().enumerate() {
        let (js, ws) = skin.influence(i);
        let mut acc = Mat4::ZERO;
        let mut total = 0.0;
        for k in 0..4 {
            if ws[k] > 0.0 {
                if let Some(jm) = joint_mats.get(js[k] as usize) {
                    acc += *jm * ws[k];
                    total += ws[k];
                }
            }
        }
        let m = if total > 0.0 {
            acc * (1.0 / total)
        } else {
            model.display
        };
        positions.push(m.transform_point3(p));
        if let Some(&n) = mesh_normals.get(i) {
            normals.push((normal_matrix(m) * n).normalize_or_zero());
        }
    }
    (positions, normals)
}

/// The texture animations' sums at time `t`: translation, scale (1 plus
/// the scale channels) and rotation in radians.
pub fn uv_parts(anims: &[UvAnim], t: f32) -> (Vec2, Vec2, f32) {
    let mut tr = Vec2::ZERO;
    let mut sc = Vec2::ONE;
    let mut rot = 0.0f32;
    for a in anims {
        let v = a.track.sample(t).unwrap_or(0.0);
        match a.kind {
            UvAnimKind::TranslateU => tr.x += v,
            UvAnimKind::TranslateV => tr.y += v,
            UvAnimKind::ScaleU => sc.x += v,
            UvAnimKind::ScaleV => sc.y += v,
            UvAnimKind::Rotate => rot += v,
        }
    }
    (tr, sc, rot)
}

/// Composes RSM2-style texture animations: translate, scale, then rotate about
/// the texture centre, in the order the channels are listed.
pub fn uv_transform(anims: &[UvAnim], t: f32) -> Affine2 {
    if anims.is_empty() {
        return Affine2::IDENTITY;
    }
    let (tr, sc, rot) = uv_parts(anims, t);
    let centre = Vec2::splat(0.5);
    Affine2::from_translation(tr)
        * Affine2::from_translation(centre)
        * Affine2::from_angle(rot)
        * Affine2::from_translation(-centre)
        * Affine2::from_scale(sc)
}
