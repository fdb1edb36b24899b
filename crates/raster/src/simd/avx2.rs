//! The x86-64 levels, each lane vector one 256-bit register:
//!
//! - AVX2 (x86-64-v3: AVX2, FMA, BMI1/2, LZCNT, POPCNT);
//! - AVX-512 (x86-64-v4: AVX-512 F, BW, CD, DQ and VL on top), still
//!   256 bits wide. The same code compiled with the VL encodings has 32
//!   registers and mask registers to allocate, and two operations have one
//!   instruction of their own: a block's set lanes are compressed
//!   (`vpcompressd`) rather than looked up in a table, and a shaded packet
//!   is scattered into the tile (`vscatterdps`) rather than stored lane by
//!   lane.
//!
//! The one module of the crate allowed `unsafe`, for two reasons only:
//!
//! - `std::arch` intrinsics may only run on a CPU that has their features.
//!   Every intrinsic here is reached through a lane value or an [`X86`]
//!   token, and neither can exist unless [`run`] or [`run_v4`] has made the
//!   token, which each does after [`available`] or [`available_v4`] has
//!   seen every feature the function it calls enables.
//! - Loads, the texel gathers and the scatters take pointers: each is
//!   preceded by the bounds it relies on (a slice of eight, indices clamped
//!   into the table or the destination).
//!
//! Each operation computes exactly what the portable level computes (see
//! `portable.rs`): same IEEE operations, same operand order in min/max,
//! the same rounding tricks, no fused multiply-add.
#![allow(unsafe_code)]

use super::{FloatLanes, IntLanes, Kernel, Portable, Simd, SnapLanes, SnapScale, LANES};
use std::arch::x86_64::*;
use std::ops::{Add, BitAnd, BitOr, Mul, Not, Sub};

/// Proof that the CPU runs x86-64-v3, and x86-64-v4 as well when `V4`;
/// made only by [`run`] and [`run_v4`].
#[derive(Debug, Clone, Copy)]
pub struct X86<const V4: bool> {
    _private: (),
}

/// The AVX2 level's token.
pub type Avx2 = X86<false>;

/// The AVX-512 level's token.
pub type Avx512 = X86<true>;

#[derive(Debug, Clone, Copy)]
pub struct F32x8(__m256);

#[derive(Debug, Clone, Copy)]
pub struct I32x8(__m256i);

/// Whether this CPU has every feature [`run_unchecked`] enables.
pub fn available() -> bool {
    is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("fma")
        && is_x86_feature_detected!("bmi1")
        && is_x86_feature_detected!("bmi2")
        && is_x86_feature_detected!("lzcnt")
        && is_x86_feature_detected!("popcnt")
}

/// Whether this CPU has every feature [`run_unchecked_v4`] enables.
pub fn available_v4() -> bool {
    available()
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512cd")
        && is_x86_feature_detected!("avx512dq")
        && is_x86_feature_detected!("avx512vl")
}

/// Runs `kernel` at the AVX2 level when the CPU has it, else at the
/// portable level.
#[inline(always)]
pub fn run<K: Kernel>(kernel: K) -> K::Output {
    if available() {
        // SAFETY: `available` has just found every feature this enables.
        unsafe { run_unchecked(kernel) }
    } else {
        Portable.apart(kernel)
    }
}

/// Runs `kernel` at the AVX-512 level when the CPU has it, else at the
/// best level below.
#[inline(always)]
pub fn run_v4<K: Kernel>(kernel: K) -> K::Output {
    if available_v4() {
        // SAFETY: `available_v4` has just found every feature this enables.
        unsafe { run_unchecked_v4(kernel) }
    } else {
        run(kernel)
    }
}

/// The kernel, inlined into a function compiled with the x86-64-v3
/// features: the same source becomes 256-bit code here.
#[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
fn run_unchecked<K: Kernel>(kernel: K) -> K::Output {
    kernel.run(Avx2 { _private: () })
}

/// [`run_unchecked`] kept out of line, for [`Simd::apart`].
#[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
#[inline(never)]
fn run_apart<K: Kernel>(kernel: K) -> K::Output {
    kernel.run(Avx2 { _private: () })
}

/// The kernel compiled with the x86-64-v4 features as well.
#[target_feature(
    enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512bw,avx512cd,avx512dq,avx512vl"
)]
fn run_unchecked_v4<K: Kernel>(kernel: K) -> K::Output {
    kernel.run(Avx512 { _private: () })
}

/// [`run_unchecked_v4`] kept out of line, for [`Simd::apart`].
#[target_feature(
    enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512bw,avx512cd,avx512dq,avx512vl"
)]
#[inline(never)]
fn run_apart_v4<K: Kernel>(kernel: K) -> K::Output {
    kernel.run(Avx512 { _private: () })
}

// SAFETY (every `unsafe` block below unless it says more): the intrinsic
// needs AVX/AVX2, which the CPU has because a token or lane value exists;
// an AVX-512 intrinsic is only reached under `if V4`, where the token is
// the AVX-512 level's.

impl<const V4: bool> Simd for X86<V4> {
    type F = F32x8;
    type I = I32x8;
    const IN_STEP: bool = true;
    const UNROLLED_WRITES: bool = true;
    const SCATTER: bool = V4;

    #[inline(always)]
    fn apart<K: Kernel>(self, kernel: K) -> K::Output {
        // SAFETY: the token exists, so the CPU has the features.
        unsafe {
            if V4 {
                run_apart_v4(kernel)
            } else {
                run_apart(kernel)
            }
        }
    }

    #[inline(always)]
    fn splat(self, v: f32) -> F32x8 {
        unsafe { F32x8(_mm256_set1_ps(v)) }
    }

    #[inline(always)]
    fn splat_i(self, v: i32) -> I32x8 {
        unsafe { I32x8(_mm256_set1_epi32(v)) }
    }

    #[inline(always)]
    fn array(self, a: [f32; LANES]) -> F32x8 {
        // SAFETY: also, `a` holds eight floats.
        unsafe { F32x8(_mm256_loadu_ps(a.as_ptr())) }
    }

    #[inline(always)]
    fn array_i(self, a: [i32; LANES]) -> I32x8 {
        // SAFETY: also, `a` holds eight i32s (unaligned loads are allowed).
        unsafe { I32x8(_mm256_loadu_si256(a.as_ptr().cast())) }
    }

    #[inline(always)]
    fn load(self, s: &[f32]) -> F32x8 {
        let s = &s[..LANES];
        // SAFETY: also, `s` holds eight floats.
        unsafe { F32x8(_mm256_loadu_ps(s.as_ptr())) }
    }

    /// `vpabsb` and `vpsadbw` against zero: 32 bytes summed into four
    /// 64-bit lanes by two instructions (the loop LLVM makes of the portable
    /// sum widens eight bytes at a time to 32-bit lanes).
    #[inline(always)]
    fn abs_sum_i8(self, bytes: &[u8]) -> u64 {
        let mut blocks = bytes.chunks_exact(32);
        // SAFETY: also, each block is 32 bytes, the unaligned load's width.
        let mut total = unsafe {
            let zero = _mm256_setzero_si256();
            let mut acc = zero;
            for b in &mut blocks {
                let v = _mm256_loadu_si256(b.as_ptr().cast());
                acc = _mm256_add_epi64(acc, _mm256_sad_epu8(_mm256_abs_epi8(v), zero));
            }
            let mut lanes = [0u64; 4];
            _mm256_storeu_si256(lanes.as_mut_ptr().cast(), acc);
            lanes[0] + lanes[1] + lanes[2] + lanes[3]
        };
        for &b in blocks.remainder() {
            total += (b as i8).unsigned_abs() as u64;
        }
        total
    }

    /// `vhaddps` adds neighbours within each 128-bit half (`a0+a1, a2+a3,
    /// b0+b1, b2+b3 | a4+a5, a6+a7, b4+b5, b6+b7`); a permute of 64-bit
    /// pairs puts them in lane order. Each sum is the one IEEE addition
    /// the portable level makes (addition commutes exactly).
    #[inline(always)]
    fn add_pairs(self, a: F32x8, b: F32x8) -> F32x8 {
        unsafe {
            let h = _mm256_castps_si256(_mm256_hadd_ps(a.0, b.0));
            F32x8(_mm256_castsi256_ps(
                _mm256_permute4x64_epi64::<0b11_01_10_00>(h),
            ))
        }
    }

    /// Each 128-bit half of `v[k]` is one pixel's four samples: a 4×4
    /// transpose within the halves (`vunpck*ps`, `vshufps`) gives the
    /// pixels' k-th samples in the lanes 0, 2, 4, 6 | 1, 3, 5, 7, added in
    /// the portable level's order, then permuted into pixel order.
    #[inline(always)]
    fn add_quads(self, v: [F32x8; 4]) -> F32x8 {
        unsafe {
            let t0 = _mm256_unpacklo_ps(v[0].0, v[1].0);
            let t1 = _mm256_unpackhi_ps(v[0].0, v[1].0);
            let t2 = _mm256_unpacklo_ps(v[2].0, v[3].0);
            let t3 = _mm256_unpackhi_ps(v[2].0, v[3].0);
            let x0 = _mm256_shuffle_ps::<0b01_00_01_00>(t0, t2);
            let x1 = _mm256_shuffle_ps::<0b11_10_11_10>(t0, t2);
            let x2 = _mm256_shuffle_ps::<0b01_00_01_00>(t1, t3);
            let x3 = _mm256_shuffle_ps::<0b11_10_11_10>(t1, t3);
            let sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(x0, x1), x2), x3);
            let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
            F32x8(_mm256_permutevar8x32_ps(sum, order))
        }
    }

    /// Four lanes at a time in f64: the same division, products in the
    /// same order, `maxpd`/`minpd` for the clamp (equal to `clamp` for
    /// every number; NaN lanes are the caller's to discard), the sign of
    /// each value on 0.5, and a truncating conversion.
    #[inline(always)]
    fn snap(self, x: [f32; LANES], y: [f32; LANES], w: [f32; LANES], k: SnapScale) -> SnapLanes {
        let mut out = ([0i32; LANES], [0i32; LANES]);
        // SAFETY: also, each load reads four floats at 0 or 4 of an array
        // of eight, and each store writes four ints there.
        unsafe {
            let one = _mm256_set1_pd(1.0);
            let sign = _mm256_set1_pd(-0.0);
            for h in [0, 4] {
                let wd = _mm256_cvtps_pd(_mm_loadu_ps(w.as_ptr().add(h)));
                let inv = _mm256_div_pd(one, wd);
                let xd = _mm256_cvtps_pd(_mm_loadu_ps(x.as_ptr().add(h)));
                let yd = _mm256_cvtps_pd(_mm_loadu_ps(y.as_ptr().add(h)));
                let sx = _mm256_mul_pd(_mm256_mul_pd(xd, inv), _mm256_set1_pd(k.half_w));
                let ny = _mm256_xor_pd(_mm256_mul_pd(yd, inv), sign);
                let sy = _mm256_mul_pd(ny, _mm256_set1_pd(k.half_h));
                _mm_storeu_si128(out.0.as_mut_ptr().add(h).cast(), snap_round(sx, k));
                _mm_storeu_si128(out.1.as_mut_ptr().add(h).cast(), snap_round(sy, k));
            }
        }
        out
    }

    /// One `vpcompressd` of the lane numbers at AVX-512: the table lookup
    /// waited on the block's mask moving to a general register and on a
    /// load.
    #[inline(always)]
    fn set_lanes(self, bits: u32) -> I32x8 {
        if V4 {
            // SAFETY: AVX-512 F and VL, which the V4 token proves.
            unsafe {
                let ramp = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
                I32x8(_mm256_maskz_compress_epi32(bits as u8, ramp))
            }
        } else {
            self.array_i(super::SET_LANES[(bits & 0xff) as usize])
        }
    }

    /// One masked `vscatterdps` at AVX-512 (which writes overlapping lanes
    /// in lane order, as the loop does); lane by lane at AVX2.
    #[inline(always)]
    fn scatter(self, dst: &mut [f32], idx: I32x8, v: F32x8, bits: u32) {
        if !V4 || dst.is_empty() || dst.len() > i32::MAX as usize {
            let idx = Portable.array_i(IntLanes::<Self>::to_array(idx));
            let v = Portable.array(FloatLanes::<Self>::to_array(v));
            Portable.scatter(dst, idx, v, bits);
            return;
        }
        // SAFETY: AVX-512 F and VL, which the V4 token proves; also, every
        // lane index is clamped into 0..dst.len() (as an unsigned value),
        // so each written lane stores four bytes inside `dst`.
        unsafe {
            let last = _mm256_set1_epi32((dst.len() - 1) as i32);
            let idx = _mm256_min_epu32(idx.0, last);
            _mm256_mask_i32scatter_ps::<4>(dst.as_mut_ptr().cast(), bits as u8, idx, v.0);
        }
    }

    #[inline(always)]
    fn gather(self, table: &[[u8; 4]], idx: I32x8) -> I32x8 {
        let n = table.len();
        if n == 0 || n > i32::MAX as usize {
            // Empty, or too long for the gather's signed 32-bit indices
            // (no texture is): the portable loop, lane by lane.
            let p = Portable.gather(table, Portable.array_i(IntLanes::<Self>::to_array(idx)));
            return self.array_i(p.to_array());
        }
        // SAFETY: also, every lane index is clamped below into 0..n (an
        // index not below n as an unsigned value becomes 0), so the gather
        // reads four bytes of `table` per lane.
        unsafe {
            let last = _mm256_set1_epi32((n - 1) as i32);
            let inside = _mm256_cmpeq_epi32(_mm256_min_epu32(idx.0, last), idx.0);
            let idx = _mm256_and_si256(idx.0, inside);
            I32x8(_mm256_i32gather_epi32::<4>(table.as_ptr().cast(), idx))
        }
    }

    /// Two gathers of four 64-bit elements, lanes 0, 1, 4, 5 in one and
    /// 2, 3, 6, 7 in the other, so that one `shufps` per result puts the
    /// first and the second texels of each pair back in lane order.
    #[inline(always)]
    fn gather_pair(self, table: &[[u8; 4]], idx: I32x8) -> (I32x8, I32x8) {
        let n = table.len();
        if n < 2 || n > i32::MAX as usize {
            let (a, b) =
                Portable.gather_pair(table, Portable.array_i(IntLanes::<Self>::to_array(idx)));
            return (self.array_i(a.to_array()), self.array_i(b.to_array()));
        }
        // SAFETY: also, every lane index is clamped below into 0..n - 1
        // (an index not below n - 1 as an unsigned value becomes 0), so
        // each gathered element is the eight bytes of two entries of
        // `table`.
        unsafe {
            let last = _mm256_set1_epi32((n - 2) as i32);
            let inside = _mm256_cmpeq_epi32(_mm256_min_epu32(idx.0, last), idx.0);
            let idx = _mm256_and_si256(idx.0, inside);
            let q = _mm256_permute4x64_epi64::<0b11_01_10_00>(idx);
            let base: *const i64 = table.as_ptr().cast();
            let a = _mm256_i32gather_epi64::<4>(base, _mm256_castsi256_si128(q));
            let b = _mm256_i32gather_epi64::<4>(base, _mm256_extracti128_si256::<1>(q));
            let (a, b) = (_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
            (
                I32x8(_mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(
                    a, b,
                ))),
                I32x8(_mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(
                    a, b,
                ))),
            )
        }
    }
}

/// [`Simd::snap`]'s scale, clamp and rounding of four values. A function,
/// not a closure: a closure does not take on `run_unchecked`'s target
/// features, and its intrinsics became calls (+19 % on a frame).
///
/// # Safety
/// The CPU must have AVX (an [`Avx2`] token exists).
#[inline(always)]
unsafe fn snap_round(v: __m256d, k: SnapScale) -> __m128i {
    unsafe {
        let v = _mm256_mul_pd(v, _mm256_set1_pd(k.sub));
        let v = _mm256_min_pd(
            _mm256_max_pd(v, _mm256_set1_pd(-k.lim)),
            _mm256_set1_pd(k.lim),
        );
        let h = _mm256_or_pd(_mm256_and_pd(v, _mm256_set1_pd(-0.0)), _mm256_set1_pd(0.5));
        _mm256_cvttpd_epi32(_mm256_add_pd(v, h))
    }
}

impl<const V4: bool> FloatLanes<X86<V4>> for F32x8 {
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        unsafe { F32x8(_mm256_div_ps(self.0, o.0)) }
    }

    /// `minps` returns its second operand unless the first is smaller:
    /// exactly `self < o ? self : o`.
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        unsafe { F32x8(_mm256_min_ps(self.0, o.0)) }
    }

    #[inline(always)]
    fn max(self, o: Self) -> Self {
        unsafe { F32x8(_mm256_max_ps(self.0, o.0)) }
    }

    #[inline(always)]
    fn sqrt(self) -> Self {
        unsafe { F32x8(_mm256_sqrt_ps(self.0)) }
    }

    /// One `roundps`. Within the documented range it is the exact floor,
    /// as the portable level's rounding trick is; the two differ only in
    /// the sign of a zero result (the trick gives +0.0 for -0.0), which no
    /// caller can see: each subtracts the floor from its argument or turns
    /// it into an integer. Five dependent operations fewer on the texel
    /// path, which runs two floors in a row per axis.
    #[inline(always)]
    fn floor(self) -> Self {
        unsafe { F32x8(_mm256_floor_ps(self.0)) }
    }

    /// One `cvtps2dq` in the default rounding mode (to nearest, ties to
    /// even), which Rust code never changes: the portable trick's result
    /// for every lane in range.
    #[inline(always)]
    fn round_i32(self) -> I32x8 {
        unsafe { I32x8(_mm256_cvtps_epi32(self.0)) }
    }

    #[inline(always)]
    fn lt(self, o: Self) -> I32x8 {
        unsafe {
            I32x8(_mm256_castps_si256(_mm256_cmp_ps::<_CMP_LT_OQ>(
                self.0, o.0,
            )))
        }
    }

    /// Masks are all-set or all-clear per lane, so the sign-bit blend is
    /// the bitwise one.
    #[inline(always)]
    fn select(self, o: Self, m: I32x8) -> Self {
        unsafe { F32x8(_mm256_blendv_ps(o.0, self.0, _mm256_castsi256_ps(m.0))) }
    }

    /// `vpermps` reads the low three bits of each index.
    #[inline(always)]
    fn permute(self, idx: I32x8) -> Self {
        unsafe { F32x8(_mm256_permutevar8x32_ps(self.0, idx.0)) }
    }

    #[inline(always)]
    fn keep(self, m: I32x8) -> Self {
        unsafe { F32x8(_mm256_and_ps(self.0, _mm256_castsi256_ps(m.0))) }
    }

    #[inline(always)]
    fn to_array(self) -> [f32; LANES] {
        let mut out = [0.0; LANES];
        // SAFETY: also, `out` has room for eight floats.
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), self.0) };
        out
    }
}

impl<const V4: bool> IntLanes<X86<V4>> for I32x8 {
    #[inline(always)]
    fn to_f32(self) -> F32x8 {
        unsafe { F32x8(_mm256_cvtepi32_ps(self.0)) }
    }

    #[inline(always)]
    fn non_negative(self) -> Self {
        unsafe { I32x8(_mm256_cmpgt_epi32(self.0, _mm256_set1_epi32(-1))) }
    }

    #[inline(always)]
    fn lt(self, o: Self) -> Self {
        unsafe { I32x8(_mm256_cmpgt_epi32(o.0, self.0)) }
    }

    #[inline(always)]
    fn select(self, o: Self, m: Self) -> Self {
        unsafe { I32x8(_mm256_blendv_epi8(o.0, self.0, m.0)) }
    }

    #[inline(always)]
    fn min(self, o: Self) -> Self {
        unsafe { I32x8(_mm256_min_epi32(self.0, o.0)) }
    }

    #[inline(always)]
    fn max(self, o: Self) -> Self {
        unsafe { I32x8(_mm256_max_epi32(self.0, o.0)) }
    }

    #[inline(always)]
    fn shr<const N: i32>(self) -> Self {
        unsafe { I32x8(_mm256_srli_epi32::<N>(self.0)) }
    }

    #[inline(always)]
    fn shl<const N: i32>(self) -> Self {
        unsafe { I32x8(_mm256_slli_epi32::<N>(self.0)) }
    }

    #[inline(always)]
    fn permute(self, idx: Self) -> Self {
        unsafe { I32x8(_mm256_permutevar8x32_epi32(self.0, idx.0)) }
    }

    /// `vpmaddwd`: each lane's high halves are zero, so it is the low
    /// halves' product (5 cycles of latency where `vpmulld` takes 10).
    #[inline(always)]
    fn mul_u15(self, o: Self) -> Self {
        unsafe { I32x8(_mm256_madd_epi16(self.0, o.0)) }
    }

    #[inline(always)]
    fn mul_lo16(self, o: Self) -> Self {
        unsafe { I32x8(_mm256_mullo_epi16(self.0, o.0)) }
    }

    #[inline(always)]
    fn bits(self) -> u32 {
        unsafe { _mm256_movemask_ps(_mm256_castsi256_ps(self.0)) as u32 }
    }

    #[inline(always)]
    fn to_array(self) -> [i32; LANES] {
        let mut out = [0; LANES];
        // SAFETY: also, `out` has room for eight i32s.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), self.0) };
        out
    }
}

macro_rules! binary {
    ($t:ident, $tr:ident, $f:ident, $intrinsic:ident) => {
        impl $tr for $t {
            type Output = Self;
            #[inline(always)]
            fn $f(self, o: Self) -> Self {
                unsafe { $t($intrinsic(self.0, o.0)) }
            }
        }
    };
}

binary!(F32x8, Add, add, _mm256_add_ps);
binary!(F32x8, Sub, sub, _mm256_sub_ps);
binary!(F32x8, Mul, mul, _mm256_mul_ps);
binary!(I32x8, Add, add, _mm256_add_epi32);
binary!(I32x8, Sub, sub, _mm256_sub_epi32);
binary!(I32x8, Mul, mul, _mm256_mullo_epi32);
binary!(I32x8, BitAnd, bitand, _mm256_and_si256);
binary!(I32x8, BitOr, bitor, _mm256_or_si256);

impl Not for I32x8 {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        unsafe { I32x8(_mm256_xor_si256(self.0, _mm256_set1_epi32(-1))) }
    }
}
