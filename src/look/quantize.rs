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
use std::collections::HashMap;

/// Counts of each RGB colour among pixels with alpha ≥ 128, sorted by colour.
pub fn histogram<'a>(frames: impl Iterator<Item = &'a RgbaImage>) -> Vec<([u8; 3], u64)> {
    let mut counts: HashMap<[u8; 3], u64> = HashMap::new();
    for img in frames {
        for p in img.pixels() {
            if p[3] >= super::dither::OPAQUE_FROM {
                *counts.entry([p[0], p[1], p[2]]).or_insert(0) += 1;
            }
        }
    }
    let mut out: Vec<([u8; 3], u64)> = counts.into_iter().collect();
    out.sort_unstable();
    out
}

/// At most `n` colours (1..=256) representing `hist`; black when it is empty.
pub fn median_cut(hist: &[([u8; 3], u64)], n: usize) -> Palette {
    let n = n.clamp(1, super::palette::MAX_COLORS);
    if hist.is_empty() {
        return Palette::new(&[[0, 0, 0]]).unwrap_or_else(|| unreachable!());
    }
    if hist.len() <= n {
        let colors: Vec<[u8; 3]> = hist.iter().map(|(c, _)| *c).collect();
        return Palette::new(&colors).unwrap_or_else(|| unreachable!());
    }
    let mut boxes: Vec<Vec<([u8; 3], u64)>> = vec![hist.to_vec()];
    while boxes.len() < n {
        let mut pick: Option<(usize, usize, u8, u64)> = None;
        for (i, b) in boxes.iter().enumerate() {
            if b.len() < 2 {
                continue;
            }
            let (ch, range) = widest(b);
            let count: u64 = b.iter().map(|e| e.1).sum();
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
            acc += e.1;
            if acc * 2 >= total {
                cut = (k + 1).clamp(1, b.len() - 1);
                break;
            }
        }
        let rest = b.split_off(cut);
        boxes[i] = b;
        boxes.push(rest);
    }
    let mut colors: Vec<[u8; 3]> = boxes.iter().map(|b| mean(b)).collect();
    colors.sort_unstable();
    Palette::new(&colors).unwrap_or_else(|| unreachable!())
}

/// The channel with the largest value range in `b`, and that range.
fn widest(b: &[([u8; 3], u64)]) -> (usize, u8) {
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

/// The pixel-weighted mean colour of a box, rounded.
fn mean(b: &[([u8; 3], u64)]) -> [u8; 3] {
    let total: u64 = b.iter().map(|e| e.1).sum::<u64>().max(1);
    let mut out = [0u8; 3];
    for (ch, o) in out.iter_mut().enumerate() {
        let s: u64 = b.iter().map(|e| e.0[ch] as u64 * e.1).sum();
        *o = ((s + total / 2) / total).min(255) as u8;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::median_cut;

    #[test]
    fn few_colours_are_kept_exactly_and_many_are_cut() {
        let hist = vec![([0, 0, 0], 5), ([250, 0, 0], 1), ([255, 0, 0], 1)];
        assert_eq!(median_cut(&hist, 4).colors().len(), 3);
        let two = median_cut(&hist, 2);
        assert_eq!(two.colors(), &[[0, 0, 0], [253, 0, 0]]);
        let ramp: Vec<([u8; 3], u64)> = (0..=255u8).map(|v| ([v, v, v], 1)).collect();
        let four = median_cut(&ramp, 4);
        assert_eq!(four.colors().len(), 4);
        assert_eq!(four, median_cut(&ramp, 4));
    }
}
