//! Fragment shading: texture × base colour × vertex colour, Lambert
//! lighting, emission, alpha modes.

use super::simd::{FloatLanes, IntLanes, Simd, LANES};
use super::texel::{LightView, Taps, TexView};
use super::{Batch, Light};
use crate::material::AlphaMode;

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
    /// The batch has per-vertex colours.
    pub colors: bool,
    /// What a lit batch gives off; `None` for unlit batches and for none.
    pub glow: Option<Glow<'a>>,
    /// A lightmap, colours or a glow: the triangles carry layer planes and
    /// are drawn by the layered instance of the tile loop.
    pub layered: bool,
}

/// Emission ready to shade: linear RGB (finite, at least 0), times the
/// texture when there is one.
#[derive(Debug, Clone, Copy)]
pub struct Glow<'a> {
    pub color: [f32; 3],
    pub tex: Option<TexView<'a>>,
}

impl Glow<'_> {
    /// The emitted colour of each fragment at `(u, v)`; lanes outside
    /// `mask` are zero when textured.
    #[inline(always)]
    pub fn at<S: Simd>(&self, s: S, u: S::F, v: S::F, mask: S::I) -> [S::F; 3] {
        let c = [
            s.splat(self.color[0]),
            s.splat(self.color[1]),
            s.splat(self.color[2]),
        ];
        match &self.tex {
            Some(t) => {
                let x = t.taps(s, u, v).filter(s, mask);
                [x[0] * c[0], x[1] * c[1], x[2] * c[2]]
            }
            None => c,
        }
    }
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
        let lightmap = b.lightmap.as_ref().and_then(LightView::new);
        let colors = !b.colors.is_empty();
        let glow = match &b.emission {
            Some(e) if !b.unlit => {
                let color = e
                    .color
                    .map(|v| if v.is_finite() { v.max(0.0) } else { 0.0 });
                let tex = match e.texture {
                    Some((t, sampler)) => TexView::new(t, sampler),
                    None => None,
                };
                // A texture that cannot be drawn leaves the factor, as an
                // unusable base colour texture leaves the base colour.
                (color != [0.0; 3]).then_some(Glow { color, tex })
            }
            _ => None,
        };
        Material {
            tex: b.texture.and_then(|t| TexView::new(t, b.sampler)),
            base: [
                clean(b.base_color[0]) * a,
                clean(b.base_color[1]) * a,
                clean(b.base_color[2]) * a,
                a,
            ],
            mode,
            unlit: b.unlit,
            layered: lightmap.is_some() || colors || glow.is_some(),
            lightmap,
            colors,
            glow,
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
pub struct Inputs<S: Simd> {
    pub u: S::F,
    pub v: S::F,
    /// Any positive multiple of the normal; shading normalises it.
    pub n: [S::F; 3],
}

/// What layered batches add to a fragment's shading: the straight vertex
/// colour (each channel in 0..=1) multiplying texel × base colour, and the
/// emitted colour added after lighting. Plain batches pass [`Extra::NONE`],
/// which inlines to nothing.
pub struct Extra<S: Simd> {
    pub tint: Option<[S::F; 4]>,
    pub glow: Option<[S::F; 3]>,
}

impl<S: Simd> Extra<S> {
    pub const NONE: Self = Extra {
        tint: None,
        glow: None,
    };
}

/// The texture's texels under the fragments, when the material has one:
/// the first half of shading, apart so two packets can fetch together.
// A match, not `Option::map`: a closure is compiled without the
// instruction set of the function it sits in.
#[allow(clippy::manual_map)]
#[inline(always)]
pub fn fetch<S: Simd>(s: S, mat: &Material, inp: &Inputs<S>) -> Option<Taps<S>> {
    match &mat.tex {
        Some(t) => Some(t.taps(s, inp.u, inp.v)),
        None => None,
    }
}

/// Premultiplied colour of the fragments and the lanes that survive the
/// alpha test, given what [`fetch`] returned for the same fragments.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn shade_fetched<S: Simd>(
    s: S,
    mat: &Material,
    light: &Lighting,
    inp: &Inputs<S>,
    back: bool,
    mask: S::I,
    taps: Option<Taps<S>>,
    extra: &Extra<S>,
) -> ([S::F; 4], S::I) {
    let mut c = match &taps {
        Some(t) => {
            let x = t.filter(s, mask);
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
    if let Some(t) = &extra.tint {
        // Premultiplied: the colour channels take the tint's alpha too.
        for ch in 0..3 {
            c[ch] = c[ch] * (t[ch] * t[3]);
        }
        c[3] = c[3] * t[3];
    }
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
    match light.mode {
        LightMode::Normal { rows } => {
            let mut lanes = to_arrays::<S, _>(&c);
            encode_normal(&mut lanes, &to_arrays::<S, _>(&inp.n), back, &rows);
            return (from_arrays(s, &lanes), keep);
        }
        LightMode::Depth => {
            let mut lanes = to_arrays::<S, _>(&c);
            encode_depth(&mut lanes, &to_arrays::<S, _>(&inp.n));
            return (from_arrays(s, &lanes), keep);
        }
        LightMode::Id => {
            let a = mat.base[3];
            for ch in 0..3 {
                let straight = if a > 0.0 { mat.base[ch] / a } else { 0.0 };
                c[ch] = s.splat(straight) * c[3];
            }
            return (c, keep);
        }
        LightMode::Lambert | LightMode::Unlit | LightMode::Cel { .. } => {}
    }
    if !mat.unlit {
        let f = match light.mode {
            LightMode::Lambert => light_factor(s, light, &inp.n, back),
            LightMode::Cel { bands, rim, view } => {
                let f = cel_factor(light, &to_arrays::<S, _>(&inp.n), back, bands, rim, view);
                from_arrays(s, &f)
            }
            LightMode::Unlit | LightMode::Normal { .. } | LightMode::Depth | LightMode::Id => {
                return (c, keep)
            }
        };
        for ch in 0..3 {
            c[ch] = c[ch] * f[ch];
        }
        if let Some(g) = &extra.glow {
            // Straight `min(1, lit + glow)`, premultiplied.
            let a = c[3];
            for ch in 0..3 {
                c[ch] = (c[ch] + g[ch] * a).min(a);
            }
        }
    }
    (c, keep)
}

/// One lane vector as plain floats: the pass and cel helpers work lane by
/// lane, outside the SIMD level's registers, so they stay out of line.
type Lanes = [f32; LANES];

#[inline(always)]
fn to_arrays<S: Simd, const N: usize>(v: &[S::F; N]) -> [Lanes; N] {
    v.map(|x| x.to_array())
}

#[inline(always)]
fn from_arrays<S: Simd, const N: usize>(s: S, v: &[Lanes; N]) -> [S::F; N] {
    v.map(|x| s.array(x))
}

/// Camera-space unit normal as colour, `0.5 + 0.5·n` per channel (x right,
/// y up, z toward the viewer), premultiplied by the fragment's alpha.
#[inline(never)]
fn encode_normal(c: &mut [Lanes; 4], n: &[Lanes; 3], back: bool, rows: &[[f32; 3]; 3]) {
    let sign = if back { -1.0 } else { 1.0 };
    for i in 0..LANES {
        let w = [n[0][i], n[1][i], n[2][i]];
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
        let a = c[3][i];
        for ch in 0..3 {
            c[ch][i] = (0.5 + 0.5 * v[ch]) * a;
        }
    }
}

/// Depth `n.x / n.y` (0..=1) as a 16-bit value split over red (high byte)
/// and green (low byte); opaque.
#[inline(never)]
fn encode_depth(c: &mut [Lanes; 4], n: &[Lanes; 3]) {
    for i in 0..LANES {
        let d = n[0][i] / n[1][i];
        let d = if d.is_finite() {
            d.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let v = (d * 65535.0).round() as u32;
        c[0][i] = (v >> 8) as f32 / 255.0;
        c[1][i] = (v & 255) as f32 / 255.0;
        c[2][i] = 0.0;
        c[3][i] = 1.0;
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
    n: &[Lanes; 3],
    back: bool,
    bands: u32,
    rim: f32,
    view: [f32; 3],
) -> [Lanes; 3] {
    let sign = if back { -1.0 } else { 1.0 };
    let steps = bands.max(2) as f32;
    let mut f = [[0f32; LANES]; 3];
    for i in 0..LANES {
        let len2 = n[0][i] * n[0][i] + n[1][i] * n[1][i] + n[2][i] * n[2][i];
        let inv_len = sign / len2.sqrt();
        let dot = |d: [f32; 3]| (n[0][i] * d[0] + n[1][i] * d[1] + n[2][i] * d[2]) * inv_len;
        let nl = dot(light.dir);
        let nv = dot(view);
        // NaN (a zero normal) falls to the darkest band, as max() does for Lambert.
        let d = if nl > 0.0 { nl.min(1.0) } else { 0.0 };
        let level = (d * steps).floor().min(steps - 1.0) / (steps - 1.0);
        let edge = if nv > 0.0 { 1.0 - nv.min(1.0) } else { 1.0 };
        let r = if edge >= RIM_EDGE { rim } else { 0.0 };
        for ch in 0..3 {
            f[ch][i] = (light.ambient[ch] + light.color[ch] * level + r).clamp(0.0, 1.0);
        }
    }
    f
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
