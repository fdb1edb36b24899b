//! TexturePacker's "JSON hash" shape, which Phaser, PixiJS, Godot importers
//! and most engines read, plus Aseprite-style `frameTags` (one per clip ×
//! direction) and kiln's own `directions`, `clips`, `fps` and `pivot`.
//!
//! Key order is fixed by the structs below and frames are written in sheet
//! order (serde_json's own map would sort `f10` before `f2`), so the same bake
//! always writes the same bytes.
//!
//! A job given a single `clip:` keeps the older shape exactly: a top-level
//! `fps` and no `clips`. A job listing `clips:` describes each clip (its own
//! fps, and its first row: clip × directions) in `clips` instead of a single
//! `fps`. Frame and tag names come from the atlas.

use crate::bake::atlas::{Atlas, AtlasClip, AtlasFrame, AtlasJob, Rect};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

#[derive(Serialize)]
struct Doc<'a> {
    frames: Frames<'a>,
    meta: Meta<'a>,
}

struct Frames<'a>(&'a [AtlasFrame]);

#[derive(Serialize)]
struct Xywh {
    x: u32,
    y: u32,
    w: u32,
    h: u32,
}

impl From<Rect> for Xywh {
    fn from(r: Rect) -> Xywh {
        Xywh {
            x: r.x,
            y: r.y,
            w: r.w,
            h: r.h,
        }
    }
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
    frame_tags: Vec<TagEntry<'a>>,
    directions: Vec<DirEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clips: Option<Vec<ClipEntry<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fps: Option<f32>,
    pivot: Pivot,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ClipEntry<'a> {
    name: &'a str,
    fps: f32,
    frames: u32,
    first_row: usize,
    directions: usize,
}

#[derive(Serialize)]
struct TagEntry<'a> {
    name: &'a str,
    from: usize,
    to: usize,
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

impl Serialize for Frames<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for f in self.0 {
            let (w, h) = f.source_size;
            map.serialize_entry(
                &f.name,
                &FrameEntry {
                    frame: f.rect.into(),
                    rotated: false,
                    trimmed: f.source != Rect { x: 0, y: 0, w, h },
                    sprite_source_size: f.source.into(),
                    source_size: Wh { w, h },
                    duration: f.duration_ms,
                },
            )?;
        }
        map.end()
    }
}

/// The document for `atlas`, pretty-printed with a trailing newline. The
/// format names one image: `size` is the first page's. The pivot is the
/// first frame's, as one framing serves the whole job.
pub fn json(atlas: &Atlas, job: &AtlasJob<'_>) -> String {
    let n_dirs = job.directions.len();
    let size = atlas.pages.first().map_or(Wh { w: 0, h: 0 }, |p| Wh {
        w: p.width,
        h: p.height,
    });
    let pivot = atlas.frames.first().map_or([0.5, 0.5], |f| f.pivot);
    let doc = Doc {
        frames: Frames(&atlas.frames),
        meta: Meta {
            app: "kiln",
            version: env!("CARGO_PKG_VERSION"),
            image: job.image,
            format: "RGBA8888",
            size,
            scale: "1",
            frame_tags: atlas
                .tags
                .iter()
                .map(|t| TagEntry {
                    name: &t.name,
                    from: t.from,
                    to: t.to,
                    direction: "forward",
                })
                .collect(),
            directions: job
                .directions
                .iter()
                .map(|d| DirEntry {
                    index: d.index,
                    yaw: d.yaw,
                })
                .collect(),
            clips: job.named_clips.then(|| {
                job.clips
                    .iter()
                    .enumerate()
                    .map(|(i, c)| ClipEntry {
                        name: c.name,
                        fps: c.fps(),
                        frames: c.frames,
                        first_row: i * n_dirs,
                        directions: n_dirs,
                    })
                    .collect()
            }),
            fps: if job.named_clips {
                None
            } else {
                Some(job.clips.first().map_or(0.0, AtlasClip::fps))
            },
            pivot: Pivot {
                x: pivot[0],
                y: pivot[1],
            },
        },
    };
    // Serializing plain structs and strings into a String cannot fail.
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
