//! Box-filter resolve of a tile's samples into straight-alpha RGBA8 pixels.
//!
//! Averaging happens on premultiplied values, so a half-covered edge sample
//! over a transparent background keeps the object's colour at half alpha
//! instead of darkening; un-premultiplying is the last step.

use super::framebuffer::{TileBuffer, TILE};
use super::simd::{FloatLanes, IntLanes, Kernel, Simd, LANES};

/// Where a tile lands in the output image, in output pixels.
pub struct Target<'a, 'r> {
    /// The image rows the tile covers, from its top row on (at least `h`).
    pub rows: &'a mut [&'r mut [u8]],
    pub x: usize,
    pub w: usize,
    pub h: usize,
    /// At least `w` pixels of the resolved background, for clean rows.
    pub background: &'a [u8],
}

/// One tile's resolve as a kernel, to run [`Simd::apart`] from the draw loop.
pub struct Resolve<'a, 'b, 'r> {
    pub buf: &'a TileBuffer,
    pub ss: usize,
    pub target: Target<'b, 'r>,
}

impl Kernel for Resolve<'_, '_, '_> {
    type Output = ();
    #[inline(always)]
    fn run<S: Simd>(self, s: S) {
        resolve(s, self.buf, self.ss, self.target)
    }
}

#[inline(always)]
pub fn resolve<S: Simd>(s: S, buf: &TileBuffer, ss: usize, t: Target<'_, '_>) {
    // One sample a pixel and every alpha 0 or 1: dividing by alpha changes
    // no visible value, so the conversion skips it (a tenth of a 1024²
    // frame is resolve, and the divide bounds its throughput).
    if ss == 1 && buf.binary_alpha() {
        resolve_rows::<S, false>(s, buf, ss, t)
    } else {
        resolve_rows::<S, true>(s, buf, ss, t)
    }
}

#[inline(always)]
fn resolve_rows<S: Simd, const DIVIDE: bool>(s: S, buf: &TileBuffer, ss: usize, t: Target<'_, '_>) {
    let norm = s.splat(1.0 / (ss * ss) as f32);
    let row_bits = (1u32 << ss) - 1;
    for (j, row) in t.rows[..t.h].iter_mut().enumerate() {
        let row = &mut row[t.x * 4..];
        if buf.dirty & (row_bits << (j * ss)) == 0 {
            copy_pixels(&mut row[..4 * t.w], t.background);
            continue;
        }
        let mut i0 = 0;
        while i0 < t.w {
            let n = LANES.min(t.w - i0);
            let mut sum = [s.splat(0.0); 4];
            if ss == 1 {
                let base = j * TILE + i0;
                for (ch, v) in sum.iter_mut().enumerate() {
                    // TILE is a multiple of LANES, so a full load stays in the row.
                    *v = s.load(&buf.color[ch][base..]);
                }
            } else if ss == 2 {
                for (ch, v) in sum.iter_mut().enumerate() {
                    *v = box2(s, &buf.color[ch], j, i0) * norm;
                }
            } else if ss == 4 {
                for (ch, v) in sum.iter_mut().enumerate() {
                    *v = box4(s, &buf.color[ch], j) * norm;
                }
            } else {
                for (ch, v) in sum.iter_mut().enumerate() {
                    *v = box_any(s, &buf.color[ch], ss, j, i0, n) * norm;
                }
            }
            let px = to_u8_lanes::<S, DIVIDE>(s, sum);
            let o = i0 * 4;
            if n == LANES {
                // Fixed length: a plain 32-byte move instead of a memmove call.
                row[o..o + 4 * LANES].copy_from_slice(&px);
            } else {
                copy_part(&mut row[o..o + 4 * n], &px);
            }
            i0 += LANES;
        }
    }
}

/// The sums of the `ss × ss` samples of the pixels `i0..i0 + n` of pixel
/// row `j` (lanes past `n` are zero): row by row, each row's samples added
/// left to right, and the rows added to a sum starting at zero — the order
/// [`box2`] and [`box4`] keep, so they give the same bits.
#[inline(always)]
fn box_any<S: Simd>(s: S, plane: &[f32], ss: usize, j: usize, i0: usize, n: usize) -> S::F {
    let mut acc = [0.0f32; LANES];
    for (i, a) in acc.iter_mut().enumerate().take(n) {
        for sy in 0..ss {
            let base = (j * ss + sy) * TILE + (i0 + i) * ss;
            *a += plane[base..base + ss].iter().sum::<f32>();
        }
    }
    s.array(acc)
}

/// [`box_any`] for 2×2 samples, eight pixels at once: a sample row's
/// sixteen samples are two lane loads whose neighbouring lanes add into the
/// eight pixels' row sums. With `TILE` samples a row and `i0` a multiple
/// of eight below `TILE / 2`, both loads stay inside the row; lanes past the
/// tile's last pixel hold sums of samples no pixel uses, and the caller
/// drops them. This was a tenth of an antialiased bake's time as the
/// sample-by-sample loop.
#[inline(always)]
fn box2<S: Simd>(s: S, plane: &[f32], j: usize, i0: usize) -> S::F {
    let mut acc = s.splat(0.0);
    for sy in 0..2 {
        let base = (j * 2 + sy) * TILE + i0 * 2;
        acc = acc + s.add_pairs(s.load(&plane[base..]), s.load(&plane[base + LANES..]));
    }
    acc
}

/// [`box_any`] for 4×4 samples: a tile row of them holds eight pixels
/// (`TILE` is 32), loaded as four lane vectors a sample row.
#[inline(always)]
fn box4<S: Simd>(s: S, plane: &[f32], j: usize) -> S::F {
    const _: () = assert!(TILE == 4 * LANES);
    let mut acc = s.splat(0.0);
    for sy in 0..4 {
        let row = &plane[(j * 4 + sy) * TILE..];
        // Not `map` with a closure: a closure is compiled without the
        // kernel's instruction set.
        let v = [
            s.load(row),
            s.load(&row[LANES..]),
            s.load(&row[2 * LANES..]),
            s.load(&row[3 * LANES..]),
        ];
        acc = acc + s.add_quads(v);
    }
    acc
}

/// The last pixels of a row narrower than a lane vector. Out of line: when
/// the full-width copy and this one sat in one function, the compiler
/// merged them into a single `memcpy` call of a run-time length, and every
/// eight pixels of a 1024² frame paid for the call (3 % of the frame).
#[cold]
#[inline(never)]
fn copy_part(dst: &mut [u8], src: &[u8]) {
    dst.copy_from_slice(&src[..dst.len()]);
}

/// Copies `src` over `dst` (as many bytes as `dst` has) in fixed 32-byte
/// pieces: a background row of a tile is 128 bytes or less, and a copy of a
/// length known only at run time is a call to `memmove` each, which cost
/// more than the copy itself (2.5 % of a 1024² bake went to them).
#[inline(always)]
pub fn copy_pixels(dst: &mut [u8], src: &[u8]) {
    const PIECE: usize = 4 * LANES;
    let src = &src[..dst.len()];
    let mut to = dst.chunks_exact_mut(PIECE);
    let mut from = src.chunks_exact(PIECE);
    for (d, s) in (&mut to).zip(&mut from) {
        d.copy_from_slice(s);
    }
    for (d, s) in to.into_remainder().iter_mut().zip(from.remainder()) {
        *d = *s;
    }
}

/// Eight premultiplied pixels (0..1) to interleaved straight RGBA8, rounding
/// to nearest; fully transparent pixels become (0, 0, 0, 0).
#[inline(always)]
pub fn to_straight_u8_lanes<S: Simd>(s: S, p: [S::F; 4]) -> [u8; 4 * LANES] {
    to_u8_lanes::<S, true>(s, p)
}

/// [`to_straight_u8_lanes`], or with `DIVIDE` false the same for pixels
/// whose alpha is exactly 0 or 1 only: `p · (1 / 1)` is `p` bit for bit,
/// and pixels of alpha 0 are masked to zero either way.
#[inline(always)]
fn to_u8_lanes<S: Simd, const DIVIDE: bool>(s: S, p: [S::F; 4]) -> [u8; 4 * LANES] {
    let zero = s.splat(0.0);
    let one = s.splat(1.0);
    let a = p[3].max(zero).min(one);
    let inv = one.div(a);
    let straight = |v: S::F| if DIVIDE { v * inv } else { v };
    let a8 = to_u8(s, a);
    let visible = (a8 - s.splat_i(1)).non_negative();
    // Pack each pixel into one little-endian u32 with lane shifts, rather
    // than scattering 32 single bytes.
    let r = to_u8(s, straight(p[0]).max(zero).min(one)) & visible;
    let g = to_u8(s, straight(p[1]).max(zero).min(one)) & visible;
    let b = to_u8(s, straight(p[2]).max(zero).min(one)) & visible;
    let packed = (((a8 & visible).shl::<8>() | b).shl::<8>() | g).shl::<8>() | r;
    let mut out = [0u8; 4 * LANES];
    for (o, v) in out.chunks_exact_mut(4).zip(packed.to_array()) {
        o.copy_from_slice(&v.to_le_bytes());
    }
    out
}

/// 0..1 to 0..255, rounded to nearest.
#[inline(always)]
fn to_u8<S: Simd>(s: S, v: S::F) -> S::I {
    (v * s.splat(255.0)).round_i32()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framebuffer::TILE_AREA;
    use crate::simd::Portable;

    fn to_straight_u8(p: [f32; 4]) -> [u8; 4] {
        let s = Portable;
        let out = to_straight_u8_lanes(s, p.map(|v| s.splat(v)));
        // Every lane converts alike.
        assert!(out.chunks(4).all(|c| c == &out[..4]));
        [out[0], out[1], out[2], out[3]]
    }

    #[test]
    fn unpremultiplies_with_rounding() {
        assert_eq!(
            to_straight_u8([0.25, 0.25, 0.25, 0.25]),
            [255, 255, 255, 64]
        );
        assert_eq!(to_straight_u8([0.1, 0.0, 0.05, 0.5]), [51, 0, 26, 128]);
        assert_eq!(to_straight_u8([0.001, 0.0, 0.0, 0.001]), [0, 0, 0, 0]);
        assert_eq!(to_straight_u8([f32::NAN, 0.0, 0.0, 1.0]), [0, 0, 0, 255]);
    }

    fn resolve_one(buf: &TileBuffer, ss: usize) -> Vec<u8> {
        let mut px = vec![0u8; 4];
        resolve(
            Portable,
            buf,
            ss,
            Target {
                rows: &mut [&mut px[..]],
                x: 0,
                w: 1,
                h: 1,
                background: &[9; 4],
            },
        );
        px
    }

    #[test]
    fn binary_alpha_tiles_resolve_as_the_divide_does() {
        // Samples of alpha 0 or 1 with colours in and out of range,
        // negative zero, infinities and NaN: both conversions agree on
        // every byte.
        let odd = [
            0.0,
            -0.0,
            1.0,
            0.5,
            0.999_999,
            1.5,
            -0.25,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1e-7,
            0.501_960_8,
        ];
        let mut buf = TileBuffer::new();
        buf.clear([0.0; 4]);
        for i in 0..TILE * TILE {
            for ch in 0..3 {
                buf.color[ch][i] = odd[(i * (ch + 3) + i / 7) % odd.len()];
            }
            buf.color[3][i] = if (i / 3) % 2 == 0 { 1.0 } else { 0.0 };
        }
        buf.dirty = u32::MAX;
        let run = |divide: bool| {
            let mut px = vec![0u8; 4 * TILE * TILE];
            let mut rows: Vec<&mut [u8]> = px.chunks_mut(4 * TILE).collect();
            let target = Target {
                rows: &mut rows,
                x: 0,
                w: TILE,
                h: TILE,
                background: &[0; 4 * TILE],
            };
            if divide {
                resolve_rows::<_, true>(Portable, &buf, 1, target)
            } else {
                resolve_rows::<_, false>(Portable, &buf, 1, target)
            }
            px
        };
        let (with, without) = (run(true), run(false));
        assert_eq!(with, without);
        // The values are not all masked away: opaque pixels keep colours.
        assert!(with
            .chunks(4)
            .any(|p| p[3] == 255 && p[0] > 0 && p[0] < 255));
    }

    #[test]
    fn binary_alpha_needs_no_blend_and_a_binary_background() {
        let mut buf = TileBuffer::new();
        buf.clear([0.0; 4]);
        assert!(buf.binary_alpha());
        buf.blended = true;
        assert!(!buf.binary_alpha());
        buf.clear([0.2, 0.2, 0.2, 1.0]);
        assert!(buf.binary_alpha());
        buf.clear([0.1, 0.1, 0.1, 0.5]);
        assert!(!buf.binary_alpha());
    }

    #[test]
    fn two_and_four_sample_boxes_sum_as_the_sample_loop_does() {
        // Samples of scattered magnitudes, so that adding them in another
        // order rounds differently, with signed zeros, infinities and NaN
        // among them: the lane paths give the loop's bits at every level,
        // for every pixel a tile of 2×2 or 4×4 samples has.
        let special = [-0.0, 0.0, f32::INFINITY, f32::NAN, 3.0e38, -0.0];
        let mut plane = [0.0f32; TILE_AREA];
        let mut x = 0x9e37_79b9u32;
        for (i, v) in plane.iter_mut().enumerate() {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *v = if i % 37 == 0 {
                special[i / 37 % special.len()]
            } else {
                // Mantissa from the generator, exponent in 2^-12..2^3.
                f32::from_bits((x & 0x007f_ffff) | ((115 + (x >> 28)) << 23))
            };
        }
        // The values tell the orders apart: summing a row's four samples
        // as two pairs changes some sums.
        let finite = plane
            .chunks_exact(4)
            .filter(|q| q.iter().all(|v| v.is_finite()));
        let in_pairs = |q: &[f32]| (q[0] + q[1]) + (q[2] + q[3]);
        assert!(finite
            .into_iter()
            .any(|q| ((q[0] + q[1]) + q[2]) + q[3] != in_pairs(q)));
        let bits = |v: f32| if v.is_nan() { u32::MAX } else { v.to_bits() };
        for level in crate::simd::Level::ALL
            .into_iter()
            .filter(|l| l.available())
        {
            for ss in [2, 4] {
                for j in 0..TILE / ss {
                    for i0 in (0..TILE / ss).step_by(LANES) {
                        let boxes = Boxes {
                            plane: &plane,
                            ss,
                            j,
                            i0,
                        };
                        let (lanes, each) = crate::simd::dispatch(level, boxes);
                        let name = level.name();
                        assert_eq!(
                            lanes.map(bits),
                            each.map(bits),
                            "{name} {ss}² row {j} from {i0}"
                        );
                    }
                }
            }
        }
    }

    /// [`box2`] or [`box4`] and [`box_any`] of the same pixels, at one level.
    struct Boxes<'a> {
        plane: &'a [f32],
        ss: usize,
        j: usize,
        i0: usize,
    }

    impl Kernel for Boxes<'_> {
        type Output = ([f32; LANES], [f32; LANES]);
        #[inline(always)]
        fn run<S: Simd>(self, s: S) -> Self::Output {
            let lanes = match self.ss {
                2 => box2(s, self.plane, self.j, self.i0),
                _ => box4(s, self.plane, self.j),
            };
            let each = box_any(s, self.plane, self.ss, self.j, self.i0, LANES);
            (lanes.to_array(), each.to_array())
        }
    }

    #[test]
    fn box_filter_averages_premultiplied_samples() {
        let mut buf = TileBuffer::new();
        buf.clear([0.0; 4]);
        // 2×2 samples for pixel (0,0): one opaque white sample, three empty.
        for ch in 0..4 {
            buf.color[ch][0] = 1.0;
        }
        buf.dirty = 1;
        assert_eq!(resolve_one(&buf, 2), [255, 255, 255, 64]);
        // The second sample row alone marks the pixel row dirty too.
        buf.dirty = 2;
        assert_eq!(resolve_one(&buf, 2), [255, 255, 255, 64]);
        // Clean rows take the background without reading the planes.
        buf.dirty = 1 << 2;
        assert_eq!(resolve_one(&buf, 2), [9; 4]);
    }
}
