use image::{Rgba, RgbaImage};
use kiln::internals::bake::encode::clip_frames::ClipFrames;
use kiln::internals::bake::encode::gif::{delay_cs, encode};
use kiln::internals::bake::outputs::sink::{DryRunSink, FileSink, OutputStatus, Sink, VerifySink};
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
    let job = Recipe::from_str(text, &recipe).unwrap().jobs().remove(0);
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
    let job = recipe.jobs().remove(0);
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
