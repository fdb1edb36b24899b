//! PNG's row filters, as kiln's band encoder (`kiln::parallel_png`) and
//! nothing else uses them: each row takes the filter (none, sub, up,
//! average, Paeth) whose output has the least sum of absolute values as
//! signed bytes, as the png crate's default does. Here, beside the lane
//! types, so the cost sums run at the CPU's level and are compiled
//! optimised wherever kiln is built.

use crate::simd::{dispatch, Level, Simd};

/// `rows` (whole rows of `row` bytes) filtered at `level`, each led by its
/// filter type byte; `prior` is the image row above them (none: the top,
/// filtered over zeros). The bytes are the same at every level.
pub fn filter_rows(level: Level, rows: &[u8], prior: Option<&[u8]>, row: usize) -> Vec<u8> {
    dispatch(level, FilterRows { rows, prior, row })
}

/// [`filter_rows_with`] as a kernel of the rasterizer's instruction-set
/// dispatch: the same integer code compiled for AVX2 where the CPU has it
/// (twice the lanes for the filters and their cost sums; the bytes are the
/// same at every level).
struct FilterRows<'a> {
    rows: &'a [u8],
    prior: Option<&'a [u8]>,
    row: usize,
}

impl crate::simd::Kernel for FilterRows<'_> {
    type Output = Vec<u8>;

    #[inline(always)]
    fn run<S: crate::simd::Simd>(self, s: S) -> Vec<u8> {
        filter_rows_with(s, self.rows, self.prior, self.row)
    }
}

/// `rows` (whole rows of `row` bytes), each led by its filter type byte;
/// `prior` is the image row above them (none: the top, filtered over
/// zeros).
#[inline(always)]
fn filter_rows_with<S: Simd>(s: S, rows: &[u8], prior: Option<&[u8]>, row: usize) -> Vec<u8> {
    let zero = vec![0u8; row];
    let n = rows.len() / row;
    let mut out = Vec::with_capacity(n * (row + 1));
    let mut trial = vec![0u8; row];
    let mut best = vec![0u8; row];
    for y in 0..n {
        let cur = &rows[y * row..(y + 1) * row];
        let prev = if y > 0 {
            &rows[(y - 1) * row..y * row]
        } else {
            prior.unwrap_or(&zero)
        };
        // A row repeating the one above: Up makes it all zeros, which no
        // filter beats, and only None ties it, on an all-zero row (ties go
        // to the earlier filter). The search below would choose the same.
        if cur == prev {
            if s.abs_sum_i8(cur) == 0 {
                out.push(0);
                out.extend_from_slice(cur);
            } else {
                out.push(2);
                out.resize(out.len() + row, 0);
            }
            continue;
        }
        // The usual heuristic: the filter whose bytes, read as signed,
        // have the least absolute sum.
        let mut pick = (u64::MAX, 0u8);
        for kind in 0..5u8 {
            // Filter 0 is the row itself: costed in place, not copied (a
            // background row costs nothing and stops the search there).
            let bytes: &[u8] = if kind == 0 {
                cur
            } else {
                apply_filter(kind, cur, prev, &mut trial);
                &trial
            };
            let cost = s.abs_sum_i8(bytes);
            if cost < pick.0 {
                pick = (cost, kind);
                if kind > 0 {
                    std::mem::swap(&mut best, &mut trial);
                }
                // Ties go to the earlier filter, so nothing beats a zero.
                if cost == 0 {
                    break;
                }
            }
        }
        out.push(pick.1);
        out.extend_from_slice(if pick.1 == 0 { cur } else { &best });
    }
    out
}

/// PNG filter `kind` of row `cur` over `prev`, four bytes a pixel.
#[inline(always)]
pub fn apply_filter(kind: u8, cur: &[u8], prev: &[u8], out: &mut [u8]) {
    const BPP: usize = 4;
    match kind {
        0 => out.copy_from_slice(cur),
        1 => {
            out[..BPP].copy_from_slice(&cur[..BPP]);
            for i in BPP..cur.len() {
                out[i] = cur[i].wrapping_sub(cur[i - BPP]);
            }
        }
        2 => {
            for i in 0..cur.len() {
                out[i] = cur[i].wrapping_sub(prev[i]);
            }
        }
        3 => {
            // The first pixel has no left neighbour; the rest go without a
            // test per byte.
            for i in 0..BPP {
                out[i] = cur[i].wrapping_sub(prev[i] / 2);
            }
            let rest = out[BPP..].iter_mut().zip(&cur[BPP..]);
            for ((o, &x), (&left, &up)) in rest.zip(cur.iter().zip(&prev[BPP..])) {
                *o = x.wrapping_sub(((left as u16 + up as u16) / 2) as u8);
            }
        }
        _ => {
            for i in 0..BPP {
                // No left neighbour: Paeth picks the byte above.
                out[i] = cur[i].wrapping_sub(prev[i]);
            }
            let rest = out[BPP..]
                .iter_mut()
                .zip(&cur[BPP..])
                .zip(cur.iter().zip(&prev[BPP..]).zip(prev.iter()));
            for ((o, &x), ((&a, &b), &c)) in rest {
                *o = x.wrapping_sub(paeth(a, b, c));
            }
        }
    }
}

/// The Paeth predictor, without branches so the loop above vectorises:
/// `|p − a| = |b − c|`, `|p − b| = |a − c|`, `|p − c| = |a + b − 2c|`.
#[inline(always)]
fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let (a16, b16, c16) = (a as i16, b as i16, c as i16);
    let pa = (b16 - c16).abs();
    let pb = (a16 - c16).abs();
    let pc = (a16 + b16 - 2 * c16).abs();
    let b_or_c = if pb <= pc { b } else { c };
    if pa <= pb && pa <= pc {
        a
    } else {
        b_or_c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_instruction_set_level_filters_to_the_same_bytes() {
        let (w, h) = (333usize, 40usize);
        let raw: Vec<u8> = (0..w * h * 4)
            .map(|i| match (i / (w * 4)) % 4 {
                0 => 0,
                1 => (i % 7) as u8 * 40,
                2 => ((i * 31) ^ (i >> 5)) as u8,
                _ => (i / 4 % 256) as u8,
            })
            .collect();
        let run = |level| filter_rows(level, &raw, None, w * 4);
        let portable = run(crate::Level::Portable);
        assert_eq!(portable.len(), h * (w * 4 + 1));
        // Rows of zeros, stripes, noise and ramps pick different filters.
        let mut kinds: Vec<u8> = portable.chunks(w * 4 + 1).map(|r| r[0]).collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert!(kinds.len() >= 3, "{kinds:?}");
        for level in crate::Level::ALL.into_iter().filter(|l| l.available()) {
            assert_eq!(run(level), portable, "{level:?}");
        }
    }

    /// The textbook choice, with no short cut: every filter costed, the
    /// cheapest kept, ties to the earlier one.
    fn filter_rows_reference(rows: &[u8], row: usize) -> Vec<u8> {
        let zero = vec![0u8; row];
        let mut out = Vec::new();
        for y in 0..rows.len() / row {
            let cur = &rows[y * row..(y + 1) * row];
            let prev = if y > 0 {
                &rows[(y - 1) * row..y * row]
            } else {
                &zero[..]
            };
            let mut best: Option<(u64, u8, Vec<u8>)> = None;
            for kind in 0..5u8 {
                let mut f = vec![0u8; row];
                apply_filter(kind, cur, prev, &mut f);
                let c: u64 = f.iter().map(|&b| (b as i8).unsigned_abs() as u64).sum();
                if best.as_ref().is_none_or(|b| c < b.0) {
                    best = Some((c, kind, f));
                }
            }
            let (_, kind, f) = best.unwrap();
            out.push(kind);
            out.extend_from_slice(&f);
        }
        out
    }

    #[test]
    fn filters_are_chosen_as_the_full_search_chooses() {
        // Repeated rows (zero and not), a first pixel that differs from the
        // rest, noise, ramps: the short cut for repeats and the plain search
        // give the textbook choice, at every level.
        let (w, h) = (97usize, 24usize);
        let mut raw = Vec::with_capacity(w * h * 4);
        for y in 0..h {
            for i in 0..w * 4 {
                raw.push(match y {
                    0..=2 => 0,
                    3..=5 => [0, 0, 0, 255][i % 4],
                    6 | 7 => (i % 4 * 60) as u8,
                    8 => (i == 3) as u8,
                    9 => 0,
                    10..=12 => (i / 4 % 256) as u8 ^ 0x55,
                    13 | 14 => ((i * 31) ^ (i >> 3)) as u8,
                    _ => ((i * 7 + y * 13) ^ (i * y / 5)) as u8,
                });
            }
        }
        let reference = filter_rows_reference(&raw, w * 4);
        for level in crate::Level::ALL.into_iter().filter(|l| l.available()) {
            let got = filter_rows(level, &raw, None, w * 4);
            assert_eq!(got, reference, "{level:?}");
        }
        let kinds: Vec<u8> = reference.chunks(w * 4 + 1).map(|r| r[0]).collect();
        // Zero rows take None, a repeated non-zero row Up.
        assert_eq!(kinds[..6], [0, 0, 0, 1, 2, 2]);
    }
}
