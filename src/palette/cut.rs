//! Choosing at most N colours for many frames: a colour histogram, then a
//! median cut over it, so one palette serves every frame and direction and
//! an animation does not flicker between palettes.
//!
//! Deterministic by construction: histograms are sorted before cutting,
//! the box to split is the one with the highest score (ties to the earliest
//! box), each box's widest channel is the first of R, G, B with the largest
//! range, and every colour is the rounded pixel-weighted mean of its box.

use image::RgbaImage;
use rayon::prelude::*;
use std::ops::Range;

/// One histogram entry: a colour and the sums of the pixels it stands for
/// (count, red, green, blue), so a box's colour is an exact mean of real
/// pixels whatever the entries are.
pub type Entry = ([u8; 3], [u64; 4]);

/// How a box is chosen and where it is cut. Indexed images (GIF, RO
/// sprites) and pixel-art looks have always cut differently and their
/// output bytes are fixed by reviewed goldens, so both rules stay; the loop,
/// the channel choice and the means are shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The box with the largest range × pixels; cut after the median value,
    /// so equal channel values stay together; boxes kept in colour order.
    Indexed,
    /// The box with the largest range, then the most pixels; cut after the
    /// median entry; boxes in the order they were made, the colours sorted.
    Look,
}

/// Bits kept per channel when a look counts colours: 32768 cells, so the
/// cut works on at most that many entries.
const CELL_BITS: u32 = 5;
const CELLS: usize = 1 << (3 * CELL_BITS);

/// Every distinct colour of the pixels with alpha ≥ `alpha_cutoff`, with
/// its count, sorted.
pub fn exact_histogram(frames: &[&RgbaImage], alpha_cutoff: u8) -> Vec<Entry> {
    let mut all: Vec<u32> = Vec::new();
    for f in frames {
        all.extend(
            f.pixels()
                .filter(|p| p.0[3] >= alpha_cutoff)
                .map(|p| pack(p.0)),
        );
    }
    all.sort_unstable();
    let mut hist: Vec<Entry> = Vec::new();
    for c in all {
        let rgb = unpack(c);
        match hist.last_mut() {
            Some((last, sums)) if *last == rgb => add(sums, rgb, 1),
            _ => {
                let mut sums = [0; 4];
                add(&mut sums, rgb, 1);
                hist.push((rgb, sums));
            }
        }
    }
    hist
}

/// The colours of every pixel with alpha ≥ `alpha_cutoff` of every frame,
/// counted in cells of 5 bits a channel (in parallel; integer sums, so the
/// same on any thread count), as the cells' mean colours with their sums,
/// sorted.
pub fn cell_histogram(frames: &[&RgbaImage], alpha_cutoff: u8) -> Vec<Entry> {
    let count = |mut cells: Vec<[u64; 4]>, img: &&RgbaImage| {
        for p in img.as_raw().chunks_exact(4) {
            if p[3] >= alpha_cutoff {
                add(&mut cells[cell(p[0], p[1], p[2])], [p[0], p[1], p[2]], 1);
            }
        }
        cells
    };
    let merge = |mut a: Vec<[u64; 4]>, b: Vec<[u64; 4]>| {
        for (a, b) in a.iter_mut().zip(b) {
            for k in 0..4 {
                a[k] += b[k];
            }
        }
        a
    };
    let empty = || vec![[0u64; 4]; CELLS];
    let cells = frames.par_iter().fold(empty, count).reduce(empty, merge);
    let mut out: Vec<Entry> = cells
        .into_iter()
        .filter(|c| c[0] > 0)
        .map(|c| (mean(&[c]), c))
        .collect();
    out.sort_unstable();
    out
}

fn add(sums: &mut [u64; 4], c: [u8; 3], n: u64) {
    sums[0] += n;
    for k in 0..3 {
        sums[k + 1] += c[k] as u64 * n;
    }
}

fn cell(r: u8, g: u8, b: u8) -> usize {
    let s = 8 - CELL_BITS;
    ((r as usize >> s) << (2 * CELL_BITS)) | ((g as usize >> s) << CELL_BITS) | (b as usize >> s)
}

/// `0xRRGGBB`.
pub(super) fn pack(px: [u8; 4]) -> u32 {
    (px[0] as u32) << 16 | (px[1] as u32) << 8 | px[2] as u32
}

fn unpack(c: u32) -> [u8; 3] {
    [(c >> 16) as u8, (c >> 8) as u8, c as u8]
}

/// The mean colour of the pixels counted in `sums`, rounded.
fn mean(sums: &[[u64; 4]]) -> [u8; 3] {
    let total: u64 = sums.iter().map(|c| c[0]).sum::<u64>().max(1);
    let mut out = [0u8; 3];
    for (ch, o) in out.iter_mut().enumerate() {
        let s: u64 = sums.iter().map(|c| c[ch + 1]).sum();
        *o = ((s + total / 2) / total).min(255) as u8;
    }
    out
}

/// One colour of a cut: the mean of `hist[entries]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The colour.
    pub color: [u8; 3],
    /// The histogram entries it stands for (in the reordered histogram).
    pub entries: Range<usize>,
}

/// At most `cap` colours (at least 1) standing for `hist`, in palette
/// order; `hist` is reordered so each colour's entries are contiguous.
/// When the entries fit, each is its own colour, in histogram order.
pub fn median_cut(hist: &mut [Entry], cap: usize, rule: Rule) -> Vec<Cut> {
    let cap = cap.max(1);
    if hist.len() <= cap {
        return (0..hist.len())
            .map(|i| Cut {
                color: hist[i].0,
                entries: i..i + 1,
            })
            .collect();
    }
    let mut boxes = vec![Box::new(hist, 0..hist.len(), rule)];
    while boxes.len() < cap {
        let mut pick: Option<usize> = None;
        for (i, b) in boxes.iter().enumerate() {
            if b.score > 0 && pick.is_none_or(|p| b.score > boxes[p].score) {
                pick = Some(i);
            }
        }
        let Some(i) = pick else { break };
        let Box { range, channel, .. } = boxes[i].clone();
        let slice = &mut hist[range.clone()];
        slice.sort_unstable_by_key(|e| (e.0[channel], e.0));
        let cut = range.start + split(slice, channel, rule);
        boxes[i] = Box::new(hist, range.start..cut, rule);
        let right = Box::new(hist, cut..range.end, rule);
        match rule {
            Rule::Indexed => boxes.insert(i + 1, right),
            Rule::Look => boxes.push(right),
        }
    }
    let mut cuts: Vec<Cut> = boxes
        .into_iter()
        .map(|b| Cut {
            color: mean(
                &hist[b.range.clone()]
                    .iter()
                    .map(|e| e.1)
                    .collect::<Vec<_>>(),
            ),
            entries: b.range,
        })
        .collect();
    if rule == Rule::Look {
        cuts.sort_unstable_by_key(|c| c.color);
    }
    cuts
}

/// Where a box sorted by `channel` is cut (1..len).
fn split(sorted: &[Entry], channel: usize, rule: Rule) -> usize {
    let total: u64 = sorted.iter().map(|e| e.1[0]).sum();
    let mut acc = 0u64;
    let mut at = 0;
    for (k, e) in sorted.iter().enumerate() {
        acc += e.1[0];
        if acc * 2 >= total {
            at = k;
            break;
        }
    }
    match rule {
        Rule::Look => (at + 1).clamp(1, sorted.len() - 1),
        Rule::Indexed => {
            // Values ≤ the median go left, unless that is every value (the
            // median at the top), in which case values < it do; the box's
            // range > 0 makes both sides non-empty either way.
            let median = sorted[at].0[channel];
            let max = sorted[sorted.len() - 1].0[channel];
            let left = |e: &Entry| {
                if median >= max {
                    e.0[channel] < median
                } else {
                    e.0[channel] <= median
                }
            };
            sorted.iter().take_while(|e| left(e)).count()
        }
    }
}

#[derive(Clone)]
struct Box {
    range: Range<usize>,
    channel: usize,
    /// 0 when the box cannot be split.
    score: u128,
}

impl Box {
    fn new(hist: &[Entry], range: Range<usize>, rule: Rule) -> Box {
        let entries = &hist[range.clone()];
        let mut lo = [255u8; 3];
        let mut hi = [0u8; 3];
        let mut n = 0u64;
        for (c, sums) in entries {
            for ch in 0..3 {
                lo[ch] = lo[ch].min(c[ch]);
                hi[ch] = hi[ch].max(c[ch]);
            }
            n += sums[0];
        }
        let ranges = [0, 1, 2].map(|ch| hi[ch].saturating_sub(lo[ch]));
        let mut channel = 0;
        for ch in 1..3 {
            if ranges[ch] > ranges[channel] {
                channel = ch;
            }
        }
        let range_ = ranges[channel] as u128;
        let score = if entries.len() < 2 || range_ == 0 {
            0
        } else {
            match rule {
                Rule::Indexed => range_ * n as u128,
                Rule::Look => range_ << 64 | n as u128,
            }
        };
        Box {
            range,
            channel,
            score,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{cell_histogram, median_cut, Rule};

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

    fn look(img: &[&image::RgbaImage], n: usize) -> Vec<[u8; 3]> {
        let mut hist = cell_histogram(img, 128);
        median_cut(&mut hist, n, Rule::Look)
            .iter()
            .map(|c| c.color)
            .collect()
    }

    #[test]
    fn few_colours_are_kept_exactly_and_many_are_cut() {
        let img = image(&[([0, 0, 0], 5), ([200, 0, 0], 1), ([255, 0, 0], 1)]);
        assert_eq!(look(&[&img], 4), &[[0, 0, 0], [200, 0, 0], [255, 0, 0]]);
        assert_eq!(look(&[&img], 2), &[[0, 0, 0], [228, 0, 0]]);
        // Colours in one cell are counted as their mean.
        let close = image(&[([250, 0, 0], 1), ([255, 0, 0], 1)]);
        assert_eq!(look(&[&close], 4), &[[253, 0, 0]]);
        let ramp = image(&(0..=255u8).map(|v| ([v, v, v], 1)).collect::<Vec<_>>());
        let four = look(&[&ramp], 4);
        assert_eq!(four.len(), 4);
        assert_eq!(four, look(&[&ramp, &ramp], 4));
    }
}
