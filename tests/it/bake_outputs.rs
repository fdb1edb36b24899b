use image::{Rgba, RgbaImage};
use kiln::internals::bake::encode::clip_frames::ClipFrames;
use kiln::internals::bake::encode::gif::{delay_cs, encode};
use kiln::internals::bake::outputs::sink::FileSink;
use kiln::internals::bake::recipe::{Direction, PackSpec, Recipe};
use kiln::internals::bake::sheet::atlas::{Atlas, AtlasClip, AtlasJob, Rect};
use kiln::internals::bake::sheet::compose::compose;
use kiln::internals::bake::sheet::grid::GridLayout;
use kiln::internals::bake::sheet::meta::texturepacker;
use kiln::internals::bake::write_outputs;
use kiln::internals::confined::Root;
use std::path::{Path, PathBuf};

fn solid(w: u32, h: u32, c: [u8; 4]) -> RgbaImage {
    RgbaImage::from_pixel(w, h, Rgba(c))
}

/// Every `(row, column, cell)` of a grid in sheet order (row-major).
fn grid_cells(l: &GridLayout) -> impl Iterator<Item = (u32, u32, Rect)> + '_ {
    (0..l.rows).flat_map(move |r| (0..l.columns).map(move |c| (r, c, l.cell(r, c))))
}

#[test]
fn sheet_layout_coordinates() {
    let l = GridLayout::new(64, 32, 5, 3).unwrap();
    assert_eq!((l.width(), l.height(), (l.columns * l.rows)), (320, 96, 15));
    assert_eq!(
        l.cell(2, 4),
        Rect {
            x: 256,
            y: 64,
            w: 64,
            h: 32
        }
    );
    let order: Vec<(u32, u32, u32, u32)> =
        grid_cells(&l).map(|(r, c, k)| (r, c, k.x, k.y)).collect();
    assert_eq!(order[0], (0, 0, 0, 0));
    assert_eq!(order[1], (0, 1, 64, 0));
    assert_eq!(order[5], (1, 0, 0, 32));
    assert_eq!(order[14], (2, 4, 256, 64));

    assert_eq!(
        GridLayout::new(8192, 8192, 5, 1).unwrap_err(),
        "sheet of 5x1 frames of 8192x8192 would be 40960x8192 pixels, over the limit of 32768 per side and 268435456 pixels; use fewer frames or directions, or a smaller size"
    );
    assert!(GridLayout::new(0, 8, 1, 1).is_err());
}

fn dirs(yaws: &[f32]) -> Vec<Direction> {
    yaws.iter()
        .enumerate()
        .map(|(index, &yaw)| Direction { index, yaw })
        .collect()
}

/// A job of one clip of `frames` frames named "t", for layouts.
fn one_clip<'a>(directions: &'a [Direction], clips: &'a [AtlasClip<'a>]) -> AtlasJob<'a> {
    AtlasJob {
        name: "t",
        image: "t.png",
        directions,
        clips,
        named_clips: false,
        pixels_per_unit: None,
    }
}

#[test]
fn sheet_places_each_frame_in_its_cell() {
    let l = GridLayout::new(3, 2, 3, 2).unwrap();
    let d = dirs(&[0.0, 180.0]);
    let clips = [AtlasClip {
        name: "c",
        frames: 3,
        frame_seconds: 0.1,
        rate: 10.0,
        looping: true,
    }];
    let atlas = l.atlas(&one_clip(&d, &clips), [0.5, 0.5]);
    let rects: Vec<Rect> = atlas.frames.iter().map(|f| f.rect).collect();
    let cells: Vec<Rect> = grid_cells(&l).map(|(_, _, c)| c).collect();
    assert_eq!(rects, cells);
    let frames: Vec<RgbaImage> = (0..6u8).map(|i| solid(3, 2, [i * 40, 7, 9, 255])).collect();
    let refs: Vec<&RgbaImage> = frames.iter().collect();
    let s = compose(&atlas, 0, &refs).unwrap();
    assert_eq!(s.dimensions(), (9, 4));
    for (i, (_, _, cell)) in grid_cells(&l).enumerate() {
        for (dx, dy) in [(0, 0), (2, 1)] {
            assert_eq!(
                s.get_pixel(cell.x + dx, cell.y + dy).0,
                [i as u8 * 40, 7, 9, 255]
            );
        }
    }
    assert_eq!(
        compose(&atlas, 0, &refs[..5]).unwrap_err(),
        "atlas of 6 frames given 5 images"
    );
    let odd = solid(2, 2, [0; 4]);
    let mut bad = refs.clone();
    bad[4] = &odd;
    assert_eq!(
        compose(&atlas, 0, &bad).unwrap_err(),
        "frame 't_d1_f1' is 2x2, expected 3x2"
    );
    assert_eq!(
        compose(&atlas, 1, &refs).unwrap_err(),
        "page 1 of an atlas of 1 pages"
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
      "duration": 100,
      "pivot": {
        "x": 0.5,
        "y": 0.875
      }
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
      "duration": 100,
      "pivot": {
        "x": 0.5,
        "y": 0.875
      }
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
      "duration": 100,
      "pivot": {
        "x": 0.5,
        "y": 0.875
      }
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
      "duration": 100,
      "pivot": {
        "x": 0.5,
        "y": 0.875
      }
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
      "duration": 100,
      "pivot": {
        "x": 0.5,
        "y": 0.875
      }
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
      "duration": 100,
      "pivot": {
        "x": 0.5,
        "y": 0.875
      }
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
    "loop": true,
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
    let job = AtlasJob {
        name: "hero",
        image: "hero.png",
        directions: &dirs,
        clips: &[AtlasClip {
            name: "default",
            frames: 3,
            frame_seconds: 0.1,
            rate: 10.0,
            looping: true,
        }],
        named_clips: false,
        pixels_per_unit: None,
    };
    let atlas = GridLayout::new(32, 16, 3, 2)
        .unwrap()
        .atlas(&job, [0.5, 0.875]);
    assert_eq!(
        kiln::internals::bake::sheet::grid::paged_atlas(
            &job,
            32,
            16,
            [0.5, 0.875],
            &PackSpec::default()
        )
        .unwrap(),
        atlas
    );
    texturepacker::json(&atlas, &job)
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
pub(crate) fn anim() -> Vec<RgbaImage> {
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

pub(crate) fn scratch(name: &str) -> PathBuf {
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
    let mut jobs = Recipe::from_str(text, &recipe).unwrap().jobs().unwrap();
    let job = jobs.remove(0);
    let times = job.clips[0].clip.frame_times(5.0).unwrap();
    let clips = vec![ClipFrames::new(times, vec![anim(), anim()], [0.5, 1.0])];
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
    write_outputs(&job, &clips, &FileSink::new(Root::new(&job.output.dir))).unwrap();
    let second: Vec<Vec<u8>> = written.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert_eq!(first, second);

    let mut short = clips.clone();
    short[0].frames.pop();
    assert_eq!(
        write_outputs(&job, &short, &FileSink::new(Root::new(&job.output.dir)))
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
    .unwrap()
    .remove(0);
    assert_eq!(job.frame_path(0, 0, 0), None);
    assert_eq!(job.gif_path(0, 0), None);
}

#[test]
fn clips_of_different_lengths_share_a_sheet() {
    // Two clips × two directions: clip 0 has 3 frames, clip 1 has 1.
    let l = GridLayout::new(2, 2, 3, 4).unwrap();
    let d = dirs(&[0.0, 90.0]);
    let clips = [
        AtlasClip {
            name: "a",
            frames: 3,
            frame_seconds: 0.1,
            rate: 10.0,
            looping: true,
        },
        AtlasClip {
            name: "b",
            frames: 1,
            frame_seconds: 0.0,
            rate: 0.0,
            looping: true,
        },
    ];
    let job = AtlasJob {
        named_clips: true,
        ..one_clip(&d, &clips)
    };
    let atlas = l.atlas(&job, [0.5, 0.5]);
    let a: Vec<RgbaImage> = (0..6u8).map(|i| solid(2, 2, [i + 1, 0, 0, 255])).collect();
    let b: Vec<RgbaImage> = (0..2u8).map(|i| solid(2, 2, [0, i + 1, 0, 255])).collect();
    let images: Vec<&RgbaImage> = a.iter().chain(&b).collect();
    let s = compose(&atlas, 0, &images).unwrap();
    assert_eq!(s.dimensions(), (6, 8));
    assert_eq!(s.get_pixel(5, 3).0, [6, 0, 0, 255]);
    assert_eq!(s.get_pixel(1, 5).0, [0, 1, 0, 255]);
    assert_eq!(s.get_pixel(0, 7).0, [0, 2, 0, 255]);
    // Past a short row's end the cells stay transparent.
    for (x, y) in [(2, 4), (5, 5), (3, 6), (5, 7)] {
        assert_eq!(s.get_pixel(x, y).0, [0, 0, 0, 0], "({x}, {y})");
    }
    assert_eq!(
        compose(&atlas, 0, &images[..7]).unwrap_err(),
        "atlas of 8 frames given 7 images"
    );
    // A clip longer than the grid is wide keeps only the frames that fit.
    let long = [
        clips[0],
        AtlasClip {
            frames: 4,
            ..clips[1]
        },
    ];
    let cut = l.atlas(
        &AtlasJob {
            clips: &long,
            ..job
        },
        [0.5, 0.5],
    );
    assert_eq!(cut.frames.iter().filter(|f| f.clip == 1).count(), 6);
    assert_eq!(cut.frames.iter().map(|f| f.rect.y).max(), Some(6));
}

/// The grid atlas of a job with two clips of 3 and 1 frames seen from two
/// directions: every frame's cell, name and duration, and the tags over the
/// frame list, exactly.
#[test]
fn grid_atlas_of_two_clips_of_different_lengths() {
    let d = [
        Direction { index: 0, yaw: 0.0 },
        Direction {
            index: 1,
            yaw: 90.0,
        },
    ];
    let clips = [
        AtlasClip {
            name: "walk",
            frames: 3,
            frame_seconds: 0.125,
            rate: 8.0,
            looping: true,
        },
        AtlasClip {
            name: "idle",
            frames: 1,
            frame_seconds: 0.0,
            rate: 0.0,
            looping: true,
        },
    ];
    let job = AtlasJob {
        name: "orc",
        image: "orc.png",
        directions: &d,
        clips: &clips,
        named_clips: true,
        pixels_per_unit: None,
    };
    let atlas = kiln::internals::bake::sheet::grid::paged_atlas(
        &job,
        10,
        20,
        [0.25, 0.75],
        &PackSpec::default(),
    )
    .unwrap();
    assert_eq!(
        atlas.pages,
        [kiln::internals::bake::sheet::atlas::Page {
            width: 30,
            height: 80
        }]
    );
    let rows: Vec<String> = atlas
        .frames
        .iter()
        .map(|f| {
            format!(
                "{} c{} d{} f{} at {},{} {}ms",
                f.name, f.clip, f.direction, f.frame, f.rect.x, f.rect.y, f.duration_ms
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            "orc_walk_d0_f0 c0 d0 f0 at 0,0 125ms",
            "orc_walk_d0_f1 c0 d0 f1 at 10,0 125ms",
            "orc_walk_d0_f2 c0 d0 f2 at 20,0 125ms",
            "orc_walk_d1_f0 c0 d1 f0 at 0,20 125ms",
            "orc_walk_d1_f1 c0 d1 f1 at 10,20 125ms",
            "orc_walk_d1_f2 c0 d1 f2 at 20,20 125ms",
            "orc_idle_d0_f0 c1 d0 f0 at 0,40 0ms",
            "orc_idle_d1_f0 c1 d1 f0 at 0,60 0ms",
        ]
    );
    for f in &atlas.frames {
        assert_eq!((f.page, f.rect.w, f.rect.h), (0, 10, 20));
        assert_eq!(
            f.source,
            Rect {
                x: 0,
                y: 0,
                w: 10,
                h: 20
            }
        );
        assert_eq!(f.source_size, (10, 20));
        assert_eq!(f.pivot, [0.25, 0.75]);
    }
    let tags: Vec<(&str, usize, usize, usize, usize)> = atlas
        .tags
        .iter()
        .map(|t| (t.name.as_str(), t.from, t.to, t.clip, t.direction))
        .collect();
    assert_eq!(
        tags,
        [
            ("walk_d0", 0, 2, 0, 0),
            ("walk_d1", 3, 5, 0, 1),
            ("idle_d0", 6, 6, 1, 0),
            ("idle_d1", 7, 7, 1, 1),
        ]
    );
    // A single-clip job names frames and tags by the job.
    let single = kiln::internals::bake::sheet::grid::paged_atlas(
        &AtlasJob {
            clips: &clips[..1],
            named_clips: false,
            ..job
        },
        10,
        20,
        [0.5, 0.5],
        &PackSpec::default(),
    )
    .unwrap();
    assert_eq!(single.frames[4].name, "orc_d1_f1");
    assert_eq!(single.tags[1].name, "orc_d1");
    // The size limits of the grid hold for every page: a sheet past them
    // continues on the next page, whole rows at a time (24576 × 8192 is as
    // many pixels as a page may hold), each row on one page.
    let big = kiln::internals::bake::sheet::grid::paged_atlas(
        &job,
        8192,
        8192,
        [0.5, 0.5],
        &PackSpec::default(),
    )
    .unwrap();
    assert_eq!(
        big.pages,
        vec![
            kiln::internals::bake::sheet::atlas::Page {
                width: 24576,
                height: 8192
            };
            4
        ]
    );
    for t in &big.tags {
        let pages: Vec<usize> = big.frames[t.from..=t.to].iter().map(|f| f.page).collect();
        assert!(
            pages.iter().all(|&p| p == pages[0]),
            "{} spans pages",
            t.name
        );
    }
    assert_eq!(big.frames[7].page, 3);
    assert_eq!((big.frames[7].rect.x, big.frames[7].rect.y), (0, 0));
}

/// A frame whose `source` is part of its rendered image (as a trimming
/// packer makes them) copies just that part to its `rect`.
#[test]
fn compose_copies_a_source_sub_rect() {
    let d = dirs(&[0.0]);
    let clips = [AtlasClip {
        name: "c",
        frames: 2,
        frame_seconds: 0.1,
        rate: 10.0,
        looping: true,
    }];
    let mut atlas: Atlas = GridLayout::new(6, 5, 2, 1)
        .unwrap()
        .atlas(&one_clip(&d, &clips), [0.5, 0.5]);
    atlas.pages[0] = kiln::internals::bake::sheet::atlas::Page {
        width: 7,
        height: 4,
    };
    // Frame 0: its 3x2 block at (2, 1) goes to (0, 0); frame 1: its 4x4
    // block at (1, 0) goes to (3, 0).
    atlas.frames[0].source = Rect {
        x: 2,
        y: 1,
        w: 3,
        h: 2,
    };
    atlas.frames[0].rect = Rect {
        x: 0,
        y: 0,
        w: 3,
        h: 2,
    };
    atlas.frames[1].source = Rect {
        x: 1,
        y: 0,
        w: 4,
        h: 4,
    };
    atlas.frames[1].rect = Rect {
        x: 3,
        y: 0,
        w: 4,
        h: 4,
    };
    let img = |tag: u8| RgbaImage::from_fn(6, 5, |x, y| Rgba([tag, x as u8, y as u8, 255]));
    let (f0, f1) = (img(1), img(2));
    let s = compose(&atlas, 0, &[&f0, &f1]).unwrap();
    assert_eq!(s.dimensions(), (7, 4));
    for y in 0..4 {
        for x in 0..7 {
            let want = if x < 3 && y < 2 {
                [1, x as u8 + 2, y as u8 + 1, 255]
            } else if x >= 3 {
                [2, x as u8 - 2, y as u8, 255]
            } else {
                [0, 0, 0, 0]
            };
            assert_eq!(s.get_pixel(x, y).0, want, "({x}, {y})");
        }
    }
    // The metadata tells the trimmed frame by its source rect.
    let json: serde_json::Value =
        serde_json::from_str(&texturepacker::json(&atlas, &one_clip(&d, &clips))).unwrap();
    let f = &json["frames"]["t_d0_f0"];
    assert_eq!(f["trimmed"], true);
    assert_eq!(
        (
            f["spriteSourceSize"]["x"].clone(),
            f["spriteSourceSize"]["w"].clone()
        ),
        (2.into(), 3.into())
    );
    assert_eq!(f["sourceSize"]["w"], 6);
    // A source reaching past its frame is refused, not copied.
    atlas.frames[1].source.x = 3;
    assert_eq!(
        compose(&atlas, 0, &[&f0, &f1]).unwrap_err(),
        "frame 't_d0_f1': source 4x4 at (3, 0) of a 6x5 frame does not match rect 4x4 at (3, 0) of a 7x4 page"
    );
}
