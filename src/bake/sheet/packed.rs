//! The packed atlas: frames trimmed to their pixels (optionally), each
//! stored once however often it repeats, and placed by kiln's skyline
//! packer ([`crate::bake::sheet::skyline`]) on as few pages as `max_size` allows.
//!
//! - **Trim**: a frame keeps the bounding box of its pixels with any
//!   alpha; `source` says where that box lies in the full frame, so
//!   engines restore the untrimmed position exactly. A frame with no
//!   pixel at all keeps one transparent pixel.
//! - **Aliases**: frames whose kept pixels, offset and size are equal (a
//!   still clip seen from a symmetric side, the held end of a one-shot)
//!   share one place on the page.
//! - **Pages**: every clip × direction stays on one page, so each engine's
//!   animation lives in one image. All frames on one page when they fit,
//!   in the smallest page found; else pages are filled with whole runs of
//!   frames in sheet order.
//! - **Spacing**: each frame's slot is its size plus `2 × extrude` for the
//!   repeated edge plus `padding` to its right and bottom neighbours; the
//!   page is cut after the last slot's padding.

use crate::bake::recipe::PackSpec;
use crate::bake::sheet::atlas::{Atlas, AtlasFrame, AtlasJob, Page, Rect, Tag};
use crate::bake::sheet::grid::page_limits;
use crate::bake::sheet::kept::FramePixels;
use crate::bake::sheet::skyline::Skyline;

/// The packed atlas of `job`. `images[i]` is the rendered image of the
/// `i`-th frame in sheet order (clip by clip, direction by direction,
/// frame by frame), each `frame_size`; `pivot` is each frame's until the
/// caller sets its own.
pub fn atlas<F: FramePixels>(
    job: &AtlasJob<'_>,
    images: &[F],
    frame_size: (u32, u32),
    pivot: [f32; 2],
    pack: &PackSpec,
) -> Result<Atlas, String> {
    let mut frames = sheet_frames(job, frame_size, pivot);
    if frames.len() != images.len() {
        return Err(format!(
            "atlas of {} frames given {} images",
            frames.len(),
            images.len()
        ));
    }
    if let Some(i) = images.iter().position(|im| im.size() != frame_size) {
        return Err(format!(
            "frame '{}' is {}x{}, expected {}x{}",
            frames[i].name,
            images[i].size().0,
            images[i].size().1,
            frame_size.0,
            frame_size.1
        ));
    }
    for (f, img) in frames.iter_mut().zip(images) {
        if pack.trim {
            f.source = img.bounds();
        }
        f.rect.w = f.source.w;
        f.rect.h = f.source.h;
    }
    let twins = twins(&frames, images);
    let tags = Atlas::tag_runs(&frames, job);
    if tags.is_empty() {
        return Err("a packed sheet needs at least one frame".into());
    }
    let (max_w, max_h) = page_limits(pack);
    let (e, p) = (pack.extrude as u64, pack.padding as u64);
    let slot = |f: &AtlasFrame| (f.rect.w as u64 + 2 * e + p, f.rect.h as u64 + 2 * e + p);
    if let Some(f) = frames
        .iter()
        .find(|f| slot(f).0 > max_w + p || slot(f).1 > max_h + p)
    {
        return Err(format!(
            "frame '{}' is {}x{} with its spacing, more than the page's max_size {max_w}x{max_h}",
            f.name,
            slot(f).0 - p,
            slot(f).1 - p
        ));
    }
    let bin = (max_w + p, max_h + p);

    // Runs of tags sharing a page: all of them if they fit one page.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let all = (0, tags.len());
    if place(&frames, &twins, &tags, all, bin, &slot).is_some() {
        groups.push(all);
    } else {
        let mut start = 0;
        while start < tags.len() {
            let fits =
                |k: usize| place(&frames, &twins, &tags, (start, start + k), bin, &slot).is_some();
            if !fits(1) {
                return Err(format!(
                    "the {} frames of '{}' do not fit one page of max_size {max_w}x{max_h}; \
                     raise `pack.max_size` or lower `size`",
                    tags[start].to - tags[start].from + 1,
                    tags[start].name
                ));
            }
            // Grow while it fits, then halve the gap to the first failure.
            let left = tags.len() - start;
            let (mut ok, mut bad) = (1, None);
            while ok < left {
                let k = (ok * 2).min(left);
                if fits(k) {
                    ok = k;
                } else {
                    bad = Some(k);
                    break;
                }
            }
            if let Some(mut bad) = bad {
                while bad - ok > 1 {
                    let mid = (ok + bad) / 2;
                    if fits(mid) {
                        ok = mid;
                    } else {
                        bad = mid;
                    }
                }
            }
            groups.push((start, start + ok));
            start += ok;
        }
    }

    let mut pages = Vec::with_capacity(groups.len());
    for (page, &range) in groups.iter().enumerate() {
        let (size, spots) = if groups.len() == 1 {
            smallest(&frames, &twins, &tags, range, bin, &slot, pack)
        } else {
            place(&frames, &twins, &tags, range, bin, &slot)
                .ok_or_else(|| "a page that fitted no longer fits".to_string())?
        };
        if let (Some(a), Some(b)) = (tags.get(range.0), tags.get(range.1 - 1)) {
            for f in &mut frames[a.from..=b.to] {
                f.page = page;
            }
        }
        for (i, (x, y)) in spots {
            frames[i].rect.x = (x + e) as u32;
            frames[i].rect.y = (y + e) as u32;
        }
        let (w, h) = (
            size.0.saturating_sub(p).max(1),
            size.1.saturating_sub(p).max(1),
        );
        pages.push(if pack.power_of_two {
            Page {
                width: (w as u32).next_power_of_two(),
                height: (h as u32).next_power_of_two(),
            }
        } else {
            Page {
                width: w as u32,
                height: h as u32,
            }
        });
    }
    // A twin shares its original's place when both are on one page.
    for i in 0..frames.len() {
        if let Some(o) = twins[i] {
            if frames[o].page == frames[i].page {
                frames[i].rect = frames[o].rect;
            }
        }
    }
    Ok(Atlas {
        pages,
        frames,
        tags,
    })
}

/// The frames of `job` in sheet order, each untrimmed at (0, 0) of page 0.
fn sheet_frames(job: &AtlasJob<'_>, (w, h): (u32, u32), pivot: [f32; 2]) -> Vec<AtlasFrame> {
    let mut out = Vec::new();
    for (c, clip) in job.clips.iter().enumerate() {
        let duration_ms = crate::bake::sheet::atlas::duration_ms(clip.frame_seconds);
        for d in 0..job.directions.len() {
            for f in 0..clip.frames as usize {
                let full = Rect { x: 0, y: 0, w, h };
                out.push(AtlasFrame {
                    name: job.frame_name(c, d, f),
                    clip: c,
                    direction: d,
                    frame: f,
                    page: 0,
                    rect: full,
                    source: full,
                    source_size: (w, h),
                    pivot,
                    duration_ms,
                    root_motion: None,
                });
            }
        }
    }
    out
}

/// For each frame, an earlier frame with the same kept pixels at the same
/// offset in a frame of the same size, if any.
fn twins<F: FramePixels>(frames: &[AtlasFrame], images: &[F]) -> Vec<Option<usize>> {
    let keys: Vec<u64> = frames
        .iter()
        .zip(images)
        .map(|(f, img)| fingerprint(f, img))
        .collect();
    let mut first: std::collections::BTreeMap<u64, Vec<usize>> = Default::default();
    let mut out = vec![None; frames.len()];
    for i in 0..frames.len() {
        let seen = first.entry(keys[i]).or_default();
        out[i] = seen
            .iter()
            .copied()
            .find(|&j| same_pixels(&frames[i], &images[i], &frames[j], &images[j]));
        if out[i].is_none() {
            seen.push(i);
        }
    }
    out
}

/// FNV-1a over the kept pixels and where they sit.
fn fingerprint<F: FramePixels>(f: &AtlasFrame, img: &F) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: &[u8]| {
        for &x in b {
            h ^= x as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    let s = f.source;
    for v in [s.x, s.y, s.w, s.h, f.source_size.0, f.source_size.1] {
        eat(&v.to_le_bytes());
    }
    for row in rows(s, img) {
        eat(row);
    }
    h
}

fn same_pixels<F: FramePixels>(a: &AtlasFrame, ai: &F, b: &AtlasFrame, bi: &F) -> bool {
    a.source == b.source
        && a.source_size == b.source_size
        && rows(a.source, ai).eq(rows(b.source, bi))
}

/// The bytes of each row of `r` in `img`.
fn rows<F: FramePixels>(r: Rect, img: &F) -> impl Iterator<Item = &[u8]> + '_ {
    (r.y..r.y + r.h).map(move |y| img.row(r.x, y, r.w))
}

/// Where each frame to store of the tags `range` goes in a bin of `bin`:
/// the frames in tallest-first order, twins of frames in the range left
/// out. Returns the used extent and `(frame, slot corner)` pairs, or
/// `None` when they do not all fit.
#[allow(clippy::type_complexity)]
fn place(
    frames: &[AtlasFrame],
    twins: &[Option<usize>],
    tags: &[Tag],
    range: (usize, usize),
    bin: (u64, u64),
    slot: &dyn Fn(&AtlasFrame) -> (u64, u64),
) -> Option<((u64, u64), Vec<(usize, (u64, u64))>)> {
    let members = stored(frames, twins, tags, range);
    let mut order = members.clone();
    order.sort_by_key(|&i| {
        let (w, h) = slot(&frames[i]);
        (std::cmp::Reverse(h), std::cmp::Reverse(w), i)
    });
    let mut sky = Skyline::new(bin.0, bin.1);
    let mut spots = Vec::with_capacity(order.len());
    for i in order {
        let (w, h) = slot(&frames[i]);
        spots.push((i, sky.insert(w, h)?));
    }
    Some((sky.used(), spots))
}

/// The frames of the tags `range` that need a place of their own.
fn stored(
    frames: &[AtlasFrame],
    twins: &[Option<usize>],
    tags: &[Tag],
    (a, b): (usize, usize),
) -> Vec<usize> {
    let Some((first, last)) = tags.get(a).zip(b.checked_sub(1).and_then(|l| tags.get(l))) else {
        return Vec::new();
    };
    let span = first.from..=last.to;
    span.clone()
        .filter(|&i| twins[i].is_none_or(|o| !span.contains(&o)))
        .filter(|&i| i < frames.len())
        .collect()
}

/// The tags `range` on the smallest page found: packings into bins of a
/// range of widths, the least area (after rounding to powers of two when
/// asked) winning, then the squarer, then the narrower.
#[allow(clippy::type_complexity)]
fn smallest(
    frames: &[AtlasFrame],
    twins: &[Option<usize>],
    tags: &[Tag],
    range: (usize, usize),
    bin: (u64, u64),
    slot: &dyn Fn(&AtlasFrame) -> (u64, u64),
    pack: &PackSpec,
) -> ((u64, u64), Vec<(usize, (u64, u64))>) {
    let members = stored(frames, twins, tags, range);
    let widest = members
        .iter()
        .map(|&i| slot(&frames[i]).0)
        .max()
        .unwrap_or(1);
    let area: u64 = members
        .iter()
        .map(|&i| {
            let (w, h) = slot(&frames[i]);
            w * h
        })
        .sum();
    let side = (area as f64).sqrt();
    let mut widths: Vec<u64> = (0..=24)
        .map(|k| (side * (0.6 + 0.1 * k as f64)).round() as u64)
        .chain([bin.0])
        .map(|w| w.clamp(widest, bin.0))
        .collect();
    if pack.power_of_two {
        let mut w = widest.next_power_of_two();
        while w <= bin.0 {
            widths.push(w + pack.padding as u64);
            w *= 2;
        }
    }
    widths.retain(|&w| w >= widest && w <= bin.0);
    widths.sort_unstable();
    widths.dedup();
    let p = pack.padding as u64;
    let cost = |(w, h): (u64, u64)| {
        let (w, h) = (w.saturating_sub(p).max(1), h.saturating_sub(p).max(1));
        let (w, h) = if pack.power_of_two {
            (w.next_power_of_two(), h.next_power_of_two())
        } else {
            (w, h)
        };
        (w * h, w.max(h), w)
    };
    let mut best: Option<(_, ((u64, u64), Vec<(usize, (u64, u64))>))> = None;
    for w in widths {
        if let Some(found) = place(frames, twins, tags, range, (w, bin.1), slot) {
            let c = cost(found.0);
            if best.as_ref().is_none_or(|(b, _)| c < *b) {
                best = Some((c, found));
            }
        }
    }
    // The full bin always fits (the caller checked), so `best` is set.
    best.map(|(_, f)| f)
        .or_else(|| place(frames, twins, tags, range, bin, slot))
        .unwrap_or(((1, 1), Vec::new()))
}
