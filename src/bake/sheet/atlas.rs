//! The atlas: where each rendered frame sits on which page, between the
//! renderer's images and every file made from them.
//!
//! A producer lays frames out — the grid of [`crate::bake::sheet::grid`] (one row per
//! clip × direction, one column per frame) or the packed pages of
//! [`crate::bake::sheet::packed`] (trimmed frames, twins stored once) — on one page or
//! several; the sheet compositor ([`crate::bake::sheet::compose`]) copies pixels by it and
//! each metadata writer ([`crate::bake::sheet::meta`]) describes it. Neither needs to
//! know how the layout was chosen.
//!
//! Frames are in sheet order: clip by clip, direction by direction, frame
//! by frame. That order is the frame list the metadata writes, and tags
//! index it.

use crate::bake::recipe::Direction;
use crate::scene::clip::FrameTimes;

/// A pixel rectangle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    /// Left edge, pixels.
    pub x: u32,
    /// Top edge, pixels.
    pub y: u32,
    /// Width, pixels.
    pub w: u32,
    /// Height, pixels.
    pub h: u32,
}

/// One image of the atlas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
}

/// One rendered frame's place in the atlas.
#[derive(Debug, Clone, PartialEq)]
pub struct AtlasFrame {
    /// The frame's key in the metadata.
    pub name: String,
    /// Index into the job's clips.
    pub clip: usize,
    /// Index into the job's directions (a position, not
    /// [`Direction::index`]).
    pub direction: usize,
    /// Index of the frame within its clip.
    pub frame: usize,
    /// Index into [`Atlas::pages`].
    pub page: usize,
    /// Where the frame sits on its page.
    pub rect: Rect,
    /// The part of the rendered frame that `rect` holds, in the frame's own
    /// pixels; the same size as `rect`. The whole frame unless trimmed.
    pub source: Rect,
    /// The rendered frame's full size, `(width, height)`.
    pub source_size: (u32, u32),
    /// The model's origin as fractions of the rendered frame's width and
    /// height from its top-left corner.
    pub pivot: [f32; 2],
    /// How long the frame shows, whole milliseconds (0 for a still).
    pub duration_ms: u32,
    /// Pixels the engine moves the sprite by while this frame shows (x
    /// right, y down): the root's travel taken out of the frame. `None`
    /// when the clip keeps its travel in the frames or has none.
    pub root_motion: Option<[f32; 2]>,
}

/// A run of frames played together: one clip seen from one direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    /// The tag's name in the metadata (`<clip>_d<dir>` or `<name>_d<dir>`).
    pub name: String,
    /// Indices of the run's first and last frame in [`Atlas::frames`]
    /// (Aseprite's `from` and `to`).
    pub from: usize,
    /// See `from`.
    pub to: usize,
    /// Index into the job's clips.
    pub clip: usize,
    /// Index into the job's directions (a position).
    pub direction: usize,
}

/// Pages, the frames on them in sheet order, and the tags over the frames.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Atlas {
    /// The images, in page order.
    pub pages: Vec<Page>,
    /// Every frame, in sheet order.
    pub frames: Vec<AtlasFrame>,
    /// The runs of frames, in sheet order.
    pub tags: Vec<Tag>,
}

impl Atlas {
    /// One tag per run of consecutive frames of the same clip and
    /// direction, named by `job`.
    pub fn tag_runs(frames: &[AtlasFrame], job: &AtlasJob<'_>) -> Vec<Tag> {
        let mut tags: Vec<Tag> = Vec::new();
        for (i, f) in frames.iter().enumerate() {
            match tags.last_mut() {
                Some(t) if t.clip == f.clip && t.direction == f.direction && t.to + 1 == i => {
                    t.to = i;
                }
                _ => tags.push(Tag {
                    name: job.tag_name(f.clip, f.direction),
                    from: i,
                    to: i,
                    clip: f.clip,
                    direction: f.direction,
                }),
            }
        }
        tags
    }

    /// The frames on page `page`, with their indices in [`Atlas::frames`].
    pub fn page_frames(&self, page: usize) -> impl Iterator<Item = (usize, &AtlasFrame)> + '_ {
        self.frames
            .iter()
            .enumerate()
            .filter(move |(_, f)| f.page == page)
    }

    /// Page `page` alone, as an atlas of one page: its frames (now on page
    /// 0) and the tags over them, indices counted in it. Producers keep
    /// every tag on one page, so a tag is never cut.
    pub fn page(&self, page: usize) -> Atlas {
        let keep: Vec<usize> = self.page_frames(page).map(|(i, _)| i).collect();
        let frames: Vec<AtlasFrame> = keep
            .iter()
            .map(|&i| AtlasFrame {
                page: 0,
                ..self.frames[i].clone()
            })
            .collect();
        let tags = self
            .tags
            .iter()
            .filter_map(|t| {
                let from = keep.iter().position(|&i| i == t.from)?;
                let to = keep.iter().position(|&i| i == t.to)?;
                Some(Tag {
                    from,
                    to,
                    ..t.clone()
                })
            })
            .collect();
        Atlas {
            pages: self.pages.get(page).copied().into_iter().collect(),
            frames,
            tags,
        }
    }
}

/// What the atlas and its metadata know of the job beyond single frames.
#[derive(Debug, Clone, Copy)]
pub struct AtlasJob<'a> {
    /// Frame-name prefix, normally the job name.
    pub name: &'a str,
    /// The first page's file as the metadata names it (not a path: engines
    /// resolve it beside the metadata file).
    pub image: &'a str,
    /// The job's directions, in sheet order.
    pub directions: &'a [Direction],
    /// The clips in sheet order.
    pub clips: &'a [AtlasClip<'a>],
    /// Whether names carry the clip (a job with `clips:`). A job given a
    /// single `clip:` names frames `<name>_d<dir>_f<frame>` and tags
    /// `<name>_d<dir>`; one listing `clips:` names frames
    /// `<name>_<clip>_d<dir>_f<frame>` and tags `<clip>_d<dir>`.
    pub named_clips: bool,
    /// The fixed scale the job was drawn at (`scale.pixels_per_unit`).
    pub pixels_per_unit: Option<f32>,
}

/// One clip of the job.
#[derive(Debug, Clone, Copy)]
pub struct AtlasClip<'a> {
    /// The clip's name.
    pub name: &'a str,
    /// Frames per direction.
    pub frames: u32,
    /// How long each frame shows, seconds (0 for a still).
    pub frame_seconds: f32,
    /// Frames per second as the recipe gives them (0 for a still).
    pub rate: f32,
    /// Whether the clip loops (else it plays once and holds its last frame).
    pub looping: bool,
}

impl<'a> AtlasClip<'a> {
    /// The clip named `name` as sampled at `times`.
    pub fn new(name: &'a str, times: &FrameTimes, looping: bool) -> AtlasClip<'a> {
        AtlasClip {
            name,
            frames: times.times.len() as u32,
            frame_seconds: times.frame_seconds,
            rate: times.rate,
            looping,
        }
    }

    /// Frames per second as the recipe gives them (0 for a still).
    pub fn fps(&self) -> f32 {
        self.rate
    }
}

impl AtlasJob<'_> {
    /// The key of frame `frame` of clip `clip` seen from `directions[dir]`.
    pub fn frame_name(&self, clip: usize, dir: usize, frame: usize) -> String {
        let d = self.directions.get(dir).map_or(dir, |d| d.index);
        match self.clips.get(clip) {
            Some(c) if self.named_clips => clip_frame_name(self.name, c.name, d, frame as u32),
            _ => frame_name(self.name, d, frame as u32),
        }
    }

    /// The name of the tag of clip `clip` seen from `directions[dir]`.
    pub fn tag_name(&self, clip: usize, dir: usize) -> String {
        let d = self.directions.get(dir).map_or(dir, |d| d.index);
        match self.clips.get(clip) {
            Some(c) if self.named_clips => format!("{}_d{d}", c.name),
            _ => format!("{}_d{d}", self.name),
        }
    }
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
