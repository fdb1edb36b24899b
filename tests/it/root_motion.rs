//! Sprites an engine takes as they are: clips drawn in place with their
//! travel in the metadata, one scale for a set of models (framing groups,
//! pixels per unit), and one-shot clips that end on their last pose.

use crate::common::{self, tempdir};
use image::RgbaImage;
use std::path::{Path, PathBuf};

const WARRIOR: &str = "grimrock/grimrock+eob1-waterdeep/mod_assets/plugins/skeleton_warrior_axe";
const AGM: &str = "arma/KoffeinFlummi+AGM/AGM_FastRoping";
const DAYZ: &str = "arma/earlbalai+DayZ-Source";

/// Bakes `recipe` (written as `r.yaml` in `dir`) and panics on any failure.
fn bake(dir: &Path, recipe: &str) {
    let path = dir.join("r.yaml");
    std::fs::write(&path, recipe).unwrap();
    let report = kiln::bake_files(&[&path], &kiln::BakeOptions::default(), &kiln::NoProgress)
        .unwrap_or_else(|e| panic!("{e}"));
    for j in &report.jobs {
        assert!(j.result.is_ok(), "{}: {:?}", j.label(), j.result);
    }
}

fn png(path: &Path) -> RgbaImage {
    image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgba8()
}

/// The box of the pixels with any alpha: `(x0, y0, x1, y1)`, inclusive.
fn bounds(img: &RgbaImage) -> (u32, u32, u32, u32) {
    let mut b = (u32::MAX, u32::MAX, 0, 0);
    for (x, y, p) in img.enumerate_pixels() {
        if p.0[3] > 0 {
            b = (b.0.min(x), b.1.min(y), b.2.max(x), b.3.max(y));
        }
    }
    assert!(b.0 <= b.2, "empty frame");
    b
}

fn spread(xs: &[f32]) -> f32 {
    xs.iter().cloned().fold(f32::MIN, f32::max) - xs.iter().cloned().fold(f32::MAX, f32::min)
}

fn centre_x(img: &RgbaImage) -> f32 {
    let b = bounds(img);
    (b.0 + b.2) as f32 * 0.5
}

fn frames_in(dir: &Path) -> Vec<RgbaImage> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("f_"))
        })
        .collect();
    // `{frame:03}` names sort in frame order.
    files.sort();
    files.iter().map(|p| png(p)).collect()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The `rootMotion.x` of every frame of the JSON hash, in sheet order.
fn root_motion_x(meta: &serde_json::Value) -> Vec<f64> {
    meta["frames"]
        .as_object()
        .unwrap()
        .values()
        .map(|f| f["rootMotion"]["x"].as_f64().expect("rootMotion per frame"))
        .collect()
}

/// The skeleton warrior's walk carries its hip three metres forward per
/// cycle. Baked in place and seen from the side, the sprite stays put: its
/// box centre moves at most 2 px from the first frame to the last, where
/// kept it crosses 58 px, and within the clip only by the swing of legs
/// and axe around the pinned hip (at most 8 px here). The metadata's
/// per-frame root motion adds up to the hip's travel in the file, at the
/// recipe's 20 pixels per metre.
#[test]
fn warrior_walk_in_place_keeps_its_box_and_reports_its_travel() {
    let Some(w) = common::corpus(WARRIOR) else {
        return;
    };
    let tmp = tempdir("rm-warrior");
    let walk = w.join("animations/skeleton_warrior_axe_walk.animation");
    let recipe = |mode: &str| {
        format!(
            "jobs:\n  - name: w\n    model: '{}'\n    clips: [{{ name: walk, animation: '{}', fps: 15 }}]\n    directions: [90]\n    size: 128x128\n    antialias: 1\n    scale: {{ pixels_per_unit: 20 }}\n    root_motion: {mode}\n    output: {{ dir: {mode}, frames: 'f_{{frame:03}}.png' }}\n",
            w.join("models/skeleton_warrior_axe.model").display(),
            walk.display()
        )
    };
    bake(&tmp, &recipe("in_place"));
    let frames = frames_in(&tmp.join("in_place"));
    assert_eq!(frames.len(), 28, "55 frames at 30 fps, sampled at 15");
    let xs: Vec<f32> = frames.iter().map(centre_x).collect();
    assert!(
        (xs[27] - xs[0]).abs() <= 2.0,
        "box centre drifts in place: {xs:?}"
    );
    assert!(
        spread(&xs) <= 8.0,
        "box centre swings {} px in place: {xs:?}",
        spread(&xs)
    );

    // The hip's travel as the file stores it: first and last key.
    let anim = kiln::internals::formats::grimrock::parse_animation_file(&walk).unwrap();
    let hip = anim
        .tracks
        .iter()
        .find(|t| t.node == b"hip")
        .expect("a hip track");
    let travel = hip.positions.last().unwrap().z - hip.positions[0].z;
    assert!((travel - 3.017).abs() < 0.01, "hip travels {travel} m");
    let meta = json(&tmp.join("in_place/w.json"));
    let sum: f64 = root_motion_x(&meta).iter().sum();
    // Seen from +X, the model's forward (+Z) is the image's left.
    let want = -(travel as f64) * 20.0;
    assert!(
        (sum - want).abs() <= want.abs() * 0.01,
        "root motion adds up to {sum} px, the hip travels {want} px"
    );
    assert_eq!(meta["meta"]["pixelsPerUnit"], 20.0);

    // Kept, the same walk crosses the frame by that travel.
    bake(&tmp, &recipe("keep"));
    let kept = frames_in(&tmp.join("keep"));
    let moved = centre_x(&kept[0]) - centre_x(&kept[27]);
    assert!(moved > 50.0, "kept walk moves {moved} px");
    let meta = json(&tmp.join("keep/w.json"));
    assert!(meta["frames"]["w_walk_d0_f0"].get("rootMotion").is_none());
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The AGM rig walking with the DayZ zombie walk: Arma's travel is the
/// RTM's `step` (3.76 m a cycle), which in place is not applied and goes to
/// the metadata instead, adding up to the step over one cycle. The
/// zombie's pelvis lurches and flails but comes back each cycle — sway,
/// not travel — so it stays in the frames: in place the sprite's box
/// centre moves exactly as the posed model's own box does (±1.5 px at 4×
/// supersampling, which draws the thin hands and feet that bound the box;
/// a swing of 8 px over the cycle, none of the step's 113 px) and ends the
/// cycle within 2 px of where it began, where kept it crosses the frame.
#[test]
fn arma_zombie_walk_in_place_reports_the_rtm_step() {
    let (Some(agm), Some(dayz)) = (common::corpus(AGM), common::corpus(DAYZ)) else {
        return;
    };
    let tmp = tempdir("rm-zombie");
    let rtm = dayz.join("SQF/dayz_anim/zmb/zombie2_walk.rtm");
    let recipe = |mode: &str| {
        format!(
            "jobs:\n  - name: z\n    model: '{}'\n    skeleton: {{ config: '{}', class: OFP2_ManSkeleton }}\n    duration: 1.5\n    clips: [{{ name: walk, animation: '{}', fps: 10, end: 1.55 }}]\n    directions: [90]\n    size: 160x128\n    antialias: 4\n    scale: {{ pixels_per_unit: 30 }}\n    root_motion: {mode}\n    output: {{ dir: {mode}, frames: 'f_{{frame:03}}.png' }}\n",
            agm.join("animbase/agm_fastroping.p3d").display(),
            dayz.join("Legacy/dayz_anim/zmb/model.cfg").display(),
            rtm.display()
        )
    };
    bake(&tmp, &recipe("in_place"));
    bake(&tmp, &recipe("keep"));
    let frames = frames_in(&tmp.join("in_place"));
    assert_eq!(frames.len(), 16, "1.5 s at 10 fps and the cycle's end");
    let xs: Vec<f32> = frames.iter().map(centre_x).collect();
    // The posed model's own box, sideways (kiln's Z), at each frame's time.
    let mut spec = kiln::internals::spec::ModelSpec::new(agm.join("animbase/agm_fastroping.p3d"));
    spec.animation.duration = Some(1.5);
    spec.animation.skeleton = Some(kiln::internals::spec::SkeletonSpec::Config {
        config: kiln::FileRef::from(dayz.join("Legacy/dayz_anim/zmb/model.cfg").as_path()),
        class: "OFP2_ManSkeleton".into(),
    });
    let posed = common::animated(&spec, &rtm).unwrap();
    let box_z: Vec<f32> = (0..16)
        .map(|k| {
            let p = kiln::internals::scene::pose(&posed, k as f32 * 0.1);
            let (lo, hi) = kiln::internals::render::posed_points(&p)
                .fold((f32::MAX, f32::MIN), |(a, b), q| (a.min(q.z), b.max(q.z)));
            (lo + hi) * 0.5
        })
        .collect();
    for k in 0..16 {
        // Seen from +X, the model's +Z is the image's left.
        let want = xs[0] - (box_z[k] - box_z[0]) * 30.0;
        assert!(
            (xs[k] - want).abs() <= 1.5,
            "frame {k}: box centre at {} px, the posed model's at {want} px: {xs:?}",
            xs[k]
        );
    }
    assert!(
        spread(&xs) <= 10.0,
        "box centre swings {} px in place: {xs:?}",
        spread(&xs)
    );
    assert!(
        (xs[15] - xs[0]).abs() <= 2.0,
        "a cycle ends {} px away",
        xs[15] - xs[0]
    );
    let kept: Vec<f32> = frames_in(&tmp.join("keep"))
        .iter()
        .take(15)
        .map(centre_x)
        .collect();
    assert!(spread(&kept) > 90.0, "kept walk moves {} px", spread(&kept));
    let step = match kiln::internals::formats::arma::rtm::parse(&std::fs::read(&rtm).unwrap(), &rtm)
        .unwrap()
    {
        kiln::internals::formats::arma::rtm::Rtm::Binarised(b) => b.step,
        kiln::internals::formats::arma::rtm::Rtm::Plain(p) => p.step,
    };
    assert!(step.z.abs() > 1.0 && step.x.abs() < 0.01, "step {step}");
    // One cycle: the moves of frames 0..15 (the 16th moves past the cycle's end).
    let meta = json(&tmp.join("in_place/z.json"));
    let sum: f64 = (0..15)
        .map(|k| {
            meta["frames"][format!("z_walk_d0_f{k}")]["rootMotion"]["x"]
                .as_f64()
                .unwrap()
        })
        .sum();
    let want = -(step.z as f64) * 30.0;
    assert!(
        (sum - want).abs() <= want.abs() * 0.01,
        "root motion adds up to {sum} px, the step is {want} px"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Two of kiln's Grimrock samples in one framing group keep their relative
/// sizes — the tentacle is 3 units tall, the sign 2 — while each job alone
/// fills its frame; a fixed scale gives the exact height in pixels.
#[test]
fn a_framing_group_keeps_relative_sizes_and_pixels_per_unit_is_exact() {
    let tmp = tempdir("rm-group");
    let models =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/grimrock/mod_assets/models");
    let job = |name: &str, model: &str, extra: &str| {
        format!(
            "  - name: {name}\n    model: '{}'\n    clip: {{ time: 0 }}\n    directions: [0]\n    pitch: 0\n    size: 96x96\n    antialias: 1\n{extra}    output: {{ dir: out, sheet: false, frames: '{name}.png' }}\n",
            models.join(model).display()
        )
    };
    let group = "    framing: { group: set }\n";
    let recipe = format!(
        "jobs:\n{}{}{}{}{}",
        job("tentacle", "kiln_tentacle.model", group),
        job("sign", "kiln_sign.model", group),
        job("tentacle_alone", "kiln_tentacle.model", ""),
        job("sign_alone", "kiln_sign.model", ""),
        job(
            "sign_scaled",
            "kiln_sign.model",
            "    scale: { pixels_per_unit: 20 }\n"
        ),
    );
    bake(&tmp, &recipe);
    let height = |name: &str| {
        let b = bounds(&png(&tmp.join(format!("out/{name}.png"))));
        (b.3 - b.1 + 1) as f32
    };
    // The models' own heights, from their posed vertices.
    let model_height = |file: &str| {
        let m = common::load(&models.join(file));
        let pts: Vec<glam::Vec3> =
            kiln::internals::render::posed_points(&kiln::internals::scene::pose(&m, 0.0)).collect();
        let (lo, hi) = pts
            .iter()
            .fold((f32::MAX, f32::MIN), |(a, b), p| (a.min(p.y), b.max(p.y)));
        hi - lo
    };
    let (mt, ms) = (
        model_height("kiln_tentacle.model"),
        model_height("kiln_sign.model"),
    );
    assert!((mt / ms - 1.5).abs() < 0.01, "{mt} / {ms}");
    let (t, s) = (height("tentacle"), height("sign"));
    assert!(
        (t - s * mt / ms).abs() <= 1.0,
        "grouped: tentacle {t} px, sign {s} px, models {mt} and {ms}"
    );
    // Alone, each is fitted to its own frame: the sign comes out as tall
    // as the tentacle.
    assert!((height("sign_alone") - height("tentacle_alone")).abs() <= 2.0);
    assert!(height("sign_alone") > s + 10.0);
    // 20 pixels per unit: the 2-unit sign is 40 pixels tall.
    assert!(
        (height("sign_scaled") - ms * 20.0).abs() <= 1.0,
        "{} px for {ms} units",
        height("sign_scaled")
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A door that opens once: kiln's "F" sign raised two units over 30 keys
/// at 30 fps (Grimrock ANIM, written by kiln's own writers). Played once at
/// 12 fps its last frame shows the last key — the sign two units (40 px)
/// up — where the looping clip's last frame falls short, and sampled past
/// the last key a loop blends back toward the closed door while the
/// one-shot holds it open.
#[test]
fn a_one_shot_door_ends_open() {
    use kiln::internals::formats::grimrock as gr;
    let tmp = tempdir("rm-door");
    let assets = tmp.join("mod_assets");
    std::fs::create_dir_all(assets.join("models")).unwrap();
    std::fs::write(
        assets.join("models/door.model"),
        gr::write_model(&kiln::internals::samples::grimrock::sign()),
    )
    .unwrap();
    let mut anim = gr::Animation::new(1, 30.0, 30);
    let mut track = gr::Track::new(b"sign");
    for k in 0..30 {
        track
            .positions
            .push(glam::Vec3::new(0.0, 2.0 * k as f32 / 29.0, 0.0));
        track.rotations.push(glam::Quat::IDENTITY);
        track.scales.push(glam::Vec3::ONE);
    }
    anim.tracks.push(track);
    std::fs::write(
        assets.join("door_open.animation"),
        gr::write_animation(&anim),
    )
    .unwrap();
    let recipe = |name: &str, extra: &str| {
        format!(
            "  - name: {name}\n    model: mod_assets/models/door.model\n    clips: [{{ name: open, animation: mod_assets/door_open.animation{extra} }}]\n    directions: [0]\n    pitch: 0\n    size: 64x128\n    antialias: 1\n    scale: {{ pixels_per_unit: 20 }}\n    framing: {{ group: doors }}\n    output: {{ dir: {name}, frames: 'f_{{frame:03}}.png' }}\n"
        )
    };
    bake(
        &tmp,
        &format!(
            "jobs:\n{}{}{}{}",
            recipe("once", ", fps: 12, loop: false"),
            recipe("looped", ", fps: 12"),
            recipe("once_fast", ", fps: 60, loop: false"),
            recipe("looped_fast", ", fps: 60"),
        ),
    );
    let bottom = |img: &RgbaImage| bounds(img).3 as f32;
    let once = frames_in(&tmp.join("once"));
    // 29/30 s at 12 fps: 12 frames, then the end itself.
    assert_eq!(once.len(), 13);
    let lift = bottom(&once[0]) - bottom(&once[12]);
    assert!((lift - 40.0).abs() <= 1.0, "the door rose {lift} px");
    let looped = frames_in(&tmp.join("looped"));
    assert_eq!(looped.len(), 12);
    let short = bottom(&looped[0]) - bottom(&looped[11]);
    assert!(short < lift - 1.0, "the loop's last frame rose {short} px");
    // At 60 fps the loop's last frames fall in the last key's blend back
    // to the first; the one-shot's never do.
    let fast = frames_in(&tmp.join("once_fast"));
    let last = bottom(&fast[0]) - bottom(fast.last().unwrap());
    assert!((last - 40.0).abs() <= 1.0, "{last}");
    let fast_loop = frames_in(&tmp.join("looped_fast"));
    let back = bottom(&fast_loop[0]) - bottom(fast_loop.last().unwrap());
    assert!(
        back < 30.0,
        "the looping door is at {back} px, not swinging back"
    );
    let meta = json(&tmp.join("once/once.json"));
    assert_eq!(meta["meta"]["clips"][0]["loop"], false);
    assert_eq!(meta["meta"]["clips"][0]["fps"], 12.0);
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Taking the walk's travel out keeps repeated poses shared: the warrior's
/// walk posed at 0.5, 0.5, 1.2, 1.2 is moved back frame by frame, each
/// frame exactly as a fresh pose moved by its own offset, and a repeat
/// moved by the same offset holds the very vertices of the frame before it.
#[test]
fn taking_out_root_motion_keeps_repeats_shared() {
    let Some(w) = common::corpus(WARRIOR) else {
        return;
    };
    let spec = kiln::ModelSpec::new(w.join("models/skeleton_warrior_axe.model"));
    let walking = common::animated(
        &spec,
        &w.join("animations/skeleton_warrior_axe_walk.animation"),
    )
    .unwrap();
    let root =
        kiln::internals::scene::root_motion::root_node(&walking).expect("the walk has a root");
    let times = [0.5, 0.5, 1.2, 1.2];
    let mut posed = kiln::internals::render::pose_frames(&walking, &times);
    kiln::internals::scene::root_motion::take_out(&walking, root, &mut posed, &times);
    for (k, &t) in times.iter().enumerate() {
        let off = kiln::internals::scene::root_motion::drawn_offset(&walking, root, t);
        assert!(off.length() > 0.1, "the walk travels by {t}: {off}");
        let fresh = kiln::internals::scene::pose(&walking, t);
        for (m, f) in posed[k].meshes.iter().zip(&fresh.meshes) {
            let want: Vec<glam::Vec3> = f.positions.iter().map(|&v| v - off).collect();
            assert_eq!(*m.positions, want, "frame {k}");
        }
    }
    let shared = |a: usize, b: usize| {
        posed[a]
            .meshes
            .iter()
            .zip(&posed[b].meshes)
            .all(|(m, n)| std::sync::Arc::ptr_eq(&m.positions, &n.positions))
    };
    assert!(shared(0, 1) && shared(2, 3));
    assert!(!shared(1, 2));
}
