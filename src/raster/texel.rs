//! Bilinear texel filtering, eight lanes at a time: textures repeat,
//! lightmaps clamp to their edge.
//!
//! Texture texels are premultiplied, so filtering across a transparent
//! texel fades alpha and colour together instead of dragging its colour in.

use super::lanes::{F32x8, I32x8, LANES};
use super::LightmapLayer;
use crate::texture::Texture;

/// Keeps coordinates where the truncating floor in [`F32x8::floor`] is exact;
/// beyond it a float has no fractional bits left to filter with anyway.
const UV_LIMIT: f32 = 1.0e6;

#[derive(Debug, Clone, Copy)]
pub struct TexView<'a> {
    texels: &'a [[u8; 4]],
    w: i32,
    h: i32,
}

impl<'a> TexView<'a> {
    /// `None` for an empty texture or one whose texel count does not match
    /// its size; those draw as if untextured.
    pub fn new(t: &'a Texture) -> Option<Self> {
        let n = (t.width as u64).checked_mul(t.height as u64)?;
        // The lane floor is exact below 2^22; 2^20 texels a side is plenty.
        if n == 0 || n != t.texels.len() as u64 || t.width > 1 << 20 || t.height > 1 << 20 {
            return None;
        }
        Some(TexView {
            texels: &t.texels,
            w: t.width as i32,
            h: t.height as i32,
        })
    }

    /// Premultiplied RGBA in 0..1 per lane; lanes outside `mask` are zero.
    pub fn bilinear(&self, u: F32x8, v: F32x8, mask: I32x8) -> [F32x8; 4] {
        let (ix0, ix1, fx) = wrap_axis(u, self.w);
        let (iy0, iy1, fy) = wrap_axis(v, self.h);
        filter_taps(self.texels, self.w, (ix0, ix1, fx), (iy0, iy1, fy), mask)
    }
}

/// A lightmap layer ready to filter: straight RGBA, clamp to edge.
#[derive(Debug, Clone, Copy)]
pub struct LightView<'a> {
    texels: &'a [[u8; 4]],
    w: i32,
    h: i32,
}

impl<'a> LightView<'a> {
    /// `None` for an empty layer or one with fewer texels than its size
    /// (such a layer is ignored); extra texels are never read.
    pub fn new(l: &LightmapLayer<'a>) -> Option<Self> {
        let n = (l.width as u64).checked_mul(l.height as u64)?;
        if n == 0 || n > l.texels.len() as u64 || l.width > 1 << 20 || l.height > 1 << 20 {
            return None;
        }
        Some(LightView {
            texels: &l.texels[..n as usize],
            w: l.width as i32,
            h: l.height as i32,
        })
    }

    /// Straight RGBA in 0..1 per lane; lanes outside `mask` are zero.
    pub fn bilinear(&self, u: F32x8, v: F32x8, mask: I32x8) -> [F32x8; 4] {
        let (ix0, ix1, fx) = clamp_axis(u, self.w);
        let (iy0, iy1, fy) = clamp_axis(v, self.h);
        filter_taps(self.texels, self.w, (ix0, ix1, fx), (iy0, iy1, fy), mask)
    }
}

/// One axis of a bilinear footprint: the two texel indices and the weight of
/// the second.
type Axis = (I32x8, I32x8, F32x8);

/// Filters the four taps of each live lane (channels as stored).
#[inline(always)]
fn filter_taps(texels: &[[u8; 4]], w: i32, x: Axis, y: Axis, mask: I32x8) -> [F32x8; 4] {
    let (ix0, ix1, fx) = x;
    let (iy0, iy1, fy) = y;
    // Fixed-point weights (8 fractional bits, like texture hardware) let a
    // u64 hold several channels, so a bilinear tap is a few integer
    // multiplies per lane and stays exact: 255·256·256 < 2^24, which
    // also converts to f32 without rounding.
    let wx = (fx * F32x8::splat(256.0)).round_i32();
    let wy = (fy * F32x8::splat(256.0)).round_i32();
    let mut out = [[0i32; LANES]; 4];
    for i in 0..LANES {
        if mask.0[i] == 0 {
            continue;
        }
        let r0 = (iy0.0[i] * w) as usize;
        let r1 = (iy1.0[i] * w) as usize;
        let (c0, c1) = (ix0.0[i] as usize, ix1.0[i] as usize);
        let tap = |idx: usize| spread(texels.get(idx).copied().unwrap_or([0; 4]));
        let (fx, fy) = (wx.0[i].clamp(0, 256) as u64, wy.0[i].clamp(0, 256) as u64);
        // Horizontal pass with all four channels in 16-bit slots (each
        // result ≤ 255·256), then split into 32-bit slots for the vertical.
        let top = lerp(tap(r0 + c0), tap(r0 + c1), fx);
        let bottom = lerp(tap(r1 + c0), tap(r1 + c1), fx);
        const LOW16: u64 = 0x0000_FFFF_0000_FFFF;
        let rb = lerp(top & LOW16, bottom & LOW16, fy);
        let ga = lerp((top >> 16) & LOW16, (bottom >> 16) & LOW16, fy);
        // < 2^24, so the i32 route is exact (u64 → f32 is not one
        // instruction on x86-64).
        out[0][i] = (rb & 0xFFFF_FFFF) as i32;
        out[2][i] = (rb >> 32) as i32;
        out[1][i] = (ga & 0xFFFF_FFFF) as i32;
        out[3][i] = (ga >> 32) as i32;
    }
    let scale = F32x8::splat(1.0 / (255.0 * 65536.0));
    out.map(|c| I32x8(c).to_f32() * scale)
}

/// RGBA8 into four 16-bit slots of a u64, red lowest.
#[inline(always)]
fn spread(t: [u8; 4]) -> u64 {
    let x = u32::from_le_bytes(t) as u64;
    let x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
}

/// `a·(256 - f) + b·f` in every slot (scaled by 256, unrounded); slots
/// cannot carry because the weights sum to 256.
#[inline(always)]
fn lerp(a: u64, b: u64, f: u64) -> u64 {
    a * (256 - f) + b * f
}

/// Texel indices either side of coordinate `u` and the weight of the second,
/// with texel centres at (i + ½) / size and wrap-around at both ends.
#[inline(always)]
fn wrap_axis(u: F32x8, size: i32) -> (I32x8, I32x8, F32x8) {
    let u = u.max(F32x8::splat(-UV_LIMIT)).min(F32x8::splat(UV_LIMIT));
    let fu = u - u.floor();
    let x = fu * F32x8::splat(size as f32) - F32x8::splat(0.5);
    let xf = x.floor();
    let frac = x - xf;
    let mut i0 = xf.round_i32();
    let mut i1 = i0;
    for k in 0..LANES {
        // -1 wraps to the last texel, `size` to the first; the clamp only
        // guards against float edge cases.
        let a = if i0.0[k] < 0 { size - 1 } else { i0.0[k] };
        let a = a.clamp(0, size - 1);
        let b = if a + 1 >= size { 0 } else { a + 1 };
        i0.0[k] = a;
        i1.0[k] = b;
    }
    (i0, i1, frac)
}

/// Texel indices either side of coordinate `u` and the weight of the second,
/// with texel centres at (i + ½) / size; outside the centres of the first and
/// last texel both indices name the edge texel.
#[inline(always)]
fn clamp_axis(u: F32x8, size: i32) -> (I32x8, I32x8, F32x8) {
    // Beyond one texture width outside [0, 1] every lookup gives the edge texel
    // anyway; the bound keeps the lane floor exact and maps NaN to an edge.
    let u = u.max(F32x8::splat(-1.0)).min(F32x8::splat(2.0));
    let x = u * F32x8::splat(size as f32) - F32x8::splat(0.5);
    let xf = x.floor();
    let frac = x - xf;
    let mut i0 = xf.round_i32();
    let mut i1 = i0;
    for k in 0..LANES {
        let a = i0.0[k];
        i0.0[k] = a.clamp(0, size - 1);
        i1.0[k] = a.saturating_add(1).clamp(0, size - 1);
    }
    (i0, i1, frac)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::TextureAlpha;

    fn tex2x2() -> Texture {
        Texture {
            name: "t".into(),
            width: 2,
            height: 2,
            // top-left red, top-right green, bottom-left blue, bottom-right white
            texels: vec![
                [255, 0, 0, 255],
                [0, 255, 0, 255],
                [0, 0, 255, 255],
                [255, 255, 255, 255],
            ],
            alpha: TextureAlpha::Opaque,
        }
    }

    fn one(view: &TexView, u: f32, v: f32) -> [f32; 4] {
        let r = view.bilinear(F32x8::splat(u), F32x8::splat(v), I32x8::splat(-1));
        [r[0].0[0], r[1].0[0], r[2].0[0], r[3].0[0]]
    }

    fn close(a: [f32; 4], b: [f32; 4]) {
        for i in 0..4 {
            assert!((a[i] - b[i]).abs() < 1e-6, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn texel_centres_return_the_texel() {
        let t = tex2x2();
        let v = TexView::new(&t).unwrap();
        close(one(&v, 0.25, 0.25), [1.0, 0.0, 0.0, 1.0]);
        close(one(&v, 0.75, 0.25), [0.0, 1.0, 0.0, 1.0]);
        close(one(&v, 0.25, 0.75), [0.0, 0.0, 1.0, 1.0]);
        close(one(&v, 0.75, 0.75), [1.0, 1.0, 1.0, 1.0]);
    }

    #[test]
    fn centre_averages_and_edges_wrap() {
        let t = tex2x2();
        let v = TexView::new(&t).unwrap();
        close(one(&v, 0.5, 0.5), [0.5, 0.5, 0.5, 1.0]);
        // u = 0 sits halfway between the last and the first column.
        close(one(&v, 0.0, 0.25), [0.5, 0.5, 0.0, 1.0]);
        close(one(&v, 1.0, 0.25), [0.5, 0.5, 0.0, 1.0]);
        // 3/8 across: 3/4 of the left texel, 1/4 of the right one.
        close(one(&v, 0.375, 0.25), [0.75, 0.25, 0.0, 1.0]);
        // Repeat: u + 3 and v - 2 filter the same place.
        close(one(&v, 3.375, -1.75), [0.75, 0.25, 0.0, 1.0]);
    }

    #[test]
    fn empty_or_inconsistent_textures_are_rejected() {
        let mut t = tex2x2();
        t.texels.pop();
        assert!(TexView::new(&t).is_none());
        t.width = 0;
        t.texels.clear();
        assert!(TexView::new(&t).is_none());
    }

    #[test]
    fn nan_coordinates_do_not_panic() {
        let t = tex2x2();
        let v = TexView::new(&t).unwrap();
        let r = one(&v, f32::NAN, f32::INFINITY);
        assert!(r.iter().all(|c| c.is_finite()));
    }

    #[test]
    fn lightmap_clamps_to_edge_and_keeps_straight_colour() {
        // top-left, top-right, bottom-left, bottom-right; alpha is a
        // brightness, so a transparent texel still filters its colour in.
        let texels = [
            [255, 0, 0, 255],
            [0, 255, 0, 0],
            [0, 0, 255, 255],
            [255, 255, 255, 0],
        ];
        let l = LightmapLayer {
            width: 2,
            height: 2,
            texels: &texels,
            uvs: &[],
        };
        let v = LightView::new(&l).unwrap();
        let one = |u: f32, w: f32| {
            let r = v.bilinear(F32x8::splat(u), F32x8::splat(w), I32x8::splat(-1));
            [r[0].0[0], r[1].0[0], r[2].0[0], r[3].0[0]]
        };
        close(one(0.25, 0.25), [1.0, 0.0, 0.0, 1.0]);
        close(one(0.5, 0.25), [0.5, 0.5, 0.0, 0.5]);
        // Outside the texel centres the edge texel is repeated, not wrapped.
        close(one(0.0, 0.25), [1.0, 0.0, 0.0, 1.0]);
        close(one(1.0, 0.25), [0.0, 1.0, 0.0, 0.0]);
        close(one(-7.0, 9.0), [0.0, 0.0, 1.0, 1.0]);
        close(one(0.5, 1.0), [0.5, 0.5, 1.0, 0.5]);
        // NaN lands on an edge instead of panicking.
        assert!(one(f32::NAN, f32::NAN).iter().all(|c| c.is_finite()));
    }

    #[test]
    fn unusable_lightmaps_are_rejected() {
        let texels = [[0u8; 4]; 4];
        let l = |w: u32, h: u32, n: usize| LightmapLayer {
            width: w,
            height: h,
            texels: &texels[..n],
            uvs: &[],
        };
        assert!(LightView::new(&l(2, 2, 4)).is_some());
        // Spare texels are allowed and never read.
        assert!(LightView::new(&l(1, 3, 4)).is_some());
        assert!(LightView::new(&l(2, 2, 3)).is_none());
        assert!(LightView::new(&l(0, 2, 4)).is_none());
        assert!(LightView::new(&l(2, 0, 4)).is_none());
        assert!(LightView::new(&l(u32::MAX, u32::MAX, 4)).is_none());
    }
}
