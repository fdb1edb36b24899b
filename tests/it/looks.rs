//! Sprite looks (outline, drop shadow, palettes): properties that hold
//! whatever the goldens say, the recipe keys and their errors, and reviewed
//! golden images of the bundled samples with each look.

use crate::common::{self, tempdir};
use image::RgbaImage;
use kiln::internals::look::{
    Dither, DropShadow, Look, Outline, OutlineSide, PaletteLook, PaletteSource,
};
use kiln::{BakeOptions, Model, ModelSpec, NoProgress, ViewSpec};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub(crate) fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("recipes/samples/data/model/kiln")
        .join(rel)
}

pub(crate) fn windmill() -> Model {
    Model::load(&ModelSpec::new(sample("windmill.rsm2").as_path())).unwrap()
}

pub(crate) fn view(size: u32, aa: u32) -> ViewSpec {
    ViewSpec {
        width: size,
        height: size,
        antialias: aa,
        ..ViewSpec::default()
    }
}

pub(crate) fn outline(width: u32, side: OutlineSide, hard: bool) -> Look {
    Look {
        outline: Some(Outline {
            width,
            color: [10, 20, 200, 255],
            side,
            hard,
            inner: None,
        }),
        ..Look::default()
    }
}

/// Pixels of `img` at least half covered.
fn silhouette(img: &RgbaImage) -> Vec<bool> {
    img.pixels().map(|p| p[3] >= 128).collect()
}

/// Brute-force: pixels within Euclidean distance `r` of a `true` pixel.
fn dilate(mask: &[bool], w: i64, h: i64, r: i64) -> Vec<bool> {
    let mut out = vec![false; mask.len()];
    for y in 0..h {
        for x in 0..w {
            'probe: for dy in -r..=r {
                for dx in -r..=r {
                    let (xx, yy) = (x + dx, y + dy);
                    if dx * dx + dy * dy <= r * r
                        && (0..w).contains(&xx)
                        && (0..h).contains(&yy)
                        && mask[(yy * w + xx) as usize]
                    {
                        out[(y * w + x) as usize] = true;
                        break 'probe;
                    }
                }
            }
        }
    }
    out
}

#[test]
fn a_hard_outline_lies_exactly_on_the_silhouettes_dilation() {
    let m = windmill();
    let plain = m.render(0.3, 20.0, &view(72, 2)).unwrap().image;
    for width in [1u32, 2, 4] {
        let mut lined = plain.clone();
        outline(width, OutlineSide::Outside, true).apply_frame(&mut lined);
        let s = silhouette(&plain);
        let d = dilate(&s, 72, 72, width as i64);
        let mut ring = 0;
        for (i, (a, b)) in plain.pixels().zip(lined.pixels()).enumerate() {
            let on_line = d[i] && !s[i];
            if on_line {
                ring += 1;
                assert_eq!(b[3], 255, "width {width}: outline pixel {i} is opaque");
                if a[3] == 0 {
                    assert_eq!(b.0, [10, 20, 200, 255], "width {width}: pixel {i}");
                }
            } else {
                assert_eq!(a, b, "width {width}: pixel {i} off the outline changed");
            }
        }
        assert!(ring > 100 * width as usize, "width {width}: {ring} pixels");
    }
}

#[test]
fn an_inside_outline_recolours_only_silhouette_pixels_near_its_edge() {
    let m = windmill();
    let plain = m.render(0.3, 20.0, &view(72, 2)).unwrap().image;
    let mut lined = plain.clone();
    outline(2, OutlineSide::Inside, true).apply_frame(&mut lined);
    let s = silhouette(&plain);
    let outside: Vec<bool> = s.iter().map(|v| !v).collect();
    // The frame's border counts as outside: pad by one pixel.
    let (w, h) = (74i64, 74i64);
    let mut padded = vec![true; (w * h) as usize];
    for y in 0..72 {
        for x in 0..72 {
            padded[((y + 1) * w + x + 1) as usize] = outside[(y * 72 + x) as usize];
        }
    }
    let near = dilate(&padded, w, h, 2);
    let mut changed = 0;
    for (i, (a, b)) in plain.pixels().zip(lined.pixels()).enumerate() {
        let (x, y) = (i as i64 % 72, i as i64 / 72);
        let on_line = s[i] && near[((y + 1) * w + x + 1) as usize];
        if on_line {
            changed += 1;
            assert_eq!(b.0, [10, 20, 200, a[3]], "pixel {i} keeps its coverage");
        } else {
            assert_eq!(a, b, "pixel {i}");
        }
    }
    assert!(changed > 100);
}

#[test]
fn an_anti_aliased_outline_fades_between_its_width_and_half_a_pixel_beyond() {
    let m = windmill();
    let plain = m.render(0.3, 20.0, &view(72, 2)).unwrap().image;
    let mut lined = plain.clone();
    outline(2, OutlineSide::Outside, false).apply_frame(&mut lined);
    let s = silhouette(&plain);
    let inner = dilate(&s, 72, 72, 2);
    let outer = dilate(&s, 72, 72, 3);
    let mut partial = 0;
    for (i, (a, b)) in plain.pixels().zip(lined.pixels()).enumerate() {
        if s[i] || !outer[i] {
            assert_eq!(a, b, "pixel {i}");
        } else if inner[i] {
            // Within two pixels the line is at least half there.
            assert!(b[3] >= 128, "pixel {i}: {:?}", b.0);
        } else if b[3] > 0 && b[3] < 255 {
            partial += 1;
        }
    }
    assert!(partial > 0, "the outer edge is anti-aliased");
}

#[test]
fn the_drop_shadow_is_offset_coverage_and_stays_in_the_frame() {
    let m = windmill();
    let shadow = DropShadow {
        offset: [5, 3],
        blur: 0,
        color: [0, 0, 0, 255],
    };
    let look = Look {
        drop_shadow: Some(shadow),
        ..Look::default()
    };
    let v = view(80, 2);
    let framed = m.render_with_look(0.3, 20.0, &v, &look).unwrap().image;
    // The framing leaves room for the shadow: nothing touches the border.
    for (x, y, p) in framed.enumerate_pixels() {
        if x == 0 || y == 0 || x == 79 || y == 79 {
            assert_eq!(p[3], 0, "border pixel ({x}, {y})");
        }
    }
    // Without blur the shadow is the opaque pixels moved by the offset.
    let mut plain = m.render(0.3, 20.0, &v).unwrap().image;
    let before = plain.clone();
    look.apply_frame(&mut plain);
    let mut seen = 0;
    for (x, y, p) in plain.enumerate_pixels() {
        let under = (x >= 5 && y >= 3).then(|| before.get_pixel(x - 5, y - 3)[3]);
        let own = before.get_pixel(x, y);
        if own[3] == 0 {
            match under {
                Some(255) => {
                    assert_eq!(p.0, [0, 0, 0, 255], "({x}, {y}) is shadow");
                    seen += 1;
                }
                Some(0) | None => assert_eq!(p.0, [0, 0, 0, 0], "({x}, {y}) is clear"),
                _ => {}
            }
        } else if own[3] == 255 {
            assert_eq!(p, own, "({x}, {y}): the model stays on top");
        }
    }
    assert!(seen > 50, "{seen} shadow pixels");
}

/// Bakes `look` (a YAML mapping) on the windmill: 2 clips' worth of
/// frames in 3 directions, sheet and GIFs; returns the folder.
fn bake_with_look(tag: &str, look: &str, extra: &[(&str, &[u8])]) -> PathBuf {
    let dir = tempdir(tag);
    for (name, bytes) in extra {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let recipe = dir.join("r.yaml");
    std::fs::write(
        &recipe,
        format!(
            "jobs:\n  - name: mill\n    model: '{}'\n    size: 64x64\n    directions: 3\n    clip: {{frames: 4}}\n    look: {look}\n    output: {{dir: out, frames: '{{name}}_{{dir}}_{{frame}}.png', gif: '{{name}}_{{dir}}.gif'}}\n",
            sample("windmill.rsm2").display()
        ),
    )
    .unwrap();
    let report = kiln::bake_files(&[&recipe], &BakeOptions::default(), &NoProgress).unwrap();
    assert_eq!(report.failed(), 0, "{tag}: {:?}", report.jobs);
    dir
}

fn frames_of(dir: &Path) -> Vec<RgbaImage> {
    let mut out = Vec::new();
    for d in 0..3 {
        for f in 0..4 {
            let p = dir.join(format!("out/mill_{d}_{f}.png"));
            out.push(image::open(&p).unwrap().to_rgba8());
        }
    }
    out
}

pub(crate) fn colours(imgs: &[RgbaImage]) -> BTreeSet<[u8; 3]> {
    let mut set = BTreeSet::new();
    for img in imgs {
        for p in img.pixels() {
            assert!(p[3] == 0 || p[3] == 255, "alpha {} is thresholded", p[3]);
            if p[3] == 255 {
                set.insert([p[0], p[1], p[2]]);
            } else {
                assert_eq!(p.0, [0, 0, 0, 0]);
            }
        }
    }
    set
}

#[test]
fn every_pixel_of_a_palette_file_bake_is_a_palette_colour() {
    let gpl = b"GIMP Palette\nName: four\n# a comment\n 20  12  28 ink\n140 80 40\n230 200 160\n200 40 40\n60 90 200\n";
    let palette: BTreeSet<[u8; 3]> = [
        [20, 12, 28],
        [140, 80, 40],
        [230, 200, 160],
        [200, 40, 40],
        [60, 90, 200],
    ]
    .into();
    for dither in ["none", "ordered", "diffusion"] {
        let dir = bake_with_look(
            &format!("look-gpl-{dither}"),
            &format!("{{palette: {{file: p.gpl, dither: {dither}}}, outline: {{width: 1}}}}"),
            &[("p.gpl", gpl)],
        );
        let frames = frames_of(&dir);
        let used = colours(&frames);
        assert!(used.is_subset(&palette), "{dither}: {used:?}");
        assert!(used.len() >= 3, "{dither}: {used:?}");
        let sheet = image::open(dir.join("out/mill.png")).unwrap().to_rgba8();
        assert!(colours(&[sheet]).is_subset(&palette));
        // GIF frames: the same colours (GIF keeps exact RGB).
        let gif = std::fs::File::open(dir.join("out/mill_1.gif")).unwrap();
        let mut opts = gif::DecodeOptions::new();
        opts.set_color_output(gif::ColorOutput::RGBA);
        let mut dec = opts.read_info(gif).unwrap();
        while let Some(f) = dec.read_next_frame().unwrap() {
            for px in f.buffer.chunks(4) {
                if px[3] == 255 {
                    assert!(palette.contains(&[px[0], px[1], px[2]]), "{dither}: {px:?}");
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_chosen_palette_is_one_for_every_frame_and_direction() {
    let dir = bake_with_look("look-auto", "{palette: {colors: 6, dither: ordered}}", &[]);
    let frames = frames_of(&dir);
    let all = colours(&frames);
    assert!(all.len() <= 6 && all.len() >= 4, "{all:?}");
    // Each direction alone would pick its own colours; they all use the
    // job's six.
    let per_dir: Vec<BTreeSet<[u8; 3]>> = frames.chunks(4).map(colours).collect();
    assert!(per_dir.iter().all(|s| s.is_subset(&all) && s.len() >= 3));
    let again = bake_with_look(
        "look-auto-2",
        "{palette: {colors: 6, dither: ordered}}",
        &[],
    );
    assert_eq!(
        std::fs::read(dir.join("out/mill.png")).unwrap(),
        std::fs::read(again.join("out/mill.png")).unwrap(),
        "the same bytes on every run"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&again);
}

#[test]
fn an_empty_look_bakes_the_same_bytes_as_none() {
    let with = bake_with_look("look-empty", "{}", &[]);
    let dir = tempdir("look-none");
    let text = std::fs::read_to_string(with.join("r.yaml"))
        .unwrap()
        .replace("    look: {}\n", "");
    std::fs::write(dir.join("r.yaml"), text).unwrap();
    let report =
        kiln::bake_files(&[dir.join("r.yaml")], &BakeOptions::default(), &NoProgress).unwrap();
    assert_eq!(report.failed(), 0);
    for f in ["mill.png", "mill.json", "mill_2.gif", "mill_1_3.png"] {
        assert_eq!(
            std::fs::read(with.join("out").join(f)).unwrap(),
            std::fs::read(dir.join("out").join(f)).unwrap(),
            "{f}"
        );
    }
    let _ = std::fs::remove_dir_all(&with);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn look_keys_are_checked_where_they_are_written() {
    let err = |look: &str| {
        let text = format!("jobs:\n  - name: a\n    model: a.rsm\n    look: {look}\n");
        kiln::Recipe::from_str(&text, Path::new("r.yaml"))
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("{outline: {width: 9}}"),
        "r.yaml:4:29: job 'a': `look.outline.width` must be in 1..=8, got 9"
    );
    assert_eq!(
        err("{palette: {colors: 1}}"),
        "r.yaml:4:30: job 'a': `look.palette.colors` must be in 2..=256, got 1"
    );
    assert!(err("{palette: {dither: ordered}}").contains("either `file`"));
    assert!(err("{palette: {file: a.gpl, colors: 4}}").contains("either `file`"));
    assert!(err("{outline: {side: left}}").contains("unknown variant `left`"));
    assert!(err("{drop_shadow: {offset: [300, 0]}}").contains("-256..=256"));
    assert!(err("{glow: 1}").contains("unknown key `glow`"));
    assert_eq!(
        err("{outline: {inner: 0}}"),
        "r.yaml:4:29: job 'a': `look.outline.inner` must be in (0, 1], got 0"
    );
}

#[test]
fn a_missing_or_bad_palette_file_names_the_file_and_line() {
    let dir = tempdir("look-badpal");
    std::fs::write(dir.join("p.hex"), "ff0000\nnot a colour\n").unwrap();
    for (file, needle) in [("p.hex", "p.hex:2: expected a colour"), ("q.gpl", "q.gpl")] {
        let text = format!(
            "jobs:\n  - name: a\n    model: '{}'\n    look: {{palette: {{file: {file}}}}}\n",
            sample("beacon.rsm").display()
        );
        std::fs::write(dir.join("r.yaml"), text).unwrap();
        let report = kiln::bake_files(&[dir.join("r.yaml")], &BakeOptions::default(), &NoProgress);
        let msg = match report {
            Err(e) => e.to_string(),
            Ok(r) => format!("{:?}", r.jobs),
        };
        assert!(msg.contains(needle), "{msg}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Golden images of the bundled samples with each look, reviewed by eye
/// when blessed (KILN_BLESS=1).
#[test]
fn sample_looks_golden() {
    let mill = windmill();
    let beacon = Model::load(&ModelSpec::new(sample("beacon.rsm").as_path())).unwrap();
    let gpl = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/palettes/kiln16.gpl");
    let cases: Vec<(&str, &Model, u32, Look)> = vec![
        (
            "windmill_outline",
            &mill,
            2,
            outline(2, OutlineSide::Outside, false),
        ),
        (
            "beacon_outline_inside_hard",
            &beacon,
            2,
            Look {
                outline: Some(Outline {
                    width: 1,
                    color: [30, 16, 40, 255],
                    side: OutlineSide::Inside,
                    hard: true,
                    inner: None,
                }),
                ..Look::default()
            },
        ),
        (
            "windmill_drop_shadow",
            &mill,
            2,
            Look {
                drop_shadow: Some(DropShadow {
                    offset: [4, 3],
                    blur: 2,
                    color: [20, 10, 40, 140],
                }),
                ..Look::default()
            },
        ),
        (
            "windmill_pixel_ordered",
            &mill,
            1,
            Look {
                outline: Some(Outline {
                    width: 1,
                    color: [30, 16, 40, 255],
                    side: OutlineSide::Outside,
                    hard: true,
                    inner: None,
                }),
                palette: Some(PaletteLook {
                    source: PaletteSource::File(gpl.as_path().into()),
                    dither: Dither::Ordered,
                }),
                ..Look::default()
            },
        ),
        (
            "beacon_pixel_diffusion",
            &beacon,
            2,
            Look {
                palette: Some(PaletteLook {
                    source: PaletteSource::Auto(8),
                    dither: Dither::Diffusion,
                }),
                ..Look::default()
            },
        ),
        (
            "windmill_flat",
            &mill,
            2,
            Look {
                shading: kiln::Shading::Flat,
                ..Look::default()
            },
        ),
        (
            "windmill_unlit",
            &mill,
            2,
            Look {
                shading: kiln::Shading::Unlit,
                ..Look::default()
            },
        ),
        (
            "beacon_cel_rim",
            &beacon,
            2,
            Look {
                shading: kiln::Shading::Cel {
                    bands: 3,
                    rim: 0.35,
                },
                outline: Some(Outline {
                    width: 1,
                    color: [30, 16, 40, 255],
                    side: OutlineSide::Outside,
                    hard: false,
                    inner: None,
                }),
                ..Look::default()
            },
        ),
        (
            "windmill_ground_shadow_light",
            &mill,
            2,
            Look {
                ground_shadow: Some(kiln::GroundShadow {
                    from: kiln::ShadowFrom::Light,
                    opacity: 0.55,
                    softness: 1,
                    color: [20, 10, 40],
                }),
                ..Look::default()
            },
        ),
        (
            "windmill_outline_inner",
            &mill,
            2,
            Look {
                outline: Some(Outline {
                    width: 1,
                    color: [30, 16, 40, 255],
                    side: OutlineSide::Outside,
                    hard: false,
                    inner: Some(0.05),
                }),
                ..Look::default()
            },
        ),
        (
            "beacon_ground_shadow_down",
            &beacon,
            2,
            Look {
                ground_shadow: Some(kiln::GroundShadow {
                    from: kiln::ShadowFrom::Down,
                    opacity: 0.6,
                    softness: 2,
                    color: [0, 0, 0],
                }),
                ..Look::default()
            },
        ),
    ];
    for (name, model, aa, look) in cases {
        let img = model
            .render_with_look(0.3, 30.0, &view(96, aa), &look)
            .unwrap()
            .image;
        common::assert_golden(&format!("looks/{name}"), &img);
    }
}
