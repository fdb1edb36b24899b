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
#[derive(Debug, Clone)]
pub struct Palette {
    /// The opaque colours, index 1 on.
    pub colors: Vec<[u8; 3]>,
    /// Pixels with less alpha are transparent.
    pub alpha_cutoff: u8,
    /// Every opaque colour seen while building, and its index.
    seen: SeenColors,
    /// The nearest entry to a colour not seen while building, made on
    /// first use: mapping the frames a palette was built from without
    /// dithering never asks, and making it costs as much as mapping a
    /// dozen 128² frames.
    near: std::sync::OnceLock<Nearest>,
}

/// Equal palettes have the same colours, cutoff and mapping; whether the
/// search for unseen colours (made from the colours) exists yet does not
/// matter.
impl PartialEq for Palette {
    fn eq(&self, other: &Palette) -> bool {
        self.colors == other.colors
            && self.alpha_cutoff == other.alpha_cutoff
            && self.seen == other.seen
    }
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
        // Sorted, so the same mapping always fills the same slots and
        // equal palettes compare equal.
        lookup.sort_unstable_by_key(|e| e.0);
        Palette {
            seen: SeenColors::new(&lookup),
            near: std::sync::OnceLock::new(),
            colors,
            alpha_cutoff,
        }
    }

    /// The index of a pixel: 0 below the alpha cutoff, the colour's own
    /// entry when it was seen while building, else the nearest.
    pub fn index_of(&self, px: [u8; 4]) -> u8 {
        if px[3] < self.alpha_cutoff {
            return TRANSPARENT;
        }
        match self.seen.get(pack(px)) {
            Some(i) => i,
            None => self.nearest([px[0] as i32, px[1] as i32, px[2] as i32]),
        }
    }

    /// The colour of index `i` (`None` for 0 and past the end).
    pub fn color(&self, i: u8) -> Option<[u8; 3]> {
        (i as usize)
            .checked_sub(1)
            .and_then(|i| self.colors.get(i).copied())
    }

    /// Index (1-based) of the entry nearest `c` (each channel 0..=255);
    /// ties go to the lower index.
    fn nearest(&self, c: [i32; 3]) -> u8 {
        let near = self.near.get_or_init(|| Nearest::new(&self.colors));
        (near.index(c.map(|v| v.clamp(0, 255) as u8)) + 1) as u8
    }

    /// `image` as palette indices, row by row; with `dither`, each opaque
    /// pixel's error goes on to its opaque neighbours (7/16 right, 3/16
    /// below left, 5/16 below, 1/16 below right).
    pub fn map(&self, image: &RgbaImage, dither: bool) -> Vec<u8> {
        if !dither {
            // Sprites come in runs of one colour (the clear background
            // above all): a pixel equal to the one before takes its index
            // without a search.
            let mut last: Option<([u8; 4], u8)> = None;
            return image
                .pixels()
                .map(|p| match last {
                    Some((px, i)) if px == p.0 => i,
                    _ => {
                        let i = self.index_of(p.0);
                        last = Some((p.0, i));
                        i
                    }
                })
                .collect();
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

/// Exact nearest-colour search over a fixed list of colours (squared RGB
/// distance, ties to the lower index), answered from a grid: each of the
/// 16³ cells of the colour cube keeps the few colours that can be nearest
/// to some point in it, so a lookup compares against those instead of the
/// whole list. A colour `c` can be nearest in a cell only if its least
/// distance to the cell is at most the least, over every colour, of the
/// greatest distance to the cell — the pruning keeps every colour that
/// could win or tie, so the answer is the linear search's, bit for bit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nearest {
    colors: Vec<[u8; 3]>,
    /// Per cell: where its candidates start in `candidates`, and how many.
    cells: Vec<(u32, u16)>,
    /// Candidate indices, cell after cell, each cell's in ascending order.
    candidates: Vec<u8>,
}

/// Values per grid cell along a channel.
const CELL: i32 = 16;
const CELLS_PER_AXIS: usize = 256 / CELL as usize;

impl Nearest {
    /// The search over `colors` (at most 256; any beyond are ignored).
    pub fn new(colors: &[[u8; 3]]) -> Nearest {
        let colors: Vec<[u8; 3]> = colors.iter().take(256).copied().collect();
        let n = CELLS_PER_AXIS;
        let mut cells = Vec::with_capacity(n * n * n);
        let mut candidates = Vec::new();
        let mut far = vec![0i32; colors.len()];
        let mut near = vec![0i32; colors.len()];
        for r in 0..n {
            for g in 0..n {
                for b in 0..n {
                    let lo = [r, g, b].map(|v| v as i32 * CELL);
                    let hi = lo.map(|v| v + CELL - 1);
                    let mut bound = i32::MAX;
                    for (i, c) in colors.iter().enumerate() {
                        let (mut dn, mut df) = (0, 0);
                        for k in 0..3 {
                            let v = c[k] as i32;
                            let below = (lo[k] - v).max(0);
                            let above = (v - hi[k]).max(0);
                            dn += (below + above).pow(2);
                            df += (v - lo[k]).abs().max((v - hi[k]).abs()).pow(2);
                        }
                        near[i] = dn;
                        far[i] = df;
                        bound = bound.min(df);
                    }
                    let start = candidates.len() as u32;
                    candidates.extend(
                        (0..colors.len())
                            .filter(|&i| near[i] <= bound)
                            .map(|i| i as u8),
                    );
                    cells.push((start, (candidates.len() as u32 - start) as u16));
                }
            }
        }
        Nearest {
            colors,
            cells,
            candidates,
        }
    }

    /// Index of the colour nearest `c` (0 when there are no colours).
    #[inline]
    pub fn index(&self, c: [u8; 3]) -> usize {
        let n = CELLS_PER_AXIS;
        let s = CELL.trailing_zeros();
        let cell = ((c[0] as usize >> s) * n + (c[1] as usize >> s)) * n + (c[2] as usize >> s);
        let Some(&(start, len)) = self.cells.get(cell) else {
            return 0;
        };
        let list = &self.candidates[start as usize..start as usize + len as usize];
        let mut best = (i32::MAX, 0usize);
        for &i in list {
            let p = self.colors[i as usize];
            let d = |k: usize| (c[k] as i32 - p[k] as i32).pow(2);
            let dist = d(0) + d(1) + d(2);
            if dist < best.0 {
                best = (dist, i as usize);
            }
        }
        best.1
    }
}

/// The colours seen while building and their indices, in an open-addressed
/// table (linear probing, at most half full): mapping a GIF's frames looks
/// up every pixel that differs from its left neighbour, and a binary search
/// over thousands of colours was 4 % of an `example.yaml` bake, its
/// branches unpredictable.
#[derive(Debug, Clone, PartialEq)]
struct SeenColors {
    /// `colour << 8 | index`; 0 is an empty slot (indices here are 1 on).
    slots: Vec<u32>,
    /// `32 − log2(slots.len())`: the hash's top bits pick the slot.
    shift: u32,
}

impl SeenColors {
    /// The table of `lookup` (`(0xRRGGBB, index)`, each colour once),
    /// filled in the order given.
    fn new(lookup: &[(u32, u8)]) -> SeenColors {
        let len = (2 * lookup.len()).next_power_of_two().max(16);
        let mut t = SeenColors {
            slots: vec![0; len],
            shift: 32 - len.trailing_zeros(),
        };
        let mask = len - 1;
        for &(colour, index) in lookup {
            let mut at = t.slot(colour);
            while t.slots[at] != 0 {
                at = (at + 1) & mask;
            }
            t.slots[at] = colour << 8 | index as u32;
        }
        t
    }

    /// Fibonacci hashing: colours close in value land far apart.
    fn slot(&self, colour: u32) -> usize {
        (colour.wrapping_mul(0x9e37_79b9) >> self.shift) as usize
    }

    fn get(&self, colour: u32) -> Option<u8> {
        let mask = self.slots.len() - 1;
        let mut at = self.slot(colour);
        loop {
            let e = self.slots[at];
            if e == 0 {
                return None;
            }
            if e >> 8 == colour {
                return Some(e as u8);
            }
            at = (at + 1) & mask;
        }
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

#[cfg(test)]
mod tests {
    use super::Nearest;

    /// The plain search the grid must agree with: least squared distance,
    /// ties to the lower index.
    fn linear(colors: &[[u8; 3]], c: [u8; 3]) -> usize {
        let mut best = (i32::MAX, 0);
        for (i, p) in colors.iter().enumerate() {
            let d: i32 = (0..3).map(|k| (c[k] as i32 - p[k] as i32).pow(2)).sum();
            if d < best.0 {
                best = (d, i);
            }
        }
        best.1
    }

    #[test]
    fn the_grid_answers_as_the_linear_search_does() {
        // A fixed pseudo-random sequence, so failures reproduce.
        let mut state = 0x2545_f491_u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let mut palettes: Vec<Vec<[u8; 3]>> = vec![
            vec![[0, 0, 0]],
            vec![[0, 0, 0], [255, 255, 255]],
            // Duplicates and equidistant pairs: ties must go to the lower index.
            vec![[10, 10, 10], [10, 10, 10], [20, 10, 10], [0, 10, 10]],
            (0..=255u8).map(|v| [v, v, v]).collect(),
        ];
        for n in [3usize, 16, 64, 255, 256] {
            palettes.push(
                (0..n)
                    .map(|_| {
                        let v = next();
                        [v as u8, (v >> 8) as u8, (v >> 16) as u8]
                    })
                    .collect(),
            );
        }
        for colors in &palettes {
            let near = Nearest::new(colors);
            for _ in 0..20_000 {
                let v = next();
                let c = [v as u8, (v >> 8) as u8, (v >> 16) as u8];
                assert_eq!(
                    near.index(c),
                    linear(colors, c),
                    "{c:?} in {} colours",
                    colors.len()
                );
            }
            // Every grid cell's corners, where pruning is tightest.
            for v in (0..=255u8).step_by(15) {
                for c in [[v, 0, 255], [v, v, v], [255 - v, v, 16]] {
                    assert_eq!(near.index(c), linear(colors, c));
                }
            }
        }
    }

    #[test]
    fn seen_colours_answer_as_a_search_of_the_sorted_list_does() {
        // Colours from a fixed sequence (many more than slots a small
        // table has, so probes run long and wrap), their indices cycling
        // through 1..=255; then colours near and far from them.
        let mut state = 0x9e37_79b9_u32;
        let mut lookup: Vec<(u32, u8)> = Vec::new();
        for n in [0usize, 1, 7, 300, 5000] {
            lookup.clear();
            while lookup.len() < n {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                let c = state & 0xff_ffff;
                if !lookup.iter().any(|e| e.0 == c) {
                    lookup.push((c, (lookup.len() % 255 + 1) as u8));
                }
            }
            // White and black, the colours whose packed values are extremes.
            lookup.retain(|e| e.0 != 0 && e.0 != 0xff_ffff);
            lookup.push((0xff_ffff, 3));
            lookup.sort_unstable_by_key(|e| e.0);
            let seen = super::SeenColors::new(&lookup);
            let search = |c: u32| {
                lookup
                    .binary_search_by_key(&c, |e| e.0)
                    .ok()
                    .map(|i| lookup[i].1)
            };
            for &(c, i) in &lookup {
                assert_eq!(seen.get(c), Some(i), "{c:06x} of {n}");
                for other in [c ^ 1, c.wrapping_add(0x1_0000) & 0xff_ffff, 0] {
                    assert_eq!(seen.get(other), search(other), "{other:06x} of {n}");
                }
            }
        }
    }

    /// A 16×16 frame of 300 distinct opaque colours (more than a palette
    /// holds, so the median cut merges some) and a transparent corner.
    fn many_colours() -> image::RgbaImage {
        image::RgbaImage::from_fn(20, 16, |x, y| {
            let i = y * 20 + x;
            let a = if i == 0 { 0 } else { 255 };
            image::Rgba([(i * 7) as u8, (i * 13 % 256) as u8, (i / 2) as u8, a])
        })
    }

    #[test]
    fn mapping_the_frames_it_was_built_from_needs_no_nearest_search() {
        let img = many_colours();
        let p = super::Palette::build(&[&img], 128);
        assert_eq!(p.colors.len(), super::MAX_COLORS);
        let plain = p.map(&img, false);
        assert!(
            p.near.get().is_none(),
            "the search was made for seen colours"
        );
        assert_eq!(plain[0], super::TRANSPARENT);
        assert!(
            plain[1..].iter().all(|&i| i >= 1),
            "opaque pixels got a colour"
        );
        // An unseen colour and dithering make it, and leave the palette
        // equal to one that never made it.
        let twin = super::Palette::build(&[&img], 128);
        let unseen = p.index_of([1, 2, 3, 255]);
        assert!(p.near.get().is_some());
        let c = p.color(unseen).unwrap();
        let d = |q: [u8; 3]| {
            (0..3)
                .map(|k| (q[k] as i32 - [1, 2, 3][k]).pow(2))
                .sum::<i32>()
        };
        assert_eq!(d(c), p.colors.iter().map(|&q| d(q)).min().unwrap());
        assert_eq!(p, twin);
        assert_eq!(p.map(&img, true).len(), plain.len());
    }
}
