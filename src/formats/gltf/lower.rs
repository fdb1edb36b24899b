//! A glTF document lowered into kiln's [`Model`]: the node tree in parent
//! order, one kiln mesh per primitive a scene node draws (each with its
//! own texture coordinates, the material's texture transform applied), the
//! materials as kiln shades them, skins and morph targets; the animations
//! are `anim.rs`'s.

use super::accessor::{Data, Values};
use super::doc::{self, Document};
use super::{anim, images, material, SUPPORTED};
use crate::error::{Error, Result};
use crate::scene::{
    AlphaMode, Extras, Material, Mesh, Model, Morph, MorphTarget, Node, NodeAnim, Primitive, Skin,
};
use crate::source::{Lookup, Tree};
use glam::{Affine2, Mat3, Mat4, Quat, Vec2, Vec3, Vec4};
use std::path::Path;

/// Which scene a model shows: the document's default, else the first.
pub(crate) fn scene_index(doc: &Document) -> Option<usize> {
    doc.scene
        .filter(|&s| s < doc.scenes.len())
        .or((!doc.scenes.is_empty()).then_some(0))
}

/// The scene `wanted` names: by name (exact, then ignoring case), else by
/// index.
fn find_scene(doc: &Document, wanted: &str) -> Option<usize> {
    let name = |s: &doc::Scene| s.name.clone().unwrap_or_default();
    doc.scenes
        .iter()
        .position(|s| name(s) == wanted)
        .or_else(|| {
            doc.scenes
                .iter()
                .position(|s| name(s).eq_ignore_ascii_case(wanted))
        })
        .or_else(|| {
            wanted
                .parse::<usize>()
                .ok()
                .filter(|&i| i < doc.scenes.len())
        })
}

/// The node order kiln keeps (every parent before its children, roots in
/// file order) and each node's parent; a node with two parents or a cycle
/// is refused, as the specification forbids both.
pub(crate) fn node_order(doc: &Document, file: &Path) -> Result<(Vec<usize>, Vec<Option<usize>>)> {
    let n = doc.nodes.len();
    let mut parent: Vec<Option<usize>> = vec![None; n];
    for (i, node) in doc.nodes.iter().enumerate() {
        for &c in &node.children {
            if c >= n {
                return Err(Error::parse(
                    file,
                    format!("nodes[{i}].children"),
                    0,
                    format!("child {c} of {n} nodes"),
                ));
            }
            if parent[c].is_some() || c == i {
                return Err(Error::parse(
                    file,
                    format!("nodes[{i}].children"),
                    0,
                    format!("node {c} has more than one parent (the nodes must form trees)"),
                ));
            }
            parent[c] = Some(i);
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<usize> = (0..n).rev().filter(|&i| parent[i].is_none()).collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(doc.nodes[i].children.iter().rev());
    }
    if order.len() != n {
        return Err(Error::parse(
            file,
            "nodes",
            0,
            "the children lists form a cycle",
        ));
    }
    Ok((order, parent))
}

/// Which nodes the scene `s` holds (roots and everything below them).
fn in_scene(doc: &Document, s: Option<usize>) -> Vec<bool> {
    let mut inside = vec![false; doc.nodes.len()];
    let mut stack: Vec<usize> = match s {
        Some(s) => doc.scenes[s].nodes.clone(),
        // No scene: the specification leaves drawing to the application;
        // kiln draws every root.
        None => (0..doc.nodes.len())
            .filter(|i| !doc.nodes.iter().any(|n| n.children.contains(i)))
            .collect(),
    };
    while let Some(i) = stack.pop() {
        if i < inside.len() && !inside[i] {
            inside[i] = true;
            stack.extend(&doc.nodes[i].children);
        }
    }
    inside
}

/// What lowering needs besides the document.
pub(crate) struct Inputs<'a> {
    pub lookup: &'a Lookup,
    pub tree: &'a Tree,
    pub file: &'a Path,
    /// The scene asked for (name, else index); `None`: the default.
    pub scene: Option<&'a str>,
}

/// Lowers the document (its buffers loaded in `data`).
pub(crate) fn lower(data: &Data, inp: &Inputs, mut warnings: Vec<String>) -> Result<Model> {
    let doc = data.doc;
    let file = inp.file;
    for e in &doc.extensions_required {
        if !SUPPORTED.contains(&e.as_str()) {
            return Err(Error::parse(
                file,
                "extensionsRequired",
                0,
                format!("requires the glTF extension {e}, which kiln does not implement"),
            ));
        }
    }
    let (order, parent) = node_order(doc, file)?;
    let mut remap = vec![0usize; doc.nodes.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = new;
    }
    let nodes: Vec<Node> = order
        .iter()
        .map(|&i| lower_node(doc, i, parent[i].map(|p| remap[p])))
        .collect();
    let scene = match inp.scene {
        None => scene_index(doc),
        Some(wanted) => Some(find_scene(doc, wanted).ok_or_else(|| {
            let names: Vec<String> = doc
                .scenes
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{i} {:?}", s.name.clone().unwrap_or_default()))
                .collect();
            Error::Usage(format!(
                "{}: no scene {wanted:?}; the file holds {}",
                file.display(),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ))
        })?),
    };
    let inside = in_scene(doc, scene);

    let textures = images::textures(data, inp.lookup, inp.tree, &mut warnings);
    let mut materials: Vec<Material> = doc
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| material::lower(m, i, textures.len(), &mut warnings))
        .collect();
    let default_material = materials.len();
    materials.push(Material {
        name: "default".into(),
        texture: None,
        alpha: AlphaMode::Opaque,
        unlit: false,
        emissive: [0.0; 3],
        emissive_texture: None,
        base_color: [1.0; 4],
    });

    let mut meshes = Vec::new();
    let mut morphs: Vec<Option<Morph>> = Vec::new();
    // glTF node → the kiln meshes it draws (for weight channels).
    let mut drawn: Vec<Vec<usize>> = vec![Vec::new(); doc.nodes.len()];
    for &i in &order {
        let node = &doc.nodes[i];
        let (Some(m), true) = (node.mesh, inside[i]) else {
            continue;
        };
        let Some(mesh) = doc.meshes.get(m) else {
            return Err(Error::parse(
                file,
                format!("nodes[{i}].mesh"),
                0,
                format!("mesh {m} does not exist"),
            ));
        };
        let skin = match node.skin {
            Some(s) => Some(doc.skins.get(s).ok_or_else(|| {
                Error::parse(
                    file,
                    format!("nodes[{i}].skin"),
                    0,
                    format!("skin {s} does not exist"),
                )
            })?),
            None => None,
        };
        let inverse_bind = match skin {
            Some(s) => Some(inverse_binds(data, s, node.skin.unwrap_or(0))?),
            None => None,
        };
        let weights = node.weights.clone().or_else(|| mesh.weights.clone());
        for (pi, p) in mesh.primitives.iter().enumerate() {
            let label = format!("meshes[{m}].primitives[{pi}]");
            let mode = p.mode.unwrap_or(4);
            if !(4..=6).contains(&mode) {
                warnings.push(format!(
                    "{label}: mode {mode} ({}) has no triangles; skipped",
                    match mode {
                        0 => "points",
                        1..=3 => "lines",
                        _ => "unknown",
                    }
                ));
                continue;
            }
            let material = match p.material {
                Some(k) if k < doc.materials.len() => k,
                Some(k) => {
                    warnings.push(format!(
                        "{label}.material: material {k} does not exist; the default is used"
                    ));
                    default_material
                }
                None => default_material,
            };
            let texinfo = doc.materials.get(material).and_then(material::uv_source);
            let skinning = skin
                .zip(inverse_bind.as_ref())
                .map(|(s, ib)| (s, ib.as_slice(), &remap));
            let Some(prim) = lower_primitive(
                data,
                p,
                &label,
                texinfo,
                skinning,
                weights.as_deref(),
                &mut warnings,
            )?
            else {
                continue;
            };
            drawn[i].push(meshes.len());
            let (vertices, morph) = prim;
            let mut mesh_out = vertices;
            mesh_out.name = match &mesh.name {
                Some(n) if mesh.primitives.len() == 1 => n.clone(),
                Some(n) => format!("{n}#{pi}"),
                None => format!("mesh{m}#{pi}"),
            };
            mesh_out.node = remap[i];
            mesh_out.primitives[0].material = material;
            mesh_out.primitives[0].two_sided =
                doc.materials.get(material).is_some_and(|m| m.double_sided);
            meshes.push(mesh_out);
            morphs.push(morph);
        }
    }
    if meshes.is_empty() {
        warnings.push("the scene draws no triangles".into());
    }
    let takes = anim::takes(data, &remap, &drawn, &morphs, &mut warnings)?;
    if morphs.iter().all(Option::is_none) {
        morphs.clear();
    }
    let mut model = Model {
        name: file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        source: file.to_path_buf(),
        nodes,
        meshes,
        materials,
        textures,
        duration: 0.0,
        frame_rate: 30.0,
        looping: true,
        travel: Vec3::ZERO,
        display: Mat4::IDENTITY,
        warnings,
        extras: Extras { morphs, takes },
    };
    // The nodes carry the first animation, as a viewer plays it.
    if let Some(first) = crate::scene::animation::take(&model, 0) {
        model = first;
    }
    Ok(model)
}

fn lower_node(doc: &Document, i: usize, parent: Option<usize>) -> Node {
    let n = &doc.nodes[i];
    let name = n.name.clone().unwrap_or_else(|| format!("node{i}"));
    let mut out = Node::identity(name, parent);
    if let Some(m) = n.matrix {
        let m = Mat4::from_cols_array(&m);
        out.translation = m.w_axis.truncate();
        out.linear = Mat3::from_mat4(m);
    } else {
        let r = n.rotation.unwrap_or([0.0, 0.0, 0.0, 1.0]);
        out.translation = Vec3::from(n.translation.unwrap_or([0.0; 3]));
        out.linear = Mat3::from_quat(Quat::from_array(r).normalize());
        out.scale = Vec3::from(n.scale.unwrap_or([1.0; 3]));
    }
    out.anim = NodeAnim::default();
    out
}

/// A skin's inverse bind matrices (identity when the skin gives none).
fn inverse_binds(data: &Data, s: &doc::Skin, index: usize) -> Result<Vec<Mat4>> {
    match s.inverse_bind_matrices {
        None => Ok(vec![Mat4::IDENTITY; s.joints.len()]),
        Some(a) => {
            let v = data.floats(a)?;
            if v.width != 16 || v.len() < s.joints.len() {
                return Err(Error::parse(
                    data.file,
                    format!("skins[{index}].inverseBindMatrices"),
                    0,
                    format!(
                        "{} matrices of {} components for {} joints",
                        v.len(),
                        v.width,
                        s.joints.len()
                    ),
                ));
            }
            Ok((0..s.joints.len())
                .map(|j| {
                    let mut m = [0.0; 16];
                    m.copy_from_slice(v.get(j));
                    Mat4::from_cols_array(&m)
                })
                .collect())
        }
    }
}

/// The transform `KHR_texture_transform` gives: `T(offset)·R(rotation)·S(scale)`,
/// the rotation turning +u toward -v as the extension draws it.
pub(crate) fn texture_transform(t: &doc::TextureTransform) -> Affine2 {
    let o = Vec2::from(t.offset.unwrap_or([0.0; 2]));
    let r = t.rotation.unwrap_or(0.0);
    let s = Vec2::from(t.scale.unwrap_or([1.0; 2]));
    let (sin, cos) = r.sin_cos();
    let rot = glam::Mat2::from_cols(Vec2::new(cos, -sin), Vec2::new(sin, cos));
    Affine2::from_translation(o) * Affine2::from_mat2(rot) * Affine2::from_scale(s)
}

type Skinning<'a> = (&'a doc::Skin, &'a [Mat4], &'a Vec<usize>);

/// One primitive as a kiln mesh (material and node set by the caller) and
/// its morph targets; `None` when it has no triangles to draw.
fn lower_primitive(
    data: &Data,
    p: &doc::Primitive,
    label: &str,
    texinfo: Option<&doc::TextureInfo>,
    skinning: Option<Skinning>,
    weights: Option<&[f32]>,
    warnings: &mut Vec<String>,
) -> Result<Option<(Mesh, Option<Morph>)>> {
    let attr = |name: &str| p.attributes.get(name).copied();
    let Some(pos) = attr("POSITION") else {
        warnings.push(format!("{label} has no POSITION; skipped"));
        return Ok(None);
    };
    let positions = vec3s(
        &data.floats(pos)?,
        data.file,
        &format!("{label}.attributes.POSITION"),
    )?;
    let n = positions.len();
    let mut normals = match attr("NORMAL") {
        Some(a) => {
            let v = vec3s(
                &data.floats(a)?,
                data.file,
                &format!("{label}.attributes.NORMAL"),
            )?;
            (v.len() == n).then_some(v)
        }
        None => None,
    };
    let transform = texinfo.and_then(|t| t.extensions.transform);
    let set = transform
        .and_then(|t| t.tex_coord)
        .or(texinfo.map(|t| t.tex_coord))
        .unwrap_or(0);
    let mut uvs = match attr(&format!("TEXCOORD_{set}")) {
        Some(a) => {
            let v = data.floats(a)?;
            if v.width == 2 && v.len() == n {
                (0..n).map(|i| Vec2::from_slice(v.get(i))).collect()
            } else {
                Vec::new()
            }
        }
        None => Vec::new(),
    };
    if let Some(t) = &transform {
        let m = texture_transform(t);
        for uv in &mut uvs {
            *uv = m.transform_point2(*uv);
        }
    }
    if uvs.is_empty() {
        uvs = vec![Vec2::ZERO; n];
    }
    let colors = match attr("COLOR_0") {
        Some(a) => colors(data, a, n, label, warnings)?,
        None => Vec::new(),
    };
    let indices: Vec<u32> = match p.indices {
        Some(a) => data.ints(a)?.data,
        None => (0..n as u32).collect(),
    };
    let mut dropped = 0;
    let tri = |a: u32, b: u32, c: u32, dropped: &mut usize| {
        if (a as usize) < n && (b as usize) < n && (c as usize) < n {
            Some([a, b, c])
        } else {
            *dropped += 1;
            None
        }
    };
    let mode = p.mode.unwrap_or(4);
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    match mode {
        4 => {
            for c in indices.chunks_exact(3) {
                triangles.extend(tri(c[0], c[1], c[2], &mut dropped));
            }
        }
        5 => {
            for k in 2..indices.len() {
                let (a, b, c) = (indices[k - 2], indices[k - 1], indices[k]);
                // Every other triangle of a strip is wound the other way.
                let t = if k % 2 == 0 { (a, b, c) } else { (b, a, c) };
                triangles.extend(tri(t.0, t.1, t.2, &mut dropped));
            }
        }
        _ => {
            for k in 2..indices.len() {
                triangles.extend(tri(indices[0], indices[k - 1], indices[k], &mut dropped));
            }
        }
    }
    if dropped > 0 {
        warnings.push(format!(
            "{label}: {dropped} triangle(s) name vertices past the {n} there are; dropped"
        ));
    }
    if triangles.is_empty() {
        return Ok(None);
    }
    let skin = match skinning {
        Some((s, ib, remap)) => Some(lower_skin(data, p, label, s, ib, remap, n, warnings)?),
        None => None,
    };
    let mut targets = Vec::with_capacity(p.targets.len());
    for (k, t) in p.targets.iter().enumerate() {
        let read = |name: &str| -> Result<Vec<Vec3>> {
            match t.get(name) {
                Some(&a) => {
                    let v = vec3s(
                        &data.floats(a)?,
                        data.file,
                        &format!("{label}.targets[{k}].{name}"),
                    )?;
                    Ok(if v.len() == n { v } else { Vec::new() })
                }
                None => Ok(Vec::new()),
            }
        };
        targets.push(MorphTarget {
            positions: read("POSITION")?,
            normals: read("NORMAL")?,
        });
    }
    let mut mesh = Mesh {
        name: String::new(),
        node: 0,
        positions,
        normals: Vec::new(),
        uvs,
        colors,
        skin,
        primitives: vec![Primitive {
            material: 0,
            triangles,
            two_sided: false,
            uv_anims: Vec::new(),
        }],
        groups: Vec::new(),
    };
    if normals.is_none() {
        // Flat normals, as the specification asks when none are given:
        // every triangle its own corners.
        unweld(&mut mesh, &mut targets);
        normals = Some(flat_normals(&mesh));
    }
    mesh.normals = normals.unwrap_or_default();
    let morph = (!targets.is_empty()).then(|| Morph {
        weights: (0..targets.len())
            .map(|k| weights.and_then(|w| w.get(k)).copied().unwrap_or(0.0))
            .collect(),
        targets,
        tracks: Vec::new(),
    });
    Ok(Some((mesh, morph)))
}

/// `COLOR_0` as straight RGBA (VEC3 gets alpha 1). The specification
/// allows floats and normalised unsigned bytes and shorts; anything else,
/// or a count other than the positions', is ignored with a warning.
fn colors(
    data: &Data,
    a: usize,
    n: usize,
    label: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<Vec4>> {
    let acc = data.doc.accessors.get(a);
    let allowed = acc.is_some_and(|x| {
        x.component_type == 5126 || (x.normalized && matches!(x.component_type, 5121 | 5123))
    });
    let v = data.floats(a)?;
    if !allowed || !(v.width == 3 || v.width == 4) || v.len() != n {
        warnings.push(format!(
            "{label}.attributes.COLOR_0: not {n} VEC3/VEC4 floats or normalised unsigned \
             bytes or shorts; vertex colours ignored"
        ));
        return Ok(Vec::new());
    }
    Ok((0..n)
        .map(|i| {
            let c = v.get(i);
            Vec4::new(c[0], c[1], c[2], if v.width == 4 { c[3] } else { 1.0 })
        })
        .collect())
}

fn vec3s(v: &Values<f32>, file: &Path, field: &str) -> Result<Vec<Vec3>> {
    if v.width != 3 {
        return Err(Error::parse(
            file,
            field,
            0,
            format!("{} components where VEC3 is required", v.width),
        ));
    }
    Ok((0..v.len()).map(|i| Vec3::from_slice(v.get(i))).collect())
}

/// Every triangle given its own three vertices.
fn unweld(mesh: &mut Mesh, targets: &mut [MorphTarget]) {
    let corners: Vec<usize> = mesh.primitives[0]
        .triangles
        .iter()
        .flatten()
        .map(|&i| i as usize)
        .collect();
    let pick = |v: &Vec<Vec3>| corners.iter().map(|&i| v[i]).collect::<Vec<_>>();
    mesh.positions = pick(&mesh.positions);
    mesh.uvs = corners.iter().map(|&i| mesh.uvs[i]).collect();
    if !mesh.colors.is_empty() {
        mesh.colors = corners.iter().map(|&i| mesh.colors[i]).collect();
    }
    if let Some(s) = &mut mesh.skin {
        s.vertex_joints = corners.iter().map(|&i| s.vertex_joints[i]).collect();
        s.vertex_weights = corners.iter().map(|&i| s.vertex_weights[i]).collect();
    }
    for t in targets {
        if !t.positions.is_empty() {
            t.positions = pick(&t.positions);
        }
        t.normals.clear();
    }
    mesh.primitives[0].triangles = (0..corners.len() as u32 / 3)
        .map(|k| [3 * k, 3 * k + 1, 3 * k + 2])
        .collect();
}

fn flat_normals(mesh: &Mesh) -> Vec<Vec3> {
    let mut out = vec![Vec3::Y; mesh.positions.len()];
    for &[a, b, c] in &mesh.primitives[0].triangles {
        let (pa, pb, pc) = (
            mesh.positions[a as usize],
            mesh.positions[b as usize],
            mesh.positions[c as usize],
        );
        let nrm = (pb - pa).cross(pc - pa).normalize_or_zero();
        for i in [a, b, c] {
            out[i as usize] = nrm;
        }
    }
    out
}

/// A primitive's skinning: the four strongest influences of all its
/// JOINTS_n/WEIGHTS_n sets, normalised to sum to 1.
#[allow(clippy::too_many_arguments)]
fn lower_skin(
    data: &Data,
    p: &doc::Primitive,
    label: &str,
    s: &doc::Skin,
    ib: &[Mat4],
    remap: &[usize],
    n: usize,
    warnings: &mut Vec<String>,
) -> Result<Skin> {
    let mut influences: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n];
    let mut set = 0;
    while let (Some(&j), Some(&w)) = (
        p.attributes.get(&format!("JOINTS_{set}")),
        p.attributes.get(&format!("WEIGHTS_{set}")),
    ) {
        let joints = data.ints(j)?;
        let weights = data.floats(w)?;
        if joints.width != 4 || weights.width != 4 || joints.len() < n || weights.len() < n {
            return Err(Error::parse(
                data.file,
                format!("{label}.attributes.JOINTS_{set}"),
                0,
                format!("JOINTS_{set}/WEIGHTS_{set} do not give four influences for each of the {n} vertices"),
            ));
        }
        for (v, inf) in influences.iter_mut().enumerate() {
            for k in 0..4 {
                let (jj, ww) = (joints.get(v)[k], weights.get(v)[k]);
                if ww > 0.0 && ww.is_finite() {
                    inf.push((jj, ww));
                }
            }
        }
        set += 1;
    }
    let mut bad = 0;
    let mut vertex_joints = Vec::with_capacity(n);
    let mut vertex_weights = Vec::with_capacity(n);
    for mut inf in influences {
        inf.retain(|&(j, _)| {
            let ok = (j as usize) < s.joints.len();
            bad += usize::from(!ok);
            ok
        });
        inf.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        inf.truncate(4);
        let total: f32 = inf.iter().map(|x| x.1).sum();
        let mut js = [0u16; 4];
        let mut ws = [0.0f32; 4];
        for (k, &(j, w)) in inf.iter().enumerate() {
            js[k] = j as u16;
            ws[k] = if total > 0.0 { w / total } else { 0.0 };
        }
        if total <= 0.0 {
            ws[0] = 1.0;
        }
        vertex_joints.push(js);
        vertex_weights.push(ws);
    }
    if bad > 0 {
        warnings.push(format!(
            "{label}: {bad} influence(s) name joints past the skin's {}; ignored",
            s.joints.len()
        ));
    }
    let mut joints = Vec::with_capacity(s.joints.len());
    for &j in &s.joints {
        if j >= remap.len() {
            return Err(Error::parse(
                data.file,
                "skins.joints",
                0,
                format!("joint node {j} does not exist"),
            ));
        }
        joints.push(remap[j]);
    }
    Ok(Skin {
        joints,
        inverse_bind: ib.to_vec(),
        vertex_joints,
        vertex_weights,
    })
}
