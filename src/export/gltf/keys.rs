//! Animation keys: what glTF needs to reproduce a value kiln evaluates
//! over a clip.
//!
//! A channel starts from kiln's own keys, evaluated by kiln itself, so the
//! value at every key is exactly what kiln poses. Between keys glTF can only
//! lerp (slerp for rotations) or step; where that departs from kiln's own
//! interpolation by more than the channel's tolerance (Grimrock's nlerp,
//! the offset of a rotating texture, keys at equal times), keys are added by
//! bisection until it does not, and counted so the export can say so.
//! A clip longer than the loop repeats it; where the loop does not join
//! up, its seam takes [`SEAM`] seconds.

use glam::{DQuat, Quat, Vec2, Vec3};

/// How long a loop's seam lasts in the keys, seconds: glTF cannot jump, so
/// a value that wraps from the loop's end to its start moves over this
/// long just before the wrap.
pub(super) const SEAM: f64 = 1e-4;

/// Deepest bisection below one of kiln's keys (2¹⁰ keys at most).
const MAX_DEPTH: u32 = 10;

/// A value a glTF animation sampler can hold.
pub(super) trait Keyable: Copy {
    /// The accessor type.
    const KIND: &'static str;
    const WIDTH: usize;
    fn push(self, out: &mut Vec<f32>);
    /// What a glTF viewer shows a fraction `s` of the way between two keys
    /// (LINEAR: lerp; slerp for rotations, as the specification gives it).
    fn between(a: Self, b: Self, s: f32) -> Self;
    /// How far apart two values are (an angle for rotations).
    fn distance(a: Self, b: Self) -> f32;
    /// The value made writable: finite (and a unit rotation).
    fn clean(self) -> Self;
    /// `self` as written after `prev` (rotations keep one hemisphere).
    fn after(self, _prev: Self) -> Self {
        self
    }
}

fn fin(x: f32) -> f32 {
    // `+ 0.0` folds -0 into 0 so files do not depend on the sign of zero.
    if x.is_finite() {
        x + 0.0
    } else {
        0.0
    }
}

impl Keyable for f32 {
    const KIND: &'static str = "SCALAR";
    const WIDTH: usize = 1;
    fn push(self, out: &mut Vec<f32>) {
        out.push(self);
    }
    fn between(a: f32, b: f32, s: f32) -> f32 {
        a + (b - a) * s
    }
    fn distance(a: f32, b: f32) -> f32 {
        (a - b).abs()
    }
    fn clean(self) -> f32 {
        fin(self)
    }
}

impl Keyable for Vec2 {
    const KIND: &'static str = "VEC2";
    const WIDTH: usize = 2;
    fn push(self, out: &mut Vec<f32>) {
        out.extend_from_slice(&self.to_array());
    }
    fn between(a: Vec2, b: Vec2, s: f32) -> Vec2 {
        a.lerp(b, s)
    }
    fn distance(a: Vec2, b: Vec2) -> f32 {
        a.distance(b)
    }
    fn clean(self) -> Vec2 {
        Vec2::new(fin(self.x), fin(self.y))
    }
}

impl Keyable for Vec3 {
    const KIND: &'static str = "VEC3";
    const WIDTH: usize = 3;
    fn push(self, out: &mut Vec<f32>) {
        out.extend_from_slice(&self.to_array());
    }
    fn between(a: Vec3, b: Vec3, s: f32) -> Vec3 {
        a.lerp(b, s)
    }
    fn distance(a: Vec3, b: Vec3) -> f32 {
        a.distance(b)
    }
    fn clean(self) -> Vec3 {
        Vec3::new(fin(self.x), fin(self.y), fin(self.z))
    }
}

impl Keyable for Quat {
    const KIND: &'static str = "VEC4";
    const WIDTH: usize = 4;
    fn push(self, out: &mut Vec<f32>) {
        out.extend_from_slice(&self.to_array());
    }
    fn between(a: Quat, b: Quat, s: f32) -> Quat {
        slerp(a.as_dquat(), b.as_dquat(), f64::from(s)).as_quat()
    }
    fn distance(a: Quat, b: Quat) -> f32 {
        // The angle of the rotation between them, from chord lengths:
        // stable near zero, where `acos` of a dot product is not.
        let (a, mut b) = (a.as_dquat(), b.as_dquat());
        if a.dot(b) < 0.0 {
            b = -b;
        }
        (4.0 * (a - b).length().atan2((a + b).length())) as f32
    }
    fn clean(self) -> Quat {
        let q = Quat::from_array(self.to_array().map(fin));
        let n = q.as_dquat().length();
        if n > 1e-12 && n.is_finite() {
            (q.as_dquat() / n).as_quat()
        } else {
            Quat::IDENTITY
        }
    }
    fn after(self, prev: Quat) -> Quat {
        if prev.dot(self) < 0.0 {
            -self
        } else {
            self
        }
    }
}

/// The glTF specification's spherical interpolation: the short way round,
/// at constant speed.
fn slerp(a: DQuat, b: DQuat, s: f64) -> DQuat {
    let mut d = a.dot(b);
    let b = if d < 0.0 {
        d = -d;
        -b
    } else {
        b
    };
    if d > 1.0 - 1e-12 {
        return (a * (1.0 - s) + b * s).normalize();
    }
    let theta = d.min(1.0).acos();
    let k = 1.0 / theta.sin();
    (a * (((1.0 - s) * theta).sin() * k) + b * ((s * theta).sin() * k)).normalize()
}

/// A value as kiln evaluates it over model time.
pub(super) struct Signal<'a, V> {
    /// kiln's value at model time `u` within the loop `[0, period]`
    /// (`period` itself gives the value just before the loop wraps).
    pub eval: Box<dyn Fn(f32) -> V + 'a>,
    /// Model times where the value may change course: kiln's keys.
    pub knots: Vec<f32>,
    /// Held from key to key (glTF STEP) rather than interpolated.
    pub step: bool,
    /// How far glTF's value may depart from kiln's between keys.
    pub tolerance: f32,
}

/// The stretch of model time a clip covers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Window {
    /// Model time at the clip's start, seconds.
    pub start: f32,
    /// The clip's length, seconds (0 for a single pose).
    pub length: f32,
    /// The model's loop period, seconds (0: it does not move).
    pub period: f32,
}

/// A channel's keys: times from the clip's start, seconds.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Keys<V> {
    pub times: Vec<f32>,
    pub values: Vec<V>,
    pub step: bool,
    /// Keys added between kiln's own to follow its interpolation.
    pub added: usize,
    /// Loop seams within the clip where the value jumps.
    pub seams: usize,
}

impl<V: Keyable> Keys<V> {
    /// Whether every key holds `v` (to within `tolerance`).
    pub fn constant(&self, v: V, tolerance: f32) -> bool {
        self.values.iter().all(|&x| V::distance(x, v) <= tolerance)
    }
}

/// The keys that make glTF show what kiln shows of `signal` over `w`.
pub(super) fn keys<V: Keyable>(signal: &Signal<V>, w: &Window) -> Keys<V> {
    let eval = |u: f32| (signal.eval)(u).clean();
    let start = f64::from(w.start.max(0.0));
    let length = f64::from(w.length.max(0.0));
    let period = f64::from(w.period);
    let mut out = Keys {
        times: Vec::new(),
        values: Vec::new(),
        step: signal.step,
        added: 0,
        seams: 0,
    };
    if period.is_nan() || period <= 0.0 || !period.is_finite() {
        // kiln shows a model that does not move at time 0, whatever the clock.
        let v = eval(0.0);
        out.times.push(0.0);
        out.values.push(v);
        if length > 0.0 {
            out.times.push(length as f32);
            out.values.push(v);
        }
        return out;
    }
    // Model time within the loop, as kiln wraps it (in f32, as kiln does).
    let wrap = |t: f64| ((start + t) as f32).rem_euclid(w.period);
    let mut knots: Vec<f64> = signal
        .knots
        .iter()
        .copied()
        .filter(|k| k.is_finite() && *k > 0.0 && f64::from(*k) < period)
        .map(f64::from)
        .collect();
    knots.sort_by(f64::total_cmp);
    knots.dedup();

    // Points where kiln's value may bend (keys) or jump (loop seams), in
    // clip time, ascending: (time, model time to evaluate, is a seam).
    let mut points: Vec<(f64, f32, bool)> = Vec::new();
    let first = (start / period).floor() as i64;
    let last = ((start + length) / period).floor() as i64;
    for k in first..=last {
        let base = k as f64 * period - start;
        if k > first && base > 0.0 && base < length {
            points.push((base, 0.0, true));
        }
        for &u in &knots {
            let t = base + u;
            if t > 0.0 && t < length {
                points.push((t, u as f32, false));
            }
        }
    }

    let mut raw: Vec<(f64, V, bool)> = vec![(0.0, eval(wrap(0.0)), false)];
    for &(t, u, seam) in &points {
        if seam {
            let (left, right) = (eval(w.period), eval(0.0));
            let prev = raw.last().map_or(0.0, |r| r.0);
            if !signal.step && V::distance(left, right) > signal.tolerance {
                let just_before = t - SEAM.min((t - prev) / 2.0);
                raw.push((just_before, left, true));
                out.seams += 1;
            }
            raw.push((t, right, false));
        } else {
            raw.push((t, eval(u), false));
        }
    }
    if length > 0.0 {
        let end = start + length;
        let on_seam = (end / period).fract() == 0.0;
        let v = if on_seam {
            eval(w.period)
        } else {
            eval(wrap(length))
        };
        raw.push((length, v, false));
    }

    // Follow kiln between keys where glTF's interpolation does not.
    let kiln_at = |t: f64| eval(wrap(t));
    let mut refined: Vec<(f64, V)> = Vec::with_capacity(raw.len());
    for (i, &(t, v, _)) in raw.iter().enumerate() {
        // The step across a seam is a jump, not something to follow.
        let across_seam = i > 0 && raw[i - 1].2;
        if let (Some(&(t0, v0)), false, false) = (refined.last(), signal.step, across_seam) {
            let before = refined.len();
            refine(&kiln_at, t0, v0, t, v, signal.tolerance, 0, &mut refined);
            out.added += refined.len() - before;
        }
        refined.push((t, v));
    }

    let mut prev: Option<V> = None;
    for (t, v) in refined {
        let t = t as f32;
        if out.times.last().is_some_and(|&l| t <= l) {
            continue;
        }
        let v = match prev {
            Some(p) => v.after(p),
            None => v,
        };
        out.times.push(t);
        out.values.push(v);
        prev = Some(v);
    }
    out
}

/// Adds keys strictly between `(t0, v0)` and `(t1, v1)` until glTF's
/// interpolation stays within `tolerance` of kiln's value.
#[allow(clippy::too_many_arguments)]
fn refine<V: Keyable>(
    kiln_at: &dyn Fn(f64) -> V,
    t0: f64,
    v0: V,
    t1: f64,
    v1: V,
    tolerance: f32,
    depth: u32,
    out: &mut Vec<(f64, V)>,
) {
    if depth >= MAX_DEPTH || t1 - t0 < 1e-6 {
        return;
    }
    let off = [0.25, 0.5, 0.75]
        .iter()
        .map(|&s| {
            let kiln = kiln_at(t0 + (t1 - t0) * s);
            V::distance(V::between(v0, v1, s as f32), kiln)
        })
        .fold(0.0f32, f32::max);
    if off <= tolerance {
        return;
    }
    let tm = 0.5 * (t0 + t1);
    let vm = kiln_at(tm);
    refine(kiln_at, t0, v0, tm, vm, tolerance, depth + 1, out);
    out.push((tm, vm));
    refine(kiln_at, tm, vm, t1, v1, tolerance, depth + 1, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signal<'a>(f: impl Fn(f32) -> f32 + 'a, knots: &[f32], step: bool) -> Signal<'a, f32> {
        Signal {
            eval: Box::new(f),
            knots: knots.to_vec(),
            step,
            tolerance: 1e-6,
        }
    }

    /// A piecewise-linear value with kinks at 1 and 3, period 4.
    fn kinked(u: f32) -> f32 {
        if u < 1.0 {
            u
        } else if u < 3.0 {
            1.0 - (u - 1.0)
        } else {
            -1.0 + (u - 3.0) * 0.5
        }
    }

    #[test]
    fn linear_values_keep_kilns_keys_only() {
        let s = signal(kinked, &[1.0, 3.0], false);
        let k = keys(
            &s,
            &Window {
                start: 0.0,
                length: 4.0,
                period: 4.0,
            },
        );
        assert_eq!(k.times, vec![0.0, 1.0, 3.0, 4.0]);
        assert_eq!(k.values, vec![0.0, 1.0, -1.0, -0.5]);
        assert_eq!((k.added, k.seams), (0, 0));
    }

    #[test]
    fn a_window_past_the_loop_repeats_it_with_a_short_seam() {
        let s = signal(kinked, &[1.0, 3.0], false);
        let k = keys(
            &s,
            &Window {
                start: 2.0,
                length: 4.0,
                period: 4.0,
            },
        );
        // From model time 2 to 4, then 0 to 2 again.
        assert_eq!(k.times[..2], [0.0, 1.0]);
        assert_eq!(k.values[..2], [0.0, -1.0]);
        let seam = k.times.iter().position(|&t| t == 2.0).unwrap();
        assert!((k.times[seam - 1] - (2.0 - SEAM as f32)).abs() < 1e-6);
        assert_eq!((k.values[seam - 1], k.values[seam]), (-0.5, 0.0));
        assert_eq!(k.times[seam + 1..], [3.0, 4.0]);
        assert_eq!(k.values[seam + 1..], [1.0, 0.0]);
        assert_eq!(k.seams, 1);
    }

    #[test]
    fn curved_values_get_keys_until_they_follow() {
        let s = signal(|u| (u * 0.5).sin(), &[], false);
        let k = keys(
            &s,
            &Window {
                start: 0.0,
                length: 2.0,
                period: 2.0,
            },
        );
        assert!(k.added > 8, "{} keys added", k.added);
        for i in 0..200 {
            let t = i as f32 / 100.0;
            let j = k
                .times
                .partition_point(|&x| x <= t)
                .min(k.times.len() - 1)
                .max(1);
            let s01 = (t - k.times[j - 1]) / (k.times[j] - k.times[j - 1]);
            let v = k.values[j - 1] + (k.values[j] - k.values[j - 1]) * s01;
            assert!((v - (t * 0.5).sin()).abs() < 2e-6, "at {t}");
        }
    }

    #[test]
    fn steps_and_still_models() {
        let s = signal(|u| u.floor(), &[1.0, 2.0], true);
        let k = keys(
            &s,
            &Window {
                start: 0.0,
                length: 3.0,
                period: 3.0,
            },
        );
        assert_eq!(k.times, vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(k.values, vec![0.0, 1.0, 2.0, 3.0]);
        assert!(k.step && k.added == 0);
        let still = keys(
            &s,
            &Window {
                start: 5.0,
                length: 0.0,
                period: 0.0,
            },
        );
        assert_eq!((still.times, still.values), (vec![0.0], vec![0.0]));
    }

    #[test]
    fn rotations_stay_in_one_hemisphere_and_unit_length() {
        let s = Signal {
            eval: Box::new(|u: f32| {
                let q = Quat::from_rotation_y(u);
                if u > 0.5 {
                    -q * 2.0
                } else {
                    q
                }
            }),
            knots: vec![0.5],
            step: false,
            tolerance: 1e-5,
        };
        let k = keys(
            &s,
            &Window {
                start: 0.0,
                length: 1.0,
                period: 1.0,
            },
        );
        for w in k.values.windows(2) {
            assert!(w[0].dot(w[1]) > 0.0);
        }
        assert!(k.values.iter().all(|q| (q.length() - 1.0).abs() < 1e-6));
    }
}
