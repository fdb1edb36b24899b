//! Outlines around (or inside) the silhouette: every pixel within `width`
//! pixels of the silhouette (Euclidean distance between pixel centres)
//! takes the outline colour, under the model's own pixels.
//!
//! The silhouette is the pixels at least half covered (alpha ≥ 128), so
//! the outline follows the shape the eye sees, not the faint fringe of
//! supersampled edges. Distances come from a two-pass transform limited to
//! the outline width (a row pass, then the smallest `dy² + dx²` over the
//! rows within reach), which is O(width) a pixel rather than a disc scan.

use super::{over_pixel, Outline, OutlineSide};
use image::RgbaImage;

/// Alpha at or above which a pixel belongs to the silhouette.
pub const SILHOUETTE_ALPHA: u8 = 128;

/// Draws `o` on `img`.
pub fn apply(img: &mut RgbaImage, o: &Outline) {
    let (w, h) = (img.width() as usize, img.height() as usize);
    if w == 0 || h == 0 {
        return;
    }
    let inside = o.side == OutlineSide::Inside;
    // Outside lines measure the distance to the silhouette; inside lines
    // the distance from it to the nearest pixel that is not silhouette
    // (the frame's border counts as empty).
    let target: Vec<bool> = img
        .pixels()
        .map(|p| (p[3] >= SILHOUETTE_ALPHA) != inside)
        .collect();
    // Only pixels within reach of the silhouette's box can change.
    let Some((x0, y0, x1, y1)) = bounds(img, o.width as usize + 1) else {
        return;
    };
    let d2 = distance2_in(&target, w, h, o.width, inside, (x0, y0, x1, y1));
    let reach = o.width as f32 + 0.5;
    let pixels: &mut [u8] = img;
    for (i, &dist2) in d2.iter().enumerate() {
        if target[i] || dist2 == u32::MAX {
            continue;
        }
        let d = (dist2 as f32).sqrt();
        let weight = if o.hard {
            if d <= o.width as f32 {
                1.0
            } else {
                0.0
            }
        } else {
            (reach - d).clamp(0.0, 1.0)
        };
        if weight <= 0.0 {
            continue;
        }
        let px = &mut pixels[i * 4..i * 4 + 4];
        let mut line = o.color;
        line[3] = (line[3] as f32 * weight).round() as u8;
        let cur = [px[0], px[1], px[2], px[3]];
        let out = if inside {
            // Painted over the model, keeping its coverage.
            let mut c = over_pixel(line, cur);
            c[3] = cur[3];
            c
        } else {
            over_pixel(cur, line)
        };
        px.copy_from_slice(&out);
    }
}

/// The box of pixels at least half covered, grown by `grow` and clipped to
/// the image; `None` when there are none.
fn bounds(img: &RgbaImage, grow: usize) -> Option<(usize, usize, usize, usize)> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
    for (i, p) in img.as_raw().chunks_exact(4).enumerate() {
        if p[3] >= SILHOUETTE_ALPHA {
            let (x, y) = (i % w, i / w);
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
    }
    if x0 == usize::MAX {
        return None;
    }
    Some((
        x0.saturating_sub(grow),
        y0.saturating_sub(grow),
        (x1 + grow).min(w - 1),
        (y1 + grow).min(h - 1),
    ))
}

/// Squared distance from each pixel of the box `(x0, y0, x1, y1)`
/// (inclusive) to the nearest `true` pixel, or `u32::MAX` beyond
/// `width + 1` and outside the box; `border_is_target` counts the pixels
/// around the image as `true`.
pub fn distance2_in(
    target: &[bool],
    w: usize,
    h: usize,
    width: u32,
    border_is_target: bool,
    (bx0, by0, bx1, by1): (usize, usize, usize, usize),
) -> Vec<u32> {
    let cap = width as usize + 1;
    // Per row: horizontal distance to the nearest target in that row.
    let mut row = vec![u32::MAX; w * h];
    for y in by0.saturating_sub(cap)..(by1 + cap + 1).min(h) {
        let line = &target[y * w..(y + 1) * w];
        let out = &mut row[y * w..(y + 1) * w];
        let mut last: Option<usize> = None;
        for x in 0..w {
            if line[x] {
                last = Some(x);
            }
            let d = match last {
                Some(l) => x - l,
                None if border_is_target => x + 1,
                None => usize::MAX,
            };
            if d <= cap {
                out[x] = d as u32;
            }
        }
        let mut next: Option<usize> = None;
        for x in (0..w).rev() {
            if line[x] {
                next = Some(x);
            }
            let d = match next {
                Some(n) => n - x,
                None if border_is_target => w - x,
                None => usize::MAX,
            };
            if d <= cap && (d as u32) < out[x] {
                out[x] = d as u32;
            }
        }
    }
    let mut d2 = vec![u32::MAX; w * h];
    if w == 0 || h == 0 {
        return d2;
    }
    for y in by0..=by1.min(h - 1) {
        for x in bx0..=bx1.min(w - 1) {
            if target[y * w + x] {
                d2[y * w + x] = 0;
                continue;
            }
            let mut best = u32::MAX;
            for dy in -(cap as i64)..=cap as i64 {
                let yy = y as i64 + dy;
                let dy2 = (dy * dy) as u32;
                if dy2 >= best {
                    continue;
                }
                let dx = if yy < 0 || yy >= h as i64 {
                    if border_is_target {
                        0
                    } else {
                        continue;
                    }
                } else {
                    row[yy as usize * w + x]
                };
                if dx != u32::MAX {
                    best = best.min(dy2 + dx * dx);
                }
            }
            d2[y * w + x] = best;
        }
    }
    d2
}
