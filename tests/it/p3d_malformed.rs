//! Hostile and broken MLOD P3D input: truncations, patched counts and random
//! byte flips never panic, never allocate what the input cannot back, and
//! fail with errors that name the file, field and offset.

use glam::Vec3;
use kiln::internals::formats::arma::p3d::{
    self, AnimationTag, Face, FaceVertex, Lod, Mlod, Point, RawTag, Selection,
};
use std::path::Path;
use std::time::{Duration, Instant};

fn fv(point: u32, normal: u32, u: f32, v: f32) -> FaceVertex {
    FaceVertex {
        point,
        normal,
        u,
        v,
    }
}

fn lod(resolution: f32) -> Lod {
    Lod {
        resolution,
        version_major: p3d::P3DM_MAJOR,
        version_minor: p3d::P3DM_MINOR,
        flags: 0,
        points: Vec::new(),
        normals: Vec::new(),
        faces: Vec::new(),
        selections: Vec::new(),
        animations: Vec::new(),
        other_tags: Vec::new(),
        tag_order: Vec::new(),
    }
}

/// A quad and a triangle with one bone, one animation key and a raw tag,
/// plus an empty Geometry LOD.
fn fixture() -> Mlod {
    let mut a = lod(1.0);
    a.points = (0..4)
        .map(|i| Point {
            pos: Vec3::new(i as f32, 1.0, -(i as f32)),
            flags: i,
        })
        .collect();
    a.normals = vec![Vec3::Y, Vec3::X, Vec3::Z];
    a.faces = vec![
        Face {
            sides: 4,
            vertices: [
                fv(0, 0, 0.0, 0.0),
                fv(1, 0, 1.0, 0.0),
                fv(2, 1, 1.0, 1.0),
                fv(3, 2, 0.0, 1.0),
            ],
            flags: 0,
            texture: "data\\box_co.paa".into(),
            material: "data\\box.rvmat".into(),
        },
        Face {
            sides: 3,
            vertices: [
                fv(3, 2, 0.0, 0.0),
                fv(2, 1, 0.5, 0.0),
                fv(0, 0, 0.5, 0.5),
                FaceVertex::default(),
            ],
            flags: 7,
            texture: String::new(),
            material: String::new(),
        },
    ];
    a.selections = vec![Selection {
        name: "bone".into(),
        active: true,
        point_weights: vec![1.0, 0.5, 0.0, 1.0 / 254.0],
        face_selected: vec![true, false],
    }];
    a.animations = vec![AnimationTag {
        active: true,
        phase: 0.25,
        positions: (0..4).map(|i| Vec3::splat(i as f32)).collect(),
    }];
    a.other_tags = vec![RawTag {
        name: "#Mass#".into(),
        active: true,
        data: [1.0f32, 2.0, 3.0, 4.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect(),
    }];
    Mlod {
        lods: vec![a, lod(1.0e13)],
    }
}

/// Offsets of every count/length field in a written MLOD, found by walking
/// the layout independently of the parser: (offset, name).
fn count_fields(data: &[u8]) -> Vec<(usize, String)> {
    let u32_at = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().unwrap()) as usize;
    let mut out = vec![(8, "lod_count".to_string())];
    let mut o = 12;
    for l in 0..u32_at(8) {
        out.push((o + 12, format!("lod[{l}].point_count")));
        out.push((o + 16, format!("lod[{l}].normal_count")));
        out.push((o + 20, format!("lod[{l}].face_count")));
        let (np, nn, nf) = (u32_at(o + 12), u32_at(o + 16), u32_at(o + 20));
        o += 28 + np * 16 + nn * 12;
        for _ in 0..nf {
            o += 4 + 64 + 4;
            o += data[o..].iter().position(|&b| b == 0).unwrap() + 1;
            o += data[o..].iter().position(|&b| b == 0).unwrap() + 1;
        }
        assert_eq!(&data[o..o + 4], b"TAGG");
        o += 4;
        let mut t = 0;
        loop {
            o += 1;
            let n = data[o..].iter().position(|&b| b == 0).unwrap();
            let name = data[o..o + n].to_vec();
            o += n + 1;
            out.push((o, format!("lod[{l}].tags[{t}].length")));
            o += 4 + u32_at(o);
            t += 1;
            if name == b"#EndOfFile#" {
                break;
            }
        }
        o += 4;
    }
    assert_eq!(o, data.len());
    out
}

fn parse(data: &[u8]) -> Result<Mlod, kiln::internals::error::ParseError> {
    p3d::parse(data, Path::new("hostile.p3d"))
}

#[test]
fn fixture_round_trips_and_keeps_weights() {
    let m = fixture();
    let data = p3d::write(&m);
    let back = parse(&data).unwrap();
    assert_eq!(p3d::write(&back), data);
    let s = &back.lods[0].selections[0];
    assert_eq!(s.point_weights, vec![1.0, 0.5, 0.0, 1.0 / 254.0]);
    assert_eq!(s.face_selected, vec![true, false]);
    assert_eq!(back.lods[0].animations[0].phase, 0.25);
    assert_eq!(back.lods[0].faces[1].flags, 7);
    assert_eq!(back.lods[0].faces[0].texture, "data\\box_co.paa");
    assert_eq!(back.lods[1].resolution, 1.0e13);
    assert_eq!(back.most_detailed_visual_lod(), Some(0));
    // Written order with an empty tag_order: selections, animations, others.
    assert_eq!(
        back.lods[0].tag_order,
        vec![
            p3d::TagRef::Selection(0),
            p3d::TagRef::Animation(0),
            p3d::TagRef::Other(0)
        ]
    );
    // LOD0: header 28, points 64, normals 36, faces 103 + 74, TAGG 4,
    // tags 16 + 69 + 28 + 17 (#EndOfFile#), resolution 4. LOD1: 28 + 4 + 17 + 4.
    assert_eq!(data.len(), 12 + 443 + 53);
}

#[test]
fn weight_codes() {
    assert_eq!(p3d::decode_weight(0), 0.0);
    assert_eq!(p3d::decode_weight(1), 1.0);
    assert_eq!(p3d::decode_weight(2), 253.0 / 254.0);
    assert_eq!(p3d::decode_weight(128), 0.5);
    assert_eq!(p3d::decode_weight(254), 1.0 / 254.0);
    for b in 0..=254u8 {
        assert_eq!(p3d::encode_weight(p3d::decode_weight(b)), b, "byte {b}");
    }
    assert_eq!(p3d::encode_weight(1e-6), 254);
    assert_eq!(p3d::encode_weight(f32::NAN), 0);
}

#[test]
fn lod_names() {
    let cases = [
        (0.0, "0.000"),
        (1.5, "1.500"),
        (1000.0, "View Gunner"),
        (1100.0, "View Pilot"),
        (1200.0, "View Cargo"),
        (10000.0, "Shadow Volume 0"),
        (10010.0, "Shadow Volume 10"),
        (11000.0, "Shadow Buffer 0"),
        (20000.0, "Edit 0"),
        (1.0e13, "Geometry"),
        (1.0e15, "Memory"),
        (2.0e15, "Land Contact"),
        (5.0e15, "Hit-points"),
        (6.0e15, "View Geometry"),
        (7.0e15, "Fire Geometry"),
    ];
    for (r, name) in cases {
        assert_eq!(p3d::lod_name(r), name, "{r}");
    }
    assert_eq!(p3d::lod_name(5000.0), "Unknown 5e3");
}

#[test]
fn every_truncation_fails_cleanly() {
    let data = p3d::write(&fixture());
    for n in 0..data.len() {
        let e = parse(&data[..n]).expect_err(&format!("length {n} parsed"));
        assert!(e.offset as usize <= n, "length {n}: {e}");
        assert_eq!(e.file, Path::new("hostile.p3d"));
    }
}

#[test]
fn hostile_counts_at_every_count_field() {
    let data = p3d::write(&fixture());
    let fields = count_fields(&data);
    assert_eq!(fields.len(), 1 + 2 * 3 + 4 + 1);
    for (off, name) in &fields {
        for v in [u32::MAX, 0x7FFF_FFFF, 0x0100_0000, data.len() as u32] {
            let mut d = data.clone();
            d[*off..off + 4].copy_from_slice(&v.to_le_bytes());
            let t = Instant::now();
            let e = parse(&d).expect_err(&format!("{name} = {v} parsed"));
            assert!(t.elapsed() < Duration::from_secs(1));
            assert_eq!(e.offset as usize, *off, "{name} = {v}: {e}");
            assert_eq!(&e.field, name, "{name} = {v}: {e}");
        }
        // One more than the truth: must fail somewhere, never panic.
        let mut d = data.clone();
        let cur = u32::from_le_bytes(d[*off..off + 4].try_into().unwrap());
        d[*off..off + 4].copy_from_slice(&(cur + 1).to_le_bytes());
        assert!(parse(&d).is_err(), "{name} + 1 parsed");
    }
}

#[test]
fn structural_errors_name_field_and_offset() {
    let data = p3d::write(&fixture());
    let patch = |off: usize, v: u32| {
        let mut d = data.clone();
        d[off..off + 4].copy_from_slice(&v.to_le_bytes());
        parse(&d).unwrap_err()
    };
    let faces = 12 + 28 + 4 * 16 + 3 * 12;
    let e = patch(faces, 5);
    assert_eq!(
        (e.field.as_str(), e.offset),
        ("lod[0].faces[0].sides", faces as u64)
    );
    let e = patch(faces + 4 + 16, 4);
    assert_eq!(e.field, "lod[0].faces[0].vertices[1].point");
    assert_eq!(e.message, "point index 4 out of range (4 points)");
    let e = patch(faces + 4 + 4, 3);
    assert_eq!(e.field, "lod[0].faces[0].vertices[0].normal");
    assert_eq!(e.offset, (faces + 8) as u64);
    let e = patch(16, 0x1B);
    assert_eq!((e.field.as_str(), e.offset), ("lod[0].version", 16));
    let e = patch(4, 256);
    assert_eq!((e.field.as_str(), e.offset), ("version", 4));
    // The unused fourth vertex of a triangle is not checked.
    let tri = faces + 103 + 4;
    assert_eq!(
        u32::from_le_bytes(data[tri..tri + 4].try_into().unwrap()),
        3
    );
    let mut d = data.clone();
    d[tri + 48..tri + 52].copy_from_slice(&99u32.to_le_bytes());
    d[tri + 52..tri + 56].copy_from_slice(&99u32.to_le_bytes());
    assert!(parse(&d).is_ok());
    let mut d = data.clone();
    d.push(0);
    let e = parse(&d).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("end", data.len() as u64));
    let e = parse(b"ODOL\x46\0\0\0").unwrap_err();
    assert!(e.message.contains("ODOL version 70"), "{e}");
    let e = parse(b"P3DM\0\0\0\0").unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("signature", 0));
}

#[test]
fn random_flips_never_panic() {
    let data = p3d::write(&fixture());
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let t = Instant::now();
    let mut failed = 0;
    for _ in 0..5000 {
        let mut d = data.clone();
        for _ in 0..1 + next() % 4 {
            let i = (next() % d.len() as u64) as usize;
            d[i] ^= 1 << (next() % 8);
        }
        if let Err(e) = parse(&d) {
            failed += 1;
            assert!(e.offset as usize <= d.len(), "{e}");
            assert!(!e.field.is_empty());
        }
    }
    assert!(failed > 0);
    assert!(t.elapsed() < Duration::from_secs(20));
}
