//! The cells of a sheet's pages as frames land in them: which slot each
//! frame of a clip takes, and the page rows a frame is copied into.

use crate::bake::encode::clip_frames::ClipFrames;
use crate::bake::sheet::atlas::AtlasFrame;
use crate::error::{Error, Result};
use image::RgbaImage;
use std::sync::Mutex;

/// Which atlas frame holds each `(clip, direction, frame)`.
pub(super) struct Slots {
    /// Where each clip's frames start in output order.
    base: Vec<usize>,
    /// Frames per clip.
    count: Vec<usize>,
    /// Atlas frame of each frame in output order.
    pub(super) at: Vec<usize>,
}

impl Slots {
    pub(super) fn new(
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
    pub(super) fn order(&self, c: usize, d: usize, f: usize) -> usize {
        self.base[c] + d * self.count[c] + f
    }

    /// The atlas frame of `(clip, direction, frame)`.
    pub(super) fn frame(&self, c: usize, d: usize, f: usize) -> usize {
        self.at[self.order(c, d, f)]
    }
}

/// The pages' rows cut into bands, one per run of frames sharing rows (a
/// grid row), each behind its own lock: threads put frames of different
/// rows at once, and frames of the same row one after another.
pub(super) struct Cells<'p> {
    bands: Vec<Mutex<&'p mut [u8]>>,
    /// Per atlas frame: its band, the band's first row on its page and the
    /// page's row length in bytes.
    spots: Vec<(usize, u32, usize)>,
    frames: &'p [AtlasFrame],
}

impl<'p> Cells<'p> {
    pub(super) fn new(frames: &'p [AtlasFrame], pages: &'p mut [RgbaImage]) -> Cells<'p> {
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
    pub(super) fn put(&self, i: usize, img: &RgbaImage) -> Result<()> {
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
    pub(super) fn take(&self, i: usize) -> RgbaImage {
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
pub(super) fn check_size(f: &AtlasFrame, img: &RgbaImage) -> Result<()> {
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
pub(super) fn crop(page: &RgbaImage, f: &AtlasFrame) -> RgbaImage {
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
pub(super) fn copy_rows(
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

/// Rows `top..bottom` of a page and the atlas frames whose cells lie in
/// them.
pub(crate) struct Strip {
    pub(crate) top: u32,
    pub(crate) bottom: u32,
    pub(super) frames: Vec<usize>,
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
