//! Minimal LZO1X stand-in (decoder + literal-only encoder) so the RTM reader
//! compiles on its own branch; the lead keeps the LZO engineer's version.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LzoError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for LzoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LZO1X stream at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for LzoError {}

fn err(offset: usize, message: &str) -> LzoError {
    LzoError {
        offset,
        message: message.to_string(),
    }
}

struct Dec<'a> {
    input: &'a [u8],
    ip: usize,
    out: Vec<u8>,
    limit: usize,
}

impl Dec<'_> {
    fn byte(&mut self) -> Result<usize, LzoError> {
        let b = *self
            .input
            .get(self.ip)
            .ok_or_else(|| err(self.ip, "input ends inside an instruction"))?;
        self.ip += 1;
        Ok(b as usize)
    }
    /// A length with zero-byte extensions: each 0 adds 255, the final byte adds itself.
    fn ext_len(&mut self, base: usize) -> Result<usize, LzoError> {
        let mut n = base;
        loop {
            let b = self.byte()?;
            if b != 0 {
                return Ok(n + b);
            }
            n += 255;
            if n > self.limit {
                return Err(err(self.ip, "length extension exceeds the expected output"));
            }
        }
    }
    fn literals(&mut self, n: usize) -> Result<(), LzoError> {
        if self.ip + n > self.input.len() {
            return Err(err(self.ip, "literal run past the end of the input"));
        }
        if self.out.len() + n > self.limit {
            return Err(err(self.ip, "output longer than expected"));
        }
        self.out
            .extend_from_slice(&self.input[self.ip..self.ip + n]);
        self.ip += n;
        Ok(())
    }
    fn copy_match(&mut self, dist: usize, len: usize, at: usize) -> Result<(), LzoError> {
        if dist > self.out.len() {
            return Err(err(at, "match reaches before the start of the output"));
        }
        if self.out.len() + len > self.limit {
            return Err(err(at, "output longer than expected"));
        }
        let start = self.out.len() - dist;
        for i in 0..len {
            let b = self.out[start + i];
            self.out.push(b);
        }
        Ok(())
    }
}

/// Decodes one LZO1X stream that must produce exactly `expected_len` bytes;
/// returns the output and how many input bytes the stream used (through its
/// end marker), since containers do not store the compressed length.
pub fn decompress(input: &[u8], expected_len: usize) -> Result<(Vec<u8>, usize), LzoError> {
    let mut d = Dec {
        input,
        ip: 0,
        // Capacity is bounded by the caller's expectation, never by the stream.
        out: Vec::with_capacity(expected_len.min(input.len().saturating_mul(256))),
        limit: expected_len,
    };
    // Literals copied after the last instruction: 0, 1..3, or 4 for a long run.
    let mut state = 0usize;
    if let Some(&first) = input.first() {
        if first > 17 {
            d.ip = 1;
            let t = first as usize - 17;
            d.literals(t)?;
            state = if t < 4 { t } else { 4 };
        }
    }
    loop {
        let at = d.ip;
        let inst = d.byte()?;
        if inst < 16 {
            if state == 0 {
                let t = if inst == 0 { d.ext_len(15)? } else { inst };
                d.literals(t + 3)?;
                state = 4;
                continue;
            }
            let h = d.byte()?;
            let (dist, len) = if state < 4 {
                ((h << 2) + (inst >> 2) + 1, 2)
            } else {
                ((h << 2) + (inst >> 2) + 2049, 3)
            };
            d.copy_match(dist, len, at)?;
            state = inst & 3;
        } else if inst >= 64 {
            let h = d.byte()?;
            let dist = ((inst >> 2) & 7) + (h << 3) + 1;
            d.copy_match(dist, (inst >> 5) + 1, at)?;
            state = inst & 3;
        } else if inst >= 32 {
            let len = match inst & 31 {
                0 => d.ext_len(31)?,
                n => n,
            } + 2;
            let ds = d.byte()? | (d.byte()? << 8);
            d.copy_match((ds >> 2) + 1, len, at)?;
            state = ds & 3;
        } else {
            let len = match inst & 7 {
                0 => d.ext_len(7)?,
                n => n,
            } + 2;
            let ds = d.byte()? | (d.byte()? << 8);
            let dist = ((inst & 8) << 11) + (ds >> 2);
            if dist == 0 {
                if d.out.len() != expected_len {
                    return Err(err(
                        at,
                        &format!(
                            "end marker after {} bytes, expected {expected_len}",
                            d.out.len()
                        ),
                    ));
                }
                return Ok((d.out, d.ip));
            }
            d.copy_match(dist + 0x4000, len, at)?;
            state = ds & 3;
        }
        if state > 0 {
            d.literals(state)?;
        }
    }
}

/// A valid LZO1X stream holding `data` as one literal run, then the end marker.
pub fn compress_literal(data: &[u8]) -> Vec<u8> {
    let n = data.len();
    let mut out = Vec::with_capacity(n + 8);
    if n == 0 {
    } else if n <= 238 {
        out.push((17 + n) as u8);
    } else {
        let t = n - 3;
        if t <= 15 {
            out.push(t as u8);
        } else {
            out.push(0);
            let mut rem = t - 15;
            while rem > 255 {
                out.push(0);
                rem -= 255;
            }
            out.push(rem as u8);
        }
    }
    out.extend_from_slice(data);
    out.extend_from_slice(&[0x11, 0, 0]);
    out
}
