//! Box-filter resolve of a tile's samples into straight-alpha RGBA8 pixels.
//!
//! Averaging happens on premultiplied values, so a half-covered edge sample
//! over a transparent background keeps the object's colour at half alpha
//! instead of darkening; un-premultiplying is the last step.

use super::framebuffer::{TileBuffer, TILE};

/// Where a tile lands in the output image, in output pixels.
pub struct Target<'a> {
    pub pixels: &'a mut [u8],
    pub stride: usize,
    pub x: usize,
    pub y: usize,
    pub w: usize,
    pub h: usize,
}

pub fn resolve(buf: &TileBuffer, ss: usize, t: Target<'_>) {
    let norm = 1.0 / (ss * ss) as f32;
    for j in 0..t.h {
        let row = (t.y + j) * t.stride;
        for i in 0..t.w {
            let mut sum = [0.0f32; 4];
            for sy in 0..ss {
                let base = (j * ss + sy) * TILE + i * ss;
                for (ch, s) in sum.iter_mut().enumerate() {
                    *s += buf.color[ch][base..base + ss].iter().sum::<f32>();
                }
            }
            let px = to_straight_u8(sum.map(|v| v * norm));
            let o = row + (t.x + i) * 4;
            t.pixels[o..o + 4].copy_from_slice(&px);
        }
    }
}

/// Premultiplied 0..1 to straight RGBA8, rounding; fully transparent pixels
/// become (0, 0, 0, 0).
pub fn to_straight_u8(p: [f32; 4]) -> [u8; 4] {
    let a = p[3].clamp(0.0, 1.0);
    let a8 = (a * 255.0).round();
    if !(a8 >= 1.0) {
        return [0; 4];
    }
    let inv = 1.0 / a;
    let c = |v: f32| ((v * inv).clamp(0.0, 1.0) * 255.0).round() as u8;
    [c(p[0]), c(p[1]), c(p[2]), a8 as u8]
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn box_filter_averages_premultiplied_samples() {
        let mut buf = TileBuffer::new();
        buf.clear([0.0; 4]);
        // 2×2 samples for pixel (0,0): one opaque white sample, three empty.
        for ch in 0..4 {
            buf.color[ch][0] = 1.0;
        }
        let mut px = vec![0u8; 4];
        resolve(
            &buf,
            2,
            Target {
                pixels: &mut px,
                stride: 4,
                x: 0,
                y: 0,
                w: 1,
                h: 1,
            },
        );
        assert_eq!(px, [255, 255, 255, 64]);
    }
}
