//! Jobs baked end to end through the sinks: metadata of two clips and two
//! directions, files named by clip, one framing shared by a job's clips, a
//! missing animation file, a dry run, verify against the files on disk, and
//! every sink (plain, background, dry-run, verify) given the same files.

use crate::bake_outputs::{anim, scratch};
use image::RgbaImage;
use kiln::internals::bake::encode::clip_frames::ClipFrames;
use kiln::internals::bake::outputs::sink::{DryRunSink, FileSink, OutputStatus, Sink, VerifySink};
use kiln::internals::bake::recipe::{Direction, Recipe};
use kiln::internals::bake::sheet::atlas::{AtlasClip, AtlasJob};
use kiln::internals::bake::sheet::grid::GridLayout;
use kiln::internals::bake::sheet::meta::texturepacker;
use kiln::internals::bake::write_outputs;
use kiln::internals::confined::Root;
use std::path::{Path, PathBuf};

/// Clip "walk" (2 frames at 10 fps) and the still "still", each from yaw 0
/// and 90: frames skip the empty cell after the still, tags count frames.
const META_2CLIPS: &str = r#"{
  "frames": {
    "orc_walk_d0_f0": {
      "frame": {
        "x": 0,
        "y": 0,
        "w": 8,
        "h": 4
      },
      "rotated": false,
      "trimmed": false,
      "spriteSourceSize": {
        "x": 0,
        "y": 0,
        "w": 8,
        "h": 4
      },
      "sourceSize": {
        "w": 8,
        "h": 4
      },
      "duration": 100,
      "pivot": {
        "x": 0.5,
        "y": 1.0
      }
    },
    "orc_walk_d0_f1": {
      "frame": {
        "x": 8,
        "y": 0,
        "w": 8,
        "h": 4
      },
      "rotated": false,
      "trimmed": false,
      "spriteSourceSize": {
        "x": 0,
        "y": 0,
        "w": 8,
        "h": 4
      },
      "sourceSize": {
        "w": 8,
        "h": 4
      },
      "duration": 100,
      "pivot": {
        "x": 0.5,
        "y": 1.0
      }
    },
    "orc_walk_d1_f0": {
      "frame": {
        "x": 0,
        "y": 4,
        "w": 8,
        "h": 4
      },
      "rotated": false,
      "trimmed": false,
      "spriteSourceSize": {
        "x": 0,
        "y": 0,
        "w": 8,
        "h": 4
      },
      "sourceSize": {
        "w": 8,
        "h": 4
      },
      "duration": 100,
      "pivot": {
        "x": 0.5,
        "y": 1.0
      }
    },
    "orc_walk_d1_f1": {
      "frame": {
        "x": 8,
        "y": 4,
        "w": 8,
        "h": 4
      },
      "rotated": false,
      "trimmed": false,
      "spriteSourceSize": {
        "x": 0,
        "y": 0,
        "w": 8,
        "h": 4
      },
      "sourceSize": {
        "w": 8,
        "h": 4
      },
      "duration": 100,
      "pivot": {
        "x": 0.5,
        "y": 1.0
      }
    },
    "orc_still_d0_f0": {
      "frame": {
        "x": 0,
        "y": 8,
        "w": 8,
        "h": 4
      },
      "rotated": false,
      "trimmed": false,
      "spriteSourceSize": {
        "x": 0,
        "y": 0,
        "w": 8,
        "h": 4
      },
      "sourceSize": {
        "w": 8,
        "h": 4
      },
      "duration": 0,
      "pivot": {
        "x": 0.5,
        "y": 1.0
      }
    },
    "orc_still_d1_f0": {
      "frame": {
        "x": 0,
        "y": 12,
        "w": 8,
        "h": 4
      },
      "rotated": false,
      "trimmed": false,
      "spriteSourceSize": {
        "x": 0,
        "y": 0,
        "w": 8,
        "h": 4
      },
      "sourceSize": {
        "w": 8,
        "h": 4
      },
      "duration": 0,
      "pivot": {
        "x": 0.5,
        "y": 1.0
      }
    }
  },
  "meta": {
    "app": "kiln",
    "version": "VERSION",
    "image": "orc.png",
    "format": "RGBA8888",
    "size": {
      "w": 16,
      "h": 16
    },
    "scale": "1",
    "frameTags": [
      {
        "name": "walk_d0",
        "from": 0,
        "to": 1,
        "direction": "forward"
      },
      {
        "name": "walk_d1",
        "from": 2,
        "to": 3,
        "direction": "forward"
      },
      {
        "name": "still_d0",
        "from": 4,
        "to": 4,
        "direction": "forward"
      },
      {
        "name": "still_d1",
        "from": 5,
        "to": 5,
        "direction": "forward"
      }
    ],
    "directions": [
      {
        "index": 0,
        "yaw": 0.0
      },
      {
        "index": 1,
        "yaw": 90.0
      }
    ],
    "clips": [
      {
        "name": "walk",
        "fps": 10.0,
        "loop": true,
        "frames": 2,
        "firstRow": 0,
        "directions": 2
      },
      {
        "name": "still",
        "loop": true,
        "frames": 1,
        "firstRow": 2,
        "directions": 2
      }
    ],
    "pivot": {
      "x": 0.5,
      "y": 1.0
    }
  }
}
"#;

fn meta_2clips() -> String {
    let dirs = [
        Direction { index: 0, yaw: 0.0 },
        Direction {
            index: 1,
            yaw: 90.0,
        },
    ];
    let job = AtlasJob {
        name: "orc",
        image: "orc.png",
        directions: &dirs,
        clips: &[
            AtlasClip {
                name: "walk",
                frames: 2,
                frame_seconds: 0.1,
                rate: 10.0,
                looping: true,
            },
            AtlasClip {
                name: "still",
                frames: 1,
                frame_seconds: 0.0,
                rate: 0.0,
                looping: true,
            },
        ],
        named_clips: true,
        pixels_per_unit: None,
    };
    let atlas = GridLayout::new(8, 4, 2, 4).unwrap().atlas(&job, [0.5, 1.0]);
    texturepacker::json(&atlas, &job)
}

#[test]
fn metadata_for_two_clips_and_two_directions_is_exact() {
    let want = META_2CLIPS.replace("VERSION", env!("CARGO_PKG_VERSION"));
    assert_eq!(meta_2clips(), want);
}

#[test]
fn write_outputs_names_files_by_clip() {
    let dir = scratch("clips");
    let recipe = dir.join("r.yaml");
    let text = "jobs:\n  - name: orc\n    model: orc.model\n    size: 4x3\n    directions: [0, 90]\n    clips:\n      - {name: walk, frames: 3, end: 0.3}\n      - {name: idle, frames: 2, end: 1}\n    output: {dir: out, frames: '{clip}/{dir}_{frame}.png', gif: '{name}_{clip}_{yaw}.gif'}\n";
    let job = Recipe::from_str(text, &recipe)
        .unwrap()
        .jobs()
        .unwrap()
        .remove(0);
    let clips: Vec<ClipFrames> = job
        .clips
        .iter()
        .map(|c| {
            let times = c.clip.frame_times(5.0).unwrap();
            let n = times.times.len();
            ClipFrames::new(
                times,
                vec![anim()[..n].to_vec(), anim()[..n].to_vec()],
                [0.5, 1.0],
            )
        })
        .collect();
    let written = write_outputs(&job, &clips, &FileSink::new(Root::new(&job.output.dir))).unwrap();
    let rel: Vec<String> = written
        .iter()
        .map(|p| {
            p.strip_prefix(&dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    assert_eq!(
        rel,
        [
            "out/walk/0_0.png",
            "out/walk/0_1.png",
            "out/walk/0_2.png",
            "out/walk/1_0.png",
            "out/walk/1_1.png",
            "out/walk/1_2.png",
            "out/idle/0_0.png",
            "out/idle/0_1.png",
            "out/idle/1_0.png",
            "out/idle/1_1.png",
            "out/orc.png",
            "out/orc.json",
            "out/orc_walk_0.gif",
            "out/orc_walk_90.gif",
            "out/orc_idle_0.gif",
            "out/orc_idle_90.gif",
        ]
    );
    // 3 columns (the longest clip) × 4 rows (2 clips × 2 directions).
    let sheet = image::open(dir.join("out/orc.png")).unwrap().to_rgba8();
    assert_eq!(sheet.dimensions(), (12, 12));
    // Row 3 (idle, yaw 90), column 1: the second frame's pixel (2, 1).
    assert_eq!(sheet.get_pixel(4 + 2, 9 + 1).0, [200, 110, 61, 255]);
    // Row 3, column 2 lies past the idle clip's end.
    assert_eq!(sheet.get_pixel(8 + 2, 9 + 1).0, [0, 0, 0, 0]);

    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/orc.json")).unwrap()).unwrap();
    let f = &meta["frames"]["orc_idle_d1_f1"];
    assert_eq!(
        (f["frame"]["x"].clone(), f["frame"]["y"].clone()),
        (4.into(), 9.into())
    );
    assert_eq!(f["duration"], 500);
    assert_eq!(meta["frames"]["orc_walk_d0_f2"]["duration"], 100);
    assert!(meta["frames"].get("orc_idle_d1_f2").is_none());
    assert_eq!(meta["frames"].as_object().unwrap().len(), 10);
    assert_eq!(meta["meta"]["clips"][1]["firstRow"], 2);

    // One GIF per clip × direction, each with its clip's delay.
    let delays = |p: &str| -> Vec<u16> {
        let mut dec = gif::DecodeOptions::new()
            .read_info(std::fs::File::open(dir.join(p)).unwrap())
            .unwrap();
        let mut v = Vec::new();
        while let Some(fr) = dec.read_next_frame().unwrap() {
            v.push(fr.delay);
        }
        v
    };
    assert_eq!(delays("out/orc_walk_90.gif"), [10, 10, 10]);
    assert_eq!(delays("out/orc_idle_0.gif"), [50, 50]);

    let mut missing = clips.clone();
    missing.pop();
    assert_eq!(
        write_outputs(&job, &missing, &FileSink::new(Root::new(&job.output.dir)))
            .unwrap_err()
            .to_string(),
        "job 'orc': 1 clips of frames for 2 clips"
    );
    let mut short = clips.clone();
    short[1].frames[0].pop();
    assert_eq!(
        write_outputs(&job, &short, &FileSink::new(Root::new(&job.output.dir)))
            .unwrap_err()
            .to_string(),
        "job 'orc': clip 'idle': a row has 1 frames, expected 2"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every clip of a job is framed together. A still at time 0 shows the
/// first pose of the animated clip, so both come out as the same pixels, and
/// the framing equals the animated clip's own; enlarging the still's model
/// then shrinks the animated clip too.
#[test]
fn clips_of_a_job_share_one_framing() {
    let dir = scratch("framing");
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/model/kiln/windmill.rsm2");
    let text = format!(
        "jobs:\n  - name: wm\n    model: '{}'\n    size: 40x40\n    directions: [30]\n    antialias: 1\n    clips:\n      - {{name: spin, frames: 3}}\n      - {{name: still, time: 0}}\n    output: {{dir: out, meta: false}}\n",
        model.display()
    );
    let job = Recipe::from_str(&text, &dir.join("r.yaml"))
        .unwrap()
        .jobs()
        .unwrap()
        .remove(0);
    let plan = kiln::internals::bake::run::plan_job(&job, &[]).unwrap();
    assert_eq!(plan.images(), 4);
    // Neither clip changes the model, so both hold the job's one copy.
    assert!(std::sync::Arc::ptr_eq(
        &plan.clips[0].model,
        &plan.clips[1].model
    ));
    let report = kiln::internals::bake::run::run_planned(
        &job,
        &plan,
        &|| {},
        &FileSink::new(Root::new(&job.output.dir)),
    )
    .unwrap();
    assert_eq!(report.images, 4);
    let cell = |col: u32, row: u32| {
        let sheet = image::open(dir.join("out/wm.png")).unwrap().to_rgba8();
        assert_eq!(sheet.dimensions(), (120, 80));
        image::imageops::crop_imm(&sheet, col * 40, row * 40, 40, 40).to_image()
    };
    let opaque = |img: &RgbaImage| img.pixels().filter(|p| p.0[3] > 0).count();
    let spin_alone = kiln::internals::render::render_clip(
        &plan.clips[0].model,
        &kiln::internals::render::ClipPlan {
            times: plan.clips[0].times.times.clone(),
            ..plan.view.clone()
        },
        &|| {},
    );
    let first = cell(0, 0);
    assert!(opaque(&first) > 100, "nearly empty frame");
    assert!(first == cell(0, 1), "the still and frame 0 differ");
    assert!(first != cell(1, 0), "the clip does not move");
    assert!(spin_alone.images[0][0] == first);

    let mut big = plan.clone();
    let scaled = std::sync::Arc::make_mut(&mut big.clips[1].model);
    scaled.display = glam::Mat4::from_scale(glam::Vec3::splat(2.0)) * scaled.display;
    kiln::internals::bake::run::run_planned(
        &job,
        &big,
        &|| {},
        &FileSink::new(Root::new(&job.output.dir)),
    )
    .unwrap();
    let shrunk = cell(0, 0);
    assert!(
        opaque(&shrunk) < opaque(&first),
        "{} >= {}",
        opaque(&shrunk),
        opaque(&first)
    );
    assert!(opaque(&cell(0, 1)) > opaque(&shrunk));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_animation_file_fails_the_job_naming_it() {
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/model/kiln/windmill.rsm2");
    let text = format!(
        "jobs:\n  - name: wm\n    model: '{}'\n    clips:\n      - {{name: walk, animation: anims/walk.animation}}\n",
        model.display()
    );
    let job = Recipe::from_str(&text, Path::new("r/x.yaml"))
        .unwrap()
        .jobs()
        .unwrap()
        .remove(0);
    let e = kiln::internals::bake::run::plan_job(&job, &[]).unwrap_err();
    assert!(
        matches!(&e, kiln::Error::Io { path, .. } if path == Path::new("r/anims/walk.animation")),
        "{e}"
    );
    // Without an animation file the clip animates the job's model itself:
    // the same one, shared, not a copy per clip.
    let spec = kiln::internals::bake::recipe::ClipSpec {
        animation: None,
        ..job.clips[0].clone()
    };
    let loaded = std::sync::Arc::new(crate::common::scene_of(&job.model));
    let m = kiln::internals::bake::run::clip_model(
        &loaded,
        &spec,
        &job.model,
        &kiln::internals::source::Lookup::default(),
    )
    .unwrap();
    assert!(std::sync::Arc::ptr_eq(&m, &loaded));
}

/// The job of `write_outputs_writes_every_requested_file` (frames, sheet,
/// JSON and GIFs) with its frames, baked into `dir`.
fn hero(dir: &Path) -> (kiln::internals::bake::recipe::Job, Vec<ClipFrames>) {
    let text = "jobs:\n  - name: hero\n    model: hero.rsm\n    size: 4x3\n    directions: [0, 90]\n    clip: {frames: 3, end: 0.3}\n    output: {dir: out, frames: '{name}_{yaw}_{frame}.png', gif: '{name}_{dir}.gif'}\n";
    let job = Recipe::from_str(text, &dir.join("r.yaml"))
        .unwrap()
        .jobs()
        .unwrap()
        .remove(0);
    let times = job.clips[0].clip.frame_times(5.0).unwrap();
    let clips = vec![ClipFrames::new(times, vec![anim(), anim()], [0.5, 1.0])];
    (job, clips)
}

#[test]
fn dry_run_writes_nothing_and_lists_what_a_bake_writes() {
    let dir = scratch("dry-run");
    let (job, clips) = hero(&dir);
    let dry = DryRunSink::default();
    let listed = write_outputs(&job, &clips, &dry).unwrap();
    assert!(!dir.join("out").exists(), "a dry run wrote");

    let real = FileSink::new(Root::new(&job.output.dir));
    let written = write_outputs(&job, &clips, &real).unwrap();
    assert_eq!(listed, written);
    let (planned, done) = (dry.records(), real.records());
    assert_eq!(planned.len(), 10);
    assert_eq!(planned.len(), done.len());
    for ((p, d), path) in planned.iter().zip(&done).zip(&written) {
        assert_eq!((&p.path, &d.path), (path, path));
        assert_eq!(p.outcome, OutputStatus::WouldWrite);
        assert_eq!(d.outcome, OutputStatus::Written);
        assert_eq!(p.len, d.len, "{}", path.display());
        assert_eq!(
            std::fs::metadata(path).unwrap().len(),
            p.len as u64,
            "{}",
            path.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verify_compares_with_the_files_on_disk() {
    let dir = scratch("verify");
    let (job, clips) = hero(&dir);
    let written = write_outputs(&job, &clips, &FileSink::new(Root::new(&job.output.dir))).unwrap();
    let verify = || {
        let v = VerifySink::default();
        let files = write_outputs(&job, &clips, &v).unwrap();
        assert_eq!(files, written);
        v.records()
    };
    let outcomes =
        |records: &[kiln::internals::bake::outputs::sink::OutputRecord]| -> Vec<OutputStatus> {
            records.iter().map(|r| r.outcome).collect()
        };

    let same = verify();
    assert_eq!(outcomes(&same), [OutputStatus::Same; 10]);
    let paths: Vec<&PathBuf> = same.iter().map(|r| &r.path).collect();
    assert_eq!(paths, written.iter().collect::<Vec<_>>());

    let json = dir.join("out/hero.json");
    let mut altered = std::fs::read(&json).unwrap();
    altered.insert(1, b' ');
    std::fs::write(&json, &altered).unwrap();
    let gif = dir.join("out/hero_1.gif");
    std::fs::remove_file(&gif).unwrap();

    let after = verify();
    let mut want = [OutputStatus::Same; 10];
    want[7] = OutputStatus::Different;
    want[9] = OutputStatus::Missing;
    assert_eq!(outcomes(&after), want);
    assert_eq!((&after[7].path, &after[9].path), (&json, &gif));
    // Verifying writes nothing back.
    assert_eq!(std::fs::read(&json).unwrap(), altered);
    assert!(!gif.exists());
    assert_eq!(
        after.iter().map(|r| r.len).collect::<Vec<_>>(),
        same.iter().map(|r| r.len).collect::<Vec<_>>()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A recipe job and a map through their runs: a dry run lists what the
/// writing run writes, with the same lengths, and creates no folder.
#[test]
fn runs_hand_every_file_to_the_sink() {
    let dir = scratch("runs");
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data");
    let text = format!(
        "jobs:\n  - name: wm\n    model: '{}'\n    size: 24x24\n    directions: [0, 90]\n    antialias: 1\n    clip: {{frames: 2}}\n    output: {{dir: out/jobs, frames: '{{name}}_{{dir}}_{{frame}}.png', gif: '{{name}}_{{dir}}.gif'}}\nmaps:\n  - name: village\n    map: '{}'\n    data: '{}'\n    output: out/maps\n    antialias: 1\n    views:\n      - {{ name: top, pixels_per_tile: 1 }}\n      - {{ name: anim, pixels_per_tile: 1, gif: {{ frames: 2, fps: 4 }} }}\n",
        samples.join("model/kiln/windmill.rsm2").display(),
        samples.join("kiln_village.rsw").display(),
        samples.display(),
    );
    let recipe = Recipe::from_str(&text, &dir.join("r.yaml")).unwrap();
    let job = recipe.jobs().unwrap().remove(0);
    let map = recipe.maps().remove(0);
    let plan = kiln::internals::bake::run::plan_job(&job, &[]).unwrap();
    let map_plan =
        kiln::internals::bake::map_run::plan_map_within(&map, &[], kiln::DEFAULT_MEMORY_LIMIT)
            .unwrap();
    let bake = |sink: &dyn Sink| {
        let a = kiln::internals::bake::run::run_planned(&job, &plan, &|| {}, sink).unwrap();
        let b = kiln::internals::bake::map_run::run_map(&map, &map_plan, &|| {}, sink).unwrap();
        (a.files, b.files)
    };
    let dry = DryRunSink::default();
    let listed = bake(&dry);
    assert!(!dir.join("out").exists(), "a dry run wrote");
    // One root holding both the job's and the map's folder.
    let real = FileSink::new(Root::new(dir.join("out")));
    assert_eq!(bake(&real), listed);
    let (planned, done) = (dry.records(), real.records());
    // 2 × 2 frames, sheet, JSON, 2 GIFs; the map's still and GIF.
    assert_eq!(planned.len(), 10);
    let all: Vec<PathBuf> = listed.0.iter().chain(&listed.1).cloned().collect();
    for ((p, d), path) in planned.iter().zip(&done).zip(&all) {
        assert_eq!((&p.path, &d.path), (path, path));
        assert_eq!(p.len, d.len, "{}", path.display());
        assert_eq!(std::fs::metadata(path).unwrap().len(), p.len as u64);
    }
    let v = VerifySink::default();
    bake(&v);
    assert!(v.records().iter().all(|r| r.outcome == OutputStatus::Same));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A sink writing behind the caller writes the same files, in the same
/// order, as one writing within each call; a file it cannot write is
/// reported when the sink is settled, naming the file, and no file after
/// it is written — as when writing within the calls.
#[test]
fn a_background_file_sink_writes_what_a_plain_one_does_and_fails_alike() {
    let dir = scratch("background");
    let (job, clips) = hero(&dir);
    let plain = FileSink::new(Root::new(&job.output.dir));
    let written = write_outputs(&job, &clips, &plain).unwrap();
    let bytes: Vec<Vec<u8>> = written.iter().map(|p| std::fs::read(p).unwrap()).collect();
    std::fs::remove_dir_all(dir.join("out")).unwrap();

    let behind = FileSink::in_background(Root::new(&job.output.dir));
    assert_eq!(write_outputs(&job, &clips, &behind).unwrap(), written);
    behind.settle().unwrap();
    assert_eq!(behind.records(), plain.records());
    let again: Vec<Vec<u8>> = written.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert_eq!(again, bytes);

    // A folder where the sheet goes: the rename over it fails. The frames
    // before it are written, the JSON and GIFs after it are not.
    std::fs::remove_dir_all(dir.join("out")).unwrap();
    let sheet = dir.join("out/hero.png");
    assert_eq!(written[6], sheet);
    std::fs::create_dir_all(&sheet).unwrap();
    let expect = write_outputs(&job, &clips, &FileSink::new(Root::new(&job.output.dir)))
        .unwrap_err()
        .to_string();
    assert!(expect.contains("hero.png"), "{expect}");
    for p in &written[7..] {
        assert!(!p.exists(), "{} written after the failure", p.display());
    }
    std::fs::remove_dir_all(dir.join("out")).unwrap();
    std::fs::create_dir_all(&sheet).unwrap();
    let behind = FileSink::in_background(Root::new(&job.output.dir));
    write_outputs(&job, &clips, &behind).unwrap();
    assert_eq!(behind.settle().unwrap_err().to_string(), expect);
    let records: Vec<PathBuf> = behind.records().into_iter().map(|r| r.path).collect();
    assert_eq!(records, written[..6]);
    for (i, p) in written.iter().enumerate() {
        assert_eq!(p.is_file(), i < 6, "{}", p.display());
    }
    // Settled, the sink writes again.
    behind.write(&dir.join("out/again.txt"), b"again").unwrap();
    behind.settle().unwrap();
    assert_eq!(std::fs::read(dir.join("out/again.txt")).unwrap(), b"again");
    assert_eq!(behind.records().len(), 7);
    let _ = std::fs::remove_dir_all(&dir);
}
