//! kiln's colour quantizer: one palette of at most 255 colours over many
//! frames, index 0 left for transparency, so a colour keeps its index from
//! frame to frame and nothing flickers. A set of frames with at most 255
//! distinct opaque colours keeps them exactly; otherwise a median cut over
//! the colour histogram (weighted by pixel count, widest channel first)
//! picks them. Every step is deterministic (sorted histograms, ties broken
//! by position), so the same frames give the same palette on any thread.
//!
//! Mapping is exact for every colour seen while building; optional
//! Floyd–Steinberg dithering spreads the error to the right and below, in
//! a fixed scan order.

use image::RgbaImage;

/// Palette index of transparent pixels.
pub const TRANSPARENT: u8 = 0;
/// Most opaque colours in a palette (index 0 is transparency).
pub const MAX_COLORS: usize = 255;

/// A palette with index 0 transparent and `colors[i]` at index `i + 1`,
/// plus the mapping from every opaque colour seen to its index.
#[derive(Debug, Clone, PartialEq)]
pub struct Palette {
    /// The opaque colours, index 1 on.
    pub colors: Vec<[u8; 3]>,
    /// Pixels with less alpha are transparent.
    pub alpha_cutoff: u8,
    /// `(0xRRGGBB, index)`, sorted by colour, for binary search.
    lookup: Vec<(u32, u8)>,
}

impl Palette {
    /// One palette over every pixel of `frames` with alpha ≥ `alpha_cutoff`.
    pub fn build(frames: &[&RgbaImage], alpha_cutoff: u8) -> Palette {
        let mut all: Vec<u32> = Vec::new();
        for f in frames {
            all.extend(
                f.pixels()
                    .filter(|p| p.0[3] >= alpha_cutoff)
                    .map(|p| pack(p.0)),
            );
        }
        all.sort_unstable();
        let mut hist: Vec<(u32, u64)> = Vec::new();
        for c in all {
            match hist.last_mut() {
                Some((last, n)) if *last == c => *n += 1,
                _ => hist.push((c, 1)),
            }
        }
        let (colors, mut lookup) = if hist.len() <= MAX_COLORS {
            let colors = hist.iter().map(|&(c, _)| unpack(c)).collect();
            let lookup = hist
                .iter()
                .enumerate()
                .map(|(i, &(c, _))| (c, (i + 1) as u8))
                .collect();
            (colors, lookup)
        } else {
            median_cut(&mut hist, MAX_COLORS)
        };
        lookup.sort_unstable_by_key(|e| e.0);
        Palette {
            colors,
            alpha_cutoff,
            lookup,
        }
    }

    /// The index of a pixel: 0 below the alpha cutoff, the colour's own
    /// entry when it was seen while building, else the nearest.
    pub fn index_of(&self, px: [u8; 4]) -> u8 {
        if px[3] < self.alpha_cutoff {
            return TRANSPARENT;
        }
        let key = pack(px);
        match self.lookup.binary_search_by_key(&key, |e| e.0) {
            Ok(i) => self.lookup[i].1,
            Err(_) => self.nearest([px[0] as i32, px[1] as i32, px[2] as i32]),
        }
    }

    /// The colour of index `i` (`None` for 0 and past the end).
    pub fn color(&self, i: u8) -> Option<[u8; 3]> {
        (i as usize)
            .checked_sub(1)
            .and_then(|i| self.colors.get(i).copied())
    }

    /// Index (1-based) of the entry nearest `c`; ties go to the lower index.
    fn nearest(&self, c: [i32; 3]) -> u8 {
        let mut best = (i64::MAX, 0usize);
        for (i, p) in self.colors.iter().enumerate() {
            let d = |a: i32, b: u8| ((a - b as i32) as i64).pow(2);
            let dist = d(c[0], p[0]) + d(c[1], p[1]) + d(c[2], p[2]);
            if dist < best.0 {
                best = (dist, i);
            }
        }
        (best.1 + 1) as u8
    }

    /// `image` as palette indices, row by row; with `dither`, each opaque
    /// pixel's error goes on to its opaque neighbours (7/16 right, 3/16
    /// below left, 5/16 below, 1/16 below right).
    pub fn map(&self, image: &RgbaImage, dither: bool) -> Vec<u8> {
        if !dither {
            return image.pixels().map(|p| self.index_of(p.0)).collect();
        }
        let (w, h) = (image.width() as usize, image.height() as usize);
        let mut err = vec![[0i32; 3]; w * h];
        let mut out = vec![TRANSPARENT; w * h];
        for y in 0..h {
            for x in 0..w {
                let px = image.get_pixel(x as u32, y as u32).0;
                if px[3] < self.alpha_cutoff {
                    continue;
                }
                let e = err[y * w + x];
                // Errors are kept in 1/16 units.
                let want = [0, 1, 2].map(|c| (px[c] as i32 * 16 + e[c]).clamp(0, 255 * 16) / 16);
                let i = if e == [0; 3] {
                    self.index_of(px)
                } else {
                    self.nearest(want)
                };
                out[y * w + x] = i;
                let got = self.color(i).unwrap_or([0; 3]);
                let diff = [0, 1, 2].map(|c| want[c] - got[c] as i32);
                let mut spread = |dx: isize, dy: usize, k: i32| {
                    let nx = x as isize + dx;
                    let ny = y + dy;
                    if nx < 0 || nx >= w as isize || ny >= h {
                        return;
                    }
                    let n = ny * w + nx as usize;
                    if image.get_pixel(nx as u32, ny as u32).0[3] < self.alpha_cutoff {
                        return;
                    }
                    for c in 0..3 {
                        err[n][c] += diff[c] * k;
                    }
                };
                spread(1, 0, 7);
                spread(-1, 1, 3);
                spread(0, 1, 5);
                spread(1, 1, 1);
            }
        }
        out
    }
}

fn pack(px: [u8; 4]) -> u32 {
    (px[0] as u32) << 16 | (px[1] as u32) << 8 | px[2] as u32
}

fn unpack(c: u32) -> [u8; 3] {
    [(c >> 16) as u8, (c >> 8) as u8, c as u8]
}

/// Splits the colour histogram into at most `k` boxes, the widest and most
/// populous first. Returns each box's pixel-weighted mean and, for every
/// histogram colour, the palette index (1-based) of its box. Reorders
/// `hist`.
#[allow(clippy::type_complexity)]
fn median_cut(hist: &mut [(u32, u64)], k: usize) -> (Vec<[u8; 3]>, Vec<(u32, u8)>) {
    #[derive(Clone, Copy)]
    struct Box {
        start: usize,
        end: usize,
        channel: usize,
        score: u128,
    }
    let channel = |c: u32, ch: usize| ((c >> (16 - 8 * ch)) & 0xff) as u8;
    let make = |h: &[(u32, u64)], start: usize, end: usize| -> Box {
        let mut lo = [255u8; 3];
        let mut hi = [0u8; 3];
        let mut n = 0u64;
        for &(c, w) in &h[start..end] {
            for ch in 0..3 {
                let v = channel(c, ch);
                lo[ch] = lo[ch].min(v);
                hi[ch] = hi[ch].max(v);
            }
            n += w;
        }
        let ranges = [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]];
        // Ties go to the first channel (R, G, B) so the cut is reproducible.
        let mut best = 0;
        for ch in 1..3 {
            if ranges[ch] > ranges[best] {
                best = ch;
            }
        }
        let splittable = end - start >= 2 && ranges[best] > 0;
        Box {
            start,
            end,
            channel: best,
            score: if splittable {
                ranges[best] as u128 * n as u128
            } else {
                0
            },
        }
    };
    let mut boxes = vec![make(hist, 0, hist.len())];
    while boxes.len() < k {
        let mut pick: Option<usize> = None;
        for (i, b) in boxes.iter().enumerate() {
            if b.score > 0 && pick.is_none_or(|p| b.score > boxes[p].score) {
                pick = Some(i);
            }
        }
        let Some(i) = pick else { break };
        let Box {
            start,
            end,
            channel: ch,
            ..
        } = boxes[i];
        // The weighted median of the widest channel from a 256-bin
        // histogram, then a stable partition around it.
        let slice = &mut hist[start..end];
        let mut bins = [0u64; 256];
        for &(c, w) in slice.iter() {
            bins[channel(c, ch) as usize] += w;
        }
        let total: u64 = bins.iter().sum();
        let mut acc = 0u64;
        let mut median = 0usize;
        for (v, &n) in bins.iter().enumerate() {
            acc += n;
            if acc * 2 >= total {
                median = v;
                break;
            }
        }
        let max = slice
            .iter()
            .map(|&(c, _)| channel(c, ch))
            .max()
            .unwrap_or(0) as usize;
        // Values ≤ median go left, unless that is every value (median at
        // the top), in which case values < median do; the box's range > 0
        // makes both sides non-empty either way.
        let pivot = if median >= max { median - 1 } else { median };
        let mut left = Vec::with_capacity(slice.len());
        let mut right = Vec::with_capacity(slice.len());
        for &e in slice.iter() {
            if channel(e.0, ch) as usize <= pivot {
                left.push(e);
            } else {
                right.push(e);
            }
        }
        let cut = left.len();
        slice[..cut].copy_from_slice(&left);
        slice[cut..].copy_from_slice(&right);
        boxes[i] = make(hist, start, start + cut);
        boxes.insert(i + 1, make(hist, start + cut, end));
    }
    let mut colors = Vec::with_capacity(boxes.len());
    let mut lookup = Vec::with_capacity(hist.len());
    for (bi, b) in boxes.iter().enumerate() {
        let mut sum = [0u64; 3];
        let mut n = 0u64;
        for &(c, w) in &hist[b.start..b.end] {
            for (ch, s) in sum.iter_mut().enumerate() {
                *s += channel(c, ch) as u64 * w;
            }
            n += w;
            lookup.push((c, (bi + 1) as u8));
        }
        let n = n.max(1);
        colors.push(sum.map(|s| ((s + n / 2) / n) as u8));
    }
    (colors, lookup)
}
