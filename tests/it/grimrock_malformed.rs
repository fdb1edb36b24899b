//! Hostile and broken Grimrock input: truncations, garbage headers, patched
//! counts and random byte flips never panic, never allocate what the input
//! cannot back, and fail with errors that name the file, field and offset.

use crate::common;

use crate::fixtures::grimrock as fixture;
use glam::Vec3;
use kiln::internals::formats::grimrock::{
    self, Animation, Entity, Light, MeshData, MeshEntity, Model, Node, VertexArray,
};
use std::path::Path;
use std::time::{Duration, Instant};

/// The fixture model plus the shapes it lacks: a light node, an i16 array
/// whose stride carries non-zero padding, and an absent array whose header
/// is not all zeros.
fn edge_model() -> Model {
    let mut m = fixture::model();
    let Entity::Mesh(e) = &mut m.nodes[3].entity else {
        unreachable!()
    };
    let mut raw = Vec::new();
    for v in 0..6i16 {
        raw.extend_from_slice(&(v * 100).to_le_bytes());
        raw.extend_from_slice(&(-v).to_le_bytes());
        raw.extend_from_slice(&[0xAB, 0xCD, 0xEF, 0x01]);
    }
    e.mesh.arrays[grimrock::TEXCOORD1] = VertexArray {
        data_type: grimrock::DATA_INT16,
        dim: 2,
        stride: 8,
        values: (0..6).flat_map(|v| [v as f32 * 100.0, -v as f32]).collect(),
        raw,
    };
    e.mesh.arrays[grimrock::TEXCOORD7].data_type = 3;
    e.mesh.arrays[grimrock::TEXCOORD7].stride = 12;
    let mut lamp = Node::new(b"lamp", 2);
    lamp.entity = Entity::Light(Light {
        kind: 2,
        color: Vec3::new(1.0, 0.5, 0.25),
        range: 6.0,
        spot_angle: 45.0,
        spot_sharpness: 0.5,
        cast_shadow: 1,
    });
    m.nodes.push(lamp);
    m
}

enum Fixture {
    Model(Model),
    Anim(Animation),
}

fn fixtures() -> Vec<(&'static str, Fixture)> {
    vec![
        ("fixture.model", Fixture::Model(fixture::model())),
        ("edge.model", Fixture::Model(edge_model())),
        ("v1.animation", Fixture::Anim(fixture::animation(1))),
        ("v2.animation", Fixture::Anim(fixture::animation(2))),
    ]
}

fn bytes(s: &Fixture) -> Vec<u8> {
    match s {
        Fixture::Model(m) => grimrock::write_model(m),
        Fixture::Anim(a) => grimrock::write_animation(a),
    }
}

/// Parses `b` as the kind of `s`; on success returns the clean rewrite and
/// the trailing-byte count.
fn parse(
    s: &Fixture,
    b: &[u8],
    name: &str,
) -> Result<(Vec<u8>, usize), kiln::internals::error::ParseError> {
    match s {
        Fixture::Model(_) => grimrock::parse_model(b, Path::new(name))
            .map(|m| (grimrock::write_model(&m), m.trailing_bytes)),
        Fixture::Anim(_) => grimrock::parse_animation(b, Path::new(name))
            .map(|a| (grimrock::write_animation(&a), a.trailing_bytes)),
    }
}

#[test]
fn fixtures_round_trip_exactly() {
    for (name, s) in fixtures() {
        let b = bytes(&s);
        match &s {
            Fixture::Model(m) => {
                let got = grimrock::parse_model(&b, Path::new(name)).unwrap();
                assert_eq!(&got, m, "{name}");
                assert!(got.warnings.is_empty(), "{:?}", got.warnings);
            }
            Fixture::Anim(a) => {
                let got = grimrock::parse_animation(&b, Path::new(name)).unwrap();
                assert_eq!(&got, a, "{name}");
                assert!(got.warnings.is_empty(), "{:?}", got.warnings);
            }
        }
    }
    // The sizes follow from the layout: 4 nodes of 60 bytes plus names, a
    // mesh of 15 headers, 6 vertices × (12+12+4+8+16+16) bytes, 24 indices,
    // two segments, bounds, two bones, emissive and shadow flag.
    let m = grimrock::write_model(&fixture::model());
    let names = 8 + 9 + 8 + 5;
    let mesh = 8 + 4 + 15 * 12 + 6 * 68 + 4 + 24 * 4 + 4 + 2 * 16 + 9 + 8 + 40 + 4 + 2 * 52 + 13;
    assert_eq!(m.len(), 12 + 4 * 60 + names + mesh);
    // v1: header 24, per track name + count + 10 keys × 40 bytes.
    let a = grimrock::write_animation(&fixture::animation(1));
    assert_eq!(a.len(), 24 + (4 + 9 + 4 + 400) + (4 + 8 + 4 + 400));
    // v2: the base is three single keys.
    let a = grimrock::write_animation(&fixture::animation(2));
    assert_eq!(a.len(), 24 + (4 + 9 + 12 + 40) + (4 + 8 + 12 + 400));
}

#[test]
fn fixture_rest_pose_is_identity_and_skin_is_consistent() {
    let m = fixture::model();
    let e = m.nodes[3].mesh().unwrap();
    for b in &e.bones {
        let rest = m.world_matrix(b.node as usize) * b.inv_rest.to_mat4();
        assert!(rest.abs_diff_eq(glam::Mat4::IDENTITY, 1e-6), "{rest}");
    }
    let s = grimrock::model_summary(&m);
    let bones: Vec<_> = s.meshes[0]
        .bones
        .iter()
        .map(|b| b.node_name.clone())
        .collect();
    assert_eq!(bones, [Some("bone_base".into()), Some("bone_arm".into())]);
    assert!(grimrock::unmatched_tracks(&fixture::animation(2), &m).is_empty());
}

#[test]
fn every_truncation_fails_with_file_and_offset() {
    for (name, s) in fixtures() {
        let b = bytes(&s);
        for len in 0..b.len() {
            let e = match parse(&s, &b[..len], name) {
                Ok(_) => panic!("{name}: truncated to {len} of {} parsed", b.len()),
                Err(e) => e,
            };
            assert!(e.offset as usize <= len, "{name}[..{len}]: {e}");
            let text = e.to_string();
            assert!(text.starts_with(name), "{text}");
            assert!(text.contains(&format!("at byte {}", e.offset)), "{text}");
            assert!(!e.field.is_empty(), "{text}");
        }
    }
}

#[test]
fn trailing_bytes_are_a_warning() {
    for (name, s) in fixtures() {
        let mut b = bytes(&s);
        let clean = b.clone();
        b.extend_from_slice(&[1, 2, 3]);
        let (out, trailing) = parse(&s, &b, name).unwrap();
        assert_eq!((trailing, out), (3, clean), "{name}");
    }
    let mut b = grimrock::write_model(&fixture::model());
    b.push(0);
    let m = grimrock::parse_model(&b, Path::new("t.model")).unwrap();
    assert_eq!(m.warnings.len(), 1);
    assert!(
        m.warnings[0].contains("1 trailing byte"),
        "{:?}",
        m.warnings
    );
}

/// (count fields, string-length fields) of each fixture, counted from the
/// layout: node count, then per mesh vertex, index, segment and bone counts;
/// strings are node names and materials (plus the animation name and track
/// node names); a v1 track has one key count, a v2 track three.
fn expected_fields(name: &str) -> (usize, usize) {
    match name {
        "fixture.model" => (5, 4 + 2),
        "edge.model" => (5, 5 + 2),
        "v1.animation" => (1 + 2, 3),
        "v2.animation" => (1 + 2 * 3, 3),
        _ => unreachable!("{name}"),
    }
}

#[test]
fn hostile_counts_fail_fast_at_their_own_offset() {
    for (name, s) in fixtures() {
        let b0 = bytes(&s);
        let mut first: Option<(Vec<usize>, Vec<usize>)> = None;
        for value in [0x7FFF_FFFFu32, 0x8000_0000, 0xFFFF_FFFF] {
            let (mut counts, mut strings) = (Vec::new(), Vec::new());
            for at in 0..b0.len() - 3 {
                let mut b = b0.clone();
                b[at..at + 4].copy_from_slice(&value.to_le_bytes());
                let t = Instant::now();
                let r = parse(&s, &b, name);
                assert!(t.elapsed() < Duration::from_secs(1), "{name} @{at}");
                if let Err(e) = r {
                    assert!(e.offset as usize <= b.len(), "{e}");
                    if e.offset as usize == at {
                        if e.field.ends_with("count") {
                            counts.push(at);
                        } else if e.message.starts_with("string length") {
                            strings.push(at);
                        }
                    }
                }
            }
            match &first {
                None => first = Some((counts, strings)),
                // Each hostile value is caught at exactly the same fields.
                Some(f) => assert_eq!(f, &(counts, strings), "{name} {value:#x}"),
            }
        }
        let (counts, strings) = first.unwrap();
        assert_eq!(
            (counts.len(), strings.len()),
            expected_fields(name),
            "{name}: {counts:?} {strings:?}"
        );
    }
}

#[test]
fn known_fields_name_themselves() {
    let m = grimrock::write_model(&fixture::model());
    let f = Path::new("t.model");
    let mut b = m.clone();
    b[8..12].copy_from_slice(&0x7FFF_FFFFi32.to_le_bytes());
    let e = grimrock::parse_model(&b, f).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("node_count", 8));
    assert!(e.message.contains("count 2147483647 needs at least"), "{e}");

    // Node 0 ("RootNode") starts at 12: name 4+8, matrix 48, parent, type.
    let mut b = m.clone();
    b[12..16].copy_from_slice(&(-1i32).to_le_bytes());
    let e = grimrock::parse_model(&b, f).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("node[0].name", 12));
    assert_eq!(e.to_string(), format!("t.model: node[0].name at byte 12 (0xc): string length -1 does not fit in the {} bytes left", m.len() - 16));

    let mut b = m.clone();
    b[12 + 12 + 48 + 4..][..4].copy_from_slice(&7i32.to_le_bytes());
    let e = grimrock::parse_model(&b, f).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("node[0].type", 76));
    assert!(e.message.contains("unknown node type 7"), "{e}");

    // The hinge (node 3) is last: find its MESH block.
    let mesh_at = m.windows(4).position(|w| w == b"MESH").unwrap();
    let mut b = m.clone();
    b[mesh_at + 8..mesh_at + 12].copy_from_slice(&1_000_000i32.to_le_bytes());
    let e = grimrock::parse_model(&b, f).unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.offset),
        ("node[3].mesh.vertex_count", mesh_at as u64 + 8)
    );
    assert!(e.message.contains("arrays[0](position)"), "{e}");

    let mut b = m.clone();
    b[mesh_at] = b'X';
    let e = grimrock::parse_model(&b, f).unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.offset),
        ("node[3].mesh.magic", mesh_at as u64)
    );

    // Array 0 header: data type, dim, stride.
    let h = mesh_at + 12;
    for (patch, value, field, what) in [
        (0, 9i32, "data_type", "unknown data type 9"),
        (4, 5, "dim", "5 components"),
        (4, -2, "dim", "-2 components"),
        (8, 11, "stride", "stride 11 is smaller than 3 × 4-byte f32"),
    ] {
        let mut b = m.clone();
        b[h + patch..h + patch + 4].copy_from_slice(&value.to_le_bytes());
        let e = grimrock::parse_model(&b, f).unwrap_err();
        assert_eq!(
            e.field,
            format!("node[3].mesh.arrays[0](position).{field}"),
            "{e}"
        );
        assert_eq!(e.offset as usize, h + patch, "{e}");
        assert!(e.message.contains(what), "{e}");
    }
}

#[test]
fn garbage_headers_are_refused_clearly() {
    let f = Path::new("bad.model");
    let e = grimrock::parse_model(b"", f).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("magic", 0));
    let e = grimrock::parse_model(b"ANIM\x01\0\0\0", f).unwrap_err();
    assert!(e.message.contains("not a Grimrock model"), "{e}");
    for v in [0i32, 1, 3, -1] {
        let mut b = grimrock::write_model(&fixture::model());
        b[4..8].copy_from_slice(&v.to_le_bytes());
        let e = grimrock::parse_model(&b, f).unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("version", 4));
        assert!(e.message.contains(&format!("version {v}")), "{e}");
    }
    let f = Path::new("bad.animation");
    let e = grimrock::parse_animation(b"MDL1\x02\0\0\0", f).unwrap_err();
    assert!(e.message.contains("not a Grimrock animation"), "{e}");
    for v in [0i32, 3, -1] {
        let mut b = grimrock::write_animation(&fixture::animation(2));
        b[4..8].copy_from_slice(&v.to_le_bytes());
        let e = grimrock::parse_animation(&b, f).unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("version", 4));
    }
}

#[test]
fn odd_but_readable_values_become_warnings() {
    // A segment beyond the indices, an index beyond the vertices, a bone slot
    // beyond the bones, a parent that is not a node, zero fps.
    let mut m = fixture::model();
    m.nodes[1].parent = 9;
    let Entity::Mesh(e) = &mut m.nodes[3].entity else {
        unreachable!()
    };
    e.mesh.segments[1].triangle_count = 5;
    e.mesh.indices[0] = 6;
    e.mesh.arrays[grimrock::BONE_INDEX] = VertexArray::from_i32(4, &[[2, 0, 0, 0]; 6].concat());
    let got = grimrock::parse_model(&grimrock::write_model(&m), Path::new("w.model")).unwrap();
    let w = got.warnings.join("\n");
    assert_eq!(got.warnings.len(), 4, "{w}");
    assert!(w.contains("1 index(es) beyond the 6 vertices"), "{w}");
    assert!(
        w.contains("segments[1]: indices 12..27 fall outside the 24 indices"),
        "{w}"
    );
    assert!(
        w.contains("6 weighted bone slot(s) name a bone beyond the 2 bones"),
        "{w}"
    );
    assert!(w.contains("node[1].parent: 9 is not a node index"), "{w}");
    // world_matrix stops at the broken link instead of looping or panicking.
    assert_eq!(got.world_matrix(2), glam::Mat4::from_translation(Vec3::Y));

    let mut a = fixture::animation(1);
    a.fps = 0.0;
    let got = grimrock::parse_animation(&grimrock::write_animation(&a), Path::new("w.animation"))
        .unwrap();
    assert_eq!(got.warnings.len(), 1, "{:?}", got.warnings);
    assert_eq!(got.duration(), 0.0);
}

#[test]
fn empty_mesh_and_uneven_v1_tracks_write_readable_files() {
    let mut m = Model::new();
    let mut n = Node::new(b"empty", -1);
    n.entity = Entity::Mesh(MeshEntity {
        mesh: MeshData::new(),
        bones: Vec::new(),
        emissive: Vec3::ONE,
        cast_shadow: 0,
    });
    m.nodes.push(n);
    let b = grimrock::write_model(&m);
    assert_eq!(
        b.len(),
        12 + 4 + 5 + 48 + 8 + 12 + 15 * 12 + 8 + 40 + 4 + 13
    );
    assert_eq!(grimrock::parse_model(&b, Path::new("e.model")).unwrap(), m);

    // Version 1 has one key count per track: short arrays repeat their last key.
    let mut a = fixture::animation(2);
    a.version = 1;
    let got = grimrock::parse_animation(&grimrock::write_animation(&a), Path::new("u.animation"))
        .unwrap();
    let base = &got.tracks[0];
    assert_eq!(base.positions.len(), 1);
    let arm = &got.tracks[1];
    assert_eq!(arm.rotations, a.tracks[1].rotations);

    let mut a = fixture::animation(1);
    a.tracks[0].rotations.truncate(3);
    a.tracks[0].scales.clear();
    let got = grimrock::parse_animation(&grimrock::write_animation(&a), Path::new("u.animation"))
        .unwrap();
    let t = &got.tracks[0];
    assert_eq!(
        (t.positions.len(), t.rotations.len(), t.scales.len()),
        (10, 10, 10)
    );
    assert_eq!(t.rotations[9], a.tracks[0].rotations[2]);
    assert_eq!(t.scales[5], Vec3::ONE);

    // Raw array bytes that disagree with the vertex count are cut or padded.
    let mut m = fixture::model();
    let Entity::Mesh(e) = &mut m.nodes[3].entity else {
        unreachable!()
    };
    e.mesh.arrays[grimrock::NORMAL].raw.truncate(5);
    e.mesh.arrays[grimrock::COLOR]
        .raw
        .extend_from_slice(&[9; 7]);
    let got = grimrock::parse_model(&grimrock::write_model(&m), Path::new("p.model")).unwrap();
    let mesh = &got.nodes[3].mesh().unwrap().mesh;
    assert_eq!(mesh.arrays[grimrock::NORMAL].raw.len(), 72);
    assert_eq!(mesh.arrays[grimrock::COLOR].raw.len(), 24);
    assert_eq!(mesh.positions().unwrap().len(), 6);
}

#[test]
fn random_byte_flips_never_panic() {
    let mut inputs: Vec<(String, Fixture, Vec<u8>)> = fixtures()
        .into_iter()
        .map(|(n, s)| {
            let b = bytes(&s);
            (n.to_string(), s, b)
        })
        .collect();
    // Small real files too, when the corpus is there.
    for rel in [
        "grimrock+eob1-waterdeep/mod_assets/models/env/empty_object_gate.model",
        "MurdoMaclachlan+grimrock-import/import_skeletonWarrior/models/items/skeleton_shield.model",
        "7Soul+log2_the_old_nexus/mod_assets/fire_cave/animations/rc_lever_up.animation",
    ] {
        if let Some(b) = common::corpus_bytes(&format!("grimrock/{rel}")) {
            let s = if rel.ends_with(".model") {
                Fixture::Model(Model::new())
            } else {
                Fixture::Anim(Animation::new(2, 0.0, 0))
            };
            inputs.push((rel.to_string(), s, b));
        }
    }
    let mut rng = common::Rng(0x9E37_79B9_7F4A_7C15);
    let (mut ok, mut err) = (0, 0);
    for case in 0..4000 {
        let (name, s, base) = &inputs[case % inputs.len()];
        let mut b = base.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(b.len());
            b[at] ^= 1 + rng.below(255) as u8;
        }
        if rng.below(8) == 0 {
            let keep = rng.below(b.len());
            b.truncate(keep);
        }
        let t = Instant::now();
        let r = parse(s, &b, name);
        assert!(t.elapsed() < Duration::from_secs(1), "case {case}");
        match r {
            Ok((out, trailing)) => {
                ok += 1;
                // Every field is kept as read: the rewrite is the input minus
                // its trailing bytes.
                assert!(out == b[..b.len() - trailing], "case {case} ({name})");
            }
            Err(e) => {
                err += 1;
                assert!(e.offset as usize <= b.len(), "case {case}: {e}");
                assert!(e.to_string().starts_with(name.as_str()), "{e}");
            }
        }
    }
    // Most flips land in floats and still parse; many hit structure.
    println!("byte flips: {ok} parsed, {err} refused");
    assert!(ok > 1000 && err > 500, "ok {ok} err {err}");
}
