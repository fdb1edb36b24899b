//! Every real RSM/RSM2 file in the corpus parses, round-trips through the
//! writer, and reads with the exact values a careful hex reading gives.

use crate::common;

use crate::fixtures::rsm as fixture;
use glam::{Quat, Vec3};
use kiln::internals::formats::rsm::{self, Rsm, V15Layout};
use std::path::{Path, PathBuf};

/// The corpus folder this file reads, or `None` after the skip line.
fn corpus() -> Option<PathBuf> {
    common::corpus("ro")
}

/// All model files under `dir`, sorted so failures are reproducible.
/// Names are matched as raw OS strings: some are CP949 bytes.
fn models(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            models(&p, out);
            continue;
        }
        let name = p.file_name().unwrap().to_string_lossy().to_lowercase();
        if name.ends_with(".rsm") || name.ends_with(".rsm2") || name.ends_with("_test.rsm.bin") {
            out.push(p);
        }
    }
}

fn load(rel: &str) -> Option<(Vec<u8>, Rsm)> {
    let root = corpus()?;
    let p = root.join(rel);
    let data = std::fs::read(&p).unwrap();
    let rsm = rsm::parse(&data, &p).unwrap_or_else(|e| panic!("{e}"));
    Some((data, rsm))
}

#[test]
fn every_corpus_model_parses_and_round_trips() {
    let Some(root) = corpus() else { return };
    let mut files = Vec::new();
    models(&root, &mut files);
    assert_eq!(files.len(), 13, "{files:#?}");
    let mut versions = Vec::new();
    for p in &files {
        let data = std::fs::read(p).unwrap();
        let rsm = rsm::parse(&data, p).unwrap_or_else(|e| panic!("{e}"));
        versions.push(rsm.version_string());
        let out = rsm::write(&rsm);
        let body = data.len() - rsm.trailing_bytes;
        assert_eq!(out.len(), body, "{}", p.display());
        assert!(out == data[..body], "{} does not round-trip", p.display());
        assert_eq!(rsm::parse(&out, p).unwrap().nodes, rsm.nodes);
        let expect_warnings = usize::from(rsm.trailing_bytes > 0)
            + usize::from(rsm.v15_layout != V15Layout::Documented);
        assert_eq!(
            rsm.warnings.len(),
            expect_warnings,
            "{}: {:?}",
            p.display(),
            rsm.warnings
        );
    }
    versions.sort();
    assert_eq!(
        versions,
        [
            "1.4", "1.4", "1.4", "1.4", "1.4", "1.4", "1.4", "1.4", "1.4", "1.5", "2.2", "2.3",
            "2.3"
        ]
    );
}

#[test]
fn goldberg_rsm2_2_3() {
    let Some((data, m)) = load("Tokeiburu+RSM2/Rsm2/bin/Debug/data/goldberg_s_01.rsm2") else {
        return;
    };
    assert_eq!(data.len(), 113_906);
    assert_eq!((m.major, m.minor), (2, 3));
    assert_eq!(m.anim_len, 700);
    assert_eq!(m.fps, Some(30.0));
    assert_eq!(m.shade_type, 0);
    assert_eq!(m.alpha, 255);
    assert!(m.textures.is_empty());
    assert_eq!(m.root_names, vec![b"goldberg_s_01".to_vec()]);
    assert_eq!(m.nodes.len(), 32);
    // Real 2.3 files end right after the nodes.
    assert!(!m.volume_box_block);
    assert_eq!(m.trailing_bytes, 0);

    let root = &m.nodes[0];
    assert_eq!(root.name_str(), "goldberg_s_01");
    assert!(root.parent.is_empty());
    assert_eq!(root.texture_names_str(), ["ilusion\\ilus_s_111.bmp"]);
    assert_eq!(
        (root.vertices.len(), root.tex_coords.len(), root.faces.len()),
        (362, 726, 479)
    );
    assert_eq!(root.vertices[0], Vec3::new(-26.5, 0.0, 21.2));
    assert_eq!(root.faces[0].vertex_ids, [7, 4, 6]);
    assert_eq!(root.faces[0].tex_coord_ids, [2, 0, 3]);
    assert_eq!(root.faces[0].padding, 79);
    assert_eq!(root.faces[0].smooth_groups, [3]);

    // Object279: scale, rotation and (no) position keys in that order.
    let n = &m.nodes[m.find_node(b"Object279").unwrap()];
    assert_eq!(n.parent_str(), "Object277");
    assert_eq!(
        (n.scale_keys.len(), n.rot_keys.len(), n.pos_keys.len()),
        (29, 54, 0)
    );
    assert_eq!(n.scale_keys[0].frame, 0);
    assert_eq!(n.scale_keys[0].scale, Vec3::new(1.0001, 0.4544, 1.0));
    assert_eq!(n.rot_keys[53].frame, 700);
    let q = n.rot_keys[0].rotation;
    assert!((q.length() - 1.0).abs() < 1e-5, "{q:?}");

    let s = &m.nodes[m.find_node(b"Sphere051").unwrap()];
    assert_eq!(
        (s.scale_keys.len(), s.rot_keys.len(), s.pos_keys.len()),
        (0, 129, 53)
    );
    assert_eq!(s.pos_keys[0].position, Vec3::new(-1.8744, 3.5419, -18.1101));
    assert_eq!(s.pos_keys[0].data, 15);

    // Object295's six faces are 28 bytes long: two smoothing groups each.
    let o = &m.nodes[26];
    assert_eq!(o.name_str(), "Object295");
    assert!(o.faces.iter().all(|f| f.smooth_groups == [1, 3]));
    let long_faces: usize = m
        .nodes
        .iter()
        .flat_map(|n| &n.faces)
        .filter(|f| f.smooth_groups.len() != 1)
        .count();
    assert_eq!(long_faces, 6);

    let animated: Vec<String> = m
        .nodes
        .iter()
        .filter(|n| !n.tex_anims.is_empty())
        .map(|n| n.name_str())
        .collect();
    assert_eq!(animated, ["Object288", "Object321"]);
    let a = &m.nodes[19].tex_anims;
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].texture, 0);
    assert_eq!(a[0].channels.len(), 1);
    assert_eq!(a[0].channels[0].kind, 0);
    assert_eq!(a[0].channels[0].keys.len(), 7);
    assert_eq!(a[0].channels[0].keys[4].frame, 502);
    assert_eq!(a[0].channels[0].keys[4].value, 1.0);
    assert_eq!(m.nodes[31].tex_anims[0].channels[0].keys.len(), 26);
    assert_eq!(m.nodes[31].texture_names_str(), ["ilusion\\ilus_s_115.tga"]);

    let mut textures: Vec<String> = m.nodes.iter().flat_map(|n| n.texture_names_str()).collect();
    textures.sort();
    textures.dedup();
    assert_eq!(
        textures,
        [
            "ilusion\\ilus_s_111.bmp",
            "ilusion\\ilus_s_115.tga",
            "ilusion\\ilus_s_116.bmp",
            "ilusion\\ilus_s_82.bmp"
        ]
    );
    let keys: [usize; 3] = m.nodes.iter().fold([0; 3], |a, n| {
        [
            a[0] + n.scale_keys.len(),
            a[1] + n.rot_keys.len(),
            a[2] + n.pos_keys.len(),
        ]
    });
    assert_eq!(keys, [375, 1974, 420]);
}

#[test]
fn box_error_rsm_1_4() {
    let Some((_, m)) = load("Borf+BrowEdit3/data/model/box_error_01.rsm") else {
        return;
    };
    assert_eq!((m.major, m.minor), (1, 4));
    assert_eq!((m.anim_len, m.shade_type, m.alpha), (1000, 2, 255));
    assert_eq!(m.fps, None);
    assert_eq!(m.texture_names(), ["la_scifi\\error_01.bmp"]);
    assert_eq!(m.main_node_name().as_deref(), Some("mesh0"));
    assert_eq!(m.nodes.len(), 1);
    let n = &m.nodes[0];
    assert_eq!(n.name_str(), "mesh0");
    assert!(n.is_root());
    assert_eq!(n.texture_ids, [0]);
    assert_eq!(
        (n.vertices.len(), n.tex_coords.len(), n.faces.len()),
        (8, 36, 12)
    );
    // π/2 as the exporter rounded it: one ulp-ish below f32 FRAC_PI_2.
    assert_eq!(n.rot_angle.to_bits(), 0x3fc9_0fd9);
    assert!((n.rot_angle - std::f32::consts::FRAC_PI_2).abs() < 1e-6);
    assert_eq!(n.rot_axis, Vec3::X);
    assert_eq!(n.scale, Vec3::splat(5.0));
    assert_eq!(n.position, Vec3::new(0.0, 100.0, 0.0));
    assert_eq!(n.vertices[0], Vec3::splat(-1.0));
    assert_eq!((n.tex_coords[0].u, n.tex_coords[0].v), (0.96875, 0.03125));
    assert_eq!(n.faces[0].vertex_ids, [1, 2, 0]);
    assert!(m.volume_boxes.is_empty() && m.model_pos_keys.is_empty());
    assert_eq!(m.trailing_bytes, 0);
}

#[test]
fn korangar_missing_has_one_trailing_byte() {
    let Some((data, m)) = load("vE5li+korangar/korangar/archive/data/model/missing.rsm") else {
        return;
    };
    assert_eq!(data.len(), 1208);
    assert_eq!((m.major, m.minor), (1, 4));
    assert_eq!(m.trailing_bytes, 1);
    assert_eq!(m.warnings.len(), 1);
    assert!(
        m.warnings[0].contains("1 trailing byte(s)"),
        "{}",
        m.warnings[0]
    );
    assert!(m.warnings[0].contains("at byte 1207"), "{}", m.warnings[0]);
    assert!(m.warnings[0].contains("missing.rsm"), "{}", m.warnings[0]);
    assert_eq!(m.texture_names(), ["model\\missing.bmp"]);
    assert_eq!(m.nodes[0].name_str(), "Missing0");
    assert_eq!(m.nodes[0].vertices.len(), 12);
    assert_eq!(m.nodes[0].faces.len(), 14);
}

#[test]
fn robrowser_coin_and_browedit_exports() {
    let Some((_, m)) = load("MrAntares+roBrowserLegacy/tests/fixtures/_test.rsm.bin") else {
        return;
    };
    assert_eq!((m.major, m.minor, m.anim_len), (1, 4, 32000));
    assert_eq!(m.texture_names(), ["abyss\\abyss_j_07.bmp"]);
    assert_eq!(m.nodes[0].name_str(), "coin_j_01");
    assert_eq!(
        (
            m.nodes[0].vertices.len(),
            m.nodes[0].tex_coords.len(),
            m.nodes[0].faces.len()
        ),
        (5, 5, 4)
    );

    let (_, g) = load("hurtsky+RO-Clientresources/data/model/goomba/goomba_1.rsm").unwrap();
    assert_eq!(
        g.texture_names(),
        ["goomba\\goomba_1.bmp", "goomba\\goomba_2.bmp"]
    );
    assert_eq!(g.main_node_name().as_deref(), Some("borf"));
    // BrowEdit writes an unnamed node under a "borf" main name.
    assert_eq!(g.nodes[0].name, b"");
    assert_eq!(
        (g.nodes[0].vertices.len(), g.nodes[0].faces.len()),
        (224, 146)
    );
    assert_eq!(g.shade_type, 1);

    let (_, e) = load("hurtsky+RO-Clientresources/data/model/planets/pl_earth.rsm").unwrap();
    assert_eq!(
        (e.nodes[0].vertices.len(), e.nodes[0].faces.len()),
        (588, 960)
    );
}

#[test]
fn aste_trap_models_with_cp949_paths() {
    let Some(root) = corpus() else { return };
    let mut files = Vec::new();
    models(&root.join("asteanya+Aste-Grf"), &mut files);
    assert_eq!(files.len(), 3);
    let mut textures = Vec::new();
    for p in &files {
        let m = rsm::parse_file(p).unwrap();
        assert_eq!(
            (m.major, m.minor, m.anim_len, m.shade_type),
            (1, 4, 16000, 1)
        );
        assert_eq!((m.nodes[0].vertices.len(), m.nodes[0].faces.len()), (8, 4));
        textures.extend(m.texture_names());
    }
    textures.sort();
    assert_eq!(
        textures,
        [
            "aste\\aste_anklesnare.tga",
            "aste\\aste_clusterbomb.tga",
            "aste\\aste_thorntrap.tga"
        ]
    );
}

/// RagLite's v0104 fixture: every field holds a distinct recognisable value.
fn check_raglite_v1(m: &Rsm) {
    assert_eq!((m.anim_len, m.shade_type, m.alpha), (6000, 0, 255));
    assert_eq!(m.texture_names(), ["dir\\tex1.bmp", "asdf/texture.bmp"]);
    assert_eq!(m.main_node_name().as_deref(), Some("TransformationRoot"));
    assert_eq!(m.nodes.len(), 1);
    let n = &m.nodes[0];
    assert_eq!(n.name_str(), "TransformationRoot");
    assert_eq!(n.texture_ids, [0, 1]);
    assert_eq!(n.position, Vec3::new(-1.876, -25.0, -55.54));
    assert_eq!(
        n.vertices,
        [
            Vec3::new(100.0, 200.0, 300.0),
            Vec3::new(400.0, 500.0, 600.0),
            Vec3::new(700.0, 800.0, 900.0)
        ]
    );
    assert_eq!(n.tex_coords[0].color, 0x0403_0201);
    assert_eq!((n.tex_coords[1].u, n.tex_coords[1].v), (1.0, 0.75));
    assert_eq!(n.faces[0].vertex_ids, [10, 11, 12]);
    assert_eq!(n.faces[0].tex_coord_ids, [13, 14, 15]);
    assert_eq!((n.faces[0].texture_id, n.faces[0].two_side), (8, 1));
    assert_eq!(n.faces[0].smooth_groups, [42]);
    assert_eq!(n.faces[1].smooth_groups, [123]);
    assert_eq!(n.rot_keys.len(), 2);
    assert_eq!(n.rot_keys[0].frame, 134);
    assert_eq!(
        n.rot_keys[0].rotation,
        Quat::from_xyzw(22.0, 23.0, 24.0, 25.0)
    );
    assert_eq!(n.rot_keys[1].frame, 77);
    assert_eq!(m.model_pos_keys.len(), 2);
    assert_eq!(m.model_pos_keys[1].frame, 666);
    assert_eq!(m.model_pos_keys[1].position, Vec3::new(3.0, 2.0, 1.0));
    assert_eq!(m.volume_boxes.len(), 2);
    assert_eq!(m.volume_boxes[1].size, Vec3::new(90.0, 80.0, 70.0));
    assert_eq!(m.volume_boxes[1].rotation, Vec3::new(30.0, 20.0, 10.0));
    assert_eq!(m.trailing_bytes, 0);
}

#[test]
fn raglite_v0104_and_v0105() {
    let Some((_, m4)) = load("RagnarokResearchLab+RagLite/Tests/Fixtures/v0104.rsm") else {
        return;
    };
    assert_eq!((m4.major, m4.minor), (1, 4));
    check_raglite_v1(&m4);
    assert_eq!(m4.v15_layout, V15Layout::Documented);
    assert!(m4.warnings.is_empty());

    // RagLite's 1.5 fixture is laid out as RagLite reads 1.5: one more
    // model-level count (0) between the node and the model key block; read as 1.4 it
    // would leave 44 bytes over, 40 more than the documented 4. On this one-node file roBrowser's
    // per-node position-key block reads the same values (an empty block),
    // so there is no ambiguity to warn about, only the layout taken.
    let (_, m5) = load("RagnarokResearchLab+RagLite/Tests/Fixtures/v0105.rsm").unwrap();
    assert_eq!((m5.major, m5.minor), (1, 5));
    assert_eq!(m5.v15_layout, V15Layout::EmptyModelBlock);
    check_raglite_v1(&m5);
    assert!(m5.nodes[0].pos_keys.is_empty());
    assert_eq!(m5.warnings.len(), 1);
    assert!(
        m5.warnings[0].contains("RagLite's layout"),
        "{:?}",
        m5.warnings
    );
    assert!(
        m5.warnings[0].contains("leaves 44 bytes after the volume boxes, not 4"),
        "{:?}",
        m5.warnings
    );
}

fn check_raglite_v2_node(m: &Rsm) {
    assert_eq!(
        (m.anim_len, m.shade_type, m.alpha, m.fps),
        (117, 2, 252, Some(37.0))
    );
    assert_eq!(
        m.root_names,
        vec![
            b"TransformationRootA".to_vec(),
            b"TransformationRootB".to_vec()
        ]
    );
    assert_eq!(m.nodes.len(), 1);
    let n = &m.nodes[0];
    assert_eq!(n.name_str(), "TransformationRootA");
    assert!(n.parent.is_empty());
    assert_eq!(n.offset, Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(
        (n.vertices.len(), n.tex_coords.len(), n.faces.len()),
        (5, 5, 2)
    );
    assert_eq!(n.faces[0].vertex_ids, [1, 3, 4]);
    assert_eq!(n.faces[0].padding, 5000);
    // A 32-byte face: three smoothing groups; a 24-byte face: one.
    assert_eq!(n.faces[0].smooth_groups, [1, 1, 1]);
    assert_eq!(n.faces[1].smooth_groups, [1]);
    assert_eq!(n.scale_keys.len(), 2);
    assert_eq!(n.scale_keys[1].frame, 3000);
    assert_eq!(n.scale_keys[1].scale, Vec3::new(3500.0, 4000.0, 4500.0));
    assert_eq!(n.scale_keys[1].data, 5000.0);
    assert!(n.rot_keys.is_empty());
    assert_eq!(n.pos_keys.len(), 2);
    assert_eq!(n.pos_keys[1].frame, 200);
    assert_eq!(n.pos_keys[1].position, Vec3::new(16.0, 32.0, 64.0));
}

#[test]
fn raglite_v0202_and_v0203() {
    let Some((_, m2)) = load("RagnarokResearchLab+RagLite/Tests/Fixtures/v0202.rsm2") else {
        return;
    };
    assert_eq!((m2.major, m2.minor), (2, 2));
    check_raglite_v2_node(&m2);
    assert_eq!(
        m2.texture_names(),
        ["hmm\\texture.jpg", "asdf/texture2.bmp"]
    );
    assert_eq!(m2.nodes[0].texture_ids, [0]);
    assert!(m2.volume_box_block && m2.volume_boxes.is_empty());

    let (_, m3) = load("RagnarokResearchLab+RagLite/Tests/Fixtures/v0203.rsm2").unwrap();
    assert_eq!((m3.major, m3.minor), (2, 3));
    check_raglite_v2_node(&m3);
    assert!(m3.textures.is_empty());
    assert_eq!(
        m3.nodes[0].texture_names_str(),
        ["hmm\\texture.jpg", "asdf/texture2.bmp"]
    );
    assert!(!m3.volume_box_block);
    let a = &m3.nodes[0].tex_anims;
    assert_eq!(a.len(), 2);
    assert_eq!(a[0].texture, 777);
    assert_eq!(a[0].channels.len(), 1);
    assert_eq!(a[0].channels[0].keys[1].frame, 6);
    assert_eq!(a[0].channels[0].keys[1].value, 0.25);
    assert_eq!(a[1].texture, 888);
    let kinds: Vec<i32> = a[1].channels.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [1, 2, 3, 4]);
    assert_eq!(a[1].channels[3].keys[0].frame, 10);
    assert_eq!(a[1].channels[3].keys[0].value, 8.0);
}

#[test]
fn synthetic_models_of_every_version_round_trip() {
    for (maj, min) in fixture::VERSIONS {
        let m = fixture::model(maj, min);
        let bytes = rsm::write(&m);
        let back = rsm::parse(&bytes, Path::new("fixture.rsm")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, m, "{maj}.{min}");
        assert_eq!(rsm::write(&back), bytes, "{maj}.{min}");
    }
}

#[test]
fn synthetic_sizes_follow_each_version_layout() {
    // Hand-counted sizes: each version step adds exactly its new fields.
    let sizes: Vec<(String, usize)> = fixture::VERSIONS
        .iter()
        .map(|&(a, b)| (format!("{a}.{b}"), rsm::write(&fixture::model(a, b)).len()))
        .collect();
    let get = |v: &str| sizes.iter().find(|s| s.0 == v).unwrap().1;
    // 1.2 adds a colour per texcoord (6) and a smoothing group per face (3).
    assert_eq!(get("1.2") - get("1.1"), 6 * 4 + 3 * 4);
    // 1.3 adds the volume-box flag (1 box).
    assert_eq!(get("1.3") - get("1.2"), 4);
    // 1.4 adds the alpha byte.
    assert_eq!(get("1.4") - get("1.3"), 1);
    assert_eq!(get("1.5"), get("1.4"));
    // 1.6 drops the model position keys (count + 1 key) and adds per-node
    // scale keys (2 counts + 2 keys).
    assert_eq!(get("1.6") as i64 - get("1.5") as i64, -24 + 8 + 40);
    assert_eq!(get("1.7"), get("1.6"));
    // 1.1 in full: header 30, textures 84, main name 40, node count 4,
    // root node 316, child node 324, model position keys 24, volume boxes 40.
    assert_eq!(get("1.1"), 30 + 84 + 40 + 4 + 316 + 324 + 24 + 40);
}

#[test]
fn v15_per_node_position_keys_round_trip() {
    let mut m = fixture::model(1, 5);
    m.v15_layout = V15Layout::NodePositionKeys;
    m.nodes[1].pos_keys = vec![rsm::PosKey {
        frame: 100,
        position: Vec3::new(1.0, 2.0, 3.0),
        data: 9,
    }];
    let bytes = rsm::write(&m);
    assert_eq!(
        bytes.len(),
        rsm::write(&fixture::model(1, 5)).len() + 4 + 4 + 20
    );
    let back = rsm::parse(&bytes, Path::new("v15.rsm")).unwrap();
    assert_eq!(back.v15_layout, V15Layout::NodePositionKeys);
    assert_eq!(back.nodes, m.nodes);
    assert_eq!(back.warnings.len(), 1);
}

#[test]
fn summaries_report_counts_and_clamped_indices() {
    let Some((_, m)) = load("RagnarokResearchLab+RagLite/Tests/Fixtures/v0104.rsm") else {
        return;
    };
    let s = rsm::summary(&m);
    assert_eq!((s.format, s.version.as_str()), ("RSM", "1.4"));
    assert_eq!((s.anim_len, s.fps, s.shade_type), (6000, None, 0));
    assert_eq!(s.textures, ["dir\\tex1.bmp", "asdf/texture.bmp"]);
    assert_eq!(
        (s.model_pos_key_count, s.volume_box_count, s.trailing_bytes),
        (2, 2, 0)
    );
    let n = &s.nodes[0];
    assert_eq!(n.name, "TransformationRoot");
    assert_eq!(
        (
            n.vertex_count,
            n.texcoord_count,
            n.face_count,
            n.rot_key_count,
            n.pos_key_count,
            n.scale_key_count
        ),
        (3, 2, 2, 2, 0, 0)
    );
    // RagLite's synthetic faces index vertices 10..18 of a 3-vertex node.
    assert_eq!(
        s.warnings,
        [
            "node[0] \"TransformationRoot\": 2 face(s) use a texture past its 2, 0 texture id(s) past the model's 2",
            "node[0] \"TransformationRoot\": clamped indices: 2 face(s) index past its 3 vertices, 2 past its 2 texcoords"
        ]
    );

    let (_, g) = load("Tokeiburu+RSM2/Rsm2/bin/Debug/data/goldberg_s_01.rsm2").unwrap();
    let s = rsm::summary(&g);
    assert_eq!(
        (s.format, s.version.as_str(), s.fps),
        ("RSM2", "2.3", Some(30.0))
    );
    assert_eq!(s.nodes.len(), 32);
    assert_eq!(s.nodes[19].tex_anim_channel_count, 1);
    assert_eq!(s.nodes[5].pos_key_count, 53);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let json = serde_json::to_string(&s).unwrap();
    assert!(
        json.starts_with("{\"format\":\"RSM2\",\"version\":\"2.3\",\"anim_len\":700"),
        "{json}"
    );
}

#[test]
fn robrowser_coin_name_fields_keep_their_garbage() {
    let Some((data, m)) = load("MrAntares+roBrowserLegacy/tests/fixtures/_test.rsm.bin") else {
        return;
    };
    // The main node field reads "coin_j_01\0s_j_07.bmp\0…": stale bytes
    // after the NUL that only the raw fields can reproduce.
    assert_eq!(m.root_names[0], b"coin_j_01");
    assert_eq!(m.raw_name_fields.len(), 1 + 1 + 2);
    assert_eq!(&m.raw_name_fields[1][..21], b"coin_j_01\0s_j_07.bmp\0");
    assert_eq!(rsm::write(&m), data);
    let mut clean = m.clone();
    clean.raw_name_fields.clear();
    let out = rsm::write(&clean);
    assert_eq!(out.len(), data.len());
    assert_ne!(out, data);
    assert_eq!(
        rsm::parse(&out, Path::new("clean.rsm")).unwrap().nodes,
        m.nodes
    );
}
