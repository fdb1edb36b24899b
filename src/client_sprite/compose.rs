//! Drawing an ACT frame as the client does: each layer's image centred on
//! the layer's offset from the entity position, mirrored, scaled per axis,
//! rotated clockwise, its colour multiplied by the tint, laid over the
//! layers before it.
//!
//! Every canvas pixel takes the texel its centre falls on (nearest, as the
//! client's sprites are unfiltered); an image of odd width therefore starts
//! half a pixel further left than its centre would say, the same on every
//! run. Pixels combine by straight-alpha "over".

use crate::formats::sprite::Layer;
use image::RgbaImage;

/// A pixel rectangle relative to the entity position: `min` inclusive,
/// `max` exclusive; empty when `min >= max` on either axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The top-left pixel, x and y.
    pub min: [i32; 2],
    /// One past the bottom-right pixel, x and y.
    pub max: [i32; 2],
}

impl Bounds {
    /// Nothing.
    pub const EMPTY: Bounds = Bounds {
        min: [i32::MAX, i32::MAX],
        max: [i32::MIN, i32::MIN],
    };

    /// Whether it holds no pixel.
    pub fn is_empty(&self) -> bool {
        self.min[0] >= self.max[0] || self.min[1] >= self.max[1]
    }

    /// The smallest rectangle holding both.
    pub fn union(self, o: Bounds) -> Bounds {
        if o.is_empty() {
            return self;
        }
        if self.is_empty() {
            return o;
        }
        Bounds {
            min: [self.min[0].min(o.min[0]), self.min[1].min(o.min[1])],
            max: [self.max[0].max(o.max[0]), self.max[1].max(o.max[1])],
        }
    }

    /// Width and height.
    pub fn size(&self) -> (u32, u32) {
        if self.is_empty() {
            (0, 0)
        } else {
            (
                (self.max[0] - self.min[0]) as u32,
                (self.max[1] - self.min[1]) as u32,
            )
        }
    }
}

/// How a layer maps canvas positions (relative to the entity, y down)
/// into its image.
struct Placement {
    centre: [f64; 2],
    /// The inverse of mirror × scale × rotation: canvas offset → image
    /// offset from its centre.
    inverse: [[f64; 2]; 2],
    /// Half the image's size.
    half: [f64; 2],
}

fn placement(layer: &Layer, width: u32, height: u32) -> Option<Placement> {
    let sx = layer.scale[0] as f64 * if layer.mirror != 0 { -1.0 } else { 1.0 };
    let sy = layer.scale[1] as f64;
    if !(sx.is_finite() && sy.is_finite()) || sx == 0.0 || sy == 0.0 {
        return None;
    }
    let a = (layer.rotation as f64).to_radians();
    let (sin, cos) = a.sin_cos();
    // forward = R · S with R turning clockwise on a y-down canvas; its
    // inverse is S⁻¹ · Rᵀ.
    let inverse = [[cos / sx, sin / sx], [-sin / sy, cos / sy]];
    Some(Placement {
        centre: [layer.x as f64, layer.y as f64],
        inverse,
        half: [width as f64 / 2.0, height as f64 / 2.0],
    })
}

/// Farthest, in pixels on either axis, a layer may reach from the entity
/// position: a frame's canvas, and a bake's over every frame, is then at
/// most 4096 px a side (64 MiB of RGBA). The client's own sprites stay
/// within a few hundred: the farthest layer the corpus holds reaches 238
/// (a flag NPC; `tests/it/sprite_corpus.rs`), and a boss or a skill effect
/// scaled 2× stays well inside the bound. A layer beyond it is refused when
/// the sprite loads, naming the action, frame and layer.
pub const MAX_REACH: i32 = 2048;

/// The area a layer of a `width × height` image covers, unrounded and
/// unbounded: `(min, max)` corners, or `None` when it draws nothing.
fn extent(layer: &Layer, width: u32, height: u32) -> Option<([f64; 2], [f64; 2])> {
    if width == 0 || height == 0 {
        return None;
    }
    let p = placement(layer, width, height)?;
    let sx = layer.scale[0] as f64 * if layer.mirror != 0 { -1.0 } else { 1.0 };
    let sy = layer.scale[1] as f64;
    let a = (layer.rotation as f64).to_radians();
    let (sin, cos) = a.sin_cos();
    let mut lo = [f64::MAX; 2];
    let mut hi = [f64::MIN; 2];
    for (u, v) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
        let (ix, iy) = (u * p.half[0] * sx, v * p.half[1] * sy);
        let x = p.centre[0] + cos * ix - sin * iy;
        let y = p.centre[1] + sin * ix + cos * iy;
        lo = [lo[0].min(x), lo[1].min(y)];
        hi = [hi[0].max(x), hi[1].max(y)];
    }
    Some((lo, hi))
}

/// How far beyond [`MAX_REACH`] a layer reaches: the farthest pixel's
/// distance from the entity position on either axis, when that is more
/// than `MAX_REACH`.
pub fn reach(layer: &Layer, width: u32, height: u32) -> Option<f64> {
    let (lo, hi) = extent(layer, width, height)?;
    let far = [lo[0].floor(), lo[1].floor(), hi[0].ceil(), hi[1].ceil()]
        .into_iter()
        .map(f64::abs)
        .fold(0.0, f64::max);
    (far > MAX_REACH as f64).then_some(far)
}

/// The pixels a layer of a `width × height` image covers, within
/// [`MAX_REACH`] of the entity position (a loaded sprite's layers all
/// are; the bound keeps any other caller's canvas small too).
pub fn layer_bounds(layer: &Layer, width: u32, height: u32) -> Bounds {
    let Some((lo, hi)) = extent(layer, width, height) else {
        return Bounds::EMPTY;
    };
    let m = MAX_REACH as f64;
    let clamp = |v: f64| v.clamp(-m, m) as i32;
    Bounds {
        min: [clamp(lo[0].floor()), clamp(lo[1].floor())],
        max: [clamp(hi[0].ceil()), clamp(hi[1].ceil())],
    }
}

/// Draws `image` (straight RGBA) as `layer` onto `canvas`, whose top-left
/// pixel sits at `origin` relative to the entity position.
pub fn draw_layer(canvas: &mut RgbaImage, origin: [i32; 2], layer: &Layer, image: &RgbaImage) {
    let (w, h) = image.dimensions();
    let Some(p) = placement(layer, w, h) else {
        return;
    };
    let b = layer_bounds(layer, w, h);
    let (cw, ch) = canvas.dimensions();
    let x0 = (b.min[0] - origin[0]).max(0);
    let y0 = (b.min[1] - origin[1]).max(0);
    let x1 = (b.max[0] - origin[0]).min(cw as i32);
    let y1 = (b.max[1] - origin[1]).min(ch as i32);
    let tint = layer.tint.map(|t| t as f32 / 255.0);
    for cy in y0..y1 {
        for cx in x0..x1 {
            let dx = (cx + origin[0]) as f64 + 0.5 - p.centre[0];
            let dy = (cy + origin[1]) as f64 + 0.5 - p.centre[1];
            let u = p.inverse[0][0] * dx + p.inverse[0][1] * dy + p.half[0];
            let v = p.inverse[1][0] * dx + p.inverse[1][1] * dy + p.half[1];
            let (tx, ty) = (u.floor(), v.floor());
            if tx < 0.0 || ty < 0.0 || tx >= w as f64 || ty >= h as f64 {
                continue;
            }
            let s = image.get_pixel(tx as u32, ty as u32).0;
            if s[3] == 0 {
                continue;
            }
            let src = [
                s[0] as f32 * tint[0],
                s[1] as f32 * tint[1],
                s[2] as f32 * tint[2],
                s[3] as f32 / 255.0 * tint[3],
            ];
            let d = canvas.get_pixel_mut(cx as u32, cy as u32);
            d.0 = over(src, d.0);
        }
    }
}

/// `src` (colour 0–255, alpha 0–1) over `dst`, straight alpha.
pub fn over(src: [f32; 4], dst: [u8; 4]) -> [u8; 4] {
    let sa = src[3];
    let da = dst[3] as f32 / 255.0;
    let a = sa + da * (1.0 - sa);
    if a <= 0.0 {
        return [0, 0, 0, 0];
    }
    let c = |i: usize| {
        let v = (src[i] * sa + dst[i] as f32 * da * (1.0 - sa)) / a;
        v.round().clamp(0.0, 255.0) as u8
    };
    [
        c(0),
        c(1),
        c(2),
        (a * 255.0).round().clamp(0.0, 255.0) as u8,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(x: i32, y: i32) -> Layer {
        Layer {
            x,
            y,
            image: 0,
            ..Layer::default()
        }
    }

    #[test]
    fn an_unscaled_image_lands_centred_on_its_offset() {
        let mut img = RgbaImage::new(4, 2);
        img.put_pixel(0, 0, image::Rgba([255, 0, 0, 255]));
        let l = layer(10, -5);
        assert_eq!(
            layer_bounds(&l, 4, 2),
            Bounds {
                min: [8, -6],
                max: [12, -4]
            }
        );
        let mut canvas = RgbaImage::new(4, 2);
        draw_layer(&mut canvas, [8, -6], &l, &img);
        assert_eq!(canvas, img);
        // Mirrored: the red texel moves to the right end.
        let mut m = l;
        m.mirror = 1;
        let mut canvas = RgbaImage::new(4, 2);
        draw_layer(&mut canvas, [8, -6], &m, &img);
        assert_eq!(canvas.get_pixel(3, 0).0, [255, 0, 0, 255]);
        assert_eq!(canvas.get_pixel(0, 0).0, [0, 0, 0, 0]);
    }

    #[test]
    fn rotation_turns_clockwise_and_tint_multiplies() {
        let mut img = RgbaImage::new(2, 2);
        img.put_pixel(1, 0, image::Rgba([200, 100, 50, 255]));
        let mut l = layer(0, 0);
        l.rotation = 90;
        l.tint = [255, 255, 255, 128];
        let mut canvas = RgbaImage::new(2, 2);
        draw_layer(&mut canvas, [-1, -1], &l, &img);
        // Top-right turns to bottom-right, at half strength.
        assert_eq!(canvas.get_pixel(1, 1).0, [200, 100, 50, 128]);
        assert_eq!(canvas.get_pixel(1, 0).0[3], 0);
    }

    #[test]
    fn over_keeps_straight_colour() {
        assert_eq!(
            over([10.0, 20.0, 30.0, 0.5], [0, 0, 0, 0]),
            [10, 20, 30, 128]
        );
        assert_eq!(
            over([255.0, 0.0, 0.0, 0.5], [0, 0, 255, 255]),
            [128, 0, 128, 255]
        );
    }
}
