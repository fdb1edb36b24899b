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
//!   ([`Kept`]; the whole frame when it is not trimmed), and composes its
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

use super::atlas::AtlasFrame;
use super::kept::{Kept, Twins};
use super::outputs::{self, encode_batch, ClipFrames};
use super::recipe::{Job, PackLayout};
use super::sink::Sink;
use crate::error::{Error, Result};
use crate::look::Look;
use crate::parallel_png::RowStream;
use image::RgbaImage;
use rayon::prelude::*;
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Mutex;

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
            let files = outputs::write_outputs(job, &kept, sink)?;
            Ok((files, Some(kept)))
        }
        Keep::Sheet => Ok((through_sheet(job, clips, draw, into, look, sink)?, None)),
        Keep::Trimmed => Ok((through_packed(job, clips, draw, look, sink)?, None)),
        Keep::Nothing => {
            let mut written = Vec::new();
            let palette = look.job_palette(&[]);
            let mapper = palette.as_ref().map(|p| look.mapper(p));
            let order = outputs::frame_order(clips, job.directions.len());
            let make = drawn(draw, mapper.as_ref());
            each_frame(job, &order, &make, true, &|_, _| Ok(()), sink, &mut written)?;
            Ok((written, None))
        }
    }
}

/// Every frame drawn, in parallel: `clips` with their frames.
fn draw_all(job: &Job, clips: &[ClipFrames], draw: &Draw<'_>) -> Vec<ClipFrames> {
    let order = outputs::frame_order(clips, job.directions.len());
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
    let atlas = outputs::sheet_atlas(job, clips, None::<&[RgbaImage]>)?;
    let slots = Slots::new(clips, job.directions.len(), &atlas.frames)
        .map_err(|m| outputs::job_error(job, m))?;
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
    let order = outputs::frame_order(clips, job.directions.len());
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
        outputs::write_frame_pngs(job, clips, &from_pages, sink, &mut written)?;
    }
    // Extruding touches only the spacing around cells, so the frames read
    // back for the animations below stay as drawn.
    for (p, img) in pages.iter_mut().enumerate() {
        super::sheet::extrude_page(&atlas, p, img, job.pack.extrude);
    }
    let pages = &pages;
    let from_pages = read_back(pages, &atlas.frames, &slots);
    outputs::side_by_side(
        sink,
        &mut written,
        |s, w| {
            let mut page = |p: usize| Ok(Cow::Borrowed(&pages[p]));
            outputs::write_sheet(job, clips, &atlas, sheet_path, &mut page, s, w)
        },
        |s, w| outputs::write_animations(job, clips, &from_pages, s, w),
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

/// A grid-sheet job whose pages are encoded as they are drawn, a strip at
/// a time (the rows of one grid row of cells), none of them ever whole:
/// while one strip's rows are deflated the next strip's frames are drawn,
/// and the two strip buffers take turns. `rows` gives each page's PNG
/// bytes exactly as encoding the whole page would.
#[allow(clippy::too_many_arguments)]
fn through_strips(
    job: &Job,
    clips: &[ClipFrames],
    fill: Fill<'_>,
    sink: &dyn Sink,
    atlas: &super::atlas::Atlas,
    slots: &Slots,
    sheet_path: &std::path::Path,
    rows: Vec<RowStream>,
) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let paths = outputs::page_paths(atlas, sheet_path);
    for ((p, mut stream), path) in rows.into_iter().enumerate().zip(&paths) {
        let stride = stream.row_bytes();
        let height = atlas.pages[p].height;
        let strips = strips(&atlas.frames, p);
        let zeros = vec![0u8; stride * 64];
        // Rows `from..to` of the page left transparent between cells.
        let push_gap = |stream: &mut RowStream, from: u32, to: u32| -> Result<()> {
            let mut y = from;
            while y < to {
                let n = (to - y).min(64);
                stream.push(&zeros[..n as usize * stride])?;
                y += n;
            }
            Ok(())
        };
        // A drawn strip after the transparent rows above it.
        let push_strip = |stream: &mut RowStream, from: u32, strip: &Strip, rows: &[u8]| {
            push_gap(stream, from, strip.top)?;
            stream.push(rows)
        };
        let mut drawn_rows = StripBuf::default();
        let mut spare = StripBuf::default();
        let mut done_to = 0u32;
        for (k, strip) in strips.iter().enumerate() {
            let previous = k.checked_sub(1).map(|j| &strips[j]);
            let (pushed, next) = rayon::join(
                || -> Result<()> {
                    match previous {
                        Some(prev) => push_strip(&mut stream, done_to, prev, &drawn_rows.bytes),
                        None => Ok(()),
                    }
                },
                || draw_strip(atlas, slots, fill, strip, stride, &mut spare),
            );
            pushed?;
            next?;
            if let Some(prev) = previous {
                done_to = prev.bottom;
            }
            std::mem::swap(&mut drawn_rows, &mut spare);
        }
        if let Some(last) = strips.last() {
            push_strip(&mut stream, done_to, last, &drawn_rows.bytes)?;
            done_to = last.bottom;
        }
        push_gap(&mut stream, done_to, height)?;
        drop(drawn_rows);
        sink.write(path, &stream.finish()?)?;
        written.push(path.clone());
    }
    outputs::write_metadata(job, clips, atlas, &paths, sink, &mut written)?;
    Ok(written)
}

/// Rows `top..bottom` of a page and the atlas frames whose cells lie in
/// them.
pub(crate) struct Strip {
    pub(crate) top: u32,
    pub(crate) bottom: u32,
    frames: Vec<usize>,
}

/// Page `p`'s cells grouped into strips of rows no cell crosses, top to
/// bottom (a grid's rows of cells).
pub(crate) fn strips(frames: &[AtlasFrame], p: usize) -> Vec<Strip> {
    let mut cells: Vec<(u32, u32, usize)> = frames
        .iter()
        .enumerate()
        .filter(|(_, f)| f.page == p && f.rect.w > 0 && f.rect.h > 0)
        .map(|(i, f)| (f.rect.y, f.rect.y + f.rect.h, i))
        .collect();
    cells.sort_unstable();
    let mut out: Vec<Strip> = Vec::new();
    for (a, b, i) in cells {
        match out.last_mut() {
            Some(last) if a < last.bottom => {
                last.bottom = last.bottom.max(b);
                last.frames.push(i);
            }
            _ => out.push(Strip {
                top: a,
                bottom: b,
                frames: vec![i],
            }),
        }
    }
    out
}

/// How a strip's frames get into its rows.
#[derive(Clone, Copy)]
enum Fill<'a> {
    /// Each frame made whole, then copied into its cell.
    Copy(&'a Make<'a>),
    /// Each frame drawn straight into its cell's rows.
    Into(&'a DrawInto<'a>),
}

/// A strip's rows, and the cells (relative to the strip's top) they were
/// last drawn with: everything outside those cells is transparent.
#[derive(Default)]
struct StripBuf {
    bytes: Vec<u8>,
    cells: Vec<super::atlas::Rect>,
}

/// Draws the frames of `strip` in parallel into `buf`, which becomes the
/// strip's rows (transparent outside the cells).
fn draw_strip(
    atlas: &super::atlas::Atlas,
    slots: &Slots,
    fill: Fill<'_>,
    strip: &Strip,
    stride: usize,
    buf: &mut StripBuf,
) -> Result<()> {
    let cells: Vec<super::atlas::Rect> = strip
        .frames
        .iter()
        .map(|&i| super::atlas::Rect {
            y: atlas.frames[i].rect.y - strip.top,
            ..atlas.frames[i].rect
        })
        .collect();
    let len = (strip.bottom - strip.top) as usize * stride;
    // Every drawn frame covers its whole cell, so rows laid out like the
    // strip before are transparent wherever the new frames do not land.
    if buf.bytes.len() != len {
        // Zeroed by the allocator (fresh pages, first touched by the
        // threads drawing into them), not by a pass over them here.
        buf.bytes = vec![0; len];
        buf.cells = cells;
    } else if buf.cells != cells {
        buf.bytes.fill(0);
        buf.cells = cells;
    }
    let key = |i: usize| {
        let f = &atlas.frames[i];
        (
            slots.order(f.clip, f.direction, f.frame),
            (f.clip, f.direction, f.frame),
        )
    };
    match fill {
        Fill::Into(into) => {
            let mut rows = cell_rows(&mut buf.bytes, stride, &buf.cells);
            strip
                .frames
                .par_iter()
                .zip(rows.par_iter_mut())
                .for_each(|(&i, rows)| {
                    let (_, (c, d, f)) = key(i);
                    into(c, d, f, rows)
                });
            Ok(())
        }
        Fill::Copy(make) => {
            let rows = Mutex::new(&mut buf.bytes[..]);
            strip.frames.par_iter().try_for_each(|&i| {
                let f = &atlas.frames[i];
                let (order, id) = key(i);
                let img = make(order, id);
                check_size(f, &img)?;
                let mut rows = rows.lock().unwrap_or_else(|e| e.into_inner());
                copy_rows(
                    img.as_raw(),
                    f.source_size.0 as usize * 4,
                    (f.source.x, f.source.y),
                    &mut rows,
                    stride,
                    (f.rect.x, f.rect.y - strip.top),
                    (f.rect.w, f.rect.h),
                );
                Ok(())
            })
        }
    }
}

/// Each cell's rows out of `bytes` (rows of `stride` bytes), in the order
/// of `cells`, which must not overlap.
fn cell_rows<'a>(
    bytes: &'a mut [u8],
    stride: usize,
    cells: &[super::atlas::Rect],
) -> Vec<Vec<&'a mut [u8]>> {
    let mut out: Vec<Vec<&'a mut [u8]>> = cells.iter().map(|_| Vec::new()).collect();
    let mut by_x: Vec<usize> = (0..cells.len()).collect();
    by_x.sort_unstable_by_key(|&k| cells[k].x);
    for (y, row) in bytes.chunks_exact_mut(stride).enumerate() {
        let y = y as u32;
        let mut rest = row;
        let mut at = 0usize;
        for &k in &by_x {
            let c = &cells[k];
            if y < c.y || y >= c.y + c.h {
                continue;
            }
            let (x, w) = (c.x as usize * 4, c.w as usize * 4);
            debug_assert!(x >= at, "cells overlap");
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(x - at);
            let (cell, tail) = tail.split_at_mut(w);
            out[k].push(cell);
            rest = tail;
            at = x + w;
        }
    }
    out
}

/// Frame `(clip, direction, frame)` read back out of the pages it was
/// drawn into.
fn read_back<'a>(
    pages: &'a [RgbaImage],
    frames: &'a [AtlasFrame],
    slots: &'a Slots,
) -> impl Fn(usize, usize, usize) -> Cow<'a, RgbaImage> + Sync + 'a {
    move |c, d, f| {
        let i = slots.frame(c, d, f);
        Cow::Owned(crop(&pages[frames[i].page], &frames[i]))
    }
}

/// A packed-sheet job: each frame drawn, encoded to its PNG and kept as
/// its trimmed box; then the palette chosen over them (when it is: each
/// frame restored, mapped, encoded and trimmed again), the atlas placed,
/// the pages composed one at a time, metadata and animations.
fn through_packed(
    job: &Job,
    clips: &[ClipFrames],
    draw: &Draw<'_>,
    look: &Look,
    sink: &dyn Sink,
) -> Result<Vec<PathBuf>> {
    let Some(sheet_path) = &job.output.sheet else {
        return Ok(Vec::new());
    };
    let trim = job.pack.trim;
    let order = outputs::frame_order(clips, job.directions.len());
    let over_frames = look.palette_over_frames();
    let given = look.job_palette(&[]).filter(|_| !over_frames);
    let mapper = given.as_ref().map(|p| look.mapper(p));
    let make = drawn(draw, mapper.as_ref());
    let twins = Twins::default();
    let keep = |_: usize, img: RgbaImage| Ok(twins.keep(Kept::new(img, trim)));
    let mut written = Vec::new();
    let mut kept = each_frame(job, &order, &make, !over_frames, &keep, sink, &mut written)?;
    if over_frames {
        // Everything outside a kept box is transparent, which the
        // palette's histogram leaves out: the boxes count exactly the
        // frames' pixels.
        // The frame PNGs waited for the palette: they are written here,
        // mapped or not, as the grid's are.
        let boxes: Vec<&RgbaImage> = kept.iter().map(|k| k.pixels()).collect();
        let palette = look.job_palette(&boxes);
        let mapper = palette.as_ref().map(|p| look.mapper(p));
        let remap = |i: usize, _| {
            let mut img = kept[i].restore();
            if let Some(m) = &mapper {
                m.map(&mut img);
            }
            img
        };
        let twins = Twins::default();
        let keep = |_: usize, img: RgbaImage| Ok(twins.keep(Kept::new(img, trim)));
        kept = each_frame(job, &order, &remap, true, &keep, sink, &mut written)?;
    }
    let kept: Vec<&Kept> = kept.iter().map(|k| &**k).collect();
    let atlas = outputs::sheet_atlas(job, clips, Some(&kept))?;
    let slots = Slots::new(clips, job.directions.len(), &atlas.frames)
        .map_err(|m| outputs::job_error(job, m))?;
    // The kept frames in atlas order.
    let mut by_frame: Vec<&Kept> = kept.clone();
    for (i, &j) in slots.at.iter().enumerate() {
        by_frame[j] = kept[i];
    }
    let restored = |c: usize, d: usize, f: usize| Cow::Owned(kept[slots.order(c, d, f)].restore());
    outputs::side_by_side(
        sink,
        &mut written,
        |s, w| outputs::write_composed_sheet(job, clips, &atlas, sheet_path, &by_frame, s, w),
        |s, w| outputs::write_animations(job, clips, &restored, s, w),
    )?;
    Ok(written)
}

/// Which atlas frame holds each `(clip, direction, frame)`.
struct Slots {
    /// Where each clip's frames start in output order.
    base: Vec<usize>,
    /// Frames per clip.
    count: Vec<usize>,
    /// Atlas frame of each frame in output order.
    at: Vec<usize>,
}

impl Slots {
    fn new(
        clips: &[ClipFrames],
        directions: usize,
        frames: &[AtlasFrame],
    ) -> std::result::Result<Slots, String> {
        let count: Vec<usize> = clips.iter().map(|c| c.times.times.len()).collect();
        let mut base = Vec::with_capacity(clips.len());
        let mut total = 0usize;
        for n in &count {
            base.push(total);
            total += n * directions;
        }
        let mut at = vec![usize::MAX; total];
        for (i, f) in frames.iter().enumerate() {
            let slot =
                (f.clip < clips.len() && f.direction < directions && f.frame < count[f.clip])
                    .then(|| base[f.clip] + f.direction * count[f.clip] + f.frame);
            match slot {
                Some(s) if at[s] == usize::MAX => at[s] = i,
                _ => {
                    return Err(format!(
                        "the sheet places frame '{}' twice or nowhere",
                        f.name
                    ))
                }
            }
        }
        if at.contains(&usize::MAX) {
            return Err("the sheet leaves a rendered frame out".to_string());
        }
        Ok(Slots { base, count, at })
    }

    /// The place of `(clip, direction, frame)` in output order.
    fn order(&self, c: usize, d: usize, f: usize) -> usize {
        self.base[c] + d * self.count[c] + f
    }

    /// The atlas frame of `(clip, direction, frame)`.
    fn frame(&self, c: usize, d: usize, f: usize) -> usize {
        self.at[self.order(c, d, f)]
    }
}

/// The pages' rows cut into bands, one per run of frames sharing rows (a
/// grid row), each behind its own lock: threads put frames of different
/// rows at once, and frames of the same row one after another.
struct Cells<'p> {
    bands: Vec<Mutex<&'p mut [u8]>>,
    /// Per atlas frame: its band, the band's first row on its page and the
    /// page's row length in bytes.
    spots: Vec<(usize, u32, usize)>,
    frames: &'p [AtlasFrame],
}

impl<'p> Cells<'p> {
    fn new(frames: &'p [AtlasFrame], pages: &'p mut [RgbaImage]) -> Cells<'p> {
        let mut bands = Vec::new();
        // (page, first row, end row, row length) of each band.
        let mut spans: Vec<(usize, u32, u32, usize)> = Vec::new();
        for (p, page) in pages.iter_mut().enumerate() {
            let stride = page.width() as usize * 4;
            let merged: Vec<(u32, u32)> = strips(frames, p)
                .iter()
                .map(|s| (s.top, s.bottom))
                .collect();
            let mut rest: &'p mut [u8] = page;
            let mut at = 0u32;
            for (a, b) in merged {
                let (_, tail) = std::mem::take(&mut rest).split_at_mut((a - at) as usize * stride);
                let (band, tail) = tail.split_at_mut((b - a) as usize * stride);
                spans.push((p, a, b, stride));
                bands.push(Mutex::new(band));
                rest = tail;
                at = b;
            }
        }
        let spots = frames
            .iter()
            .map(|f| {
                spans
                    .iter()
                    .position(|&(p, a, b, _)| p == f.page && a <= f.rect.y && f.rect.y < b)
                    .map_or((usize::MAX, 0, 0), |k| (k, spans[k].1, spans[k].3))
            })
            .collect();
        Cells {
            bands,
            spots,
            frames,
        }
    }

    /// Copies the drawn image of atlas frame `i` into its cell.
    fn put(&self, i: usize, img: &RgbaImage) -> Result<()> {
        let f = &self.frames[i];
        check_size(f, img)?;
        let (band, top, stride) = self.spots[i];
        let Some(lock) = self.bands.get(band) else {
            return Ok(());
        };
        let mut cell = lock.lock().unwrap_or_else(|e| e.into_inner());
        let src_stride = f.source_size.0 as usize * 4;
        copy_rows(
            img.as_raw(),
            src_stride,
            (f.source.x, f.source.y),
            &mut cell,
            stride,
            (f.rect.x, f.rect.y - top),
            (f.rect.w, f.rect.h),
        );
        Ok(())
    }

    /// Atlas frame `i` read out of its cell, as drawn.
    fn take(&self, i: usize) -> RgbaImage {
        let f = &self.frames[i];
        let mut img = RgbaImage::new(f.source_size.0, f.source_size.1);
        let (band, top, stride) = self.spots[i];
        if let Some(lock) = self.bands.get(band) {
            let cell = lock.lock().unwrap_or_else(|e| e.into_inner());
            let dst_stride = f.source_size.0 as usize * 4;
            copy_rows(
                &cell,
                stride,
                (f.rect.x, f.rect.y - top),
                &mut img,
                dst_stride,
                (f.source.x, f.source.y),
                (f.rect.w, f.rect.h),
            );
        }
        img
    }
}

/// An error unless `img` is the size atlas frame `f` was placed at.
fn check_size(f: &AtlasFrame, img: &RgbaImage) -> Result<()> {
    if img.dimensions() != f.source_size {
        return Err(Error::Other(format!(
            "frame '{}' is {}x{}, expected {}x{}",
            f.name,
            img.width(),
            img.height(),
            f.source_size.0,
            f.source_size.1
        )));
    }
    Ok(())
}

/// Frame `f` read out of its `page`, as drawn (outside its source rect,
/// which a grid never trims, transparent).
fn crop(page: &RgbaImage, f: &AtlasFrame) -> RgbaImage {
    let mut img = RgbaImage::new(f.source_size.0, f.source_size.1);
    let dst_stride = f.source_size.0 as usize * 4;
    copy_rows(
        page.as_raw(),
        page.width() as usize * 4,
        (f.rect.x, f.rect.y),
        &mut img,
        dst_stride,
        (f.source.x, f.source.y),
        (f.rect.w, f.rect.h),
    );
    img
}

/// Copies a `w × h` block of RGBA pixels at `from` in `src` to `to` in
/// `dst` (row lengths in bytes).
fn copy_rows(
    src: &[u8],
    src_stride: usize,
    from: (u32, u32),
    dst: &mut [u8],
    dst_stride: usize,
    to: (u32, u32),
    (w, h): (u32, u32),
) {
    let row = w as usize * 4;
    for y in 0..h as usize {
        let s = (from.1 as usize + y) * src_stride + from.0 as usize * 4;
        let d = (to.1 as usize + y) * dst_stride + to.0 as usize * 4;
        dst[d..d + row].copy_from_slice(&src[s..s + row]);
    }
}
