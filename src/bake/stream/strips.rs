//! A grid sheet drawn a strip of rows at a time and deflated as it goes,
//! no page ever whole.

use super::cells::*;
use super::{DrawInto, Make};
use crate::bake::emit::{self};
use crate::bake::encode::clip_frames::ClipFrames;
use crate::bake::outputs::sink::Sink;
use crate::bake::recipe::Job;
use crate::bake::sheet::atlas::AtlasFrame;
use crate::error::Result;
use crate::parallel_png::RowStream;
use image::RgbaImage;
use rayon::prelude::*;
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Mutex;

/// A grid-sheet job whose pages are encoded as they are drawn, a strip at
/// a time (the rows of one grid row of cells), none of them ever whole:
/// while one strip's rows are deflated the next strip's frames are drawn,
/// and the two strip buffers take turns. `rows` gives each page's PNG
/// bytes exactly as encoding the whole page would.
#[allow(clippy::too_many_arguments)]
pub(super) fn through_strips(
    job: &Job,
    clips: &[ClipFrames],
    fill: Fill<'_>,
    sink: &dyn Sink,
    atlas: &crate::bake::sheet::atlas::Atlas,
    slots: &Slots,
    sheet_path: &std::path::Path,
    rows: Vec<RowStream>,
) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let paths = emit::page_paths(atlas, sheet_path);
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
    emit::write_metadata(job, clips, atlas, &paths, sink, &mut written)?;
    Ok(written)
}

/// How a strip's frames get into its rows.
#[derive(Clone, Copy)]
pub(super) enum Fill<'a> {
    /// Each frame made whole, then copied into its cell.
    Copy(&'a Make<'a>),
    /// Each frame drawn straight into its cell's rows.
    Into(&'a DrawInto<'a>),
}

/// A strip's rows, and the cells (relative to the strip's top) they were
/// last drawn with: everything outside those cells is transparent.
#[derive(Default)]
pub(super) struct StripBuf {
    bytes: Vec<u8>,
    cells: Vec<crate::bake::sheet::atlas::Rect>,
}

/// Draws the frames of `strip` in parallel into `buf`, which becomes the
/// strip's rows (transparent outside the cells).
pub(super) fn draw_strip(
    atlas: &crate::bake::sheet::atlas::Atlas,
    slots: &Slots,
    fill: Fill<'_>,
    strip: &Strip,
    stride: usize,
    buf: &mut StripBuf,
) -> Result<()> {
    let cells: Vec<crate::bake::sheet::atlas::Rect> = strip
        .frames
        .iter()
        .map(|&i| crate::bake::sheet::atlas::Rect {
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
pub(super) fn cell_rows<'a>(
    bytes: &'a mut [u8],
    stride: usize,
    cells: &[crate::bake::sheet::atlas::Rect],
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
            assert!(x >= at, "cells overlap");
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
pub(super) fn read_back<'a>(
    pages: &'a [RgbaImage],
    frames: &'a [AtlasFrame],
    slots: &'a Slots,
) -> impl Fn(usize, usize, usize) -> Cow<'a, RgbaImage> + Sync + 'a {
    move |c, d, f| {
        let i = slots.frame(c, d, f);
        Cow::Owned(crop(&pages[frames[i].page], &frames[i]))
    }
}
