//! Eight-wide lanes for the rasterizer's hot loops, and the instruction set
//! they run with, chosen at run time: one portable binary that uses AVX2
//! or AVX-512 where the CPU has it.
//!
//! The tile loop is written once, generic over a [`Simd`] level, and marked
//! `#[inline(always)]` all the way down; [`dispatch`] instantiates it for
//! the best level the CPU has. Three levels exist:
//!
//! - [`Portable`] (`portable.rs`): plain arrays with element-wise loops,
//!   which LLVM vectorises for the build's baseline (SSE2 on x86-64, NEON on
//!   aarch64) — runs everywhere;
//! - `Avx2` (`avx2.rs`, x86-64 only): one 256-bit register per lane vector,
//!   through `std::arch`, run inside a function compiled with the x86-64-v3
//!   features (AVX2, FMA, BMI1/2, LZCNT, POPCNT);
//! - `Avx512` (the same module and lane types): the same code compiled with
//!   the x86-64-v4 features too (AVX-512 F, BW, CD, DQ, VL), still eight
//!   lanes of 256 bits, where LLVM has 32 registers and mask registers to
//!   allocate and two operations become one instruction
//!   ([`Simd::set_lanes`], [`Simd::scatter`]).
//!
//! Every operation is defined by the IEEE result the portable level
//! computes (no fused multiply-add, the same min/max/NaN rules, the same
//! rounding tricks), so every level gives the same bits; the tests render
//! with each level available and compare bytes.
//!
//! Masks are integer lanes holding -1 (set) or 0 (clear), the layout a
//! hardware compare produces; every mask the lane types make has that form.

use std::ops::{Add, BitAnd, BitOr, Mul, Not, Sub};

#[cfg(target_arch = "x86_64")]
mod avx2;
mod portable;

pub use portable::Portable;

/// Lanes per vector.
pub const LANES: usize = 8;

/// For each 8-bit lane mask, its set lanes in order (then zeros). As i32,
/// so queueing a block is one eight-lane add and store: from bytes, LLVM
/// widened and added half the lanes as a vector and the rest one by one.
pub const SET_LANES: [[i32; LANES]; 256] = {
    let mut t = [[0i32; LANES]; 256];
    let mut m = 0;
    while m < 256 {
        let (mut lane, mut k) = (0, 0);
        while lane < LANES {
            if m & (1 << lane) != 0 {
                t[m][k] = lane as i32;
                k += 1;
            }
            lane += 1;
        }
        m += 1;
    }
    t
};

/// An instruction-set level: a zero-sized token through which the hot
/// loops make their lane vectors. A token exists only where the CPU runs
/// its level.
pub trait Simd: Copy + Send + Sync {
    /// Its eight float lanes.
    type F: FloatLanes<Self>;
    /// Its eight integer lanes (and masks).
    type I: IntLanes<Self>;
    /// Whether two packets are shaded in step (their chains interleaved)
    /// rather than one after the other: worth it where a lane vector is
    /// one register, so both chains' values fit the register file; the
    /// portable level's take two SSE registers each, and two chains in
    /// step spill (+4 % at 256², measured).
    const IN_STEP: bool;
    /// Whether a packet whose eight lanes all survive is written by a
    /// fixed, unrolled sequence rather than the loop over kept lanes
    /// (whose exit the branch predictor misses): −3 % at 1024² with AVX2,
    /// +3 % at the portable level (measured), whose extractions from
    /// two-register vectors cost more than the loop does.
    const UNROLLED_WRITES: bool;
    /// `v` in every lane.
    fn splat(self, v: f32) -> Self::F;
    /// `v` in every lane.
    fn splat_i(self, v: i32) -> Self::I;
    /// The lanes `a`.
    fn array(self, a: [f32; LANES]) -> Self::F;
    /// The lanes `a`.
    fn array_i(self, a: [i32; LANES]) -> Self::I;
    /// Eight floats from the front of `s` (panics if it is shorter).
    fn load(self, s: &[f32]) -> Self::F;
    /// The lanes set in the low eight bits of `bits`, in order, then zeros:
    /// where a block's passing samples go in a queue.
    #[inline(always)]
    fn set_lanes(self, bits: u32) -> Self::I {
        self.array_i(SET_LANES[(bits & 0xff) as usize])
    }
    /// Whether [`Simd::scatter`] is one instruction, so that a packet is
    /// better written by it than by the unrolled or looped stores.
    const SCATTER: bool = false;
    /// `dst[idx[i]] = v[i]` for each lane `i` set in the low eight bits of
    /// `bits`, in lane order (panics on an index outside `dst` where it
    /// is not one instruction, which clamps it instead; callers pass
    /// indices inside).
    #[inline(always)]
    fn scatter(self, dst: &mut [f32], idx: Self::I, v: Self::F, bits: u32) {
        let (idx, v) = (idx.to_array(), v.to_array());
        let mut bits = bits & 0xff;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            dst[idx[i] as usize] = v[i];
        }
    }
    /// The lanes 0, 1, …, 7.
    fn ramp(self) -> Self::I {
        self.array_i([0, 1, 2, 3, 4, 5, 6, 7])
    }
    /// `table[idx]` per lane as a little-endian u32; an index outside the
    /// table reads entry 0 (a table must not be empty).
    fn gather(self, table: &[[u8; 4]], idx: Self::I) -> Self::I;
    /// `(table[idx], table[idx + 1])` per lane, as [`Simd::gather`] reads
    /// them; an index whose pair runs past the table reads entries 0 and
    /// 1 (a table must hold at least two entries). Neighbouring texels
    /// of a row, fetched as one 64-bit element each: half the elements
    /// two gathers would load.
    fn gather_pair(self, table: &[[u8; 4]], idx: Self::I) -> (Self::I, Self::I);
    /// Sums of neighbouring lanes: `a0 + a1, a2 + a3, a4 + a5, a6 + a7`,
    /// then the same of `b`. Sixteen samples in a row, two a pixel, become
    /// eight pixels' sums in pixel order (the 2×2 box filter's row step).
    fn add_pairs(self, a: Self::F, b: Self::F) -> Self::F;
    /// Sums of four neighbouring lanes of the 32 lanes of `v` (`v[0]`'s
    /// first): lane i is `((x0 + x1) + x2) + x3` with `xk` lane `4i + k`.
    /// Thirty-two samples in a row, four a pixel, become eight pixels'
    /// sums in pixel order (the 4×4 box filter's row step).
    fn add_quads(self, v: [Self::F; 4]) -> Self::F;
    /// The sum of the bytes read as signed, absolute values: the PNG
    /// filter heuristic's cost of a filtered row.
    #[inline(always)]
    fn abs_sum_i8(self, bytes: &[u8]) -> u64 {
        let mut total = 0u64;
        // Each part's u32 sum cannot overflow (65536 · 128 < 2^32).
        for part in bytes.chunks(1 << 16) {
            let mut sum = 0u32;
            for &b in part {
                sum += (b as i8).unsigned_abs() as u32;
            }
            total += sum as u64;
        }
        total
    }
    /// Runs `kernel` at this level in a function of its own rather than
    /// inlined into the caller: a loop that shares one huge function with
    /// the rest of the frame gets what registers are left, and spills.
    fn apart<K: Kernel>(self, kernel: K) -> K::Output;
    /// Eight clip positions (`x`, `y`, `w`) to fixed-point screen offsets
    /// from the target's centre, in f64: `x / w · half_w` (and `−y / w ·
    /// half_h`) times `sub`, clamped to `±lim`, rounded half away from
    /// zero. Exact for lanes with a finite quotient and `lim` under 2³¹;
    /// other lanes give unspecified values (the caller discards them).
    #[inline(always)]
    fn snap(self, x: [f32; LANES], y: [f32; LANES], w: [f32; LANES], k: SnapScale) -> SnapLanes {
        let mut out = ([0i32; LANES], [0i32; LANES]);
        for i in 0..LANES {
            (out.0[i], out.1[i]) = k.one(x[i], y[i], w[i]);
        }
        out
    }
}

/// The scales [`Simd::snap`] applies.
#[derive(Debug, Clone, Copy)]
pub struct SnapScale {
    /// Half the image's width in pixels.
    pub half_w: f64,
    /// Half its height in pixels.
    pub half_h: f64,
    /// Sub-sample steps per pixel.
    pub sub: f64,
    /// The largest magnitude a snapped coordinate may take.
    pub lim: f64,
}

impl SnapScale {
    /// One position as [`Simd::snap`] computes each lane.
    #[inline(always)]
    pub fn one(&self, x: f32, y: f32, w: f32) -> (i32, i32) {
        // Half away from zero without a libm call.
        let round = |v: f64| {
            let v = (v * self.sub).clamp(-self.lim, self.lim);
            (v + 0.5f64.copysign(v)) as i32
        };
        let inv_w = 1.0 / w as f64;
        (
            round((x as f64 * inv_w) * self.half_w),
            round(-(y as f64 * inv_w) * self.half_h),
        )
    }
}

/// Snapped x and y of eight positions.
pub type SnapLanes = ([i32; LANES], [i32; LANES]);

/// Eight f32 lanes.
pub trait FloatLanes<S: Simd>:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
{
    /// `self / o` per lane.
    fn div(self, o: Self) -> Self;
    /// `self < o ? self : o` (so NaN in `self` yields `o`).
    fn min(self, o: Self) -> Self;
    /// `self > o ? self : o`.
    fn max(self, o: Self) -> Self;
    /// The square root per lane.
    fn sqrt(self) -> Self;
    /// Floor for |x| < 2^22; other lanes get an unspecified value, and a
    /// zero result may have either sign.
    fn floor(self) -> Self;
    /// Round to nearest, ties to even, for |x| < 2^22, as integers;
    /// out-of-range or NaN lanes give an unspecified value, never a panic.
    fn round_i32(self) -> S::I;
    /// Lanes where `self < o` (false for NaN).
    fn lt(self, o: Self) -> S::I;
    /// `m ? self : o` per lane.
    fn select(self, o: Self, m: S::I) -> Self;
    /// The lanes of `m`, +0.0 elsewhere.
    fn keep(self, m: S::I) -> Self;
    /// Lane i is lane `idx[i] & 7` of `self` (a table of eight values
    /// looked up by every lane at once).
    fn permute(self, idx: S::I) -> Self;
    /// The lanes, in order.
    fn to_array(self) -> [f32; LANES];
}

/// Eight i32 lanes (wrapping arithmetic), also used as masks.
pub trait IntLanes<S: Simd>:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + Not<Output = Self>
{
    /// Each lane as a float.
    fn to_f32(self) -> S::F;
    /// Lanes whose value is non-negative, as a mask.
    fn non_negative(self) -> Self;
    /// Lanes where `self < o`, as a mask.
    fn lt(self, o: Self) -> Self;
    /// `m ? self : o` per lane.
    fn select(self, o: Self, m: Self) -> Self;
    /// The smaller per lane (signed).
    fn min(self, o: Self) -> Self;
    /// The larger per lane (signed).
    fn max(self, o: Self) -> Self;
    /// Logical shift right of every lane by `N` bits.
    fn shr<const N: i32>(self) -> Self;
    /// Shift left of every lane by `N` bits.
    fn shl<const N: i32>(self) -> Self;
    /// Each lane's two 16-bit halves multiplied by those of `o`, each
    /// product's low 16 bits kept in its half (packed texel arithmetic).
    fn mul_lo16(self, o: Self) -> Self;
    /// The product of lanes that both hold values in `0..2^15` (exact;
    /// other lanes give unspecified values): one 16-bit multiply-add where
    /// a 32-bit multiply takes twice its latency.
    #[inline(always)]
    fn mul_u15(self, o: Self) -> Self {
        self * o
    }
    /// Lane i is lane `idx[i] & 7` of `self`.
    fn permute(self, idx: Self) -> Self;
    /// The sign bit of lane i as bit i (a mask's set lanes).
    fn bits(self) -> u32;
    /// Whether any lane's sign bit is set.
    fn any(self) -> bool {
        self.bits() != 0
    }
    /// The lanes, in order.
    fn to_array(self) -> [i32; LANES];
}

/// The adding constant of the rounding trick: 1.5 · 2^23, after which an
/// f32 has no fractional bits left.
pub(super) const ROUND_MAGIC: f32 = 12_582_912.0;
pub(super) const ROUND_MAGIC_BITS: i32 = 0x4B40_0000;

/// Work that runs at any level: the hot loop, written once.
pub trait Kernel {
    /// What the work gives back.
    type Output;
    /// Must be `#[inline(always)]`, as everything it calls in the hot path,
    /// for the level to reach its body.
    fn run<S: Simd>(self, simd: S) -> Self::Output;
}

/// An instruction-set level to run kernels at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// `Portable`: the build's baseline.
    Portable,
    /// x86-64-v3: AVX2, FMA, BMI1/2, LZCNT, POPCNT.
    Avx2,
    /// x86-64-v4 (AVX-512 F, BW, CD, DQ, VL) on 256-bit lanes.
    Avx512,
}

impl Level {
    /// Every level, slowest first.
    pub const ALL: [Level; 3] = [Level::Portable, Level::Avx2, Level::Avx512];

    /// The best level this CPU runs, or the level `KILN_SIMD` names
    /// (`portable`, `avx2`, `avx512`) when the CPU has it: to compare levels, or to
    /// rule the fast path out. Looked up once per process.
    pub fn detect() -> Level {
        static LEVEL: std::sync::OnceLock<Level> = std::sync::OnceLock::new();
        *LEVEL.get_or_init(|| {
            let asked = std::env::var(super::SIMD_VARIABLE).ok();
            let mut usable = Level::ALL.into_iter().rev().filter(|l| l.available());
            let named = usable.clone().find(|l| asked.as_deref() == Some(l.name()));
            named.or_else(|| usable.next()).unwrap_or(Level::Portable)
        })
    }

    /// Whether this CPU has every feature the level uses.
    pub fn available(self) -> bool {
        match self {
            Level::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => avx2::available(),
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => avx2::available_v4(),
            #[cfg(not(target_arch = "x86_64"))]
            Level::Avx2 | Level::Avx512 => false,
        }
    }

    /// The name `KILN_SIMD` and reports use.
    pub fn name(self) -> &'static str {
        match self {
            Level::Portable => "portable",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }
}

/// Runs `kernel` at `level`, or at the baseline when this CPU lacks it.
///
/// Every level runs in a function of its own, never inlined into the
/// caller: a kernel is the whole hot loop, inlined all the way down, and
/// without optimisation (a build script's default) every temporary of it
/// keeps its own stack slot — the portable copies inlined here made the
/// frame of the closure a parallel draw runs on a rayon worker 1.8 MiB of
/// its 2 MiB stack (`docs/library.md`, "Any profile").
#[inline(always)]
pub fn dispatch<K: Kernel>(level: Level, kernel: K) -> K::Output {
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => avx2::run(kernel),
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => avx2::run_v4(kernel),
        _ => Portable.apart(kernel),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel touching every lane operation, run at one level.
    struct Exercise;

    impl Kernel for Exercise {
        type Output = Vec<u32>;
        #[inline(always)]
        fn run<S: Simd>(self, s: S) -> Vec<u32> {
            let a = s.array([-2.5, -1.0, -0.25, 0.0, 0.5, 1.5, 254.6, f32::NAN]);
            let b = s.array([1.0, -3.0, 0.75, -0.0, 2.0, 1.5, 3.0, 1.0]);
            let i = s.array_i([-7, 0, 5, i32::MIN, i32::MAX, 1, 300, -1]);
            let m = a.lt(b);
            let table = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]];
            let mut out: Vec<u32> = Vec::new();
            // A NaN's sign and payload are not part of any operation's
            // result (LLVM folds constants to a different NaN than the CPU
            // makes), so every NaN counts as one value.
            let canon = |x: f32| {
                if x.is_nan() {
                    f32::NAN.to_bits()
                } else {
                    x.to_bits()
                }
            };
            let mut f = |v: S::F| out.extend(v.to_array().map(canon));
            f(a + b);
            f(a - b);
            f(a * b);
            f(a.div(b));
            f(a.min(b));
            f(a.max(b));
            f(b.sqrt());
            f(a.floor());
            f(a.select(b, m));
            f(a.keep(m));
            f(i.to_f32());
            let mut g = |v: S::I| out.extend(v.to_array().map(|x| x as u32));
            // Lane 7 is NaN, whose integer is unspecified.
            let mut r = a.round_i32().to_array();
            r[7] = 0;
            g(s.array_i(r));
            g(m);
            g(i + s.ramp());
            g(i - s.splat_i(3));
            g(i * s.splat_i(-3));
            g(i & s.splat_i(0xff));
            g(i | s.splat_i(0x100));
            g(!i);
            g(i.non_negative());
            g(i.lt(s.splat_i(1)));
            g(i.select(s.ramp(), m));
            g(i.min(s.splat_i(2)));
            g(i.max(s.splat_i(2)));
            g(i.shr::<8>());
            g(i.shl::<8>());
            g(i.mul_lo16(s.array_i([
                3,
                -1,
                0x0001_0100,
                0x7fff_8000,
                -1,
                0x00ff_00ff,
                2,
                0x0100_0100,
            ])));
            g(s.gather(&table, i.max(s.splat_i(-1))));
            let (first, second) = s.gather_pair(&table, i.max(s.splat_i(-1)));
            g(first);
            g(second);
            out.push(m.bits());
            out.push(m.any() as u32);
            out.push(s.splat_i(0).any() as u32);
            out.push(s.load(&[9.0; 9]).to_array()[7].to_bits());
            // Every byte value, then a tail shorter than a 32-byte block.
            let bytes: Vec<u8> = (0..=255u8).chain([128, 127, 255, 1, 0]).collect();
            out.push(s.abs_sum_i8(&bytes) as u32);
            out.push(s.abs_sum_i8(&bytes[..31]) as u32);
            out.extend(s.add_pairs(a, b).to_array().map(canon));
            let c = s.array([0.125, 1e8, -1.0, 1.0, -0.0, -0.0, -0.0, -0.0]);
            out.extend(s.add_quads([a, b, c, b * b]).to_array().map(canon));
            // Indices past seven and negative ones wrap to their low bits.
            let order = s.array_i([7, 0, 0, 3, 9, -1, 2, 5]);
            out.extend(a.permute(order).to_array().map(canon));
            out.extend(i.permute(order).to_array().map(|x| x as u32));
            // Lanes in 0..2^15, the ends of the range included.
            let small = s.array_i([0, 1, 2, 255, 256, 32767, 181, 1000]);
            let product = small.mul_u15(s.array_i([32767, 32767, 7, 256, 0, 32767, 181, 999]));
            out.extend(product.to_array().map(|x| x as u32));
            for bits in [0u32, 0b1, 0b1000_0000, 0b1010_0110, 0xff, 0x1_5a] {
                out.extend(s.set_lanes(bits).to_array().map(|x| x as u32));
            }
            // Lanes 1 and 4 write the same entry: the later lane's value stays.
            let mut dst = [2.0f32; 12];
            let at = s.array_i([11, 3, 0, 5, 3, 9, 2, 7]);
            s.scatter(&mut dst, at, a, 0b1011_1110);
            s.scatter(&mut dst, at, b, 0b0000_0001);
            out.extend(dst.map(canon));
            out
        }
    }

    #[test]
    fn portable_lanes_compute_the_documented_values() {
        let v = Exercise.run(Portable);
        let f = |k: usize| -> Vec<f32> {
            v[8 * k..8 * k + 8]
                .iter()
                .map(|&b| f32::from_bits(b))
                .collect()
        };
        let i = |k: usize| -> Vec<i32> { v[8 * k..8 * k + 8].iter().map(|&b| b as i32).collect() };
        assert_eq!(f(7)[..7], [-3.0, -1.0, -1.0, 0.0, 0.0, 1.0, 254.0]);
        // min/max: NaN in self gives the other operand.
        assert_eq!(f(4)[7], 1.0);
        assert_eq!(f(5)[7], 1.0);
        assert_eq!(i(11)[..7], [-2, -1, 0, 0, 0, 2, 255]);
        assert_eq!(i(12), [-1, 0, -1, 0, -1, 0, 0, 0]);
        assert_eq!(
            i(24),
            [0xff_ffff, 0, 0, 0x80_0000, 0x7f_ffff, 0, 1, 0xff_ffff]
        );
        assert_eq!(i(25), [-1792, 0, 1280, 0, -256, 256, 76800, -256]);
        // Halves multiply apart, no carry between them.
        assert_eq!(
            i(26),
            [
                (-7i32 * 3) & 0xffff,
                0,
                0x0500,
                i32::MIN,
                0x8001_0001u32 as i32,
                0xff,
                600,
                0xff00_ff00u32 as i32,
            ]
        );
        // Out-of-range indices read entry 0.
        assert_eq!(i(27)[..3], [0x0403_0201, 0x0403_0201, 0x0403_0201]);
        assert_eq!(i(27)[5], 0x0807_0605);
        // Pairs: an index whose pair runs past the table reads the first
        // two entries.
        let (t0, t1, t2) = (0x0403_0201, 0x0807_0605, 0x0c0b_0a09);
        assert_eq!(i(28), [t0, t0, t0, t0, t0, t1, t0, t0]);
        assert_eq!(i(29), [t1, t1, t1, t1, t1, t2, t1, t1]);
        assert_eq!(&v[30 * 8..30 * 8 + 4], [0b10101, 1, 0, 9f32.to_bits()]);
        // 0..=127 and 1..=128 (as |i8|), then 128 + 127 + 1 + 1 + 0.
        assert_eq!(v[30 * 8 + 4..30 * 8 + 6], [8128 + 8256 + 257, 465]);
        let pairs: Vec<f32> = v[30 * 8 + 6..30 * 8 + 30]
            .iter()
            .map(|&b| f32::from_bits(b))
            .collect();
        assert_eq!(pairs[..3], [-3.5, -0.25, 2.0]);
        assert!(pairs[3].is_nan());
        assert_eq!(pairs[4..8], [-2.0, 0.75, 3.5, 4.0]);
        // Left to right: 1e8 swallows 0.125, then −1 (and +1 after it).
        assert_eq!(pairs[8], -3.75);
        assert!(pairs[9].is_nan());
        assert_eq!(pairs[10..12], [-1.25, 7.5]);
        assert_eq!(pairs[12], 1e8);
        assert_eq!(pairs[13].to_bits(), (-0.0f32).to_bits());
        assert_eq!(pairs[14..16], [10.5625, 16.25]);
        assert!(pairs[16].is_nan());
        assert_eq!(pairs[17..20], [-2.5, -2.5, 0.0]);
        assert_eq!(pairs[20], -1.0);
        assert!(pairs[21].is_nan());
        assert_eq!(pairs[22..24], [-0.25, 1.5]);
        let ints: Vec<i32> = v[30 * 8 + 6 + 24..30 * 8 + 6 + 32]
            .iter()
            .map(|&b| b as i32)
            .collect();
        assert_eq!(ints, [-1, -7, -7, i32::MIN, 0, -1, 5, 1]);
        let rest: Vec<i32> = v[30 * 8 + 6 + 32..].iter().map(|&b| b as i32).collect();
        assert_eq!(
            rest[..8],
            [0, 32767, 14, 65280, 0, 32767 * 32767, 181 * 181, 999_000]
        );
        // Set lanes: none; lane 0; lane 7; lanes 1, 2, 5, 7; all; only the
        // low eight bits of 0x15a (lanes 1, 3, 4, 6).
        let set: Vec<&[i32]> = rest[8..56].chunks(8).collect();
        assert_eq!(set[0], [0; 8]);
        assert_eq!(set[1], [0; 8]);
        assert_eq!(set[2], [7, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(set[3], [1, 2, 5, 7, 0, 0, 0, 0]);
        assert_eq!(set[4], [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(set[5], [1, 3, 4, 6, 0, 0, 0, 0]);
        // Scattered: lane 1 (-1) and then lane 4 (0.5) into entry 3.
        let dst: Vec<f32> = rest[56..]
            .iter()
            .map(|&b| f32::from_bits(b as u32))
            .collect();
        assert_eq!(dst.len(), 12);
        assert_eq!(dst[..7], [-0.25, 2.0, 2.0, 0.5, 2.0, 0.0, 2.0]);
        assert!(dst[7].is_nan());
        assert_eq!(dst[8..], [2.0, 1.5, 2.0, 1.0]);
    }

    #[test]
    fn every_available_level_gives_the_portable_bits() {
        let reference = Exercise.run(Portable);
        for level in Level::ALL.into_iter().filter(|l| l.available()) {
            assert_eq!(dispatch(level, Exercise), reference, "{}", level.name());
        }
    }

    #[test]
    fn detect_picks_an_available_level() {
        assert!(Level::detect().available());
        assert!(Level::Portable.available());
    }
}
