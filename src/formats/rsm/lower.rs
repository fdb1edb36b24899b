//! RSM/RSM2 → `scene::Model`.
//!
//! Everything FORMATS.md says about RSM interpretation is resolved here:
//! milliseconds (1.x) vs frames at `fps` (2.x), RSM1's node chain with the
//! non-inherited `T(offset)·M3`, RSM2's parent-relative keys over an absolute
//! rest pose, the key-edge rules, the display rotation/mirror, centering,
//! shade types with smoothing groups, texture animations.

use super::by_vertex::ByVertex;
use super::{Rsm, RsmNode};
use crate::formats::ragnarok::LoadedTexture;
use crate::scene::{Interp, Track, *};
use crate::text::decode_cp949;
use crate::texture::TextureAlpha;
use glam::{Mat3, Mat4, Quat, Vec2, Vec3};
use std::collections::BTreeMap;
use std::path::Path;

/// Cutoff for colour-keyed textures: bilinear filtering blends keyed texels
/// in as transparent black, and half coverage is where the key's edge lies.
pub const COLOR_KEY_CUTOFF: f32 = 0.5;

/// Lowers a parsed RSM into a scene model; `texture` finds and decodes a
/// texture by its name as stored (the checker, with a warning, when it
/// cannot).
pub fn lower(rsm: &Rsm, source: &Path, texture: &mut dyn FnMut(&[u8]) -> LoadedTexture) -> Model {
    let mut warnings = rsm.warnings.clone();
    let rsm2 = rsm.is_rsm2();
    let fps = rsm
        .fps
        .filter(|f| f.is_finite() && *f > 0.0)
        .unwrap_or(30.0);
    // Key times → seconds: 1.x keys are milliseconds, 2.x keys are frames.
    let unit = if rsm2 { 1.0 / fps } else { 0.001 };

    let order = node_order(rsm, &mut warnings);
    // index in file → index in model
    let mut remap = vec![usize::MAX; rsm.nodes.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = new;
    }

    let mut textures = TextureTable::default();
    let mut nodes = Vec::with_capacity(order.len());
    let mut meshes = Vec::new();
    for &old in &order {
        let n = &rsm.nodes[old];
        let parent_old = parent_of(rsm, old);
        let parent = parent_old.map(|p| remap[p]);
        let node = if rsm2 {
            lower_node_rsm2(n, parent_old.map(|p| &rsm.nodes[p]), unit)
        } else {
            lower_node_rsm1(n, unit)
        };
        let node_index = nodes.len();
        nodes.push(Node { parent, ..node });
        // Resolve the node's texture list (face.texture_id indexes it).
        let node_textures: Vec<Option<usize>> = if !n.texture_names.is_empty() {
            n.texture_names
                .iter()
                .map(|name| Some(textures.slot(name, texture)))
                .collect()
        } else {
            n.texture_ids
                .iter()
                .map(|&id| {
                    rsm.textures
                        .get(id as usize)
                        .filter(|_| id >= 0)
                        .map(|name| textures.slot(name, texture))
                })
                .collect()
        };
        if let Some(mesh) = lower_mesh(rsm, n, node_index, &node_textures, unit, &mut warnings) {
            meshes.push(mesh);
        }
    }

    let (slots, tex_warnings) = textures.finish();
    warnings.extend(tex_warnings);
    let unlit = rsm.shade_type == 0;
    let materials = slots
        .iter()
        .map(|s| Material {
            name: s.name.clone(),
            texture: None,
            alpha: match s.image.alpha {
                TextureAlpha::Opaque => AlphaMode::Opaque,
                TextureAlpha::ColorKey => AlphaMode::Mask(COLOR_KEY_CUTOFF),
                TextureAlpha::Translucent => AlphaMode::Blend,
            },
            unlit,
            emissive: [0.0; 3],
            emissive_texture: None,
            base_color: [1.0; 4],
        })
        .enumerate()
        .map(|(i, m)| Material {
            texture: Some(i),
            ..m
        })
        .collect::<Vec<_>>();
    let mut materials = materials;
    // Faces whose texture id is out of range draw with a plain grey material.
    let fallback = materials.len();
    materials.push(Material {
        name: "(no texture)".into(),
        texture: None,
        alpha: AlphaMode::Opaque,
        unlit,
        emissive: [0.0; 3],
        emissive_texture: None,
        base_color: [0.7, 0.7, 0.7, 1.0],
    });
    for m in &mut meshes {
        for p in &mut m.primitives {
            if p.material == usize::MAX {
                p.material = fallback;
            }
        }
    }

    let has_keys = rsm.nodes.iter().any(|n| {
        !n.rot_keys.is_empty()
            || !n.pos_keys.is_empty()
            || !n.scale_keys.is_empty()
            || !n.tex_anims.is_empty()
    });
    let duration = if has_keys && rsm.anim_len > 0 {
        rsm.anim_len as f32 * unit
    } else {
        0.0
    };

    let mut model = Model {
        extras: Default::default(),
        name: source
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        source: source.to_path_buf(),
        nodes,
        meshes,
        materials,
        textures: slots,
        duration,
        frame_rate: if rsm2 { fps } else { 30.0 },
        // The format has no loop flag of its own: animations loop.
        looping: true,
        travel: Vec3::ZERO,
        display: Mat4::IDENTITY,
        warnings,
    };
    // RSM1 data is Y-down and needs a 180° turn about X; RSM2 needs only the
    // Z mirror. Then centre on the frame-0 bounding box of all vertices and
    // stand the model on the ground.
    let axes = if rsm2 {
        Mat4::from_scale(Vec3::new(1.0, 1.0, -1.0))
    } else {
        Mat4::from_scale(Vec3::new(1.0, -1.0, -1.0))
    };
    model.display = axes;
    if let Some((min, max)) = frame0_bounds(&model) {
        let c = (min + max) * 0.5;
        model.display = Mat4::from_translation(Vec3::new(-c.x, -min.y, -c.z)) * axes;
    }
    model
}

/// Bounds of all vertices (not only those used by faces) at frame 0, after `display`.
fn frame0_bounds(model: &Model) -> Option<(Vec3, Vec3)> {
    let worlds = crate::scene::pose::node_worlds(model, 0.0);
    let mut min = Vec3::splat(f32::INFINITY);
    let mut max = Vec3::splat(f32::NEG_INFINITY);
    for mesh in &model.meshes {
        let m = crate::scene::pose::mesh_matrix(model, &worlds, mesh);
        for &p in &mesh.positions {
            let q = m.transform_point3(p);
            if q.is_finite() {
                min = min.min(q);
                max = max.max(q);
            }
        }
    }
    (min.x <= max.x).then_some((min, max))
}

/// Parent index of node `i`: the first other node whose name equals the
/// parent name. Roots have an empty or unknown parent name.
fn parent_of(rsm: &Rsm, i: usize) -> Option<usize> {
    let want = &rsm.nodes[i].parent;
    if want.is_empty() {
        return None;
    }
    rsm.nodes
        .iter()
        .enumerate()
        .find(|(j, n)| *j != i && &n.name == want)
        .map(|(j, _)| j)
}

/// Orders nodes so parents come before children; nodes caught in a parent
/// cycle become roots with a warning.
fn node_order(rsm: &Rsm, warnings: &mut Vec<String>) -> Vec<usize> {
    let n = rsm.nodes.len();
    let parents: Vec<Option<usize>> = (0..n).map(|i| parent_of(rsm, i)).collect();
    let mut placed = vec![false; n];
    let mut order = Vec::with_capacity(n);
    loop {
        let before = order.len();
        for i in 0..n {
            if !placed[i] && parents[i].is_none_or(|p| placed[p]) {
                placed[i] = true;
                order.push(i);
            }
        }
        if order.len() == n {
            break;
        }
        if order.len() == before {
            let i = (0..n).find(|&i| !placed[i]).unwrap_or(0);
            warnings.push(format!(
                "node '{}' is part of a parent cycle; drawn as a root",
                decode_cp949(&rsm.nodes[i].name)
            ));
            placed[i] = true;
            order.push(i);
        }
    }
    order
}

fn mat3_of(m: &[f32; 9]) -> Mat3 {
    Mat3::from_cols(
        Vec3::new(m[0], m[1], m[2]),
        Vec3::new(m[3], m[4], m[5]),
        Vec3::new(m[6], m[7], m[8]),
    )
}

fn safe_inverse(m: Mat3) -> Mat3 {
    if m.determinant().abs() > 1e-12 {
        m.inverse()
    } else {
        Mat3::IDENTITY
    }
}

fn lower_node_rsm1(n: &RsmNode, unit: f32) -> Node {
    let linear = if n.rot_axis.length_squared() > 1e-12 && n.rot_angle.is_finite() {
        Mat3::from_axis_angle(n.rot_axis.normalize(), n.rot_angle)
    } else {
        Mat3::IDENTITY
    };
    let mut anim = NodeAnim::default();
    if !n.rot_keys.is_empty() {
        anim.rotation = Some(Track::new(
            n.rot_keys.iter().map(|k| k.frame as f32 * unit).collect(),
            n.rot_keys.iter().map(|k| k.rotation).collect(),
            Interp::Linear,
        ));
    }
    if !n.scale_keys.is_empty() {
        anim.scale = Some(Track::new(
            n.scale_keys.iter().map(|k| k.frame as f32 * unit).collect(),
            n.scale_keys.iter().map(|k| k.scale).collect(),
            Interp::Linear,
        ));
    }
    Node {
        name: decode_cp949(&n.name),
        parent: None,
        translation: n.position,
        linear,
        scale: n.scale,
        anim,
        geometry: Mat4::from_translation(n.offset) * Mat4::from_mat3(mat3_of(&n.matrix)),
    }
}

fn lower_node_rsm2(n: &RsmNode, parent: Option<&RsmNode>, unit: f32) -> Node {
    let m3 = mat3_of(&n.matrix);
    let (pm3, poff) = parent.map_or((Mat3::IDENTITY, Vec3::ZERO), |p| {
        (mat3_of(&p.matrix), p.offset)
    });
    let inv_parent = safe_inverse(pm3);
    let rest_linear = inv_parent * m3;
    let rest_translation = inv_parent * (n.offset - poff);
    let mut anim = NodeAnim::default();
    // Keys are parent-relative; before the first key interpolate from the
    // default (identity, rest position, scale 1) at frame 0.
    if !n.rot_keys.is_empty() {
        let mut t = Track::new(
            n.rot_keys.iter().map(|k| k.frame as f32 * unit).collect(),
            n.rot_keys.iter().map(|k| k.rotation).collect(),
            Interp::Linear,
        );
        t.before_first = Some(Quat::IDENTITY);
        anim.rotation = Some(t);
    }
    if !n.pos_keys.is_empty() {
        let mut t = Track::new(
            n.pos_keys.iter().map(|k| k.frame as f32 * unit).collect(),
            n.pos_keys.iter().map(|k| k.position).collect(),
            Interp::Linear,
        );
        t.before_first = Some(rest_translation);
        anim.translation = Some(t);
    }
    if !n.scale_keys.is_empty() {
        let mut t = Track::new(
            n.scale_keys.iter().map(|k| k.frame as f32 * unit).collect(),
            n.scale_keys.iter().map(|k| k.scale).collect(),
            Interp::Linear,
        );
        t.before_first = Some(Vec3::ONE);
        anim.scale = Some(t);
    }
    Node {
        name: decode_cp949(&n.name),
        parent: None,
        translation: rest_translation,
        linear: rest_linear,
        scale: Vec3::ONE,
        anim,
        geometry: Mat4::IDENTITY,
    }
}

/// Builds the node's mesh: corners deduplicated into vertices, normals per
/// shade type, one primitive per (material, two-sided) pair.
fn lower_mesh(
    rsm: &Rsm,
    n: &RsmNode,
    node: usize,
    node_textures: &[Option<usize>],
    unit: f32,
    warnings: &mut Vec<String>,
) -> Option<Mesh> {
    if n.faces.is_empty() {
        return None;
    }
    let name = decode_cp949(&n.name);
    let smooth = rsm.shade_type == 2;
    if n.vertices.is_empty() {
        warnings.push(format!(
            "node '{name}': {} face(s) but no vertices; nothing drawn",
            n.faces.len()
        ));
        return None;
    }
    // Out-of-range indices are clamped to the last entry, as the client
    // tolerates them; the count is reported once per node.
    let last_v = n.vertices.len() - 1;
    let vid = |i: u16| (i as usize).min(last_v);
    let face_normal = |f: &crate::formats::rsm::Face| -> Vec3 {
        let [a, b, c] = f.vertex_ids.map(|i| n.vertices[vid(i)]);
        (b - a).cross(c - a).normalize_or_zero()
    };
    // Smooth normals: sum of face normals per (vertex, smoothing group).
    // Looked up, never iterated, so no map's order can reach the output; a
    // tree cost several milliseconds on a 10k-face node, and hashing every
    // corner another two ([`ByVertex`] indexes by vertex instead).
    let mut smooth_sum: ByVertex<i32, Vec3> = ByVertex::new(n.vertices.len());
    if smooth {
        for f in &n.faces {
            let fnrm = face_normal(f);
            let g = f.smooth_groups.first().copied().unwrap_or(0);
            for &vi in &f.vertex_ids {
                *smooth_sum.get_or_insert_with(vid(vi), g, || Vec3::ZERO) += fnrm;
            }
        }
    }

    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut uvs = Vec::new();
    let mut vertex_of: ByVertex<(u16, [u32; 3]), u32> = ByVertex::new(n.vertices.len());
    let mut prims: BTreeMap<(usize, bool), Vec<[u32; 3]>> = BTreeMap::new();
    for f in &n.faces {
        let fnrm = face_normal(f);
        let g = f.smooth_groups.first().copied().unwrap_or(0);
        let mut tri = [0u32; 3];
        for (k, slot) in tri.iter_mut().enumerate() {
            let vi = vid(f.vertex_ids[k]);
            let ti = f.tex_coord_ids[k];
            let nrm = if smooth {
                smooth_sum
                    .get(vi, g)
                    .copied()
                    .unwrap_or(fnrm)
                    .normalize_or_zero()
            } else {
                fnrm
            };
            let key = (ti, [nrm.x.to_bits(), nrm.y.to_bits(), nrm.z.to_bits()]);
            let idx = *vertex_of.get_or_insert_with(vi, key, || {
                positions.push(n.vertices[vi]);
                normals.push(nrm);
                let uv = n
                    .tex_coords
                    .get((ti as usize).min(n.tex_coords.len().saturating_sub(1)))
                    .map_or(Vec2::ZERO, |t| Vec2::new(t.u, t.v));
                uvs.push(uv);
                (positions.len() - 1) as u32
            });
            *slot = idx;
        }
        let material = node_textures
            .get(f.texture_id as usize)
            .copied()
            .flatten()
            .unwrap_or(usize::MAX);
        prims
            .entry((material, f.two_side != 0))
            .or_default()
            .push(tri);
    }
    let bad_faces = n
        .faces
        .iter()
        .filter(|f| f.vertex_ids.iter().any(|&i| i as usize > last_v))
        .count();
    if bad_faces > 0 {
        warnings.push(format!(
            "node '{name}': {bad_faces} face(s) with vertex indices out of range (clamped)"
        ));
    }
    let tc_oob = n
        .faces
        .iter()
        .filter(|f| {
            f.tex_coord_ids
                .iter()
                .any(|&t| t as usize >= n.tex_coords.len())
        })
        .count();
    if tc_oob > 0 && !n.tex_coords.is_empty() {
        warnings.push(format!("node '{name}': {tc_oob} face(s) with texture-coordinate indices out of range (clamped)"));
    }

    let primitives = prims
        .into_iter()
        .map(|((material, two_sided), triangles)| Primitive {
            material,
            triangles,
            two_sided,
            uv_anims: uv_anims_for(n, node_textures, material, unit),
        })
        .collect();
    Some(Mesh {
        name,
        node,
        positions,
        normals,
        uvs,
        colors: Vec::new(),
        skin: None,
        primitives,
        groups: Vec::new(),
    })
}

/// Texture animations of the node that target the texture behind `material`.
fn uv_anims_for(
    n: &RsmNode,
    node_textures: &[Option<usize>],
    material: usize,
    unit: f32,
) -> Vec<UvAnim> {
    let mut out = Vec::new();
    for ta in &n.tex_anims {
        let target = usize::try_from(ta.texture)
            .ok()
            .and_then(|i| node_textures.get(i).copied().flatten());
        if target != Some(material) {
            continue;
        }
        for ch in &ta.channels {
            let kind = match ch.kind {
                0 => UvAnimKind::TranslateU,
                1 => UvAnimKind::TranslateV,
                2 => UvAnimKind::ScaleU,
                3 => UvAnimKind::ScaleV,
                4 => UvAnimKind::Rotate,
                _ => continue,
            };
            if ch.keys.is_empty() {
                continue;
            }
            let mut track = Track::new(
                ch.keys.iter().map(|k| k.frame as f32 * unit).collect(),
                ch.keys.iter().map(|k| k.value).collect(),
                Interp::Linear,
            );
            track.before_first = Some(0.0);
            out.push(UvAnim { kind, track });
        }
    }
    out
}

/// Model texture slots, deduplicated case-insensitively (RSM 2.3 repeats
/// names per mesh).
#[derive(Default)]
struct TextureTable {
    slots: Vec<TextureSlot>,
    keys: Vec<String>,
    warnings: Vec<String>,
}

impl TextureTable {
    fn slot(&mut self, raw: &[u8], texture: &mut dyn FnMut(&[u8]) -> LoadedTexture) -> usize {
        let name = decode_cp949(raw);
        let key = name.replace('\\', "/").to_lowercase();
        if let Some(i) = self.keys.iter().position(|k| *k == key) {
            return i;
        }
        let loaded = texture(raw);
        self.warnings.extend(loaded.warning.clone());
        self.keys.push(key);
        self.slots.push(loaded.into_slot());
        self.slots.len() - 1
    }

    fn finish(self) -> (Vec<TextureSlot>, Vec<String>) {
        (self.slots, self.warnings)
    }
}
