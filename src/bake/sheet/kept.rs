//! A frame's pixels as the sheet compositor and the packer read them: a
//! whole rendered image, or the part of one a packed sheet keeps (its
//! trimmed box), so a packed job holds its sprites' pixels rather than
//! every whole frame while it waits to be packed.

use crate::bake::sheet::atlas::Rect;
use image::RgbaImage;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// The bounding box of the pixels with any alpha; one pixel at the origin
/// for an empty image.
pub fn opaque_bounds(img: &RgbaImage) -> Rect {
    let (w, h) = img.dimensions();
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for (x, y, p) in img.enumerate_pixels() {
        if p.0[3] > 0 {
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
    }
    if x0 > x1 || w == 0 || h == 0 {
        return Rect {
            x: 0,
            y: 0,
            w: 1.min(w),
            h: 1.min(h),
        };
    }
    Rect {
        x: x0,
        y: y0,
        w: x1 - x0 + 1,
        h: y1 - y0 + 1,
    }
}

/// A rendered frame, whole or in part.
pub trait FramePixels: Sync {
    /// The rendered frame's full size, `(width, height)`.
    fn size(&self) -> (u32, u32);
    /// Whether every pixel of `r` (in the full frame) is held.
    fn holds(&self, r: Rect) -> bool;
    /// The bytes of `w` pixels of row `y` from column `x` of the full
    /// frame; empty where they are not held.
    fn row(&self, x: u32, y: u32, w: u32) -> &[u8];
    /// The box of the pixels with any alpha ([`opaque_bounds`]).
    fn bounds(&self) -> Rect;
}

impl<T: FramePixels> FramePixels for &T {
    fn size(&self) -> (u32, u32) {
        (**self).size()
    }

    fn holds(&self, r: Rect) -> bool {
        (**self).holds(r)
    }

    fn row(&self, x: u32, y: u32, w: u32) -> &[u8] {
        (**self).row(x, y, w)
    }

    fn bounds(&self) -> Rect {
        (**self).bounds()
    }
}

impl FramePixels for RgbaImage {
    fn size(&self) -> (u32, u32) {
        self.dimensions()
    }

    fn holds(&self, r: Rect) -> bool {
        within(r, self.dimensions())
    }

    fn row(&self, x: u32, y: u32, w: u32) -> &[u8] {
        image_row(self, x, y, w)
    }

    fn bounds(&self) -> Rect {
        opaque_bounds(self)
    }
}

/// The part of a rendered frame a packed sheet keeps: its trimmed box when
/// every pixel outside it is zero (transparent black, what kiln draws
/// around a model), else the whole frame, so the frame can always be
/// restored exactly ([`Kept::restore`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    size: (u32, u32),
    /// Where `pixels` sit in the full frame.
    at: Rect,
    pixels: RgbaImage,
    /// The box of pixels with any alpha (the whole frame when not
    /// trimmed).
    bounds: Rect,
}

impl Kept {
    /// What a packed sheet keeps of `img`: with `trim`, the box of its
    /// pixels with any alpha.
    pub fn new(img: RgbaImage, trim: bool) -> Kept {
        let size = img.dimensions();
        let whole = Rect {
            x: 0,
            y: 0,
            w: size.0,
            h: size.1,
        };
        if !trim {
            return Kept {
                size,
                at: whole,
                pixels: img,
                bounds: whole,
            };
        }
        let bounds = opaque_bounds(&img);
        if bounds == whole || !zero_outside(&img, bounds) {
            return Kept {
                size,
                at: whole,
                pixels: img,
                bounds,
            };
        }
        let mut pixels = RgbaImage::new(bounds.w, bounds.h);
        for y in 0..bounds.h {
            let row = image_row(&img, bounds.x, bounds.y + y, bounds.w);
            let at = y as usize * bounds.w as usize * 4;
            pixels.as_mut()[at..at + row.len()].copy_from_slice(row);
        }
        Kept {
            size,
            at: bounds,
            pixels,
            bounds,
        }
    }

    /// The whole frame again, exactly as drawn.
    pub fn restore(&self) -> RgbaImage {
        if self.at.w == self.size.0 && self.at.h == self.size.1 {
            return self.pixels.clone();
        }
        let mut img = RgbaImage::new(self.size.0, self.size.1);
        let stride = self.size.0 as usize * 4;
        for y in 0..self.at.h {
            let row = self.row(self.at.x, self.at.y + y, self.at.w);
            let at = (self.at.y + y) as usize * stride + self.at.x as usize * 4;
            img.as_mut()[at..at + row.len()].copy_from_slice(row);
        }
        img
    }

    /// The pixels held: the trimmed box, or the whole frame.
    pub fn pixels(&self) -> &RgbaImage {
        &self.pixels
    }
}

/// Kept frames stored once however often they repeat (a still seen from a
/// symmetric side, the held end of a one-shot, a model that does not
/// move): a frame whose kept pixels equal an earlier one's shares its
/// copy, so memory follows the distinct sprites, as the packed sheet does.
#[derive(Default)]
pub struct Twins(Mutex<HashMap<u64, Vec<Arc<Kept>>>>);

impl Twins {
    /// `k`, or the copy of it already kept.
    pub fn keep(&self, k: Kept) -> Arc<Kept> {
        let mut h = std::hash::DefaultHasher::new();
        (k.size, k.at.x, k.at.y, k.at.w, k.at.h).hash(&mut h);
        k.pixels.as_raw().hash(&mut h);
        let key = h.finish();
        let mut pool = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let same = pool.entry(key).or_default();
        if let Some(o) = same.iter().find(|o| ***o == k) {
            return Arc::clone(o);
        }
        let k = Arc::new(k);
        same.push(Arc::clone(&k));
        k
    }
}

impl FramePixels for Kept {
    fn size(&self) -> (u32, u32) {
        self.size
    }

    fn holds(&self, r: Rect) -> bool {
        within(r, self.size)
            && r.x >= self.at.x
            && r.y >= self.at.y
            && r.x + r.w <= self.at.x + self.at.w
            && r.y + r.h <= self.at.y + self.at.h
    }

    fn row(&self, x: u32, y: u32, w: u32) -> &[u8] {
        if x < self.at.x || y < self.at.y {
            return &[];
        }
        image_row(&self.pixels, x - self.at.x, y - self.at.y, w)
    }

    fn bounds(&self) -> Rect {
        self.bounds
    }
}

/// The bytes of `w` pixels of row `y` of `img` from column `x`; empty
/// past its edge.
fn image_row(img: &RgbaImage, x: u32, y: u32, w: u32) -> &[u8] {
    let at = (y as usize * img.width() as usize + x as usize) * 4;
    img.as_raw().get(at..at + w as usize * 4).unwrap_or(&[])
}

/// Whether `r` lies within a frame of `size`.
fn within(r: Rect, size: (u32, u32)) -> bool {
    let fits = |x: u32, w: u32, max: u32| x.checked_add(w).is_some_and(|end| end <= max);
    fits(r.x, r.w, size.0) && fits(r.y, r.h, size.1)
}

/// Whether every byte of `img` outside `r` is zero.
fn zero_outside(img: &RgbaImage, r: Rect) -> bool {
    let stride = img.width() as usize * 4;
    let raw = img.as_raw();
    raw.chunks(stride).enumerate().all(|(y, row)| {
        let y = y as u32;
        if y < r.y || y >= r.y + r.h {
            return row.iter().all(|&b| b == 0);
        }
        let (a, b) = (r.x as usize * 4, (r.x + r.w) as usize * 4);
        row[..a].iter().all(|&v| v == 0) && row[b..].iter().all(|&v| v == 0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sprite(w: u32, h: u32, fill: [u8; 4]) -> RgbaImage {
        RgbaImage::from_fn(w, h, |x, y| {
            if (3..7).contains(&x) && (2..5).contains(&y) {
                image::Rgba([x as u8 * 20, y as u8 * 30, 7, 100 + x as u8])
            } else {
                image::Rgba(fill)
            }
        })
    }

    #[test]
    fn a_trimmed_frame_keeps_its_box_and_restores_exactly() {
        let img = sprite(10, 8, [0, 0, 0, 0]);
        let k = Kept::new(img.clone(), true);
        let b = Rect {
            x: 3,
            y: 2,
            w: 4,
            h: 3,
        };
        assert_eq!(
            (k.bounds(), k.at, k.pixels().as_raw().len()),
            (b, b, 4 * 3 * 4)
        );
        assert_eq!(k.restore(), img);
        assert!(k.holds(b) && !k.holds(Rect { x: 2, ..b }));
        assert_eq!(k.row(4, 3, 2), image_row(&img, 4, 3, 2));
        assert!(k.row(0, 0, 1).is_empty());
    }

    #[test]
    fn colour_under_transparency_keeps_the_whole_frame() {
        // Transparent but not black around the sprite: trimming would lose
        // it, so the whole frame is held (the box is still the trim).
        let img = sprite(10, 8, [9, 9, 9, 0]);
        let k = Kept::new(img.clone(), true);
        assert_eq!(
            k.bounds(),
            Rect {
                x: 3,
                y: 2,
                w: 4,
                h: 3
            }
        );
        assert_eq!(k.pixels().as_raw().len(), 10 * 8 * 4);
        assert_eq!(k.restore(), img);
        let untrimmed = Kept::new(img.clone(), false);
        assert_eq!(
            untrimmed.bounds(),
            Rect {
                x: 0,
                y: 0,
                w: 10,
                h: 8
            }
        );
        assert_eq!(untrimmed.restore(), img);
        // An empty frame keeps one transparent pixel.
        let empty = Kept::new(RgbaImage::new(5, 5), true);
        assert_eq!(
            (empty.pixels().as_raw().len(), empty.restore()),
            (4, RgbaImage::new(5, 5))
        );
    }

    #[test]
    fn twins_are_kept_once() {
        let twins = Twins::default();
        let a = twins.keep(Kept::new(sprite(10, 8, [0, 0, 0, 0]), true));
        let b = twins.keep(Kept::new(sprite(10, 8, [0, 0, 0, 0]), true));
        let c = twins.keep(Kept::new(sprite(10, 8, [9, 9, 9, 0]), true));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        // The same box elsewhere in the frame is another sprite.
        let mut moved = RgbaImage::new(10, 8);
        image::imageops::replace(&mut moved, &sprite(10, 8, [0, 0, 0, 0]), 1, 0);
        let d = twins.keep(Kept::new(moved, true));
        assert!(!Arc::ptr_eq(&a, &d));
        assert_eq!(a.pixels(), d.pixels());
    }
}
