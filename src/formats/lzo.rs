//! kiln's own LZO1X decompressor (and a small compressor for kiln's writers).
//!
//! Written from the format's facts rather than from the reference code, which
//! is GPL. Binarised Arma animations (BMTR) store arrays as raw LZO1X streams
//! without their compressed length, so the decoder must stop at the end marker
//! and report how much input it consumed; the caller then reads on from there.
//!
//! Instruction summary (`state` = literals copied right after the previous
//! instruction: 0, 1..3, or 4 meaning "a literal run of 4 or more"):
//! - first byte > 17: copy `byte - 17` literals.
//! - `0..15` in state 0: literal run of `byte + 3` (0 = 18 + length extension).
//! - `0..15` in state 1..3: 2-byte match, distance `1 + (b >> 2) + (next << 2)`.
//! - `0..15` in state 4: 3-byte match, distance `0x801 + (b >> 2) + (next << 2)`.
//! - `64..255` (M2): length `(b >> 5) + 1`, distance `1 + ((b >> 2) & 7) + (next << 3)`.
//! - `32..63` (M3): length `(b & 31) + 2` (0 = extension), distance `1 + (le16 >> 2)`.
//! - `16..31` (M4): length `(b & 7) + 2` (0 = extension), distance
//!   `0x4000 + ((b & 8) << 11) + (le16 >> 2)`; a distance of exactly 0x4000 is
//!   the end marker (`0x11 0x00 0x00` as written).
//!
//! After every match, the low two bits of its second-to-last byte give the
//! number (0..3) of literals that follow without an instruction of their own.

use std::fmt;

/// A broken or hostile LZO1X stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LzoError {
    /// Byte offset in the compressed input where decoding failed.
    pub offset: usize,
    /// What was wrong there.
    pub message: String,
}

impl fmt::Display for LzoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LZO1X stream at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for LzoError {}

/// The largest distance an LZO1X match can reach.
pub const MAX_DISTANCE: usize = 0xBFFF;

struct Decoder<'a> {
    input: &'a [u8],
    pos: usize,
    out: Vec<u8>,
    expected_len: usize,
}

impl Decoder<'_> {
    fn err(&self, offset: usize, message: impl Into<String>) -> LzoError {
        LzoError {
            offset,
            message: message.into(),
        }
    }

    fn byte(&mut self) -> Result<u8, LzoError> {
        match self.input.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.err(self.pos, "input ends inside an instruction")),
        }
    }

    fn le16(&mut self) -> Result<usize, LzoError> {
        let lo = self.byte()? as usize;
        let hi = self.byte()? as usize;
        Ok(lo | (hi << 8))
    }

    /// Reads a length extension: each zero byte adds 255, the first non-zero
    /// byte adds itself and ends it. Bounded by `expected_len` so a run of
    /// zeros cannot build a length beyond any output we would accept.
    fn extension(&mut self, base: usize, at: usize) -> Result<usize, LzoError> {
        let mut len = base;
        loop {
            let b = self.byte()?;
            if b != 0 {
                return Ok(len.saturating_add(b as usize));
            }
            len = len.saturating_add(255);
            if len > self.expected_len {
                return Err(self.err(at, "length extension exceeds the expected output size"));
            }
        }
    }

    fn room(&self, n: usize, at: usize, what: &str) -> Result<(), LzoError> {
        if n > self.expected_len - self.out.len() {
            return Err(self.err(
                at,
                format!(
                    "{what} of {n} bytes would grow the output past the expected {} bytes (at {})",
                    self.expected_len,
                    self.out.len()
                ),
            ));
        }
        Ok(())
    }

    fn literals(&mut self, n: usize, at: usize) -> Result<(), LzoError> {
        self.room(n, at, "literal run")?;
        let end = self.pos.checked_add(n).filter(|&e| e <= self.input.len());
        let Some(end) = end else {
            return Err(self.err(
                self.pos,
                format!("literal run of {n} bytes runs past the end of the input"),
            ));
        };
        self.out.extend_from_slice(&self.input[self.pos..end]);
        self.pos = end;
        Ok(())
    }

    fn copy_match(&mut self, dist: usize, len: usize, at: usize) -> Result<(), LzoError> {
        if dist == 0 || dist > self.out.len() {
            return Err(self.err(
                at,
                format!(
                    "match distance {dist} reaches before the start of the output ({} bytes so far)",
                    self.out.len()
                ),
            ));
        }
        self.room(len, at, "match")?;
        let start = self.out.len() - dist;
        if dist >= len {
            self.out.extend_from_within(start..start + len);
        } else {
            // Overlapping copy repeats the last `dist` bytes; byte by byte on purpose.
            for i in 0..len {
                let b = self.out[start + i];
                self.out.push(b);
            }
        }
        Ok(())
    }
}

/// Decompresses one LZO1X stream that must expand to exactly `expected_len`
/// bytes. Returns the output and the number of input bytes consumed, up to
/// and including the end marker; trailing input is left alone.
pub fn decompress(input: &[u8], expected_len: usize) -> Result<(Vec<u8>, usize), LzoError> {
    // LZO expands at most ~255x per input byte; never reserve more than the
    // input could plausibly justify even when the caller's size is hostile.
    let cap = expected_len.min(input.len().saturating_mul(256));
    let mut d = Decoder {
        input,
        pos: 0,
        out: Vec::with_capacity(cap),
        expected_len,
    };
    let mut state = 0usize;
    if let Some(&first) = input.first() {
        if first > 17 {
            d.pos = 1;
            let n = first as usize - 17;
            d.literals(n, 0)?;
            state = n.min(4);
        }
    }
    loop {
        let at = d.pos;
        let inst = d.byte()? as usize;
        let (dist, len, trailing);
        if inst < 16 {
            match state {
                0 => {
                    let n = if inst == 0 {
                        d.extension(15, at)?
                    } else {
                        inst
                    }
                    .saturating_add(3);
                    d.literals(n, at)?;
                    state = 4;
                    continue;
                }
                1..=3 => {
                    let next = d.byte()? as usize;
                    dist = 1 + (inst >> 2) + (next << 2);
                    len = 2;
                }
                _ => {
                    let next = d.byte()? as usize;
                    dist = 0x801 + (inst >> 2) + (next << 2);
                    len = 3;
                }
            }
            trailing = inst & 3;
        } else if inst >= 64 {
            let next = d.byte()? as usize;
            dist = 1 + ((inst >> 2) & 7) + (next << 3);
            len = (inst >> 5) + 1;
            trailing = inst & 3;
        } else if inst >= 32 {
            let l = inst & 31;
            len = if l == 0 { d.extension(31, at)? } else { l }.saturating_add(2);
            let v = d.le16()?;
            dist = 1 + (v >> 2);
            trailing = v & 3;
        } else {
            let l = inst & 7;
            len = if l == 0 { d.extension(7, at)? } else { l }.saturating_add(2);
            let v = d.le16()?;
            let far = ((inst & 8) << 11) + (v >> 2);
            if far == 0 {
                if d.out.len() != expected_len {
                    return Err(d.err(
                        at,
                        format!(
                            "end marker after {} output bytes, expected {expected_len}",
                            d.out.len()
                        ),
                    ));
                }
                return Ok((d.out, d.pos));
            }
            dist = far + 0x4000;
            trailing = v & 3;
        }
        d.copy_match(dist, len, at)?;
        let lit_at = d.pos;
        d.literals(trailing, lit_at)?;
        state = trailing;
    }
}

/// Appends the length-extension bytes for `rem >= 1` (zeros worth 255 each,
/// then a non-zero remainder).
fn push_extension(out: &mut Vec<u8>, rem: usize) {
    let zeros = (rem - 1) / 255;
    out.extend(std::iter::repeat_n(0u8, zeros));
    out.push((rem - zeros * 255) as u8);
}

/// Tracks what the encoder needs to place literals correctly: runs of 1..3
/// literals ride on the previous match's spare bits, so they need its position.
struct Encoder {
    out: Vec<u8>,
    /// Position of the byte whose low 2 bits carry the trailing-literal count.
    patch: Option<usize>,
    started: bool,
}

impl Encoder {
    fn literals(&mut self, lit: &[u8]) {
        let n = lit.len();
        if n == 0 {
            return;
        }
        if !self.started && n <= 238 {
            self.out.push((n + 17) as u8);
        } else if n <= 3 {
            // Callers alternate literal runs and matches, so once the stream
            // has started a short run always follows a match and has a patch
            // position; `literals` is private to keep that true.
            let p = self.patch.expect("short literal run follows a match");
            self.out[p] |= n as u8;
        } else if n - 3 <= 15 {
            self.out.push((n - 3) as u8);
        } else {
            self.out.push(0);
            push_extension(&mut self.out, n - 3 - 15);
        }
        self.out.extend_from_slice(lit);
        self.started = true;
        self.patch = None;
    }

    fn long_len(&mut self, first: u8, len: usize, max_inline: usize) {
        if len - 2 <= max_inline {
            self.out.push(first | (len - 2) as u8);
        } else {
            self.out.push(first);
            push_extension(&mut self.out, len - 2 - max_inline);
        }
    }

    /// Needs `len >= 3` and `1 <= dist <= MAX_DISTANCE`. M4 cannot say 0x4000
    /// (that is the end marker), but M3 reaches exactly that far.
    fn matched(&mut self, dist: usize, len: usize) {
        if len <= 8 && dist <= 0x800 {
            let d = dist - 1;
            self.out.push((((len - 1) << 5) | ((d & 7) << 2)) as u8);
            self.out.push((d >> 3) as u8);
        } else if dist <= 0x4000 {
            self.long_len(32, len, 31);
            let v = (dist - 1) << 2;
            self.out.push(v as u8);
            self.out.push((v >> 8) as u8);
        } else {
            let d = dist - 0x4000;
            self.long_len(16 | ((d & 0x4000) >> 11) as u8, len, 7);
            let v = (d & 0x3FFF) << 2;
            self.out.push(v as u8);
            self.out.push((v >> 8) as u8);
        }
        self.patch = Some(self.out.len() - 2);
        self.started = true;
    }

    fn finish(mut self) -> Vec<u8> {
        self.out.extend_from_slice(&[0x11, 0x00, 0x00]);
        self.out
    }
}

/// A valid LZO1X stream holding `data` as literal runs only, then the end
/// marker. Enough for kiln's writers, which value simplicity over size.
pub fn compress_literal(data: &[u8]) -> Vec<u8> {
    let mut e = Encoder {
        out: Vec::with_capacity(data.len() + 8),
        patch: None,
        started: false,
    };
    e.literals(data);
    e.finish()
}

/// A simple greedy LZO1X compressor: one hash slot per 3-byte prefix, longest
/// match at that slot only. Its output decodes with [`decompress`] (and with
/// any LZO1X decoder); the ratio is modest but real.
pub fn compress(data: &[u8]) -> Vec<u8> {
    const HASH_BITS: u32 = 14;
    let mut table = vec![usize::MAX; 1 << HASH_BITS];
    let hash = |p: usize| -> usize {
        let v = u32::from(data[p]) | u32::from(data[p + 1]) << 8 | u32::from(data[p + 2]) << 16;
        (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
    };
    let mut e = Encoder {
        out: Vec::with_capacity(data.len() + data.len() / 16 + 8),
        patch: None,
        started: false,
    };
    let mut lit_start = 0;
    let mut i = 0;
    while i + 3 <= data.len() {
        let h = hash(i);
        let cand = table[h];
        table[h] = i;
        if cand != usize::MAX && i - cand <= MAX_DISTANCE && data[cand..cand + 3] == data[i..i + 3]
        {
            let mut len = 3;
            while i + len < data.len() && data[cand + len] == data[i + len] {
                len += 1;
            }
            e.literals(&data[lit_start..i]);
            e.matched(i - cand, len);
            // Index the positions inside the match too, so later repeats find it.
            for p in i + 1..(i + len).min(data.len().saturating_sub(2)) {
                table[hash(p)] = p;
            }
            i += len;
            lit_start = i;
        } else {
            i += 1;
        }
    }
    e.literals(&data[lit_start..]);
    e.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_marker_only_is_empty() {
        assert_eq!(decompress(&[0x11, 0, 0], 0), Ok((vec![], 3)));
        assert_eq!(compress_literal(&[]), vec![0x11, 0, 0]);
    }

    #[test]
    fn hand_written_stream() {
        // First-byte literal run "abcd", M2 copying 4 bytes from distance 4
        // with one trailing literal 'z', then the end marker; trailing junk kept.
        let d = 3usize;
        let m2 = (((4 - 1) << 5) | ((d & 7) << 2) | 1) as u8;
        let s = [
            17 + 4,
            b'a',
            b'b',
            b'c',
            b'd',
            m2,
            0,
            b'z',
            0x11,
            0,
            0,
            0xEE,
        ];
        let (out, used) = decompress(&s, 9).unwrap();
        assert_eq!(out, b"abcdabcdz");
        assert_eq!(used, 11);
    }

    #[test]
    fn m1_instructions_both_states() {
        // kiln's compressor never emits M1, so build one of each by hand:
        // an extended literal run of 2100 bytes (0, eight zeros, 42), then a
        // far M1 (after a long literal run: 3 bytes from 0x801 + 1 back, 2
        // trailing literals), then a near M1 (2 bytes from 3 back).
        let lit: Vec<u8> = (0..2100u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let mut s = vec![0u8; 9];
        s.push(42);
        s.extend_from_slice(&lit);
        s.extend_from_slice(&[(1 << 2) | 2, 0, b'x', b'y', 2 << 2, 0, 0x11, 0, 0]);
        let mut want = lit.clone();
        want.extend_from_slice(&lit[2100 - 2050..2100 - 2050 + 3]);
        want.extend_from_slice(b"xy");
        let n = want.len();
        want.extend_from_slice(&[want[n - 3], want[n - 2]]);
        let (out, used) = decompress(&s, want.len()).unwrap();
        assert_eq!(out, want);
        assert_eq!(used, s.len());
    }

    #[test]
    fn huge_expected_len_does_not_overflow() {
        let mut s = vec![0u8; 64];
        s.push(1);
        assert!(decompress(&s, usize::MAX).is_err());
        assert_eq!(decompress(&[0x11, 0, 0], usize::MAX).unwrap_err().offset, 0);
    }
}
