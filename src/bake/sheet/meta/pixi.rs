//! PixiJS's spritesheet JSON, as its `Spritesheet` class parses it: frames
//! keyed by name, each with `frame`, `trimmed`, `spriteSourceSize`,
//! `sourceSize` and `anchor` (fractions of the untrimmed frame, which
//! become the texture's `defaultAnchor`), and a top-level `animations`
//! mapping each clip × direction to its frame names in order, which
//! becomes `sheet.animations[name]` for an `AnimatedSprite`.
//!
//! PixiJS resolves `meta.image` beside the JSON and reads `meta.scale` as
//! the resolution ("1"). Over several pages each page has its own file and
//! the first lists the others in `meta.related_multi_packs`, which Pixi's
//! loader follows; each clip × direction lies on one page, so every
//! page's `animations` are whole.

use super::texturepacker::{Placement, Wh, Xy};
use crate::bake::sheet::atlas::{Atlas, AtlasFrame, AtlasJob, Page};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

#[derive(Serialize)]
struct Doc<'a> {
    frames: Frames<'a>,
    animations: Animations<'a>,
    meta: Meta<'a>,
}

struct Frames<'a>(&'a [AtlasFrame]);

/// Tag name → frame names, in tag order.
struct Animations<'a>(&'a Atlas);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FrameEntry {
    #[serde(flatten)]
    place: Placement,
    anchor: Xy,
    duration: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    root_motion: Option<Xy>,
}

#[derive(Serialize)]
struct Meta<'a> {
    app: &'static str,
    version: &'static str,
    image: &'a str,
    format: &'static str,
    size: Wh,
    scale: &'static str,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    related_multi_packs: &'a [String],
}

impl Serialize for Frames<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for f in self.0 {
            map.serialize_entry(
                &f.name,
                &FrameEntry {
                    place: Placement::of(f),
                    anchor: f.pivot.into(),
                    duration: f.duration_ms,
                    root_motion: f.root_motion.map(Xy::from),
                },
            )?;
        }
        map.end()
    }
}

impl Serialize for Animations<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let mut map = s.serialize_map(Some(a.tags.len()))?;
        for t in &a.tags {
            let names: Vec<&str> = a
                .frames
                .get(t.from..=t.to)
                .unwrap_or(&[])
                .iter()
                .map(|f| f.name.as_str())
                .collect();
            map.serialize_entry(&t.name, &names)?;
        }
        map.end()
    }
}

/// The PixiJS JSON of a one-page `atlas` (see [`Atlas::page`]), its image
/// named by `job.image`; `related` names the other pages' files.
pub fn json(atlas: &Atlas, job: &AtlasJob<'_>, related: &[String]) -> String {
    let page = atlas.pages.first().copied().unwrap_or(Page {
        width: 0,
        height: 0,
    });
    let doc = Doc {
        frames: Frames(&atlas.frames),
        animations: Animations(atlas),
        meta: Meta {
            app: "kiln",
            version: env!("CARGO_PKG_VERSION"),
            image: job.image,
            format: "RGBA8888",
            size: page.into(),
            scale: "1",
            related_multi_packs: related,
        },
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
