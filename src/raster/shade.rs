//! Fragment shading: texture × base colour, Lambert lighting, alpha modes.

use super::simd::{FloatLanes, IntLanes, Simd};
use super::texel::{LightView, TexView};
use super::{Batch, Light};
use crate::scene::AlphaMode;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    Opaque,
    Mask(f32),
    Blend,
}

/// A batch's shading inputs, resolved once per render.
#[derive(Debug, Clone, Copy)]
pub struct Material<'a> {
    pub tex: Option<TexView<'a>>,
    /// Premultiplied base colour.
    pub base: [f32; 4],
    pub mode: Mode,
    pub unlit: bool,
    /// The batch's lightmap layer when it is usable.
    pub lightmap: Option<LightView<'a>>,
}

impl<'a> Material<'a> {
    pub fn new(b: &Batch<'a>) -> Self {
        let clean = |v: f32| {
            if v.is_finite() {
                v.clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        let a = clean(b.base_color[3]);
        let mode = match b.alpha {
            AlphaMode::Opaque => Mode::Opaque,
            // A NaN cutoff keeps everything rather than nothing.
            AlphaMode::Mask(c) => Mode::Mask(if c.is_nan() { 0.0 } else { c }),
            AlphaMode::Blend => Mode::Blend,
        };
        Material {
            tex: b.texture.and_then(TexView::new),
            base: [
                clean(b.base_color[0]) * a,
                clean(b.base_color[1]) * a,
                clean(b.base_color[2]) * a,
                a,
            ],
            mode,
            unlit: b.unlit,
            lightmap: b.lightmap.as_ref().and_then(LightView::new),
        }
    }

    pub fn writes_depth(&self) -> bool {
        self.mode != Mode::Blend
    }
}

/// The light with its direction normalised and non-finite values zeroed.
#[derive(Debug, Clone, Copy)]
pub struct Lighting {
    pub dir: [f32; 3],
    pub color: [f32; 3],
    pub ambient: [f32; 3],
}

impl Lighting {
    pub fn new(l: &Light) -> Self {
        let d = l.direction.normalize_or_zero();
        let fin = |v: glam::Vec3| {
            let a = v.to_array();
            a.map(|x| if x.is_finite() { x } else { 0.0 })
        };
        Lighting {
            dir: fin(d),
            color: fin(l.color),
            ambient: fin(l.ambient),
        }
    }
}

/// Interpolated, perspective-corrected inputs of eight fragments.
pub struct Inputs<S: Simd> {
    pub u: S::F,
    pub v: S::F,
    /// Any positive multiple of the normal; shading normalises it.
    pub n: [S::F; 3],
}

/// Premultiplied colour of the fragments and the lanes that survive the
/// alpha test.
#[inline(always)]
pub fn shade<S: Simd>(
    s: S,
    mat: &Material,
    light: &Lighting,
    inp: &Inputs<S>,
    back: bool,
    mask: S::I,
) -> ([S::F; 4], S::I) {
    let mut c = match &mat.tex {
        Some(t) => {
            let x = t.bilinear(s, inp.u, inp.v, mask);
            [
                x[0] * s.splat(mat.base[0]),
                x[1] * s.splat(mat.base[1]),
                x[2] * s.splat(mat.base[2]),
                x[3] * s.splat(mat.base[3]),
            ]
        }
        None => [
            s.splat(mat.base[0]),
            s.splat(mat.base[1]),
            s.splat(mat.base[2]),
            s.splat(mat.base[3]),
        ],
    };
    let mut keep = mask;
    match mat.mode {
        Mode::Blend => {}
        Mode::Opaque | Mode::Mask(_) => {
            if let Mode::Mask(cut) = mat.mode {
                keep = keep & !c[3].lt(s.splat(cut));
            }
            // Written opaque with the straight colour: an edge texel filtered
            // against a transparent (black) neighbour keeps its own colour.
            let a = c[3];
            // Mostly opaque texels: skip the division when nothing needs it.
            if a.lt(s.splat(1.0)).any() {
                let inv = s.splat(1.0).div(a);
                let pos = s.splat(0.0).lt(a);
                for ch in &mut c[..3] {
                    *ch = (*ch * inv).min(s.splat(1.0)).select(*ch, pos);
                }
            }
            c[3] = s.splat(1.0);
        }
    }
    if !mat.unlit {
        let f = light_factor(s, light, &inp.n, back);
        for ch in 0..3 {
            c[ch] = c[ch] * f[ch];
        }
    }
    (c, keep)
}

/// Applies a filtered straight lightmap texel `lm` to premultiplied colour `c`:
/// the straight colour becomes `min(1, rgb · lm.a + lm.rgb)` with alpha
/// unchanged, which premultiplied is `min(a, c · lm.a + lm.rgb · a)` (no
/// division, and exact for the opaque modes where a = 1).
#[inline(always)]
pub fn apply_lightmap<S: Simd>(c: &mut [S::F; 4], lm: &[S::F; 4]) {
    let a = c[3];
    for ch in 0..3 {
        c[ch] = (c[ch] * lm[3] + lm[ch] * a).min(a);
    }
}

/// `min(1, ambient + colour · max(0, n·l))` per channel: lighting saturates
/// like a clamped fixed-function vertex colour before modulating the texel.
#[inline(always)]
fn light_factor<S: Simd>(s: S, light: &Lighting, n: &[S::F; 3], back: bool) -> [S::F; 3] {
    let len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    let dot =
        n[0] * s.splat(light.dir[0]) + n[1] * s.splat(light.dir[1]) + n[2] * s.splat(light.dir[2]);
    let sign = if back { -1.0 } else { 1.0 };
    let inv_len = s.splat(sign).div(len2.sqrt());
    // A zero or NaN normal gives a NaN product, which max() turns into 0.
    let d = (dot * inv_len).max(s.splat(0.0));
    let mut f = [s.splat(0.0); 3];
    for ch in 0..3 {
        f[ch] = (s.splat(light.ambient[ch]) + s.splat(light.color[ch]) * d)
            .min(s.splat(1.0))
            .max(s.splat(0.0));
    }
    f
}
