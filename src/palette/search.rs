//! Finding a colour's palette entry: the exact map of the colours a
//! palette was chosen from, and the nearest-colour search for the rest.

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SeenColors {
    /// `colour << 8 | index`; 0 is an empty slot (indices here are 1 on).
    slots: Vec<u32>,
    /// `32 − log2(slots.len())`: the hash's top bits pick the slot.
    shift: u32,
}

impl SeenColors {
    /// The table of `lookup` (`(0xRRGGBB, index)`, each colour once),
    /// filled in the order given.
    pub(super) fn new(lookup: &[(u32, u8)]) -> SeenColors {
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

    pub(super) fn get(&self, colour: u32) -> Option<u8> {
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
}
