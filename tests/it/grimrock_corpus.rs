//! Every real Grimrock model and animation in the corpus parses to the exact
//! end, writes back byte for byte, and reads with the values a hex reading
//! of the files gives.

use crate::common;

use glam::{Mat4, Quat, Vec3};
use kiln::internals::formats::grimrock::{self, Animation, Entity, Model};
use std::path::{Path, PathBuf};

const WATERDEEP: &str = "grimrock+eob1-waterdeep/mod_assets";
const NEXUS: &str = "7Soul+log2_the_old_nexus/mod_assets";
const WARRIOR: &str = "grimrock+eob1-waterdeep/mod_assets/plugins/skeleton_warrior_axe";

/// The corpus folder this file reads, or `None` after the skip line.
fn corpus() -> Option<PathBuf> {
    common::corpus("grimrock")
}

/// Files under `dir` ending in `ext`, sorted so failures are reproducible.
fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

fn model(rel: &str) -> Option<Model> {
    let p = corpus()?.join(rel);
    Some(grimrock::parse_model_file(&p).unwrap_or_else(|e| panic!("{e}")))
}

fn anim(rel: &str) -> Option<Animation> {
    let p = corpus()?.join(rel);
    Some(grimrock::parse_animation_file(&p).unwrap_or_else(|e| panic!("{e}")))
}

fn names(m: &Model) -> Vec<String> {
    m.nodes.iter().map(|n| n.name_str()).collect()
}

#[test]
fn every_corpus_model_parses_to_the_end_and_round_trips() {
    let Some(root) = corpus() else { return };
    let mut list = Vec::new();
    files(&root, "model", &mut list);
    assert_eq!(list.len(), 11, "{list:#?}");
    let mut meshes = 0;
    let mut off_identity = Vec::new();
    for p in &list {
        let data = std::fs::read(p).unwrap();
        let m = grimrock::parse_model(&data, p).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.trailing_bytes, 0, "{}", p.display());
        assert!(m.warnings.is_empty(), "{}: {:?}", p.display(), m.warnings);
        assert_eq!(m.version, 2);
        assert!(grimrock::write_model(&m) == data, "{}", p.display());
        meshes += m.mesh_nodes().len();
        for i in m.mesh_nodes() {
            let mesh = &m.nodes[i].mesh().unwrap().mesh;
            assert_eq!(mesh.version, 2);
            assert_eq!(mesh.arrays.len(), 15);
            let pos = mesh.array(grimrock::POSITION).unwrap();
            assert_eq!((pos.data_type, pos.dim, pos.stride), (3, 3, 12));
            assert_eq!(pos.values.len(), 3 * mesh.vertex_count);
            // Every segment is a triangle list covering the whole index buffer.
            let covered: i32 = mesh.segments.iter().map(|s| 3 * s.triangle_count).sum();
            assert_eq!(covered as usize, mesh.indices.len(), "{}", p.display());
            assert!(mesh.segments.iter().all(|s| s.primitive_type == 2));
            for b in &m.nodes[i].mesh().unwrap().bones {
                let rest = m.world_matrix(b.node as usize) * b.inv_rest.to_mat4();
                if !rest.abs_diff_eq(Mat4::IDENTITY, 2e-4) {
                    let file = p.file_name().unwrap().to_string_lossy().into_owned();
                    off_identity.push((file, b.node, rest));
                }
            }
        }
    }
    assert_eq!(meshes, 12);
    // world(bone) · invRest is the identity at rest for every skinned mesh
    // but the pressure plate, whose vertices are stored in centimetres: its
    // inverse rest matrices carry the 0.01 scale to metres. Lowering must
    // apply the full skinning product, never assume it cancels.
    let plate = Mat4::from_scale(Vec3::splat(0.01));
    assert_eq!(off_identity.len(), 2, "{off_identity:?}");
    for (file, node, rest) in &off_identity {
        assert_eq!(file, "sewers_pressure_plate.model");
        assert!([1, 2].contains(node));
        assert!(rest.abs_diff_eq(plate, 1e-7), "{rest}");
    }
}

#[test]
fn every_corpus_animation_parses_to_the_end_and_round_trips() {
    let Some(root) = corpus() else { return };
    let mut list = Vec::new();
    files(&root, "animation", &mut list);
    assert_eq!(list.len(), 10, "{list:#?}");
    let mut versions = Vec::new();
    for p in &list {
        let data = std::fs::read(p).unwrap();
        let a = grimrock::parse_animation(&data, p).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.trailing_bytes, 0, "{}", p.display());
        assert!(a.warnings.is_empty(), "{}: {:?}", p.display(), a.warnings);
        assert!(a.name.is_empty());
        assert!(grimrock::write_animation(&a) == data, "{}", p.display());
        versions.push(a.version);
        // Every stored rotation is a unit quaternion: x, y, z, w read right.
        for t in &a.tracks {
            for q in &t.rotations {
                assert!((q.length() - 1.0).abs() < 1e-3, "{}: {q}", p.display());
            }
        }
    }
    assert_eq!(versions, [2, 2, 2, 2, 2, 2, 1, 1, 1, 1]);
}

#[test]
fn empty_object_gate_has_nodes_and_no_mesh() {
    let Some(m) = model(&format!("{WATERDEEP}/models/env/empty_object_gate.model")) else {
        return;
    };
    assert_eq!(names(&m), ["RootNode", "gate"]);
    assert_eq!(m.nodes[0].parent, -1);
    assert_eq!(m.nodes[1].parent, 0);
    assert!(m.nodes.iter().all(|n| n.entity == Entity::None));
    assert!(m
        .nodes
        .iter()
        .all(|n| n.local == grimrock::Mat4x3::IDENTITY));
    assert!(m.mesh_nodes().is_empty());
}

#[test]
fn stone_dagger_is_a_static_mesh_with_colours() {
    let Some(m) = model(&format!("{WATERDEEP}/models/items/stone_dagger.model")) else {
        return;
    };
    assert_eq!(names(&m), ["RootNode", "dagger", "Texture Group"]);
    let node = &m.nodes[1];
    assert_eq!(node.node_type(), 0);
    // A 0.01 scale with a small rotation about Z: baseX = (s·c, -s·sin, 0).
    assert_eq!(node.local.base_x.x.to_bits(), 0x3c2395a4);
    assert_eq!(node.local.base_x.y.to_bits(), 0xba12552e);
    assert_eq!(node.local.base_y.x.to_bits(), 0x3a12552e);
    assert_eq!(
        node.local.base_z,
        Vec3::new(0.0, 0.0, f32::from_bits(0x3c23d70a))
    );
    assert_eq!(node.local.translation.x.to_bits(), 0x3a9e311b);
    assert_eq!(node.local.translation.y.to_bits(), 0x3cb1f5ad);
    let e = node.mesh().unwrap();
    assert!(e.bones.is_empty());
    assert_eq!((e.emissive, e.cast_shadow), (Vec3::ZERO, 1));
    let mesh = &e.mesh;
    assert_eq!(mesh.vertex_count, 467);
    let present: Vec<(usize, i32, i32, i32)> = mesh
        .arrays
        .iter()
        .enumerate()
        .filter(|(_, a)| a.is_present())
        .map(|(i, a)| (i, a.data_type, a.dim, a.stride))
        .collect();
    assert_eq!(
        present,
        [
            (0, 3, 3, 12),
            (1, 3, 3, 12),
            (2, 3, 3, 12),
            (3, 3, 3, 12),
            (4, 0, 4, 4),
            (5, 3, 2, 8)
        ]
    );
    let pos = mesh.positions().unwrap();
    assert_eq!(pos.len(), 467);
    assert_eq!(pos[0], Vec3::new(0.0, f32::from_bits(0x267ff1fe), 4.296875));
    let colors = mesh.colors().unwrap();
    assert_eq!(colors[0].to_array(), [255.0, 0.0, 0.0, 255.0]);
    assert_eq!(mesh.indices.len(), 948);
    assert_eq!(&mesh.indices[..6], &[11, 178, 46, 60, 11, 46]);
    assert_eq!(mesh.segments.len(), 1);
    let s = &mesh.segments[0];
    assert_eq!(
        (
            s.material_str().as_str(),
            s.primitive_type,
            s.first_index,
            s.triangle_count
        ),
        ("stone_dagger", 2, 0, 316)
    );
    assert_eq!(mesh.bbox_min.x, -29.738035);
    assert_eq!(mesh.bbox_max, Vec3::new(29.101_563, 2.981_243_8, 7.885_742));
    assert_eq!(mesh.bound_radius, 29.469904);
    // The box holds every vertex.
    for p in &pos {
        assert!(
            p.cmpge(mesh.bbox_min).all() && p.cmple(mesh.bbox_max).all(),
            "{p}"
        );
    }
    assert!(mesh.bone_indices().is_none());
}

#[test]
fn door_portcullis_keeps_names_with_trailing_spaces() {
    let Some(m) = model(&format!("{WATERDEEP}/models/env/door_portcullis.model")) else {
        return;
    };
    assert_eq!(m.nodes.len(), 7);
    assert_eq!(m.nodes[1].name, b"Texture Group ");
    assert_eq!(m.nodes[3].name, b"Texture Group  ");
    assert_eq!(m.nodes[3].local.translation, Vec3::new(0.0, 246.0, 0.0));
    let parents: Vec<i32> = m.nodes.iter().map(|n| n.parent).collect();
    assert_eq!(parents, [-1, 0, 1, 1, 1, 0, 0]);
    assert_eq!(m.mesh_nodes(), [5]);
    let mesh = &m.nodes[5].mesh().unwrap().mesh;
    assert_eq!((mesh.vertex_count, mesh.indices.len()), (1436, 2124));
    assert_eq!(mesh.segments[0].material_str(), "iron_porticullis");
    assert!(mesh.array(grimrock::COLOR).is_none());
}

#[test]
fn skeleton_warrior_is_skinned_and_its_rest_pose_is_identity() {
    let Some(m) = model(&format!("{WARRIOR}/models/skeleton_warrior_axe.model")) else {
        return;
    };
    assert_eq!(m.nodes.len(), 31);
    assert_eq!(m.mesh_nodes(), [29, 30]);
    assert_eq!(m.nodes[2].name_str(), "hip");
    assert_eq!(m.nodes[21].name_str(), "hand_r");
    let axe = m.nodes[29].mesh().unwrap();
    let body = m.nodes[30].mesh().unwrap();
    assert_eq!(m.nodes[29].name_str(), "great_axe");
    assert_eq!(m.nodes[29].parent, 21);
    assert_eq!(axe.bones.len() + body.bones.len(), 25);
    assert_eq!(axe.bones.len(), 1);
    assert_eq!(body.bones.len(), 24);
    let bone_nodes: Vec<i32> = body.bones.iter().map(|b| b.node).collect();
    assert_eq!(
        bone_nodes,
        [25, 19, 9, 5, 26, 20, 21, 16, 2, 17, 15, 24, 8, 4, 18, 11, 13, 12, 23, 14, 7, 3, 10, 6]
    );
    assert_eq!(
        (body.mesh.vertex_count, body.mesh.indices.len()),
        (12993, 12993)
    );
    assert_eq!(body.mesh.segments[0].material_str(), "skeleton_warrior");
    assert_eq!(body.mesh.segments[0].triangle_count, 4331);
    assert_eq!(axe.mesh.segments[0].material_str(), "rusted_great_axe");
    let idx = body.mesh.array(grimrock::BONE_INDEX).unwrap();
    let w = body.mesh.array(grimrock::BONE_WEIGHT).unwrap();
    assert_eq!((idx.data_type, idx.dim, idx.stride), (2, 4, 16));
    assert_eq!((w.data_type, w.dim, w.stride), (3, 4, 16));
    let indices = body.mesh.bone_indices().unwrap();
    let weights = body.mesh.bone_weights().unwrap();
    assert_eq!(indices[0], [4, 0, 0, 0]);
    assert_eq!(weights[0], [1.0, 0.0, 0.0, 0.0]);
    for (i, w) in indices.iter().zip(&weights) {
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{w:?}");
        assert!(i.iter().all(|&b| (b as usize) < body.bones.len()), "{i:?}");
    }
    // world(bone) · invRest = I at rest: checks the column convention of
    // Mat4x3, the parent links and the bone table together.
    for e in [axe, body] {
        for b in &e.bones {
            let rest = m.world_matrix(b.node as usize) * b.inv_rest.to_mat4();
            assert!(
                rest.abs_diff_eq(Mat4::IDENTITY, 2e-4),
                "bone node {}: {rest}",
                b.node
            );
        }
    }
}

#[test]
fn grimrock2_models_read_with_their_bones() {
    let Some(m) = model(&format!("{NEXUS}/fire_cave/models/env/rc_lever.model")) else {
        return;
    };
    assert_eq!(
        names(&m),
        ["RootNode", "local_srt", "rc_lever", "b_base", "b_lever"]
    );
    // The bones are roots of their own.
    assert_eq!((m.nodes[3].parent, m.nodes[4].parent), (-1, -1));
    let e = m.nodes[2].mesh().unwrap();
    assert_eq!((e.mesh.vertex_count, e.mesh.indices.len()), (202, 774));
    let bones: Vec<i32> = e.bones.iter().map(|b| b.node).collect();
    assert_eq!(bones.len(), 2);
    assert!(bones.iter().all(|&b| b == 3 || b == 4), "{bones:?}");

    let Some(oak) = model(&format!("{NEXUS}/models/env/forest_oak.model")) else {
        return;
    };
    assert_eq!(oak.nodes.len(), 14);
    assert_eq!(oak.mesh_nodes(), [12, 13]);
    let bones: usize = oak
        .mesh_nodes()
        .iter()
        .map(|&i| oak.nodes[i].mesh().unwrap().bones.len())
        .sum();
    assert_eq!(bones, 20);
    let lod0 = &oak.nodes[12].mesh().unwrap().mesh;
    assert_eq!((lod0.vertex_count, lod0.indices.len()), (1447, 4908));
}

#[test]
fn skeleton_walk_is_version_1_with_one_key_per_frame() {
    let Some(a) = anim(&format!(
        "{WARRIOR}/animations/skeleton_warrior_axe_walk.animation"
    )) else {
        return;
    };
    assert_eq!((a.version, a.fps, a.frames), (1, 30.0, 55));
    assert_eq!(a.tracks.len(), 28);
    assert_eq!(a.tracks[0].node_str(), "local_srt");
    assert_eq!(a.tracks[1].node_str(), "hip");
    for t in &a.tracks {
        assert_eq!(t.positions.len(), 55);
        assert_eq!(t.rotations.len(), 55);
        assert_eq!(t.scales.len(), 55);
    }
    // local_srt stays put: zero position, identity rotation (w last), unit scale.
    assert_eq!(a.tracks[0].positions[0], Vec3::ZERO);
    assert_eq!(a.tracks[0].rotations[0], Quat::IDENTITY);
    assert_eq!(a.tracks[0].scales[54], Vec3::ONE);
    // The hip's key 0 translation equals the hip node's rest translation in x/y.
    let hip = a.tracks[1].positions[0];
    assert!((hip.y - 1.1743).abs() < 1e-4, "{hip}");
    assert!((a.duration() - 55.0 / 30.0).abs() < 1e-6);

    let Some(m) = model(&format!("{WARRIOR}/models/skeleton_warrior_axe.model")) else {
        return;
    };
    assert!(grimrock::unmatched_tracks(&a, &m).is_empty());
}

#[test]
fn skeleton_animation_counts() {
    for (name, frames) in [("attack", 38), ("hit_back", 30), ("idle", 10), ("walk", 55)] {
        let Some(a) = anim(&format!(
            "{WARRIOR}/animations/skeleton_warrior_axe_{name}.animation"
        )) else {
            return;
        };
        assert_eq!(
            (a.version, a.fps, a.frames, a.tracks.len()),
            (1, 30.0, frames, 28)
        );
        assert!(a
            .tracks
            .iter()
            .all(|t| t.positions.len() == frames as usize));
    }
}

#[test]
fn lever_up_is_version_2_at_24_fps() {
    let Some(a) = anim(&format!(
        "{NEXUS}/fire_cave/animations/rc_lever_up.animation"
    )) else {
        return;
    };
    assert_eq!((a.version, a.fps, a.frames), (2, 24.0, 6));
    assert_eq!(a.tracks.len(), 1);
    let t = &a.tracks[0];
    assert_eq!(t.node_str(), "b_lever");
    assert_eq!(
        (t.positions.len(), t.rotations.len(), t.scales.len()),
        (6, 6, 6)
    );
    assert_eq!(t.positions[0].x.to_bits(), 0x340e294c);
    assert_eq!(t.positions[0].y.to_bits(), 0x3faec7c3);
    assert_eq!(t.positions[0].z.to_bits(), 0x3cc2542b);
    let q = t.rotations[0];
    assert_eq!(
        [q.x, q.y, q.z, q.w].map(f32::to_bits),
        [0xbf190ffc, 0x3f29a41c, 0x3e7ca9cd, 0x3ec1493f]
    );
    let Some(m) = model(&format!("{NEXUS}/fire_cave/models/env/rc_lever.model")) else {
        return;
    };
    assert!(grimrock::unmatched_tracks(&a, &m).is_empty());
}

#[test]
fn floaty_start_has_constant_rotation_and_scale_tracks() {
    let Some(a) = anim(&format!(
        "{NEXUS}/fire_cave/animations/rc_molten_floaty_start.animation"
    )) else {
        return;
    };
    assert_eq!((a.version, a.fps, a.frames), (2, 24.0, 5));
    let t = &a.tracks[0];
    assert_eq!(t.node_str(), "bone_floaty");
    assert_eq!(
        (t.positions.len(), t.rotations.len(), t.scales.len()),
        (5, 1, 1)
    );
    assert_eq!(t.positions[0].y, -3.5);
    assert_eq!(t.scales[0], Vec3::ONE);
    // 90° about Z, stored x, y, z, w.
    assert!(t.rotations[0].abs_diff_eq(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2), 1e-6));
}

#[test]
fn button_press_names_nodes_the_model_lacks() {
    let Some(a) = anim(&format!(
        "{NEXUS}/fire_cave/animations/rc_button_press.animation"
    )) else {
        return;
    };
    assert_eq!((a.version, a.fps, a.frames), (2, 24.0, 11));
    let tracks: Vec<String> = a.tracks.iter().map(|t| t.node_str()).collect();
    assert_eq!(
        tracks,
        [
            "floor_guide",
            "RootNode",
            "local_srt",
            "Armature",
            "rc_button",
            "b_base",
            "b_button"
        ]
    );
    let Some(m) = model(&format!("{NEXUS}/fire_cave/models/env/rc_button.model")) else {
        return;
    };
    assert_eq!(
        grimrock::unmatched_tracks(&a, &m),
        ["floor_guide", "Armature"]
    );
    let s = grimrock::animation_summary(&a);
    assert_eq!(s.tracks.len(), 7);
    assert_eq!(
        (
            s.tracks[6].position_keys,
            s.tracks[6].rotation_keys,
            s.tracks[6].scale_keys
        ),
        (11, 11, 11)
    );
    assert_eq!(
        (s.tracks[0].position_keys, s.tracks[0].rotation_keys),
        (1, 1)
    );
}

#[test]
fn model_summary_lists_tree_arrays_segments_and_bone_names() {
    let Some(m) = model(&format!("{NEXUS}/fire_cave/models/env/rc_button.model")) else {
        return;
    };
    let s = grimrock::model_summary(&m);
    assert_eq!((s.format, s.version), ("MDL1", 2));
    let tree: Vec<(&str, &str, usize)> = s
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), n.kind, n.depth))
        .collect();
    assert_eq!(
        tree,
        [
            ("RootNode", "none", 0),
            ("local_srt", "none", 1),
            ("rc_button", "mesh", 2),
            ("b_base", "none", 0),
            ("b_button", "none", 0)
        ]
    );
    assert_eq!(s.meshes.len(), 1);
    let mesh = &s.meshes[0];
    assert_eq!(
        (mesh.node, mesh.vertex_count, mesh.index_count),
        (2, 127, 360)
    );
    let arrays: Vec<(usize, &str, &str, i32)> = mesh
        .arrays
        .iter()
        .map(|a| (a.slot, a.name, a.data_type, a.dim))
        .collect();
    assert_eq!(
        arrays,
        [
            (0, "position", "f32", 3),
            (1, "normal", "f32", 3),
            (2, "tangent", "f32", 3),
            (3, "bitangent", "f32", 3),
            (5, "texcoord0", "f32", 2),
            (13, "bone_index", "i32", 4),
            (14, "bone_weight", "f32", 4)
        ]
    );
    assert_eq!(mesh.segments.len(), 1);
    assert_eq!(mesh.segments[0].material, "rc_lever");
    assert_eq!(mesh.segments[0].triangle_count, 120);
    let bones: Vec<Option<String>> = mesh.bones.iter().map(|b| b.node_name.clone()).collect();
    assert_eq!(bones.len(), 2);
    assert!(bones.contains(&Some("b_base".to_string())));
    assert!(bones.contains(&Some("b_button".to_string())));
    // The summary serialises for `kiln inspect --json`.
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains("\"bone_index\""), "{json}");
}
