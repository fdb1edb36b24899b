//! Homogeneous clipping against near, far, a small positive w and a guard
//! band in x/y.
//!
//! The guard band is what keeps the fixed-point setup safe: after clipping,
//! every vertex lies within `GUARD_SAMPLES` of the viewport centre, so edge
//! coefficients stay small enough for i32 lane arithmetic inside a tile.
//! Triangles entirely inside every plane (the common case) skip the clipper.

use glam::{Vec2, Vec3, Vec4};

/// Half-extent, in samples, of the square around the viewport centre that
/// post-clip vertices may occupy (the setup relies on 2·this < 2^15).
pub const GUARD_SAMPLES: f32 = 12000.0;

/// Below this w a vertex is treated as behind the eye; projections whose near
/// plane does not already imply w > 0 still cannot divide by zero.
const W_EPSILON: f32 = 1e-6;

const PLANES: usize = 7;
/// Every plane can add at most one vertex to a convex polygon.
pub const MAX_POLY: usize = 3 + PLANES;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipVertex {
    pub pos: Vec4,
    pub uv: Vec2,
    pub normal: Vec3,
    /// Lightmap coordinates; zero (and never set up) for batches without a layer.
    pub lm: Vec2,
    /// Straight vertex colour; white (and never set up) for batches without a layer.
    pub col: Vec4,
}

impl ClipVertex {
    fn lerp(&self, o: &ClipVertex, t: f32) -> ClipVertex {
        ClipVertex {
            pos: self.pos + (o.pos - self.pos) * t,
            uv: self.uv + (o.uv - self.uv) * t,
            normal: self.normal + (o.normal - self.normal) * t,
            lm: self.lm + (o.lm - self.lm) * t,
            col: self.col + (o.col - self.col) * t,
        }
    }
}

/// Clip-space x/y limits as multiples of w.
#[derive(Debug, Clone, Copy)]
pub struct GuardBand {
    pub gx: f32,
    pub gy: f32,
}

impl GuardBand {
    /// For a render target of `width × height` samples.
    pub fn new(width: u32, height: u32) -> Self {
        GuardBand {
            gx: 2.0 * GUARD_SAMPLES / width.max(1) as f32,
            gy: 2.0 * GUARD_SAMPLES / height.max(1) as f32,
        }
    }

    /// Signed distances to each plane; >= 0 is inside.
    #[inline]
    fn distances(&self, p: Vec4) -> [f32; PLANES] {
        [
            p.z,
            p.w - p.z,
            p.w - W_EPSILON,
            self.gx * p.w + p.x,
            self.gx * p.w - p.x,
            self.gy * p.w + p.y,
            self.gy * p.w - p.y,
        ]
    }
}

/// Where a triangle stands against the clip volume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Wholly outside one plane, or not finite.
    Reject,
    Inside,
    /// Needs [`clip_triangle`].
    Crossing,
}

/// Bit i set when the point is outside plane i; `u32::MAX` when not finite.
#[inline]
pub fn outcode(v: Vec4, band: &GuardBand) -> u32 {
    if !v.is_finite() {
        return u32::MAX;
    }
    band.distances(v)
        .iter()
        .enumerate()
        .fold(0u32, |c, (i, d)| c | (((*d < 0.0) as u32) << i))
}

/// Classifies a triangle by its vertices' [`outcode`]s, so the common
/// fully-inside triangle skips the clipper.
#[inline]
pub fn classify(codes: [u32; 3]) -> Class {
    let [a, b, c] = codes;
    if a == u32::MAX || b == u32::MAX || c == u32::MAX || a & b & c != 0 {
        Class::Reject
    } else if a | b | c == 0 {
        Class::Inside
    } else {
        Class::Crossing
    }
}

/// A convex polygon of at most [`MAX_POLY`] vertices.
pub struct Polygon {
    pub verts: [ClipVertex; MAX_POLY],
    pub len: usize,
}

/// Clips a triangle; returns the polygon to draw as a fan (empty when the
/// triangle is invisible or has non-finite positions).
pub fn clip_triangle(tri: [ClipVertex; 3], band: &GuardBand) -> Polygon {
    let mut poly = Polygon {
        verts: [tri[0]; MAX_POLY],
        len: 0,
    };
    if tri.iter().any(|v| !v.pos.is_finite()) {
        return poly;
    }
    let d = [
        band.distances(tri[0].pos),
        band.distances(tri[1].pos),
        band.distances(tri[2].pos),
    ];
    let mut crossing = [false; PLANES];
    for p in 0..PLANES {
        let outside = d.iter().filter(|dv| dv[p] < 0.0).count();
        if outside == 3 {
            return poly;
        }
        crossing[p] = outside > 0;
    }
    poly.verts[..3].copy_from_slice(&tri);
    poly.len = 3;
    if !crossing.iter().any(|&c| c) {
        return poly;
    }

    let mut scratch = [tri[0]; MAX_POLY];
    for p in (0..PLANES).filter(|&p| crossing[p]) {
        let n = poly.len;
        let mut m = 0;
        for i in 0..n {
            let a = poly.verts[i];
            let b = poly.verts[(i + 1) % n];
            let da = band.distances(a.pos)[p];
            let db = band.distances(b.pos)[p];
            if da >= 0.0 {
                scratch[m] = a;
                m += 1;
            }
            if (da >= 0.0) != (db >= 0.0) && m < MAX_POLY {
                // Always step from the inside vertex: from a far-away outside
                // vertex, t rounds to 1 and the result cancels to garbage.
                let mut v = if da >= 0.0 {
                    a.lerp(&b, da / (da - db))
                } else {
                    b.lerp(&a, db / (db - da))
                };
                // Rounding can leave the new vertex a hair outside the plane it
                // was clipped to; later planes and the setup clamp tolerate it.
                if !v.pos.is_finite() {
                    v = if da >= 0.0 { a } else { b };
                }
                scratch[m] = v;
                m += 1;
            }
        }
        poly.verts[..m].copy_from_slice(&scratch[..m]);
        poly.len = m;
        if m < 3 {
            poly.len = 0;
            return poly;
        }
    }
    poly
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cv(x: f32, y: f32, z: f32, w: f32) -> ClipVertex {
        ClipVertex {
            pos: Vec4::new(x, y, z, w),
            uv: Vec2::new(x, y),
            normal: Vec3::Z,
            lm: Vec2::new(y, x),
            col: Vec4::new(x, y, z, w),
        }
    }

    #[test]
    fn inside_triangle_is_untouched() {
        let band = GuardBand::new(64, 64);
        let t = [
            cv(0.0, 0.0, 0.5, 1.0),
            cv(0.5, 0.0, 0.5, 1.0),
            cv(0.0, 0.5, 0.5, 1.0),
        ];
        let p = clip_triangle(t, &band);
        assert_eq!(p.len, 3);
        assert_eq!(p.verts[..3], t);
    }

    #[test]
    fn near_plane_cut_makes_a_quad_on_the_plane() {
        let band = GuardBand::new(64, 64);
        // One vertex behind the near plane (z < 0).
        let t = [
            cv(0.0, 0.0, -1.0, 1.0),
            cv(0.5, 0.0, 1.0, 2.0),
            cv(0.0, 0.5, 1.0, 2.0),
        ];
        let p = clip_triangle(t, &band);
        assert_eq!(p.len, 4);
        let on_plane = p.verts[..4].iter().filter(|v| v.pos.z.abs() < 1e-6).count();
        assert_eq!(on_plane, 2);
        assert!(p.verts[..4].iter().all(|v| v.pos.z >= -1e-6));
    }

    #[test]
    fn fully_behind_and_non_finite_are_dropped() {
        let band = GuardBand::new(64, 64);
        let behind = [
            cv(0.0, 0.0, -1.0, 1.0),
            cv(0.5, 0.0, -1.0, 1.0),
            cv(0.0, 0.5, -2.0, 1.0),
        ];
        assert_eq!(clip_triangle(behind, &band).len, 0);
        let nan = [
            cv(f32::NAN, 0.0, 0.5, 1.0),
            cv(0.5, 0.0, 0.5, 1.0),
            cv(0.0, 0.5, 0.5, 1.0),
        ];
        assert_eq!(clip_triangle(nan, &band).len, 0);
    }

    #[test]
    fn outcodes_classify_triangles() {
        let band = GuardBand::new(64, 64);
        let code = |x: f32, z: f32| outcode(Vec4::new(x, 0.0, z, 1.0), &band);
        assert_eq!(code(0.0, 0.5), 0);
        assert_eq!(code(0.0, -0.5), 1); // behind the near plane
        assert_eq!(code(0.0, 1.5), 2); // beyond the far plane
        assert_eq!(classify([0, 0, 0]), Class::Inside);
        assert_eq!(classify([1, 1, 3]), Class::Reject);
        assert_eq!(classify([1, 2, 0]), Class::Crossing);
        assert_eq!(classify([0, u32::MAX, 0]), Class::Reject);
        assert_eq!(code(f32::NAN, 0.5), u32::MAX);
    }

    #[test]
    fn guard_band_limits_x() {
        let band = GuardBand::new(24000, 24000);
        assert_eq!(band.gx, 1.0);
        let t = [
            cv(-5.0, 0.0, 0.5, 1.0),
            cv(5.0, 0.0, 0.5, 1.0),
            cv(0.0, 0.5, 0.5, 1.0),
        ];
        let p = clip_triangle(t, &band);
        assert!(p.len >= 4);
        assert!(p.verts[..p.len].iter().all(|v| v.pos.x.abs() <= 1.0 + 1e-5));
    }
}
