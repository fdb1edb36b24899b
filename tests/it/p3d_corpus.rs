//! Real MLOD P3D files: exact counts, resolutions, selections and
//! `#Animation#` tags, byte-exact round trips, and the ODOL refusal.

use glam::Vec3;
use kiln::internals::formats::arma::p3d::{self, Mlod};
use std::path::PathBuf;

const FASTROPING: &str = "KoffeinFlummi+AGM/AGM_FastRoping/animbase/agm_fastroping.p3d";
const CABLETIE: &str = "KoffeinFlummi+AGM/AGM_Captives/agm_cabletie.p3d";
const CRATE: &str = "MrClock8163+Arma3ObjectBuilder/tests/inputs/p3d/sample_2_crate.p3d";
const KAT_IV: &str = "KAT-Advanced-Medical+KAM/addons/pharma/models/iv/kat_iv.p3d";

fn corpus(rel: &str) -> Option<PathBuf> {
    crate::common::corpus(&format!("arma/{rel}"))
}

fn load(rel: &str) -> Option<(Vec<u8>, Mlod)> {
    let p = corpus(rel)?;
    let data = std::fs::read(&p).unwrap();
    let m = p3d::parse(&data, &p).unwrap_or_else(|e| panic!("{e}"));
    Some((data, m))
}

fn resolutions(m: &Mlod) -> Vec<f32> {
    m.lods.iter().map(|l| l.resolution).collect()
}

#[test]
fn every_corpus_mlod_writes_back_byte_for_byte() {
    for rel in [FASTROPING, CABLETIE, CRATE] {
        let Some((data, m)) = load(rel) else { return };
        let out = p3d::write(&m);
        assert_eq!(out.len(), data.len(), "{rel}");
        assert!(out == data, "{rel}: round trip differs");
    }
}

#[test]
fn fastroping_is_one_skinned_lod_with_animation_tags() {
    let Some((_, m)) = load(FASTROPING) else {
        return;
    };
    assert_eq!(resolutions(&m), vec![0.0]);
    assert_eq!(m.most_detailed_visual_lod(), Some(0));
    let l = &m.lods[0];
    assert_eq!(
        (l.points.len(), l.normals.len(), l.faces.len()),
        (594, 2112, 594)
    );
    assert_eq!(l.faces.iter().filter(|f| f.sides == 3).count(), 264);
    assert_eq!(l.faces.iter().filter(|f| f.sides == 4).count(), 330);
    assert_eq!(l.textures(), vec!["Default.paa".to_string()]);
    assert_eq!(l.selections.len(), 66);
    assert_eq!(l.selections[0].name, "Pelvis");
    assert_eq!(l.selections[65].name, "launcher");
    assert_eq!(l.selections[19].name, "Head");
    // Head: 9 points at full weight and 9 faces (counted from the raw bytes).
    let head = l.selection("head").unwrap();
    assert_eq!(head.point_weights.len(), 594);
    assert_eq!(head.face_selected.len(), 594);
    assert_eq!(head.selected_points().len(), 9);
    assert!(head.point_weights.iter().all(|&w| w == 0.0 || w == 1.0));
    assert_eq!(head.face_selected.iter().filter(|&&b| b).count(), 9);
    // Rigid skinning: every weight byte in this file is 0 or 1 (checked on
    // the raw bytes), so every point belongs wholly to its bones.
    assert!(l
        .selections
        .iter()
        .all(|s| s.point_weights.iter().all(|&w| w == 0.0 || w == 1.0)));
    let phases: Vec<f32> = l.animations.iter().map(|a| a.phase).collect();
    assert_eq!(phases, vec![0.0, 0.5, 1.0]);
    assert!(l.animations.iter().all(|a| a.positions.len() == 594));
    // Phase 0 is the rest pose; phase 0.5 moves point 0.
    let p0 = Vec3::new(0.002_006_252_3, 0.001_993_742_3, -0.001_999_910_5);
    assert_eq!(l.points[0].pos, p0);
    assert_eq!(l.animations[0].positions[0], p0);
    assert_eq!(
        l.animations[1].positions[0],
        Vec3::new(0.010_737_431, 0.889_955_2, 0.228_097_57)
    );
    let others: Vec<&str> = l.other_tags.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(others, vec!["#SharpEdges#", "#UVSet#"]);
    let uv = l.uv_set().expect("#UVSet# decodes");
    assert_eq!(uv.uvs.len(), 594);
    assert_eq!(uv.uvs[0].len(), l.faces[0].sides as usize);
    assert_eq!(
        uv.uvs[0][0],
        [l.faces[0].vertices[0].u, l.faces[0].vertices[0].v]
    );
}

#[test]
fn cabletie_lods_and_first_point() {
    let Some((_, m)) = load(CABLETIE) else { return };
    assert_eq!(resolutions(&m), vec![1.0, 3.0, 5.0, 11000.0, 1.0e13]);
    let names: Vec<String> = m.lods.iter().map(|l| p3d::lod_name(l.resolution)).collect();
    assert_eq!(
        names,
        vec!["1.000", "3.000", "5.000", "Shadow Buffer 0", "Geometry"]
    );
    assert_eq!(m.most_detailed_visual_lod(), Some(0));
    let l = &m.lods[0];
    assert_eq!(
        (l.points.len(), l.normals.len(), l.faces.len()),
        (148, 152, 148)
    );
    assert_eq!(
        l.points[0].pos,
        Vec3::new(-0.020_671_017, -0.010_550_721, 5.911_954_2e-5)
    );
    assert_eq!(l.points[0].flags, 0);
    assert_eq!(
        l.textures(),
        vec!["#(argb,8,8,3)color(0.545098,0.545098,0.545098,1.0,co)".to_string()]
    );
    assert_eq!(
        l.materials(),
        vec!["agm_core\\data\\agm_default.rvmat".to_string()]
    );
    assert!(l.selections.is_empty());
    assert_eq!(m.lods[2].points.len(), 0);
    assert_eq!(m.lods[4].selections[0].name, "Component01");
    assert!(m.lods[4].other_tag("#Mass#").is_some());
}

#[test]
fn crate_has_seven_lods_with_exact_resolutions() {
    let Some((_, m)) = load(CRATE) else { return };
    assert_eq!(
        resolutions(&m),
        vec![1.0, 2.0, 10000.0, 1.0e13, 2.0e13, 1.0e15, 3.0e15]
    );
    let s = p3d::summary(&m);
    let names: Vec<&str> = s.lods.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "1.000",
            "2.000",
            "Shadow Volume 0",
            "Geometry",
            "Geometry Buoyancy",
            "Memory",
            "Roadway"
        ]
    );
    let counts: Vec<(usize, usize)> = s.lods.iter().map(|l| (l.points, l.faces)).collect();
    assert_eq!(
        counts,
        vec![
            (96, 168),
            (48, 72),
            (16, 24),
            (16, 24),
            (8, 12),
            (4, 0),
            (8, 5)
        ]
    );
    assert_eq!(s.lods[0].selections, vec!["lid", "camo1"]);
    assert_eq!(s.lods[5].selections, vec!["lid_axis", "interaction"]);
    assert_eq!(
        s.lods[3].materials,
        vec!["a3\\data_f\\penetration\\plastic.rvmat"]
    );
    assert_eq!(s.most_detailed_visual_lod, Some(0));
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["lods"][6]["quads"], 5);
    assert_eq!(json["format"], "MLOD");
}

#[test]
fn odol_is_refused_with_its_version() {
    let Some(p) = corpus(KAT_IV) else { return };
    let data = std::fs::read(&p).unwrap();
    let e = p3d::parse(&data, &p).unwrap_err();
    assert_eq!(e.offset, 0);
    assert_eq!(e.field, "signature");
    assert_eq!(
        e.message,
        "binarised P3D (ODOL version 73) is not supported; use the MLOD source model"
    );
    let e = p3d::parse_file(&p).unwrap_err().to_string();
    assert!(e.contains("kat_iv.p3d"), "{e}");
}

#[test]
fn corpus_truncations_and_flips_fail_cleanly() {
    let Some(p) = corpus(CRATE) else { return };
    let data = std::fs::read(&p).unwrap();
    // Every 7th length plus the last 64: each must fail inside the data.
    let lengths = (0..data.len())
        .step_by(7)
        .chain(data.len() - 64..data.len());
    for n in lengths {
        let e = p3d::parse(&data[..n], &p).expect_err(&format!("length {n} parsed"));
        assert!(e.offset as usize <= n, "length {n}: {e}");
    }
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut failed = 0;
    for _ in 0..1000 {
        let mut d = data.clone();
        for _ in 0..1 + next() % 8 {
            let i = (next() % d.len() as u64) as usize;
            d[i] ^= 1 << (next() % 8);
        }
        if let Err(e) = p3d::parse(&d, &p) {
            failed += 1;
            assert!(e.offset as usize <= d.len(), "{e}");
        }
    }
    assert!(failed > 0);
}
