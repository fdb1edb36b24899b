//! Keyframe tracks sampled at any time in seconds.

use glam::{Mat3, Quat, Vec3};

/// How a track goes from one key to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interp {
    /// Lerp for vectors, slerp for rotations.
    Linear,
    /// Normalised lerp with a sign flip for the shortest arc (Grimrock).
    Nlerp,
    /// Each key held until the next.
    Step,
    /// glTF's cubic Hermite spline: the track's values are triplets per
    /// key (in-tangent, value, out-tangent), tangents in units per second;
    /// rotations are normalised after.
    CubicSpline,
}

/// Keys of one value over time.
#[derive(Debug, Clone)]
pub struct Track<T> {
    /// Key times in seconds, non-decreasing.
    pub times: Vec<f32>,
    /// One value per key time.
    pub values: Vec<T>,
    /// How values between keys are found.
    pub interp: Interp,
    /// Before the first key: `Some(v)` interpolates from `v` at t = 0 to the
    /// first key (RSM2's default-value rule); `None` holds the first key.
    pub before_first: Option<T>,
    /// After the last key: `Some(period)` interpolates from the last key back to
    /// the first, reaching it at `period` (Grimrock's looping); `None` holds the last key.
    pub wrap_to_first: Option<f32>,
}

/// A value a track can interpolate.
pub trait Interpolate: Copy {
    /// The value a fraction `s` of the way from `a` to `b`.
    fn interpolate(a: Self, b: Self, s: f32, mode: Interp) -> Self;
    /// `a·x + b·y`, component by component: what a cubic spline sums.
    fn combine(x: Self, a: f32, y: Self, b: f32) -> Self;
    /// The value a cubic spline gives: made a valid value again (a
    /// rotation normalised); others as they are.
    fn settle(self) -> Self {
        self
    }
}

/// The cubic Hermite spline between keys `v0` (out-tangent `b0`) and `v1`
/// (in-tangent `a1`), `dt` seconds apart, a fraction `s` of the way.
fn hermite<T: Interpolate>(v0: T, b0: T, v1: T, a1: T, s: f32, dt: f32) -> T {
    let (s2, s3) = (s * s, s * s * s);
    let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
    let h10 = s3 - 2.0 * s2 + s;
    let h01 = -2.0 * s3 + 3.0 * s2;
    let h11 = s3 - s2;
    let p = T::combine(v0, h00, b0, h10 * dt);
    let q = T::combine(v1, h01, a1, h11 * dt);
    T::combine(p, 1.0, q, 1.0).settle()
}

impl Interpolate for f32 {
    fn interpolate(a: f32, b: f32, s: f32, mode: Interp) -> f32 {
        if mode == Interp::Step {
            a
        } else {
            a + (b - a) * s
        }
    }
    fn combine(x: f32, a: f32, y: f32, b: f32) -> f32 {
        x * a + y * b
    }
}

impl Interpolate for Vec3 {
    fn interpolate(a: Vec3, b: Vec3, s: f32, mode: Interp) -> Vec3 {
        if mode == Interp::Step {
            a
        } else {
            a.lerp(b, s)
        }
    }
    fn combine(x: Vec3, a: f32, y: Vec3, b: f32) -> Vec3 {
        x * a + y * b
    }
}

/// Component-wise, which keeps a symmetric stretch symmetric.
impl Interpolate for Mat3 {
    fn interpolate(a: Mat3, b: Mat3, s: f32, mode: Interp) -> Mat3 {
        if mode == Interp::Step {
            a
        } else {
            a * (1.0 - s) + b * s
        }
    }
    fn combine(x: Mat3, a: f32, y: Mat3, b: f32) -> Mat3 {
        x * a + y * b
    }
}

impl Interpolate for Quat {
    fn interpolate(a: Quat, b: Quat, s: f32, mode: Interp) -> Quat {
        match mode {
            Interp::Step => a,
            // A spline is sampled by `hermite`; between two bare values it
            // is the straight path.
            Interp::Linear | Interp::CubicSpline => {
                a.normalize().slerp(b.normalize(), s).normalize()
            }
            Interp::Nlerp => {
                let b = if a.dot(b) < 0.0 { -b } else { b };
                (a * (1.0 - s) + b * s).normalize()
            }
        }
    }
    fn combine(x: Quat, a: f32, y: Quat, b: f32) -> Quat {
        Quat::from_vec4(glam::Vec4::from(x) * a + glam::Vec4::from(y) * b)
    }
    fn settle(self) -> Quat {
        self.normalize()
    }
}

impl<T: Interpolate> Track<T> {
    /// A track of these keys, holding its first and last key outside them.
    pub fn new(times: Vec<f32>, values: Vec<T>, interp: Interp) -> Self {
        Track {
            times,
            values,
            interp,
            before_first: None,
            wrap_to_first: None,
        }
    }

    /// Samples the track at time `t` (seconds, already wrapped into the clip).
    /// Returns `None` for an empty track.
    pub fn sample(&self, t: f32) -> Option<T> {
        if self.interp == Interp::CubicSpline {
            return self.sample_spline(t);
        }
        let n = self.values.len().min(self.times.len());
        if n == 0 {
            return None;
        }
        let (t0, v0) = (self.times[0], self.values[0]);
        if t < t0 {
            if let Some(d) = self.before_first {
                let s = if t0 > 0.0 {
                    (t / t0).clamp(0.0, 1.0)
                } else {
                    1.0
                };
                return Some(T::interpolate(d, v0, s, self.interp));
            }
            return Some(v0);
        }
        let (tl, vl) = (self.times[n - 1], self.values[n - 1]);
        if t >= tl {
            if let Some(period) = self.wrap_to_first {
                if period > tl && n > 1 {
                    let s = ((t - tl) / (period - tl)).clamp(0.0, 1.0);
                    return Some(T::interpolate(vl, v0, s, self.interp));
                }
            }
            return Some(vl);
        }
        // Last index whose time is <= t; keys are few, and a binary search
        // keeps long clips cheap.
        let i = self.times[..n]
            .partition_point(|&k| k <= t)
            .saturating_sub(1);
        let (ta, tb) = (self.times[i], self.times[i + 1]);
        let s = if tb > ta { (t - ta) / (tb - ta) } else { 0.0 };
        Some(T::interpolate(
            self.values[i],
            self.values[i + 1],
            s,
            self.interp,
        ))
    }

    /// The value of key `i` of a spline track (the middle of its triplet).
    pub fn spline_value(&self, i: usize) -> Option<T> {
        self.values.get(3 * i + 1).copied()
    }

    /// A cubic-spline track at `t`: outside its keys the first or last
    /// value held; between them the Hermite curve.
    fn sample_spline(&self, t: f32) -> Option<T> {
        let n = (self.values.len() / 3).min(self.times.len());
        if n == 0 {
            return None;
        }
        let v = |i: usize| self.values[3 * i + 1];
        if t <= self.times[0] || n == 1 {
            return Some(v(0).settle());
        }
        if t >= self.times[n - 1] {
            return Some(v(n - 1).settle());
        }
        let i = self.times[..n]
            .partition_point(|&k| k <= t)
            .saturating_sub(1)
            .min(n - 2);
        let (ta, tb) = (self.times[i], self.times[i + 1]);
        let dt = tb - ta;
        if dt <= 0.0 {
            return Some(v(i + 1).settle());
        }
        let s = (t - ta) / dt;
        let b0 = self.values[3 * i + 2];
        let a1 = self.values[3 * (i + 1)];
        Some(hermite(v(i), b0, v(i + 1), a1, s, dt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(before: Option<f32>) -> Track<f32> {
        let mut t = Track::new(vec![1.0, 2.0, 4.0], vec![10.0, 20.0, 0.0], Interp::Linear);
        t.before_first = before;
        t
    }

    #[test]
    fn linear_between_keys_and_hold_after_last() {
        let t = track(None);
        assert_eq!(t.sample(1.5), Some(15.0));
        assert_eq!(t.sample(3.0), Some(10.0));
        assert_eq!(t.sample(4.0), Some(0.0));
        assert_eq!(t.sample(9.0), Some(0.0));
    }

    #[test]
    fn before_first_key_holds_or_interpolates_from_default() {
        assert_eq!(track(None).sample(0.5), Some(10.0));
        // RSM2: from the default at t = 0 to the first key.
        assert_eq!(track(Some(0.0)).sample(0.0), Some(0.0));
        assert_eq!(track(Some(0.0)).sample(0.25), Some(2.5));
    }

    #[test]
    fn wrap_to_first_interpolates_into_the_loop() {
        let mut t = track(None);
        t.wrap_to_first = Some(6.0);
        assert_eq!(t.sample(5.0), Some(5.0));
    }

    #[test]
    fn nlerp_takes_the_short_way() {
        let a = Quat::from_rotation_y(0.1);
        let b = -Quat::from_rotation_y(0.3); // same rotation, opposite sign
        let m = Quat::interpolate(a, b, 0.5, Interp::Nlerp);
        assert!(m.angle_between(Quat::from_rotation_y(0.2)) < 1e-4);
        let s = Quat::interpolate(
            Quat::IDENTITY,
            Quat::from_rotation_z(1.0),
            0.25,
            Interp::Linear,
        );
        assert!(s.angle_between(Quat::from_rotation_z(0.25)) < 1e-4);
    }

    #[test]
    fn empty_and_single_key_tracks() {
        let e: Track<f32> = Track::new(vec![], vec![], Interp::Linear);
        assert_eq!(e.sample(1.0), None);
        let one = Track::new(vec![3.0], vec![7.0], Interp::Linear);
        assert_eq!(one.sample(0.0), Some(7.0));
        assert_eq!(one.sample(5.0), Some(7.0));
    }
}
