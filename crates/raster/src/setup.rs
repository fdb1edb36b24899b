//! Triangle setup: viewport transform, snapping to 8-bit sub-sample fixed
//! point, integer edge functions with the top-left rule, and the screen-space
//! planes of every interpolated attribute.
//!
//! Edge functions are rescaled to whole-sample steps (see [`Edge`]) so that
//! inside a tile they fit i32 lanes exactly; the fill rule is folded into the
//! constant, so the inner loop is one add and a sign test per edge.

use super::clip::{ClipVertex, GUARD_SAMPLES};
use super::simd::{Simd, SnapScale, LANES};

pub const SUB_BITS: u32 = 8;
const SUB: i64 = 1 << SUB_BITS;
const HALF: i64 = SUB / 2;

/// `e(px, py) = a·px + b·py + c` at the centre of sample `(px, py)`; the
/// sample is covered when `e >= 0` for all three edges.
///
/// With snapped vertices the exact edge function at sample centre
/// `(px + ½, py + ½)` is `E = 256·(a·px + b·py) + K`; covered means `E > 0`, or
/// `E == 0` on a top/left edge. Since `a·px + b·py` is an integer, that test is
/// exactly `a·px + b·py + ceil(K'/256) - 1 >= 0` with `K' = K + [top-left]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub a: i32,
    pub b: i32,
    pub c: i64,
}

impl Edge {
    #[inline(always)]
    pub fn at(&self, px: i64, py: i64) -> i64 {
        self.a as i64 * px + self.b as i64 * py + self.c
    }
}

/// An attribute as a screen-space plane relative to the triangle's first
/// covered sample `(min_x, min_y)`: value at sample `(min_x + dx_, min_y + dy_)`
/// is `v + dx·dx_ + dy·dy_`. Relative f32 keeps full precision where it
/// matters (near the triangle) at half the size of f64.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plane {
    pub v: f32,
    pub dx: f32,
    pub dy: f32,
}

impl Plane {
    #[inline(always)]
    pub fn at(&self, rx: f32, ry: f32) -> f32 {
        self.v + self.dx * rx + self.dy * ry
    }
}

pub const P_Z: usize = 0;
pub const P_INV_W: usize = 1;
pub const P_U: usize = 2;
pub const P_V: usize = 3;
pub const P_NX: usize = 4;
pub const P_NY: usize = 5;
pub const P_NZ: usize = 6;
pub const PLANES: usize = 7;
/// [`PLANES`] rounded up to a whole lane vector, so setup and the tile
/// loop handle every plane in one vector operation.
pub const PLANE_SLOTS: usize = 8;
const _: () = assert!(PLANES < PLANE_SLOTS);

/// The attribute planes of one triangle, one array per coefficient, so
/// all of them are set up and moved to a tile corner as whole vectors.
/// Slot [`PLANES`] is padding and stays zero.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlaneSet {
    pub v: [f32; PLANE_SLOTS],
    pub dx: [f32; PLANE_SLOTS],
    pub dy: [f32; PLANE_SLOTS],
}

impl PlaneSet {
    /// Plane `j` on its own.
    #[cfg(test)]
    pub fn get(&self, j: usize) -> Plane {
        Plane {
            v: self.v[j],
            dx: self.dx[j],
            dy: self.dy[j],
        }
    }
}

/// Planes only layered batches set up (lightmap, vertex colours,
/// emission), kept beside the triangles rather than in them: lightmap
/// u/w and v/w ([`L_LM`]), then the straight vertex colour's r/w, g/w,
/// b/w, a/w ([`L_COL`]).
pub type Layer = [Plane; LAYER_PLANES];
pub const L_LM: usize = 0;
pub const L_COL: usize = 2;
pub const LAYER_PLANES: usize = 6;

#[derive(Debug, Clone, PartialEq)]
pub struct Tri {
    pub edges: [Edge; 3],
    /// Covered samples lie in `min_x..=max_x`, `min_y..=max_y` (clamped to
    /// the target).
    pub min_x: i32,
    pub min_y: i32,
    pub max_x: i32,
    pub max_y: i32,
    /// z (NDC, affine in screen space), then 1/w and u/w, v/w, n/w.
    pub planes: PlaneSet,
    /// Index of the triangle's [`Layer`] in the frame's list; only
    /// meaningful for layered materials, so plain batches carry nothing
    /// but this for them.
    pub layer: u32,
    pub material: u32,
    /// Seen from behind (only kept for two-sided batches).
    pub back: bool,
}

/// Sample-space target size and the precomputed viewport transform.
#[derive(Debug, Clone, Copy)]
pub struct Viewport {
    pub width: u32,
    pub height: u32,
}

impl Viewport {
    /// Fixed-point screen position of a clip-space point with w > 0.
    pub fn snap(&self, pos: glam::Vec4) -> (i64, i64) {
        let (fx, fy) = self.snap_scale().one(pos.x, pos.y, pos.w);
        (
            fx as i64 + self.width as i64 * HALF,
            fy as i64 + self.height as i64 * HALF,
        )
    }

    /// [`Viewport::snap`] of eight clip positions given as their x, y and
    /// w, at instruction-set level `s`: the same bits for every lane whose
    /// position is inside the guard band; the caller discards the others.
    #[inline(always)]
    pub fn snap_block<S: Simd>(
        &self,
        s: S,
        x: [f32; LANES],
        y: [f32; LANES],
        w: [f32; LANES],
    ) -> ([i64; LANES], [i64; LANES]) {
        let (fx, fy) = s.snap(x, y, w, self.snap_scale());
        let mut out = ([0i64; LANES], [0i64; LANES]);
        for i in 0..LANES {
            out.0[i] = fx[i] as i64 + self.width as i64 * HALF;
            out.1[i] = fy[i] as i64 + self.height as i64 * HALF;
        }
        out
    }

    /// The snap's scales: relative to the centre, in `SUB` steps, clamped
    /// to the guard band the clipper enforced (rounding can overshoot it by
    /// a hair), which keeps every value under 2³¹.
    #[inline(always)]
    fn snap_scale(&self) -> SnapScale {
        SnapScale {
            half_w: self.width as f64 * 0.5,
            half_h: self.height as f64 * 0.5,
            sub: SUB as f64,
            lim: (GUARD_SAMPLES as f64 + 1.0) * SUB as f64,
        }
    }
}

/// Sets up a clipped triangle (all w > 0); `None` when it has no area, is a
/// culled back face, or covers no sample centre.
pub fn setup(
    v: [&ClipVertex; 3],
    vp: &Viewport,
    material: u32,
    two_sided: bool,
    layer: bool,
) -> Option<(Tri, Option<Layer>)> {
    let p = [vp.snap(v[0].pos), vp.snap(v[1].pos), vp.snap(v[2].pos)];
    setup_snapped(p, v, vp, material, two_sided, layer)
}

/// Twice the signed screen area of snapped positions; screen y runs down, so
/// counter-clockwise in NDC (a front face) is negative here.
#[inline]
pub fn area2(p: &[(i64, i64); 3]) -> i64 {
    (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[2].0 - p[0].0) * (p[1].1 - p[0].1)
}

/// Whether [`setup_snapped`] would drop the triangle for its area or facing
/// alone, so callers can skip building its vertices.
#[inline]
pub fn culled(p: &[(i64, i64); 3], two_sided: bool) -> bool {
    let area = area2(p);
    area == 0 || (area > 0 && !two_sided)
}

/// [`setup`] for positions already snapped with [`Viewport::snap`]; `layer`
/// asks for the [`Layer`] planes too. Inlined, so it runs at the instruction-set
/// level of the set-up kernel that calls it.
#[inline(always)]
pub fn setup_snapped(
    p: [(i64, i64); 3],
    v: [&ClipVertex; 3],
    vp: &Viewport,
    material: u32,
    two_sided: bool,
    layer: bool,
) -> Option<(Tri, Option<Layer>)> {
    let mut p = p;
    let mut v = v;
    let area = area2(&p);
    if culled(&p, two_sided) {
        return None;
    }
    let back = area > 0;
    if !back {
        p.swap(1, 2);
        v.swap(1, 2);
    }
    let area = area.abs();

    let mut edges = [Edge { a: 0, b: 0, c: 0 }; 3];
    for (k, (i, j)) in [(0, 1), (1, 2), (2, 0)].into_iter().enumerate() {
        let (xa, ya) = p[i];
        let (xb, yb) = p[j];
        let a = ya - yb;
        let b = xb - xa;
        let c = xa * yb - xb * ya;
        let top_left = a > 0 || (a == 0 && b > 0);
        let k_full = HALF * (a + b) + c + top_left as i64;
        let ceil = -(-k_full).div_euclid(SUB);
        edges[k] = Edge {
            a: a as i32,
            b: b as i32,
            c: ceil - 1,
        };
    }

    let xs = [p[0].0, p[1].0, p[2].0];
    let ys = [p[0].1, p[1].1, p[2].1];
    let lo = |m: i64| -((-(m - HALF)).div_euclid(SUB));
    let hi = |m: i64| (m - HALF).div_euclid(SUB);
    let min_x = lo(*xs.iter().min()?).max(0);
    let min_y = lo(*ys.iter().min()?).max(0);
    let max_x = hi(*xs.iter().max()?).min(vp.width as i64 - 1);
    let max_y = hi(*ys.iter().max()?).min(vp.height as i64 - 1);
    if min_x > max_x || min_y > max_y {
        return None;
    }

    // Attribute planes in f64 from the snapped positions, so interpolation
    // agrees with coverage; coordinates are relative to (min_x, min_y) with
    // sample centres at +½.
    let sx = |i: usize| (xs[i] - (min_x * SUB + HALF)) as f64 / SUB as f64;
    let sy = |i: usize| (ys[i] - (min_y * SUB + HALF)) as f64 / SUB as f64;
    let (x0, y0) = (sx(0), sy(0));
    let (dx1, dy1) = (sx(1) - x0, sy(1) - y0);
    let (dx2, dy2) = (sx(2) - x0, sy(2) - y0);
    let inv_area = (SUB * SUB) as f64 / area as f64;
    let plane = |a0: f64, a1: f64, a2: f64| {
        let (d1, d2) = (a1 - a0, a2 - a0);
        let dx = (d1 * dy2 - d2 * dy1) * inv_area;
        let dy = (d2 * dx1 - d1 * dx2) * inv_area;
        Plane {
            v: (a0 - dx * x0 - dy * y0) as f32,
            dx: dx as f32,
            dy: dy as f32,
        }
    };
    let iw = [
        1.0 / v[0].pos.w as f64,
        1.0 / v[1].pos.w as f64,
        1.0 / v[2].pos.w as f64,
    ];
    // Each vertex's attributes over w (1/w itself in slot P_INV_W), laid
    // out so `plane` runs slot-parallel once inlined.
    let over_w = |k: usize| -> [f64; PLANE_SLOTS] {
        let (c, w) = (v[k], iw[k]);
        [
            c.pos.z as f64 * w,
            w,
            c.uv.x as f64 * w,
            c.uv.y as f64 * w,
            c.normal.x as f64 * w,
            c.normal.y as f64 * w,
            c.normal.z as f64 * w,
            0.0,
        ]
    };
    let (a0, a1, a2) = (over_w(0), over_w(1), over_w(2));
    let mut planes = PlaneSet {
        v: [0.0; PLANE_SLOTS],
        dx: [0.0; PLANE_SLOTS],
        dy: [0.0; PLANE_SLOTS],
    };
    for j in 0..PLANE_SLOTS {
        let p = plane(a0[j], a1[j], a2[j]);
        planes.v[j] = p.v;
        planes.dx[j] = p.dx;
        planes.dy[j] = p.dy;
    }
    let per_w = |a: [f32; 3]| {
        plane(
            a[0] as f64 * iw[0],
            a[1] as f64 * iw[1],
            a[2] as f64 * iw[2],
        )
    };
    let layer = layer.then(|| {
        let c = |k: usize| [v[0].col[k], v[1].col[k], v[2].col[k]];
        [
            per_w([v[0].lm.x, v[1].lm.x, v[2].lm.x]),
            per_w([v[0].lm.y, v[1].lm.y, v[2].lm.y]),
            per_w(c(0)),
            per_w(c(1)),
            per_w(c(2)),
            per_w(c(3)),
        ]
    });
    let tri = Tri {
        edges,
        min_x: min_x as i32,
        min_y: min_y as i32,
        max_x: max_x as i32,
        max_y: max_y as i32,
        planes,
        layer: 0,
        material,
        back,
    };
    Some((tri, layer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3, Vec4};

    /// [`Viewport::snap_block`] at one level, over blocks of positions.
    struct SnapAll<'a> {
        vp: Viewport,
        blocks: &'a [([f32; 8], [f32; 8], [f32; 8])],
    }

    impl crate::simd::Kernel for SnapAll<'_> {
        type Output = Vec<([i64; 8], [i64; 8])>;
        fn run<S: crate::simd::Simd>(self, s: S) -> Self::Output {
            self.blocks
                .iter()
                .map(|&(x, y, w)| self.vp.snap_block(s, x, y, w))
                .collect()
        }
    }

    #[test]
    fn a_block_snaps_every_vertex_as_one_at_a_time_at_every_level() {
        use crate::simd::{dispatch, Level};
        // A fixed pseudo-random sequence, so failures reproduce.
        let mut state = 0x9e37_79b9_u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let mut unit = move || (next() as f64 / u32::MAX as f64) as f32;
        for (width, height) in [(256, 256), (1024, 768), (1, 1), (8191, 3)] {
            let vp = Viewport { width, height };
            let mut blocks = Vec::new();
            for round in 0..2000 {
                let (mut x, mut y, mut w) = ([0f32; 8], [0f32; 8], [0f32; 8]);
                for k in 0..8 {
                    // Inside the frame, far into the guard band and past it
                    // (the clamp), tiny and huge w, either sign.
                    let spread = [1.0, 30.0, 5e4][(round + k) % 3];
                    w[k] = [1.0, 1e-3, 7e3, 0.5][k % 4] * (0.5 + unit());
                    x[k] = (unit() * 2.0 - 1.0) * spread * w[k];
                    y[k] = (unit() * 2.0 - 1.0) * spread * w[k];
                }
                if round == 0 {
                    // Exactly half a step from a sample position, and −0.
                    x[0] = 0.5 / width as f32 / SUB as f32;
                    y[1] = -1.5 / height as f32 / SUB as f32;
                    x[2] = -0.0;
                }
                blocks.push((x, y, w));
            }
            for level in Level::ALL.into_iter().filter(|l| l.available()) {
                let got = dispatch(
                    level,
                    SnapAll {
                        vp,
                        blocks: &blocks,
                    },
                );
                for ((x, y, w), (fx, fy)) in blocks.iter().zip(&got) {
                    for k in 0..8 {
                        let one = vp.snap(Vec4::new(x[k], y[k], 0.5, w[k]));
                        assert_eq!(
                            (fx[k], fy[k]),
                            one,
                            "{} at {width}x{height}: {} {} {}",
                            level.name(),
                            x[k],
                            y[k],
                            w[k]
                        );
                    }
                }
            }
        }
    }

    fn ndc(x: f32, y: f32) -> ClipVertex {
        ClipVertex {
            pos: Vec4::new(x, y, 0.5, 1.0),
            uv: Vec2::new(x, y),
            normal: Vec3::Z,
            lm: Vec2::new(-x, 2.0 * y),
            col: Vec4::new(x, 0.25, 1.0, y),
        }
    }

    fn covered(t: &Tri, px: i64, py: i64) -> bool {
        t.edges.iter().all(|e| e.at(px, py) >= 0)
    }

    #[test]
    fn shared_diagonal_covers_each_sample_once() {
        let vp = Viewport {
            width: 16,
            height: 16,
        };
        let (a, b, c, d) = (
            ndc(-0.8, -0.7),
            ndc(0.6, -0.8),
            ndc(0.7, 0.9),
            ndc(-0.9, 0.5),
        );
        let t1 = setup([&a, &b, &c], &vp, 0, false, false).unwrap().0;
        let t2 = setup([&a, &c, &d], &vp, 0, false, false).unwrap().0;
        for py in 0..16 {
            for px in 0..16 {
                assert!(!(covered(&t1, px, py) && covered(&t2, px, py)), "{px},{py}");
            }
        }
    }

    #[test]
    fn square_on_sample_centres_follows_top_left_rule() {
        // Vertices exactly on sample centres 2.5 and 5.5 in an 8×8 target.
        let vp = Viewport {
            width: 8,
            height: 8,
        };
        let s = |x: f32| x / 4.0 - 1.0;
        let (a, b, c, d) = (
            ndc(s(2.5), -s(2.5)),
            ndc(s(5.5), -s(2.5)),
            ndc(s(5.5), -s(5.5)),
            ndc(s(2.5), -s(5.5)),
        );
        // a-b-c is counter-clockwise in NDC y-up? a is top-left on screen.
        let t1 = setup([&a, &d, &c], &vp, 0, true, false).unwrap().0;
        let t2 = setup([&a, &c, &b], &vp, 0, true, false).unwrap().0;
        let mut count = 0;
        for py in 0..8 {
            for px in 0..8 {
                let n = covered(&t1, px, py) as u32 + covered(&t2, px, py) as u32;
                assert!(n <= 1);
                if n == 1 {
                    count += 1;
                    // Left and top edges included, right and bottom excluded.
                    assert!((2..5).contains(&px) && (2..5).contains(&py), "{px},{py}");
                }
            }
        }
        assert_eq!(count, 9);
    }

    #[test]
    fn back_faces_are_culled_unless_two_sided() {
        let vp = Viewport {
            width: 8,
            height: 8,
        };
        let (a, b, c) = (ndc(-0.5, -0.5), ndc(0.5, -0.5), ndc(0.0, 0.5));
        let front = setup([&a, &b, &c], &vp, 0, false, false).unwrap().0;
        assert!(!front.back);
        assert!(setup([&a, &c, &b], &vp, 0, false, false).is_none());
        assert!(setup([&a, &c, &b], &vp, 0, true, false).unwrap().0.back);
    }

    #[test]
    fn planes_interpolate_vertex_values() {
        let vp = Viewport {
            width: 100,
            height: 100,
        };
        let (a, b, c) = (ndc(-0.5, -0.5), ndc(0.5, -0.5), ndc(0.0, 0.5));
        let t = setup([&a, &b, &c], &vp, 0, false, false).unwrap().0;
        // uv.x = ndc x; at screen sample centre (px + ½) that is (px+½)/50 - 1.
        let at = |px: f32, py: f32| {
            t.planes
                .get(P_U)
                .at(px - t.min_x as f32, py - t.min_y as f32)
        };
        assert!((at(49.5, 30.0) - 0.0).abs() < 1e-6);
        assert!((at(24.5, 60.0) + 0.5).abs() < 1e-6);
        assert_eq!((t.min_x, t.min_y, t.max_x, t.max_y), (25, 25, 74, 74));
    }

    #[test]
    fn layer_planes_only_with_a_layer() {
        let vp = Viewport {
            width: 100,
            height: 100,
        };
        let (a, b, c) = (ndc(-0.5, -0.5), ndc(0.5, -0.5), ndc(0.0, 0.5));
        let (without, none) = setup([&a, &b, &c], &vp, 0, false, false).unwrap();
        assert!(none.is_none());
        let (t, layer) = setup([&a, &b, &c], &vp, 0, false, true).unwrap();
        let layer = layer.unwrap();
        // Same coverage and attributes; lm = (-x, 2y) and the colour
        // (x, ¼, 1, y) in NDC, where sample (px, py) has its centre at NDC
        // ((px + ½)/50 - 1, 1 - (py + ½)/50).
        assert_eq!((t.edges, t.planes), (without.edges, without.planes));
        let at = |j: usize, px: f32, py: f32| layer[j].at(px - t.min_x as f32, py - t.min_y as f32);
        assert!((at(L_LM, 24.5, 60.0) - 0.5).abs() < 1e-6);
        assert!((at(L_LM + 1, 49.5, 30.0) - 0.78).abs() < 1e-5);
        assert!((at(L_LM + 1, 49.5, 74.5) + 1.0).abs() < 1e-5);
        assert!((at(L_COL, 24.5, 60.0) + 0.5).abs() < 1e-6);
        assert!((at(L_COL + 1, 40.0, 50.0) - 0.25).abs() < 1e-6);
        assert!((at(L_COL + 2, 40.0, 50.0) - 1.0).abs() < 1e-6);
        assert!((at(L_COL + 3, 49.5, 30.0) - 0.39).abs() < 1e-5);
    }
}
