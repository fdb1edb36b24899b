//! `kiln export --root-motion`: in place (the default) takes the root's
//! travel out of the exported animation and hands it on as extras; `keep`
//! leaves the animation as the file has it.

use crate::common;
use crate::gltf_eval::Gltf;

use kiln::{Clip, ExportClip, FileRef, Model, ModelSpec, RootMotion, Step};
use std::path::Path;

const WARRIOR: &str = "grimrock/grimrock+eob1-waterdeep/mod_assets/plugins/skeleton_warrior_axe";

fn walk_clip(file: &Path) -> ExportClip {
    ExportClip {
        embedded: Default::default(),
        name: "walk".into(),
        animation: Some(FileRef::from(file)),
        clip: Clip::Range {
            start: 0.0,
            end: None,
            step: Step::Fps(30.0),
        },
    }
}

/// The hip's sideways distance from where it starts, at 91 times over the
/// clip, as the glTF reader poses the exported file.
fn hip_drift(glb: &Gltf) -> (f64, f64) {
    let a = glb.animation("walk").unwrap();
    let length = glb.animation_length(a);
    let at = |t: f64| glb.node_origin(Some(a), t, "hip").expect("a hip node");
    let start = at(0.0);
    let mut worst = 0.0f64;
    let mut travel = 0.0f64;
    for k in 0..=90 {
        let p = at(length * k as f64 / 90.0);
        let d = glam::DVec2::new(p.x - start.x, p.z - start.z).length();
        worst = worst.max(d);
        travel = travel.max((p - start).length());
    }
    (worst, travel)
}

#[test]
fn warrior_walk_exports_in_place_and_keep_keeps_the_travel() {
    let Some(dir) = common::corpus(WARRIOR) else {
        return;
    };
    let tmp = common::tempdir("export-root-motion");
    let walk = dir.join("animations/skeleton_warrior_axe_walk.animation");
    let mut spec = ModelSpec::new(dir.join("models/skeleton_warrior_axe.model"));
    let size = {
        let m = Model::load(&spec).unwrap();
        let s = kiln::internals::scene_of(&m);
        let pts: Vec<glam::Vec3> =
            kiln::internals::render::posed_points(&kiln::internals::scene::pose(s, 0.0)).collect();
        let lo = pts
            .iter()
            .fold(glam::Vec3::splat(f32::MAX), |a, p| a.min(*p));
        let hi = pts
            .iter()
            .fold(glam::Vec3::splat(f32::MIN), |a, p| a.max(*p));
        (hi - lo).length() as f64
    };

    // Keep: the hip walks three metres forward, as Blender and three.js show.
    spec.animation.root_motion = RootMotion::Keep;
    let keep_path = tmp.join("keep.glb");
    Model::load(&spec)
        .unwrap()
        .export_animated(&[walk_clip(&walk)], &keep_path)
        .unwrap();
    let keep = Gltf::read(&keep_path);
    let (drift, _) = hip_drift(&keep);
    assert!(drift > 2.9, "kept: the hip travels {drift} m");
    assert!(keep.json["animations"][0]["extras"]
        .get("rootMotion")
        .is_none());

    // In place: the hip stays within 1 % of the model's size of its start.
    spec.animation.root_motion = RootMotion::InPlace;
    let model = Model::load(&spec).unwrap();
    let place_path = tmp.join("in_place.glb");
    model
        .export_animated(&[walk_clip(&walk)], &place_path)
        .unwrap();
    let placed = Gltf::read(&place_path);
    let (drift, moved) = hip_drift(&placed);
    assert!(
        drift <= 0.01 * size,
        "in place: the hip drifts {drift} m on a model {size} m across"
    );
    // It still bobs and sways: the pose is animated, not frozen.
    assert!(moved > 0.0, "the hip does not move at all");
    // The travel removed is handed on: the hip, each key's time and the
    // offset taken out, the last one the whole walk forward.
    let extras = &placed.json["animations"][0]["extras"]["rootMotion"];
    assert_eq!(extras["node"], "hip");
    let times = extras["times"].as_array().unwrap();
    let offsets = extras["translation"].as_array().unwrap();
    assert_eq!(times.len(), offsets.len());
    assert!(times.len() >= 50, "{} keys", times.len());
    let last = offsets.last().unwrap().as_array().unwrap();
    let forward = (last[0].as_f64().unwrap().powi(2) + last[2].as_f64().unwrap().powi(2)).sqrt();
    assert!(forward > 2.9, "the extras carry {forward} m of travel");
    assert_eq!(last[1].as_f64().unwrap(), 0.0, "height is never taken out");

    // A posed export (`--time`) is in place too, and matches the clip.
    let posed = tmp.join("posed.glb");
    let t = 1.2;
    model
        .animated(walk.as_path())
        .unwrap()
        .export(t, &posed)
        .unwrap();
    let a = Gltf::read(&posed).draw(None, 0.0);
    let b = placed.draw(Some(0), t as f64);
    let worst = a
        .iter()
        .zip(&b)
        .flat_map(|(x, y)| x.positions.iter().zip(&y.positions))
        .map(|(p, q)| p.distance(*q))
        .fold(0.0, f64::max);
    assert!(worst <= 1e-3 * size, "posed and clip exports {worst} apart");
    let kept_posed = tmp.join("kept_posed.glb");
    spec.animation.root_motion = RootMotion::Keep;
    Model::load(&spec)
        .unwrap()
        .animated(walk.as_path())
        .unwrap()
        .export(t, &kept_posed)
        .unwrap();
    assert_ne!(
        std::fs::read(&kept_posed).unwrap(),
        std::fs::read(&posed).unwrap(),
        "keep and in-place write the same posed bytes"
    );
}
