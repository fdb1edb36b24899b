//! Bohemia Interactive's LZSS, used by PBO entries stored as `Cprs` and by
//! the non-DXT mipmaps of PAA textures.
//!
//! A flag byte governs the next eight items, least significant bit first:
//! 1 = one literal byte, 0 = a two-byte pointer `b0 b1` copying
//! `(b1 & 0x0f) + 3` bytes from `((b1 & 0xf0) << 4 | b0)` bytes back in the
//! output (a 4 KiB window; positions before the start read as spaces).
//! The output's length is known from outside; a 4-byte sum of its bytes
//! follows the stream (unsigned in PBOs, of signed bytes in PAAs).

/// Why a stream could not be decompressed, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LzssError {
    /// Offset in the input where decoding failed.
    pub offset: usize,
    /// What was wrong.
    pub message: String,
}

/// Decompressed bytes and how many input bytes the stream and its
/// checksum took.
pub type Decoded = (Vec<u8>, usize);

/// Decompresses a stream that must expand to exactly `expected` bytes,
/// then checks the 4-byte checksum after it (either the unsigned sum or the
/// sum of signed bytes is accepted).
pub fn decompress(input: &[u8], expected: usize) -> Result<Decoded, LzssError> {
    // Each input byte yields at most 18 output bytes.
    let mut out: Vec<u8> = Vec::with_capacity(expected.min(input.len().saturating_mul(18)));
    let mut pos = 0usize;
    let fail = |offset: usize, message: String| LzssError { offset, message };
    while out.len() < expected {
        let flags = *input.get(pos).ok_or_else(|| {
            fail(
                pos,
                format!("stream ends after {} of {expected} bytes", out.len()),
            )
        })?;
        pos += 1;
        for bit in 0..8 {
            if out.len() >= expected {
                break;
            }
            if flags >> bit & 1 == 1 {
                let b = *input
                    .get(pos)
                    .ok_or_else(|| fail(pos, "stream ends inside a literal".into()))?;
                out.push(b);
                pos += 1;
            } else {
                let (b0, b1) = match input.get(pos..pos + 2) {
                    Some(p) => (p[0] as usize, p[1] as usize),
                    None => return Err(fail(pos, "stream ends inside a pointer".into())),
                };
                let back = (b1 & 0xf0) << 4 | b0;
                let len = (b1 & 0x0f) + 3;
                if out.len() + len > expected {
                    return Err(fail(
                        pos,
                        format!(
                            "a copy of {len} bytes at output byte {} runs past the expected {expected}",
                            out.len()
                        ),
                    ));
                }
                for _ in 0..len {
                    let b = match out.len().checked_sub(back) {
                        Some(from) if back > 0 => out[from],
                        // Before the start of the output: the space filler.
                        _ => b' ',
                    };
                    out.push(b);
                }
                pos += 2;
            }
        }
    }
    let stored = input
        .get(pos..pos + 4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .ok_or_else(|| fail(pos, "the 4-byte checksum is missing".into()))?;
    let (unsigned, signed) = checksums(&out);
    if stored != unsigned && stored != signed {
        return Err(fail(
            pos,
            format!(
                "checksum 0x{stored:08x} does not match the data (sum 0x{unsigned:08x}, signed sum 0x{signed:08x})"
            ),
        ));
    }
    Ok((out, pos + 4))
}

/// The unsigned byte sum and the signed byte sum, both wrapping.
pub fn checksums(data: &[u8]) -> (u32, u32) {
    data.iter().fold((0u32, 0u32), |(u, s), &b| {
        (
            u.wrapping_add(b as u32),
            s.wrapping_add(b as i8 as i32 as u32),
        )
    })
}

/// Compresses `data` (greedy, hash chains over the 4 KiB window), then the
/// checksum: the sum of signed bytes when `signed` (PAA), else unsigned
/// (PBO).
pub fn compress(data: &[u8], signed: bool) -> Vec<u8> {
    const WINDOW: usize = 4095;
    const MAX: usize = 18;
    const CHAIN: usize = 64;
    let mut out = Vec::with_capacity(data.len() + data.len() / 8 + 8);
    let mut head = vec![usize::MAX; 1 << 14];
    let mut prev = vec![usize::MAX; data.len()];
    let hash = |p: usize| -> usize {
        let v = u32::from(data[p]) | u32::from(data[p + 1]) << 8 | u32::from(data[p + 2]) << 16;
        (v.wrapping_mul(0x9e37_79b1) >> 18) as usize
    };
    let insert = |p: usize, head: &mut Vec<usize>, prev: &mut Vec<usize>| {
        if p + 3 <= data.len() {
            let h = hash(p);
            prev[p] = head[h];
            head[h] = p;
        }
    };
    let mut pos = 0;
    while pos < data.len() {
        let flag_at = out.len();
        out.push(0u8);
        for bit in 0..8 {
            if pos >= data.len() {
                break;
            }
            let mut best = (0usize, 0usize);
            if pos + 3 <= data.len() {
                let mut cand = head[hash(pos)];
                let mut steps = 0;
                while cand != usize::MAX && pos - cand <= WINDOW && steps < CHAIN {
                    let max = MAX.min(data.len() - pos);
                    let len = (0..max)
                        .take_while(|&k| data[cand + k] == data[pos + k])
                        .count();
                    if len > best.0 {
                        best = (len, pos - cand);
                    }
                    cand = prev[cand];
                    steps += 1;
                }
            }
            if best.0 >= 3 {
                let (len, back) = best;
                out.push((back & 0xff) as u8);
                out.push(((back >> 4) & 0xf0 | (len - 3)) as u8);
                for p in pos..pos + len {
                    insert(p, &mut head, &mut prev);
                }
                pos += len;
            } else {
                out[flag_at] |= 1 << bit;
                out.push(data[pos]);
                insert(pos, &mut head, &mut prev);
                pos += 1;
            }
        }
    }
    let (unsigned, signed_sum) = checksums(data);
    out.extend_from_slice(&if signed { signed_sum } else { unsigned }.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_compresses_repeats() {
        let text = b"Arma textures: the same row of texels, again and again. ".repeat(40);
        let noise: Vec<u8> = (0..5000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for data in [&text[..], &noise, b"", b"ab", &[0x80u8; 300][..]] {
            for signed in [false, true] {
                let packed = compress(data, signed);
                let (back, used) = decompress(&packed, data.len()).unwrap();
                assert_eq!(back, data);
                assert_eq!(used, packed.len());
            }
        }
        assert!(compress(&text, false).len() < text.len() / 5);
    }

    #[test]
    fn a_pointer_before_the_start_reads_spaces_and_errors_name_the_offset() {
        // Flag 0b10: a pointer 2 back with length 3 at output 0, then 'x'.
        let mut s = vec![0b0000_0010, 0x02, 0x00, b'x'];
        s.extend_from_slice(&(3 * 32 + b'x' as u32).to_le_bytes());
        assert_eq!(decompress(&s, 4).unwrap().0, b"   x");
        let bad_sum = [0xffu8, b'a', 0, 0, 0, 0];
        let e = decompress(&bad_sum, 1).unwrap_err();
        assert_eq!(e.offset, 2);
        assert!(e.message.contains("checksum"), "{}", e.message);
        let e = decompress(&[0x00, 0x01], 5).unwrap_err();
        assert_eq!(
            (e.offset, e.message.as_str()),
            (1, "stream ends inside a pointer")
        );
        let e = decompress(&[0x00, 0x01, 0x0f], 5).unwrap_err();
        assert!(
            e.message.contains("runs past the expected 5"),
            "{}",
            e.message
        );
        assert!(decompress(&[], 1).is_err());
    }
}
