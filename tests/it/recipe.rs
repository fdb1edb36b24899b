use glam::Vec3;
use kiln::internals::bake::recipe::defaults::DEFAULT_CLIP_NAME;
use kiln::internals::bake::recipe::*;
use kiln::internals::camera::{yaw_pitch_vector, Framing, LightSpace, LightSpec, Projection};
use kiln::internals::scene::clip::{Clip, Step};
use kiln::internals::spec::{FileRef, Lod, RestPose, SkeletonSpec};
use std::path::{Path, PathBuf};

fn parse(text: &str) -> Vec<Job> {
    match Recipe::from_str(text, Path::new("recipes/demo.yaml")) {
        Ok(r) => r.jobs(),
        Err(e) => panic!("unexpected error: {e}"),
    }
}

fn err(text: &str) -> String {
    match Recipe::from_str(text, Path::new("recipe.yaml")) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).abs().max_element() < 1e-5
}

const EXAMPLE: &str = r##"
defaults:
  size: 96x64
jobs:
  - name: windmill
    model: windmill.rsm2
    data: [../data]
    clip: { start: 0.0, end: 2.0, fps: 12 }
    directions: 8
    pitch: 30
    size: 128x128
    camera: { projection: orthographic, padding: 0.05, zoom: 1.0, fov: 35 }
    light: { yaw: -45, pitch: 45, color: [1,1,1], ambient: [0.45,0.45,0.45] }
    background: transparent
    antialias: 2
    output:
      dir: out/windmill
      frames: "{name}_{dir}_{frame}.png"
      sheet: "{name}.png"
      gif: "{name}_{dir}.gif"
  - name: tower
    model: sub/tower.rsm
    directions: [0, 90, 180, 270]
    background: "#10203080"
    output: { gif: "{name}_{yaw}.gif", sheet: false }
"##;

#[test]
fn example_recipe_resolves_every_key() {
    let jobs = parse(EXAMPLE);
    assert_eq!(jobs.len(), 2);
    let w = &jobs[0];
    assert_eq!(w.name, "windmill");
    assert_eq!(w.recipe, PathBuf::from("recipes/demo.yaml"));
    assert_eq!(w.line, 5);
    assert_eq!(w.model.model.disk, PathBuf::from("recipes/windmill.rsm2"));
    assert_eq!(w.model.data, vec![PathBuf::from("recipes/../data")]);
    assert_eq!(
        w.clips[0].clip,
        Clip::Range {
            start: 0.0,
            end: Some(2.0),
            step: Step::Fps(12.0)
        }
    );
    let yaws: Vec<f32> = w.directions.iter().map(|d| d.yaw).collect();
    assert_eq!(yaws, [0.0, 45.0, 90.0, 135.0, 180.0, 225.0, 270.0, 315.0]);
    assert_eq!(w.directions[3].index, 3);
    assert_eq!(w.view.pitch, 30.0);
    assert_eq!((w.view.width, w.view.height), (128, 128));
    assert_eq!(
        w.view.framing,
        Framing {
            projection: Projection::Orthographic,
            padding: 0.05,
            zoom: 1.0,
            pixels_per_unit: None,
        }
    );
    assert!(close(w.view.light.direction, yaw_pitch_vector(-45.0, 45.0)));
    assert!(close(
        w.view.light.direction,
        Vec3::new(-0.5, 0.70710677, 0.5)
    ));
    assert_eq!(w.view.light.space, LightSpace::Camera);
    assert_eq!(w.view.light.color, Vec3::ONE);
    assert_eq!(w.view.light.ambient, Vec3::splat(0.45));
    assert_eq!(w.view.background, [0, 0, 0, 0]);
    assert_eq!(w.view.antialias, 2);
    assert_eq!(w.output.dir, PathBuf::from("recipes/out/windmill"));
    assert_eq!(
        w.output.sheet,
        Some(PathBuf::from("recipes/out/windmill/windmill.png"))
    );
    assert_eq!(
        w.output.meta,
        Some(PathBuf::from("recipes/out/windmill/windmill.json"))
    );
    assert_eq!(
        w.frame_path(0, 1, 3),
        Some(PathBuf::from("recipes/out/windmill/windmill_1_3.png"))
    );
    assert_eq!(
        w.gif_path(0, 7),
        Some(PathBuf::from("recipes/out/windmill/windmill_7.gif"))
    );
    assert_eq!(w.gif_path(0, 8), None);

    let t = &jobs[1];
    assert_eq!(t.model.model.disk, PathBuf::from("recipes/sub/tower.rsm"));
    // From `defaults:`.
    assert_eq!((t.view.width, t.view.height), (96, 64));
    let yaws: Vec<f32> = t.directions.iter().map(|d| d.yaw).collect();
    assert_eq!(yaws, [0.0, 90.0, 180.0, 270.0]);
    assert_eq!(t.view.background, [0x10, 0x20, 0x30, 0x80]);
    assert_eq!(t.output.sheet, None);
    assert_eq!(t.output.meta, None);
    assert_eq!(t.output.frames, None);
    assert_eq!(t.frame_path(0, 0, 0), None);
    assert_eq!(
        t.gif_path(0, 2),
        Some(PathBuf::from("recipes/out/tower/tower_180.gif"))
    );
}

#[test]
fn built_in_defaults_and_merged_defaults() {
    let jobs = parse("jobs:\n  - name: a\n    model: a.rsm\n");
    let a = &jobs[0];
    assert_eq!(a.model.data, Vec::<PathBuf>::new());
    assert_eq!(
        a.clips[0].clip,
        Clip::Range {
            start: 0.0,
            end: None,
            step: Step::Fps(12.0)
        }
    );
    assert_eq!(a.directions.len(), 8);
    assert_eq!(a.view.pitch, 30.0);
    assert_eq!((a.view.width, a.view.height), (128, 128));
    assert_eq!(
        a.view.framing,
        Framing {
            projection: Projection::Orthographic,
            padding: 0.05,
            zoom: 1.0,
            pixels_per_unit: None,
        }
    );
    assert!(close(a.view.light.direction, yaw_pitch_vector(-45.0, 45.0)));
    assert_eq!(a.view.light.ambient, Vec3::splat(0.45));
    assert_eq!(a.view.background, [0, 0, 0, 0]);
    assert_eq!(a.view.antialias, 2);
    assert_eq!(a.output.dir, PathBuf::from("recipes/out/a"));
    assert_eq!(a.output.sheet, Some(PathBuf::from("recipes/out/a/a.png")));
    assert_eq!(a.output.meta, Some(PathBuf::from("recipes/out/a/a.json")));
    assert_eq!(a.output.gif, None);

    // Nested keys merge one by one; a job's light orientation replaces the
    // default orientation as a whole.
    let jobs = parse(
        "defaults:\n  camera: {projection: perspective, fov: 50}\n  light: {yaw: 90, pitch: 0, ambient: [0.1, 0.2, 0.3]}\n  output: {dir: 'build/{name}', gif: '{name}-{dir}.gif'}\njobs:\n  - name: b\n    model: b.rsm\n    camera: {zoom: 2}\n    light: {direction: [0, 0, 2]}\n",
    );
    let b = &jobs[0];
    assert_eq!(
        b.view.framing,
        Framing {
            projection: Projection::Perspective { fov_deg: 50.0 },
            padding: 0.05,
            zoom: 2.0,
            pixels_per_unit: None,
        }
    );
    assert_eq!(b.view.light.direction, Vec3::Z);
    assert_eq!(b.view.light.ambient, Vec3::new(0.1, 0.2, 0.3));
    assert_eq!(b.output.dir, PathBuf::from("recipes/build/b"));
    assert_eq!(
        b.gif_path(0, 1),
        Some(PathBuf::from("recipes/build/b/b-1.gif"))
    );
}

#[test]
fn value_spellings() {
    let j = |extra: &str| parse(&format!("jobs:\n  - name: a\n    model: a.rsm\n{extra}"));
    assert_eq!(j("    size: [320, 200]\n")[0].view.width, 320);
    assert_eq!(j("    size: [320, 200]\n")[0].view.height, 200);
    assert_eq!(
        (
            j("    size: 48\n")[0].view.width,
            j("    size: 48\n")[0].view.height
        ),
        (48, 48)
    );
    assert_eq!(
        j("    background: '#FFa000'\n")[0].view.background,
        [255, 160, 0, 255]
    );
    assert_eq!(
        j("    data: textures\n")[0].model.data,
        vec![PathBuf::from("recipes/textures")]
    );
    assert_eq!(
        j("    clip: {time: 0.5}\n")[0].clips[0].clip,
        Clip::Still { time: 0.5 }
    );
    assert_eq!(
        j("    clip: {frames: 16}\n")[0].clips[0].clip,
        Clip::Range {
            start: 0.0,
            end: None,
            step: Step::Frames(16)
        }
    );
    let three = j("    directions: 3\n");
    let yaws: Vec<f32> = three[0].directions.iter().map(|d| d.yaw).collect();
    assert_eq!(yaws, [0.0, 120.0, 240.0]);
}

#[test]
fn clip_frame_times() {
    let fps = Clip::Range {
        start: 0.0,
        end: Some(2.0),
        step: Step::Fps(12.0),
    };
    let t = fps.frame_times(99.0).unwrap();
    assert_eq!(t.times.len(), 24);
    assert_eq!(t.times[1], 1.0 / 12.0);
    assert_eq!(t.times[23], 23.0 / 12.0);
    assert_eq!(t.frame_seconds, 1.0 / 12.0);

    // `end` from the model; 1.05 s at 10 fps needs an 11th frame at 1.0 s.
    let open = Clip::Range {
        start: 0.0,
        end: None,
        step: Step::Fps(10.0),
    };
    assert_eq!(open.frame_times(1.05).unwrap().times.len(), 11);
    assert_eq!(open.frame_times(1.0).unwrap().times.len(), 10);
    // A static model still gives one frame.
    assert_eq!(open.frame_times(0.0).unwrap().times, vec![0.0]);

    let spread = Clip::Range {
        start: 1.0,
        end: None,
        step: Step::Frames(4),
    };
    let t = spread.frame_times(3.0).unwrap();
    assert_eq!(t.times, vec![1.0, 1.5, 2.0, 2.5]);
    assert_eq!(t.frame_seconds, 0.5);
    assert_eq!(t.fps(), 2.0);
    assert_eq!(
        spread.frame_times(0.5).unwrap_err(),
        "clip starts at 1 s but the animation ends at 0.5 s"
    );

    let still = Clip::Still { time: 0.25 };
    assert_eq!(still.frame_times(5.0).unwrap().times, vec![0.25]);
    assert!(still.is_single());

    let long = Clip::Range {
        start: 0.0,
        end: None,
        step: Step::Fps(1000.0),
    };
    assert_eq!(
        long.frame_times(10.0).unwrap_err(),
        "clip of 10 s at 1000 fps is 10000 frames, more than 4096"
    );
}

#[test]
fn light_and_camera_geometry() {
    let l = LightSpec {
        direction: Vec3::Z,
        space: LightSpace::Camera,
        color: Vec3::ONE,
        ambient: Vec3::ZERO,
    };
    // Light from the viewer follows a camera turned to yaw 90 (looking from +X).
    assert!(close(l.world_direction(90.0), Vec3::X));
    let world = LightSpec {
        space: LightSpace::World,
        ..l
    };
    assert!(close(world.world_direction(90.0), Vec3::Z));
}

#[test]
fn errors_name_file_line_column_and_job() {
    let base = "jobs:\n  - name: a\n    model: m.rsm\n";
    let cases: &[(&str, &str)] = &[
        (
            "jobs:\n  - name: windmill\n    model: m.rsm\n    sise: 3\n",
            "recipe.yaml:4:5: job 'windmill': unknown key `sise`; did you mean `size`?",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\nfoo: 1\n",
            "recipe.yaml:4:1: unknown key `foo`, expected one of defaults, jobs, maps, gallery",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    camera: {zom: 2}\n",
            "recipe.yaml:4:14: job 'a': unknown key `zom`; did you mean `zoom`?",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n  - name: b\n    model: m.rsm\n    size: 0x4\n",
            "recipe.yaml:6:11: job 'b': `size` `0x4` reads as a number; write sizes as WIDTHxHEIGHT with both sides at least 1",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    size: 8193x16\n",
            "recipe.yaml:4:11: job 'a': `size` sides must be in 1..=8192, got 8193x16",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    size: big\n",
            "recipe.yaml:4:11: job 'a': expected a size like 128x96, got `big`",
        ),
        (
            "defaults:\n  size: 9000x3\njobs:\n  - name: a\n    model: m.rsm\n",
            "recipe.yaml:2:9: defaults (used by job 'a'): `size` sides must be in 1..=8192, got 9000x3",
        ),
        (
            "defaults:\n  pitch: high\njobs:\n  - name: a\n    model: m.rsm\n",
            "recipe.yaml:2:10: defaults: expected a number, got `high`",
        ),
        (
            "defaults:\n  name: x\njobs:\n  - name: a\n    model: m.rsm\n",
            "recipe.yaml:2:9: defaults: `name` cannot have a default; every job needs its own",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    pitch: 91\n",
            "recipe.yaml:4:12: job 'a': `pitch` must be in [-90, 90], got 91",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n  - {name: b, model: m.rsm, antialias: 9}\n",
            "recipe.yaml:4:40: job 'b': `antialias` must be in 1..=4, got 9",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    clip: {fps: 12, frames: 3}\n",
            "recipe.yaml:4:29: job 'a': give either `clip.fps` or `clip.frames`, not both",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    clip: {fps: 0}\n",
            "recipe.yaml:4:17: job 'a': `clip.fps` must be in [0.01, 1000], got 0",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    clip: {start: 2, end: 1}\n",
            "recipe.yaml:4:27: job 'a': `clip.end` (1) must be after `clip.start` (2)",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    clip: {time: 1, fps: 3}\n",
            "recipe.yaml:4:26: job 'a': `clip.time` takes a single frame; `clip.fps` cannot be used with it",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    directions: 0\n",
            "recipe.yaml:4:17: job 'a': `directions` must be in 1..=360, got 0",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    directions: []\n",
            "recipe.yaml:4:17: job 'a': `directions` needs at least one yaw angle",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    directions: [0, 90, 0]\n",
            "recipe.yaml:4:17: job 'a': `directions[2]` repeats yaw 0 of directions[0]",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    background: '#12345'\n",
            "recipe.yaml:4:17: job 'a': expected `transparent`, \"#rrggbb\" or \"#rrggbbaa\" (quoted: # starts a YAML comment), got `#12345`",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    light: {yaw: 1, direction: [1,0,0]}\n",
            "recipe.yaml:4:32: job 'a': give the light either as `direction` or as `yaw`/`pitch`, not both",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    light: {color: [1, 5, 1]}\n",
            "recipe.yaml:4:20: job 'a': `light.color` components must be in [0, 4], got [1.0, 5.0, 1.0]",
        ),
        (
            "jobs:\n- name: a\n  model: m.rsm\n  camera: {zoom: 0}\n",
            "recipe.yaml:4:18: job 'a': `camera.zoom` must be in (0, 100], got 0",
        ),
        (
            "jobs:\n  - name: a\n",
            "recipe.yaml:2:5: job 'a': missing key `model`",
        ),
        (
            "jobs:\n  - model: m.rsm\n",
            "recipe.yaml:2:5: job #1: missing key `name`",
        ),
        (
            "jobs:\n  - name: a/b\n    model: m.rsm\n",
            "recipe.yaml:2:11: job 'a/b': job name `a/b` is used in file names, so it cannot contain /, \\, {, } or control characters",
        ),
        ("jobs: []\n", "recipe.yaml:1:7: jobs: the recipe has no jobs"),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n  - name: a\n    model: m.rsm\n",
            "recipe.yaml:4:11: job 'a': duplicate job name; line 2 already uses it",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n  - name: b\n    model: m.rsm\n    output: {dir: out/a, sheet: a.png}\n",
            "recipe.yaml:6:33: job 'b': output `out/a/a.png` (`output.sheet`) is also written by job 'a' (`output.sheet`)",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    output: {frames: 'x_{frame}.png'}\n",
            "recipe.yaml:4:22: job 'a': `output.frames` must contain `{dir}` or `{yaw}`, or its files overwrite each other",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    directions: 1\n    output: {frames: 'x.png'}\n",
            "recipe.yaml:5:22: job 'a': `output.frames` must contain `{frame}`, or its files overwrite each other",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    output: {sheet: '{name}_{frame}.png'}\n",
            "recipe.yaml:4:21: job 'a': `output.sheet`: placeholder `{frame}` cannot be used in `{name}_{frame}.png`, expected only `{name}`",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    output: {gif: '{nam}.gif'}\n",
            "recipe.yaml:4:19: job 'a': `output.gif`: unknown placeholder `{nam}` in `{nam}.gif`, expected one of `{name}`, `{clip}`, `{dir}`, `{yaw}`",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    output: {sheet: false}\n",
            "recipe.yaml:2:5: job 'a': every output is switched off; nothing to write",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    antialias: 2.5\n",
            "recipe.yaml:4:16: job 'a': expected a whole number, got 2.5",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    camera: {projection: fisheye}\n",
            "recipe.yaml:4:26: job 'a': unknown variant `fisheye`, expected one of orthographic, perspective",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    output: {sheet: true}\n",
            "recipe.yaml:4:21: job 'a': expected a file name, or false to turn this output off, got true",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    light: {color: [1, 2]}\n",
            "recipe.yaml:4:13: job 'a': invalid length 2, expected an array of length 3",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    clip: 3\n",
            "recipe.yaml:4:11: job 'a': expected mapping start",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    directions: [10.2, 10.4]\n    output: {gif: 'a_{yaw}.gif'}\n",
            "recipe.yaml:5:19: job 'a': `output.gif` names files by `{yaw}` in whole degrees, but yaws 10.2 and 10.4 both give 10; use `{dir}`",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    clip: {start: -1}\n",
            "recipe.yaml:4:19: job 'a': `clip.start` must be at least 0 seconds, got -1",
        ),
        (
            "jobs:\n  - name: a\n    model: m.rsm\n    clip: {time: .inf}\n",
            "recipe.yaml:4:18: job 'a': `clip.time` must be a finite number, got inf",
        ),
        (
            "jobs:\n  - name: a\n    model: [1]\n",
            "recipe.yaml:3:12: job 'a': expected string scalar",
        ),
    ];
    let mut wrong = Vec::new();
    for (text, want) in cases {
        let got = err(text);
        if &got != want {
            wrong.push(format!("recipe:\n{text}\n  got: {got}\n want: {want}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    // The base recipe itself is fine, so each case fails for its own reason.
    assert_eq!(parse(base).len(), 1);
}

#[test]
fn error_snippet_points_at_the_column() {
    let text = "jobs:\n  - name: a\n    model: m.rsm\n    pitch: 91\n";
    let e = Recipe::from_str(text, Path::new("r.yaml")).unwrap_err();
    assert_eq!((e.line, e.column), (4, 12));
    assert_eq!(e.context.as_deref(), Some("job 'a'"));
    assert_eq!(
        e.snippet(text),
        "    4 |     pitch: 91\n      |            ^"
    );
}

#[test]
fn load_reports_unreadable_files() {
    let e = Recipe::load(Path::new("no/such/recipe.yaml")).unwrap_err();
    assert_eq!(e.line, 0);
    assert!(
        e.to_string()
            .starts_with("no/such/recipe.yaml: cannot read recipe: "),
        "{e}"
    );
}

#[test]
fn broken_yaml_never_panics() {
    for text in [
        "",
        ":",
        "jobs: [",
        "jobs:\n  - name: a\n   model: b\n",
        "jobs:\n  - &x {name: a, model: m}\n  - *x\n",
        "jobs: 3",
        "\t\t",
        "jobs:\n  - name: a\n    model: m\n    size: [1]\n",
        "jobs:\n  - name: a\n    model: m\n    size: [1, 2, 3]\n",
        "jobs:\n  - name: a\n    model: m\n    size: 99999999999999999999x2\n",
        "jobs:\n  - name: a\n    model: m\n    directions: [.nan]\n",
        "jobs:\n  - name: a\n    model: m\n    clip: {end: .inf}\n",
        "jobs:\n  - name: a\n    model: m\n    pitch: yes\n",
    ] {
        assert!(
            Recipe::from_str(text, Path::new("r.yaml")).is_err(),
            "{text:?}"
        );
    }
}

#[test]
fn readme_recipe_example_is_valid() {
    for section in documented_examples() {
        readme_recipe_example_holds(&section);
    }
}

/// The recipe examples as the README and the reference show them (the same
/// two), each from its section's heading on.
fn documented_examples() -> Vec<String> {
    [
        ("README.md", "## Recipe reference"),
        ("docs/recipes.md", "## Two examples"),
    ]
    .iter()
    .map(|(file, heading)| {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let text = std::fs::read_to_string(&p).unwrap();
        let at = text
            .find(heading)
            .unwrap_or_else(|| panic!("{file} has no {heading:?}"));
        text[at..].to_string()
    })
    .collect()
}

fn readme_recipe_example_holds(section: &str) {
    let start = section.find("```yaml\n").expect("yaml block") + 8;
    let len = section[start..].find("```").unwrap();
    let jobs = Recipe::from_str(&section[start..start + len], Path::new("r/demo.yaml"))
        .unwrap_or_else(|e| panic!("README example: {e}"))
        .jobs();
    let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["windmill", "tower"]);
    // `output` from defaults merges with the job's own output keys.
    assert_eq!(
        jobs[0].gif_path(0, 1),
        Some(PathBuf::from("r/out/windmill/windmill_1.gif"))
    );
    assert_eq!(
        jobs[0].frame_path(0, 0, 2),
        Some(PathBuf::from("r/out/windmill/windmill_0_2.png"))
    );
    assert_eq!(jobs[1].view.background, [0x20, 0x30, 0x40, 255]);
}

#[test]
fn truncated_recipes_never_panic() {
    let lines = EXAMPLE.lines().count() as u64;
    for (i, _) in EXAMPLE.char_indices() {
        if let Err(e) = Recipe::from_str(&EXAMPLE[..i], Path::new("r.yaml")) {
            assert!(e.line <= lines + 1, "line {} past the end: {e}", e.line);
        }
    }
}

const CLIPS: &str = r#"jobs:
  - name: warrior
    model: skeleton_warrior_axe.model
    clips:
      - { name: walk, animation: animations/walk.animation, fps: 24 }
      - { name: idle, animation: animations/idle.animation, frames: 8 }
      - { name: still, time: 0.5 }
      - { animation: anims/attack.animation, start: 0.25, end: 1 }
      - { end: 1 }
    pose: bind
    materials:
      skeleton_warrior: textures/skeleton_dif.png
      axe: ../shared/axe.png
    skeleton: { config: model.cfg, class: OFP2_ManSkeleton }
    duration: 1.2
    lod: 3
    output: { gif: "{name}_{clip}_{dir}.gif", frames: "{clip}/{yaw}_{frame}.png" }
  - name: ruin
    model: ruin.p3d
    clip: { time: 0 }
    lod: { resolution: 1.5 }
"#;

#[test]
fn clips_and_model_options_resolve() {
    let jobs = parse(CLIPS);
    let w = &jobs[0];
    assert!(w.named_clips);
    let fps24 = Clip::Range {
        start: 0.0,
        end: None,
        step: Step::Fps(24.0),
    };
    assert_eq!(
        w.clips,
        vec![
            ClipSpec {
                embedded: Default::default(),
                name: "walk".into(),
                animation: Some(FileRef {
                    disk: PathBuf::from("recipes/animations/walk.animation"),
                    written: "animations/walk.animation".into()
                }),
                clip: fps24,
                looping: None,
                root_motion: None,
                line: 5,
            },
            ClipSpec {
                embedded: Default::default(),
                name: "idle".into(),
                animation: Some(FileRef {
                    disk: PathBuf::from("recipes/animations/idle.animation"),
                    written: "animations/idle.animation".into()
                }),
                clip: Clip::Range {
                    start: 0.0,
                    end: None,
                    step: Step::Frames(8)
                },
                looping: None,
                root_motion: None,
                line: 6,
            },
            ClipSpec {
                embedded: Default::default(),
                name: "still".into(),
                animation: None,
                clip: Clip::Still { time: 0.5 },
                looping: None,
                root_motion: None,
                line: 7,
            },
            // Unnamed: named after the animation file, else the position.
            ClipSpec {
                embedded: Default::default(),
                name: "attack".into(),
                animation: Some(FileRef {
                    disk: PathBuf::from("recipes/anims/attack.animation"),
                    written: "anims/attack.animation".into()
                }),
                clip: Clip::Range {
                    start: 0.25,
                    end: Some(1.0),
                    step: Step::Fps(12.0)
                },
                looping: None,
                root_motion: None,
                line: 8,
            },
            ClipSpec {
                embedded: Default::default(),
                name: "clip4".into(),
                animation: None,
                clip: Clip::Range {
                    start: 0.0,
                    end: Some(1.0),
                    step: Step::Fps(12.0)
                },
                looping: None,
                root_motion: None,
                line: 9,
            },
        ]
    );
    assert_eq!(w.model.pose, RestPose::Bind);
    assert_eq!(
        w.model.materials,
        vec![
            (
                "skeleton_warrior".to_string(),
                FileRef {
                    disk: PathBuf::from("recipes/textures/skeleton_dif.png"),
                    written: "textures/skeleton_dif.png".into()
                }
            ),
            (
                "axe".to_string(),
                FileRef {
                    disk: PathBuf::from("recipes/../shared/axe.png"),
                    written: "../shared/axe.png".into()
                }
            ),
        ]
    );
    assert_eq!(
        w.model.animation.skeleton,
        Some(SkeletonSpec::Config {
            config: FileRef {
                disk: PathBuf::from("recipes/model.cfg"),
                written: "model.cfg".into()
            },
            class: "OFP2_ManSkeleton".into()
        })
    );
    assert_eq!(w.model.animation.duration, Some(1.2));
    assert_eq!(w.model.lod, Some(Lod::Index(3)));
    assert_eq!(
        w.gif_path(1, 2),
        Some(PathBuf::from("recipes/out/warrior/warrior_idle_2.gif"))
    );
    assert_eq!(
        w.frame_path(4, 1, 7),
        Some(PathBuf::from("recipes/out/warrior/clip4/45_7.png"))
    );
    assert_eq!(w.frame_path(5, 0, 0), None);

    let r = &jobs[1];
    assert!(!r.named_clips);
    assert_eq!(
        r.clips,
        vec![ClipSpec {
            embedded: Default::default(),
            name: DEFAULT_CLIP_NAME.into(),
            animation: None,
            clip: Clip::Still { time: 0.0 },
            looping: None,
            root_motion: None,
            line: 20,
        }]
    );
    assert_eq!(r.model.lod, Some(Lod::Resolution(1.5)));
    // Built-in defaults of the model options.
    assert_eq!(r.model.pose, RestPose::Nodes);
    assert_eq!(r.model.materials, Vec::<(String, FileRef)>::new());
    assert_eq!(r.model.animation.skeleton, None);
    assert_eq!(r.model.animation.duration, None);
}

#[test]
fn clip_choice_of_a_job_replaces_the_defaults() {
    let jobs = parse(
        "defaults:\n  clips: [{name: a}, {name: b, time: 1}]\n  pose: bind\n  output: {gif: '{clip}_{dir}.gif'}\njobs:\n  - name: x\n    model: m.rsm\n  - name: y\n    model: m.rsm\n    clip: {frames: 2}\n  - name: z\n    model: m.rsm\n",
    );
    let names: Vec<&str> = jobs[0].clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert!(jobs[0].named_clips);
    assert_eq!(jobs[0].clips[1].line, 2);
    assert_eq!(jobs[0].model.pose, RestPose::Bind);
    assert_eq!(jobs[1].clips.len(), 1);
    assert_eq!(jobs[1].clips[0].name, "default");
    assert_eq!(jobs[1].clips[0].line, 10);
    assert!(!jobs[1].named_clips);
    // No clip at all: the default clip, on the job's own line.
    let plain = parse("jobs:\n  - name: a\n    model: m.rsm\n");
    assert_eq!(plain[0].clips[0].line, 2);
    assert_eq!(plain[0].clips[0].name, "default");
    assert_eq!(jobs[2].clips.len(), 2);
}

#[test]
fn clip_and_model_option_errors() {
    let head = "jobs:\n  - name: a\n    model: m.rsm\n";
    let cases: &[(&str, &str)] = &[
        (
            "    clip: {fps: 3}\n    clips: [{name: w}]\n",
            "recipe.yaml:5:12: job 'a': give either `clip` or `clips`, not both",
        ),
        (
            "    clips: []\n",
            "recipe.yaml:4:12: job 'a': `clips` needs at least one clip",
        ),
        (
            "    clips: [{name: w}, {name: w}]\n",
            "recipe.yaml:4:31: job 'a': `clips[1]` is named `w` like `clips[0]`; clip names must be unique",
        ),
        (
            "    clips: [{animation: x/walk.anim}, {animation: y/walk.rtm}]\n",
            "recipe.yaml:4:51: job 'a': `clips[1]` is named `walk` like `clips[0]`; clip names must be unique",
        ),
        (
            "    clips: [{name: w, time: 0, fps: 3}]\n",
            "recipe.yaml:4:37: job 'a': `clips[0].time` takes a single frame; `clips[0].fps` cannot be used with it",
        ),
        (
            "    clips:\n      - {name: w}\n      - {name: v, fps: 0}\n",
            "recipe.yaml:6:24: job 'a': `clips[1].fps` must be in [0.01, 1000], got 0",
        ),
        (
            "    clips: [{name: w, start: 2, end: 1}]\n",
            "recipe.yaml:4:38: job 'a': `clips[0].end` (1) must be after `clips[0].start` (2)",
        ),
        (
            "    clips: [{name: w, speed: 2}]\n",
            "recipe.yaml:4:23: job 'a': unknown key `speed`, expected one of name, animation, embedded, start, end, fps, frames, time, loop, root_motion",
        ),
        (
            "    clips: [{name: 'w/x'}]\n",
            "recipe.yaml:4:20: job 'a': `clips[0].name`: clip name `w/x` is used in file names, so it cannot contain /, \\, {, } or control characters",
        ),
        (
            "    clips: [{name: w, animation: ''}]\n",
            "recipe.yaml:4:34: job 'a': `clips[0].animation` is empty",
        ),
        (
            "    clips: [{name: w}, {name: v}]\n    output: {gif: '{name}_{dir}.gif'}\n",
            "recipe.yaml:5:19: job 'a': `output.gif` must contain `{clip}`, or its files overwrite each other",
        ),
        (
            "    clips: [{name: w}, {name: v}]\n    output: {frames: '{dir}_{frame}.png'}\n",
            "recipe.yaml:5:22: job 'a': `output.frames` must contain `{clip}`, or its files overwrite each other",
        ),
        (
            "    clips: [{name: w, time: 0}, {name: v}]\n    directions: 1\n    output: {frames: '{clip}.png'}\n",
            "recipe.yaml:6:22: job 'a': `output.frames` must contain `{frame}`, or its files overwrite each other",
        ),
        (
            "    output: {sheet: '{clip}.png'}\n",
            "recipe.yaml:4:21: job 'a': `output.sheet`: placeholder `{clip}` cannot be used in `{clip}.png`, expected only `{name}`",
        ),
        (
            "    pose: tpose\n",
            "recipe.yaml:4:11: job 'a': unknown variant `tpose`, expected one of rest, bind",
        ),
        (
            "    materials: {skin: ''}\n",
            "recipe.yaml:4:23: job 'a': `materials.skin` is empty; give a texture file",
        ),
        (
            "    materials: [a.png]\n",
            "recipe.yaml:4:16: job 'a': expected mapping start",
        ),
        (
            "    materials: {a: x.png, a: y.png}\n",
            "recipe.yaml:4:27: job 'a': duplicate mapping key: a",
        ),
        (
            "    lod: {res: 1}\n",
            "recipe.yaml:4:10: job 'a': unknown key `res`, expected resolution",
        ),
        (
            "    skeleton: {config: a.cfg}\n",
            "recipe.yaml:4:15: job 'a': `skeleton` has `config` but no `class` (the skeleton's class name in it)",
        ),
        (
            "    skeleton: {config: a.cfg, class: ''}\n",
            "recipe.yaml:4:38: job 'a': `skeleton.class` is empty",
        ),
        (
            "    duration: 0\n",
            "recipe.yaml:4:15: job 'a': `duration` must be in (0, 86400], got 0",
        ),
        (
            "    lod: -1\n",
            "recipe.yaml:4:10: job 'a': `lod` index must be in 0..=255, got -1",
        ),
        (
            "    lod: 1.5\n",
            "recipe.yaml:4:10: job 'a': expected a LOD index (a whole number) or `{resolution: R}`, got 1.5",
        ),
        (
            "    lod: {resolution: -2}\n",
            "recipe.yaml:4:10: job 'a': `lod.resolution` must be a finite number at least 0, got -2",
        ),
    ];
    let mut wrong = Vec::new();
    for (extra, want) in cases {
        let text = format!("{head}{extra}");
        let got = err(&text);
        if &got != want {
            wrong.push(format!("recipe:\n{text}\n  got: {got}\n want: {want}"));
        }
    }
    // From `defaults:`, labelled with the job that uses them.
    let got =
        err("defaults:\n  clips: [{name: w}, {name: w}]\njobs:\n  - name: a\n    model: m.rsm\n");
    let want = "recipe.yaml:2:29: defaults (used by job 'a'): `clips[1]` is named `w` like `clips[0]`; clip names must be unique";
    if got != want {
        wrong.push(format!("defaults case\n  got: {got}\n want: {want}"));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn readme_clips_example_is_valid() {
    for section in documented_examples() {
        readme_clips_example_holds(&section);
    }
}

fn readme_clips_example_holds(section: &str) {
    let first = section.find("```yaml\n").expect("first yaml block") + 8;
    let rest = &section[first..];
    let start = rest.find("```yaml\n").expect("second yaml block") + 8;
    let len = rest[start..].find("```").unwrap();
    let jobs = Recipe::from_str(&rest[start..start + len], Path::new("r/demo.yaml"))
        .unwrap_or_else(|e| panic!("README clips example: {e}"))
        .jobs();
    let w = &jobs[0];
    let names: Vec<&str> = w.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["walk", "idle", "still"]);
    assert_eq!(
        w.clips[0].animation.as_ref().map(|f| f.disk.clone()),
        Some(PathBuf::from(
            "r/animations/skeleton_warrior_axe_walk.animation"
        ))
    );
    assert_eq!(w.model.pose, RestPose::Nodes);
    assert_eq!(
        w.gif_path(2, 3),
        Some(PathBuf::from("r/out/warrior/warrior_still_3.gif"))
    );
    let s = &jobs[1];
    assert_eq!(s.model.lod, Some(Lod::Index(0)));
    assert_eq!(s.model.animation.duration, Some(1.2));
    assert_eq!(
        s.model.animation.skeleton.as_ref().and_then(|k| match k {
            SkeletonSpec::Config { class, .. } => Some(class.as_str()),
            SkeletonSpec::Bones(_) => None,
        }),
        Some("OFP2_ManSkeleton")
    );
    assert_eq!(s.clips[0].name, "run");
}

#[test]
fn skeleton_inline_bones_and_their_errors() {
    let ok = "jobs:\n  - name: a\n    model: m.p3d\n    skeleton: { bones: [[Pelvis, \"\"], [Spine, Pelvis]] }\n";
    let jobs = Recipe::from_str(ok, Path::new("r/x.yaml")).unwrap().jobs();
    assert_eq!(
        jobs[0].model.animation.skeleton,
        Some(SkeletonSpec::Bones(vec![
            ("Pelvis".to_string(), String::new()),
            ("Spine".to_string(), "Pelvis".to_string())
        ]))
    );
    let bad = "jobs:\n  - name: a\n    model: m.p3d\n    skeleton: { bones: [[Pelvis]] }\n";
    let e = Recipe::from_str(bad, Path::new("r/x.yaml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("x.yaml:4:") && e.contains("job 'a'") && e.contains("[bone, parent] pairs"),
        "{e}"
    );
    let both = "jobs:\n  - name: a\n    model: m.p3d\n    skeleton: { config: m.cfg, bones: [[A, \"\"]] }\n";
    let e = Recipe::from_str(both, Path::new("r/x.yaml"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("either `config` and `class`, or `bones"), "{e}");
}

/// The keys of sheets an engine takes as they are — root motion, scale,
/// framing groups, packing, metadata formats, clip loops, APNG, prune —
/// resolve to what they say, with the defaults existing recipes keep.
#[test]
fn engine_keys_resolve() {
    let jobs = parse(
        "defaults:\n  pack: { layout: packed, padding: 2 }\n  metadata: [texturepacker-hash, godot]\njobs:\n  - name: a\n    model: m.model\n    root_motion: keep\n    scale: { pixels_per_unit: 32 }\n    framing: { group: monsters }\n    pack: { trim: true, extrude: 1, max_size: 2048x1024, power_of_two: true }\n    clips:\n      - { name: walk, loop: true, root_motion: in_place }\n      - { name: door, loop: false }\n    output: { apng: '{clip}_{dir:02}.png', prune: true }\n  - name: b\n    model: m.model\n    travel: true\n    metadata: [pixi, aseprite, texturepacker-array]\n    pack: { layout: grid }\n  - name: c\n    model: m.model\n    metadata: []\n",
    );
    let a = &jobs[0];
    assert_eq!(a.model.animation.root_motion, kiln::RootMotion::Keep);
    assert_eq!(a.view.framing.pixels_per_unit, Some(32.0));
    assert_eq!(
        a.framing_group.as_ref().map(|g| (g.name.as_str(), g.line)),
        Some(("monsters", 9))
    );
    assert_eq!(
        a.pack,
        PackSpec {
            layout: PackLayout::Packed,
            trim: true,
            padding: 2,
            extrude: 1,
            max_size: (2048, 1024),
            power_of_two: true,
        }
    );
    assert_eq!(
        (a.clips[0].looping, a.clips[0].root_motion),
        (Some(true), Some(kiln::RootMotion::InPlace))
    );
    assert_eq!(
        (a.clips[1].looping, a.clips[1].root_motion),
        (Some(false), None)
    );
    assert_eq!(
        a.output.metadata,
        [
            (
                MetaFormat::TexturePackerHash,
                PathBuf::from("recipes/out/a/a.json")
            ),
            (MetaFormat::Godot, PathBuf::from("recipes/out/a/a.tres")),
        ]
    );
    assert!(a.output.prune);
    assert_eq!(
        a.apng_path(1, 3),
        Some(PathBuf::from("recipes/out/a/door_03.png"))
    );
    let b = &jobs[1];
    assert_eq!(
        b.model.animation.root_motion,
        kiln::RootMotion::Keep,
        "`travel: true` is keep"
    );
    // `pack:` merges key by key: the defaults' padding stays.
    assert_eq!(
        b.pack,
        PackSpec {
            padding: 2,
            ..PackSpec::default()
        }
    );
    assert_eq!(b.output.meta, None);
    let names: Vec<&str> = b.output.metadata.iter().map(|(f, _)| f.name()).collect();
    assert_eq!(names, ["pixi", "aseprite", "texturepacker-array"]);
    assert_eq!(
        b.output.metadata[2].1,
        PathBuf::from("recipes/out/b/b.array.json")
    );
    assert!(jobs[2].output.metadata.is_empty());
    // Unset, everything stays as before: in place, fitted, a grid, the
    // JSON hash, looping as the format says.
    let plain = &parse("jobs:\n  - name: p\n    model: m.rsm\n")[0];
    assert_eq!(plain.model.animation.root_motion, kiln::RootMotion::InPlace);
    assert_eq!(plain.view.framing.pixels_per_unit, None);
    assert_eq!(plain.framing_group, None);
    assert_eq!(plain.pack, PackSpec::default());
    assert_eq!(plain.pack.max_size, (32768, 32768));
    assert_eq!(plain.clips[0].looping, None);
    assert_eq!(
        plain.output.metadata,
        [(
            MetaFormat::TexturePackerHash,
            PathBuf::from("recipes/out/p/p.json")
        )]
    );
    assert!(!plain.output.prune);
    let packed = &parse("jobs:\n  - name: p\n    model: m.rsm\n    pack: { layout: packed }\n")[0];
    assert_eq!(packed.pack.max_size, (4096, 4096));
}

#[test]
fn engine_key_errors_point_at_the_value() {
    let head = "jobs:\n  - name: a\n    model: m.rsm\n";
    let cases: &[(&str, &str)] = &[
        (
            "    root_motion: inplace\n",
            "recipe.yaml:4:18: job 'a': unknown variant `inplace`, expected one of in_place, keep",
        ),
        (
            "    root_motion: keep\n    travel: true\n",
            "recipe.yaml:5:13: job 'a': give `root_motion` or the older `travel`, not both (`travel: true` is `root_motion: keep`)",
        ),
        (
            "    scale: { pixels_per_unit: 0 }\n",
            "recipe.yaml:4:31: job 'a': `scale.pixels_per_unit` must be in (0, 1000000], got 0",
        ),
        (
            "    scale: { ppu: 3 }\n",
            "recipe.yaml:4:14: job 'a': unknown key `ppu`, expected one of pixels_per_unit",
        ),
        (
            "    scale: {}\n",
            "recipe.yaml:4:12: job 'a': `scale` needs `pixels_per_unit: N` (pixels per model unit)",
        ),
        (
            "    framing: { group: '' }\n",
            "recipe.yaml:4:23: job 'a': `framing.group` is empty",
        ),
        (
            "    pack: { trim: true }\n",
            "recipe.yaml:4:19: job 'a': `pack.trim` needs `pack.layout: packed`: a grid keeps every cell whole",
        ),
        (
            "    pack: { layout: tight }\n",
            "recipe.yaml:4:21: job 'a': unknown variant `tight`, expected one of grid, packed",
        ),
        (
            "    pack: { layout: packed, padding: 300 }\n",
            "recipe.yaml:4:38: job 'a': `pack.padding` must be in 0..=256, got 300",
        ),
        (
            "    pack: { max_size: 40000x10 }\n",
            "recipe.yaml:4:23: job 'a': `pack.max_size` sides must be in 1..=32768, got 40000x10",
        ),
        (
            "    pack: { max_size: 0x100 }\n",
            "recipe.yaml:4:23: job 'a': `pack.max_size` `0x100` reads as a number; write it as WIDTHxHEIGHT",
        ),
        (
            "    metadata: [pixi, unity]\n",
            "recipe.yaml:4:22: job 'a': unknown metadata format `unity`, expected one of texturepacker-hash, texturepacker-array, aseprite, pixi, godot",
        ),
        (
            "    metadata: [pixi, godot, pixi]\n",
            "recipe.yaml:4:29: job 'a': `metadata` lists pixi twice",
        ),
        (
            "    metadata: [texturepacker-hash]\n    output: { meta: false }\n",
            "recipe.yaml:4:15: job 'a': `metadata` lists texturepacker-hash, whose file `output.meta: false` switches off",
        ),
        (
            "    metadata: [pixi]\n    output: { meta: x.json }\n",
            "recipe.yaml:5:21: job 'a': `output.meta` names the texturepacker-hash file, which `metadata` does not list",
        ),
        (
            "    clips: [{ name: w, loop: maybe }]\n",
            "recipe.yaml:4:30: job 'a': invalid boolean",
        ),
        (
            "    output: { apng: '{name}.png' }\n",
            "recipe.yaml:4:21: job 'a': `output.apng` must contain `{dir}` or `{yaw}`, or its files overwrite each other",
        ),
        (
            "    output: { frames: '{dir}_{frame:3}.png' }\n",
            "recipe.yaml:4:23: job 'a': `output.frames`: `{frame:3}` in `{dir}_{frame:3}.png`: write a zero-padded width as `{frame:03}` (1 to 9 digits)",
        ),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(tail, want)| {
            let got = err(&format!("{head}{tail}"));
            (&got != want).then(|| format!("{tail}  got:  {got}\n  want: {want}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Jobs of one framing group must agree on what their camera depends on.
    assert_eq!(
        err("jobs:\n  - name: a\n    model: m.rsm\n    framing: { group: g }\n  - name: b\n    model: m.rsm\n    size: 64x64\n    framing: { group: g }\n"),
        "recipe.yaml:8:23: job 'b': framing group `g` shares one camera, but `size` differs from job 'a' in the same group"
    );
    assert_eq!(
        err("defaults:\n  framing: { group: g }\njobs:\n  - name: a\n    model: m.rsm\n  - name: b\n    model: m.rsm\n    directions: 4\n"),
        "recipe.yaml:2:21: job 'b': framing group `g` shares one camera, but `directions` differs from job 'a' in the same group"
    );
}
