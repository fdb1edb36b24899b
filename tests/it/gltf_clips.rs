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
    let scene = model.scene();
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
