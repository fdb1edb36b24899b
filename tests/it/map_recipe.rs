//! The `maps:` part of a recipe: what a valid one resolves to, and the exact
//! `file:line:column` and message of every mistake.

use kiln::internals::bake::recipe::{GifSpec, MapJob, MapViewCamera, MapViewSpec, Recipe};
use kiln::internals::camera::Projection;
use kiln::internals::map::Region;
use std::path::{Path, PathBuf};

fn maps(text: &str) -> Vec<MapJob> {
    match Recipe::from_str(text, Path::new("recipes/demo.yaml")) {
        Ok(r) => r.maps(),
        Err(e) => panic!("unexpected error: {e}"),
    }
}

fn err(text: &str) -> String {
    match Recipe::from_str(text, Path::new("recipe.yaml")) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// A map `v` whose `views:` block is `views` (lines from 5 on).
fn one_map(views: &str) -> String {
    format!("maps:\n  - name: v\n    map: v.rsw\n    views:\n{views}")
}

const FULL: &str = r##"
jobs:
  - name: windmill
    model: windmill.rsm2
maps:
  - name: desert
    map: data/desert.rsw
    data: [client/data, ../grf/data]
    output: ../out/maps
    antialias: 3
    background: "#10203080"
    views:
      - { name: overview, pixels_per_tile: 8 }
      - { name: oasis, region: [40, 20, 60, 45], time: 1.5 }
      - { name: angled, region: [40, 20, 60, 45], yaw: 30, pitch: 40, size: 800x600, projection: perspective, fov: 50 }
      - { name: north, yaw: 180 }
      - { name: steep, pitch: 80, projection: perspective }
      - name: props
        region: [0, 0, 10, 10]
        pixels_per_tile: 16
        gif: { fps: 12, duration: 2 }
  - name: small
    map: small.rsw
    data: only/data
    views:
      - { name: anim, time: 0.25, gif: {} }
      - { name: few, gif: { frames: 3, fps: 4 } }
"##;

#[test]
fn full_recipe_resolves_every_key() {
    let r = Recipe::from_str(FULL, Path::new("recipes/demo.yaml")).unwrap();
    assert_eq!(r.jobs().unwrap().len(), 1);
    let m = r.maps();
    assert_eq!(m.len(), 2);
    let d = &m[0];
    assert_eq!(d.name, "desert");
    assert_eq!(d.recipe, PathBuf::from("recipes/demo.yaml"));
    assert_eq!(d.line, 6);
    assert_eq!(d.map.disk, PathBuf::from("recipes/data/desert.rsw"));
    assert_eq!(d.map.written, "data/desert.rsw");
    // Priority order kept as written.
    assert_eq!(
        d.data,
        vec![
            PathBuf::from("recipes/client/data"),
            PathBuf::from("recipes/../grf/data")
        ]
    );
    assert_eq!(d.dir, PathBuf::from("recipes/../out/maps"));
    assert_eq!(d.antialias, 3);
    assert_eq!(d.background, [0x10, 0x20, 0x30, 0x80]);
    let names: Vec<&str> = d.views.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        ["overview", "oasis", "angled", "north", "steep", "props"]
    );
    let lines: Vec<u64> = d.views.iter().map(|v| v.line).collect();
    assert_eq!(lines, [13, 14, 15, 16, 17, 18]);

    assert_eq!(
        d.views[0],
        MapViewSpec {
            name: "overview".into(),
            line: 13,
            column: 9,
            region: None,
            camera: MapViewCamera::TopDown {
                pixels_per_tile: 8.0
            },
            time: 0.0,
            gif: None,
            file: PathBuf::from("recipes/../out/maps/desert_overview.png"),
        }
    );
    let oasis = Region {
        x0: 40,
        y0: 20,
        x1: 60,
        y1: 45,
    };
    // No pixels_per_tile: the default 4.
    assert_eq!(d.views[1].region, Some(oasis));
    assert_eq!(
        d.views[1].camera,
        MapViewCamera::TopDown {
            pixels_per_tile: 4.0
        }
    );
    assert_eq!(d.views[1].time, 1.5);
    assert_eq!(
        d.views[2].camera,
        MapViewCamera::Angled {
            yaw: 30.0,
            pitch: 40.0,
            width: 800,
            height: 600,
            projection: Projection::Perspective { fov_deg: 50.0 }
        }
    );
    assert_eq!(d.views[2].region, Some(oasis));
    // `yaw` alone makes an angled view: default pitch 45, size 1024×768,
    // orthographic.
    assert_eq!(
        d.views[3].camera,
        MapViewCamera::Angled {
            yaw: 180.0,
            pitch: 45.0,
            width: 1024,
            height: 768,
            projection: Projection::Orthographic
        }
    );
    // `pitch` alone too: yaw 0 (from the south), default fov 35.
    assert_eq!(
        d.views[4].camera,
        MapViewCamera::Angled {
            yaw: 0.0,
            pitch: 80.0,
            width: 1024,
            height: 768,
            projection: Projection::Perspective { fov_deg: 35.0 }
        }
    );
    let p = &d.views[5];
    // 2 s at 12 fps.
    assert_eq!(
        p.gif,
        Some(GifSpec {
            fps: 12.0,
            frames: 24
        })
    );
    assert_eq!(
        p.file,
        PathBuf::from("recipes/../out/maps/desert_props.gif")
    );
    assert_eq!(
        p.region,
        Some(Region {
            x0: 0,
            y0: 0,
            x1: 10,
            y1: 10
        })
    );

    let s = &m[1];
    assert_eq!(s.line, 22);
    assert_eq!(s.data, vec![PathBuf::from("recipes/only/data")]);
    // Defaults: output next to the recipe, antialias 2, transparent.
    assert_eq!(s.dir, PathBuf::from("recipes"));
    assert_eq!(s.antialias, 2);
    assert_eq!(s.background, [0, 0, 0, 0]);
    assert_eq!(s.views[0].file, PathBuf::from("recipes/small_anim.gif"));
    assert_eq!(
        s.views[0].gif,
        Some(GifSpec {
            fps: 10.0,
            frames: 20
        })
    );
    assert_eq!(
        s.views[1].gif,
        Some(GifSpec {
            fps: 4.0,
            frames: 3
        })
    );
    // Frames start at the view's time, 1/fps apart.
    assert_eq!(s.views[1].gif.unwrap().times(0.5), vec![0.5, 0.75, 1.0]);
    assert_eq!(
        s.views[0].gif.unwrap().times(s.views[0].time)[..3],
        [0.25, 0.35, 0.45]
    );
}

#[test]
fn maps_alone_and_gif_frames_from_duration() {
    let m = maps(&one_map(
        "      - { name: a, gif: { fps: 10, duration: 0.04 } }\n      - { name: b, gif: { fps: 24, duration: 1.5 } }\n      - { name: c, gif: { fps: 100, duration: 10 } }\n",
    ));
    assert_eq!(m.len(), 1);
    let frames: Vec<u32> = m[0].views.iter().map(|v| v.gif.unwrap().frames).collect();
    // 0.4 rounds to 0 but a GIF has at least one frame; 36; exactly the cap.
    assert_eq!(frames, [1, 36, 1000]);
    assert_eq!(m[0].views[2].file, PathBuf::from("recipes/v_c.gif"));
    // Every key of the map may be left out but name, map and views.
    assert!(m[0].data.is_empty());
}

#[test]
fn missing_and_empty_keys() {
    assert_eq!(
        err("maps:\n  - map: a.rsw\n    views:\n      - { name: o }\n"),
        "recipe.yaml:2:5: map #1: missing key `name`"
    );
    assert_eq!(
        err("maps:\n  - name: a\n    views:\n      - { name: o }\n"),
        "recipe.yaml:2:5: map 'a': missing key `map` (the .rsw file)"
    );
    assert_eq!(
        err("maps:\n  - name: a\n    map: a.rsw\n"),
        "recipe.yaml:2:5: map 'a': missing key `views` (at least one view)"
    );
    assert_eq!(
        err("maps:\n  - name: a\n    map: a.rsw\n    views: []\n"),
        "recipe.yaml:4:12: map 'a': `views` is empty; give at least one view"
    );
    assert_eq!(
        err(&one_map("      - { region: [0, 0, 4, 4] }\n")),
        "recipe.yaml:5:9: map 'v': view #1: missing key `name`"
    );
    // Only `defaults:` (or nothing at all): nothing to bake.
    assert_eq!(
        err("defaults:\n  size: 8x8\n"),
        "recipe.yaml: the recipe has no `jobs:` and no `maps:`"
    );
    assert_eq!(
        err(""),
        "recipe.yaml: the recipe has no `jobs:` and no `maps:`"
    );
    assert_eq!(
        err("maps: []\n"),
        "recipe.yaml:1:7: maps: the recipe has no jobs and no maps"
    );
    assert_eq!(
        err("jobs: []\nmaps: []\n"),
        "recipe.yaml:1:7: jobs: the recipe has no jobs and no maps"
    );
}

#[test]
fn duplicate_names() {
    assert_eq!(
        err(&one_map(
            "      - { name: o }\n      - { name: o, pixels_per_tile: 8 }\n"
        )),
        "recipe.yaml:6:17: map 'v': duplicate view name `o`; line 5 already uses it"
    );
    assert_eq!(
        err("jobs:\n  - name: a\n    model: a.rsm\nmaps:\n  - name: a\n    map: a.rsw\n    views:\n      - { name: o }\n"),
        "recipe.yaml:5:11: map 'a': duplicate name `a`; line 2 already uses it (jobs and maps share names, as `--only` picks by name)"
    );
    assert_eq!(
        err("maps:\n  - name: a\n    map: a.rsw\n    views: [{ name: o }]\n  - name: a\n    map: b.rsw\n    views: [{ name: p }]\n"),
        "recipe.yaml:5:11: map 'a': duplicate name `a`; line 2 already uses it (jobs and maps share names, as `--only` picks by name)"
    );
}

#[test]
fn two_views_writing_one_file() {
    // `a_b` + `c` and `a` + `b_c` are both `a_b_c.png`.
    assert_eq!(
        err("maps:\n  - name: a_b\n    map: a.rsw\n    views:\n      - { name: c }\n  - name: a\n    map: a.rsw\n    views:\n      - { name: b_c }\n"),
        "recipe.yaml:9:17: map 'a' view 'b_c': writes `./a_b_c.png`, which map 'a_b' view 'c' (line 5) also writes; rename one of them or give the maps different `output` folders"
    );
    // Two spellings of one folder are one folder.
    assert_eq!(
        err("maps:\n  - name: a_b\n    map: a.rsw\n    output: out\n    views:\n      - { name: c }\n  - name: a\n    map: a.rsw\n    output: ./x/../out\n    views:\n      - { name: b_c }\n"),
        "recipe.yaml:11:17: map 'a' view 'b_c': writes `./x/../out/a_b_c.png`, which map 'a_b' view 'c' (line 6) also writes; rename one of them or give the maps different `output` folders"
    );
    // A still and a GIF of the same name do not meet; nor do different folders.
    let m = maps("maps:\n  - name: a_b\n    map: a.rsw\n    views:\n      - { name: c }\n  - name: a\n    map: a.rsw\n    output: other\n    views:\n      - { name: b_c }\n      - { name: x, gif: {} }\n      - { name: y }\n");
    assert_eq!(m[1].views[0].file, PathBuf::from("recipes/other/a_b_c.png"));
    assert_eq!(m[1].views[1].file, PathBuf::from("recipes/other/a_x.gif"));
}

#[test]
fn a_map_view_writing_a_jobs_file() {
    // The job's sheet is out/a_o.png; so is map `a`'s view `o` with output `out`.
    assert_eq!(
        err("jobs:\n  - name: j\n    model: m.rsm\n    output: { dir: out, sheet: a_o.png }\nmaps:\n  - name: a\n    map: a.rsw\n    output: out\n    views:\n      - { name: o }\n"),
        "recipe.yaml:10:9: map 'a' view 'o': output `out/a_o.png` is also written by job 'j' (`output.sheet`)"
    );
}

#[test]
fn region_errors() {
    assert_eq!(
        err(&one_map("      - { name: o, region: [5, 0, 5, 4] }\n")),
        "recipe.yaml:5:28: map 'v' view 'o': `region` is [x0, y0, x1, y1] in tiles with x0 < x1 and y0 < y1, got [5, 0, 5, 4]"
    );
    assert_eq!(
        err(&one_map("      - { name: o, region: [0, 7, 5, 3] }\n")),
        "recipe.yaml:5:28: map 'v' view 'o': `region` is [x0, y0, x1, y1] in tiles with x0 < x1 and y0 < y1, got [0, 7, 5, 3]"
    );
    assert_eq!(
        err(&one_map("      - { name: o, region: [-1, 0, 5, 4] }\n")),
        "recipe.yaml:5:28: map 'v' view 'o': `region` values are tile numbers 0..=65535, got -1"
    );
    assert_eq!(
        err(&one_map("      - { name: o, region: [0, 0, 65536, 4] }\n")),
        "recipe.yaml:5:28: map 'v' view 'o': `region` values are tile numbers 0..=65535, got 65536"
    );
}

#[test]
fn camera_errors() {
    let cases = [
        (
            "{ name: o, pixels_per_tile: 0 }",
            "5:37: map 'v' view 'o': `pixels_per_tile` must be in (0, 256], got 0",
        ),
        (
            "{ name: o, pixels_per_tile: 257 }",
            "5:37: map 'v' view 'o': `pixels_per_tile` must be in (0, 256], got 257",
        ),
        (
            "{ name: o, pixels_per_tile: .nan }",
            "5:37: map 'v' view 'o': `pixels_per_tile` must be a finite number, got NaN",
        ),
        (
            "{ name: o, yaw: 10, pixels_per_tile: 4 }",
            "5:46: map 'v' view 'o': `pixels_per_tile` is for top-down views; an angled view (yaw/pitch) takes `size`",
        ),
        (
            "{ name: o, size: 64x64 }",
            "5:26: map 'v' view 'o': `size` is for angled views; give `yaw`/`pitch`, or use `pixels_per_tile` for a top-down view",
        ),
        (
            "{ name: o, projection: perspective }",
            "5:32: map 'v' view 'o': `projection` is for angled views; give `yaw`/`pitch`, or use `pixels_per_tile` for a top-down view",
        ),
        (
            "{ name: o, pitch: 0 }",
            "5:27: map 'v' view 'o': `pitch` must be in [1, 90], got 0",
        ),
        (
            "{ name: o, pitch: 91 }",
            "5:27: map 'v' view 'o': `pitch` must be in [1, 90], got 91",
        ),
        (
            "{ name: o, yaw: 5, size: 9000x10 }",
            "5:34: map 'v' view 'o': `size` sides must be 1..=8192 pixels, got 9000x10",
        ),
        (
            "{ name: o, time: -1 }",
            "5:26: map 'v' view 'o': `time` must be at least 0 seconds, got -1",
        ),
        (
            "{ name: o, zoom: 2 }",
            "5:20: map 'v': unknown key `zoom`, expected one of name, region, pixels_per_tile, yaw, pitch, size, projection, fov, time, gif",
        ),
    ];
    for (view, want) in cases {
        assert_eq!(
            err(&one_map(&format!("      - {view}\n"))),
            format!("recipe.yaml:{want}"),
            "{view}"
        );
    }
    // The unknown key in block style, in the second map: the map is named.
    assert_eq!(
        err("maps:\n  - name: first\n    map: a.rsw\n    views: [{ name: o }]\n  - name: second\n    map: b.rsw\n    views:\n      - name: o\n        pixel_per_tile: 8\n"),
        "recipe.yaml:9:9: map 'second': unknown key `pixel_per_tile`; did you mean `pixels_per_tile`?"
    );
}

#[test]
fn gif_errors() {
    let cases = [
        (
            "{ frames: 3, duration: 1 }",
            "5:48: map 'v' view 'o': give `gif.frames` or `gif.duration`, not both",
        ),
        (
            "{ frames: 0 }",
            "5:35: map 'v' view 'o': `gif.frames` must be in 1..=1000, got 0",
        ),
        (
            "{ frames: 1001 }",
            "5:35: map 'v' view 'o': `gif.frames` must be in 1..=1000, got 1001",
        ),
        (
            "{ fps: 0 }",
            "5:32: map 'v' view 'o': `gif.fps` must be in [0.01, 100], got 0",
        ),
        (
            "{ fps: 10, duration: 200 }",
            "5:46: map 'v' view 'o': `gif.duration` × `gif.fps` gives 2000 frames, more than the 1000 allowed",
        ),
        (
            "{ frame: 3 }",
            "5:27: map 'v': unknown key `frame`; did you mean `frames`?",
        ),
    ];
    for (gif, want) in cases {
        assert_eq!(
            err(&one_map(&format!("      - {{ name: o, gif: {gif} }}\n"))),
            format!("recipe.yaml:{want}"),
            "{gif}"
        );
    }
}

#[test]
fn angled_and_map_level_errors() {
    let cases = [
        (
            "{ name: o, yaw: .inf }",
            "5:25: map 'v' view 'o': `yaw` must be a finite number, got inf",
        ),
        (
            "{ name: o, yaw: 0, fov: 0.5, projection: perspective }",
            "5:33: map 'v' view 'o': `fov` must be in [1, 170], got 0.5",
        ),
        (
            "{ name: o, pitch: 30, fov: 171 }",
            "5:36: map 'v' view 'o': `fov` must be in [1, 170], got 171",
        ),
        (
            "{ name: o, pitch: 30, size: [0, 10] }",
            "5:37: map 'v' view 'o': `size` sides must be 1..=8192 pixels, got 0x10",
        ),
    ];
    for (view, want) in cases {
        assert_eq!(
            err(&one_map(&format!("      - {view}\n"))),
            format!("recipe.yaml:{want}"),
            "{view}"
        );
    }
    let map = |key: &str| {
        err(&format!(
            "maps:\n  - name: v\n    map: v.rsw\n    {key}\n    views: [{{ name: o }}]\n"
        ))
    };
    assert_eq!(
        map("antialias: 0"),
        "recipe.yaml:4:16: map 'v': `antialias` must be in 1..=4, got 0"
    );
    assert_eq!(
        map("antialias: 5"),
        "recipe.yaml:4:16: map 'v': `antialias` must be in 1..=4, got 5"
    );
    assert_eq!(
        map("size: 64x64"),
        "recipe.yaml:4:5: map 'v': unknown key `size`, expected one of name, map, data, output, antialias, background, views"
    );
    assert_eq!(
        map("name: again"),
        "recipe.yaml:4:5: map 'again': duplicate mapping key: name"
    );
}
