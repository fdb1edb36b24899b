//! Mapping a frame to a palette: alpha thresholded to 0 or 255, then each
//! opaque pixel replaced by its nearest palette colour (squared RGB
//! distance, ties to the earlier colour), directly, through an 8×8 Bayer
//! threshold (ordered dithering, fixed to frame coordinates so still parts
//! of an animation do not shimmer), or with Floyd–Steinberg error
//! diffusion (left to right, top to bottom, error kept to opaque pixels).

use super::Dither;
use crate::palette::{Nearest, Palette};
use image::RgbaImage;

/// Alpha from which a pixel becomes opaque; below it, transparent.
pub const OPAQUE_FROM: u8 = 128;

/// The 8×8 Bayer matrix, values 0..64.
const BAYER: [[u8; 8]; 8] = [
    [0, 32, 8, 40, 2, 34, 10, 42],
    [48, 16, 56, 24, 50, 18, 58, 26],
    [12, 44, 4, 36, 14, 46, 6, 38],
    [60, 28, 52, 20, 62, 30, 54, 22],
    [3, 35, 11, 43, 1, 33, 9, 41],
    [51, 19, 59, 27, 49, 17, 57, 25],
    [15, 47, 7, 39, 13, 45, 5, 37],
    [63, 31, 55, 23, 61, 29, 53, 21],
];

/// A palette's mapping, built once per job and shared by every frame:
/// the exact nearest-colour search of [`crate::palette::Nearest`], and for
/// ordered dithering each Bayer threshold's shifted channel values as a
/// table, so a pixel costs three lookups and a short search.
pub struct Mapper<'a> {
    colors: &'a [[u8; 3]],
    near: &'a Nearest,
    dither: Dither,
    /// `shifted[t][v]`: channel value `v` moved by Bayer threshold `t`.
    shifted: Vec<[u8; 256]>,
}

impl<'a> Mapper<'a> {
    /// A mapper to `palette`, dithering as `dither` says.
    pub fn new(palette: &'a Palette, dither: Dither) -> Mapper<'a> {
        let colors = palette.colors();
        let shifted = if dither == Dither::Ordered {
            let spread = spread(colors);
            (0..64)
                .map(|t| {
                    let off = ((t as f32 + 0.5) / 64.0 - 0.5) * spread;
                    std::array::from_fn(|v| (v as f32 + off).round().clamp(0.0, 255.0) as u8)
                })
                .collect()
        } else {
            Vec::new()
        };
        Mapper {
            colors,
            near: palette.search(),
            dither,
            shifted,
        }
    }

    /// Index of the palette colour nearest to `c`.
    pub fn nearest(&self, c: [u8; 3]) -> u8 {
        self.near.index(c) as u8
    }

    /// Maps `img` in place.
    pub fn map(&self, img: &mut RgbaImage) {
        let w = img.width() as usize;
        if w == 0 {
            return;
        }
        let colors = self.colors;
        match self.dither {
            Dither::None | Dither::Ordered => {
                let ordered = self.dither == Dither::Ordered;
                let pixels: &mut [u8] = img;
                for (y, row) in pixels.chunks_exact_mut(w * 4).enumerate() {
                    let bayer = &BAYER[y % 8];
                    for (x, px) in row.chunks_exact_mut(4).enumerate() {
                        if px[3] < OPAQUE_FROM {
                            px.copy_from_slice(&[0, 0, 0, 0]);
                            continue;
                        }
                        let mut c = [px[0], px[1], px[2]];
                        if ordered {
                            let table = &self.shifted[bayer[x % 8] as usize];
                            c = c.map(|v| table[v as usize]);
                        }
                        let p = colors[self.near.index(c)];
                        px.copy_from_slice(&[p[0], p[1], p[2], 255]);
                    }
                }
            }
            Dither::Diffusion => self.diffuse(img),
        }
    }

    fn diffuse(&self, img: &mut RgbaImage) {
        let (w, h) = (img.width() as usize, img.height() as usize);
        let colors = self.colors;
        let mut err = vec![[0f32; 3]; w * 2];
        for y in 0..h {
            let (cur, next) = err.split_at_mut(w);
            if y > 0 {
                cur.copy_from_slice(next);
                next.fill([0.0; 3]);
            }
            for x in 0..w {
                let px = img.get_pixel_mut(x as u32, y as u32);
                if px[3] < OPAQUE_FROM {
                    px.0 = [0, 0, 0, 0];
                    continue;
                }
                let want: [f32; 3] =
                    std::array::from_fn(|k| (px[k] as f32 + cur[x][k]).clamp(0.0, 255.0));
                let p = colors[self.nearest(want.map(|v| v.round() as u8)) as usize];
                px.0 = [p[0], p[1], p[2], 255];
                let e: [f32; 3] = std::array::from_fn(|k| want[k] - p[k] as f32);
                let spill = |row: &mut [[f32; 3]], xx: usize, f: f32| {
                    for k in 0..3 {
                        row[xx][k] += e[k] * f;
                    }
                };
                if x + 1 < w {
                    spill(cur, x + 1, 7.0 / 16.0);
                    spill(next, x + 1, 1.0 / 16.0);
                }
                if x > 0 {
                    spill(next, x - 1, 3.0 / 16.0);
                }
                spill(next, x, 5.0 / 16.0);
            }
        }
    }
}

/// The ordered dither's per-channel amplitude: the palette's mean distance
/// from a colour to its nearest neighbour, per channel (÷ √3), so a
/// coarse palette gets a wide dither and a fine one a faint dither.
fn spread(colors: &[[u8; 3]]) -> f32 {
    if colors.len() < 2 {
        return 0.0;
    }
    let mut sum = 0.0f64;
    for (i, a) in colors.iter().enumerate() {
        let mut best = f64::INFINITY;
        for (j, b) in colors.iter().enumerate() {
            if i != j {
                let d: f64 = (0..3).map(|k| (a[k] as f64 - b[k] as f64).powi(2)).sum();
                best = best.min(d);
            }
        }
        sum += best.sqrt();
    }
    (sum / colors.len() as f64 / 3f64.sqrt()) as f32
}
