//! Fragment shading: texture × base colour, Lambert lighting, alpha modes.

use super::lanes::{F32x8, I32x8};
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
    pub mode: LightMode,
}

/// How lit batches take the light (see [`super::Shading`]; flat shading
/// is Lambert over face normals, chosen before setup).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LightMode {
    Lambert,
    Unlit,
    /// `n·l` snapped to `bands` levels; `rim` added where the surface turns
    /// away from the viewer (`view`: unit vector toward the camera).
    Cel {
        bands: u32,
        rim: f32,
        view: [f32; 3],
    },
    /// The pass images of [`super::Pass`]: colour replaced by data.
    /// `rows` is the view rotation (world → camera), row by row.
    Normal {
        rows: [[f32; 3]; 3],
    },
    /// The normal attribute carries `(depth, 1, 0)`, so after perspective
    /// interpolation `n.x / n.y` is the depth in 0..=1; written as its
    /// 16-bit value's high byte (red) and low byte (green).
    Depth,
    /// The straight base colour, the texture only deciding coverage.
    Id,
}

impl Lighting {
    pub fn new(l: &Light) -> Self {
        Lighting::with_mode(l, LightMode::Lambert)
    }

    pub fn with_mode(l: &Light, mode: LightMode) -> Self {
        let d = l.direction.normalize_or_zero();
        let fin = |v: glam::Vec3| {
            let a = v.to_array();
            a.map(|x| if x.is_finite() { x } else { 0.0 })
        };
        Lighting {
            dir: fin(d),
            color: fin(l.color),
            ambient: fin(l.ambient),
            mode,
        }
    }
}

/// Interpolated, perspective-corrected inputs of eight fragments.
pub struct Inputs {
    pub u: F32x8,
    pub v: F32x8,
    /// Any positive multiple of the normal; shading normalises it.
    pub n: [F32x8; 3],
}

/// Premultiplied colour of the fragments and the lanes that survive the
/// alpha test.
pub fn shade(
    mat: &Material,
    light: &Lighting,
    inp: &Inputs,
    back: bool,
    mask: I32x8,
) -> ([F32x8; 4], I32x8) {
    let mut c = match &mat.tex {
        Some(t) => {
            let s = t.bilinear(inp.u, inp.v, mask);
            [
                s[0] * F32x8::splat(mat.base[0]),
                s[1] * F32x8::splat(mat.base[1]),
                s[2] * F32x8::splat(mat.base[2]),
                s[3] * F32x8::splat(mat.base[3]),
            ]
        }
        None => mat.base.map(F32x8::splat),
    };
    let mut keep = mask;
    match mat.mode {
        Mode::Blend => {}
        Mode::Opaque | Mode::Mask(_) => {
            if let Mode::Mask(cut) = mat.mode {
                keep = keep & !c[3].lt(F32x8::splat(cut));
            }
            // Written opaque with the straight colour: an edge texel filtered
            // against a transparent (black) neighbour keeps its own colour.
            let a = c[3];
            // Mostly opaque texels: skip the division when nothing needs it.
            if a.lt(F32x8::splat(1.0)).any() {
                let inv = F32x8::splat(1.0).div(a);
                let pos = F32x8::splat(0.0).lt(a);
                for ch in &mut c[..3] {
                    *ch = (*ch * inv).min(F32x8::splat(1.0)).select(*ch, pos);
                }
            }
            c[3] = F32x8::splat(1.0);
        }
    }
    match light.mode {
        LightMode::Normal { rows } => {
            encode_normal(&mut c, &inp.n, back, &rows);
            return (c, keep);
        }
        LightMode::Depth => {
            encode_depth(&mut c, &inp.n);
            return (c, keep);
        }
        LightMode::Id => {
            let a = mat.base[3];
            for ch in 0..3 {
                let straight = if a > 0.0 { mat.base[ch] / a } else { 0.0 };
                c[ch] = F32x8::splat(straight) * c[3];
            }
            return (c, keep);
        }
        LightMode::Lambert | LightMode::Unlit | LightMode::Cel { .. } => {}
    }
    if !mat.unlit {
        let f = match light.mode {
            LightMode::Lambert => light_factor(light, &inp.n, back),
            LightMode::Cel { bands, rim, view } => {
                cel_factor(light, &inp.n, back, bands, rim, view)
            }
            LightMode::Unlit | LightMode::Normal { .. } | LightMode::Depth | LightMode::Id => {
                return (c, keep)
            }
        };
        for ch in 0..3 {
            c[ch] = c[ch] * f[ch];
        }
    }
    (c, keep)
}

/// Camera-space unit normal as colour, `0.5 + 0.5·n` per channel (x right,
/// y up, z toward the viewer), premultiplied by the fragment's alpha.
#[inline(never)]
fn encode_normal(c: &mut [F32x8; 4], n: &[F32x8; 3], back: bool, rows: &[[f32; 3]; 3]) {
    let sign = if back { -1.0 } else { 1.0 };
    for i in 0..8 {
        let w = [n[0].0[i], n[1].0[i], n[2].0[i]];
        let mut v = [0f32; 3];
        for (k, r) in rows.iter().enumerate() {
            v[k] = sign * (r[0] * w[0] + r[1] * w[1] + r[2] * w[2]);
        }
        let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        // A zero or broken normal faces the camera.
        let v = if len > 0.0 && len.is_finite() {
            v.map(|x| x / len)
        } else {
            [0.0, 0.0, 1.0]
        };
        let a = c[3].0[i];
        for ch in 0..3 {
            c[ch].0[i] = (0.5 + 0.5 * v[ch]) * a;
        }
    }
}

/// Depth `n.x / n.y` (0..=1) as a 16-bit value split over red (high byte)
/// and green (low byte); opaque.
#[inline(never)]
fn encode_depth(c: &mut [F32x8; 4], n: &[F32x8; 3]) {
    for i in 0..8 {
        let d = n[0].0[i] / n[1].0[i];
        let d = if d.is_finite() {
            d.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let v = (d * 65535.0).round() as u32;
        c[0].0[i] = (v >> 8) as f32 / 255.0;
        c[1].0[i] = (v & 255) as f32 / 255.0;
        c[2].0[i] = 0.0;
        c[3].0[i] = 1.0;
    }
}

/// Where a cel rim starts: `1 − n·v` at or above this is rim.
const RIM_EDGE: f32 = 0.6;

/// Cel shading: `n·l` snapped down to one of `bands` levels (0 and 1
/// included), so the light falls off in flat steps; then `rim` added where
/// the surface turns away from the viewer, before the same clamp as
/// Lambert.
#[inline(never)]
fn cel_factor(
    light: &Lighting,
    n: &[F32x8; 3],
    back: bool,
    bands: u32,
    rim: f32,
    view: [f32; 3],
) -> [F32x8; 3] {
    let len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    let sign = if back { -1.0 } else { 1.0 };
    let inv_len = F32x8::splat(sign).div(len2.sqrt());
    let dot = |d: [f32; 3]| {
        (n[0] * F32x8::splat(d[0]) + n[1] * F32x8::splat(d[1]) + n[2] * F32x8::splat(d[2]))
            * inv_len
    };
    let nl = dot(light.dir);
    let nv = dot(view);
    let steps = bands.max(2) as f32;
    let mut f = [F32x8::splat(0.0); 3];
    for i in 0..8 {
        // NaN (a zero normal) falls to the darkest band, as max() does for Lambert.
        let d = if nl.0[i] > 0.0 { nl.0[i].min(1.0) } else { 0.0 };
        let level = (d * steps).floor().min(steps - 1.0) / (steps - 1.0);
        let edge = if nv.0[i] > 0.0 {
            1.0 - nv.0[i].min(1.0)
        } else {
            1.0
        };
        let r = if edge >= RIM_EDGE { rim } else { 0.0 };
        for ch in 0..3 {
            f[ch].0[i] = (light.ambient[ch] + light.color[ch] * level + r).clamp(0.0, 1.0);
        }
    }
    f
}

/// Applies a filtered straight lightmap texel `lm` to premultiplied colour `c`:
/// the straight colour becomes `min(1, rgb · lm.a + lm.rgb)` with alpha
/// unchanged, which premultiplied is `min(a, c · lm.a + lm.rgb · a)` (no
/// division, and exact for the opaque modes where a = 1).
#[inline(always)]
pub fn apply_lightmap(c: &mut [F32x8; 4], lm: &[F32x8; 4]) {
    let a = c[3];
    for ch in 0..3 {
        c[ch] = (c[ch] * lm[3] + lm[ch] * a).min(a);
    }
}

/// `min(1, ambient + colour · max(0, n·l))` per channel: lighting saturates
/// like a clamped fixed-function vertex colour before modulating the texel.
#[inline(always)]
fn light_factor(light: &Lighting, n: &[F32x8; 3], back: bool) -> [F32x8; 3] {
    let len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    let dot = n[0] * F32x8::splat(light.dir[0])
        + n[1] * F32x8::splat(light.dir[1])
        + n[2] * F32x8::splat(light.dir[2]);
    let sign = if back { -1.0 } else { 1.0 };
    let inv_len = F32x8::splat(sign).div(len2.sqrt());
    // A zero or NaN normal gives a NaN product, which max() turns into 0.
    let d = (dot * inv_len).max(F32x8::splat(0.0));
    let mut f = [F32x8::splat(0.0); 3];
    for ch in 0..3 {
        f[ch] = (F32x8::splat(light.ambient[ch]) + F32x8::splat(light.color[ch]) * d)
            .min(F32x8::splat(1.0))
            .max(F32x8::splat(0.0));
    }
    f
}
