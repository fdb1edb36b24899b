use image::{Rgba, RgbaImage};
use kiln::bake::gif::{delay_cs, encode};
use kiln::bake::meta::{sheet_json, ClipMeta, SheetMeta};
use kiln::bake::outputs::ClipFrames;
use kiln::bake::recipe::{Direction, Recipe};
use kiln::bake::sheet::{Rect, SheetLayout};
use kiln::bake::write_outputs;
use std::path::{Path, PathBuf};

fn solid(w: u32, h: u32, c: [u8; 4]) -> RgbaImage {
    RgbaImage::from_pixel(w, h, Rgba(c))
}

#[test]
fn sheet_layout_coordinates() {
    let l = SheetLayout::new(64, 32, 5, 3).unwrap();
    assert_eq!((l.width(), l.height(), l.len()), (320, 96, 15));
    assert_eq!(
        l.cell(2, 4),
        Rect {
            x: 256,
            y: 64,
            w: 64,
            h: 32
        }
    );
    let order: Vec<(u32, u32, u32, u32)> = l.cells().map(|(r, c, k)| (r, c, k.x, k.y)).collect();
    assert_eq!(order[0], (0, 0, 0, 0));
    assert_eq!(order[1], (0, 1, 64, 0));
    assert_eq!(order[5], (1, 0, 0, 32));
    assert_eq!(order[14], (2, 4, 256, 64));

    assert_eq!(
        SheetLayout::new(8192, 8192, 5, 1).unwrap_err(),
        "sheet of 5x1 frames of 8192x8192 would be 40960x8192 pixels, over the limit of 32768 per side and 268435456 pixels; use fewer frames or directions, or a smaller size"
    );
    assert!(SheetLayout::new(0, 8, 1, 1).is_err());
}

#[test]
fn sheet_places_each_frame_in_its_cell() {
    let l = SheetLayout::new(3, 2, 3, 2).unwrap();
    let frames: Vec<RgbaImage> = (0..6u8).map(|i| solid(3, 2, [i * 40, 7, 9, 255])).collect();
    let refs: Vec<&RgbaImage> = frames.iter().collect();
    let s = l.compose(&refs).unwrap();
    assert_eq!(s.dimensions(), (9, 4));
    for (i, (_, _, cell)) in l.cells().enumerate() {
        for (dx, dy) in [(0, 0), (2, 1)] {
            assert_eq!(
                s.get_pixel(cell.x + dx, cell.y + dy).0,
                [i as u8 * 40, 7, 9, 255]
            );
        }
    }
    assert_eq!(
        l.compose(&refs[..5]).unwrap_err(),
        "sheet of 3x2 cells given 5 frames"
    );
    let odd = solid(2, 2, [0; 4]);
    let mut bad = refs.clone();
    bad[4] = &odd;
    assert_eq!(
        l.compose(&bad).unwrap_err(),
        "frame at row 1, column 1 is 2x2, expected 3x2"
    );
}

const META_2X3: &str = r#"{
  "frames": {
    "hero_d0_f0": {
      "frame": {
        "x": 0,
        "y": 0,
        "w": 32,
        "h": 16
      },
      "rotated": false,
      "trimmed": false,
      "spriteSourceSize": {
        "x": 0,
        "y": 0,
        "w": 32,
        "h": 16
      },
      "sourceSize": {
        "w": 32,
        "h": 16
      },
      "duration": 100
    },
    "hero_d0_f1": {
      "frame": {
        "x": 32,
        "y": 0,
        "w": 32,
        "h": 16
      },
      "rotated": false,
      "trimmed": false,
      "spriteSourceSize": {
        "x": 0,
        "y": 0,
        "w": 32,
        "h": 16
      },
      "sourceSize": {
        "w": 32,
        "h": 16
      },
      "duration": 100
    },
    "hero_d0_f2": {
      "frame": {
        "x": 64,
        "y": 0,
        "w": 32,
        "h": 16
      },
      "rotated": false,
      "trimmed": false,
      "spriteSourceSize": {
        "x": 0,
        "y": 0,
        "w": 32,
        "h": 16
      },
      "sourceSize": {
        "w": 32,
        "h": 16
      },
      "duration": 100
    },
    "hero_d1_f0": {
      "frame": {
        "x": 0,
        "y": 16,
        "w": 32,
        "h": 16
      },
      "rotated": false,
      "trimmed": false,
      "spriteSourceSize": {
        "x": 0,
        "y": 0,
        "w": 32,
        "h": 16
      },
      "sourceSize": {
        "w": 32,
        "h": 16
      },
      "duration": 100
    },
    "hero_d1_f1": {
      "frame": {
        "x": 32,
        "y": 16,
        "w": 32,
        "h": 16
      },
      "rotated": false,
      "trimmed": false,
      "spriteSourceSize": {
        "x": 0,
        "y": 0,
        "w": 32,
        "h": 16
      },
      "sourceSize": {
        "w": 32,
        "h": 16
      },
      "duration": 100
    },
    "hero_d1_f2": {
      "frame": {
        "x": 64,
        "y": 16,
        "w": 32,
        "h": 16
      },
      "rotated": false,
      "trimmed": false,
      "spriteSourceSize": {
        "x": 0,
        "y": 0,
        "w": 32,
        "h": 16
      },
      "sourceSize": {
        "w": 32,
        "h": 16
      },
      "duration": 100
    }
  },
  "meta": {
    "app": "kiln",
    "version": "VERSION",
    "image": "hero.png",
    "format": "RGBA8888",
    "size": {
      "w": 96,
      "h": 32
    },
    "scale": "1",
    "frameTags": [
      {
        "name": "hero_d0",
        "from": 0,
        "to": 2,
        "direction": "forward"
      },
      {
        "name": "hero_d1",
        "from": 3,
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
        "yaw": 180.0
      }
    ],
    "fps": 10.0,
    "pivot": {
      "x": 0.5,
      "y": 0.875
    }
  }
}
"#;

fn meta_2x3() -> String {
    let dirs = [
        Direction { index: 0, yaw: 0.0 },
        Direction {
            index: 1,
            yaw: 180.0,
        },
    ];
    sheet_json(&SheetMeta {
        name: "hero",
        image: "hero.png",
        layout: SheetLayout::new(32, 16, 3, 2).unwrap(),
        directions: &dirs,
        clips: &[ClipMeta {
            name: "default",
            frames: 3,
            frame_seconds: 0.1,
        }],
        named_clips: false,
        pivot: [0.5, 0.875],
    })
}

#[test]
fn metadata_for_a_2x3_sheet_is_exact() {
    let want = META_2X3.replace("VERSION", env!("CARGO_PKG_VERSION"));
    let got = meta_2x3();
    assert_eq!(got, want);
    assert_eq!(meta_2x3(), got);
}

/// Three 4x3 frames: pixel (0, 0) transparent, (1, 0) half-transparent
/// (alpha 100, also transparent in a GIF), the rest a colour that changes per frame.
fn anim() -> Vec<RgbaImage> {
    (0..3u8)
        .map(|f| {
            RgbaImage::from_fn(4, 3, |x, y| match (x, y) {
                (0, 0) => Rgba([255, 0, 255, 0]),
                (1, 0) => Rgba([10, 10, 10, 100]),
                _ => Rgba([200, 50 + f * 60, (x * 30 + y) as u8, 255]),
            })
        })
        .collect()
}

#[test]
fn gif_round_trip() {
    let frames = anim();
    let refs: Vec<&RgbaImage> = frames.iter().collect();
    let delay = delay_cs(1.0 / 12.0);
    assert_eq!(delay, 8);
    let bytes = encode(&refs, delay).unwrap();
    assert_eq!(encode(&refs, delay).unwrap(), bytes, "not deterministic");

    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::Indexed);
    let mut dec = opts.read_info(bytes.as_slice()).unwrap();
    assert_eq!(dec.repeat(), gif::Repeat::Infinite);
    assert_eq!((dec.width(), dec.height()), (4, 3));
    // 3 frames x 10 opaque pixels: x*30+y gives 10 distinct blues per frame
    // and 3 greens → 30 colours + transparency = 31, padded to 32 entries.
    let palette = dec.global_palette().unwrap().to_vec();
    assert_eq!(palette.len(), 32 * 3);
    let mut count = 0;
    while let Some(frame) = dec.read_next_frame().unwrap() {
        assert_eq!(frame.delay, 8);
        assert_eq!(frame.dispose, gif::DisposalMethod::Background);
        assert_eq!(frame.transparent, Some(0));
        assert_eq!((frame.width, frame.height), (4, 3));
        let idx = |x: usize, y: usize| frame.buffer[y * 4 + x] as usize;
        assert_eq!(idx(0, 0), 0);
        assert_eq!(idx(1, 0), 0);
        let i = idx(2, 1);
        assert_ne!(i, 0);
        assert_eq!(
            &palette[i * 3..i * 3 + 3],
            &[200, 50 + count as u8 * 60, 61]
        );
        count += 1;
    }
    assert_eq!(count, 3);
}

#[test]
fn gif_rejects_mismatched_frames() {
    let a = solid(4, 4, [1, 2, 3, 255]);
    let b = solid(4, 5, [1, 2, 3, 255]);
    assert_eq!(
        encode(&[&a, &b], 10).unwrap_err(),
        "GIF frames differ in size: 4x5 and 4x4"
    );
    assert_eq!(
        encode(&[], 10).unwrap_err(),
        "a GIF needs at least one frame"
    );
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kiln-bake-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn write_outputs_writes_every_requested_file() {
    let dir = scratch("outputs");
    let recipe = dir.join("r.yaml");
    let text = "jobs:\n  - name: hero\n    model: hero.rsm\n    size: 4x3\n    directions: [0, 90]\n    clip: {frames: 3, end: 0.3}\n    output: {dir: out, frames: '{name}_{yaw}_{frame}.png', gif: '{name}_{dir}.gif'}\n";
    let job = Recipe::from_str(text, &recipe).unwrap().jobs().remove(0);
    let times = job.clips[0].clip.frame_times(5.0).unwrap();
    let clips = vec![ClipFrames {
        times,
        frames: vec![anim(), anim()],
    }];
    let written = write_outputs(&job, &clips, [0.5, 1.0]).unwrap();
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
            "out/hero_0_0.png",
            "out/hero_0_1.png",
            "out/hero_0_2.png",
            "out/hero_90_0.png",
            "out/hero_90_1.png",
            "out/hero_90_2.png",
            "out/hero.png",
            "out/hero.json",
            "out/hero_0.gif",
            "out/hero_1.gif",
        ]
    );
    let sheet = image::open(dir.join("out/hero.png")).unwrap().to_rgba8();
    assert_eq!(sheet.dimensions(), (12, 6));
    // Row 1 (yaw 90), column 2: the third frame's pixel (2, 1).
    assert_eq!(sheet.get_pixel(4 * 2 + 2, 3 + 1).0, [200, 170, 61, 255]);
    assert_eq!(sheet.get_pixel(4, 0).0, [255, 0, 255, 0]);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/hero.json")).unwrap()).unwrap();
    assert_eq!(meta["meta"]["image"], "hero.png");
    assert_eq!(meta["frames"]["hero_d1_f2"]["frame"]["x"], 8);
    assert_eq!(meta["frames"]["hero_d1_f2"]["duration"], 100);
    assert_eq!(meta["meta"]["directions"][1]["yaw"], 90.0);

    // Same inputs, same bytes.
    let first: Vec<Vec<u8>> = written.iter().map(|p| std::fs::read(p).unwrap()).collect();
    write_outputs(&job, &clips, [0.5, 1.0]).unwrap();
    let second: Vec<Vec<u8>> = written.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert_eq!(first, second);

    let mut short = clips.clone();
    short[0].frames.pop();
    assert_eq!(
        write_outputs(&job, &short, [0.5, 1.0])
            .unwrap_err()
            .to_string(),
        "job 'hero': clip 'default': 1 rows of frames for 2 directions"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn frame_path_is_none_without_frames_output() {
    let job = Recipe::from_str(
        "jobs:\n  - name: a\n    model: a.rsm\n",
        Path::new("x/r.yaml"),
    )
    .unwrap()
    .jobs()
    .remove(0);
    assert_eq!(job.frame_path(0, 0, 0), None);
    assert_eq!(job.gif_path(0, 0), None);
}

#[test]
fn clips_of_different_lengths_share_a_sheet() {
    // Two clips × two directions: clip 0 has 3 frames, clip 1 has 1.
    let l = SheetLayout::new(2, 2, 3, 4).unwrap();
    let a: Vec<RgbaImage> = (0..6u8).map(|i| solid(2, 2, [i + 1, 0, 0, 255])).collect();
    let b: Vec<RgbaImage> = (0..2u8).map(|i| solid(2, 2, [0, i + 1, 0, 255])).collect();
    let rows: Vec<Vec<&RgbaImage>> = vec![
        a[0..3].iter().collect(),
        a[3..6].iter().collect(),
        vec![&b[0]],
        vec![&b[1]],
    ];
    let s = l.compose_rows(&rows).unwrap();
    assert_eq!(s.dimensions(), (6, 8));
    assert_eq!(s.get_pixel(5, 3).0, [6, 0, 0, 255]);
    assert_eq!(s.get_pixel(1, 5).0, [0, 1, 0, 255]);
    assert_eq!(s.get_pixel(0, 7).0, [0, 2, 0, 255]);
    // Past a short row's end the cells stay transparent.
    for (x, y) in [(2, 4), (5, 5), (3, 6), (5, 7)] {
        assert_eq!(s.get_pixel(x, y).0, [0, 0, 0, 0], "({x}, {y})");
    }
    assert_eq!(
        l.compose_rows(&rows[..3]).unwrap_err(),
        "sheet of 4 rows given 3 rows of frames"
    );
    let mut long = rows.clone();
    long[2] = a.iter().take(4).collect();
    assert_eq!(
        l.compose_rows(&long).unwrap_err(),
        "row 2 has 4 frames, more than the sheet's 3 columns"
    );
}

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
      "duration": 100
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
      "duration": 100
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
      "duration": 100
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
      "duration": 100
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
      "duration": 0
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
      "duration": 0
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
        "frames": 2,
        "firstRow": 0,
        "directions": 2
      },
      {
        "name": "still",
        "fps": 0.0,
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
    sheet_json(&SheetMeta {
        name: "orc",
        image: "orc.png",
        layout: SheetLayout::new(8, 4, 2, 4).unwrap(),
        directions: &dirs,
        clips: &[
            ClipMeta {
                name: "walk",
                frames: 2,
                frame_seconds: 0.1,
            },
            ClipMeta {
                name: "still",
                frames: 1,
                frame_seconds: 0.0,
            },
        ],
        named_clips: true,
        pivot: [0.5, 1.0],
    })
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
    let job = Recipe::from_str(text, &recipe).unwrap().jobs().remove(0);
    let clips: Vec<ClipFrames> = job
        .clips
        .iter()
        .map(|c| {
            let times = c.clip.frame_times(5.0).unwrap();
            let n = times.times.len();
            ClipFrames {
                times,
                frames: vec![anim()[..n].to_vec(), anim()[..n].to_vec()],
            }
        })
        .collect();
    let written = write_outputs(&job, &clips, [0.5, 1.0]).unwrap();
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
        write_outputs(&job, &missing, [0.5, 1.0])
            .unwrap_err()
            .to_string(),
        "job 'orc': 1 clips of frames for 2 clips"
    );
    let mut short = clips.clone();
    short[1].frames[0].pop();
    assert_eq!(
        write_outputs(&job, &short, [0.5, 1.0])
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
        .remove(0);
    let plan = kiln::bake::run::plan_job(&job).unwrap();
    assert_eq!(plan.images(), 4);
    let report = kiln::bake::run::run_planned(&job, &plan, &|| {}).unwrap();
    assert_eq!(report.images, 4);
    let cell = |col: u32, row: u32| {
        let sheet = image::open(dir.join("out/wm.png")).unwrap().to_rgba8();
        assert_eq!(sheet.dimensions(), (120, 80));
        image::imageops::crop_imm(&sheet, col * 40, row * 40, 40, 40).to_image()
    };
    let opaque = |img: &RgbaImage| img.pixels().filter(|p| p.0[3] > 0).count();
    let spin_alone = kiln::bake::run::render_clip(
        &plan.clips[0].model,
        &kiln::bake::run::ClipPlan {
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
    big.clips[1].model.display =
        glam::Mat4::from_scale(glam::Vec3::splat(2.0)) * big.clips[1].model.display;
    kiln::bake::run::run_planned(&job, &big, &|| {}).unwrap();
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
        .remove(0);
    let e = kiln::bake::run::plan_job(&job).unwrap_err();
    assert!(
        matches!(&e, kiln::Error::Io { path, .. } if path == Path::new("r/anims/walk.animation")),
        "{e}"
    );
    // Without an animation file the clip animates the job's model itself.
    let spec = kiln::bake::recipe::ClipSpec {
        animation: None,
        ..job.clips[0].clone()
    };
    let loaded =
        kiln::load::load_model(&job.model, &kiln::texture::TextureResolver::new(Vec::new()))
            .unwrap();
    let m = kiln::bake::run::clip_model(&loaded, &spec, &job).unwrap();
    assert_eq!(
        (m.nodes.len(), m.duration),
        (loaded.nodes.len(), loaded.duration)
    );
}
