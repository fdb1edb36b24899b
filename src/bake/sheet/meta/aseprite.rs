//! Aseprite's JSON export, as Phaser 3's `load.aseprite` and
//! `anims.createFromAseprite` read it: frames keyed by their index as a
//! string ("0", "1", …) — `createFromAseprite` looks each tag's frames up
//! with `i.toString()` and finds nothing under any other key — each with
//! its `duration` in milliseconds, and one `frameTags` entry per clip ×
//! direction (`from`/`to` frame indices, `direction: "forward"`). A clip
//! that plays once gets Aseprite's `"repeat": "1"`.
//!
//! Aseprite keeps pivots in slices: one slice, `pivot`, with a key at
//! every frame where the pivot moves, its bounds the whole frame and its
//! pivot in pixels. One file describes one image, so a sheet of several
//! pages has one file per page, frames numbered from 0 in each.

use super::texturepacker::{Placement, Wh, Xy, Xywh};
use crate::bake::sheet::atlas::{Atlas, AtlasFrame, AtlasJob, Page};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

#[derive(Serialize)]
struct Doc<'a> {
    frames: Frames<'a>,
    meta: Meta<'a>,
}

struct Frames<'a>(&'a [AtlasFrame]);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FrameEntry {
    #[serde(flatten)]
    place: Placement,
    duration: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    root_motion: Option<Xy>,
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
    frame_tags: Vec<Tag<'a>>,
    layers: [Layer; 1],
    slices: [Slice; 1],
}

#[derive(Serialize)]
struct Tag<'a> {
    name: &'a str,
    from: usize,
    to: usize,
    direction: &'static str,
    color: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    repeat: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Layer {
    name: &'static str,
    opacity: u8,
    blend_mode: &'static str,
}

#[derive(Serialize)]
struct Slice {
    name: &'static str,
    color: &'static str,
    keys: Vec<SliceKey>,
}

#[derive(Serialize)]
struct SliceKey {
    frame: usize,
    bounds: Xywh,
    pivot: PixelXy,
}

#[derive(Serialize, PartialEq)]
struct PixelXy {
    x: i64,
    y: i64,
}

impl Serialize for Frames<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (i, f) in self.0.iter().enumerate() {
            map.serialize_entry(
                &i.to_string(),
                &FrameEntry {
                    place: Placement::of(f),
                    duration: f.duration_ms,
                    root_motion: f.root_motion.map(Xy::from),
                },
            )?;
        }
        map.end()
    }
}

/// The Aseprite JSON of a one-page `atlas` (see [`Atlas::page`]), its
/// image named by `job.image`.
pub fn json(atlas: &Atlas, job: &AtlasJob<'_>) -> String {
    let page = atlas.pages.first().copied().unwrap_or(Page {
        width: 0,
        height: 0,
    });
    let mut keys: Vec<SliceKey> = Vec::new();
    for (i, f) in atlas.frames.iter().enumerate() {
        let (w, h) = f.source_size;
        let pivot = PixelXy {
            x: (f.pivot[0] as f64 * w as f64).round() as i64,
            y: (f.pivot[1] as f64 * h as f64).round() as i64,
        };
        if keys.last().is_none_or(|k| k.pivot != pivot) {
            keys.push(SliceKey {
                frame: i,
                bounds: crate::bake::sheet::atlas::Rect { x: 0, y: 0, w, h }.into(),
                pivot,
            });
        }
    }
    let doc = Doc {
        frames: Frames(&atlas.frames),
        meta: Meta {
            app: "kiln",
            version: env!("CARGO_PKG_VERSION"),
            image: job.image,
            format: "RGBA8888",
            size: page.into(),
            scale: "1",
            frame_tags: atlas
                .tags
                .iter()
                .map(|t| Tag {
                    name: &t.name,
                    from: t.from,
                    to: t.to,
                    direction: "forward",
                    color: "#000000ff",
                    repeat: job.clips.get(t.clip).filter(|c| !c.looping).map(|_| "1"),
                })
                .collect(),
            layers: [Layer {
                name: "kiln",
                opacity: 255,
                blend_mode: "normal",
            }],
            slices: [Slice {
                name: "pivot",
                color: "#0000ffff",
                keys,
            }],
        },
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
