//! A job's frames drawn straight into what keeps them until its outputs
//! are written, so memory does not grow with the number of frames beyond
//! the outputs that must exist at once.
//!
//! What is kept ([`Keep::of`]):
//! - a **grid sheet** that nothing reads back (sheet and metadata only, big
//!   enough to be deflated in bands) keeps two strips of its rows: each
//!   grid row of cells is drawn into a strip while the strip before is
//!   deflated, and no page ever exists whole;
//! - any other **grid sheet** keeps nothing but its own pages: each frame is copied
//!   into its cell as soon as it is drawn (and encoded to its PNG in the
//!   same task), and everything made after the frames — a palette chosen
//!   over them, GIFs, APNGs — reads the frames back out of the pages;
//! - a **packed sheet** keeps what it will pack: each frame's trimmed box
//!   (`Kept`; the whole frame when it is not trimmed), and composes its
//!   pages from those once every frame is drawn and placed;
//! - with **no sheet, no animation and no palette chosen over the frames**
//!   nothing is kept: each frame is encoded and dropped;
//! - otherwise (GIFs or APNGs without a sheet, a client sprite, a palette
//!   chosen over frames that have no sheet to wait in) every frame is
//!   kept, as [`super::write_outputs`] takes them.
//!
//! Frames are drawn in parallel and land in their cells whatever order the
//! threads finish in; each cell is its own, so the pages are the same on
//! any thread count. Writes reach the sink in the order
//! [`super::write_outputs`] uses: frame PNGs, sheet pages, metadata,
//! animations.

use crate::bake::emit::{self, encode_batch};
use crate::bake::encode::clip_frames::ClipFrames;
use crate::bake::outputs::sink::Sink;
use crate::bake::recipe::{Job, PackLayout};
use crate::error::Result;
use crate::look::Look;
use crate::parallel_png::RowStream;
use image::RgbaImage;
use rayon::prelude::*;
use std::borrow::Cow;
use std::path::PathBuf;

/// A frame PNG's path and bytes.
type Encoded = (PathBuf, Vec<u8>);

/// Draws frame `(clip, direction, frame)` of a job.
pub type Draw<'a> = dyn Fn(usize, usize, usize) -> RgbaImage + Sync + 'a;

/// Draws frame `(clip, direction, frame)` of a job straight into `rows`,
/// one slice of at least `4 × width` bytes per frame row: exactly the
/// pixels [`Draw`] returns for it, without an image of its own. A job
/// whose frames go into a strip-encoded sheet unchanged is drawn this way
/// when it is given.
pub type DrawInto<'a> = dyn Fn(usize, usize, usize, &mut [&mut [u8]]) + Sync + 'a;

/// Where a job's drawn frames wait for its outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// In the grid sheet's pages, each frame in its cell.
    Sheet,
    /// Each frame's trimmed box, for a packed sheet.
    Trimmed,
    /// Every frame as drawn.
    Frames,
    /// Nowhere: each frame is encoded to its PNG and dropped.
    Nothing,
}

impl Keep {
    /// How `job` keeps its frames; `palette_over_frames` when its palette
    /// is chosen over every frame ([`Look::palette_over_frames`]).
    pub fn of(job: &Job, palette_over_frames: bool) -> Keep {
        let o = &job.output;
        if o.ro_sprite.is_some() {
            return Keep::Frames;
        }
        match (&o.sheet, job.pack.layout) {
            (Some(_), PackLayout::Grid) => Keep::Sheet,
            (Some(_), PackLayout::Packed) => Keep::Trimmed,
            (None, _) if o.gif.is_some() || o.apng.is_some() || palette_over_frames => Keep::Frames,
            (None, _) => Keep::Nothing,
        }
    }
}

/// Draws every frame of `clips` (whose `frames` are empty: only their
/// times, pivots, root motion and loop flags are read) with `draw` (or
/// `into`, where a frame needs nothing done to it before it lands in its
/// place), gives them `look`'s palette, and writes every output of `job`.
/// Returns the files handed to `sink` in order, and the frames when the
/// job keeps them ([`Keep::Frames`]: a client sprite is made from them).
pub fn draw_and_write(
    job: &Job,
    clips: &[ClipFrames],
    draw: &Draw<'_>,
    into: Option<&DrawInto<'_>>,
    look: &Look,
    sink: &dyn Sink,
) -> Result<(Vec<PathBuf>, Option<Vec<ClipFrames>>)> {
    match Keep::of(job, look.palette_over_frames()) {
        Keep::Frames => {
            let mut kept = draw_all(job, clips, draw);
            apply_palette(look, &mut kept);
            let files = emit::write_outputs(job, &kept, sink)?;
            Ok((files, Some(kept)))
        }
        Keep::Sheet => Ok((through_sheet(job, clips, draw, into, look, sink)?, None)),
        Keep::Trimmed => Ok((through_packed(job, clips, draw, look, sink)?, None)),
        Keep::Nothing => {
            let mut written = Vec::new();
            let palette = look.job_palette(&[]);
            let mapper = palette.as_ref().map(|p| look.mapper(p));
            let order = emit::frame_order(clips, job.directions.len());
            let make = drawn(draw, mapper.as_ref());
            each_frame(job, &order, &make, true, &|_, _| Ok(()), sink, &mut written)?;
            Ok((written, None))
        }
    }
}

/// Every frame drawn, in parallel: `clips` with their frames.
fn draw_all(job: &Job, clips: &[ClipFrames], draw: &Draw<'_>) -> Vec<ClipFrames> {
    let order = emit::frame_order(clips, job.directions.len());
    let drawn: Vec<RgbaImage> = order.par_iter().map(|&(c, d, f)| draw(c, d, f)).collect();
    let mut it = drawn.into_iter();
    clips
        .iter()
        .map(|clip| {
            let n = clip.times.times.len();
            let rows = (0..job.directions.len())
                .map(|_| it.by_ref().take(n).collect())
                .collect();
            clip.with_frames(rows)
        })
        .collect()
}

/// The job's palette on every frame, chosen once over every frame of every
/// clip and direction when it is not given.
pub fn apply_palette(look: &Look, clips: &mut [ClipFrames]) {
    if look.palette.is_none() {
        return;
    }
    let mut frames: Vec<&mut RgbaImage> = clips
        .iter_mut()
        .flat_map(|c| c.frames.iter_mut().flatten())
        .collect();
    let palette = {
        let all: Vec<&RgbaImage> = frames.iter().map(|f| &**f).collect();
        look.job_palette(&all)
    };
    if let Some(p) = palette {
        let mapper = look.mapper(&p);
        frames.par_iter_mut().for_each(|f| mapper.map(f));
    }
}

/// Makes image `i` of the job's frames (`order[i]` is its clip, direction
/// and frame).
type Make<'a> = dyn Fn(usize, (usize, usize, usize)) -> RgbaImage + Sync + 'a;

/// Frames drawn by `draw`, mapped by `mapper`.
fn drawn<'a>(
    draw: &'a Draw<'a>,
    mapper: Option<&'a crate::look::dither::Mapper<'a>>,
) -> impl Fn(usize, (usize, usize, usize)) -> RgbaImage + Sync + 'a {
    move |_, (c, d, f)| {
        let mut img = draw(c, d, f);
        if let Some(m) = mapper {
            m.map(&mut img);
        }
        img
    }
}

/// Makes every frame of `order` in parallel, encodes each to its PNG when
/// `encode` and the job writes frames, and hands it to `keep` — a batch at
/// a time, so the PNGs reach the sink in order and at most a batch of them
/// waits. Returns what `keep` made of each frame, in order.
#[allow(clippy::too_many_arguments)]
fn each_frame<T: Send>(
    job: &Job,
    order: &[(usize, usize, usize)],
    make: &Make<'_>,
    encode: bool,
    keep: &(dyn Fn(usize, RgbaImage) -> Result<T> + Sync),
    sink: &dyn Sink,
    written: &mut Vec<PathBuf>,
) -> Result<Vec<T>> {
    let encode = encode && job.output.frames.is_some();
    let batch = if encode {
        encode_batch(job.view.width as u64 * job.view.height as u64 * 4)
    } else {
        order.len().max(1)
    };
    let mut out = Vec::with_capacity(order.len());
    for (k, chunk) in order.chunks(batch).enumerate() {
        let done: Vec<Result<(T, Option<Encoded>)>> = chunk
            .par_iter()
            .enumerate()
            .map(|(j, &(c, d, f))| {
                let i = k * batch + j;
                let img = make(i, (c, d, f));
                let png = match job.frame_path(c, d, f) {
                    Some(path) if encode => Some((path, sink.encode_png(&img)?)),
                    _ => None,
                };
                Ok((keep(i, img)?, png))
            })
            .collect();
        for frame in done {
            let (kept, png) = frame?;
            if let Some((path, bytes)) = png {
                sink.write(&path, &bytes)?;
                written.push(path);
            }
            out.push(kept);
        }
    }
    Ok(out)
}

/// A grid-sheet job: frames drawn into the pages, then the palette chosen
/// over them (when it is), the frame PNGs (when they waited for it), the
/// pages, metadata and animations read from the pages.
fn through_sheet(
    job: &Job,
    clips: &[ClipFrames],
    draw: &Draw<'_>,
    into: Option<&DrawInto<'_>>,
    look: &Look,
    sink: &dyn Sink,
) -> Result<Vec<PathBuf>> {
    let Some(sheet_path) = &job.output.sheet else {
        return Ok(Vec::new());
    };
    let atlas = emit::sheet_atlas(job, clips, None::<&[RgbaImage]>)?;
    let slots = Slots::new(clips, job.directions.len(), &atlas.frames)
        .map_err(|m| emit::job_error(job, m))?;
    let over_frames = look.palette_over_frames();
    if writes_sheet_only(job) && !over_frames {
        let rows: Option<Vec<RowStream>> = atlas
            .pages
            .iter()
            .map(|p| sink.png_rows(p.width, p.height))
            .collect();
        if let Some(rows) = rows {
            let given = look.job_palette(&[]);
            let mapper = given.as_ref().map(|p| look.mapper(p));
            let make = drawn(draw, mapper.as_ref());
            // Frames a palette maps are drawn whole first; a grid never
            // trims, so a frame of the job's size fills its cell exactly
            // (and the grid's cells never overlap).
            let size = (job.view.width, job.view.height);
            let into = into.filter(|_| {
                mapper.is_none()
                    && atlas.frames.iter().all(|f| {
                        (f.source.x, f.source.y) == (0, 0)
                            && (f.rect.w, f.rect.h) == f.source_size
                            && f.source_size == size
                    })
            });
            let fill = match into {
                Some(into) => Fill::Into(into),
                None => Fill::Copy(&make),
            };
            return through_strips(job, clips, fill, sink, &atlas, &slots, sheet_path, rows);
        }
    }
    let mut pages: Vec<RgbaImage> = atlas
        .pages
        .iter()
        .map(|p| RgbaImage::new(p.width, p.height))
        .collect();
    let order = emit::frame_order(clips, job.directions.len());
    let mut written = Vec::new();
    {
        let cells = Cells::new(&atlas.frames, &mut pages);
        let given = look.job_palette(&[]).filter(|_| !over_frames);
        let mapper = given.as_ref().map(|p| look.mapper(p));
        let make = drawn(draw, mapper.as_ref());
        let put = |i: usize, img: RgbaImage| cells.put(slots.at[i], &img);
        each_frame(job, &order, &make, !over_frames, &put, sink, &mut written)?;
    }
    if over_frames {
        // The padding between cells is transparent, which the palette's
        // histogram leaves out: the pages count exactly the frames' pixels.
        let refs: Vec<&RgbaImage> = pages.iter().collect();
        if let Some(p) = look.job_palette(&refs) {
            let mapper = look.mapper(&p);
            let cells = Cells::new(&atlas.frames, &mut pages);
            (0..atlas.frames.len())
                .into_par_iter()
                .try_for_each(|i| -> Result<()> {
                    let mut img = cells.take(i);
                    mapper.map(&mut img);
                    cells.put(i, &img)
                })?;
        }
        let from_pages = read_back(&pages, &atlas.frames, &slots);
        emit::write_frame_pngs(job, clips, &from_pages, sink, &mut written)?;
    }
    // Extruding touches only the spacing around cells, so the frames read
    // back for the animations below stay as drawn.
    for (p, img) in pages.iter_mut().enumerate() {
        crate::bake::sheet::compose::extrude_page(&atlas, p, img, job.pack.extrude);
    }
    let pages = &pages;
    let from_pages = read_back(pages, &atlas.frames, &slots);
    emit::side_by_side(
        sink,
        &mut written,
        |s, w| {
            let mut page = |p: usize| Ok(Cow::Borrowed(&pages[p]));
            emit::write_sheet(job, clips, &atlas, sheet_path, &mut page, s, w)
        },
        |s, w| emit::write_animations(job, clips, &from_pages, s, w),
    )?;
    Ok(written)
}

/// Whether a grid-sheet job writes its sheet and metadata and nothing
/// that reads its frames back (frame PNGs, GIFs, APNGs), nor extrudes
/// cells into rows beyond their own: then its pages need not exist whole.
pub(crate) fn writes_sheet_only(job: &Job) -> bool {
    let o = &job.output;
    o.frames.is_none() && o.gif.is_none() && o.apng.is_none() && job.pack.extrude == 0
}

mod cells;
mod packed;
mod strips;

pub(crate) use cells::strips;
use cells::*;
use packed::*;
use strips::*;
