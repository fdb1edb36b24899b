//! Eight-wide lane types the hot loops are written against.
//!
//! Plain arrays with element-wise loops: LLVM turns them into two SSE (or one
//! AVX) vector operations, which keeps the crate free of `unsafe` intrinsics.
//! Masks are `I32x8` lanes holding -1 (set) or 0 (clear), the same layout
//! a hardware compare produces, so selects compile to and/andnot/or.

use std::ops::{Add, BitAnd, BitOr, Mul, Not, Sub};

pub const LANES: usize = 8;

const ROUND_MAGIC: f32 = 12_582_912.0;
const ROUND_MAGIC_BITS: i32 = 0x4B40_0000;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct F32x8(pub [f32; LANES]);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct I32x8(pub [i32; LANES]);

macro_rules! zip {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {{
        let (a, b) = ($a, $b);
        let mut out = [Default::default(); LANES];
        for i in 0..LANES {
            let ($x, $y) = (a[i], b[i]);
            out[i] = $body;
        }
        out
    }};
}

impl F32x8 {
    #[inline(always)]
    pub fn splat(v: f32) -> Self {
        F32x8([v; LANES])
    }

    #[inline(always)]
    pub fn load(s: &[f32]) -> Self {
        let mut out = [0.0; LANES];
        out.copy_from_slice(&s[..LANES]);
        F32x8(out)
    }

    #[inline(always)]
    pub fn store(self, s: &mut [f32]) {
        s[..LANES].copy_from_slice(&self.0);
    }

    #[inline(always)]
    pub fn div(self, o: Self) -> Self {
        F32x8(zip!(self.0, o.0, |x, y| x / y))
    }

    /// Minimum written as a compare-select so it maps to `minps` (NaN in
    /// `self` yields `o`).
    #[inline(always)]
    pub fn min(self, o: Self) -> Self {
        F32x8(zip!(self.0, o.0, |x, y| if x < y { x } else { y }))
    }

    #[inline(always)]
    pub fn max(self, o: Self) -> Self {
        F32x8(zip!(self.0, o.0, |x, y| if x > y { x } else { y }))
    }

    #[inline(always)]
    pub fn sqrt(self) -> Self {
        let mut out = self.0;
        for v in &mut out {
            *v = v.sqrt();
        }
        F32x8(out)
    }

    /// Round to nearest (ties to even) for |x| < 2^22, by adding 1.5·2^23 so
    /// the FPU drops the fraction. Rust's `as i32` saturates and checks for
    /// NaN, which LLVM leaves as scalar code; this stays in vector registers.
    /// Out-of-range or NaN lanes give an unspecified value, never a panic.
    #[inline(always)]
    pub fn round_i32(self) -> I32x8 {
        let mut out = [0; LANES];
        for i in 0..LANES {
            out[i] = ((self.0[i] + ROUND_MAGIC).to_bits() as i32).wrapping_sub(ROUND_MAGIC_BITS);
        }
        I32x8(out)
    }

    /// Floor for |x| < 2^22 (see [`F32x8::round_i32`]); `f32::floor` is a
    /// library call per lane on baseline x86-64 (no SSE4.1).
    #[inline(always)]
    pub fn floor(self) -> Self {
        let mut out = self.0;
        for v in &mut out {
            let r = (*v + ROUND_MAGIC) - ROUND_MAGIC;
            *v = if r > *v { r - 1.0 } else { r };
        }
        F32x8(out)
    }

    /// Lanes where `self < o`.
    #[inline(always)]
    pub fn lt(self, o: Self) -> I32x8 {
        I32x8(zip!(self.0, o.0, |x, y| -((x < y) as i32)))
    }

    /// `m ? self : o` per lane.
    #[inline(always)]
    pub fn select(self, o: Self, m: I32x8) -> Self {
        let mut out = [0.0; LANES];
        for i in 0..LANES {
            out[i] = if m.0[i] != 0 { self.0[i] } else { o.0[i] };
        }
        F32x8(out)
    }
}

impl I32x8 {
    #[inline(always)]
    pub fn splat(v: i32) -> Self {
        I32x8([v; LANES])
    }

    #[inline(always)]
    pub fn ramp() -> Self {
        I32x8([0, 1, 2, 3, 4, 5, 6, 7])
    }

    /// Lanes whose value is non-negative, as a mask.
    #[inline(always)]
    pub fn non_negative(self) -> Self {
        let mut out = [0; LANES];
        for i in 0..LANES {
            out[i] = !(self.0[i] >> 31);
        }
        I32x8(out)
    }

    #[inline(always)]
    pub fn any(self) -> bool {
        self.0.iter().fold(0, |acc, &v| acc | v) != 0
    }

    #[inline(always)]
    pub fn to_f32(self) -> F32x8 {
        let mut out = [0.0; LANES];
        for i in 0..LANES {
            out[i] = self.0[i] as f32;
        }
        F32x8(out)
    }
}

impl Add for F32x8 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        F32x8(zip!(self.0, o.0, |x, y| x + y))
    }
}

impl Sub for F32x8 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        F32x8(zip!(self.0, o.0, |x, y| x - y))
    }
}

impl Mul for F32x8 {
    type Output = Self;
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        F32x8(zip!(self.0, o.0, |x, y| x * y))
    }
}

impl Add for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        I32x8(zip!(self.0, o.0, |x, y| x.wrapping_add(y)))
    }
}

impl Sub for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        I32x8(zip!(self.0, o.0, |x, y| x.wrapping_sub(y)))
    }
}

impl Mul for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        I32x8(zip!(self.0, o.0, |x, y| x.wrapping_mul(y)))
    }
}

impl BitAnd for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, o: Self) -> Self {
        I32x8(zip!(self.0, o.0, |x, y| x & y))
    }
}

impl Not for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        I32x8(self.0.map(|v| !v))
    }
}

impl BitOr for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn bitor(self, o: Self) -> Self {
        I32x8(zip!(self.0, o.0, |x, y| x | y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_matches_std_for_negative_and_positive_values() {
        let v = F32x8([-1.5, -1.0, -0.25, 0.0, 0.25, 1.0, 2.75, -3.0]);
        assert_eq!(v.floor().0, [-2.0, -1.0, -1.0, 0.0, 0.0, 1.0, 2.0, -3.0]);
    }

    #[test]
    fn round_i32_rounds_to_nearest_even() {
        let v = F32x8([-2.5, -1.4, -0.6, 0.0, 0.5, 1.5, 254.6, 4_000_000.0]);
        assert_eq!(v.round_i32().0, [-2, -1, -1, 0, 0, 2, 255, 4_000_000]);
    }

    #[test]
    fn non_negative_mask_and_any() {
        let m = I32x8([-1, 0, 5, -7, i32::MIN, i32::MAX, 1, -2]).non_negative();
        assert_eq!(m.0, [0, -1, -1, 0, 0, -1, -1, 0]);
        assert!(m.any());
        assert!(!I32x8::splat(0).any());
    }
}
