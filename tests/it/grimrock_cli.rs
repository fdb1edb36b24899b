//! Grimrock through the `kiln` binary: multi-clip sheets with metadata tags,
//! icons, inspect of models and animations, export of a posed frame.

use crate::common::{self, kiln, stderr, tempdir};

use std::path::{Path, PathBuf};

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/grimrock/mod_assets")
}

const WARRIOR: &str = "grimrock/grimrock+eob1-waterdeep/mod_assets/plugins/skeleton_warrior_axe";

#[test]
fn warrior_walk_and_idle_sheet_has_a_tag_per_clip_and_direction() {
    let Some(dir) = common::corpus(WARRIOR) else {
        return;
    };
    let tmp = tempdir("warrior");
    let recipe = format!(
        "jobs:\n  - name: warrior\n    model: {m}\n    size: 48x64\n    antialias: 1\n    clips:\n      - {{ name: walk, animation: {w}, fps: 10 }}\n      - {{ name: idle, animation: {i}, frames: 4 }}\n    output: {{ dir: out, gif: \"{{name}}_{{clip}}_{{dir}}.gif\" }}\n",
        m = dir.join("models/skeleton_warrior_axe.model").display(),
        w = dir.join("animations/skeleton_warrior_axe_walk.animation").display(),
        i = dir.join("animations/skeleton_warrior_axe_idle.animation").display(),
    );
    std::fs::write(tmp.join("r.yaml"), recipe).unwrap();
    let o = kiln(&["bake", "r.yaml"], &tmp);
    assert!(o.status.success(), "{}", stderr(&o));
    // walk: 55 frames at 30 fps = 1.833 s → 19 frames at 10 fps; idle: 4.
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.join("out/warrior.json")).unwrap()).unwrap();
    let tags = meta["meta"]["frameTags"].as_array().unwrap();
    assert_eq!(tags.len(), 16, "2 clips × 8 directions");
    assert_eq!(tags[0]["name"], "walk_d0");
    assert_eq!(
        (tags[0]["from"].as_u64(), tags[0]["to"].as_u64()),
        (Some(0), Some(18))
    );
    assert_eq!(tags[8]["name"], "idle_d0");
    assert_eq!(
        tags[8]["to"].as_u64().unwrap() - tags[8]["from"].as_u64().unwrap(),
        3
    );
    assert_eq!(meta["frames"].as_object().unwrap().len(), 8 * 19 + 8 * 4);
    let sheet = image::open(tmp.join("out/warrior.png")).unwrap().to_rgba8();
    assert_eq!(sheet.dimensions(), (48 * 19, 64 * 16));
    assert!(tmp.join("out/warrior_idle_7.gif").is_file());
}

#[test]
fn inspect_reports_grimrock_models_and_animations() {
    let Some(dir) = common::corpus(WARRIOR) else {
        return;
    };
    let model = dir.join("models/skeleton_warrior_axe.model");
    let o = kiln(&["inspect", model.to_str().unwrap(), "--json"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["nodes"].as_array().unwrap().len(), 31);
    let meshes = j["details"]["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 2);
    let bones: usize = meshes
        .iter()
        .map(|m| m["bones"].as_array().unwrap().len())
        .sum();
    assert_eq!(bones, 25);
    let text = String::from_utf8_lossy(&kiln(&["inspect", model.to_str().unwrap()], &dir).stdout)
        .into_owned();
    assert!(
        text.contains("bone_index i32×4")
            && text.contains("(mesh)")
            && text.contains("segment 'rusted_great_axe'"),
        "{text}"
    );

    let walk = dir.join("animations/skeleton_warrior_axe_walk.animation");
    let o = kiln(&["inspect", walk.to_str().unwrap(), "--json"], &dir);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["version"], "1");
    assert_eq!(j["animation"]["fps"], 30.0);
    assert_eq!(j["animation"]["frames"], 55);
    assert_eq!(j["nodes"].as_array().unwrap().len(), 28);

    let Some(nexus) = common::corpus("grimrock/7Soul+log2_the_old_nexus/mod_assets/fire_cave")
    else {
        return;
    };
    let anim = nexus.join("animations/rc_button_press.animation");
    let m = nexus.join("models/env/rc_button.model");
    let o = kiln(
        &[
            "inspect",
            anim.to_str().unwrap(),
            "--model",
            m.to_str().unwrap(),
        ],
        &nexus,
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("floor_guide") && text.contains("Armature") && text.contains("name no node"),
        "{text}"
    );
}

#[test]
fn export_of_a_posed_frame() {
    let Some(dir) = common::corpus(WARRIOR) else {
        return;
    };
    let tmp = tempdir("export");
    let model = dir.join("models/skeleton_warrior_axe.model");
    let attack = dir.join("animations/skeleton_warrior_axe_attack.animation");
    let o = kiln(
        &[
            "export",
            model.to_str().unwrap(),
            "--animation",
            attack.to_str().unwrap(),
            "--frame",
            "20",
            "-o",
            "w.glb",
        ],
        &tmp,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let still = kiln(&["export", model.to_str().unwrap(), "-o", "rest.glb"], &tmp);
    assert!(still.status.success());
    let a = std::fs::read(tmp.join("w.glb")).unwrap();
    let b = std::fs::read(tmp.join("rest.glb")).unwrap();
    assert_eq!(&a[..4], b"glTF");
    assert_eq!(a.len(), b.len(), "same layout");
    assert_ne!(a, b, "the attack pose differs from the rest pose");
}

#[test]
fn sample_tentacle_golden_and_recipe() {
    let tmp = tempdir("tentacle");
    let m = samples().join("models/kiln_tentacle.model");
    let wave = samples().join("animations/kiln_tentacle_wave.animation");
    for (frame, yaw) in [("0", "0"), ("8", "0"), ("8", "90")] {
        let out = format!("t_{frame}_{yaw}.png");
        let o = kiln(
            &[
                "render",
                m.to_str().unwrap(),
                "--animation",
                wave.to_str().unwrap(),
                "--frame",
                frame,
                "--yaw",
                yaw,
                "--size",
                "64x96",
                "-o",
                &out,
            ],
            &tmp,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
        let img = image::open(tmp.join(&out)).unwrap().to_rgba8();
        common::assert_golden(&format!("grimrock/tentacle_f{frame}_y{yaw}"), &img);
    }
    let recipe = Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/grimrock.yaml");
    let copy = tmp.join("recipes");
    std::fs::create_dir_all(&copy).unwrap();
    let text = std::fs::read_to_string(&recipe).unwrap().replace(
        "samples/",
        &format!(
            "{}/",
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("recipes/samples")
                .display()
        ),
    );
    std::fs::write(copy.join("grimrock.yaml"), text).unwrap();
    let o = kiln(&["bake", "recipes/grimrock.yaml"], &tmp);
    assert!(o.status.success(), "{}", stderr(&o));
    let icon = image::open(tmp.join("out/icons/sign_icon.png"))
        .unwrap()
        .to_rgba8();
    assert_eq!(icon.dimensions(), (75, 75), "Grimrock icon size");
    let sheet = image::open(tmp.join("out/tentacle/tentacle.png"))
        .unwrap()
        .to_rgba8();
    assert_eq!(
        sheet.dimensions(),
        (96 * 15, 128 * 16),
        "wave 15 frames, rest 1; 2 clips × 8 rows"
    );
}

#[test]
fn truncated_grimrock_files_fail_with_offsets() {
    let tmp = tempdir("trunc");
    for (src, name) in [
        ("models/kiln_tentacle.model", "cut.model"),
        ("animations/kiln_tentacle_wave.animation", "cut.animation"),
    ] {
        let bytes = std::fs::read(samples().join(src)).unwrap();
        std::fs::write(tmp.join(name), &bytes[..bytes.len() * 2 / 3]).unwrap();
        let o = kiln(&["inspect", name], &tmp);
        assert_eq!(o.status.code(), Some(1));
        assert!(
            stderr(&o).contains(name) && stderr(&o).contains("at byte"),
            "{}",
            stderr(&o)
        );
    }
}
