//! glTF and OBJ read back: kiln's own exports of animated game models
//! (Ragnarok, Grimrock, Arma; samples and corpus) read by kiln pose as the
//! models they were made from; an OBJ kiln wrote reads back to its pose; a
//! glTF inside an archive finds its files there; and reviewed goldens of
//! alpha modes, texture transforms, unlit materials and a textured truck.

use crate::common;
use crate::gltf_clips::{export, whole};
use crate::gltf_read::{extent, kiln_corners, sample, tri_distance};
use glam::{DVec3, Vec3};
use kiln::internals::scene::{self, animation};
use kiln::{ExportClip, Model, ModelSpec};
use std::path::{Path, PathBuf};

/// kiln's export of `spec` with `clips` read back by kiln: every clip at
/// every frame time of a 30 fps bake poses within 1e-4 of the model's
/// size of kiln's own pose of `originals` (one per clip). A Grimrock or
/// Ragnarok export keeps its travel, so it is the pose itself; an Arma
/// rig's walk is exported in place, its root pinned, and compared with
/// the original pinned the same way.
fn read_back(
    spec: &ModelSpec,
    clips: &[ExportClip],
    originals: &[Model],
    dir: &Path,
    file: &str,
) -> f64 {
    let mut spec = spec.clone();
    let arma = spec.model.disk.extension().is_some_and(|e| e == "p3d");
    if !arma {
        spec.animation.root_motion = kiln::RootMotion::Keep;
    }
    let (_, _report) = export(&spec, clips, dir, file);
    let back = common::load(&dir.join(file));
    let mut worst = 0.0f64;
    for (c, original) in clips.iter().zip(originals) {
        let i =
            animation::find_take(&back, &c.name).unwrap_or_else(|| panic!("no clip {}", c.name));
        let taken = animation::take(&back, i).unwrap();
        let orig = kiln::internals::scene_of(original);
        let pinned;
        let orig = match scene::root_motion::root_group(orig).filter(|_| arma) {
            Some((root, group)) => {
                pinned = scene::root_motion::pin(orig, root, &group).0;
                &pinned
            }
            None => orig,
        };
        let frames = c.clip.frame_times(original.duration()).unwrap();
        for &t in &frames.times {
            let a = kiln_corners(orig, t);
            let b = kiln_corners(&taken, t);
            let a_flat: Vec<[DVec3; 3]> = a
                .iter()
                .flatten()
                .map(|t| t.map(|v| v.as_dvec3()))
                .collect();
            let b_flat: Vec<[Vec3; 3]> = b.iter().flatten().copied().collect();
            assert_eq!(a_flat.len(), b_flat.len(), "{}: triangles", c.name);
            let size = extent(std::slice::from_ref(&a_flat));
            let d = a_flat
                .iter()
                .zip(&b_flat)
                .map(|(x, y)| tri_distance(x, y))
                .fold(0.0, f64::max)
                / size;
            assert!(
                d <= 1e-4,
                "{file} clip {} at {t:.4} s: {d:.2e} of the model's size",
                c.name
            );
            worst = worst.max(d);
        }
    }
    println!("{file}: read back within {worst:.2e} of the model's size");
    worst
}

#[test]
fn game_models_exported_by_kiln_read_back_to_their_poses() {
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("recipes/samples");
    let tmp = common::tempdir("gltf-read-back");
    // Ragnarok: the windmill's own animation.
    let spec = ModelSpec::new(samples.join("data/model/kiln/windmill.rsm2"));
    let m = Model::load(&spec).unwrap();
    read_back(
        &spec,
        &[whole("windmill", None)],
        &[m],
        &tmp,
        "windmill.glb",
    );
    // Grimrock: the tentacle's wave.
    let root = samples.join("grimrock/mod_assets");
    let spec = ModelSpec::new(root.join("models/kiln_tentacle.model"));
    let wave = root.join("animations/kiln_tentacle_wave.animation");
    let m = Model::load(&spec)
        .unwrap()
        .animated(wave.as_path())
        .unwrap();
    read_back(
        &spec,
        &[whole("wave", Some(&wave))],
        &[m],
        &tmp,
        "tentacle.glb",
    );
    // Arma: the lever's swing.
    let dir = samples.join("arma/kiln_lever");
    let mut spec = ModelSpec::new(dir.join("kiln_lever.p3d"));
    spec.animation.duration = Some(1.5);
    let swing = dir.join("anim/kiln_lever_swing.rtm");
    let m = Model::load(&spec)
        .unwrap()
        .animated(swing.as_path())
        .unwrap();
    read_back(
        &spec,
        &[whole("swing", Some(&swing))],
        &[m],
        &tmp,
        "lever.glb",
    );

    // The corpus: the skeleton warrior's four clips, a Ragnarok RSM2, an
    // Arma rig with a DayZ walk.
    if let Some(dir) =
        common::corpus("grimrock/grimrock+eob1-waterdeep/mod_assets/plugins/skeleton_warrior_axe")
    {
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
        let base = Model::load(&spec).unwrap();
        let originals: Vec<Model> = files
            .iter()
            .map(|f| base.animated(f.as_path()).unwrap())
            .collect();
        read_back(&spec, &clips, &originals, &tmp, "warrior.glb");
    }
    if let Some(file) = common::corpus("ro/Tokeiburu+RSM2/Rsm2/bin/Debug/data/goldberg_s_01.rsm2") {
        let spec = ModelSpec::new(file.as_path());
        let m = Model::load(&spec).unwrap();
        read_back(
            &spec,
            &[whole("goldberg", None)],
            &[m],
            &tmp,
            "goldberg.glb",
        );
    }
    if let (Some(agm), Some(dayz)) = (
        common::corpus("arma/KoffeinFlummi+AGM"),
        common::corpus("arma/earlbalai+DayZ-Source"),
    ) {
        let mut spec = ModelSpec::new(agm.join("AGM_FastRoping/animbase/agm_fastroping.p3d"));
        spec.animation.duration = Some(1.5);
        spec.animation.skeleton = Some(kiln::SkeletonSpec::Config {
            config: kiln::FileRef::from(dayz.join("Legacy/dayz_anim/zmb/model.cfg").as_path()),
            class: "OFP2_ManSkeleton".into(),
        });
        let walk = dayz.join("Legacy/dayz_anim/zmb/zombie2_walk.rtm");
        let m = Model::load(&spec)
            .unwrap()
            .animated(walk.as_path())
            .unwrap();
        read_back(
            &spec,
            &[whole("walk", Some(&walk))],
            &[m],
            &tmp,
            "agm_walk.glb",
        );
    }
}

/// `kiln render` of a corpus sample, compared with its reviewed golden.
pub(crate) fn render_golden(name: &str, golden: &str, extra: &[&str]) {
    let Some(f) = sample(name) else {
        return;
    };
    let dir = common::tempdir(&format!("gltf-golden-{name}"));
    let out = dir.join("out.png");
    let mut args = vec![
        "render",
        f.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--size",
        "160x160",
    ];
    args.extend_from_slice(extra);
    let o = common::kiln(&args, &dir);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let img = image::open(&out).unwrap().to_rgba8();
    common::assert_golden(golden, &img);
}

#[test]
fn alpha_modes_texture_transform_and_unlit_goldens() {
    // OPAQUE, MASK at three cutoffs and BLEND, double-sided, from the front.
    render_golden(
        "AlphaBlendModeTest",
        "gltf/alpha_blend_mode",
        &["--pitch", "0"],
    );
    // Offset, rotation and scale: every arrow points at its green tick;
    // the sampler clamps to the edge, so each arrow is drawn once.
    render_golden(
        "TextureTransformTest",
        "gltf/texture_transform",
        &["--pitch", "0"],
    );
    // Unlit: flat colour whatever the light.
    render_golden("UnlitTest", "gltf/unlit", &["--pitch", "0"]);
    // A JPEG-free PNG texture through a node matrix, and the truck's
    // several primitives and textures.
    render_golden("CesiumMilkTruck", "gltf/milk_truck", &["--yaw", "60"]);
}

#[test]
fn an_obj_kiln_wrote_reads_back_to_its_pose() {
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("recipes/samples");
    let dir = common::tempdir("obj-read-back");
    for (file, t) in [
        ("data/model/kiln/windmill.rsm2", 0.7f32),
        ("grimrock/mod_assets/models/kiln_sign.model", 0.0),
    ] {
        let spec = ModelSpec::new(samples.join(file));
        let model = Model::load(&spec).unwrap();
        let obj = dir.join("x.obj");
        model.export(t, &obj).unwrap();
        let back = common::load(&obj);
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
        let ours = kiln_corners(kiln::internals::scene_of(&model), t);
        let read = kiln_corners(&back, 0.0);
        let mut a: Vec<[DVec3; 3]> = ours
            .iter()
            .flatten()
            .map(|t| t.map(|v| v.as_dvec3()))
            .collect();
        let mut b: Vec<[Vec3; 3]> = read.iter().flatten().copied().collect();
        assert_eq!(a.len(), b.len(), "{file}: triangles");
        // Materials group the faces differently: match triangles by their
        // corners' sum, then compare.
        let key = |s: DVec3| {
            (s.x * 1e3).round() as i64 * 1_000_003
                + (s.y * 1e3).round() as i64 * 1009
                + (s.z * 1e3).round() as i64
        };
        a.sort_by_key(|t| key(t[0] + t[1] + t[2]));
        b.sort_by_key(|t| key((t[0] + t[1] + t[2]).as_dvec3()));
        let size = extent(std::slice::from_ref(&a));
        let worst = a
            .iter()
            .zip(&b)
            .map(|(x, y)| tri_distance(x, y))
            .fold(0.0, f64::max)
            / size;
        assert!(worst < 1e-5, "{file}: {worst:.2e}");
        // Every texture the MTL names is found beside it.
        assert!(back.textures.iter().all(|t| t.path.is_some()), "{file}");
        assert_eq!(
            back.materials
                .iter()
                .filter(|m| m.texture.is_some())
                .count(),
            back.textures.len()
        );
    }
}

#[test]
fn a_gltf_inside_an_archive_finds_its_buffer_and_images_there() {
    let Some(f) = sample("TextureTransformTest") else {
        return;
    };
    let folder = f.parent().unwrap();
    let dir = common::tempdir("gltf-in-pbo");
    let names = [
        "TextureTransformTest.gltf",
        "TextureTransformTest.bin",
        "UV.png",
        "Arrow.png",
        "Correct.png",
        "NotSupported.png",
        "Error.png",
    ];
    let files: Vec<(Vec<u8>, Vec<u8>)> = names
        .iter()
        .map(|n| {
            (
                format!("models\\{n}").into_bytes(),
                std::fs::read(folder.join(n)).unwrap(),
            )
        })
        .collect();
    let entries: Vec<(&[u8], &[u8], bool)> = files
        .iter()
        .map(|(n, b)| (n.as_slice(), b.as_slice(), false))
        .collect();
    std::fs::write(
        dir.join("models.pbo"),
        kiln::archives::write_pbo(&[], &entries),
    )
    .unwrap();
    let from_pbo = dir.join("pbo.png");
    let o = common::kiln(
        &[
            "render",
            "models/TextureTransformTest.gltf",
            "--data",
            "models.pbo",
            "-o",
            from_pbo.to_str().unwrap(),
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(
        !common::stderr(&o).contains("warning"),
        "{}",
        common::stderr(&o)
    );
    let from_disk = dir.join("disk.png");
    let o = common::kiln(
        &[
            "render",
            f.to_str().unwrap(),
            "-o",
            from_disk.to_str().unwrap(),
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(
        std::fs::read(&from_pbo).unwrap(),
        std::fs::read(&from_disk).unwrap()
    );
}
