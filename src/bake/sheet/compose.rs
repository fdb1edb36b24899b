//! Sheets: the pages of an [`Atlas`], each frame's `source` rect of its
//! rendered image copied to its `rect`.
//!
//! Composition is a plain row copy rather than a tiny-skia draw. Frames never
//! overlap and the sheet starts fully transparent, so source-over would give
//! exactly the source pixel anyway — but tiny-skia works in premultiplied
//! 8-bit colour, and a straight → premultiplied → straight round trip
//! changes semi-transparent pixels (e.g. (200, 100, 50, 3) comes back as
//! (170, 85, 85, 3)). Copying keeps every frame bit-exact; the test
//! `copy_matches_tiny_skia_on_premultiplied_exact_pixels` pins the
//! equivalence where tiny-skia is itself lossless.

use crate::bake::sheet::atlas::{Atlas, AtlasFrame, Rect};
use crate::bake::sheet::kept::FramePixels;
use image::RgbaImage;
use rayon::prelude::*;

/// Composes page `page` of `atlas` into a new transparent image.
/// `images[i]` is the rendered image of `atlas.frames[i]` (the full frame,
/// `source_size` in size).
pub fn compose<F: FramePixels>(
    atlas: &Atlas,
    page: usize,
    images: &[F],
) -> Result<RgbaImage, String> {
    let Some(p) = atlas.pages.get(page) else {
        return Err(format!(
            "page {page} of an atlas of {} pages",
            atlas.pages.len()
        ));
    };
    if images.len() != atlas.frames.len() {
        return Err(format!(
            "atlas of {} frames given {} images",
            atlas.frames.len(),
            images.len()
        ));
    }
    let frames: Vec<(usize, &AtlasFrame)> = atlas.page_frames(page).collect();
    for &(i, frame) in &frames {
        check_frame((p.width, p.height), frame, &images[i])?;
    }
    // Copied a strip of rows at a time on every thread: the frames' rects
    // are copied in the same order within each strip, so the result is the
    // one a single thread makes.
    let mut sheet = RgbaImage::new(p.width, p.height);
    let stride = p.width as usize * 4;
    if stride == 0 {
        return Ok(sheet);
    }
    let strip_rows = STRIP_ROWS;
    let pixels: &mut [u8] = &mut sheet;
    pixels
        .par_chunks_mut(stride * strip_rows)
        .enumerate()
        .for_each(|(k, strip)| {
            let y0 = (k * strip_rows) as u32;
            let y1 = y0 + (strip.len() / stride) as u32;
            for &(i, frame) in &frames {
                let (s, r) = (frame.source, frame.rect);
                let (from_y, to_y) = (r.y.max(y0), (r.y + r.h).min(y1));
                let row_bytes = s.w as usize * 4;
                for y in from_y..to_y {
                    let src = images[i].row(s.x, s.y + (y - r.y), s.w);
                    let to = (y - y0) as usize * stride + r.x as usize * 4;
                    strip[to..to + row_bytes].copy_from_slice(src);
                }
            }
        });
    Ok(sheet)
}

/// Sheet rows each thread copies at a time.
const STRIP_ROWS: usize = 32;

/// Every frame of page `page` of `atlas` extruded by `by` pixels
/// ([`extrude`]).
pub fn extrude_page(atlas: &Atlas, page: usize, sheet: &mut RgbaImage, by: u32) {
    for (_, f) in atlas.page_frames(page) {
        extrude(sheet, f.rect, by);
    }
}

/// Repeats the edge pixels of `rect` outward by `by` pixels on every side
/// (corners take the corner pixel), so an engine that filters the sheet
/// samples the frame's own edge instead of its neighbour or transparency.
/// The border must lie within the sheet; the packers leave room for it.
pub fn extrude(sheet: &mut RgbaImage, rect: Rect, by: u32) {
    if by == 0 || rect.w == 0 || rect.h == 0 {
        return;
    }
    let (sw, sh) = sheet.dimensions();
    if rect.x < by || rect.y < by || rect.x + rect.w + by > sw || rect.y + rect.h + by > sh {
        return;
    }
    for y in rect.y..rect.y + rect.h {
        let left = *sheet.get_pixel(rect.x, y);
        let right = *sheet.get_pixel(rect.x + rect.w - 1, y);
        for k in 1..=by {
            sheet.put_pixel(rect.x - k, y, left);
            sheet.put_pixel(rect.x + rect.w - 1 + k, y, right);
        }
    }
    let (x0, x1) = (rect.x - by, rect.x + rect.w + by);
    for k in 1..=by {
        for x in x0..x1 {
            let top = *sheet.get_pixel(x, rect.y);
            let bottom = *sheet.get_pixel(x, rect.y + rect.h - 1);
            sheet.put_pixel(x, rect.y - k, top);
            sheet.put_pixel(x, rect.y + rect.h - 1 + k, bottom);
        }
    }
}

/// Whether `frame.source` of `image` can be copied to `frame.rect` of a
/// sheet of size `sheet`: both rects fit and agree in size.
fn check_frame<F: FramePixels>(
    sheet: (u32, u32),
    frame: &AtlasFrame,
    image: &F,
) -> Result<(), String> {
    let (fw, fh) = frame.source_size;
    if image.size() != (fw, fh) {
        return Err(format!(
            "frame '{}' is {}x{}, expected {fw}x{fh}",
            frame.name,
            image.size().0,
            image.size().1
        ));
    }
    let (s, r) = (frame.source, frame.rect);
    let fits = |x: u32, w: u32, max: u32| x.checked_add(w).is_some_and(|end| end <= max);
    if (s.w, s.h) != (r.w, r.h)
        || !fits(s.x, s.w, fw)
        || !fits(s.y, s.h, fh)
        || !fits(r.x, r.w, sheet.0)
        || !fits(r.y, r.h, sheet.1)
        || !image.holds(s)
    {
        return Err(format!(
            "frame '{}': source {}x{} at ({}, {}) of a {fw}x{fh} frame does not match \
             rect {}x{} at ({}, {}) of a {}x{} page",
            frame.name, s.w, s.h, s.x, s.y, r.w, r.h, r.x, r.y, sheet.0, sheet.1
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bake::recipe::Direction;
    use crate::bake::sheet::atlas::{AtlasClip, AtlasJob};
    use crate::bake::sheet::grid::GridLayout;

    fn frame(w: u32, h: u32, seed: u8) -> RgbaImage {
        RgbaImage::from_fn(w, h, |x, y| {
            let v = (x * 7 + y * 13) as u8 ^ seed;
            // Only alpha 0 or 255, with zero colour when transparent: the pixels
            // tiny-skia's premultiplied pipeline represents exactly.
            if (x + y + seed as u32).is_multiple_of(3) {
                image::Rgba([0, 0, 0, 0])
            } else {
                image::Rgba([v, v.wrapping_mul(3), seed, 255])
            }
        })
    }

    /// The grid atlas of one clip of `columns` frames seen from `rows`
    /// directions.
    fn grid(layout: &GridLayout) -> Atlas {
        let dirs: Vec<Direction> = (0..layout.rows as usize)
            .map(|index| Direction { index, yaw: 0.0 })
            .collect();
        let clips = [AtlasClip {
            name: "c",
            frames: layout.columns,
            frame_seconds: 0.1,
            rate: 10.0,
            looping: true,
        }];
        layout.atlas(
            &AtlasJob {
                name: "t",
                image: "t.png",
                directions: &dirs,
                clips: &clips,
                named_clips: false,
                pixels_per_unit: None,
            },
            [0.5, 0.5],
        )
    }

    #[test]
    fn copy_matches_tiny_skia_on_premultiplied_exact_pixels() {
        let layout = GridLayout::new(5, 4, 3, 2).unwrap();
        let atlas = grid(&layout);
        let frames: Vec<RgbaImage> = (0..6).map(|i| frame(5, 4, i * 40 + 1)).collect();
        let refs: Vec<&RgbaImage> = frames.iter().collect();
        let ours = compose(&atlas, 0, &refs).unwrap();

        let mut pm = tiny_skia::Pixmap::new(layout.width(), layout.height()).unwrap();
        for (f, img) in atlas.frames.iter().zip(&frames) {
            let src = tiny_skia::Pixmap::from_vec(
                img.as_raw().clone(),
                tiny_skia::IntSize::from_wh(5, 4).unwrap(),
            )
            .unwrap();
            pm.draw_pixmap(
                f.rect.x as i32,
                f.rect.y as i32,
                src.as_ref(),
                &tiny_skia::PixmapPaint::default(),
                tiny_skia::Transform::identity(),
                None,
            );
        }
        assert_eq!(ours.as_raw(), pm.data());
    }

    #[test]
    fn tiny_skia_round_trip_would_change_semi_transparent_pixels() {
        // The reason compose() copies instead of drawing through tiny-skia.
        let c = tiny_skia::ColorU8::from_rgba(200, 100, 50, 3)
            .premultiply()
            .demultiply();
        assert_eq!((c.red(), c.green(), c.blue(), c.alpha()), (170, 85, 85, 3));
    }

    #[test]
    fn semi_transparent_pixels_survive_exactly() {
        let atlas = grid(&GridLayout::new(1, 1, 1, 1).unwrap());
        let f = RgbaImage::from_pixel(1, 1, image::Rgba([200, 100, 50, 3]));
        let s = compose(&atlas, 0, &[&f]).unwrap();
        assert_eq!(s.get_pixel(0, 0).0, [200, 100, 50, 3]);
    }
}
