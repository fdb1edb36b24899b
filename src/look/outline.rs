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
    let d2 = distance2(&target, w, h, o.width, inside);
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

/// Squared distance from each pixel to the nearest `true` pixel, or
/// `u32::MAX` beyond `width + 1`; `border_is_target` counts the pixels
/// around the image as `true`.
pub fn distance2(
    target: &[bool],
    w: usize,
    h: usize,
    width: u32,
    border_is_target: bool,
) -> Vec<u32> {
    let cap = width as usize + 1;
    // Per row: horizontal distance to the nearest target in that row.
    let mut row = vec![u32::MAX; w * h];
    for y in 0..h {
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
    for y in 0..h {
        for x in 0..w {
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
