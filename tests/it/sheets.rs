//! Sheets as engines take them, through the recipe and the binary: packed
//! and trimmed sheets restored frame by frame, grids continuing on pages,
//! exact GIF and APNG timing, pruning what an earlier bake left, the
//! top-down camera turning with yaw, and `render` refusing what it cannot
//! write.

use crate::common::{self, kiln, stderr, tempdir};
use image::RgbaImage;
use serde_json::Value;
use std::path::{Path, PathBuf};

const WARRIOR: &str = "grimrock/grimrock+eob1-waterdeep/mod_assets/plugins/skeleton_warrior_axe";

fn bake(dir: &Path, recipe: &str) -> kiln::BakeReport {
    let path = dir.join("r.yaml");
    std::fs::write(&path, recipe).unwrap();
    let report = kiln::bake_files(&[&path], &kiln::BakeOptions::default(), &kiln::NoProgress)
        .unwrap_or_else(|e| panic!("{e}"));
    for j in &report.jobs {
        assert!(j.result.is_ok(), "{}: {:?}", j.label(), j.result);
    }
    report
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn png(path: &Path) -> RgbaImage {
    image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgba8()
}

/// The untrimmed frame `entry` (TexturePacker JSON hash) cut from `page`.
fn restore(page: &RgbaImage, entry: &Value) -> RgbaImage {
    let g = |v: &Value| v.as_u64().unwrap() as u32;
    let (f, s) = (&entry["frame"], &entry["spriteSourceSize"]);
    let mut out = RgbaImage::new(g(&entry["sourceSize"]["w"]), g(&entry["sourceSize"]["h"]));
    for y in 0..g(&f["h"]) {
        for x in 0..g(&f["w"]) {
            out.put_pixel(
                g(&s["x"]) + x,
                g(&s["y"]) + y,
                *page.get_pixel(g(&f["x"]) + x, g(&f["y"]) + y),
            );
        }
    }
    out
}

/// The skeleton warrior's walk and idle from 8 directions at 128 × 128, as
/// `recipes/corpus/grimrock_warrior.yaml` bakes them, packed and trimmed:
/// the pages take at most a quarter of the grid sheet's area, and every
/// frame restored through its JSON (`frame` + `spriteSourceSize`) is the
/// rendered frame pixel for pixel.
#[test]
fn packed_trimmed_warrior_takes_a_quarter_of_the_grid_and_restores_exactly() {
    let Some(w) = common::corpus(WARRIOR) else {
        return;
    };
    let tmp = tempdir("sheets-warrior");
    let recipe = format!(
        "jobs:\n  - name: w\n    model: '{}'\n    clips:\n      - {{ name: walk, animation: '{}', fps: 15 }}\n      - {{ name: idle, animation: '{}', fps: 15 }}\n    size: 128x128\n    pack: {{ layout: packed, trim: true }}\n    output: {{ dir: out, frames: '{{clip}}_{{dir}}_{{frame:02}}.png' }}\n",
        w.join("models/skeleton_warrior_axe.model").display(),
        w.join("animations/skeleton_warrior_axe_walk.animation").display(),
        w.join("animations/skeleton_warrior_axe_idle.animation").display(),
    );
    bake(&tmp, &recipe);
    let out = tmp.join("out");
    let meta = json(&out.join("w.json"));
    let frames = meta["frames"].as_object().unwrap();
    // walk: 28 frames, idle: 5, 8 directions each; the grid is 28 × 16 cells.
    assert_eq!(frames.len(), 8 * 33);
    let grid_area = (28 * 128) as u64 * (16 * 128) as u64;
    let page = png(&out.join("w.png"));
    let packed_area = page.width() as u64 * page.height() as u64;
    assert!(
        packed_area * 4 <= grid_area,
        "packed {}x{} is {:.1} % of the grid",
        page.width(),
        page.height(),
        100.0 * packed_area as f64 / grid_area as f64
    );
    for (name, entry) in frames {
        let rest = name.strip_prefix("w_").unwrap();
        let (clip, rest) = rest.split_once("_d").unwrap();
        let (dir, f) = rest.split_once("_f").unwrap();
        let file = out.join(format!("{clip}_{dir}_{:02}.png", f.parse::<u32>().unwrap()));
        assert!(
            restore(&page, entry) == png(&file),
            "{name} differs from its frame"
        );
    }
    println!(
        "warrior: grid {}x{}, packed {}x{} ({:.1} %)",
        28 * 128,
        16 * 128,
        page.width(),
        page.height(),
        100.0 * packed_area as f64 / grid_area as f64
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A grid that passes `max_size` continues on pages of whole rows, cells
/// spaced by padding and extrusion; each page's JSON lists its frames and
/// every frame restores exactly, its border repeating its edge.
#[test]
fn a_grid_past_max_size_continues_on_pages_of_whole_rows() {
    let tmp = tempdir("sheets-grid-pages");
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/model/kiln/beacon.rsm");
    let recipe = |pack: &str| {
        format!(
            "jobs:\n  - name: b\n    model: '{}'\n    clip: {{ frames: 3 }}\n    size: 16x16\n    antialias: 1\n    background: '#203040'\n    pack: {pack}\n    output: {{ dir: out, frames: 'f_{{dir}}_{{frame}}.png' }}\n",
            model.display()
        )
    };
    // Cells of 16 + 2 × 1 + 2 = 20 pixels: a row is 3 × 20 − 2 = 58 wide,
    // two rows (38 high) fit 48, so 8 directions take 4 pages.
    bake(&tmp, &recipe("{ max_size: 64x48, padding: 2, extrude: 1 }"));
    let out = tmp.join("out");
    assert!(!out.join("b.png").exists());
    for p in 0..4 {
        let page = png(&out.join(format!("b-{p}.png")));
        assert_eq!(page.dimensions(), (58, 38));
        let meta = json(&out.join(format!("b-{p}.json")));
        assert_eq!(meta["meta"]["image"], format!("b-{p}.png"));
        if p == 0 {
            let related: Vec<&str> = meta["meta"]["related_multi_packs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            assert_eq!(related, ["b-1.json", "b-2.json", "b-3.json"]);
        }
        let frames = meta["frames"].as_object().unwrap();
        assert_eq!(frames.len(), 6);
        for (name, entry) in frames {
            let (d, f) = name.strip_prefix("b_d").unwrap().split_once("_f").unwrap();
            let d: u32 = d.parse().unwrap();
            let f: u32 = f.parse().unwrap();
            assert_eq!(d / 2, p, "{name} on page {p}");
            let (x, y) = (f * 20 + 1, (d % 2) * 20 + 1);
            assert_eq!(
                (entry["frame"]["x"].as_u64(), entry["frame"]["y"].as_u64()),
                (Some(x as u64), Some(y as u64))
            );
            let rendered = png(&out.join(format!("f_{d}_{f}.png")));
            assert!(restore(&page, entry) == rendered, "{name}");
            // The extruded border repeats the frame's edge.
            assert_eq!(page.get_pixel(x - 1, y + 5), rendered.get_pixel(0, 5));
            assert_eq!(page.get_pixel(x + 16, y + 15), rendered.get_pixel(15, 15));
            assert_eq!(page.get_pixel(x - 1, y - 1), rendered.get_pixel(0, 0));
        }
    }
    // Powers of two: pages as large as 64 × 32 (the largest power of two
    // within 48), one row each, eight pages.
    bake(
        &tmp,
        &recipe("{ max_size: 64x48, padding: 2, extrude: 1, power_of_two: true }"),
    );
    for p in 0..8 {
        assert_eq!(
            image::image_dimensions(out.join(format!("b-{p}.png"))).unwrap(),
            (64, 32)
        );
    }
    // A row wider than a page is refused before anything is rendered.
    std::fs::write(tmp.join("r.yaml"), recipe("{ max_size: 40x64 }")).unwrap();
    let report = kiln::bake_files(
        &[tmp.join("r.yaml")],
        &kiln::BakeOptions::default(),
        &kiln::NoProgress,
    )
    .unwrap();
    let e = report.jobs[0].result.as_ref().unwrap_err().to_string();
    assert!(
        e.contains("a grid row of 3 frames of 16x16 (with spacing) is 48x16 pixels, more than the page's max_size 40x64"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// GIF delays accumulate, so 12 frames at 12 fps last exactly one second
/// (8 or 9 centiseconds each) and the metadata says what the GIF holds; a
/// one-shot GIF plays once. The APNG keeps full alpha, the exact 1/12 s
/// and its own loop count.
#[test]
fn animations_hold_the_clip_exactly() {
    let tmp = tempdir("sheets-timing");
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/model/kiln/windmill.rsm2");
    bake(
        &tmp,
        &format!(
            "jobs:\n  - name: w\n    model: '{}'\n    clips:\n      - {{ name: spin, fps: 12, end: 1 }}\n      - {{ name: once, fps: 12, end: 1, loop: false }}\n    directions: [0]\n    size: 32x32\n    antialias: 2\n    output: {{ dir: out, gif: '{{clip}}.gif', apng: '{{clip}}.apng.png', frames: '{{clip}}_{{frame:02}}.png' }}\n",
            model.display()
        ),
    );
    let out = tmp.join("out");
    let gif = |name: &str| {
        let mut dec = gif::DecodeOptions::new()
            .read_info(std::fs::File::open(out.join(name)).unwrap())
            .unwrap();
        let mut delays = Vec::new();
        while let Some(f) = dec.read_next_frame().unwrap() {
            delays.push(f.delay as u64);
        }
        (delays, dec.repeat())
    };
    let (spin, repeat) = gif("spin.gif");
    assert_eq!(spin, [8, 9, 8, 8, 9, 8, 8, 9, 8, 8, 9, 8]);
    assert_eq!(spin.iter().sum::<u64>(), 100);
    assert_eq!(repeat, gif::Repeat::Infinite);
    let meta = json(&out.join("w.json"));
    let ms: Vec<u64> = (0..12)
        .map(|f| {
            meta["frames"][format!("w_spin_d0_f{f}")]["duration"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(ms, spin.iter().map(|c| c * 10).collect::<Vec<_>>());
    assert_eq!(meta["meta"]["clips"][0]["fps"], 12.0);
    // The one-shot: 13 frames ending on the clip's end, played once.
    let (once, repeat) = gif("once.gif");
    assert_eq!(once.len(), 13);
    assert_eq!(repeat, gif::Repeat::Finite(0));
    assert_eq!(meta["meta"]["clips"][1]["loop"], false);

    let apng = |name: &str| {
        let dec = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(out.join(name)).unwrap(),
        ));
        let mut reader = dec.read_info().unwrap();
        let actl = reader.info().animation_control.unwrap();
        let mut frames = Vec::new();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        for _ in 0..actl.num_frames {
            reader.next_frame(&mut buf).unwrap();
            let fc = reader.info().frame_control.unwrap();
            frames.push(((fc.delay_num, fc.delay_den), buf.clone()));
        }
        (actl.num_plays, frames)
    };
    let (plays, frames) = apng("spin.apng.png");
    assert_eq!(plays, 0);
    assert_eq!(frames.len(), 12);
    for (f, (delay, pixels)) in frames.iter().enumerate() {
        assert_eq!(*delay, (1, 12));
        let want = png(&out.join(format!("spin_{f:02}.png")));
        assert!(
            pixels == want.as_raw(),
            "APNG frame {f} is not the rendered frame"
        );
    }
    assert!(
        frames[0].1.chunks(4).any(|p| p[3] > 0 && p[3] < 255),
        "edges keep their partial alpha"
    );
    assert_eq!(apng("once.apng.png").0, 1);
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `--prune`: going from 8 directions to 4 removes the GIFs of directions
/// 4–7 the first bake wrote, and nothing else — not a file of the user's,
/// nor `b_9.gif`, which looks like one of them but another job writes.
#[test]
fn prune_removes_what_an_earlier_bake_left_and_nothing_else() {
    let tmp = tempdir("sheets-prune");
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/model/kiln/beacon.rsm");
    let recipe = |dirs: u32| {
        format!(
            "jobs:\n  - name: b\n    model: '{m}'\n    clip: {{ frames: 2 }}\n    directions: {dirs}\n    size: 16x16\n    antialias: 1\n    output: {{ dir: out, gif: '{{name}}_{{dir}}.gif' }}\n  - name: b_x\n    model: '{m}'\n    clip: {{ time: 0 }}\n    directions: [0]\n    size: 16x16\n    output: {{ dir: out, sheet: false, gif: 'b_9.gif' }}\n",
            m = model.display()
        )
    };
    std::fs::write(tmp.join("r.yaml"), recipe(8)).unwrap();
    let o = kiln(&["bake", "-q", "r.yaml"], &tmp);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = tmp.join("out");
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::write(out.join("b_notes.gif"), "mine").unwrap();
    assert!(out.join("b_7.gif").is_file() && out.join("b_9.gif").is_file());
    std::fs::write(tmp.join("r.yaml"), recipe(4)).unwrap();
    // Without pruning the old files stay.
    let o = kiln(&["bake", "-q", "r.yaml"], &tmp);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("b_7.gif").is_file());
    // A dry run names what would go, and keeps it.
    let recipes = [kiln::Recipe::load(&tmp.join("r.yaml")).unwrap()];
    let dry = kiln::bake(
        &recipes,
        &kiln::BakeOptions {
            prune: true,
            mode: kiln::OutputMode::DryRun,
            ..kiln::BakeOptions::default()
        },
        &kiln::NoProgress,
    )
    .unwrap();
    let mut going: Vec<String> = dry.jobs[0]
        .records
        .iter()
        .filter(|r| r.outcome == kiln::OutputStatus::WouldRemove)
        .map(|r| r.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    going.sort();
    assert_eq!(going, ["b_4.gif", "b_5.gif", "b_6.gif", "b_7.gif"]);
    assert!(out.join("b_7.gif").is_file());
    let o = kiln(&["bake", "-q", "--prune", "r.yaml"], &tmp);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != kiln::STATE_FILE)
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            "b.json",
            "b.png",
            "b_0.gif",
            "b_1.gif",
            "b_2.gif",
            "b_3.gif",
            "b_9.gif",
            "b_notes.gif",
            "notes.txt"
        ]
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Straight down, the camera still turns with yaw: at yaws 0, 90, 180 and
/// 270 the ERROR box from above gives four different images; the view from
/// yaw 0 is a golden. Lit from a fixed direction in the world (the default
/// light turns with the camera, so its shading stays put on screen), each
/// image is the previous turned a quarter clockwise: screen up is the way
/// the camera faces, −Z at yaw 0, −X at yaw 90.
#[test]
fn top_down_views_turn_with_yaw() {
    let Some(bx) = common::corpus("ro/Borf+BrowEdit3/data/model/box_error_01.rsm") else {
        return;
    };
    let model = kiln::Model::load(&kiln::ModelSpec::new(bx.as_path())).unwrap();
    let view = kiln::ViewSpec {
        pitch: 90.0,
        width: 96,
        height: 96,
        ..kiln::ViewSpec::default()
    };
    let render = |yaw: f32, view: &kiln::ViewSpec| model.render(0.0, yaw, view).unwrap().image;
    let yaws = [0.0, 90.0, 180.0, 270.0];
    let images: Vec<RgbaImage> = yaws.iter().map(|&yaw| render(yaw, &view)).collect();
    for i in 0..4 {
        for j in i + 1..4 {
            assert!(
                images[i] != images[j],
                "yaws {} and {} give the same image",
                i * 90,
                j * 90
            );
        }
    }
    let world_lit = kiln::ViewSpec {
        light: kiln::LightSpec {
            space: kiln::LightSpace::World,
            ..kiln::LightSpec::default()
        },
        ..view
    };
    let lit: Vec<RgbaImage> = yaws.iter().map(|&yaw| render(yaw, &world_lit)).collect();
    for i in 0..4 {
        let turned = image::imageops::rotate90(&lit[i]);
        let next = &lit[(i + 1) % 4];
        let close = turned
            .pixels()
            .zip(next.pixels())
            .filter(|(a, b)| a.0.iter().zip(b.0).all(|(x, y)| x.abs_diff(y) <= 2))
            .count();
        assert!(
            close * 100 >= 99 * 96 * 96,
            "yaw {} turned is not yaw {}: {close}",
            i * 90,
            (i + 1) * 90
        );
    }
    common::assert_golden("corpus/box_error_top_yaw0", &images[0]);
    // Straight up mirrors it: the box's other face, front at the top.
    let below = model
        .render(
            0.0,
            0.0,
            &kiln::ViewSpec {
                pitch: -90.0,
                ..view
            },
        )
        .unwrap()
        .image;
    assert!(below != images[0]);
}

/// `kiln render -o x.jpg` is refused as a usage error (exit 2) before
/// anything is rendered; kiln writes PNG only.
#[test]
fn render_refuses_a_file_it_cannot_write() {
    let tmp = tempdir("sheets-jpg");
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/model/kiln/beacon.rsm");
    let m = model.to_str().unwrap();
    for name in ["x.jpg", "x.JPEG", "x"] {
        let o = kiln(&["render", m, "-o", name], &tmp);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("kiln writes PNG images only"),
            "{}",
            stderr(&o)
        );
        assert!(!tmp.join(name).exists());
    }
    let o = kiln(&["render", m, "-o", "x.PNG", "--size", "16x16"], &tmp);
    assert!(o.status.success(), "{}", stderr(&o));
    let _: PathBuf = tmp.join("x.PNG");
    let _ = std::fs::remove_dir_all(&tmp);
}
