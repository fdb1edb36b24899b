//! Grimrock models and animations lowered, posed and rendered.

use crate::common;

use glam::{Mat4, Vec3};
use kiln::internals::scene;
use kiln::internals::spec::{ModelSpec, RestPose};
use std::path::{Path, PathBuf};

const WARRIOR: &str = "grimrock/grimrock+eob1-waterdeep/mod_assets/plugins/skeleton_warrior_axe";

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/grimrock/mod_assets")
}

fn max_abs_diff(a: Mat4, b: Mat4) -> f32 {
    a.to_cols_array()
        .iter()
        .zip(b.to_cols_array())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn points(posed: &scene::PosedModel) -> Vec<Vec3> {
    kiln::internals::render::posed_points(posed).collect()
}

#[test]
fn warrior_rest_pose_cancels_the_inverse_rest_matrices() {
    let Some(dir) = common::corpus(WARRIOR) else {
        return;
    };
    let path = dir.join("models/skeleton_warrior_axe.model");
    let model = common::load(&path);
    let worlds = scene::pose::node_worlds(&model, 0.0);
    let mut checked = 0;
    let mut worst = 0.0f32;
    for mesh in &model.meshes {
        let Some(skin) = &mesh.skin else { continue };
        for (&j, ib) in skin.joints.iter().zip(&skin.inverse_bind) {
            let d = max_abs_diff(worlds[j] * *ib, Mat4::IDENTITY);
            worst = worst.max(d);
            assert!(
                d < 1e-4,
                "bone {}: world·invRest differs from I by {d}",
                model.nodes[j].name
            );
            checked += 1;
        }
    }
    assert_eq!(
        model.meshes.iter().filter(|m| m.skin.is_some()).count(),
        2,
        "two skinned meshes"
    );
    assert!(checked >= 25, "{checked} bones checked");
    // Skinned positions equal the stored ones (through the display mirror).
    let posed = scene::pose(&model, 0.0);
    let mut worst_v = 0.0f32;
    for (mi, mesh) in model.meshes.iter().enumerate() {
        if mesh.skin.is_none() {
            continue;
        }
        for (p, q) in mesh.positions.iter().zip(posed.meshes[mi].positions.iter()) {
            worst_v = worst_v.max(
                (model.display.transform_point3(*p) - *q)
                    .abs()
                    .max_element(),
            );
        }
    }
    assert!(worst_v < 1e-4, "skinned rest positions differ by {worst_v}");
    println!("warrior rest pose: worst |world·invRest − I| = {worst}, worst vertex {worst_v}");
}

#[test]
fn warrior_walk_keeps_the_feet_on_the_ground() {
    let Some(dir) = common::corpus(WARRIOR) else {
        return;
    };
    let walk = common::animated(
        &ModelSpec::new(dir.join("models/skeleton_warrior_axe.model")),
        &dir.join("animations/skeleton_warrior_axe_walk.animation"),
    )
    .unwrap();
    assert!((walk.frame_rate - 30.0).abs() < 1e-6);
    let frames = (walk.duration * walk.frame_rate).round() as usize;
    assert!(frames > 10, "{frames} frames");
    let mut lows = Vec::new();
    for f in 0..frames {
        let posed = scene::pose(&walk, f as f32 / walk.frame_rate);
        let low = points(&posed)
            .iter()
            .map(|p| p.y)
            .fold(f32::INFINITY, f32::min);
        assert!(low.abs() <= 0.05, "frame {f}: lowest vertex at y = {low}");
        lows.push(low);
    }
    // The walk animates: poses differ between frames.
    let a = points(&scene::pose(&walk, 0.0));
    let b = points(&scene::pose(&walk, 0.5 * walk.duration));
    assert!(a.iter().zip(&b).any(|(p, q)| (*p - *q).length() > 0.05));
}

#[test]
fn every_corpus_model_loads_and_renders_and_every_animation_applies() {
    let Some(root) = common::corpus("grimrock") else {
        return;
    };
    let mut stack = vec![root];
    let (mut models, mut anims) = (Vec::new(), Vec::new());
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            match p.extension().and_then(|e| e.to_str()) {
                _ if p.is_dir() => stack.push(p),
                Some("model") => models.push(p),
                Some("animation") => anims.push(p),
                _ => {}
            }
        }
    }
    models.sort();
    anims.sort();
    assert_eq!((models.len(), anims.len()), (11, 10));
    let opts = kiln::internals::raster::RenderOptions {
        width: 40,
        height: 40,
        supersample: 1,
        background: [0, 0, 0, 0],
    };
    for path in &models {
        let model = common::load(path);
        let posed = scene::pose(&model, 0.0);
        let pts = points(&posed);
        if pts.is_empty() {
            continue; // empty_object_gate: nodes only
        }
        let cam = kiln::internals::camera::fit_cameras(
            &pts,
            &[(30.0, 20.0)],
            1.0,
            &kiln::internals::camera::Framing::default(),
        )[0];
        let light = kiln::internals::raster::Light {
            direction: Vec3::Y,
            color: Vec3::splat(0.6),
            ambient: Vec3::splat(0.4),
        };
        let img = kiln::internals::render::render_posed(&model, &posed, &cam, &light, &opts);
        assert!(
            img.pixels().filter(|p| p[3] > 0).count() > 30,
            "{} draws nothing",
            path.display()
        );
    }
    for path in &anims {
        let a = kiln::internals::inspect::inspect(&path.as_path().into(), &[], None).unwrap();
        assert!(
            a.animation.duration_seconds > 0.0 && !a.nodes.is_empty(),
            "{}",
            path.display()
        );
    }
}

#[test]
fn button_press_names_nodes_the_model_lacks() {
    let Some(dir) = common::corpus("grimrock/7Soul+log2_the_old_nexus/mod_assets/fire_cave") else {
        return;
    };
    let pressed = common::animated(
        &ModelSpec::new(dir.join("models/env/rc_button.model")),
        &dir.join("animations/rc_button_press.animation"),
    )
    .unwrap();
    assert!(
        pressed.warnings.iter().any(|w| w.contains("name no node")),
        "{:?}",
        pressed.warnings
    );
    assert!((pressed.frame_rate - 24.0).abs() < 1e-6);
}

#[test]
fn bind_pose_option_draws_the_stored_vertices() {
    let Some(dir) = common::corpus(WARRIOR) else {
        return;
    };
    let mut spec = ModelSpec::new(dir.join("models/skeleton_warrior_axe.model"));
    spec.pose = RestPose::Bind;
    let model = common::scene_of(&spec);
    assert!(model.meshes.iter().all(|m| m.skin.is_none()));
    let posed = scene::pose(&model, 0.0);
    for (mi, mesh) in model.meshes.iter().enumerate() {
        for (p, q) in mesh.positions.iter().zip(posed.meshes[mi].positions.iter()) {
            assert!(
                (model.display.transform_point3(*p) - *q).length() < 1e-4
                    || mesh.node < model.nodes.len()
            );
        }
    }
}

#[test]
fn sample_sign_reads_as_an_f_from_the_front() {
    let model = common::load(&samples().join("models/kiln_sign.model"));
    assert_eq!(model.warnings, Vec::<String>::new());
    let posed = scene::pose(&model, 0.0);
    let cam = kiln::internals::camera::fit_cameras(
        &points(&posed),
        &[(0.0, 0.0)],
        1.0,
        &kiln::internals::camera::Framing::default(),
    )[0];
    let light = kiln::internals::raster::Light {
        direction: Vec3::new(-0.3, 0.5, 0.8).normalize(),
        color: Vec3::splat(0.6),
        ambient: Vec3::splat(0.45),
    };
    let opts = kiln::internals::raster::RenderOptions {
        width: 64,
        height: 64,
        supersample: 2,
        background: [0, 0, 0, 0],
    };
    let img = kiln::internals::render::render_posed(&model, &posed, &cam, &light, &opts);
    common::assert_golden("grimrock/sign_front", &img);
    // Independent of the golden: the stem is on the left, the bars reach right.
    let span = |rows: std::ops::Range<u32>| {
        let mut xs = Vec::new();
        for y in rows {
            xs.extend((0..64).filter(|&x| img.get_pixel(x, y)[3] > 128));
        }
        (*xs.iter().min().unwrap(), *xs.iter().max().unwrap())
    };
    let (stem_l, stem_r) = span(44..58); // below the middle bar: stem only
    let (top_l, top_r) = span(6..10); // the top bar
    assert!(
        stem_r < 32,
        "stem at {stem_l}..{stem_r} should be left of centre"
    );
    assert!(
        top_r > stem_r + 15 && top_l <= stem_l + 1,
        "top bar {top_l}..{top_r} vs stem {stem_l}..{stem_r}"
    );
}

#[test]
fn sample_tentacle_waves() {
    let model = common::load(&samples().join("models/kiln_tentacle.model"));
    assert_eq!(model.warnings, Vec::<String>::new());
    let wave = common::animated(
        &ModelSpec::new(samples().join("models/kiln_tentacle.model")),
        &samples().join("animations/kiln_tentacle_wave.animation"),
    )
    .unwrap();
    assert!((wave.duration - 1.0).abs() < 1e-6);
    let tip = |t: f32| {
        let pts = points(&scene::pose(&wave, t));
        pts.into_iter()
            .fold(Vec3::splat(f32::NEG_INFINITY), |a, p| {
                if p.y > a.y {
                    p
                } else {
                    a
                }
            })
    };
    // The tip sways to both sides over the loop and comes back.
    let xs: Vec<f32> = (0..30).map(|f| tip(f as f32 / 30.0).x).collect();
    assert!(xs.iter().cloned().fold(f32::MIN, f32::max) > 0.5);
    assert!(xs.iter().cloned().fold(f32::MAX, f32::min) < -0.5);
    assert!((tip(0.0) - tip(1.0)).length() < 1e-4, "loops");
    // The base ring turns about its own centre, which stays at the origin.
    let base = |t: f32| {
        let posed = scene::pose(&wave, t);
        let ring = &posed.meshes[0].positions[..8];
        ring.iter().copied().sum::<Vec3>() / ring.len() as f32
    };
    assert!(
        base(0.3).length() < 1e-4 && base(0.7).length() < 1e-4,
        "{} {}",
        base(0.3),
        base(0.7)
    );
}
