//! Texel filtering, eight lanes at a time: textures bilinear or nearest,
//! repeating, clamped or mirrored as their sampler says; lightmaps
//! bilinear and clamped to their edge.
//!
//! Texture texels are premultiplied, so filtering across a transparent
//! texel fades alpha and colour together instead of dragging its colour in.

use super::simd::{FloatLanes, IntLanes, Simd};
use super::LightmapLayer;
use crate::material::{Filter, Sampler, Wrap};
use crate::texture::Texture;

/// Keeps coordinates where the lane floor ([`FloatLanes::floor`]) is exact;
/// beyond it a float has no fractional bits left to filter with anyway.
const UV_LIMIT: f32 = 1.0e6;

#[derive(Debug, Clone, Copy)]
pub struct TexView<'a> {
    texels: &'a [[u8; 4]],
    w: i32,
    h: i32,
    sampler: Sampler,
}

impl<'a> TexView<'a> {
    /// `None` for an empty texture or one whose texel count does not match
    /// its size; those draw as if untextured.
    pub fn new(t: &'a Texture, sampler: Sampler) -> Option<Self> {
        let n = (t.width as u64).checked_mul(t.height as u64)?;
        // The lane floor is exact below 2^22; 2^20 texels a side is plenty.
        // Texel indices are i32 lanes.
        if n == 0
            || n != t.texels.len() as u64
            || n > i32::MAX as u64
            || t.width > 1 << 20
            || t.height > 1 << 20
        {
            return None;
        }
        Some(TexView {
            texels: &t.texels,
            w: t.width as i32,
            h: t.height as i32,
            sampler,
        })
    }

    /// Premultiplied RGBA in 0..1 per lane; lanes outside `mask` are zero.
    #[cfg(test)]
    pub fn bilinear<S: Simd>(&self, s: S, u: S::F, v: S::F, mask: S::I) -> [S::F; 4] {
        self.taps(s, u, v).filter(s, mask)
    }

    /// The texels around `(u, v)`, fetched but not yet filtered: a caller
    /// with two packets fetches both before filtering either, so the
    /// second packet's gathers overlap the first's.
    #[inline(always)]
    pub fn taps<S: Simd>(&self, s: S, u: S::F, v: S::F) -> Taps<S> {
        let sm = self.sampler;
        // The default (every format but glTF) takes the path it always
        // took; the branch is the same for every packet of a texture.
        let (x, y) = if sm == Sampler::default() {
            (wrap_axis(s, u, self.w), wrap_axis(s, v, self.h))
        } else {
            let nearest = sm.filter == Filter::Nearest;
            (
                axis(s, u, self.w, sm.wrap_u, nearest),
                axis(s, v, self.h, sm.wrap_v, nearest),
            )
        };
        Taps::fetch(s, self.texels, self.w, self.h, x, y)
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
        if n == 0
            || n > l.texels.len() as u64
            || n > i32::MAX as u64
            || l.width > 1 << 20
            || l.height > 1 << 20
        {
            return None;
        }
        Some(LightView {
            texels: &l.texels[..n as usize],
            w: l.width as i32,
            h: l.height as i32,
        })
    }

    /// Straight RGBA in 0..1 per lane; lanes outside `mask` are zero.
    #[inline(always)]
    pub fn bilinear<S: Simd>(&self, s: S, u: S::F, v: S::F, mask: S::I) -> [S::F; 4] {
        let x = clamp_axis(s, u, self.w);
        let y = clamp_axis(s, v, self.h);
        Taps::fetch(s, self.texels, self.w, self.h, x, y).filter(s, mask)
    }
}

/// One axis of a bilinear footprint: the two texel indices and the weight of
/// the second.
struct Axis<S: Simd> {
    i0: S::I,
    i1: S::I,
    frac: S::F,
}

/// The four texels of each lane's bilinear footprint (top-left,
/// top-right, bottom-left, bottom-right, channels as stored) and the
/// weights of the right and bottom ones.
///
/// The weights are fixed point (8 fractional bits, like texture hardware):
/// `wx`, `wy` integers in 0..=256.
pub struct Taps<S: Simd> {
    t: [S::I; 4],
    wx: S::I,
    wy: S::I,
}

impl<S: Simd> Taps<S> {
    /// Every lane is fetched, live or not, so there is no branch per lane:
    /// the axis functions keep every index inside the texture.
    ///
    /// Where every lane's right texel is the one after its left texel in
    /// memory (no lane wraps or clamps across), each row's two are
    /// fetched as one pair: the same texels, from half the gathered
    /// elements.
    ///
    /// A row's start is its index times the width: a 16-bit multiply
    /// where both fit (every texture but a huge one), since the texel
    /// addresses wait on it.
    #[inline(always)]
    fn fetch(s: S, texels: &[[u8; 4]], w: i32, h: i32, x: Axis<S>, y: Axis<S>) -> Self {
        let (r0, r1) = if w < 1 << 15 && h <= 1 << 15 {
            (y.i0.mul_u15(s.splat_i(w)), y.i1.mul_u15(s.splat_i(w)))
        } else {
            (y.i0 * s.splat_i(w), y.i1 * s.splat_i(w))
        };
        let apart = (x.i1 - x.i0).lt(s.splat_i(1)).any();
        let t = if texels.len() >= 2 && !apart {
            let (t00, t01) = s.gather_pair(texels, r0 + x.i0);
            let (t10, t11) = s.gather_pair(texels, r1 + x.i0);
            [t00, t01, t10, t11]
        } else {
            [
                s.gather(texels, r0 + x.i0),
                s.gather(texels, r0 + x.i1),
                s.gather(texels, r1 + x.i0),
                s.gather(texels, r1 + x.i1),
            ]
        };
        Taps {
            t,
            wx: weight(s, x.frac),
            wy: weight(s, y.frac),
        }
    }

    /// The filtered value per channel in 0..1; lanes outside `mask` are
    /// zero.
    ///
    /// Across, the lerp runs on integers, two channels a lane (red and
    /// blue in one, green and alpha in the other, 16 bits each):
    /// `a·(256 − wx) + b·wx` is at most 255·256 and fits its half. Down,
    /// the two rows weighted by `wy` need 24 bits, which f32 holds exactly.
    /// So the result is the exact fixed-point bilinear value `n / 65536`,
    /// scaled to 0..1 by one rounding multiply.
    #[inline(always)]
    pub fn filter(&self, s: S, mask: S::I) -> [S::F; 4] {
        let (t, wx) = (&self.t, self.wx);
        // The horizontal weights in both halves of a lane.
        let wx2 = wx | wx.shl::<16>();
        let ix2 = s.splat_i(0x0100_0100) - wx2;
        let pairs = s.splat_i(0x00ff_00ff);
        let rb: [S::I; 2] = [
            across::<S>(t[0] & pairs, t[1] & pairs, ix2, wx2),
            across::<S>(t[2] & pairs, t[3] & pairs, ix2, wx2),
        ];
        let ga: [S::I; 2] = [
            across::<S>(t[0].shr::<8>() & pairs, t[1].shr::<8>() & pairs, ix2, wx2),
            across::<S>(t[2].shr::<8>() & pairs, t[3].shr::<8>() & pairs, ix2, wx2),
        ];
        let wy = self.wy.to_f32() * s.splat(1.0 / 256.0);
        let low = s.splat_i(0xffff);
        [
            down(s, rb[0] & low, rb[1] & low, wy, mask),
            down(s, ga[0] & low, ga[1] & low, wy, mask),
            down(s, rb[0].shr::<16>(), rb[1].shr::<16>(), wy, mask),
            down(s, ga[0].shr::<16>(), ga[1].shr::<16>(), wy, mask),
        ]
    }
}

// The hot path has no closures (nor `array::map`): a closure is compiled
// without the instruction set of the function it sits in, so its lane
// operations would become calls.

/// `a·(256 − w) + b·w` in each 16-bit half (`iw2`, `w2`: the weights in
/// both halves).
#[inline(always)]
fn across<S: Simd>(a: S::I, b: S::I, iw2: S::I, w2: S::I) -> S::I {
    a.mul_lo16(iw2) + b.mul_lo16(w2)
}

/// `(top·(256 − wy) + bottom·wy) / 65536` in 0..1 (`wy` given as
/// `wy / 256`); lanes outside `mask` are zero. In floats: `top` and
/// `bottom` are below 2^16 and their weighted difference an integer below
/// 2^24 over 256, so every step is exact (and integer multiplies are slow
/// on baseline SSE2).
#[inline(always)]
fn down<S: Simd>(s: S, top: S::I, bottom: S::I, wy: S::F, mask: S::I) -> S::F {
    let (t, b) = (top.to_f32(), bottom.to_f32());
    // 2^-8 · (1/255): scaling by a power of two is exact, so this rounds
    // as dividing by 65536 first and then by 255 would.
    let scale = s.splat((1.0f32 / 255.0) * (1.0 / 256.0));
    ((t + (b - t) * wy) * scale).keep(mask)
}

/// A bilinear weight rounded to 8 fractional bits, as an integer in
/// 0..=256 (`f` is in 0..1, never NaN).
#[inline(always)]
fn weight<S: Simd>(s: S, f: S::F) -> S::I {
    (f * s.splat(256.0))
        .round_i32()
        .max(s.splat_i(0))
        .min(s.splat_i(256))
}

/// Texel indices either side of coordinate `u` and the weight of the second,
/// with texel centres at (i + ½) / size and wrap-around at both ends.
#[inline(always)]
fn wrap_axis<S: Simd>(s: S, u: S::F, size: i32) -> Axis<S> {
    let u = u.max(s.splat(-UV_LIMIT)).min(s.splat(UV_LIMIT));
    let fu = u - u.floor();
    let x = fu * s.splat(size as f32) - s.splat(0.5);
    let xf = x.floor();
    let frac = x - xf;
    let i = xf.round_i32();
    let last = s.splat_i(size - 1);
    if size & (size - 1) == 0 {
        // A power of two (nearly every game texture): `fu · size` lies in
        // 0..=size, so `i` in -1..size, and wrapping is a mask, which
        // also keeps any index inside the texture. The same indices as
        // below, in three operations instead of seven.
        return Axis {
            i0: i & last,
            i1: (i + s.splat_i(1)) & last,
            frac,
        };
    }
    // -1 wraps to the last texel, `size` to the first; the clamp only
    // guards against float edge cases.
    let zero = s.splat_i(0);
    let i0 = last.select(i, i.lt(zero)).max(zero).min(last);
    let next = i0 + s.splat_i(1);
    let i1 = zero.select(next, last.lt(next));
    Axis { i0, i1, frac }
}

/// One axis as `wrap` and the filter say.
#[inline(always)]
fn axis<S: Simd>(s: S, u: S::F, size: i32, wrap: Wrap, nearest: bool) -> Axis<S> {
    match (wrap, nearest) {
        (Wrap::Repeat, false) => wrap_axis(s, u, size),
        (Wrap::Clamp, false) => clamp_axis(s, u, size),
        (Wrap::Mirror, false) => mirror_axis(s, u, size),
        (_, true) => nearest_axis(s, u, size, wrap),
    }
}

/// The texel whose square holds `u` (texel `i` covers `[i, i + 1) / size`),
/// placed by `wrap`, as both indices with a weight of 0: the filter then
/// returns that texel exactly.
#[inline(always)]
fn nearest_axis<S: Simd>(s: S, u: S::F, size: i32, wrap: Wrap) -> Axis<S> {
    let zero = s.splat_i(0);
    let last = s.splat_i(size - 1);
    let n = s.splat(size as f32);
    let i = match wrap {
        Wrap::Repeat => {
            let u = u.max(s.splat(-UV_LIMIT)).min(s.splat(UV_LIMIT));
            ((u - u.floor()) * n).floor().round_i32()
        }
        // Past one width outside [0, 1] every lookup is the edge texel.
        Wrap::Clamp => (u.max(s.splat(-1.0)).min(s.splat(2.0)) * n)
            .floor()
            .round_i32(),
        Wrap::Mirror => {
            let u = u.max(s.splat(-UV_LIMIT)).min(s.splat(UV_LIMIT));
            let h = u * s.splat(0.5);
            let m = ((h - h.floor()) * s.splat(2.0 * size as f32))
                .floor()
                .round_i32();
            mirror(s, m, size)
        }
    };
    let i = i.max(zero).min(last);
    Axis {
        i0: i,
        i1: i,
        frac: s.splat(0.0),
    }
}

/// Bilinear indices and weight with every other copy of the texture
/// mirrored: the footprint is taken in the doubled period, and each index
/// folded back, so the two texels either side of a mirror line are the
/// same one.
#[inline(always)]
fn mirror_axis<S: Simd>(s: S, u: S::F, size: i32) -> Axis<S> {
    let u = u.max(s.splat(-UV_LIMIT)).min(s.splat(UV_LIMIT));
    let h = u * s.splat(0.5);
    let x = (h - h.floor()) * s.splat(2.0 * size as f32) - s.splat(0.5);
    let xf = x.floor();
    let frac = x - xf;
    let i = xf.round_i32();
    Axis {
        i0: mirror(s, i, size),
        i1: mirror(s, i + s.splat_i(1), size),
        frac,
    }
}

/// Index `k` of the doubled period (`-1..=2·size`, wrapped into it) folded
/// into the texture: `0..size` as it is, `size..2·size` backwards.
#[inline(always)]
fn mirror<S: Simd>(s: S, k: S::I, size: i32) -> S::I {
    let zero = s.splat_i(0);
    let last = s.splat_i(size - 1);
    let period = s.splat_i(2 * size);
    let top = s.splat_i(2 * size - 1);
    let k = (k + period).select(k, k.lt(zero));
    let k = (k - period).select(k, top.lt(k));
    (top - k).select(k, last.lt(k)).max(zero).min(last)
}

/// Texel indices either side of coordinate `u` and the weight of the second,
/// with texel centres at (i + ½) / size; outside the centres of the first and
/// last texel both indices name the edge texel.
#[inline(always)]
fn clamp_axis<S: Simd>(s: S, u: S::F, size: i32) -> Axis<S> {
    // Beyond one texture width outside [0, 1] every lookup gives the edge texel
    // anyway; the bound keeps the lane floor exact and maps NaN to an edge.
    let u = u.max(s.splat(-1.0)).min(s.splat(2.0));
    let x = u * s.splat(size as f32) - s.splat(0.5);
    let xf = x.floor();
    let frac = x - xf;
    let i = xf.round_i32();
    let last = s.splat_i(size - 1);
    let zero = s.splat_i(0);
    Axis {
        i0: i.max(zero).min(last),
        i1: (i + s.splat_i(1)).max(zero).min(last),
        frac,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::Portable;
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
        let s = Portable;
        let r = view.bilinear(s, s.splat(u), s.splat(v), s.splat_i(-1));
        r.map(|c| c.to_array()[0])
    }

    fn close(a: [f32; 4], b: [f32; 4]) {
        for i in 0..4 {
            assert!((a[i] - b[i]).abs() < 1e-6, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn texel_centres_return_the_texel() {
        let t = tex2x2();
        let v = TexView::new(&t, Sampler::default()).unwrap();
        close(one(&v, 0.25, 0.25), [1.0, 0.0, 0.0, 1.0]);
        close(one(&v, 0.75, 0.25), [0.0, 1.0, 0.0, 1.0]);
        close(one(&v, 0.25, 0.75), [0.0, 0.0, 1.0, 1.0]);
        close(one(&v, 0.75, 0.75), [1.0, 1.0, 1.0, 1.0]);
    }

    #[test]
    fn centre_averages_and_edges_wrap() {
        let t = tex2x2();
        let v = TexView::new(&t, Sampler::default()).unwrap();
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
    fn wrapped_indices_are_the_neighbours_of_the_texel_centre_below() {
        // Powers of two take the masked path, other sizes the general one;
        // both give i0 = floor(x) and i1 = i0 + 1, wrapped, with
        // x = fract(u) · size − ½ (fract of a tiny negative u rounds to 1).
        let s = Portable;
        let us = [
            0.0, -0.0, 1e-9, -1e-9, 0.124, 0.125, 0.5, 0.999, 1.0, 1.49, -0.26, -3.75, 7.01, -1e6,
            1e6, 2.5e5,
        ];
        for size in 1..=9 {
            for chunk in us.chunks(8) {
                let mut lanes = [0.0f32; 8];
                lanes[..chunk.len()].copy_from_slice(chunk);
                let a = wrap_axis(s, s.array(lanes), size);
                let (i0, i1) = (a.i0.to_array(), a.i1.to_array());
                for (k, &u) in chunk.iter().enumerate() {
                    let fu = u - u.floor();
                    let i = (fu * size as f32 - 0.5).floor() as i32;
                    assert_eq!(i0[k], i.rem_euclid(size), "size {size} u {u}");
                    assert_eq!(i1[k], (i + 1).rem_euclid(size), "size {size} u {u}");
                }
            }
        }
    }

    /// A texture's taps at eight coordinates, at one level.
    struct TapsAt<'a> {
        view: TexView<'a>,
        u: [f32; 8],
        v: [f32; 8],
    }

    impl crate::simd::Kernel for TapsAt<'_> {
        type Output = [[i32; 8]; 4];
        fn run<S: Simd>(self, s: S) -> [[i32; 8]; 4] {
            let t = self.view.taps(s, s.array(self.u), s.array(self.v));
            t.t.map(|x| x.to_array())
        }
    }

    #[test]
    fn taps_are_the_four_neighbours_whether_fetched_in_pairs_or_not() {
        // Packets whose lanes all have their right neighbour next in
        // memory (fetched as pairs) and packets with a lane wrapping
        // around the row's end (fetched one texel at a time), on
        // power-of-two and other widths, at every level; sizes either side
        // of the row multiply's 16-bit limit (a side of 2^15).
        use crate::simd::{dispatch, Level};
        let inside = [0.1, 0.3, 0.45, 0.52, 0.6, 0.7, 0.8, 0.66];
        let seam = [0.1, 0.3, 0.45, 0.52, 0.6, 0.7, 0.999, 0.01];
        let rows = [0.05, 0.2, 0.4, 0.5, 0.6, 0.75, 0.9, 0.99];
        let sizes = [
            (8, 4),
            (5, 3),
            (2, 2),
            (1, 4),
            (16, 1),
            (32767, 3),
            (32768, 2),
            (3, 32768),
            (2, 32769),
        ];
        for (w, h) in sizes {
            let texels: Vec<[u8; 4]> = (0..w * h)
                .map(|i| [i as u8, (i >> 8) as u8, (i >> 16) as u8, 255])
                .collect();
            let t = Texture {
                name: "t".into(),
                width: w,
                height: h,
                texels,
                alpha: TextureAlpha::Opaque,
            };
            let view = TexView::new(&t, Sampler::default()).unwrap();
            for u in [inside, seam] {
                let want: [[i32; 8]; 4] = std::array::from_fn(|k| {
                    std::array::from_fn(|l| {
                        let wrap = |c: f32, size: u32| {
                            let i = ((c - c.floor()) * size as f32 - 0.5).floor() as i32;
                            [i.rem_euclid(size as i32), (i + 1).rem_euclid(size as i32)]
                        };
                        let (x, y) = (wrap(u[l], w), wrap(rows[l], h));
                        let at = y[k / 2] * w as i32 + x[k % 2];
                        i32::from_le_bytes(t.texels[at as usize])
                    })
                });
                for level in Level::ALL.into_iter().filter(|l| l.available()) {
                    let got = dispatch(level, TapsAt { view, u, v: rows });
                    assert_eq!(got, want, "{w}x{h} {u:?} {}", level.name());
                }
            }
        }
    }

    #[test]
    fn empty_or_inconsistent_textures_are_rejected() {
        let mut t = tex2x2();
        t.texels.pop();
        assert!(TexView::new(&t, Sampler::default()).is_none());
        t.width = 0;
        t.texels.clear();
        assert!(TexView::new(&t, Sampler::default()).is_none());
    }

    #[test]
    fn nan_coordinates_do_not_panic() {
        let t = tex2x2();
        let v = TexView::new(&t, Sampler::default()).unwrap();
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
            let s = Portable;
            let r = v.bilinear(s, s.splat(u), s.splat(w), s.splat_i(-1));
            r.map(|c| c.to_array()[0])
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

    /// Scalar reference of a wrap mode on an integer texel index.
    fn place(i: i64, size: i64, wrap: Wrap) -> i64 {
        match wrap {
            Wrap::Repeat => i.rem_euclid(size),
            Wrap::Clamp => i.clamp(0, size - 1),
            Wrap::Mirror => {
                let m = i.rem_euclid(2 * size);
                if m < size {
                    m
                } else {
                    2 * size - 1 - m
                }
            }
        }
    }

    #[test]
    fn every_wrap_mode_and_filter_picks_the_texels_the_specification_names() {
        // glTF (after OpenGL): nearest takes the texel whose square holds
        // the coordinate, bilinear the two whose centres straddle it, each
        // index then wrapped, clamped or mirrored. Coordinates away from
        // texel boundaries, inside and far outside 0..1, either sign.
        let s = Portable;
        // Odd multiples of 1/64: exact in f32, and never on a texel's edge
        // or centre for these sizes, so the reference's f64 agrees.
        let us = [
            7, 19, 41, 57, 71, 83, 111, 157, -7, -19, -51, -77, -165, 195, 33, -35,
        ]
        .map(|m| m as f32 / 64.0);
        for size in [1i32, 3, 4, 5] {
            for wrap in [Wrap::Repeat, Wrap::Clamp, Wrap::Mirror] {
                for nearest in [false, true] {
                    for chunk in us.chunks(8) {
                        let a = axis(s, s.array(chunk.try_into().unwrap()), size, wrap, nearest);
                        let (i0, i1, f) = (a.i0.to_array(), a.i1.to_array(), a.frac.to_array());
                        for (k, &u) in chunk.iter().enumerate() {
                            let n = size as f64;
                            let (want0, want1, want_f) = if nearest {
                                let i = (u as f64 * n).floor() as i64;
                                let i = place(i, size as i64, wrap);
                                (i, i, 0.0)
                            } else {
                                let x = u as f64 * n - 0.5;
                                let i = x.floor() as i64;
                                (
                                    place(i, size as i64, wrap),
                                    place(i + 1, size as i64, wrap),
                                    x - x.floor(),
                                )
                            };
                            let what = format!("{wrap:?} nearest {nearest} size {size} u {u}");
                            assert_eq!((i0[k] as i64, i1[k] as i64), (want0, want1), "{what}");
                            // The weight matters only between two texels.
                            if want0 != want1 {
                                assert!((f[k] as f64 - want_f).abs() < 1e-6, "{what}: {}", f[k]);
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn nearest_returns_the_texel_itself() {
        let t = tex2x2();
        let sampler = Sampler {
            filter: Filter::Nearest,
            ..Sampler::default()
        };
        let v = TexView::new(&t, sampler).unwrap();
        // Right of the centre of the top-left texel, and just inside the
        // bottom-right one: no blend of neighbours.
        assert_eq!(one(&v, 0.45, 0.05), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(one(&v, 0.51, 0.99), [1.0, 1.0, 1.0, 1.0]);
        assert_eq!(one(&v, -0.2, 0.3), [0.0, 1.0, 0.0, 1.0]);
    }
}
