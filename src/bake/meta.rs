//! Sheet metadata as JSON in TexturePacker's "JSON hash" shape, which Phaser,
//! PixiJS, Godot importers and most engines read, plus Aseprite-style
//! `frameTags` (one per clip × direction) and kiln's own `directions`,
//! `clips`, `fps` and `pivot`.
//!
//! Key order is fixed by the structs below and frames are written in sheet
//! order (serde_json's own map would sort `f10` before `f2`), so the same bake
//! always writes the same bytes.
//!
//! A job given a single `clip:` keeps the older shape exactly: frames named
//! `<name>_d<dir>_f<frame>`, tags `<name>_d<dir>`, a top-level `fps` and no
//! `clips`. A job listing `clips:` names frames `<name>_<clip>_d<dir>_f<frame>`
//! and tags `<clip>_d<dir>`, and describes each clip (its own fps) in `clips`
//! instead of a single `fps`.

use super::recipe::Direction;
use super::sheet::SheetLayout;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// What the metadata describes. Rows are clip-major: clip `c`, direction
/// `d` is row `c * directions.len() + d`, and its frames fill that row's
/// first `clips[c].frames` columns.
#[derive(Debug, Clone, Copy)]
pub struct SheetMeta<'a> {
    /// Frame-name prefix, normally the job name.
    pub name: &'a str,
    /// The sheet image's file name (not a path), as engines resolve it
    /// beside the JSON.
    pub image: &'a str,
    pub layout: SheetLayout,
    pub directions: &'a [Direction],
    /// The clips in sheet order.
    pub clips: &'a [ClipMeta<'a>],
    /// Whether names carry the clip (a job with `clips:`); false writes the
    /// single-clip shape described in the module docs.
    pub named_clips: bool,
    /// The model's origin within a frame, as a fraction of its width and
    /// height from the top-left corner.
    pub pivot: [f32; 2],
}

/// One clip's part of the sheet.
#[derive(Debug, Clone, Copy)]
pub struct ClipMeta<'a> {
    pub name: &'a str,
    /// Frames in each of its rows.
    pub frames: u32,
    /// How long each frame shows, seconds (0 for a still).
    pub frame_seconds: f32,
}

impl ClipMeta<'_> {
    fn fps(&self) -> f32 {
        if self.frame_seconds > 0.0 {
            1.0 / self.frame_seconds
        } else {
            0.0
        }
    }
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
    #[serde(skip_serializing_if = "Option::is_none")]
    clips: Option<Vec<ClipEntry>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fps: Option<f32>,
    pivot: Pivot,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ClipEntry {
    name: String,
    fps: f32,
    frames: u32,
    first_row: usize,
    directions: usize,
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

/// The key of a frame of a single-clip job (`clip:`).
pub fn frame_name(name: &str, dir: usize, frame: u32) -> String {
    format!("{name}_d{dir}_f{frame}")
}

/// The key of a frame of a job listing `clips:`.
pub fn clip_frame_name(name: &str, clip: &str, dir: usize, frame: u32) -> String {
    format!("{name}_{clip}_d{dir}_f{frame}")
}

/// Milliseconds a frame shows, rounded to whole milliseconds.
pub fn duration_ms(frame_seconds: f32) -> u32 {
    (frame_seconds as f64 * 1000.0)
        .round()
        .clamp(0.0, u32::MAX as f64) as u32
}

/// Every (clip, direction index, row) in sheet order.
fn rows<'a>(m: &'a SheetMeta<'a>) -> impl Iterator<Item = (&'a ClipMeta<'a>, usize, u32)> + 'a {
    let n = m.directions.len();
    m.clips.iter().enumerate().flat_map(move |(c, clip)| {
        m.directions
            .iter()
            .enumerate()
            .map(move |(d, dir)| (clip, dir.index, (c * n + d) as u32))
    })
}

impl Serialize for Frames<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        let l = &m.layout;
        let total: usize = rows(m).map(|(c, _, _)| c.frames as usize).sum();
        let mut map = s.serialize_map(Some(total))?;
        for (clip, dir, row) in rows(m) {
            for col in 0..clip.frames.min(l.columns) {
                let cell = l.cell(row, col);
                let key = if m.named_clips {
                    clip_frame_name(m.name, clip.name, dir, col)
                } else {
                    frame_name(m.name, dir, col)
                };
                map.serialize_entry(
                    &key,
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
                        duration: duration_ms(clip.frame_seconds),
                    },
                )?;
            }
        }
        map.end()
    }
}

/// The metadata document, pretty-printed with a trailing newline.
pub fn sheet_json(m: &SheetMeta<'_>) -> String {
    let l = &m.layout;
    // Tags index the frame list (Aseprite's convention), which skips the
    // empty cells after a short clip's frames.
    let mut next = 0u32;
    let mut frame_tags = Vec::new();
    for (clip, dir, _) in rows(m) {
        let n = clip.frames.min(l.columns);
        if n == 0 {
            continue;
        }
        frame_tags.push(Tag {
            name: if m.named_clips {
                format!("{}_d{dir}", clip.name)
            } else {
                format!("{}_d{dir}", m.name)
            },
            from: next,
            to: next + n - 1,
            direction: "forward",
        });
        next += n;
    }
    let n_dirs = m.directions.len();
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
            frame_tags,
            directions: m
                .directions
                .iter()
                .map(|d| DirEntry {
                    index: d.index,
                    yaw: d.yaw,
                })
                .collect(),
            clips: m.named_clips.then(|| {
                m.clips
                    .iter()
                    .enumerate()
                    .map(|(i, c)| ClipEntry {
                        name: c.name.to_string(),
                        fps: c.fps(),
                        frames: c.frames,
                        first_row: i * n_dirs,
                        directions: n_dirs,
                    })
                    .collect()
            }),
            fps: if m.named_clips {
                None
            } else {
                Some(m.clips.first().map_or(0.0, ClipMeta::fps))
            },
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
