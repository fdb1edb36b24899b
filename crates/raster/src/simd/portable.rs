//! The portable level: plain arrays with element-wise loops, which LLVM
//! turns into the build's baseline vector instructions. The reference the
//! other levels match bit for bit.

use super::{FloatLanes, IntLanes, Kernel, Simd, LANES, ROUND_MAGIC, ROUND_MAGIC_BITS};
use std::ops::{Add, BitAnd, BitOr, Mul, Not, Sub};

/// The portable level's token; it runs on every CPU.
#[derive(Debug, Clone, Copy, Default)]
pub struct Portable;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct F32x8([f32; LANES]);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct I32x8([i32; LANES]);

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

macro_rules! each {
    ($a:expr, |$x:ident| $body:expr) => {{
        let mut out = $a;
        for v in &mut out {
            let $x = *v;
            *v = $body;
        }
        out
    }};
}

/// [`Simd::apart`] at the portable level.
#[inline(never)]
fn run_apart<K: Kernel>(kernel: K) -> K::Output {
    kernel.run(Portable)
}

impl Simd for Portable {
    type F = F32x8;
    type I = I32x8;
    const IN_STEP: bool = false;
    const UNROLLED_WRITES: bool = false;

    #[inline(always)]
    fn apart<K: Kernel>(self, kernel: K) -> K::Output {
        run_apart(kernel)
    }

    #[inline(always)]
    fn splat(self, v: f32) -> F32x8 {
        F32x8([v; LANES])
    }

    #[inline(always)]
    fn splat_i(self, v: i32) -> I32x8 {
        I32x8([v; LANES])
    }

    #[inline(always)]
    fn array(self, a: [f32; LANES]) -> F32x8 {
        F32x8(a)
    }

    #[inline(always)]
    fn array_i(self, a: [i32; LANES]) -> I32x8 {
        I32x8(a)
    }

    #[inline(always)]
    fn load(self, s: &[f32]) -> F32x8 {
        let mut out = [0.0; LANES];
        out.copy_from_slice(&s[..LANES]);
        F32x8(out)
    }

    #[inline(always)]
    fn add_pairs(self, a: F32x8, b: F32x8) -> F32x8 {
        let mut out = [0.0; LANES];
        for i in 0..LANES / 2 {
            out[i] = a.0[2 * i] + a.0[2 * i + 1];
            out[LANES / 2 + i] = b.0[2 * i] + b.0[2 * i + 1];
        }
        F32x8(out)
    }

    #[inline(always)]
    fn add_quads(self, v: [F32x8; 4]) -> F32x8 {
        let mut out = [0.0; LANES];
        for (i, o) in out.iter_mut().enumerate() {
            let x = &v[i / 2].0[4 * (i % 2)..];
            *o = ((x[0] + x[1]) + x[2]) + x[3];
        }
        F32x8(out)
    }

    #[inline(always)]
    fn gather(self, table: &[[u8; 4]], idx: I32x8) -> I32x8 {
        let n = table.len();
        let mut out = [0i32; LANES];
        if n == 0 {
            return I32x8(out);
        }
        for (o, &i) in out.iter_mut().zip(&idx.0) {
            // A conditional move, not a branch: the index is always in range.
            let i = i as u32 as usize;
            let i = if i < n { i } else { 0 };
            *o = i32::from_le_bytes(table[i]);
        }
        I32x8(out)
    }

    #[inline(always)]
    fn gather_pair(self, table: &[[u8; 4]], idx: I32x8) -> (I32x8, I32x8) {
        let n = table.len();
        let (mut first, mut second) = ([0i32; LANES], [0i32; LANES]);
        if n < 2 {
            return (I32x8(first), I32x8(second));
        }
        for (k, &i) in idx.0.iter().enumerate() {
            let i = i as u32 as usize;
            let i = if i < n - 1 { i } else { 0 };
            first[k] = i32::from_le_bytes(table[i]);
            second[k] = i32::from_le_bytes(table[i + 1]);
        }
        (I32x8(first), I32x8(second))
    }
}

impl FloatLanes<Portable> for F32x8 {
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        F32x8(zip!(self.0, o.0, |x, y| x / y))
    }

    #[inline(always)]
    fn min(self, o: Self) -> Self {
        F32x8(zip!(self.0, o.0, |x, y| if x < y { x } else { y }))
    }

    #[inline(always)]
    fn max(self, o: Self) -> Self {
        F32x8(zip!(self.0, o.0, |x, y| if x > y { x } else { y }))
    }

    #[inline(always)]
    fn sqrt(self) -> Self {
        F32x8(each!(self.0, |v| v.sqrt()))
    }

    /// Adding 1.5·2^23 makes the FPU drop the fraction (rounding to
    /// nearest); one compare turns that into a floor. `f32::floor` is a
    /// library call per lane on baseline x86-64 (no SSE4.1).
    #[inline(always)]
    fn floor(self) -> Self {
        F32x8(each!(self.0, |v| {
            let r = (v + ROUND_MAGIC) - ROUND_MAGIC;
            if r > v {
                r - 1.0
            } else {
                r
            }
        }))
    }

    /// Rust's `as i32` saturates and checks for NaN, which LLVM leaves as
    /// scalar code; the bits of `v + 1.5·2^23` stay in vector registers.
    #[inline(always)]
    fn round_i32(self) -> I32x8 {
        let mut out = [0; LANES];
        for i in 0..LANES {
            out[i] = ((self.0[i] + ROUND_MAGIC).to_bits() as i32).wrapping_sub(ROUND_MAGIC_BITS);
        }
        I32x8(out)
    }

    #[inline(always)]
    fn lt(self, o: Self) -> I32x8 {
        I32x8(zip!(self.0, o.0, |x, y| -((x < y) as i32)))
    }

    #[inline(always)]
    fn select(self, o: Self, m: I32x8) -> Self {
        let mut out = [0.0; LANES];
        for i in 0..LANES {
            let m = m.0[i] as u32;
            out[i] = f32::from_bits((self.0[i].to_bits() & m) | (o.0[i].to_bits() & !m));
        }
        F32x8(out)
    }

    #[inline(always)]
    fn permute(self, idx: I32x8) -> Self {
        F32x8(std::array::from_fn(|i| self.0[(idx.0[i] & 7) as usize]))
    }

    #[inline(always)]
    fn keep(self, m: I32x8) -> Self {
        let mut out = [0.0; LANES];
        for i in 0..LANES {
            out[i] = f32::from_bits(self.0[i].to_bits() & m.0[i] as u32);
        }
        F32x8(out)
    }

    #[inline(always)]
    fn to_array(self) -> [f32; LANES] {
        self.0
    }
}

impl IntLanes<Portable> for I32x8 {
    #[inline(always)]
    fn to_f32(self) -> F32x8 {
        let mut out = [0.0; LANES];
        for i in 0..LANES {
            out[i] = self.0[i] as f32;
        }
        F32x8(out)
    }

    #[inline(always)]
    fn non_negative(self) -> Self {
        I32x8(each!(self.0, |v| !(v >> 31)))
    }

    #[inline(always)]
    fn lt(self, o: Self) -> Self {
        I32x8(zip!(self.0, o.0, |x, y| -((x < y) as i32)))
    }

    #[inline(always)]
    fn select(self, o: Self, m: Self) -> Self {
        let mut out = [0; LANES];
        for i in 0..LANES {
            out[i] = (self.0[i] & m.0[i]) | (o.0[i] & !m.0[i]);
        }
        I32x8(out)
    }

    #[inline(always)]
    fn min(self, o: Self) -> Self {
        I32x8(zip!(self.0, o.0, |x, y| if x < y { x } else { y }))
    }

    #[inline(always)]
    fn max(self, o: Self) -> Self {
        I32x8(zip!(self.0, o.0, |x, y| if x > y { x } else { y }))
    }

    #[inline(always)]
    fn shr<const N: i32>(self) -> Self {
        I32x8(each!(self.0, |v| ((v as u32) >> N) as i32))
    }

    #[inline(always)]
    fn shl<const N: i32>(self) -> Self {
        I32x8(each!(self.0, |v| v << N))
    }

    #[inline(always)]
    fn permute(self, idx: Self) -> Self {
        I32x8(std::array::from_fn(|i| self.0[(idx.0[i] & 7) as usize]))
    }

    #[inline(always)]
    fn mul_lo16(self, o: Self) -> Self {
        // As sixteen u16 lanes, which the baseline vectorises (SSE2 has a
        // 16-bit multiply, not a 32-bit one).
        let halves = |v: [i32; LANES]| {
            let mut h = [0u16; 2 * LANES];
            for i in 0..LANES {
                h[2 * i] = v[i] as u16;
                h[2 * i + 1] = (v[i] >> 16) as u16;
            }
            h
        };
        let (mut a, b) = (halves(self.0), halves(o.0));
        for (x, y) in a.iter_mut().zip(b) {
            *x = x.wrapping_mul(y);
        }
        let mut out = [0; LANES];
        for i in 0..LANES {
            out[i] = (a[2 * i] as u32 | (a[2 * i + 1] as u32) << 16) as i32;
        }
        I32x8(out)
    }

    #[inline(always)]
    fn bits(self) -> u32 {
        let mut b = 0;
        for i in 0..LANES {
            b |= ((self.0[i] as u32) >> 31) << i;
        }
        b
    }

    #[inline(always)]
    fn to_array(self) -> [i32; LANES] {
        self.0
    }
}

macro_rules! binary {
    ($t:ident, $tr:ident, $f:ident, |$x:ident, $y:ident| $body:expr) => {
        impl $tr for $t {
            type Output = Self;
            #[inline(always)]
            fn $f(self, o: Self) -> Self {
                $t(zip!(self.0, o.0, |$x, $y| $body))
            }
        }
    };
}

binary!(F32x8, Add, add, |x, y| x + y);
binary!(F32x8, Sub, sub, |x, y| x - y);
binary!(F32x8, Mul, mul, |x, y| x * y);
binary!(I32x8, Add, add, |x, y| x.wrapping_add(y));
binary!(I32x8, Sub, sub, |x, y| x.wrapping_sub(y));
binary!(I32x8, Mul, mul, |x, y| x.wrapping_mul(y));
binary!(I32x8, BitAnd, bitand, |x, y| x & y);
binary!(I32x8, BitOr, bitor, |x, y| x | y);

impl Not for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        I32x8(each!(self.0, |v| !v))
    }
}
