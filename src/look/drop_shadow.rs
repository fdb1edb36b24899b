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
    if w == 0 || h == 0 {
        return;
    }
    // The box of visible pixels; an empty frame casts nothing, and an
    // opaque frame hides any shadow under it.
    let (mut x0, mut y0, mut x1, mut y1) = (i64::MAX, i64::MAX, -1, -1);
    let mut opaque = true;
    for (y, row) in img.as_raw().chunks_exact(w as usize * 4).enumerate() {
        opaque = opaque && row.chunks_exact(4).all(|p| p[3] == 255);
        let seen = |p: &[u8]| p[3] > 0;
        let Some(first) = row.chunks_exact(4).position(seen) else {
            continue;
        };
        let last = row.chunks_exact(4).rposition(seen).unwrap_or(first);
        x0 = x0.min(first as i64);
        x1 = x1.max(last as i64);
        y0 = y0.min(y as i64);
        y1 = y as i64;
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
        let src = &raw[at(0, y)..at(0, y) + cw * 4];
        let covers = &mut cover[y * cw..(y + 1) * cw];
        let dst = &mut frame[y * cw * 4..(y + 1) * cw * 4];
        for ((s, c), d) in src
            .chunks_exact(4)
            .zip(covers.iter_mut())
            .zip(dst.chunks_exact_mut(4))
        {
            let a = s[3];
            *c = a;
            if a != 0 {
                d.copy_from_slice(&[mul255(s[0], a), mul255(s[1], a), mul255(s[2], a), a]);
            }
        }
    }
    blur(&mut cover, cw, ch, s.blur);
    // The tinted shadow, moved by the offset, is the canvas the frame is
    // drawn over: canvas (x, y) shows cover (x − dx, y − dy).
    let [r, g, b, a] = s.color;
    let tint: [[u8; 4]; 256] = std::array::from_fn(|v| {
        let alpha = mul255(v as u8, a);
        [mul255(r, alpha), mul255(g, alpha), mul255(b, alpha), alpha]
    });
    let mut canvas = vec![0u8; cw * ch * 4];
    let (cwi, chi) = (cw as i64, ch as i64);
    let (xa, xb) = (dx.max(0), (cwi + dx).min(cwi));
    for y in dy.max(0)..(chi + dy).min(chi) {
        let sy = (y - dy) as usize;
        if xa >= xb {
            break;
        }
        let src = &cover[sy * cw + (xa - dx) as usize..sy * cw + (xb - dx) as usize];
        let dst =
            &mut canvas[(y as usize * cw + xa as usize) * 4..(y as usize * cw + xb as usize) * 4];
        for (&v, d) in src.iter().zip(dst.chunks_exact_mut(4)) {
            d.copy_from_slice(&tint[v as usize]);
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
    for (y, row) in canvas.pixels().chunks_exact(cw).enumerate() {
        let dst = &mut out[at(0, y)..at(0, y) + cw * 4];
        for (c, d) in row.iter().zip(dst.chunks_exact_mut(4)) {
            let px = if c.alpha() == 0 {
                [0; 4]
            } else {
                let s = c.demultiply();
                [s.red(), s.green(), s.blue(), s.alpha()]
            };
            d.copy_from_slice(&px);
        }
    }
}

/// `a · b / 255`, rounded.
fn mul255(a: u8, b: u8) -> u8 {
    ((a as u32 * b as u32 + 127) / 255) as u8
}
