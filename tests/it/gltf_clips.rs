//! Animated glTF: every animated sample and corpus model exported with its
//! clips, the file's own animation evaluated by the independent reader in
//! `gltf_eval` at many times, and compared with what `kiln export --time t`
//! writes for the same instant.

use crate::common;
use crate::gltf_eval::{Gltf, Instance};
use kiln::{Clip, ExportClip, FileRef, GltfReport, Model, ModelSpec, SkeletonSpec, Step};
use std::path::{Path, PathBuf};

const WARRIOR: &str = "grimrock/grimrock+eob1-waterdeep/mod_assets/plugins/skeleton_warrior_axe";
const NEXUS: &str = "grimrock/7Soul+log2_the_old_nexus/mod_assets/fire_cave";
const AGM: &str = "arma/KoffeinFlummi+AGM";
const DAYZ: &str = "arma/earlbalai+DayZ-Source";

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("recipes/samples")
}

/// A whole-animation clip.
pub fn whole(name: &str, animation: Option<&Path>) -> ExportClip {
    ExportClip {
        embedded: Default::default(),
        name: name.into(),
        animation: animation.map(FileRef::from),
        clip: Clip::Range {
            start: 0.0,
            end: None,
            step: Step::Fps(30.0),
        },
    }
}

/// Exports `clips` of `spec`'s model into `dir/<file>`, read back.
pub fn export(
    spec: &ModelSpec,
    clips: &[ExportClip],
    dir: &Path,
    file: &str,
) -> (Gltf, GltfReport) {
    let model = Model::load(spec).unwrap();
    let path = dir.join(file);
    let report = model.export_animated(clips, &path).unwrap();
    (Gltf::read(&path), report)
}

/// The largest extent of the drawn vertices.
fn size(instances: &[Instance]) -> f64 {
    let mut min = glam::DVec3::splat(f64::INFINITY);
    let mut max = glam::DVec3::splat(f64::NEG_INFINITY);
    for p in instances.iter().flat_map(|i| &i.positions) {
        min = min.min(*p);
        max = max.max(*p);
    }
    (max - min).max_element()
}

/// How far apart two drawings are: the largest vertex distance and the
/// largest texture-coordinate distance.
fn distance(a: &[Instance], b: &[Instance]) -> (f64, f64) {
    assert_eq!(a.len(), b.len(), "mesh count");
    let (mut pos, mut uv) = (0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        assert_eq!((x.mesh, &x.name), (y.mesh, &y.name));
        assert_eq!(x.positions.len(), y.positions.len(), "mesh '{}'", x.name);
        for (p, q) in x.positions.iter().zip(&y.positions) {
            pos = pos.max(p.distance(*q));
        }
        assert_eq!(x.uvs.len(), y.uvs.len());
        for (u, v) in x.uvs.iter().zip(&y.uvs) {
            if let (Some(u), Some(v)) = (u, v) {
                for (s, t) in u.iter().zip(v) {
                    uv = uv.max(s.distance(*t));
                }
            }
        }
    }
    (pos, uv)
}

/// Evaluates clip `name` of `glb` at `n` times over its length (and at its
/// start) and compares each with kiln's own export of `model` at that time
/// (`start` + t). Returns the worst vertex distance relative to the model's
/// size; asserts it is within `tolerance`, and the texture coordinates
/// within `tolerance` too.
pub fn compare(
    glb: &Gltf,
    name: &str,
    model: &Model,
    start: f32,
    n: usize,
    tolerance: f64,
    dir: &Path,
) -> f64 {
    let a = glb
        .animation(name)
        .unwrap_or_else(|| panic!("no animation '{name}' in {:?}", glb.animation_names()));
    let length = glb.animation_length(a);
    let mut times = vec![0.0];
    times.extend((0..n).map(|k| length * (k as f64 + 0.37) / n as f64));
    let kiln_path = dir.join(format!("{name}-posed.glb"));
    let mut worst = 0.0f64;
    for t in times {
        model.export(start + t as f32, &kiln_path).unwrap();
        let kiln = Gltf::read(&kiln_path).draw(None, 0.0);
        let ours = glb.draw(Some(a), t);
        let s = size(&kiln).max(1e-6);
        let (d, uv) = distance(&ours, &kiln);
        assert!(
            d / s <= tolerance,
            "clip '{name}' at {t:.4} s: vertices {d} apart on a model {s} across ({:.2e} of its size)",
            d / s
        );
        assert!(
            uv <= tolerance.max(1e-5),
            "clip '{name}' at {t:.4} s: uvs {uv} apart"
        );
        worst = worst.max(d / s);
    }
    println!("{name}: worst distance {worst:.2e} of the model's size");
    worst
}

/// Whether the report says keys were added to the clip.
fn resampled(report: &GltfReport, clip: &str) -> bool {
    report
        .notes
        .iter()
        .any(|n| n.starts_with(&format!("clip '{clip}': ")) && n.contains("key(s) added"))
}

/// 1e-4 of the model's size, 1e-3 where keys were resampled.
fn tolerance(report: &GltfReport, clip: &str) -> f64 {
    if resampled(report, clip) {
        1e-3
    } else {
        1e-4
    }
}

#[test]
fn goldberg_rsm2_with_texture_animation() {
    let Some(file) = common::corpus("ro/Tokeiburu+RSM2/Rsm2/bin/Debug/data/goldberg_s_01.rsm2")
    else {
        return;
    };
    let dir = common::tempdir("gltf-goldberg");
    let spec = ModelSpec::new(file.as_path());
    let (glb, report) = export(&spec, &[whole("goldberg", None)], &dir, "goldberg.glb");
    assert_eq!(glb.animation_names(), ["goldberg"]);
    assert!((glb.animation_length(0) - 700.0 / 30.0).abs() < 1e-4);
    assert!(!resampled(&report, "goldberg"), "{:?}", report.notes);
    // The two scrolling textures are animated through pointers.
    let anim = &glb.json["animations"][0];
    let pointers: Vec<&str> = anim["channels"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["target"]["extensions"]["KHR_animation_pointer"]["pointer"].as_str())
        .collect();
    assert_eq!(pointers.len(), 2, "{pointers:?}");
    assert!(pointers
        .iter()
        .all(|p| p.ends_with("/KHR_texture_transform/offset")));
    assert_eq!(
        anim["extras"]["textureTransforms"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let used = glb.json["extensionsUsed"].as_array().unwrap();
    for e in ["KHR_texture_transform", "KHR_animation_pointer"] {
        assert!(used.iter().any(|u| u == e), "{e} in {used:?}");
    }
    let model = Model::load(&spec).unwrap();
    compare(&glb, "goldberg", &model, 0.0, 23, 1e-4, &dir);
}

#[test]
fn skeleton_warrior_clips_on_its_skin() {
    let Some(dir) = common::corpus(WARRIOR) else {
        return;
    };
    let tmp = common::tempdir("gltf-warrior");
    let spec = ModelSpec::new(dir.join("models/skeleton_warrior_axe.model"));
    let names = ["walk", "idle", "attack", "hit_back"];
    let files: Vec<PathBuf> = names
        .iter()
        .map(|n| dir.join(format!("animations/skeleton_warrior_axe_{n}.animation")))
        .collect();
    let clips: Vec<ExportClip> = names
        .iter()
        .zip(&files)
        .map(|(n, f)| whole(n, Some(f)))
        .collect();
    let (glb, report) = export(&spec, &clips, &tmp, "warrior.glb");
    assert_eq!(glb.animation_names(), names);
    // Two skinned meshes, each on a root node of the scene with one joint
    // per bone of its mesh, and the 31 nodes under the model's root.
    let model = Model::load(&spec).unwrap();
    let scene = kiln::internals::scene_of(&model);
    let skins = glb.json["skins"].as_array().unwrap();
    let kiln_skins: Vec<usize> = scene
        .meshes
        .iter()
        .filter_map(|m| m.skin.as_ref().map(|s| s.joints.len()))
        .collect();
    assert_eq!(kiln_skins.len(), 2);
    assert_eq!(skins.len(), 2);
    for (s, &n) in skins.iter().zip(&kiln_skins) {
        assert_eq!(s["joints"].as_array().unwrap().len(), n);
        assert_eq!(s["skeleton"], 0);
    }
    let roots = glb.json["scenes"][0]["nodes"].as_array().unwrap();
    assert_eq!(
        roots.len(),
        3,
        "the model's root and the two skinned meshes"
    );
    for r in &roots[1..] {
        let node = &glb.json["nodes"][r.as_u64().unwrap() as usize];
        assert!(node["skin"].is_u64() && node["mesh"].is_u64());
    }
    let node_names: Vec<&str> = glb.json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    for n in &scene.nodes {
        assert!(node_names.contains(&n.name.as_str()), "node {}", n.name);
    }
    for (n, f) in names.iter().zip(&files) {
        let animated = model.animated(f.as_path()).unwrap();
        let length = glb.animation_length(glb.animation(n).unwrap());
        assert!(
            (length - f64::from(animated.duration())).abs() < 1e-5,
            "{n}"
        );
        compare(&glb, n, &animated, 0.0, 17, tolerance(&report, n), &tmp);
    }
    // Grimrock nlerps where glTF slerps: the walk's big turns get keys.
    assert!(resampled(&report, "walk"), "{:?}", report.notes);
}

#[test]
fn rsm_samples_windmill_and_beacon() {
    let tmp = common::tempdir("gltf-rsm-samples");
    let kiln_dir = samples().join("data/model/kiln");
    for name in ["windmill.rsm2", "beacon.rsm"] {
        let spec = ModelSpec::new(kiln_dir.join(name));
        let (glb, report) = export(&spec, &[whole(name, None)], &tmp, &format!("{name}.glb"));
        let model = Model::load(&spec).unwrap();
        assert!((glb.animation_length(0) - f64::from(model.duration())).abs() < 1e-6);
        compare(&glb, name, &model, 0.0, 19, tolerance(&report, name), &tmp);
    }
}

#[test]
fn grimrock_tentacle_sample_and_a_rest_pose() {
    let tmp = common::tempdir("gltf-tentacle");
    let root = samples().join("grimrock/mod_assets");
    let spec = ModelSpec::new(root.join("models/kiln_tentacle.model"));
    let wave = root.join("animations/kiln_tentacle_wave.animation");
    let clips = [
        whole("wave", Some(&wave)),
        ExportClip {
            embedded: Default::default(),
            name: "rest".into(),
            animation: None,
            clip: Clip::Still { time: 0.0 },
        },
    ];
    let (glb, report) = export(&spec, &clips, &tmp, "tentacle.glb");
    assert_eq!(glb.animation_names(), ["wave", "rest"]);
    let model = Model::load(&spec).unwrap();
    compare(
        &glb,
        "wave",
        &model.animated(wave.as_path()).unwrap(),
        0.0,
        19,
        tolerance(&report, "wave"),
        &tmp,
    );
    // The rest clip keys every channel the wave moves, at its rest values,
    // so playing it after the wave puts the tentacle back.
    compare(&glb, "rest", &model, 0.0, 1, 1e-4, &tmp);
    let (wave_i, rest_i) = (
        glb.animation("wave").unwrap(),
        glb.animation("rest").unwrap(),
    );
    let channels = |a: usize| {
        glb.json["animations"][a]["channels"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(channels(wave_i), channels(rest_i));
    // With no animation playing the file shows the first clip's start.
    let still = glb.draw(None, 0.0);
    let at0 = glb.draw(Some(wave_i), 0.0);
    for (a, b) in still.iter().zip(&at0) {
        for (p, q) in a.positions.iter().zip(&b.positions) {
            assert!(p.distance(*q) < 1e-5);
        }
    }
}

#[test]
fn arma_lever_sample_plain_and_binarised() {
    let tmp = common::tempdir("gltf-lever");
    let dir = samples().join("arma/kiln_lever");
    let mut spec = ModelSpec::new(dir.join("kiln_lever.p3d"));
    spec.animation.duration = Some(1.5);
    let plain = dir.join("anim/kiln_lever_swing.rtm");
    let (glb, report) = export(&spec, &[whole("swing", Some(&plain))], &tmp, "plain.glb");
    let model = Model::load(&spec).unwrap();
    compare(
        &glb,
        "swing",
        &model.animated(plain.as_path()).unwrap(),
        0.0,
        13,
        tolerance(&report, "swing"),
        &tmp,
    );

    spec.animation.skeleton = Some(SkeletonSpec::Config {
        config: FileRef::from(dir.join("model.cfg").as_path()),
        class: "KilnLeverSkeleton".into(),
    });
    let binarised = dir.join("anim/kiln_lever_swing_bin.rtm");
    let (glb, report) = export(&spec, &[whole("swing", Some(&binarised))], &tmp, "bin.glb");
    let model = Model::load(&spec).unwrap();
    compare(
        &glb,
        "swing",
        &model.animated(binarised.as_path()).unwrap(),
        0.0,
        13,
        tolerance(&report, "swing"),
        &tmp,
    );
    // Bones are joints under the model's root: one skin.
    assert_eq!(glb.json["skins"].as_array().unwrap().len(), 1);
}

#[test]
fn grimrock_2_corpus_models_with_their_animations() {
    let Some(dir) = common::corpus(NEXUS) else {
        return;
    };
    let tmp = common::tempdir("gltf-nexus");
    let sets: [(&str, &[&str]); 3] = [
        ("rc_lever", &["rc_lever_up", "rc_lever_down"]),
        ("rc_button", &["rc_button_press"]),
        (
            "rc_molten_floaty",
            &[
                "rc_molten_floaty_idle",
                "rc_molten_floaty_move",
                "rc_molten_floaty_start",
            ],
        ),
    ];
    for (model_name, anims) in sets {
        let spec = ModelSpec::new(dir.join(format!("models/env/{model_name}.model")));
        let files: Vec<PathBuf> = anims
            .iter()
            .map(|a| dir.join(format!("animations/{a}.animation")))
            .collect();
        let clips: Vec<ExportClip> = anims
            .iter()
            .zip(&files)
            .map(|(a, f)| whole(a, Some(f)))
            .collect();
        let (glb, report) = export(&spec, &clips, &tmp, &format!("{model_name}.glb"));
        assert_eq!(glb.animation_names(), *anims);
        let model = Model::load(&spec).unwrap();
        for (a, f) in anims.iter().zip(&files) {
            compare(
                &glb,
                a,
                &model.animated(f.as_path()).unwrap(),
                0.0,
                11,
                tolerance(&report, a),
                &tmp,
            );
        }
    }
}

/// The DayZ skeleton, as a spec's bone list.
fn dayz_skeleton(dayz: &Path) -> SkeletonSpec {
    SkeletonSpec::Config {
        config: FileRef::from(dayz.join("Legacy/dayz_anim/zmb/model.cfg").as_path()),
        class: "OFP2_ManSkeleton".into(),
    }
}

#[test]
fn agm_rig_with_the_dayz_zombie_walk_binarised_and_plain() {
    let (Some(agm), Some(dayz)) = (common::corpus(AGM), common::corpus(DAYZ)) else {
        return;
    };
    let tmp = common::tempdir("gltf-agm-zombie");
    let mut spec = ModelSpec::new(agm.join("AGM_FastRoping/animbase/agm_fastroping.p3d"));
    spec.animation.duration = Some(1.5);
    spec.animation.skeleton = Some(dayz_skeleton(&dayz));
    let bin = dayz.join("SQF/dayz_anim/zmb/zombie2_walk.rtm");
    let plain = dayz.join("Legacy/dayz_anim/zmb/zombie2_walk.rtm");
    let clips = [whole("walk", Some(&bin)), whole("walk_plain", Some(&plain))];
    let (glb, report) = export(&spec, &clips, &tmp, "agm_zombie.glb");
    let model = Model::load(&spec).unwrap();
    // Both name the skeleton's bones, so they bind alike and each clip is
    // what kiln poses from its file alone.
    compare(
        &glb,
        "walk",
        &model.animated(bin.as_path()).unwrap(),
        0.0,
        23,
        tolerance(&report, "walk"),
        &tmp,
    );
    compare(
        &glb,
        "walk_plain",
        &model.animated(plain.as_path()).unwrap(),
        0.0,
        23,
        tolerance(&report, "walk_plain"),
        &tmp,
    );
    let skin = &glb.json["skins"][0];
    assert!(skin["joints"].as_array().unwrap().len() >= 40);
}

#[test]
fn agm_rig_with_plain_rtms_of_its_own_and_others() {
    let (Some(agm), Some(dayz)) = (common::corpus(AGM), common::corpus(DAYZ)) else {
        return;
    };
    let tmp = common::tempdir("gltf-agm-plain");
    let spec = ModelSpec::new(agm.join("AGM_FastRoping/animbase/agm_fastroping.p3d"));
    let model = Model::load(&spec).unwrap();
    for (name, file) in [
        ("rope", agm.join("AGM_FastRoping/data/agm_fastroping.rtm")),
        ("wipe", agm.join("AGM_Goggles/anim/WipeGlasses.rtm")),
        ("walk", dayz.join("Legacy/dayz_anim/zmb/zombie2_walk.rtm")),
    ] {
        let (glb, report) = export(
            &spec,
            &[whole(name, Some(&file))],
            &tmp,
            &format!("{name}.glb"),
        );
        compare(
            &glb,
            name,
            &model.animated(file.as_path()).unwrap(),
            0.0,
            13,
            tolerance(&report, name),
            &tmp,
        );
    }
    // The binarised idle and death, through the skeleton.
    let mut spec = spec.clone();
    spec.animation.skeleton = Some(dayz_skeleton(&dayz));
    let model = Model::load(&spec).unwrap();
    for (name, file) in [
        (
            "idle",
            dayz.join("SQF/dayz_anim/zmb/zombie_idle_4_loop.rtm"),
        ),
        ("death", dayz.join("SQF/dayz_anim/zmb/zmbStandDeath2.rtm")),
    ] {
        let (glb, report) = export(
            &spec,
            &[whole(name, Some(&file))],
            &tmp,
            &format!("{name}.glb"),
        );
        compare(
            &glb,
            name,
            &model.animated(file.as_path()).unwrap(),
            0.0,
            13,
            tolerance(&report, name),
            &tmp,
        );
    }
}

#[test]
fn kiln_export_clip_on_the_command_line() {
    let tmp = common::tempdir("gltf-cli");
    let root = samples().join("grimrock/mod_assets");
    let model = root.join("models/kiln_tentacle.model");
    let wave = root.join("animations/kiln_tentacle_wave.animation");
    let (m, w) = (model.to_str().unwrap(), wave.to_str().unwrap());
    let o = common::kiln(
        &[
            "export",
            m,
            "--clip",
            "--animation",
            w,
            "--clip-name",
            "sway",
            "-o",
            "t.glb",
        ],
        &tmp,
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("with 1 animation(s): sway ("),
        "{}",
        common::stderr(&o)
    );
    let glb = Gltf::read(&tmp.join("t.glb"));
    assert_eq!(glb.animation_names(), ["sway"]);
    // The clip at some instants is what `kiln export --time` writes.
    let a = glb.animation("sway").unwrap();
    for t in ["0", "0.3", "0.77"] {
        let o = common::kiln(
            &["export", m, "--animation", w, "--time", t, "-o", "p.glb"],
            &tmp,
        );
        assert!(o.status.success(), "{}", common::stderr(&o));
        let kiln = Gltf::read(&tmp.join("p.glb")).draw(None, 0.0);
        let ours = glb.draw(Some(a), t.parse().unwrap());
        let (d, _) = distance(&ours, &kiln);
        assert!(d / size(&kiln) < 1e-4, "at {t}: {d}");
    }
    // Without a clip name, the animation is named after its file.
    let o = common::kiln(
        &["export", m, "--clip", "--animation", w, "-o", "u.glb"],
        &tmp,
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(
        Gltf::read(&tmp.join("u.glb")).animation_names(),
        ["kiln_tentacle_wave"]
    );

    let refused = |args: &[&str], says: &str| {
        let o = common::kiln(args, &tmp);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", common::stderr(&o));
        assert!(
            common::stderr(&o).contains(says),
            "{args:?}: {}",
            common::stderr(&o)
        );
    };
    refused(
        &["export", m, "--clip", "--animation", w, "-o", "t.obj"],
        "must end in .glb",
    );
    refused(
        &["export", m, "--clip", "-o", "t.glb"],
        "has no animation of its own",
    );
    refused(
        &[
            "export",
            m,
            "--clip",
            "--animation",
            w,
            "--clip-name",
            "a",
            "--clip-name",
            "b",
            "-o",
            "t.glb",
        ],
        "2 --clip-name for 1 clip(s)",
    );
    refused(
        &[
            "export",
            m,
            "--animation",
            w,
            "--animation",
            w,
            "-o",
            "t.glb",
        ],
        "--animation is given 2 times",
    );
    refused(
        &["export", m, "--clip", "--time", "1", "-o", "t.glb"],
        "cannot be used with",
    );
    refused(&["export", m, "--clip-name", "a", "-o", "t.glb"], "--clip");
}

#[test]
fn recipe_jobs_write_gltf_clips() {
    let tmp = common::tempdir("gltf-recipe");
    let root = samples().join("grimrock/mod_assets");
    let recipe = tmp.join("r.yaml");
    std::fs::write(
        &recipe,
        format!(
            "jobs:\n  - name: tentacle\n    model: {model}\n    clips:\n      - {{ name: wave, animation: {wave}, fps: 15 }}\n      - {{ name: rest, time: 0 }}\n    output: {{ dir: out, sheet: false, gltf: \"{{name}}.glb\" }}\n  - name: windmill\n    model: {windmill}\n    clip: {{ fps: 5 }}\n    directions: 1\n    size: 16x16\n    output: {{ dir: out, gltf: \"{{name}}.glb\" }}\n",
            model = root.join("models/kiln_tentacle.model").display(),
            wave = root.join("animations/kiln_tentacle_wave.animation").display(),
            windmill = samples().join("data/model/kiln/windmill.rsm2").display(),
        ),
    )
    .unwrap();
    let report = kiln::bake_files(
        std::slice::from_ref(&recipe),
        &kiln::BakeOptions::default(),
        &kiln::NoProgress,
    )
    .unwrap();
    assert_eq!((report.succeeded(), report.failed()), (2, 0));
    let out = tmp.join("out");
    // The glTF-only job renders nothing.
    let tentacle = &report.jobs[0].result.as_ref().unwrap();
    assert_eq!(tentacle.images, 0);
    assert_eq!(tentacle.files, [out.join("tentacle.glb")]);
    let glb = Gltf::read(&out.join("tentacle.glb"));
    assert_eq!(glb.animation_names(), ["wave", "rest"]);
    // The same bytes as the library's export of the same clips.
    let spec = ModelSpec::new(root.join("models/kiln_tentacle.model"));
    let clips = [
        whole(
            "wave",
            Some(&root.join("animations/kiln_tentacle_wave.animation")),
        ),
        ExportClip {
            embedded: Default::default(),
            name: "rest".into(),
            animation: None,
            clip: Clip::Still { time: 0.0 },
        },
    ];
    Model::load(&spec)
        .unwrap()
        .export_animated(&clips, &tmp.join("lib.glb"))
        .unwrap();
    assert_eq!(
        std::fs::read(out.join("tentacle.glb")).unwrap(),
        std::fs::read(tmp.join("lib.glb")).unwrap()
    );
    // A job given `clip:` has one animation, named after the job, beside
    // its sheet.
    let windmill = &report.jobs[1].result.as_ref().unwrap();
    assert_eq!(windmill.images, 10);
    assert!(windmill.files.contains(&out.join("windmill.glb")));
    assert!(out.join("windmill.png").exists());
    assert_eq!(
        Gltf::read(&out.join("windmill.glb")).animation_names(),
        ["windmill"]
    );

    for (output, says) in [
        (
            "{ gltf: x.png }",
            "`output.gltf` must name a glTF binary file ending in .glb, got `x.png`",
        ),
        (
            "{ sheet: x.glb, gltf: x.glb }",
            "`output.gltf` and `output.sheet` are the same file",
        ),
    ] {
        let text = format!(
            "jobs:\n  - name: a\n    model: {}\n    output: {output}\n",
            samples().join("data/model/kiln/windmill.rsm2").display()
        );
        let e = kiln::Recipe::from_str(&text, Path::new("r.yaml")).unwrap_err();
        assert!(e.to_string().contains(says), "{e}");
    }
}
