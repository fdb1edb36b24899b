//! The 2D drop shadow: the frame's coverage, blurred, tinted and offset,
//! with the frame drawn over it by tiny-skia's source-over.

use super::{blur::blur, DropShadow};
use image::RgbaImage;
use tiny_skia::{IntSize, Pixmap, PixmapPaint, Transform};

/// Puts `s` under `img`.
pub fn apply(img: &mut RgbaImage, s: &DropShadow) {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let Some(size) = IntSize::from_wh(img.width(), img.height()) else {
        return;
    };
    // An opaque frame hides any shadow under it; an empty one casts none.
    let alphas = || img.as_raw().chunks_exact(4).map(|p| p[3]);
    if alphas().all(|a| a == 255) || alphas().all(|a| a == 0) {
        return;
    }
    let mut cover: Vec<u8> = img.pixels().map(|p| p[3]).collect();
    blur(&mut cover, w, h, s.blur);
    let [r, g, b, a] = s.color;
    let mut shadow = Vec::with_capacity(w * h * 4);
    for &c in &cover {
        let alpha = mul255(c, a);
        shadow.extend_from_slice(&[mul255(r, alpha), mul255(g, alpha), mul255(b, alpha), alpha]);
    }
    let Some(frame) = to_pixmap(img, size) else {
        return;
    };
    let (Some(shadow), Some(mut canvas)) = (
        Pixmap::from_vec(shadow, size),
        Pixmap::new(size.width(), size.height()),
    ) else {
        return;
    };
    let paint = PixmapPaint::default();
    canvas.draw_pixmap(
        s.offset[0],
        s.offset[1],
        shadow.as_ref(),
        &paint,
        Transform::identity(),
        None,
    );
    canvas.draw_pixmap(0, 0, frame.as_ref(), &paint, Transform::identity(), None);
    for (px, c) in img.pixels_mut().zip(canvas.pixels()) {
        let s = c.demultiply();
        px.0 = [s.red(), s.green(), s.blue(), s.alpha()];
    }
}

/// `a · b / 255`, rounded.
fn mul255(a: u8, b: u8) -> u8 {
    ((a as u32 * b as u32 + 127) / 255) as u8
}

/// The straight-alpha frame as a premultiplied pixmap.
fn to_pixmap(img: &RgbaImage, size: IntSize) -> Option<Pixmap> {
    let mut data = Vec::with_capacity(img.as_raw().len());
    for p in img.pixels() {
        let [r, g, b, a] = p.0;
        data.extend_from_slice(&[mul255(r, a), mul255(g, a), mul255(b, a), a]);
    }
    Pixmap::from_vec(data, size)
}
