//! Legend of Grimrock `MDL1` models and `ANIM` animations → the scene model.
//!
//! Grimrock is left-handed with Y up and the ground at y = 0, and its models
//! face +Z (the skeleton warrior's toes point +Z, its right hand is at +X).
//! kiln's display mirrors X: that is the field notes' "flip Z" (left- to
//! right-handed) followed by a half turn about Y, so models face kiln's +Z
//! and yaw 0 shows their front. Posing swaps triangle winding under the
//! mirror ("*and* the index order"), so sprites never come out mirrored.
//! Skinned vertices are stored in model space:
//! `v = Σ w · world(bone) · inv_rest · v_stored`, the mesh node's own
//! transform cancels.

use crate::formats::grimrock as gr;
use crate::scene::animation::{Animation, NodeTrack};
use crate::scene::*;
use crate::spec::RestPose;
use crate::texture::{self, Texture};
use glam::{Mat3, Mat4, Vec2, Vec3};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A material as the model's Lua definitions (or a recipe) describe it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MaterialDef {
    /// The material's name, as the model's segments name it.
    pub name: String,
    /// The image file to use (found and decoded, or why it could not be
    /// read), if any.
    pub texture: Option<(PathBuf, Result<Arc<Texture>, String>)>,
    /// Drawn from both sides (`doubleSided`).
    pub double_sided: bool,
    /// Texels under half alpha are cut out (`alphaTest`).
    pub alpha_test: bool,
    /// Blended (`blendMode` other than "Opaque").
    pub blend: bool,
    /// `lighting = false`.
    pub unlit: bool,
}

/// The grey used where a material has no texture.
const NEUTRAL: [f32; 4] = [0.72, 0.72, 0.72, 1.0];

/// The scene form of a parsed model, its materials from `defs`, its skinned meshes in `pose`.
pub fn lower(m: &gr::Model, source: &Path, defs: &[MaterialDef], pose: RestPose) -> Model {
    let mut warnings = m.warnings.clone();
    let order = node_order(m, &mut warnings);
    let mut remap = vec![usize::MAX; m.nodes.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = new;
    }

    let mut nodes = Vec::with_capacity(order.len());
    for &old in &order {
        let n = &m.nodes[old];
        let l = &n.local;
        nodes.push(Node {
            name: n.name_str(),
            parent: n
                .parent_index()
                .filter(|&p| p < m.nodes.len())
                .map(|p| remap[p]),
            translation: l.translation,
            linear: Mat3::from_cols(l.base_x, l.base_y, l.base_z),
            scale: Vec3::ONE,
            anim: NodeAnim::default(),
            geometry: Mat4::IDENTITY,
        });
    }

    let mut materials: Vec<Material> = Vec::new();
    let mut textures: Vec<TextureSlot> = Vec::new();
    let mut meshes = Vec::new();
    for &old in &order {
        let n = &m.nodes[old];
        let Some(entity) = n.mesh() else { continue };
        let name = n.name_str();
        let data = &entity.mesh;
        let Some(positions) = data.positions() else {
            warnings.push(format!("mesh '{name}' has no positions; skipped"));
            continue;
        };
        let count = positions.len();
        let uvs = data.texcoords0().unwrap_or_else(|| vec![Vec2::ZERO; count]);
        let normals = data.normals().unwrap_or_else(|| vec![Vec3::ZERO; count]);

        let mut primitives = Vec::new();
        let mut bad = 0usize;
        for seg in &data.segments {
            let mat_name = seg.material_str();
            let mi = material_index(
                &mat_name,
                defs,
                &mut materials,
                &mut textures,
                &mut warnings,
            );
            let first = seg.first_index.max(0) as usize;
            let len = (seg.triangle_count.max(0) as usize).saturating_mul(3);
            let end = first.saturating_add(len).min(data.indices.len());
            let indices = data.indices.get(first..end).unwrap_or(&[]);
            // Sized by the indices there are, not the segment's own count.
            let mut triangles = Vec::with_capacity(indices.len() / 3);
            for t in indices.chunks_exact(3) {
                if t.iter().all(|&i| (i as usize) < count) {
                    triangles.push([t[0], t[1], t[2]]);
                } else {
                    bad += 1;
                }
            }
            if first.saturating_add(len) > data.indices.len() {
                warnings.push(format!(
                    "mesh '{name}': segment '{mat_name}' runs past the index buffer; cut"
                ));
            }
            let two_sided = defs
                .iter()
                .find(|d| d.name == mat_name)
                .is_some_and(|d| d.double_sided);
            primitives.push(Primitive {
                material: mi,
                triangles,
                two_sided,
                uv_anims: Vec::new(),
            });
        }
        if bad > 0 {
            warnings.push(format!(
                "mesh '{name}': {bad} triangle(s) index past its {count} vertices; skipped"
            ));
        }

        let skin = (!entity.bones.is_empty() && pose == RestPose::Nodes).then(|| {
            let joints: Vec<usize> = entity
                .bones
                .iter()
                .map(|b| {
                    usize::try_from(b.node)
                        .ok()
                        .filter(|&i| i < m.nodes.len())
                        .map_or(usize::MAX, |i| remap[i])
                })
                .collect();
            let idx = data.bone_indices().unwrap_or_default();
            let wts = data.bone_weights().unwrap_or_default();
            let nb = entity.bones.len();
            let vertex_joints = (0..count)
                .map(|v| {
                    idx.get(v).copied().unwrap_or([0; 4]).map(|j| {
                        if (j as usize) < nb {
                            j as u16
                        } else {
                            0
                        }
                    })
                })
                .collect();
            let vertex_weights = (0..count)
                .map(|v| wts.get(v).copied().unwrap_or([1.0, 0.0, 0.0, 0.0]))
                .collect();
            Skin {
                joints,
                inverse_bind: entity.bones.iter().map(|b| b.inv_rest.to_mat4()).collect(),
                vertex_joints,
                vertex_weights,
            }
        });
        // Without a skin, bind-pose vertices are already in model space.
        let node = if entity.bones.is_empty() || pose == RestPose::Nodes {
            remap[old]
        } else {
            usize::MAX
        };
        meshes.push(Mesh {
            name,
            node,
            positions,
            normals,
            uvs,
            colors: Vec::new(),
            skin,
            primitives,
            groups: Vec::new(),
        });
    }
    // A mesh drawn in model space hangs off no node.
    for mesh in &mut meshes {
        if mesh.node == usize::MAX {
            mesh.node = nodes.len();
        }
    }
    let needs_root = meshes.iter().any(|mm| mm.node == nodes.len());
    if needs_root {
        nodes.push(Node::identity("(model space)", None));
    }

    Model {
        extras: Default::default(),
        name: source
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        source: source.to_path_buf(),
        nodes,
        meshes,
        materials,
        textures,
        duration: 0.0,
        frame_rate: 30.0,
        // The format has no loop flag of its own: animations loop.
        looping: true,
        travel: Vec3::ZERO,
        display: Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
        warnings,
    }
}

fn material_index(
    name: &str,
    defs: &[MaterialDef],
    materials: &mut Vec<Material>,
    textures: &mut Vec<TextureSlot>,
    warnings: &mut Vec<String>,
) -> usize {
    if let Some(i) = materials.iter().position(|m| m.name == name) {
        return i;
    }
    let def = defs.iter().find(|d| d.name == name);
    let mut texture_index = None;
    let mut alpha = AlphaMode::Opaque;
    match def {
        None => warnings.push(format!(
            "material '{name}' is not defined (no defineMaterial in the Lua files around the model, no recipe `materials:` entry); drawn neutral grey"
        )),
        Some(d) => match &d.texture {
            None => warnings.push(format!(
                "material '{name}' has no texture file; drawn neutral grey"
            )),
            Some((path, image)) => match image {
                Ok(t) => {
                    alpha = if d.blend {
                        AlphaMode::Blend
                    } else if d.alpha_test || t.alpha == texture::TextureAlpha::ColorKey {
                        AlphaMode::Mask(0.5)
                    } else {
                        AlphaMode::Opaque
                    };
                    textures.push(TextureSlot {
                        name: name.to_string(),
                        path: Some(path.clone()),
                        sampler: crate::scene::Sampler::default(),
                        image: t.clone(),
                    });
                    texture_index = Some(textures.len() - 1);
                }
                Err(e) => warnings.push(format!(
                    "material '{name}': texture unreadable ({e}); drawn neutral grey"
                )),
            },
        },
    }
    materials.push(Material {
        name: name.to_string(),
        texture: texture_index,
        alpha,
        unlit: def.is_some_and(|d| d.unlit),
        emissive: [0.0; 3],
        emissive_texture: None,
        base_color: if texture_index.is_some() {
            [1.0; 4]
        } else {
            NEUTRAL
        },
    });
    materials.len() - 1
}

fn node_order(m: &gr::Model, warnings: &mut Vec<String>) -> Vec<usize> {
    let n = m.nodes.len();
    let parents: Vec<Option<usize>> = m
        .nodes
        .iter()
        .enumerate()
        .map(|(i, nd)| nd.parent_index().filter(|&p| p < n && p != i))
        .collect();
    let mut placed = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let before = order.len();
        for i in 0..n {
            if !placed[i] && parents[i].is_none_or(|p| placed[p]) {
                placed[i] = true;
                order.push(i);
            }
        }
        if order.len() == before {
            let i = (0..n).find(|&i| !placed[i]).unwrap_or(0);
            warnings.push(format!(
                "node '{}' is part of a parent cycle; drawn as a root",
                m.nodes[i].name_str()
            ));
            placed[i] = true;
            order.push(i);
        }
    }
    order
}

/// An `ANIM` file as a scene animation: key `i` at `i / fps` seconds,
/// positions and scales lerped, rotations nlerped the short way, the last key
/// wrapping into the first over the final frame; duration = frames / fps. A
/// track with one key is constant.
pub fn lower_animation(a: &gr::Animation) -> Animation {
    let fps = if a.fps.is_finite() && a.fps > 0.0 {
        a.fps
    } else {
        30.0
    };
    let duration = a.frames.max(0) as f32 / fps;
    fn keyed<T: crate::scene::Interpolate>(
        values: &[T],
        fps: f32,
        interp: Interp,
        duration: f32,
    ) -> Option<Track<T>> {
        if values.is_empty() {
            return None;
        }
        let times = (0..values.len()).map(|i| i as f32 / fps).collect();
        let mut t = Track::new(times, values.to_vec(), interp);
        if values.len() > 1 {
            t.wrap_to_first = Some(duration);
        }
        Some(t)
    }
    let tracks = a
        .tracks
        .iter()
        .map(|t| NodeTrack {
            node: t.node_str(),
            anim: NodeAnim {
                translation: keyed(&t.positions, fps, Interp::Linear, duration),
                rotation: keyed(&t.rotations, fps, Interp::Nlerp, duration),
                scale: keyed(&t.scales, fps, Interp::Linear, duration),
                stretch: None,
            },
        })
        .collect();
    Animation {
        duration,
        frame_rate: fps,
        tracks,
        travel: Vec3::ZERO,
    }
}
