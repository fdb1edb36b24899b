use glam::Vec3;
use kiln::internals::bake::recipe::*;
use kiln::internals::camera::{yaw_pitch_vector, Framing, LightSpace, LightSpec, Projection};
use kiln::internals::scene::clip::{Clip, Step};
use std::path::{Path, PathBuf};

pub(crate) fn parse(text: &str) -> Vec<Job> {
    match Recipe::from_str(text, Path::new("recipes/demo.yaml")) {
        Ok(r) => r.jobs().unwrap(),
        Err(e) => panic!("unexpected error: {e}"),
    }
}

pub(crate) fn err(text: &str) -> String {
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
pub(crate) fn documented_examples() -> Vec<String> {
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
        .jobs()
        .unwrap();
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
