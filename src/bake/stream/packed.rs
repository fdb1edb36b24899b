//! A packed sheet's frames kept as their trimmed boxes, placed and composed
//! once every frame is drawn.

use super::cells::*;
use super::{drawn, each_frame, Draw};
use crate::bake::emit::{self};
use crate::bake::encode::clip_frames::ClipFrames;
use crate::bake::outputs::sink::Sink;
use crate::bake::recipe::Job;
use crate::bake::sheet::kept::{Kept, Twins};
use crate::error::Result;
use crate::look::Look;
use image::RgbaImage;
use std::borrow::Cow;
use std::path::PathBuf;

/// A packed-sheet job: each frame drawn, encoded to its PNG and kept as
/// its trimmed box; then the palette chosen over them (when it is: each
/// frame restored, mapped, encoded and trimmed again), the atlas placed,
/// the pages composed one at a time, metadata and animations.
pub(super) fn through_packed(
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
    let order = emit::frame_order(clips, job.directions.len());
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
    let atlas = emit::sheet_atlas(job, clips, Some(&kept))?;
    let slots = Slots::new(clips, job.directions.len(), &atlas.frames)
        .map_err(|m| emit::job_error(job, m))?;
    // The kept frames in atlas order.
    let mut by_frame: Vec<&Kept> = kept.clone();
    for (i, &j) in slots.at.iter().enumerate() {
        by_frame[j] = kept[i];
    }
    let restored = |c: usize, d: usize, f: usize| Cow::Owned(kept[slots.order(c, d, f)].restore());
    emit::side_by_side(
        sink,
        &mut written,
        |s, w| emit::write_composed_sheet(job, clips, &atlas, sheet_path, &by_frame, s, w),
        |s, w| emit::write_animations(job, clips, &restored, s, w),
    )?;
    Ok(written)
}
