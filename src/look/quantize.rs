//! Choosing N colours for a whole job: median cut over the exact colours
//! of every opaque pixel of every frame, so one palette serves every frame
//! and direction and an animation does not flicker between palettes.
//!
//! Deterministic by construction: the histogram is sorted before cutting,
//! the box to split is the one with the widest channel range (ties to the
//! most pixels, then the earliest box), and each cut falls at the
//! pixel-weighted median of that channel.

use super::palette::Palette;
use image::RgbaImage;
use rayon::prelude::*;

/// Bits kept per channel when counting colours: 32768 cells, each holding
/// its pixel count and channel sums, so the cut works on at most that many
/// entries and every chosen colour is an exact mean of real pixels.
const BITS: u32 = 5;
const CELLS: usize = 1 << (3 * BITS);

/// Per cell: pixels, and the sums of their red, green and blue.
#[derive(Clone)]
struct Cells(Vec<[u64; 4]>);

impl Cells {
    fn new() -> Cells {
        Cells(vec![[0; 4]; CELLS])
    }

    fn add(mut self, img: &RgbaImage) -> Cells {
        for p in img.as_raw().chunks_exact(4) {
            if p[3] >= super::dither::OPAQUE_FROM {
                let k = cell(p[0], p[1], p[2]);
                let c = &mut self.0[k];
                c[0] += 1;
                c[1] += p[0] as u64;
                c[2] += p[1] as u64;
                c[3] += p[2] as u64;
            }
        }
        self
    }

    fn merge(mut self, other: Cells) -> Cells {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            for k in 0..4 {
                a[k] += b[k];
            }
        }
        self
    }
}

fn cell(r: u8, g: u8, b: u8) -> usize {
    let s = 8 - BITS;
    ((r as usize >> s) << (2 * BITS)) | ((g as usize >> s) << BITS) | (b as usize >> s)
}

/// One histogram entry: the mean colour of a cell's pixels and their sums.
pub type Entry = ([u8; 3], [u64; 4]);

/// The colours of every pixel with alpha ≥ 128 of every frame, counted in
/// cells of 5 bits a channel (in parallel; integer sums, so the same on any
/// thread count), as the cells' mean colours with their sums, sorted.
pub fn histogram(frames: &[&RgbaImage]) -> Vec<Entry> {
    let cells = frames
        .par_iter()
        .fold(Cells::new, |acc, img| acc.add(img))
        .reduce(Cells::new, Cells::merge);
    let mut out: Vec<Entry> = cells
        .0
        .into_iter()
        .filter(|c| c[0] > 0)
        .map(|c| (mean(&[c]), c))
        .collect();
    out.sort_unstable();
    out
}

/// At most `n` colours (1..=256) representing `hist`; black when it is empty.
pub fn median_cut(hist: &[Entry], n: usize) -> Palette {
    let n = n.clamp(1, super::palette::MAX_COLORS);
    if hist.is_empty() {
        return Palette::new(&[[0, 0, 0]]).unwrap_or_else(|| unreachable!());
    }
    if hist.len() <= n {
        let colors: Vec<[u8; 3]> = hist.iter().map(|(c, _)| *c).collect();
        return Palette::new(&colors).unwrap_or_else(|| unreachable!());
    }
    let mut boxes: Vec<Vec<Entry>> = vec![hist.to_vec()];
    while boxes.len() < n {
        let mut pick: Option<(usize, usize, u8, u64)> = None;
        for (i, b) in boxes.iter().enumerate() {
            if b.len() < 2 {
                continue;
            }
            let (ch, range) = widest(b);
            let count: u64 = b.iter().map(|e| e.1[0]).sum();
            let better = match pick {
                None => true,
                Some((_, _, r, c)) => range > r || (range == r && count > c),
            };
            if better {
                pick = Some((i, ch, range, count));
            }
        }
        let Some((i, ch, _, total)) = pick else {
            break;
        };
        let mut b = std::mem::take(&mut boxes[i]);
        b.sort_by_key(|(c, _)| (c[ch], *c));
        let mut acc = 0u64;
        let mut cut = 1;
        for (k, e) in b.iter().enumerate() {
            acc += e.1[0];
            if acc * 2 >= total {
                cut = (k + 1).clamp(1, b.len() - 1);
                break;
            }
        }
        let rest = b.split_off(cut);
        boxes[i] = b;
        boxes.push(rest);
    }
    let mut colors: Vec<[u8; 3]> = boxes
        .iter()
        .map(|b| mean(&b.iter().map(|e| e.1).collect::<Vec<_>>()))
        .collect();
    colors.sort_unstable();
    Palette::new(&colors).unwrap_or_else(|| unreachable!())
}

/// The channel with the largest value range in `b`, and that range.
fn widest(b: &[Entry]) -> (usize, u8) {
    let mut best = (0, 0u8);
    for ch in 0..3 {
        let lo = b.iter().map(|e| e.0[ch]).min().unwrap_or(0);
        let hi = b.iter().map(|e| e.0[ch]).max().unwrap_or(0);
        if hi - lo > best.1 {
            best = (ch, hi - lo);
        }
    }
    best
}

/// The mean colour of the pixels counted in `sums` (count, r, g, b sums),
/// rounded.
fn mean(sums: &[[u64; 4]]) -> [u8; 3] {
    let total: u64 = sums.iter().map(|c| c[0]).sum::<u64>().max(1);
    let mut out = [0u8; 3];
    for (ch, o) in out.iter_mut().enumerate() {
        let s: u64 = sums.iter().map(|c| c[ch + 1]).sum();
        *o = ((s + total / 2) / total).min(255) as u8;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{histogram, median_cut};

    fn image(colors: &[([u8; 3], u32)]) -> image::RgbaImage {
        let n: u32 = colors.iter().map(|c| c.1).sum();
        let mut img = image::RgbaImage::new(n, 1);
        let mut x = 0;
        for (c, k) in colors {
            for _ in 0..*k {
                img.put_pixel(x, 0, image::Rgba([c[0], c[1], c[2], 255]));
                x += 1;
            }
        }
        img
    }

    #[test]
    fn few_colours_are_kept_exactly_and_many_are_cut() {
        let img = image(&[([0, 0, 0], 5), ([200, 0, 0], 1), ([255, 0, 0], 1)]);
        let hist = histogram(&[&img]);
        assert_eq!(
            median_cut(&hist, 4).colors(),
            &[[0, 0, 0], [200, 0, 0], [255, 0, 0]]
        );
        let two = median_cut(&hist, 2);
        assert_eq!(two.colors(), &[[0, 0, 0], [228, 0, 0]]);
        // Colours in one cell are counted as their mean.
        let close = image(&[([250, 0, 0], 1), ([255, 0, 0], 1)]);
        assert_eq!(
            median_cut(&histogram(&[&close]), 4).colors(),
            &[[253, 0, 0]]
        );
        let ramp = image(&(0..=255u8).map(|v| ([v, v, v], 1)).collect::<Vec<_>>());
        let four = median_cut(&histogram(&[&ramp]), 4);
        assert_eq!(four.colors().len(), 4);
        assert_eq!(four, median_cut(&histogram(&[&ramp, &ramp]), 4));
    }
}
