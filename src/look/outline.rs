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
    // Only pixels within reach of the silhouette's box can change, so the
    // work is done in that box. Outside it every pixel is empty: no target
    // for outside lines, a target for inside lines (as the frame's border
    // is), which gives every pixel in the box the distance the whole frame
    // would.
    let Some((x0, y0, x1, y1)) = bounds(img, o.width as usize + 1) else {
        return;
    };
    let (bw, bh) = (x1 - x0 + 1, y1 - y0 + 1);
    let pixels: &mut [u8] = img;
    let stride = w * 4;
    // Outside lines measure the distance to the silhouette; inside lines
    // the distance from it to the nearest pixel that is not silhouette.
    let mut target = Vec::with_capacity(bw * bh);
    for y in y0..=y1 {
        let row = &pixels[y * stride + x0 * 4..y * stride + (x1 + 1) * 4];
        target.extend(
            row.chunks_exact(4)
                .map(|p| (p[3] >= SILHOUETTE_ALPHA) != inside),
        );
    }
    let d2 = distance2(&target, bw, bh, o.width, inside);
    for (i, &dist2) in d2.iter().enumerate() {
        if target[i] || dist2 == u32::MAX {
            continue;
        }
        let weight = line_weight(o, dist2);
        if weight <= 0.0 {
            continue;
        }
        let at = (y0 + i / bw) * stride + (x0 + i % bw) * 4;
        let px = &mut pixels[at..at + 4];
        let line = with_alpha(o.color, weight);
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

/// Draws `o`'s inner lines on `img`: on the far side of every depth edge,
/// within `o.width` pixels of it. A depth edge is a pixel of `depth` (the
/// frame's depth pass, nearer = larger) nearer than one of its four
/// neighbours by more than `jump` (a fraction of the pass's range); a
/// pixel gets the line when it is that close to an edge pixel and farther
/// than it by more than `jump` too, so lines hug the part in front and
/// never cross it. Painted over the model, keeping its coverage.
pub fn apply_inner(img: &mut RgbaImage, depth: &RgbaImage, o: &Outline, jump: f32) {
    let (w, h) = (img.width() as usize, img.height() as usize);
    if depth.dimensions() != img.dimensions() || w == 0 || h == 0 {
        return;
    }
    let step = (jump.clamp(0.0, 1.0) * 65535.0).round() as i32;
    let z: Vec<i32> = depth
        .pixels()
        .map(|p| {
            if p[3] == 0 {
                -1
            } else {
                (p[0] as i32) << 8 | p[1] as i32
            }
        })
        .collect();
    let reach = o.width as i64 + 1;
    let mut d2 = vec![u32::MAX; w * h];
    for y in 0..h {
        for x in 0..w {
            let zq = z[y * w + x];
            if zq < 0 {
                continue;
            }
            let far_side = |p: usize| z[p] >= 0 && z[p] < zq - step;
            let edge = (x > 0 && far_side(y * w + x - 1))
                || (x + 1 < w && far_side(y * w + x + 1))
                || (y > 0 && far_side((y - 1) * w + x))
                || (y + 1 < h && far_side((y + 1) * w + x));
            if !edge {
                continue;
            }
            for dy in -reach..=reach {
                let yy = y as i64 + dy;
                if yy < 0 || yy >= h as i64 {
                    continue;
                }
                for dx in -reach..=reach {
                    let xx = x as i64 + dx;
                    if xx < 0 || xx >= w as i64 {
                        continue;
                    }
                    let p = yy as usize * w + xx as usize;
                    if far_side(p) {
                        d2[p] = d2[p].min((dx * dx + dy * dy) as u32);
                    }
                }
            }
        }
    }
    let pixels: &mut [u8] = img;
    for (i, &dist2) in d2.iter().enumerate() {
        if dist2 == u32::MAX {
            continue;
        }
        let weight = line_weight(o, dist2);
        if weight <= 0.0 {
            continue;
        }
        let px = &mut pixels[i * 4..i * 4 + 4];
        let cur = [px[0], px[1], px[2], px[3]];
        let mut c = over_pixel(with_alpha(o.color, weight), cur);
        c[3] = cur[3];
        px.copy_from_slice(&c);
    }
}

/// How much of the line colour a pixel `dist2` (squared pixels) from the
/// line's source takes: all within `width` on hard lines, else a one-pixel
/// anti-aliased fall-off past it.
fn line_weight(o: &Outline, dist2: u32) -> f32 {
    let d = (dist2 as f32).sqrt();
    if o.hard {
        if d <= o.width as f32 {
            1.0
        } else {
            0.0
        }
    } else {
        (o.width as f32 + 0.5 - d).clamp(0.0, 1.0)
    }
}

fn with_alpha(mut c: [u8; 4], weight: f32) -> [u8; 4] {
    c[3] = (c[3] as f32 * weight).round() as u8;
    c
}

/// The box of pixels at least half covered, grown by `grow` and clipped to
/// the image; `None` when there are none.
fn bounds(img: &RgbaImage, grow: usize) -> Option<(usize, usize, usize, usize)> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
    for (y, row) in img.as_raw().chunks_exact(w * 4).enumerate() {
        let covered = |p: &[u8]| p[3] >= SILHOUETTE_ALPHA;
        let Some(first) = row.chunks_exact(4).position(covered) else {
            continue;
        };
        let last = row.chunks_exact(4).rposition(covered).unwrap_or(first);
        x0 = x0.min(first);
        x1 = x1.max(last);
        y0 = y0.min(y);
        y1 = y;
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

/// Squared distance from each pixel of the `w × h` plane to the nearest
/// `true` pixel, or `u32::MAX` beyond `width + 1`; `border_is_target`
/// counts the pixels around the plane as `true`. A row pass finds each
/// pixel's horizontal distance in its row, then each pixel takes the least
/// `dy² + dx²` over the rows within reach — done a whole row at a time, so
/// the inner loop is branch-free.
pub fn distance2(
    target: &[bool],
    w: usize,
    h: usize,
    width: u32,
    border_is_target: bool,
) -> Vec<u32> {
    let cap = width as usize + 1;
    // Farther than anything within reach, small enough that adding dy²
    // cannot overflow.
    const FAR: u32 = 1 << 24;
    // Per row: squared horizontal distance to the nearest target in it.
    let mut row = vec![FAR; w * h];
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
                out[x] = (d * d) as u32;
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
            if d <= cap {
                out[x] = out[x].min((d * d) as u32);
            }
        }
    }
    let border = if border_is_target { 0 } else { FAR };
    let mut d2 = vec![FAR; w * h];
    for y in 0..h {
        let best = &mut d2[y * w..(y + 1) * w];
        for dy in -(cap as i64)..=cap as i64 {
            let yy = y as i64 + dy;
            let dy2 = (dy * dy) as u32;
            if yy < 0 || yy >= h as i64 {
                for b in best.iter_mut() {
                    *b = (*b).min(dy2 + border);
                }
                continue;
            }
            let from = &row[yy as usize * w..(yy as usize + 1) * w];
            for (b, &r) in best.iter_mut().zip(from) {
                *b = (*b).min(dy2 + r);
            }
        }
        for b in best.iter_mut() {
            if *b >= FAR {
                *b = u32::MAX;
            }
        }
    }
    d2
}
