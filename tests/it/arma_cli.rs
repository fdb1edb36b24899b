//! Arma through the `kiln` binary: the lever sample baked from a plain RTM
//! and from its BMTR v4 twin, inspect of RTM/P3D/model.cfg, refusals.

use crate::common::{self, kiln, stderr, tempdir};

use std::path::{Path, PathBuf};

fn lever() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/arma/kiln_lever")
}

#[test]
fn lever_from_plain_and_binarised_rtm_look_the_same() {
    let tmp = tempdir("lever");
    let recipes = tmp.join("recipes");
    std::fs::create_dir_all(&recipes).unwrap();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples");
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/arma.yaml"))
            .unwrap()
            .replace("samples/", &format!("{}/", samples.display()));
    std::fs::write(recipes.join("arma.yaml"), text).unwrap();
    let o = kiln(&["bake", "recipes/arma.yaml"], &tmp);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    let a = image::open(tmp.join("out/lever/lever_swing.png"))
        .unwrap()
        .to_rgba8();
    let b = image::open(tmp.join("out/lever/lever_swing_binarised.png"))
        .unwrap()
        .to_rgba8();
    // 1.5 s at 8 fps = 12 frames; 8 directions.
    assert_eq!(a.dimensions(), (96 * 12, 96 * 8));
    assert_eq!(a.dimensions(), b.dimensions());
    // BMTR stores translations as half floats: allow a few edge pixels.
    let differing = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, q)| p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > 8))
        .count();
    assert!(
        differing * 1000 < (a.width() * a.height()) as usize,
        "{differing} pixels differ"
    );
    // The swing moves the arm: frames differ, the base does not.
    let cell = |img: &image::RgbaImage, f: u32| {
        image::imageops::crop_imm(img, f * 96, 0, 96, 96).to_image()
    };
    assert_ne!(cell(&a, 0), cell(&a, 3));
    common::assert_golden("arma/lever_swing_f3_d0", &cell(&a, 3));
    common::assert_golden(
        "arma/lever_swing_f3_d1",
        &image::imageops::crop_imm(&a, 3 * 96, 96, 96, 96).to_image(),
    );
}

#[test]
fn a_binarised_rtm_without_skeleton_is_a_clear_error() {
    let tmp = tempdir("noskel");
    let m = lever().join("kiln_lever.p3d");
    let a = lever().join("anim/kiln_lever_swing_bin.rtm");
    let o = kiln(
        &[
            "render",
            m.to_str().unwrap(),
            "--animation",
            a.to_str().unwrap(),
            "-o",
            "x.png",
        ],
        &tmp,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("BMTR v4") && stderr(&o).contains("skeleton"),
        "{}",
        stderr(&o)
    );
    let cfg = lever().join("model.cfg");
    let o = kiln(
        &[
            "render",
            m.to_str().unwrap(),
            "--animation",
            a.to_str().unwrap(),
            "--skeleton-config",
            cfg.to_str().unwrap(),
            "--skeleton-class",
            "KilnLeverSkeleton",
            "--time",
            "0.25",
            "-o",
            "x.png",
        ],
        &tmp,
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn inspect_rtm_p3d_and_model_cfg() {
    let tmp = tempdir("inspect");
    let o = kiln(
        &[
            "inspect",
            lever()
                .join("anim/kiln_lever_swing_bin.rtm")
                .to_str()
                .unwrap(),
            "--json",
        ],
        &tmp,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["format"], "Arma RTM");
    assert_eq!(j["nodes"].as_array().unwrap().len(), 2);
    assert_eq!(j["animation"]["frames"], 16);
    let o = kiln(
        &["inspect", lever().join("kiln_lever.p3d").to_str().unwrap()],
        &tmp,
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("LOD 0 1.000 (drawn by default): 16 points, 12 faces (12 quads)")
            && text.contains("selections: base, arm"),
        "{text}"
    );
    let o = kiln(
        &["inspect", lever().join("model.cfg").to_str().unwrap()],
        &tmp,
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("skeleton KilnLeverSkeleton: 2 bones"),
        "{text}"
    );

    let Some(dayz) = common::corpus("arma/earlbalai+DayZ-Source") else {
        return;
    };
    let o = kiln(
        &[
            "inspect",
            dayz.join("Legacy/dayz_anim/zmb/model.cfg")
                .to_str()
                .unwrap(),
        ],
        &tmp,
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("skeleton OFP2_ManSkeleton: 132 bones"));
    let o = kiln(
        &[
            "inspect",
            dayz.join("SQF/dayz_anim/zmb/zmbStandDeath2.rtm")
                .to_str()
                .unwrap(),
            "--json",
        ],
        &tmp,
    );
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["version"], "3");
    assert_eq!(j["animation"]["frames"], 139);
}

#[test]
fn odol_is_refused_and_broken_files_name_the_offset() {
    let tmp = tempdir("refuse");
    if let Some(iv) =
        common::corpus("arma/KAT-Advanced-Medical+KAM/addons/pharma/models/iv/kat_iv.p3d")
    {
        let o = kiln(&["render", iv.to_str().unwrap(), "-o", "x.png"], &tmp);
        assert_eq!(o.status.code(), Some(1));
        assert!(
            stderr(&o).contains("ODOL") && stderr(&o).contains("MLOD"),
            "{}",
            stderr(&o)
        );
    }
    for (src, name) in [
        ("kiln_lever.p3d", "cut.p3d"),
        ("anim/kiln_lever_swing_bin.rtm", "cut.rtm"),
        ("anim/kiln_lever_swing.rtm", "cut2.rtm"),
    ] {
        let bytes = std::fs::read(lever().join(src)).unwrap();
        std::fs::write(tmp.join(name), &bytes[..bytes.len() / 2]).unwrap();
        let o = kiln(&["inspect", name], &tmp);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(name) && stderr(&o).contains("at byte"),
            "{}",
            stderr(&o)
        );
    }
}
