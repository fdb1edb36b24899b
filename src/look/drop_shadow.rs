//! The 2D drop shadow: the frame's coverage, blurred, tinted and offset,
//! with the frame drawn over it by tiny-skia's source-over.
//!
//! Only the box the shadow and the sprite can reach is worked on (the
//! coverage's box, grown by the blur's reach and joined with its offset
//! copy); outside it nothing changes, so a small sprite in a large frame
//! costs what its own pixels cost.

use super::{blur::blur, DropShadow};
use image::RgbaImage;
use tiny_skia::{IntSize, Pixmap, PixmapPaint, Transform};

/// Puts `s` under `img`.
pub fn apply(img: &mut RgbaImage, s: &DropShadow) {
    let (w, h) = (img.width() as i64, img.height() as i64);
    // The box of visible pixels; an empty frame casts nothing, and an
    // opaque frame hides any shadow under it.
    let (mut x0, mut y0, mut x1, mut y1) = (i64::MAX, i64::MAX, -1, -1);
    let mut opaque = true;
    for (i, p) in img.as_raw().chunks_exact(4).enumerate() {
        opaque &= p[3] == 255;
        if p[3] > 0 {
            let (x, y) = (i as i64 % w, i as i64 / w);
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
    }
    if x1 < 0 || opaque {
        return;
    }
    let reach = 3 * s.blur as i64;
    let [dx, dy] = s.offset.map(|v| v as i64);
    let rx0 = (x0.min(x0 + dx) - reach).max(0);
    let ry0 = (y0.min(y0 + dy) - reach).max(0);
    let rx1 = (x1.max(x1 + dx) + reach).min(w - 1);
    let ry1 = (y1.max(y1 + dy) + reach).min(h - 1);
    let (cw, ch) = ((rx1 - rx0 + 1) as usize, (ry1 - ry0 + 1) as usize);
    let Some(size) = IntSize::from_wh(cw as u32, ch as u32) else {
        return;
    };
    let stride = w as usize * 4;
    let at = |x: usize, y: usize| (ry0 as usize + y) * stride + (rx0 as usize + x) * 4;
    let raw = img.as_raw();
    let mut cover = vec![0u8; cw * ch];
    let mut frame = vec![0u8; cw * ch * 4];
    for y in 0..ch {
        for x in 0..cw {
            let o = at(x, y);
            let [r, g, b, a] = [raw[o], raw[o + 1], raw[o + 2], raw[o + 3]];
            cover[y * cw + x] = a;
            frame[(y * cw + x) * 4..][..4].copy_from_slice(&[
                mul255(r, a),
                mul255(g, a),
                mul255(b, a),
                a,
            ]);
        }
    }
    blur(&mut cover, cw, ch, s.blur);
    // The tinted shadow, moved by the offset, is the canvas the frame is
    // drawn over.
    let [r, g, b, a] = s.color;
    let mut canvas = vec![0u8; cw * ch * 4];
    for y in 0..ch as i64 {
        let sy = y - dy;
        if !(0..ch as i64).contains(&sy) {
            continue;
        }
        for x in 0..cw as i64 {
            let sx = x - dx;
            if !(0..cw as i64).contains(&sx) {
                continue;
            }
            let alpha = mul255(cover[(sy * cw as i64 + sx) as usize], a);
            let o = (y as usize * cw + x as usize) * 4;
            canvas[o..o + 4].copy_from_slice(&[
                mul255(r, alpha),
                mul255(g, alpha),
                mul255(b, alpha),
                alpha,
            ]);
        }
    }
    let (Some(frame), Some(mut canvas)) = (
        Pixmap::from_vec(frame, size),
        Pixmap::from_vec(canvas, size),
    ) else {
        return;
    };
    canvas.draw_pixmap(
        0,
        0,
        frame.as_ref(),
        &PixmapPaint::default(),
        Transform::identity(),
        None,
    );
    let out: &mut [u8] = img;
    for (i, c) in canvas.pixels().iter().enumerate() {
        let px = if c.alpha() == 0 {
            [0; 4]
        } else {
            let s = c.demultiply();
            [s.red(), s.green(), s.blue(), s.alpha()]
        };
        let o = at(i % cw, i / cw);
        out[o..o + 4].copy_from_slice(&px);
    }
}

/// `a · b / 255`, rounded.
fn mul255(a: u8, b: u8) -> u8 {
    ((a as u32 * b as u32 + 127) / 255) as u8
}
