//! Arma: MLOD models posed by plain and binarised RTMs.

use crate::common;

use glam::{Mat4, Vec3};
use kiln::internals::formats::arma::{cfg, lower as lower_arma};
use kiln::internals::formats::arma::{p3d, rtm};
use kiln::internals::scene::{self, animation, skeleton};
use kiln::internals::spec::{AnimationSettings, ModelSpec, SkeletonSpec};

const AGM: &str = "arma/KoffeinFlummi+AGM/AGM_FastRoping";
const DAYZ: &str = "arma/earlbalai+DayZ-Source";

/// Posing `agm_fastroping.p3d` with `agm_fastroping.rtm` at each
/// `#Animation#` tag's phase reproduces that tag's positions.
#[test]
fn fastroping_poses_reproduce_the_animation_tags() {
    let Some(dir) = common::corpus(AGM) else {
        return;
    };
    let p3d_path = dir.join("animbase/agm_fastroping.p3d");
    let mlod = p3d::parse_file(&p3d_path).unwrap();
    let lod_index = mlod.most_detailed_visual_lod().unwrap();
    let lod = &mlod.lods[lod_index];
    assert!(
        !lod.animations.is_empty(),
        "the visual LOD carries #Animation# tags"
    );
    let model = common::load(&p3d_path);
    let mut spec = ModelSpec::new(&p3d_path);
    spec.animation.duration = Some(1.0);
    let posed_model = common::animated(&spec, &dir.join("data/agm_fastroping.rtm")).unwrap();
    // Each vertex's point: the first point with exactly its rest position.
    let mesh = &model.meshes[0];
    let point_of: Vec<usize> = mesh
        .positions
        .iter()
        .map(|p| lod.points.iter().position(|q| q.pos == *p).unwrap())
        .collect();
    let undisplay = model.display.inverse();
    let first_phase = match rtm::parse_file(&dir.join("data/agm_fastroping.rtm")).unwrap() {
        rtm::Rtm::Plain(p) => p.frames[0].phase,
        _ => panic!("plain RTM expected"),
    };
    let mut report = Vec::new();
    let mut posed_tags = 0;
    for tag in &lod.animations {
        if tag.phase < first_phase {
            // The RTM starts at phase 0.5; the phase-0 tag is the rest pose itself.
            assert!(tag
                .positions
                .iter()
                .zip(&lod.points)
                .all(|(a, b)| (*a - b.pos).length() < 1e-6));
            continue;
        }
        posed_tags += 1;
        let posed = scene::pose(&posed_model, tag.phase);
        let mut within = 0usize;
        let mut far: Vec<usize> = Vec::new();
        for (v, p) in posed.meshes[0].positions.iter().enumerate() {
            let got = undisplay.transform_point3(*p);
            let want = tag.positions[point_of[v]];
            if (got - want).length() <= 0.01 {
                within += 1;
            } else if !far.contains(&point_of[v]) {
                far.push(point_of[v]);
            }
        }
        let share = within as f32 / mesh.positions.len() as f32;
        let mut bones: Vec<&str> = far
            .iter()
            .flat_map(|&pt| {
                lod.selections
                    .iter()
                    .filter(move |s| s.point_weights.get(pt).is_some_and(|w| *w > 0.0))
            })
            .map(|s| s.name.as_str())
            .collect();
        bones.sort();
        bones.dedup();
        report.push(format!(
            "phase {:.3}: {:.1} % within 1 cm; {} points differ, in selections {:?}",
            tag.phase,
            share * 100.0,
            far.len(),
            bones
        ));
        assert!(
            share >= 0.95,
            "phase {}: only {:.1} % of vertices within 1 cm",
            tag.phase,
            share * 100.0
        );
    }
    assert_eq!(
        posed_tags, 2,
        "tags at phases 0.5 and 1 are posed by the RTM"
    );
    println!("{}", report.join("\n"));
}

fn bone_worlds(
    a: &animation::Animation,
    bones: &[skeleton::BoneSpec],
    t: f32,
) -> Vec<(String, Mat4)> {
    let empty = lower_arma::lower_mlod(
        &p3d::Mlod { lods: Vec::new() },
        0,
        std::path::Path::new("none"),
        &mut |_| None,
    );
    let bound = skeleton::bind(&empty, bones);
    let (m, _) = animation::apply(&bound, a);
    let w = scene::pose::node_worlds(&m, t);
    m.nodes
        .iter()
        .zip(w)
        .map(|(n, w)| (n.name.clone(), w))
        .collect()
}

/// `zombie2_walk.rtm` decoded as BMTR v3 and composed through `model.cfg`'s
/// skeleton matches its plain source within 0.005 on every bone matrix of
/// every frame.
#[test]
fn zombie_walk_bmtr_matches_its_plain_source() {
    let Some(dir) = common::corpus(DAYZ) else {
        return;
    };
    let cfg = dir.join("Legacy/dayz_anim/zmb/model.cfg");
    let plain = match rtm::parse_file(&dir.join("Legacy/dayz_anim/zmb/zombie2_walk.rtm")).unwrap() {
        rtm::Rtm::Plain(p) => p,
        _ => panic!("plain expected"),
    };
    let bin = match rtm::parse_file(&dir.join("SQF/dayz_anim/zmb/zombie2_walk.rtm")).unwrap() {
        rtm::Rtm::Binarised(b) => b,
        _ => panic!("BMTR expected"),
    };
    assert_eq!(bin.version, 3);
    let bones = skeleton_bones(&cfg, "OFP2_ManSkeleton");
    let (anim, specs) = lower_arma::lower_bmtr(&bin, &bones, 1.0, false);
    assert_eq!(bin.frames.len(), plain.frames.len(), "same frame count");
    let mut worst = 0.0f32;
    let mut compared = 0usize;
    for (f, frame) in plain.frames.iter().enumerate() {
        let worlds = bone_worlds(&anim, &specs, bin.times[f]);
        for (name, m) in &frame.transforms {
            let Some((_, w)) = worlds.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) else {
                continue;
            };
            if !bin.bones.iter().any(|b| b.eq_ignore_ascii_case(name)) {
                continue; // binarising drops bones outside the skeleton
            }
            let d = w
                .to_cols_array()
                .iter()
                .zip(rtm::matrix(m).to_cols_array())
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max);
            worst = worst.max(d);
            compared += 1;
            assert!(d <= 0.005, "frame {f} bone {name}: differs by {d}");
        }
    }
    assert!(compared > 100, "{compared} matrices compared");
    println!("zombie2_walk: {compared} bone matrices, worst difference {worst}");
}

#[test]
fn plain_rtm_identity_is_the_rest_pose() {
    let Some(dir) = common::corpus(AGM) else {
        return;
    };
    let p3d_path = dir.join("animbase/agm_fastroping.p3d");
    let model = common::load(&p3d_path);
    let rest = scene::pose(&model, 0.0);
    let pts: Vec<Vec3> = kiln::internals::render::posed_points(&rest).collect();
    assert!(!pts.is_empty());
    // Bound to its bones but not animated, the model stays at rest.
    let groups: Vec<skeleton::BoneSpec> = model.meshes[0]
        .groups
        .iter()
        .map(|g| skeleton::BoneSpec {
            name: g.name.clone(),
            parent: None,
        })
        .collect();
    let bound = skeleton::bind(&model, &groups);
    assert!(bound.meshes[0].skin.is_some());
    let again: Vec<Vec3> =
        kiln::internals::render::posed_points(&scene::pose(&bound, 0.0)).collect();
    for (a, b) in pts.iter().zip(&again) {
        assert!((*a - *b).length() < 1e-5);
    }
}

/// Any MLOD with the standard bone names can be posed by any RTM of that
/// skeleton: the AGM rig walks with the DayZ zombie's binarised walk. `step`
/// is ignored unless travel is asked for.
#[test]
fn agm_rig_walks_with_the_dayz_zombie_walk() {
    let (Some(agm), Some(dayz)) = (common::corpus(AGM), common::corpus(DAYZ)) else {
        return;
    };
    let bones = skeleton_bones(
        &dayz.join("Legacy/dayz_anim/zmb/model.cfg"),
        "OFP2_ManSkeleton",
    );
    let walk = dayz.join("SQF/dayz_anim/zmb/zombie2_walk.rtm");
    let mut spec = ModelSpec::new(agm.join("animbase/agm_fastroping.p3d"));
    spec.animation = AnimationSettings {
        duration: Some(2.0),
        skeleton: Some(SkeletonSpec::Bones(bones)),
        root_motion: kiln::RootMotion::InPlace,
    };
    let walking = common::animated(&spec, &walk).unwrap();
    let skin = walking.meshes[0]
        .skin
        .as_ref()
        .expect("selections bound to the skeleton's bones");
    assert!(
        skin.joints.len() >= 40,
        "{} bones matched case-insensitively",
        skin.joints.len()
    );
    let centre = |t: f32| {
        let pts: Vec<Vec3> =
            kiln::internals::render::posed_points(&scene::pose(&walking, t)).collect();
        pts.iter().copied().sum::<Vec3>() / pts.len() as f32
    };
    let (a, b) = (scene::pose(&walking, 0.1), scene::pose(&walking, 0.9));
    let moved = a.meshes[0]
        .positions
        .iter()
        .zip(b.meshes[0].positions.iter())
        .filter(|(p, q)| (**p - **q).length() > 0.02)
        .count();
    assert!(
        moved > 100,
        "{moved} vertices moved between two walk phases"
    );
    // In place: the body stays within a step's width.
    assert!((centre(0.1) - centre(1.9)).length() < 0.5);
    // With travel the body advances by the step (about 3.76 m per cycle).
    spec.animation.root_motion = kiln::RootMotion::Keep;
    let travelling = common::animated(&spec, &walk).unwrap();
    let c = |t: f32| {
        let pts: Vec<Vec3> =
            kiln::internals::render::posed_points(&scene::pose(&travelling, t)).collect();
        pts.iter().copied().sum::<Vec3>() / pts.len() as f32
    };
    let d = (c(1.9) - c(0.1)).length();
    assert!(d > 3.0, "travelled {d}");
}

/// The (bone, parent) pairs of skeleton `class` in a `model.cfg`.
fn skeleton_bones(config: &std::path::Path, class: &str) -> Vec<(String, String)> {
    let parsed = cfg::parse_file(config).unwrap();
    cfg::resolve_bones(&cfg::skeletons(&parsed), class).unwrap()
}

/// The same DayZ walk posed from its binarised BMTR and from its plain
/// source, at every key time and halfway between keys: the AGM rig's
/// vertices differ by the files' own quantisation at the keys, and by no
/// more between them now that a plain RTM given the skeleton interpolates
/// parent-relative keys as the BMTR does. Without the skeleton, the plain
/// file's absolute matrices interpolate differently between keys (a limb
/// far from the model's origin swings on a chord).
#[test]
fn zombie_walk_plain_and_binarised_agree_between_keys_too() {
    let (Some(agm), Some(dayz)) = (common::corpus(AGM), common::corpus(DAYZ)) else {
        return;
    };
    let bones = skeleton_bones(
        &dayz.join("Legacy/dayz_anim/zmb/model.cfg"),
        "OFP2_ManSkeleton",
    );
    let mut spec = ModelSpec::new(agm.join("animbase/agm_fastroping.p3d"));
    spec.animation = AnimationSettings {
        duration: Some(1.0),
        skeleton: Some(SkeletonSpec::Bones(bones)),
        root_motion: kiln::RootMotion::InPlace,
    };
    let bin_file = dayz.join("SQF/dayz_anim/zmb/zombie2_walk.rtm");
    let plain_file = dayz.join("Legacy/dayz_anim/zmb/zombie2_walk.rtm");
    let bin = common::animated(&spec, &bin_file).unwrap();
    let plain = common::animated(&spec, &plain_file).unwrap();
    spec.animation.skeleton = None;
    let plain_absolute = common::animated(&spec, &plain_file).unwrap();
    let times = match rtm::parse_file(&bin_file).unwrap() {
        rtm::Rtm::Binarised(b) => b.times,
        _ => panic!("BMTR expected"),
    };
    let apart = |a: &scene::Model, b: &scene::Model, t: f32| {
        let (x, y) = (scene::pose(a, t), scene::pose(b, t));
        x.meshes[0]
            .positions
            .iter()
            .zip(y.meshes[0].positions.iter())
            .map(|(p, q)| (*p - *q).length())
            .fold(0.0f32, f32::max)
    };
    let (mut at_keys, mut between, mut absolute_between) = (0.0f32, 0.0f32, 0.0f32);
    for w in times.windows(2) {
        at_keys = at_keys.max(apart(&bin, &plain, w[0]));
        let mid = 0.5 * (w[0] + w[1]);
        between = between.max(apart(&bin, &plain, mid));
        absolute_between = absolute_between.max(apart(&bin, &plain_absolute, mid));
    }
    println!(
        "zombie2_walk BMTR vs plain on the AGM rig: {:.2} mm at keys, {:.2} mm between keys \
         ({:.2} mm between keys with the plain file's absolute matrices)",
        at_keys * 1000.0,
        between * 1000.0,
        absolute_between * 1000.0
    );
    assert!(at_keys < 0.0015, "{at_keys} m at keys");
    assert!(between < 0.0015, "{between} m between keys");
    assert!(absolute_between > 2.0 * between);
}

/// A plain RTM key with shear is posed as the whole matrix: the bone's
/// world matrix at the key's time is the key, not its nearest rotation and
/// axis scale.
#[test]
fn sheared_plain_rtm_keys_pose_their_whole_matrix() {
    let sheared: [f32; 12] = [
        1.0, 0.02, 0.0, // r0
        0.0, 1.0, 0.0, // r1
        0.01, 0.0, 0.97, // r2
        0.0, 0.1, 0.05, // r3
    ];
    let identity: [f32; 12] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
    let frame = |phase: f32, m: [f32; 12]| rtm::PlainFrame {
        phase,
        transforms: vec![("arm".into(), m), ("base".into(), identity)],
    };
    let plain = rtm::PlainRtm {
        metadata: Vec::new(),
        step: Vec3::ZERO,
        bones: vec!["arm".into(), "base".into()],
        frames: vec![
            frame(0.0, identity),
            frame(0.5, sheared),
            frame(1.0, identity),
        ],
    };
    for skeleton in [
        None,
        Some(vec![
            ("base".to_string(), String::new()),
            ("arm".to_string(), "base".to_string()),
        ]),
    ] {
        let (anim, bones) = lower_arma::lower_plain(&plain, skeleton.as_deref(), 2.0, false);
        let worlds = bone_worlds(&anim, &bones, 1.0);
        let arm = worlds.iter().find(|(n, _)| n == "arm").unwrap().1;
        let want = rtm::matrix(&sheared);
        let off = (arm - want)
            .to_cols_array()
            .iter()
            .fold(0.0f32, |a, x| a.max(x.abs()));
        assert!(
            off < 1e-6,
            "skeleton {skeleton:?}: posed {arm:?}, key {want:?}"
        );
        let track = &anim.tracks.iter().find(|t| t.node == "arm").unwrap().anim;
        assert!(track.stretch.is_some() && track.scale.is_none());
        // Between keys the stretch is interpolated with the rotation.
        let w = bone_worlds(&anim, &bones, 0.5);
        let half = w.iter().find(|(n, _)| n == "arm").unwrap().1;
        assert!((half.x_axis.y - 0.01).abs() < 1e-4, "{half:?}");
    }
}
