//! Binding named vertex groups to bones (Arma: named selections become
//! bones when an animation names them).

use super::model::*;
use glam::Mat4;

/// A bone by name and the name of its parent (`None` for a root).
#[derive(Debug, Clone, PartialEq)]
pub struct BoneSpec {
    /// The bone's name.
    pub name: String,
    /// Its parent's name; `None` for a root.
    pub parent: Option<String>,
}

/// A copy of `model` with a node per bone (identity rest, parents before
/// children) and a skin on every mesh whose vertex groups name bones
/// (case-insensitively). Each vertex keeps its four heaviest bones, weights
/// normalised; vertices in no bone group stay at rest. Inverse bind matrices
/// are identity: the bones' world matrices are deformations of the rest
/// pose (Arma RTM), identity at rest.
pub fn bind(model: &Model, bones: &[BoneSpec]) -> Model {
    let mut out = model.clone();
    let find =
        |nodes: &[Node], name: &str| nodes.iter().position(|n| n.name.eq_ignore_ascii_case(name));
    // Parents first: repeatedly add bones whose parent is placed (or absent).
    let mut pending: Vec<&BoneSpec> = bones.iter().collect();
    while !pending.is_empty() {
        let before = pending.len();
        pending.retain(|b| {
            let parent_ready = match &b.parent {
                None => true,
                Some(p) => {
                    find(&out.nodes, p).is_some()
                        || !bones.iter().any(|x| x.name.eq_ignore_ascii_case(p))
                }
            };
            if !parent_ready {
                return true;
            }
            if find(&out.nodes, &b.name).is_none() {
                let parent = b.parent.as_deref().and_then(|p| find(&out.nodes, p));
                out.nodes.push(Node::identity(b.name.clone(), parent));
            }
            false
        });
        if pending.len() == before {
            // A parent cycle: place the rest as roots.
            for b in pending.drain(..) {
                if find(&out.nodes, &b.name).is_none() {
                    out.nodes.push(Node::identity(b.name.clone(), None));
                }
            }
        }
    }
    for mesh in &mut out.meshes {
        let groups: Vec<(usize, &VertexGroup)> = mesh
            .groups
            .iter()
            .filter(|g| bones.iter().any(|b| b.name.eq_ignore_ascii_case(&g.name)))
            .filter_map(|g| find(&out.nodes, &g.name).map(|n| (n, g)))
            .collect();
        if groups.is_empty() {
            continue;
        }
        let joints: Vec<usize> = groups.iter().map(|(n, _)| *n).collect();
        let mut vertex_joints = Vec::with_capacity(mesh.positions.len());
        let mut vertex_weights = Vec::with_capacity(mesh.positions.len());
        for v in 0..mesh.positions.len() {
            let mut w: Vec<(u16, f32)> = groups
                .iter()
                .enumerate()
                .filter_map(|(j, (_, g))| {
                    g.weights
                        .get(v)
                        .copied()
                        .filter(|&x| x > 0.0)
                        .map(|x| (j as u16, x))
                })
                .collect();
            // Heaviest first; ties keep group order (stable sort).
            w.sort_by(|a, b| b.1.total_cmp(&a.1));
            w.truncate(4);
            let total: f32 = w.iter().map(|x| x.1).sum();
            let mut js = [0u16; 4];
            let mut ws = [0f32; 4];
            for (k, (j, x)) in w.iter().enumerate() {
                js[k] = *j;
                ws[k] = if total > 0.0 { x / total } else { 0.0 };
            }
            vertex_joints.push(js);
            vertex_weights.push(ws);
        }
        mesh.skin = Some(Skin {
            inverse_bind: vec![Mat4::IDENTITY; joints.len()],
            joints,
            vertex_joints,
            vertex_weights,
        });
    }
    out
}
