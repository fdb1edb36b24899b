//! TexturePacker's JSON shapes, which Phaser, PixiJS and most engines
//! read: the "JSON hash" (frames keyed by name) and the "JSON array"
//! (frames listed with a `filename`), plus Aseprite-style `frameTags` (one
//! per clip × direction) and kiln's own `directions`, `clips`, `fps`,
//! `loop` and `pivot`.
//!
//! Per frame, besides TexturePacker's rect, trim and size: its `duration`
//! (what the GIF holds), its pivot — `pivot` in the hash, which Phaser 3's
//! JSONHash parser takes as the frame's origin (`src.anchor || src.pivot`),
//! `anchor` in the array, which its JSONArray parser reads — as fractions
//! of the untrimmed frame, and `rootMotion`, the pixels an engine moves the
//! sprite by while the frame shows, for clips drawn in place.
//!
//! Over several pages the hash is written once per page (TexturePacker's
//! multipack: the first page's file lists the others in
//! `meta.related_multi_packs`, which PixiJS follows), and the array becomes
//! Phaser 3's multi-atlas shape, `textures: [{image, size, frames}]`.
//!
//! Key order is fixed by the structs below and frames are written in sheet
//! order (serde_json's own map would sort `f10` before `f2`), so the same
//! bake always writes the same bytes. A job given a single `clip:` keeps a
//! top-level `fps` and no `clips`; a job listing `clips:` describes each
//! clip (its fps, whether it loops, and its first row: clip × directions).

use crate::bake::sheet::atlas::{Atlas, AtlasClip, AtlasFrame, AtlasJob, Page, Rect};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

#[derive(Serialize)]
struct Doc<'a> {
    frames: Frames<'a>,
    meta: Meta<'a>,
}

struct Frames<'a>(&'a [AtlasFrame]);

#[derive(Serialize)]
struct ArrayDoc<'a> {
    frames: Vec<Entry<'a>>,
    meta: Meta<'a>,
}

#[derive(Serialize)]
struct MultiDoc<'a> {
    textures: Vec<Texture<'a>>,
    meta: Meta<'a>,
}

/// One page of Phaser 3's multi-atlas.
#[derive(Serialize)]
struct Texture<'a> {
    image: &'a str,
    format: &'static str,
    size: Wh,
    scale: u32,
    frames: Vec<Entry<'a>>,
}

#[derive(Serialize)]
pub(super) struct Xywh {
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
pub(super) struct Wh {
    w: u32,
    h: u32,
}

impl From<Page> for Wh {
    fn from(p: Page) -> Wh {
        Wh {
            w: p.width,
            h: p.height,
        }
    }
}

/// Where a frame sits on the sheet and in its rendered image: the fields
/// every TexturePacker-shaped format (hash, array, Aseprite, PixiJS) opens
/// a frame with, in that order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Placement {
    frame: Xywh,
    rotated: bool,
    trimmed: bool,
    sprite_source_size: Xywh,
    source_size: Wh,
}

impl Placement {
    pub(super) fn of(f: &AtlasFrame) -> Placement {
        let (w, h) = f.source_size;
        Placement {
            frame: f.rect.into(),
            rotated: false,
            trimmed: trimmed(f),
            sprite_source_size: f.source.into(),
            source_size: Wh { w, h },
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FrameEntry {
    #[serde(flatten)]
    place: Placement,
    duration: u32,
    pivot: Xy,
    #[serde(skip_serializing_if = "Option::is_none")]
    root_motion: Option<Xy>,
}

/// A frame of the array shapes: its name first, `anchor` for its pivot.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry<'a> {
    filename: &'a str,
    #[serde(flatten)]
    place: Placement,
    duration: u32,
    anchor: Xy,
    #[serde(skip_serializing_if = "Option::is_none")]
    root_motion: Option<Xy>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Meta<'a> {
    app: &'static str,
    version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    image: Option<&'a str>,
    format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<Wh>,
    scale: &'static str,
    #[serde(
        rename = "related_multi_packs",
        skip_serializing_if = "<[_]>::is_empty"
    )]
    related_multi_packs: &'a [String],
    frame_tags: Vec<TagEntry<'a>>,
    directions: Vec<DirEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clips: Option<Vec<ClipEntry<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fps: Option<f32>,
    #[serde(rename = "loop", skip_serializing_if = "Option::is_none")]
    looping: Option<bool>,
    pivot: Xy,
    #[serde(skip_serializing_if = "Option::is_none")]
    pixels_per_unit: Option<f32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ClipEntry<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    fps: Option<f32>,
    #[serde(rename = "loop")]
    looping: bool,
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
pub(super) struct Xy {
    x: f32,
    y: f32,
}

impl From<[f32; 2]> for Xy {
    fn from(v: [f32; 2]) -> Xy {
        Xy { x: v[0], y: v[1] }
    }
}

/// Whether a frame is cut from its rendered image.
fn trimmed(f: &AtlasFrame) -> bool {
    let (w, h) = f.source_size;
    f.source != Rect { x: 0, y: 0, w, h }
}

fn frame_entry(f: &AtlasFrame) -> FrameEntry {
    FrameEntry {
        place: Placement::of(f),
        duration: f.duration_ms,
        pivot: f.pivot.into(),
        root_motion: f.root_motion.map(Xy::from),
    }
}

fn entry(f: &AtlasFrame) -> Entry<'_> {
    Entry {
        filename: &f.name,
        place: Placement::of(f),
        duration: f.duration_ms,
        anchor: f.pivot.into(),
        root_motion: f.root_motion.map(Xy::from),
    }
}

impl Serialize for Frames<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for f in self.0 {
            map.serialize_entry(&f.name, &frame_entry(f))?;
        }
        map.end()
    }
}

/// kiln's meta block for `atlas`; `image` and `size` name one page.
fn meta<'a>(
    atlas: &'a Atlas,
    job: &AtlasJob<'a>,
    page: Option<(&'a str, Page)>,
    related: &'a [String],
) -> Meta<'a> {
    let n_dirs = job.directions.len();
    let pivot = atlas.frames.first().map_or([0.5, 0.5], |f| f.pivot);
    let still = |c: &AtlasClip| c.frame_seconds <= 0.0;
    Meta {
        app: "kiln",
        version: env!("CARGO_PKG_VERSION"),
        image: page.map(|p| p.0),
        format: "RGBA8888",
        size: page.map(|p| p.1.into()),
        scale: "1",
        related_multi_packs: related,
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
                    fps: (!still(c)).then(|| c.fps()),
                    looping: c.looping,
                    frames: c.frames,
                    first_row: i * n_dirs,
                    directions: n_dirs,
                })
                .collect()
        }),
        fps: if job.named_clips {
            None
        } else {
            job.clips.first().filter(|c| !still(c)).map(AtlasClip::fps)
        },
        looping: if job.named_clips {
            None
        } else {
            job.clips.first().map(|c| c.looping)
        },
        pivot: pivot.into(),
        pixels_per_unit: job.pixels_per_unit,
    }
}

fn finish(doc: &impl Serialize) -> String {
    // Serializing plain structs and strings into a String cannot fail.
    let mut s = serde_json::to_string_pretty(doc).unwrap_or_default();
    s.push('\n');
    s
}

/// The JSON hash of a one-page `atlas`, its image named by `job.image`.
/// The pivot in `meta` is the first frame's.
pub fn json(atlas: &Atlas, job: &AtlasJob<'_>) -> String {
    json_page(atlas, job, &[])
}

/// As [`json`], naming the other pages' files in `related_multi_packs`
/// (TexturePacker's multipack; empty for a single page).
pub fn json_page(atlas: &Atlas, job: &AtlasJob<'_>, related: &[String]) -> String {
    let page = atlas.pages.first().copied().unwrap_or(Page {
        width: 0,
        height: 0,
    });
    finish(&Doc {
        frames: Frames(&atlas.frames),
        meta: meta(atlas, job, Some((job.image, page)), related),
    })
}

/// The JSON array of `atlas`: one page as TexturePacker writes it, several
/// as Phaser 3's multi-atlas, `images[p]` naming page `p`. Tags index the
/// frames in page order, which is sheet order.
pub fn array_json(atlas: &Atlas, job: &AtlasJob<'_>, images: &[String]) -> String {
    if atlas.pages.len() <= 1 {
        let page = atlas.pages.first().copied().unwrap_or(Page {
            width: 0,
            height: 0,
        });
        let image = images.first().map_or(job.image, String::as_str);
        return finish(&ArrayDoc {
            frames: atlas.frames.iter().map(entry).collect(),
            meta: meta(atlas, job, Some((image, page)), &[]),
        });
    }
    let textures = atlas
        .pages
        .iter()
        .enumerate()
        .map(|(p, page)| Texture {
            image: images.get(p).map_or("", String::as_str),
            format: "RGBA8888",
            size: (*page).into(),
            scale: 1,
            frames: atlas.page_frames(p).map(|(_, f)| entry(f)).collect(),
        })
        .collect();
    finish(&MultiDoc {
        textures,
        meta: meta(atlas, job, None, &[]),
    })
}
