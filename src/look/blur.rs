//! Blurring a coverage plane: three box blurs in a row approximate a
//! Gaussian (the classic result: a box convolved with itself three times
//! is within a few percent of one), in integers, so the result is the same
//! on every machine.

/// Blurs `plane` (`w × h`, 0..=255) with three passes of a box of radius
/// `radius` along each axis; edges are treated as zero.
pub fn blur(plane: &mut [u8], w: usize, h: usize, radius: u32) {
    if radius == 0 || w == 0 || h == 0 {
        return;
    }
    let r = radius as usize;
    let mut buf: Vec<u32> = plane.iter().map(|&v| v as u32).collect();
    let mut tmp = vec![0u32; buf.len()];
    for _ in 0..3 {
        box_rows(&buf, &mut tmp, w, h, r);
        box_cols(&tmp, &mut buf, w, h, r);
    }
    for (p, v) in plane.iter_mut().zip(buf) {
        *p = v.min(255) as u8;
    }
}

/// `(x + n / 2) / n` for the sums a box pass makes, by multiplying with a
/// rounded-up reciprocal: exact while `x · (m·n − 2³²) < 2³²`, which sums
/// of at most 65 values of 255 keep by a wide margin (the test checks
/// every case), and far cheaper than a division per pixel.
#[derive(Clone, Copy)]
struct Mean {
    half: u32,
    m: u64,
}

impl Mean {
    fn new(n: u32) -> Mean {
        Mean {
            half: n / 2,
            m: (1u64 << 32).div_ceil(n as u64),
        }
    }

    #[inline(always)]
    fn of(self, sum: u32) -> u32 {
        (((sum + self.half) as u64 * self.m) >> 32) as u32
    }
}

/// One horizontal box pass: a running sum over `2r + 1` pixels.
fn box_rows(src: &[u32], dst: &mut [u32], w: usize, h: usize, r: usize) {
    let mean = Mean::new((2 * r + 1) as u32);
    for y in 0..h {
        let line = &src[y * w..(y + 1) * w];
        let out = &mut dst[y * w..(y + 1) * w];
        let mut sum: u32 = line[..r.min(w)].iter().sum();
        for x in 0..w {
            if x + r < w {
                sum += line[x + r];
            }
            // Rounded to nearest, so a flat area keeps its value.
            out[x] = mean.of(sum);
            if x >= r {
                sum -= line[x - r];
            }
        }
    }
}

/// One vertical box pass, row by row: a running sum per column, so memory
/// is read in order.
fn box_cols(src: &[u32], dst: &mut [u32], w: usize, h: usize, r: usize) {
    let mean = Mean::new((2 * r + 1) as u32);
    let mut sum = vec![0u32; w];
    for y in 0..r.min(h) {
        for (s, &v) in sum.iter_mut().zip(&src[y * w..(y + 1) * w]) {
            *s += v;
        }
    }
    for y in 0..h {
        if y + r < h {
            for (s, &v) in sum.iter_mut().zip(&src[(y + r) * w..(y + r + 1) * w]) {
                *s += v;
            }
        }
        for (d, &s) in dst[y * w..(y + 1) * w].iter_mut().zip(&sum) {
            *d = mean.of(s);
        }
        if y >= r {
            for (s, &v) in sum.iter_mut().zip(&src[(y - r) * w..(y - r + 1) * w]) {
                *s -= v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{blur, Mean};

    #[test]
    fn the_reciprocal_divides_exactly() {
        for r in 0..=super::super::MAX_BLUR {
            let n = 2 * r + 1;
            let mean = Mean::new(n);
            for sum in 0..=255 * n {
                assert_eq!(mean.of(sum), (sum + n / 2) / n, "{sum} / {n}");
            }
        }
    }

    #[test]
    fn keeps_flat_areas_and_spreads_a_point() {
        let mut flat = vec![200u8; 9 * 9];
        blur(&mut flat, 9, 9, 1);
        // The centre is three radii from every edge.
        assert_eq!(flat[4 * 9 + 4], 200);
        let mut point = vec![0u8; 9 * 9];
        point[4 * 9 + 4] = 255;
        blur(&mut point, 9, 9, 1);
        let total: u32 = point.iter().map(|&v| v as u32).sum();
        assert!(point[4 * 9 + 4] > point[4 * 9 + 5] && point[4 * 9 + 5] > 0);
        assert!(point[4 * 9 + 8] == 0 || point[4 * 9 + 8] < point[4 * 9 + 5]);
        assert!((200..=320).contains(&total), "mass {total}");
    }
}
