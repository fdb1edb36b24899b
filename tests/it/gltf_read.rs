//! glTF 2.0 read by kiln: every Khronos sample of the corpus loads, with
//! the counts its JSON gives; the skinned, morphed and node-animated
//! samples pose as the independent evaluator in `gltf_eval` poses them;
//! every interpolation of InterpolationTest at and between its keys;
//! required extensions kiln lacks are refused; quantized strips and fans;
//! scenes by name. `gltf_read_back.rs` has the round trips and goldens.

use crate::common;
use crate::gltf_eval::Gltf;
use glam::{DVec3, Vec3};
use kiln::internals::scene::{self, animation, Model as Scene};
use kiln::{Model, ModelSpec};
use serde_json::Value;
use std::path::PathBuf;

const MODELS: &str = "gltf/DRx3D+glTF-Sample-Assets-OLD/Models";

/// Every `.gltf`/`.glb` of the corpus's Khronos samples, sorted.
fn corpus_files() -> Option<Vec<PathBuf>> {
    let root = common::corpus(MODELS)?;
    let mut out = Vec::new();
    for m in std::fs::read_dir(&root).unwrap() {
        for form in std::fs::read_dir(m.unwrap().path()).unwrap() {
            let form = form.unwrap().path();
            if !form.is_dir() {
                continue;
            }
            for f in std::fs::read_dir(&form).unwrap() {
                let f = f.unwrap().path();
                let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
                if ext == "gltf" || ext == "glb" {
                    out.push(f);
                }
            }
        }
    }
    out.sort();
    Some(out)
}

pub(crate) fn sample(name: &str) -> Option<PathBuf> {
    let root = common::corpus(MODELS)?;
    corpus_files()?
        .into_iter()
        .find(|f| f.file_stem().is_some_and(|s| s == name) && f.starts_with(&root))
}

/// The largest `max` of an animation's input accessors.
fn json_duration(json: &Value, a: usize) -> f64 {
    json["animations"][a]["samplers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            json["accessors"][s["input"].as_u64().unwrap() as usize]["max"][0]
                .as_f64()
                .unwrap()
        })
        .fold(0.0, f64::max)
}

/// Every primitive kiln draws, as its triangles' corners in kiln's world.
pub(crate) fn kiln_corners(model: &Scene, t: f32) -> Vec<Vec<[Vec3; 3]>> {
    let posed = scene::pose(model, t);
    posed
        .primitives
        .iter()
        .map(|p| {
            let pos = &posed.meshes[p.mesh].positions;
            p.triangles
                .iter()
                .map(|&[a, b, c]| [pos[a as usize], pos[b as usize], pos[c as usize]])
                .collect()
        })
        .collect()
}

/// Distance between two triangles, the same corners in any order (a
/// mirrored pose swaps the winding).
pub(crate) fn tri_distance(a: &[DVec3; 3], b: &[Vec3; 3]) -> f64 {
    let b = b.map(|v| v.as_dvec3());
    let perms = [
        [0, 1, 2],
        [1, 2, 0],
        [2, 0, 1],
        [0, 2, 1],
        [2, 1, 0],
        [1, 0, 2],
    ];
    perms
        .iter()
        .map(|p| (0..3).map(|k| a[k].distance(b[p[k]])).fold(0.0, f64::max))
        .fold(f64::INFINITY, f64::min)
}

pub(crate) fn extent(tris: &[Vec<[DVec3; 3]>]) -> f64 {
    let mut min = DVec3::splat(f64::INFINITY);
    let mut max = DVec3::splat(f64::NEG_INFINITY);
    for v in tris.iter().flatten().flatten() {
        min = min.min(*v);
        max = max.max(*v);
    }
    (max - min).max_element().max(1e-9)
}

/// The worst corner distance between kiln's pose and the evaluator's, as
/// a fraction of the model's size.
fn pose_error(g: &Gltf, model: &Scene, anim: Option<usize>, t: f64) -> f64 {
    let ours = g.draw_all(anim, t);
    let kiln = kiln_corners(model, t as f32);
    assert_eq!(ours.len(), kiln.len(), "primitives drawn");
    let size = extent(&ours);
    let mut worst = 0.0f64;
    for (a, b) in ours.iter().zip(&kiln) {
        assert_eq!(a.len(), b.len(), "triangles of a primitive");
        for (x, y) in a.iter().zip(b) {
            worst = worst.max(tri_distance(x, y));
        }
    }
    worst / size
}

/// Times to check an animation at: 0 and 97 instants over its length.
fn times(json: &Value, a: usize) -> Vec<f64> {
    let mut ts = vec![0.0];
    let d = json_duration(json, a);
    // Dense enough to land on and between the keys of every sample here.
    for k in 0..48 {
        ts.push(d * k as f64 / 48.0);
        ts.push(d * (k as f64 + 0.5) / 48.0);
    }
    ts
}

#[test]
fn every_corpus_sample_reads_with_the_counts_of_its_json() {
    let Some(files) = corpus_files() else {
        return;
    };
    assert_eq!(files.len(), 24, "{files:?}");
    for f in &files {
        let g = Gltf::read_any(f);
        let m = common::load(f);
        let name = f.file_name().unwrap().to_string_lossy();
        let nodes = g.json["nodes"].as_array().map_or(0, Vec::len);
        assert_eq!(m.nodes.len(), nodes, "{name}: nodes");
        // Triangles per primitive, counted by the evaluator from the
        // accessors and modes.
        let drawn = g.draw_all(None, 0.0);
        let kiln: Vec<usize> = m
            .meshes
            .iter()
            .map(|x| x.primitives[0].triangles.len())
            .collect();
        assert_eq!(
            kiln,
            drawn.iter().map(Vec::len).collect::<Vec<_>>(),
            "{name}: triangles"
        );
        let anims = g.json["animations"].as_array().map_or(0, Vec::len);
        assert_eq!(m.extras.takes.len(), anims, "{name}: animations");
        for (a, take) in m.extras.takes.iter().enumerate() {
            let d = json_duration(&g.json, a);
            assert!(
                (f64::from(take.duration) - d).abs() < 1e-6,
                "{name}: animation {a} lasts {} not {d}",
                take.duration
            );
            let channels = g.json["animations"][a]["channels"]
                .as_array()
                .unwrap()
                .len();
            let ours: usize = take
                .nodes
                .iter()
                .map(|(_, n)| {
                    [
                        n.translation.is_some(),
                        n.rotation.is_some(),
                        n.scale.is_some(),
                    ]
                    .iter()
                    .filter(|&&x| x)
                    .count()
                })
                .sum::<usize>()
                + usize::from(!take.morphs.is_empty());
            assert_eq!(ours, channels, "{name}: animation {a} channels");
        }
        if let Some(skins) = g.json["skins"].as_array() {
            for mesh in &m.meshes {
                if let Some(s) = &mesh.skin {
                    assert!(
                        skins
                            .iter()
                            .any(|k| k["joints"].as_array().unwrap().len() == s.joints.len()),
                        "{name}: joints"
                    );
                }
            }
        }
    }
}

#[test]
fn exact_counts_of_the_rigged_figure() {
    let Some(f) = sample("RiggedFigure") else {
        return;
    };
    let m = common::load(&f);
    assert_eq!(m.nodes.len(), 22);
    let skin = m.meshes[0].skin.as_ref().unwrap();
    assert_eq!(skin.joints.len(), 19);
    assert_eq!(m.extras.takes.len(), 1);
    assert!((m.extras.takes[0].duration - 1.25).abs() < 1e-6);
    assert!(
        (m.duration - 1.25).abs() < 1e-6,
        "the first animation plays"
    );
    let g = Gltf::read_any(&f);
    let verts = g.json["accessors"][g.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize]["count"]
        .as_u64()
        .unwrap();
    assert_eq!(m.meshes[0].positions.len() as u64, verts);
}

#[test]
fn skinned_morphed_and_animated_samples_pose_as_the_specification_says() {
    if corpus_files().is_none() {
        return;
    }
    for name in [
        "RiggedSimple",
        "RiggedFigure",
        "SimpleSkin",
        "BoxAnimated",
        "AnimatedTriangle",
        "AnimatedMorphCube",
        "SimpleMorph",
        "CesiumMilkTruck",
        "InterpolationTest",
        "SimpleSparseAccessor",
        "TriangleWithoutIndices",
        "OrientationTest",
        "BoxInterleaved",
    ] {
        let f = sample(name).unwrap();
        let g = Gltf::read_any(&f);
        let m = common::load(&f);
        // At rest: the model with no animation playing.
        let mut rest = m.clone();
        for n in &mut rest.nodes {
            n.anim = Default::default();
        }
        for morph in rest.extras.morphs.iter_mut().flatten() {
            morph.tracks.clear();
        }
        let mut worst = pose_error(&g, &rest, None, 0.0);
        for a in 0..m.extras.takes.len() {
            let taken = animation::take(&m, a).unwrap();
            for t in times(&g.json, a) {
                let e = pose_error(&g, &taken, Some(a), t);
                assert!(
                    e <= 1e-4,
                    "{name}: animation {a} at {t:.4} s: {e:.2e} of the model's size"
                );
                worst = worst.max(e);
            }
        }
        println!("{name}: worst pose error {worst:.2e} of the model's size");
    }
}

#[test]
fn interpolation_test_every_mode_at_and_between_its_keys() {
    let Some(f) = sample("InterpolationTest") else {
        return;
    };
    let g = Gltf::read_any(&f);
    let m = common::load(&f);
    let names: Vec<&str> = m.extras.takes.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Step Scale",
            "Linear Scale",
            "CubicSpline Scale",
            "Step Rotation",
            "CubicSpline Rotation",
            "Linear Rotation",
            "Step Translation",
            "CubicSpline Translation",
            "Linear Translation"
        ]
    );
    for (a, take) in m.extras.takes.iter().enumerate() {
        let taken = animation::take(&m, a).unwrap();
        let (_, anim) = &take.nodes[0];
        let keys: Vec<f32> = anim
            .translation
            .as_ref()
            .or(anim.scale.as_ref())
            .map(|t| t.times.clone())
            .or_else(|| anim.rotation.as_ref().map(|t| t.times.clone()))
            .unwrap();
        assert!(keys.len() >= 2);
        let mut ts: Vec<f64> = keys.iter().map(|&k| f64::from(k)).collect();
        ts.extend(
            keys.windows(2)
                .flat_map(|w| [0.25, 0.5, 0.8].map(|s| f64::from(w[0] + (w[1] - w[0]) * s))),
        );
        for t in ts {
            let e = pose_error(&g, &taken, Some(a), t);
            assert!(e <= 1e-5, "{}: at {t:.4} s: {e:.2e}", take.name);
        }
    }
    // A step holds: just before a key still the previous value.
    let step = animation::take(&m, 0).unwrap();
    let k = step.extras.takes[0].nodes[0]
        .1
        .scale
        .as_ref()
        .unwrap()
        .times[1];
    let before = kiln_corners(&step, k - 1e-3);
    let start = kiln_corners(&step, 0.0);
    assert_eq!(before, start);
}

#[test]
fn a_required_extension_kiln_lacks_is_refused_naming_it() {
    let dir = common::tempdir("gltf-required");
    // One triangle, its buffer a data URI: three positions, floats.
    let positions: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let b64 = base64(&positions);
    let doc = |required: &str, used: &str| {
        format!(
            r#"{{"asset":{{"version":"2.0"}},"extensionsUsed":[{used}],"extensionsRequired":[{required}],
            "buffers":[{{"byteLength":36,"uri":"data:application/octet-stream;base64,{b64}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":36}}],
            "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
            "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}],"scene":0}}"#
        )
    };
    let refused = dir.join("draco.gltf");
    std::fs::write(
        &refused,
        doc(
            r#""KHR_draco_mesh_compression""#,
            r#""KHR_draco_mesh_compression""#,
        ),
    )
    .unwrap();
    let out = dir.join("draco.png");
    let o = common::kiln(
        &[
            "render",
            refused.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        &dir,
    );
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("KHR_draco_mesh_compression"),
        "{}",
        common::stderr(&o)
    );
    assert!(!out.exists());
    // Used but not required: drawn, and inspect says it is ignored.
    let optional = dir.join("optional.gltf");
    std::fs::write(&optional, doc("", r#""EXT_some_vendor_thing""#)).unwrap();
    let o = common::kiln(
        &[
            "render",
            optional.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    let o = common::kiln(&["inspect", optional.to_str().unwrap()], &dir);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("extension EXT_some_vendor_thing: used, ignored"),
        "{text}"
    );
    // Its triangle: three vertices, one triangle, flat normals facing +z.
    let m = common::load(&optional);
    assert_eq!(m.meshes[0].positions.len(), 3);
    assert_eq!(m.meshes[0].normals, vec![Vec3::Z; 3]);
}

pub(crate) fn base64(b: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in b.chunks(3) {
        let v = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= c.len() {
                s.push(A[(v >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

#[test]
fn inspect_json_gives_scenes_skins_animations_and_extensions() {
    let Some(f) = sample("RiggedFigure") else {
        return;
    };
    let dir = common::tempdir("gltf-inspect");
    let o = common::kiln(&["inspect", "--json", f.to_str().unwrap()], &dir);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = &j["details"];
    assert_eq!(d["counts"]["nodes"], 22);
    assert_eq!(d["skins"][0]["joints"].as_array().unwrap().len(), 19);
    assert_eq!(d["animations"][0]["channels"].as_array().unwrap().len(), 57);
    assert!((d["animations"][0]["duration"].as_f64().unwrap() - 1.25).abs() < 1e-6);
    assert_eq!(d["animations"][0]["channels"][0]["interpolation"], "LINEAR");
    let Some(u) = sample("UnlitTest") else { return };
    let o = common::kiln(&["inspect", "--json", u.to_str().unwrap()], &dir);
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        j["details"]["extensions_required"],
        serde_json::json!(["KHR_materials_unlit"])
    );
    let unlit = common::load(&u);
    assert!(unlit.materials[..2].iter().all(|m| m.unlit));
}

#[test]
fn clips_all_and_embedded_in_a_recipe() {
    let Some(f) = sample("InterpolationTest") else {
        return;
    };
    let dir = common::tempdir("gltf-recipe-clips");
    let recipe = dir.join("r.yaml");
    std::fs::write(
        &recipe,
        format!(
            "jobs:\n  - name: all\n    model: {m}\n    size: 32\n    directions: 1\n    clips: all\n  - name: one\n    model: {m}\n    size: 32\n    directions: 1\n    clips:\n      - {{ name: spin, embedded: CubicSpline Rotation, fps: 4 }}\n      - {{ embedded: \"8\", fps: 4 }}\n",
            m = f.display()
        ),
    )
    .unwrap();
    let jobs = kiln::Recipe::load(&recipe).unwrap().jobs().unwrap();
    let all: Vec<&str> = jobs[0].clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(all.len(), 9);
    assert_eq!(all[0], "Step Scale");
    assert_eq!(jobs[0].clips[4].embedded.as_deref(), Some("4"));
    let one: Vec<&str> = jobs[1].clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(one, ["spin", "8"]);
    let o = common::kiln(&["bake", recipe.to_str().unwrap()], &dir);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let meta: Value =
        serde_json::from_slice(&std::fs::read(dir.join("out/one/one.json")).unwrap()).unwrap();
    let frames = meta["frames"].as_object().unwrap();
    // CubicSpline Rotation lasts 1.708 s: 7 frames at 4 fps.
    assert_eq!(frames.keys().filter(|k| k.contains("_spin_")).count(), 7);
    let bad = dir.join("bad.yaml");
    std::fs::write(
        &bad,
        format!(
            "jobs:\n  - name: x\n    model: {}\n    clips: [{{ embedded: Nope }}]\n",
            f.display()
        ),
    )
    .unwrap();
    let o = common::kiln(&["bake", bad.to_str().unwrap()], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        common::stderr(&o).contains("no animation \"Nope\""),
        "{}",
        common::stderr(&o)
    );
}

#[test]
fn quantized_strips_and_fans_read_as_the_specification_numbers_them() {
    let dir = common::tempdir("gltf-quantized");
    // Four positions as normalised i16 (KHR_mesh_quantization), padded to
    // 8 bytes each; fan indices as u8.
    let mut bin: Vec<u8> = Vec::new();
    for p in [
        [0i16, 0, 0],
        [32767, 0, 0],
        [0, 32767, 0],
        [32767, 32767, -16384],
    ] {
        for c in p {
            bin.extend_from_slice(&c.to_le_bytes());
        }
        bin.extend_from_slice(&[0, 0]);
    }
    bin.extend_from_slice(&[0, 1, 2, 3]);
    let doc = format!(
        r#"{{"asset":{{"version":"2.0"}},"extensionsUsed":["KHR_mesh_quantization"],"extensionsRequired":["KHR_mesh_quantization"],
        "buffers":[{{"byteLength":{len},"uri":"data:application/gltf-buffer;base64,{b64}"}}],
        "bufferViews":[{{"buffer":0,"byteLength":32,"byteStride":8}},{{"buffer":0,"byteOffset":32,"byteLength":4}}],
        "accessors":[{{"bufferView":0,"componentType":5122,"normalized":true,"count":4,"type":"VEC3"}},
                     {{"bufferView":1,"componentType":5121,"count":4,"type":"SCALAR"}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"mode":5}},{{"attributes":{{"POSITION":0}},"indices":1,"mode":6}},{{"attributes":{{"POSITION":0}},"mode":1}}]}}],
        "nodes":[{{"mesh":0,"matrix":[2,0,0,0, 0,2,0,0, 0,0,2,0, 1,0,0,1]}}],"scenes":[{{"nodes":[0]}}]}}"#,
        len = bin.len(),
        b64 = base64(&bin)
    );
    let file = dir.join("q.gltf");
    std::fs::write(&file, doc).unwrap();
    let m = common::load(&file);
    assert_eq!(m.meshes.len(), 2, "the lines primitive is skipped");
    assert!(
        m.warnings.iter().any(|w| w.contains("mode 1 (lines)")),
        "{:?}",
        m.warnings
    );
    // No normals: every triangle has its own corners (flat normals).
    let corners = |mesh: &kiln::internals::scene::Mesh| -> Vec<[Vec3; 3]> {
        let p = &mesh.positions;
        mesh.primitives[0]
            .triangles
            .iter()
            .map(|t| t.map(|i| p[i as usize]))
            .collect()
    };
    let v = [
        Vec3::ZERO,
        Vec3::X,
        Vec3::Y,
        Vec3::new(1.0, 1.0, -16384.0 / 32767.0),
    ];
    // Strip: (0 1 2), then (2 1 3) — every other triangle turned.
    assert_eq!(
        corners(&m.meshes[0]),
        vec![[v[0], v[1], v[2]], [v[2], v[1], v[3]]]
    );
    // Fan: (0 1 2), (0 2 3).
    assert_eq!(
        corners(&m.meshes[1]),
        vec![[v[0], v[1], v[2]], [v[0], v[2], v[3]]]
    );
    assert_eq!(m.meshes[0].normals[0], Vec3::Z);
    // The node's matrix places them: x2, then +1 in x.
    let posed = scene::pose(&m, 0.0);
    assert_eq!(posed.meshes[0].positions[1], Vec3::new(3.0, 0.0, 0.0));
    assert_eq!(
        posed.meshes[0].positions[5],
        Vec3::new(3.0, 2.0, -2.0 * 16384.0 / 32767.0)
    );
}

#[test]
fn a_scene_is_chosen_by_name_or_index() {
    let dir = common::tempdir("gltf-scenes");
    let positions: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let doc = format!(
        r#"{{"asset":{{"version":"2.0"}},
        "buffers":[{{"byteLength":36,"uri":"data:,{uri}"}}],
        "bufferViews":[{{"buffer":0,"byteLength":36}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
        "nodes":[{{"mesh":0}},{{"mesh":0,"translation":[5,0,0]}},{{"mesh":0,"translation":[9,0,0]}}],
        "scenes":[{{"name":"near","nodes":[0]}},{{"name":"far","nodes":[1,2]}}],"scene":0}}"#,
        // A data URI without base64: the bytes percent-encoded.
        uri = positions
            .iter()
            .map(|b| format!("%{b:02X}"))
            .collect::<String>()
    );
    let file = dir.join("scenes.gltf");
    std::fs::write(&file, doc).unwrap();
    let xs = |spec: &ModelSpec| -> Vec<f32> {
        let m = common::scene_of(spec);
        let posed = scene::pose(&m, 0.0);
        posed.meshes.iter().map(|p| p.positions[0].x).collect()
    };
    let mut spec = ModelSpec::new(file.as_path());
    assert_eq!(xs(&spec), [0.0], "the default scene");
    for wanted in ["far", "FAR", "1"] {
        spec.scene = Some(wanted.into());
        assert_eq!(xs(&spec), [5.0, 9.0], "{wanted}");
    }
    spec.scene = Some("nowhere".into());
    let e = Model::load(&spec).unwrap_err().to_string();
    assert!(
        e.contains("no scene \"nowhere\"; the file holds 0 \"near\", 1 \"far\""),
        "{e}"
    );
    let o = common::kiln(
        &[
            "render",
            file.to_str().unwrap(),
            "--scene",
            "far",
            "-o",
            dir.join("far.png").to_str().unwrap(),
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
}
