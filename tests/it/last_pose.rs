//! The last pose of an animation can be had: `--time` at the duration,
//! the last frame number and a `loop: false` clip's last frame all show
//! the last key — in every format — while a looping clip past its end
//! still wraps.

use crate::common;

use glam::Vec3;
use kiln::internals::formats::arma::{p3d, rtm};
use kiln::internals::formats::grimrock as gr;
use kiln::internals::formats::rsm;
use kiln::internals::scene::{self, playback, Model as Scene, Track};
use kiln::internals::spec::{AnimationSettings, ModelSpec, SkeletonSpec};
use kiln::{Clip, Step};
use std::path::{Path, PathBuf};

const DAYZ: &str = "arma/earlbalai+DayZ-Source";
const AGM: &str = "arma/KoffeinFlummi+AGM/AGM_FastRoping";

fn points(m: &Scene, t: f32) -> Vec<Vec3> {
    kiln::internals::render::posed_points(&scene::pose(m, t)).collect()
}

fn size(pts: &[Vec3]) -> f32 {
    let lo = pts.iter().fold(Vec3::splat(f32::MAX), |a, p| a.min(*p));
    let hi = pts.iter().fold(Vec3::splat(f32::MIN), |a, p| a.max(*p));
    (hi - lo).length()
}

/// Largest distance between corresponding points, over the model's size.
fn apart(a: &[Vec3], b: &[Vec3]) -> f32 {
    assert_eq!(a.len(), b.len());
    let d = a
        .iter()
        .zip(b)
        .map(|(p, q)| (*p - *q).length())
        .fold(0.0, f32::max);
    d / size(a).max(1e-6)
}

/// The model with every track replaced by a one-key track holding its
/// last key: the last pose, with no timing rule involved.
fn held_at_last_key(m: &Scene) -> Scene {
    fn last<T: Copy>(t: &mut Option<Track<T>>) {
        if let Some(k) = t {
            let n = k.times.len().min(k.values.len());
            if n > 0 {
                k.values = vec![k.values[n - 1]];
                k.times = vec![0.0];
                k.before_first = None;
                k.wrap_to_first = None;
            }
        }
    }
    let mut out = m.clone();
    for n in &mut out.nodes {
        last(&mut n.anim.translation);
        last(&mut n.anim.rotation);
        last(&mut n.anim.scale);
        last(&mut n.anim.stretch);
    }
    out
}

/// A `loop: false` clip's frames as a bake samples them, at 12 fps.
fn one_shot_last_frame(m: &Scene) -> (Scene, f32) {
    let once = playback::one_shot(m);
    let end = playback::one_shot_end(&once);
    let times = Clip::Range {
        start: 0.0,
        end: None,
        step: Step::Fps(12.0),
    }
    .frame_times_once(end)
    .unwrap();
    let t = *times.times.last().unwrap();
    (once, t)
}

fn assert_last_key(what: &str, posed: &[Vec3], last: &[Vec3]) {
    let d = apart(posed, last);
    assert!(
        d <= 1e-4,
        "{what}: {d} of the model's size from the last key"
    );
}

/// The lever sample's swing cut to its first fifth — the arm rising from
/// rest to 47.5° — and re-phased over 0..1: a one-shot, 4 keys.
fn one_shot_swing() -> (rtm::PlainRtm, rtm::Bmtr) {
    let cut = 4;
    let mut plain = kiln::internals::samples::arma::swing_plain();
    plain.frames.truncate(cut);
    let top = plain.frames[cut - 1].phase;
    for f in &mut plain.frames {
        f.phase /= top;
    }
    let mut bin = kiln::internals::samples::arma::swing_bmtr();
    bin.frames.truncate(cut);
    bin.times.truncate(cut);
    for t in &mut bin.times {
        *t /= top;
    }
    (plain, bin)
}

fn lever_spec(dir: &Path, skeleton: bool) -> ModelSpec {
    let p3d_path = dir.join("lever.p3d");
    std::fs::write(
        &p3d_path,
        p3d::write(&kiln::internals::samples::arma::lever()),
    )
    .unwrap();
    let mut spec = ModelSpec::new(p3d_path);
    spec.animation = AnimationSettings {
        duration: Some(1.5),
        skeleton: skeleton.then(|| {
            SkeletonSpec::Bones(vec![
                ("base".into(), String::new()),
                ("arm".into(), "base".into()),
            ])
        }),
        root_motion: kiln::RootMotion::InPlace,
    };
    spec
}

/// Poses `anim` on `spec`'s model at its duration, at its last frame
/// number and as a `loop: false` clip's last frame, against the file cut
/// to its last frame alone.
fn check_rtm(what: &str, spec: &ModelSpec, anim: &Path, last_only: &Path, frames: u32) {
    let model = kiln::Model::load(spec).unwrap().animated(anim).unwrap();
    let m = kiln::internals::scene_of(&model).clone();
    assert!(m.looping && (m.duration - 1.5).abs() < 1e-6, "{what}");
    let last = points(&common::animated(spec, last_only).unwrap(), 0.0);
    let first = points(&m, 0.0);
    assert!(
        apart(&first, &last) > 1e-2,
        "{what}: a one-shot must end elsewhere"
    );
    assert_last_key(
        &format!("{what} at --time duration"),
        &points(&m, m.duration),
        &last,
    );
    let t = model.frame_time(frames - 1);
    assert_last_key(
        &format!("{what} at --frame {}", frames - 1),
        &points(&m, t),
        &last,
    );
    let (once, t) = one_shot_last_frame(&m);
    assert_last_key(&format!("{what} loop: false"), &points(&once, t), &last);
    // The independent evaluator agrees.
    assert_last_key(
        &format!("{what} held"),
        &points(&held_at_last_key(&m), 0.0),
        &last,
    );
    // Past its end a loop still wraps.
    let wrapped = apart(
        &points(&m, m.duration * 1.25),
        &points(&m, m.duration * 0.25),
    );
    assert!(wrapped < 1e-6, "{what}: wrapping moved {wrapped}");
}

#[test]
fn kilns_own_one_shot_rtms_end_on_their_last_key() {
    let dir = common::tempdir("last-pose-rtm");
    let (plain, bin) = one_shot_swing();
    let frames = plain.frames.len() as u32;
    let write = |name: &str, bytes: Vec<u8>| -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let mut plain_last = plain.clone();
    plain_last.frames = vec![plain.frames.last().unwrap().clone()];
    plain_last.frames[0].phase = 0.0;
    let mut bin_last = bin.clone();
    bin_last.frames = vec![bin.frames.last().unwrap().clone()];
    bin_last.times = vec![0.0];
    let spec = lever_spec(&dir, false);
    check_rtm(
        "plain RTM",
        &spec,
        &write("once.rtm", rtm::write_plain(&plain)),
        &write("once_last.rtm", rtm::write_plain(&plain_last)),
        frames,
    );
    let spec = lever_spec(&dir, true);
    check_rtm(
        "BMTR",
        &spec,
        &write("once_bin.rtm", rtm::write_bmtr(&bin, bin.version)),
        &write("once_bin_last.rtm", rtm::write_bmtr(&bin_last, bin.version)),
        frames,
    );
}

/// The DayZ death clip (BMTR v3, LZO frames) and AGM's glasses-wiping
/// gesture (plain, 30 frames) on the AGM rig: the body stays down at the
/// end, the hand where the gesture leaves it.
#[test]
fn corpus_one_shot_rtms_end_on_their_last_key() {
    let (Some(agm), Some(dayz)) = (common::corpus(AGM), common::corpus(DAYZ)) else {
        return;
    };
    let dir = common::tempdir("last-pose-corpus");
    let cfg = kiln::internals::formats::arma::cfg::parse_file(
        &dayz.join("Legacy/dayz_anim/zmb/model.cfg"),
    )
    .unwrap();
    let bones = kiln::internals::formats::arma::cfg::resolve_bones(
        &kiln::internals::formats::arma::cfg::skeletons(&cfg),
        "OFP2_ManSkeleton",
    )
    .unwrap();
    let mut spec = ModelSpec::new(agm.join("animbase/agm_fastroping.p3d"));
    spec.animation = AnimationSettings {
        duration: Some(1.5),
        skeleton: Some(SkeletonSpec::Bones(bones)),
        root_motion: kiln::RootMotion::InPlace,
    };
    let death = dayz.join("SQF/dayz_anim/zmb/zmbStandDeath2.rtm");
    let b = rtm::parse_bmtr(&std::fs::read(&death).unwrap(), &death).unwrap();
    let frames = b.frames.len() as u32;
    let mut last = b.clone();
    last.frames = vec![b.frames.last().unwrap().clone()];
    last.times = vec![0.0];
    last.compressed_arrays = Vec::new();
    let last_path = dir.join("death_last.rtm");
    std::fs::write(&last_path, rtm::write_bmtr(&last, 5)).unwrap();
    check_rtm("zmbStandDeath2", &spec, &death, &last_path, frames);

    let Some(goggles) = common::corpus("arma/KoffeinFlummi+AGM/AGM_Goggles") else {
        return;
    };
    let wipe = goggles.join("anim/WipeGlasses.rtm");
    let p = rtm::parse_plain(&std::fs::read(&wipe).unwrap(), &wipe).unwrap();
    let mut last = p.clone();
    last.frames = vec![p.frames.last().unwrap().clone()];
    last.frames[0].phase = 0.0;
    let last_path = dir.join("wipe_last.rtm");
    std::fs::write(&last_path, rtm::write_plain(&last)).unwrap();
    spec.animation.skeleton = None;
    check_rtm(
        "WipeGlasses",
        &spec,
        &wipe,
        &last_path,
        p.frames.len() as u32,
    );
}

/// RSM1 (milliseconds) and RSM2 (frames) keys: the fixture's child turns
/// 180° over its keys. At the duration and as a one-shot's last frame the
/// model holds its last key.
#[test]
fn rsm_keys_end_on_their_last_key() {
    let dir = common::tempdir("last-pose-rsm");
    for (maj, min, ext) in [(1u8, 4u8, "rsm"), (2, 2, "rsm2"), (2, 3, "rsm2")] {
        let path = dir.join(format!("m{maj}{min}.{ext}"));
        std::fs::write(&path, rsm::write(&crate::fixtures::rsm::model(maj, min))).unwrap();
        let m = common::load(&path);
        let what = format!("RSM {maj}.{min}");
        assert!(m.duration > 0.0, "{what}");
        let last = points(&held_at_last_key(&m), 0.0);
        let (once, t) = one_shot_last_frame(&m);
        assert_last_key(&format!("{what} loop: false"), &points(&once, t), &last);
        let end = points(&m, m.duration);
        assert_last_key(&format!("{what} at --time duration"), &end, &last);
    }
}

/// Grimrock loops close themselves: a looping walk at its duration is its
/// first frame again, and played once it ends on its last key.
#[test]
fn grimrock_loops_close_and_one_shots_end_on_the_last_key() {
    let dir = common::tempdir("last-pose-grimrock");
    let assets = dir.join("mod_assets");
    std::fs::create_dir_all(&assets).unwrap();
    let model = assets.join("door.model");
    std::fs::write(
        &model,
        gr::write_model(&kiln::internals::samples::grimrock::sign()),
    )
    .unwrap();
    let mut anim = gr::Animation::new(1, 30.0, 30);
    let mut track = gr::Track::new(b"sign");
    for k in 0..30 {
        track
            .positions
            .push(Vec3::new(0.0, 2.0 * k as f32 / 29.0, 0.0));
        track.rotations.push(glam::Quat::IDENTITY);
        track.scales.push(Vec3::ONE);
    }
    anim.tracks.push(track);
    let file = assets.join("open.animation");
    std::fs::write(&file, gr::write_animation(&anim)).unwrap();
    let m = common::animated(&ModelSpec::new(model.as_path()), &file).unwrap();
    let first = points(&m, 0.0);
    let last = points(&held_at_last_key(&m), 0.0);
    let wrapped = apart(&points(&m, m.duration), &first);
    assert!(wrapped < 1e-5, "the loop's end is {wrapped} from its start");
    let (once, t) = one_shot_last_frame(&m);
    assert_last_key("Grimrock loop: false", &points(&once, t), &last);
    // Frame N-1 is the last key itself.
    assert_last_key("Grimrock frame 29", &points(&m, 29.0 / 30.0), &last);
}
