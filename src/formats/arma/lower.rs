//! Arma MLOD P3D models and RTM animations → the scene model.
//!
//! A P3D's named selections become vertex groups; an RTM names the bones.
//! Plain RTM matrices are absolute model-space deformations of the rest pose
//! (identity = rest), so its bones are roots. BMTR keys are parent-relative
//! in a space turned 180° about Y: local = rotation of `(x, −y, z, w)` with
//! translation `(−tx, ty, −tz)`, composed through the skeleton's parents,
//! which gives the plain file's matrices. Either way the bones' world
//! matrices deform the rest pose, so inverse bind matrices are identity.
//!
//! Arma is left-handed with Y up and models face +Z, like Grimrock: the
//! display mirrors X so yaw 0 shows the front and nothing is mirrored.

use super::p3d::Mlod;
use super::rtm::{self, Bmtr, PlainRtm};
use crate::scene::animation::{Animation, NodeTrack};
use crate::scene::skeleton::BoneSpec;
use crate::scene::*;
use crate::texture::TextureAlpha;
use glam::{Mat3, Mat4, Quat, Vec2, Vec3};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// An image for a face texture: where it was read from and the decoded
/// texture or why it could not be read.
pub type FaceImage = crate::formats::texture::TextureFile;

const NEUTRAL: [f32; 4] = [0.72, 0.72, 0.72, 1.0];

/// Lowers LOD `lod` of `m`. `image` gives the image for a face texture name
/// as stored, when one is mapped to it or found.
pub fn lower_mlod(
    m: &Mlod,
    lod: usize,
    source: &Path,
    image: &mut dyn FnMut(&str) -> Option<FaceImage>,
) -> Model {
    let mut warnings = Vec::new();
    let Some(l) = m.lods.get(lod) else {
        return empty_model(
            source,
            format!("LOD {lod} does not exist (the file has {})", m.lods.len()),
        );
    };
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut uvs = Vec::new();
    let mut point_of = Vec::new();
    let mut corner: BTreeMap<(u32, u32, u32, u32), u32> = BTreeMap::new();
    let mut prims: Vec<(String, Vec<[u32; 3]>)> = Vec::new();
    let mut bad = 0usize;
    for f in &l.faces {
        let sides = (f.sides as usize).clamp(3, 4);
        let mut idx = [0u32; 4];
        let mut ok = true;
        for (k, fv) in f.vertices.iter().take(sides).enumerate() {
            let Some(p) = l.points.get(fv.point as usize) else {
                ok = false;
                break;
            };
            let key = (fv.point, fv.normal, fv.u.to_bits(), fv.v.to_bits());
            idx[k] = *corner.entry(key).or_insert_with(|| {
                positions.push(p.pos);
                normals.push(
                    -l.normals
                        .get(fv.normal as usize)
                        .copied()
                        .unwrap_or(Vec3::ZERO),
                );
                uvs.push(Vec2::new(fv.u, fv.v));
                point_of.push(fv.point as usize);
                (positions.len() - 1) as u32
            });
        }
        if !ok {
            bad += 1;
            continue;
        }
        // Object Builder's faces run the other way round from kiln's
        // counter-clockwise fronts (checked on the corpus crate: read as
        // stored, its outermost faces would face inward), and its stored
        // normals point inward too.
        let tris: &[[usize; 3]] = if sides == 4 {
            &[[0, 2, 1], [0, 3, 2]]
        } else {
            &[[0, 2, 1]]
        };
        let key = f.texture.to_ascii_lowercase();
        let slot = match prims.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                prims.push((key, Vec::new()));
                prims.len() - 1
            }
        };
        for t in tris {
            prims[slot].1.push([idx[t[0]], idx[t[1]], idx[t[2]]]);
        }
    }
    if bad > 0 {
        warnings.push(format!(
            "{bad} face(s) name points past the LOD's {} points; skipped",
            l.points.len()
        ));
    }
    // Faces without normals in the file get their face's normal.
    for (_, tris) in &prims {
        for t in tris {
            let [a, b, c] = t.map(|i| positions[i as usize]);
            let n = (b - a).cross(c - a).normalize_or_zero();
            for &i in t {
                if normals[i as usize] == Vec3::ZERO {
                    normals[i as usize] = n;
                }
            }
        }
    }

    let mut textures = Vec::new();
    let mut mats = Vec::new();
    let mut primitives = Vec::new();
    for (name, triangles) in prims {
        let original = l
            .faces
            .iter()
            .find(|f| f.texture.eq_ignore_ascii_case(&name))
            .map(|f| f.texture.clone())
            .unwrap_or(name);
        let file = image(&original);
        let mut texture = None;
        let mut alpha = AlphaMode::Opaque;
        let procedural = procedural_color(&original);
        match file {
            None if procedural.is_some() => {}
            Some((path, decoded)) => match decoded {
                Ok(t) => {
                    alpha = match t.alpha {
                        TextureAlpha::Opaque => AlphaMode::Opaque,
                        TextureAlpha::ColorKey => AlphaMode::Mask(0.5),
                        TextureAlpha::Translucent => AlphaMode::Blend,
                    };
                    textures.push(TextureSlot { name: original.clone(), path: Some(path), image: Arc::new(t), sampler: Sampler::default() });
                    texture = Some(textures.len() - 1);
                }
                Err(e) => warnings.push(format!("texture '{original}': {e}; drawn neutral grey")),
            },
            None if original.is_empty() => {}
            None => warnings.push(format!(
                "texture '{original}' not found (looked for it and its .paa in the data sources and the model's folder; add its folder or PBO to `data:`, or map it in `materials:`); drawn neutral grey"
            )),
        }
        mats.push(Material {
            name: original,
            texture,
            alpha,
            unlit: false,
            emissive: [0.0; 3],
            emissive_texture: None,
            base_color: match (texture, procedural) {
                (Some(_), _) => [1.0; 4],
                (None, Some(c)) => c,
                (None, None) => NEUTRAL,
            },
        });
        if procedural.is_some_and(|c| c[3] < 1.0) && texture.is_none() {
            if let Some(m) = mats.last_mut() {
                m.alpha = AlphaMode::Blend;
            }
        }
        primitives.push(Primitive {
            material: mats.len() - 1,
            triangles,
            two_sided: false,
            uv_anims: Vec::new(),
        });
    }

    let groups = l
        .selections
        .iter()
        .filter(|s| !s.name.starts_with('-') && !s.name.to_ascii_lowercase().starts_with("proxy:"))
        .map(|s| VertexGroup {
            name: s.name.clone(),
            weights: point_of
                .iter()
                .map(|&p| s.point_weights.get(p).copied().unwrap_or(0.0))
                .collect(),
        })
        .collect();

    Model {
        extras: Default::default(),
        name: source
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        source: source.to_path_buf(),
        nodes: vec![Node::identity("(model)", None)],
        meshes: vec![Mesh {
            name: crate::formats::arma::p3d::lod_name(l.resolution),
            node: 0,
            positions,
            normals,
            uvs,
            colors: Vec::new(),
            skin: None,
            primitives,
            groups,
        }],
        materials: mats,
        textures,
        duration: 0.0,
        frame_rate: 30.0,
        // RTM files carry no loop flag (it lives in game config): they loop.
        looping: true,
        travel: Vec3::ZERO,
        display: Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
        warnings,
    }
}

/// Arma's procedural solid colours, `#(argb,8,8,3)color(r,g,b,a,co)`:
/// the colour itself, straight RGBA in 0..1.
fn procedural_color(name: &str) -> Option<[f32; 4]> {
    let lower = name.to_ascii_lowercase();
    let start = lower.find("color(")? + "color(".len();
    if !lower.starts_with("#(") {
        return None;
    }
    let end = lower[start..].find(')')? + start;
    let v: Vec<f32> = lower[start..end]
        .split(',')
        .filter_map(|x| x.trim().parse().ok())
        .collect();
    match v.as_slice() {
        [r, g, b, a, ..] => Some([*r, *g, *b, *a].map(|c| c.clamp(0.0, 1.0))),
        [r, g, b] => Some([r.clamp(0.0, 1.0), g.clamp(0.0, 1.0), b.clamp(0.0, 1.0), 1.0]),
        _ => None,
    }
}

fn empty_model(source: &Path, warning: String) -> Model {
    Model {
        extras: Default::default(),
        name: source
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        source: source.to_path_buf(),
        nodes: Vec::new(),
        meshes: Vec::new(),
        materials: Vec::new(),
        textures: Vec::new(),
        duration: 0.0,
        frame_rate: 30.0,
        // RTM files carry no loop flag (it lives in game config): they loop.
        looping: true,
        travel: Vec3::ZERO,
        display: Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
        warnings: vec![warning],
    }
}

fn track<T: crate::scene::Interpolate>(times: &[f32], values: Vec<T>) -> Option<Track<T>> {
    (!values.is_empty()).then(|| Track::new(times.to_vec(), values, Interp::Linear))
}

/// A plain RTM. Its matrices are absolute deformations of the rest pose,
/// at `phase × duration` seconds. Without a skeleton every bone is a root
/// whose keys are those matrices. With one (the `model.cfg` the binarised
/// form of the same file needs), each bone's keys become parent-relative,
/// `inv(world(parent)) · matrix`, so the file interpolates between keys
/// exactly as its binarised form does. With `travel`, the model also moves
/// by `step × phase` (the root displacement per cycle); otherwise it
/// animates in place and the step is kept as the animation's `travel`,
/// for root-motion metadata.
///
/// A key matrix that is no rotation times an axis scale (shear, or scale
/// along other directions) puts its bone on a full stretch track, so posing
/// keeps the whole matrix.
pub fn lower_plain(
    r: &PlainRtm,
    skeleton: Option<&[(String, String)]>,
    duration: f32,
    travel: bool,
) -> (Animation, Vec<BoneSpec>) {
    let times: Vec<f32> = r.frames.iter().map(|f| f.phase * duration).collect();
    let absolute = |f: &rtm::PlainFrame, bone: &str| {
        f.transforms
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(bone))
            .map(|(_, m)| rtm::matrix(m))
    };
    let Some(skeleton) = skeleton.filter(|s| !s.is_empty()) else {
        let tracks = r
            .bones
            .iter()
            .map(|bone| {
                let keys: Vec<Mat4> = r
                    .frames
                    .iter()
                    .map(|f| {
                        let m = absolute(f, bone).unwrap_or(Mat4::IDENTITY);
                        if travel {
                            Mat4::from_translation(r.step * f.phase) * m
                        } else {
                            m
                        }
                    })
                    .collect();
                NodeTrack {
                    node: bone.clone(),
                    anim: matrix_tracks(&times, &keys),
                }
            })
            .collect();
        let bones = r
            .bones
            .iter()
            .map(|b| BoneSpec {
                name: b.clone(),
                parent: None,
            })
            .collect();
        return (
            Animation {
                duration,
                frame_rate: frame_rate(&times),
                tracks,
                travel: if travel { Vec3::ZERO } else { r.step },
            },
            bones,
        );
    };

    let mut bones: Vec<BoneSpec> = skeleton
        .iter()
        .map(|(b, p)| BoneSpec {
            name: b.clone(),
            parent: (!p.is_empty()).then(|| p.clone()),
        })
        .collect();
    for b in &r.bones {
        if !bones.iter().any(|s| s.name.eq_ignore_ascii_case(b)) {
            bones.push(BoneSpec {
                name: b.clone(),
                parent: None,
            });
        }
    }
    let parent_of = |b: &str| {
        bones
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(b))
            .and_then(|s| s.parent.clone())
    };
    let in_file = |b: &str| r.bones.iter().any(|x| x.eq_ignore_ascii_case(b));
    // Which bones get keys: those of the file, and with travel the
    // skeleton's roots, which carry the displacement for their children.
    let keyed: Vec<&BoneSpec> = bones
        .iter()
        .filter(|b| in_file(&b.name) || (travel && b.parent.is_none()))
        .collect();
    let mut locals: Vec<Vec<Mat4>> = vec![Vec::with_capacity(r.frames.len()); keyed.len()];
    for f in &r.frames {
        let shift = Mat4::from_translation(if travel { r.step * f.phase } else { Vec3::ZERO });
        // A bone's pose in this frame: its own matrix, or (without one)
        // its parent's, as it rests on the parent; a skeleton root rests on
        // the model, moved by the travel.
        let world = |bone: &str| -> Mat4 {
            let mut b = bone.to_string();
            for _ in 0..=bones.len() {
                if let Some(m) = absolute(f, &b) {
                    return shift * m;
                }
                match parent_of(&b) {
                    Some(p) => b = p,
                    None => return shift,
                }
            }
            shift
        };
        for (k, b) in keyed.iter().enumerate() {
            let own = world(&b.name);
            let parent = b.parent.as_deref().map_or(Mat4::IDENTITY, world);
            let inverse = if parent.determinant().abs() > 1e-12 {
                parent.inverse()
            } else {
                Mat4::IDENTITY
            };
            locals[k].push(inverse * own);
        }
    }
    let tracks = keyed
        .iter()
        .zip(&locals)
        .map(|(b, keys)| NodeTrack {
            node: b.name.clone(),
            anim: matrix_tracks(&times, keys),
        })
        .collect();
    (
        Animation {
            duration,
            frame_rate: frame_rate(&times),
            tracks,
            travel: if travel { Vec3::ZERO } else { r.step },
        },
        bones,
    )
}

/// Tracks that reproduce `keys` (affine matrices) at their times:
/// translation, slerped rotation and axis scale when every key is a
/// rotation times an axis scale, else translation, rotation and the full
/// symmetric stretch of each key's polar decomposition.
fn matrix_tracks(times: &[f32], keys: &[Mat4]) -> NodeAnim {
    let (mut tr, mut rot, mut sc) = (Vec::new(), Vec::new(), Vec::new());
    let mut exact = true;
    for m in keys {
        let (s, q, t) = m.to_scale_rotation_translation();
        let back = Mat4::from_scale_rotation_translation(s, q, t);
        let size = Mat3::from_mat4(*m)
            .to_cols_array()
            .iter()
            .fold(1.0f32, |a, x| a.max(x.abs()));
        let lost = (back - *m)
            .to_cols_array()
            .iter()
            .fold(0.0f32, |a, x| a.max(x.abs()));
        exact &= lost <= SHEAR_TOLERANCE * size;
        tr.push(t);
        rot.push(q);
        sc.push(s);
    }
    if exact {
        return NodeAnim {
            translation: track(times, tr),
            rotation: track(times, rot),
            scale: track(times, sc),
            stretch: None,
        };
    }
    let (rot, stretch): (Vec<Quat>, Vec<Mat3>) = keys
        .iter()
        .map(|m| crate::scene::decompose::polar(Mat3::from_mat4(*m)))
        .unzip();
    NodeAnim {
        translation: track(times, tr),
        rotation: track(times, rot),
        scale: None,
        stretch: track(times, stretch),
    }
}

/// How much of a key matrix (relative to its largest entry) a rotation and
/// an axis scale may miss before the bone keeps its full stretch: above
/// the rounding of the files' 4-digit matrices (1e-5), below the shear
/// real files carry (the corpus fast-roping pelvis 2.3e-4, a held-out
/// DayZ file about 1e-2).
const SHEAR_TOLERANCE: f32 = 1e-4;

/// A binarised RTM with its skeleton (bone, parent) pairs: parent-relative
/// keys in the flipped space.
pub fn lower_bmtr(
    r: &Bmtr,
    skeleton: &[(String, String)],
    duration: f32,
    travel: bool,
) -> (Animation, Vec<BoneSpec>) {
    let times: Vec<f32> = r.times.iter().map(|p| p * duration).collect();
    let tracks = r
        .bones
        .iter()
        .enumerate()
        .map(|(b, bone)| {
            let is_root = skeleton
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(bone))
                .is_none_or(|(_, p)| p.is_empty());
            let (mut tr, mut rot) = (Vec::new(), Vec::new());
            for (fi, f) in r.frames.iter().enumerate() {
                let phase = r.times.get(fi).copied().unwrap_or(0.0);
                let shift = if travel && is_root {
                    r.step * phase
                } else {
                    Vec3::ZERO
                };
                let k = f.get(b).copied().unwrap_or(rtm::BoneKey {
                    rotation: Quat::IDENTITY,
                    translation: Vec3::ZERO,
                });
                let q = Quat::from_xyzw(k.rotation.x, -k.rotation.y, k.rotation.z, k.rotation.w)
                    .normalize();
                rot.push(if q.is_finite() { q } else { Quat::IDENTITY });
                tr.push(Vec3::new(-k.translation.x, k.translation.y, -k.translation.z) + shift);
            }
            NodeTrack {
                node: bone.clone(),
                anim: NodeAnim {
                    translation: track(&times, tr),
                    rotation: track(&times, rot),
                    scale: None,
                    stretch: None,
                },
            }
        })
        .collect();
    let mut tracks: Vec<NodeTrack> = tracks;
    if travel {
        // Roots the file does not animate still carry the travel.
        for (root, _) in skeleton.iter().filter(|(_, p)| p.is_empty()) {
            if !r.bones.iter().any(|b| b.eq_ignore_ascii_case(root)) {
                let path = r.times.iter().map(|&p| r.step * p).collect();
                tracks.push(NodeTrack {
                    node: root.clone(),
                    anim: NodeAnim {
                        translation: track(&times, path),
                        rotation: None,
                        scale: None,
                        stretch: None,
                    },
                });
            }
        }
    }
    let bones = skeleton
        .iter()
        .map(|(b, p)| BoneSpec {
            name: b.clone(),
            parent: (!p.is_empty()).then(|| p.clone()),
        })
        .collect();
    (
        Animation {
            duration,
            frame_rate: frame_rate(&times),
            tracks,
            travel: if travel { Vec3::ZERO } else { r.step },
        },
        bones,
    )
}

fn frame_rate(times: &[f32]) -> f32 {
    match times {
        [a, b, ..] if b > a => 1.0 / (b - a),
        _ => 30.0,
    }
}
