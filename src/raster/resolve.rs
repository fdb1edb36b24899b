//! Box-filter resolve of a tile's samples into straight-alpha RGBA8 pixels.
//!
//! Averaging happens on premultiplied values, so a half-covered edge sample
//! over a transparent background keeps the object's colour at half alpha
//! instead of darkening; un-premultiplying is the last step.

use super::framebuffer::{TileBuffer, TILE};
use super::lanes::{F32x8, I32x8, LANES};

/// Where a tile lands in the output image, in output pixels.
pub struct Target<'a> {
    pub pixels: &'a mut [u8],
    pub stride: usize,
    pub x: usize,
    pub y: usize,
    pub w: usize,
    pub h: usize,
    /// At least `w` pixels of the resolved background, for clean rows.
    pub background: &'a [u8],
}

pub fn resolve(buf: &TileBuffer, ss: usize, t: Target<'_>) {
    let norm = F32x8::splat(1.0 / (ss * ss) as f32);
    let row_bits = (1u32 << ss) - 1;
    for j in 0..t.h {
        let row = (t.y + j) * t.stride;
        if buf.dirty & (row_bits << (j * ss)) == 0 {
            let o = row + t.x * 4;
            t.pixels[o..o + 4 * t.w].copy_from_slice(&t.background[..4 * t.w]);
            continue;
        }
        let mut i0 = 0;
        while i0 < t.w {
            let n = LANES.min(t.w - i0);
            let mut sum = [F32x8::splat(0.0); 4];
            if ss == 1 {
                let base = j * TILE + i0;
                for (ch, s) in sum.iter_mut().enumerate() {
                    // TILE is a multiple of LANES, so a full load stays in the row.
                    *s = F32x8::load(&buf.color[ch][base..]);
                }
            } else {
                for (ch, s) in sum.iter_mut().enumerate() {
                    let plane = &buf.color[ch];
                    for i in 0..n {
                        let mut acc = 0.0;
                        for sy in 0..ss {
                            let base = (j * ss + sy) * TILE + (i0 + i) * ss;
                            acc += plane[base..base + ss].iter().sum::<f32>();
                        }
                        s.0[i] = acc;
                    }
                    *s = *s * norm;
                }
            }
            let px = to_straight_u8_lanes(sum);
            let o = row + (t.x + i0) * 4;
            if n == LANES {
                // Fixed length: a plain 32-byte move instead of a memmove call.
                t.pixels[o..o + 4 * LANES].copy_from_slice(&px);
            } else {
                t.pixels[o..o + 4 * n].copy_from_slice(&px[..4 * n]);
            }
            i0 += LANES;
        }
    }
}

/// Eight premultiplied pixels (0..1) to interleaved straight RGBA8, rounding
/// to nearest; fully transparent pixels become (0, 0, 0, 0).
#[inline(always)]
pub fn to_straight_u8_lanes(p: [F32x8; 4]) -> [u8; 4 * LANES] {
    let zero = F32x8::splat(0.0);
    let one = F32x8::splat(1.0);
    let a = p[3].max(zero).min(one);
    let inv = one.div(a);
    let to_u8 = |v: F32x8| (v * F32x8::splat(255.0)).round_i32();
    let a8 = to_u8(a);
    let visible = (a8 - I32x8::splat(1)).non_negative();
    // Pack each pixel into one little-endian u32 with lane shifts, rather
    // than scattering 32 single bytes.
    let mut packed = a8 & visible;
    for ch in (0..3).rev() {
        let c = to_u8((p[ch] * inv).max(zero).min(one)) & visible;
        for i in 0..LANES {
            packed.0[i] = (packed.0[i] << 8) | c.0[i];
        }
    }
    let mut out = [0u8; 4 * LANES];
    for (o, v) in out.chunks_exact_mut(4).zip(packed.0) {
        o.copy_from_slice(&v.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to_straight_u8(p: [f32; 4]) -> [u8; 4] {
        let out = to_straight_u8_lanes(p.map(F32x8::splat));
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
            buf,
            ss,
            Target {
                pixels: &mut px,
                stride: 4,
                x: 0,
                y: 0,
                w: 1,
                h: 1,
                background: &[9; 4],
            },
        );
        px
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
