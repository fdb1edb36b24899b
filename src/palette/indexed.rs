//! The palette of indexed images (GIF, RO sprites): index 0 left for
//! transparency and at most [`MAX_INDEXED`] colours after it, so a colour
//! keeps its index from frame to frame and nothing flickers. Frames with at
//! most that many distinct opaque colours keep them exactly; otherwise the
//! median cut picks them.
//!
//! Mapping is exact for every colour seen while building; optional
//! Floyd–Steinberg dithering spreads the error to the right and below, in
//! a fixed scan order.

use super::cut::{self, pack, Rule};
use super::search::SeenColors;
use super::Palette;
use image::RgbaImage;

/// Palette index of transparent pixels.
pub const TRANSPARENT: u8 = 0;
/// Most opaque colours in an indexed palette (index 0 is transparency).
pub const MAX_INDEXED: usize = 255;

/// A palette with index 0 transparent and `colors()[i]` at index `i + 1`,
/// plus the mapping from every opaque colour seen to its index.
#[derive(Debug, Clone, PartialEq)]
pub struct Indexed {
    /// The opaque colours, index 1 on (empty when no pixel was opaque).
    palette: Palette,
    /// Pixels with less alpha are transparent.
    pub alpha_cutoff: u8,
    /// Every opaque colour seen while building, and its index.
    seen: SeenColors,
}

impl Indexed {
    /// One palette over every pixel of `frames` with alpha ≥ `alpha_cutoff`.
    pub fn build(frames: &[&RgbaImage], alpha_cutoff: u8) -> Indexed {
        let mut hist = cut::exact_histogram(frames, alpha_cutoff);
        let cuts = cut::median_cut(&mut hist, MAX_INDEXED, Rule::Indexed);
        let mut lookup: Vec<(u32, u8)> = Vec::with_capacity(hist.len());
        for (i, c) in cuts.iter().enumerate() {
            for e in &hist[c.entries.clone()] {
                lookup.push((pack([e.0[0], e.0[1], e.0[2], 0]), (i + 1) as u8));
            }
        }
        // Sorted, so the same mapping always fills the same slots and
        // equal palettes compare equal.
        lookup.sort_unstable_by_key(|e| e.0);
        Indexed {
            palette: Palette::distinct(cuts.into_iter().map(|c| c.color).collect()),
            seen: SeenColors::new(&lookup),
            alpha_cutoff,
        }
    }

    /// The opaque colours, index 1 on.
    pub fn colors(&self) -> &[[u8; 3]] {
        self.palette.colors()
    }

    /// The colours as a [`Palette`].
    pub fn palette(&self) -> &Palette {
        &self.palette
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
            .and_then(|i| self.colors().get(i).copied())
    }

    /// Index (1-based) of the entry nearest `c` (each channel 0..=255);
    /// ties go to the lower index.
    fn nearest(&self, c: [i32; 3]) -> u8 {
        (self.palette.nearest(c.map(|v| v.clamp(0, 255) as u8)) + 1) as u8
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

#[cfg(test)]
mod tests {
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
        let p = super::Indexed::build(&[&img], 128);
        assert_eq!(p.colors().len(), super::MAX_INDEXED);
        let plain = p.map(&img, false);
        assert!(
            p.palette.near.get().is_none(),
            "the search was made for seen colours"
        );
        assert_eq!(plain[0], super::TRANSPARENT);
        assert!(
            plain[1..].iter().all(|&i| i >= 1),
            "opaque pixels got a colour"
        );
        // An unseen colour and dithering make it, and leave the palette
        // equal to one that never made it.
        let twin = super::Indexed::build(&[&img], 128);
        let unseen = p.index_of([1, 2, 3, 255]);
        assert!(p.palette.near.get().is_some());
        let c = p.color(unseen).unwrap();
        let d = |q: [u8; 3]| {
            (0..3)
                .map(|k| (q[k] as i32 - [1, 2, 3][k]).pow(2))
                .sum::<i32>()
        };
        assert_eq!(d(c), p.colors().iter().map(|&q| d(q)).min().unwrap());
        assert_eq!(p, twin);
        assert_eq!(p.map(&img, true).len(), plain.len());
    }
}
