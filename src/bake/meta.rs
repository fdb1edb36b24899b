//! Sheet metadata as JSON in TexturePacker's "JSON hash" shape, which Phaser,
//! PixiJS, Godot importers and most engines read, plus Aseprite-style
//! `frameTags` (one per direction) and kiln's own `directions`, `fps` and
//! `pivot`.
//!
//! Key order is fixed by the structs below and frames are written in sheet
//! order (serde_json's own map would sort `f10` before `f2`), so the same bake
//! always writes the same bytes.

use super::recipe::Direction;
use super::sheet::SheetLayout;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// What the metadata describes. `layout.rows` must equal
/// `directions.len()`; row `i` holds direction `directions[i]`.
#[derive(Debug, Clone, Copy)]
pub struct SheetMeta<'a> {
    /// Frame-name prefix, normally the job name.
    pub name: &'a str,
    /// The sheet image's file name (not a path), as engines resolve it
    /// beside the JSON.
    pub image: &'a str,
    pub layout: SheetLayout,
    pub directions: &'a [Direction],
    /// How long each frame shows, seconds (0 for a still).
    pub frame_seconds: f32,
    /// The model's origin within a frame, as a fraction of its width and
    /// height from the top-left corner.
    pub pivot: [f32; 2],
}

#[derive(Serialize)]
struct Doc<'a> {
    frames: Frames<'a>,
    meta: Meta<'a>,
}

struct Frames<'a>(&'a SheetMeta<'a>);

#[derive(Serialize)]
struct Xywh {
    x: u32,
    y: u32,
    w: u32,
    h: u32,
}

#[derive(Serialize)]
struct Wh {
    w: u32,
    h: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FrameEntry {
    frame: Xywh,
    rotated: bool,
    trimmed: bool,
    sprite_source_size: Xywh,
    source_size: Wh,
    duration: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Meta<'a> {
    app: &'static str,
    version: &'static str,
    image: &'a str,
    format: &'static str,
    size: Wh,
    scale: &'static str,
    frame_tags: Vec<Tag>,
    directions: Vec<DirEntry>,
    fps: f32,
    pivot: Pivot,
}

#[derive(Serialize)]
struct Tag {
    name: String,
    from: u32,
    to: u32,
    direction: &'static str,
}

#[derive(Serialize)]
struct DirEntry {
    index: usize,
    yaw: f32,
}

#[derive(Serialize)]
struct Pivot {
    x: f32,
    y: f32,
}

/// The key of the frame in `row` (direction index) and `column`.
pub fn frame_name(name: &str, dir: usize, frame: u32) -> String {
    format!("{name}_d{dir}_f{frame}")
}

/// Milliseconds a frame shows, rounded to whole milliseconds.
pub fn duration_ms(frame_seconds: f32) -> u32 {
    (frame_seconds as f64 * 1000.0)
        .round()
        .clamp(0.0, u32::MAX as f64) as u32
}

impl Serialize for Frames<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        let l = &m.layout;
        let mut map = s.serialize_map(Some(l.len()))?;
        for (row, col, cell) in l.cells() {
            let dir = m
                .directions
                .get(row as usize)
                .map(|d| d.index)
                .unwrap_or(row as usize);
            map.serialize_entry(
                &frame_name(m.name, dir, col),
                &FrameEntry {
                    frame: Xywh {
                        x: cell.x,
                        y: cell.y,
                        w: cell.w,
                        h: cell.h,
                    },
                    rotated: false,
                    trimmed: false,
                    sprite_source_size: Xywh {
                        x: 0,
                        y: 0,
                        w: cell.w,
                        h: cell.h,
                    },
                    source_size: Wh {
                        w: cell.w,
                        h: cell.h,
                    },
                    duration: duration_ms(m.frame_seconds),
                },
            )?;
        }
        map.end()
    }
}

/// The metadata document, pretty-printed with a trailing newline.
pub fn sheet_json(m: &SheetMeta<'_>) -> String {
    let l = &m.layout;
    let fps = if m.frame_seconds > 0.0 {
        1.0 / m.frame_seconds
    } else {
        0.0
    };
    let doc = Doc {
        frames: Frames(m),
        meta: Meta {
            app: "kiln",
            version: env!("CARGO_PKG_VERSION"),
            image: m.image,
            format: "RGBA8888",
            size: Wh {
                w: l.width(),
                h: l.height(),
            },
            scale: "1",
            frame_tags: (0..l.rows)
                .map(|row| {
                    let dir = m
                        .directions
                        .get(row as usize)
                        .map(|d| d.index)
                        .unwrap_or(row as usize);
                    Tag {
                        name: format!("{}_d{dir}", m.name),
                        from: row * l.columns,
                        to: row * l.columns + l.columns - 1,
                        direction: "forward",
                    }
                })
                .collect(),
            directions: m
                .directions
                .iter()
                .map(|d| DirEntry {
                    index: d.index,
                    yaw: d.yaw,
                })
                .collect(),
            fps,
            pivot: Pivot {
                x: m.pivot[0],
                y: m.pivot[1],
            },
        },
    };
    // Serializing plain structs and strings into a String cannot fail.
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
