//! Block compression (S3TC): DXT1/BC1, DXT3/BC2 and DXT5/BC3 blocks, shared
//! by the DDS and PAA decoders, and a small encoder for kiln's PAA writer.

/// A block-compressed pixel format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dxt {
    /// DXT1 / BC1: colour with 1-bit alpha, 8 bytes per 4×4 block.
    Bc1,
    /// DXT3 / BC2: explicit 4-bit alpha, 16 bytes per block.
    Bc2,
    /// DXT5 / BC3: interpolated alpha, 16 bytes per block.
    Bc3,
}

impl Dxt {
    /// Bytes per 4×4 block.
    pub fn block_bytes(self) -> usize {
        if self == Dxt::Bc1 {
            8
        } else {
            16
        }
    }

    /// Bytes of a `width` × `height` image (partial blocks count whole).
    pub fn image_bytes(self, width: u32, height: u32) -> u64 {
        width.div_ceil(4) as u64 * height.div_ceil(4) as u64 * self.block_bytes() as u64
    }
}

/// Decodes `body` (at least [`Dxt::image_bytes`] long) into straight RGBA
/// texels, row-major.
pub fn decode(format: Dxt, width: u32, height: u32, body: &[u8]) -> Vec<[u8; 4]> {
    let mut texels = Vec::new();
    decode_into(format, width, height, body, &mut texels);
    texels
}

/// [`decode`] into `texels` (emptied first), whose room the caller has
/// already reserved and charged.
pub fn decode_into(format: Dxt, width: u32, height: u32, body: &[u8], texels: &mut Vec<[u8; 4]>) {
    let (w, h) = (width as usize, height as usize);
    let bw = w.div_ceil(4);
    texels.clear();
    texels.resize(w * h, [0u8; 4]);
    for (i, block) in body
        .chunks_exact(format.block_bytes())
        .take(bw * h.div_ceil(4))
        .enumerate()
    {
        let decoded = match format {
            Dxt::Bc1 => colour_block(block, true),
            Dxt::Bc2 => {
                let mut c = colour_block(&block[8..], false);
                let bits = u64::from_le_bytes(block[..8].try_into().unwrap_or([0; 8]));
                for (k, t) in c.iter_mut().enumerate() {
                    t[3] = ((bits >> (4 * k)) & 15) as u8 * 17;
                }
                c
            }
            Dxt::Bc3 => {
                let mut c = colour_block(&block[8..], false);
                for (t, a) in c.iter_mut().zip(bc3_alpha(&block[..8])) {
                    t[3] = a;
                }
                c
            }
        };
        let (bx, by) = (i % bw * 4, i / bw * 4);
        for (k, t) in decoded.into_iter().enumerate() {
            let (x, y) = (bx + k % 4, by + k / 4);
            if x < w && y < h {
                texels[y * w + x] = t;
            }
        }
    }
}

fn rgb565(v: u16) -> [u32; 3] {
    let (r, g, b) = ((v >> 11) as u32, ((v >> 5) & 63) as u32, (v & 31) as u32);
    [
        (r << 3) | (r >> 2),
        (g << 2) | (g >> 4),
        (b << 3) | (b >> 2),
    ]
}

/// A BC1 colour block → 16 straight RGBA texels, row-major. `bc1` enables
/// the 3-colour + transparent mode when `c0 <= c1` (BC2/BC3 never use it).
fn colour_block(b: &[u8], bc1: bool) -> [[u8; 4]; 16] {
    let c0 = u16::from_le_bytes([b[0], b[1]]);
    let c1 = u16::from_le_bytes([b[2], b[3]]);
    let (p0, p1) = (rgb565(c0), rgb565(c1));
    let mix = |w0: u32, w1: u32, d: u32| -> [u8; 4] {
        let m = |i: usize| ((p0[i] * w0 + p1[i] * w1 + d / 2) / d) as u8;
        [m(0), m(1), m(2), 255]
    };
    let palette = if c0 > c1 || !bc1 {
        [mix(1, 0, 1), mix(0, 1, 1), mix(2, 1, 3), mix(1, 2, 3)]
    } else {
        [mix(1, 0, 1), mix(0, 1, 1), mix(1, 1, 2), [0, 0, 0, 0]]
    };
    let idx = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    std::array::from_fn(|k| palette[((idx >> (2 * k)) & 3) as usize])
}

fn bc3_alpha(b: &[u8]) -> [u8; 16] {
    let (a0, a1) = (b[0] as u32, b[1] as u32);
    let mut table = [0u8; 8];
    table[0] = a0 as u8;
    table[1] = a1 as u8;
    if a0 > a1 {
        for i in 1..7u32 {
            table[i as usize + 1] = (((7 - i) * a0 + i * a1 + 3) / 7) as u8;
        }
    } else {
        for i in 1..5u32 {
            table[i as usize + 1] = (((5 - i) * a0 + i * a1 + 2) / 5) as u8;
        }
        table[6] = 0;
        table[7] = 255;
    }
    let bits = b[2..8]
        .iter()
        .rev()
        .fold(0u64, |acc, &byte| (acc << 8) | byte as u64);
    std::array::from_fn(|k| table[((bits >> (3 * k)) & 7) as usize])
}

fn to565([r, g, b]: [u8; 3]) -> u16 {
    (r as u16 >> 3) << 11 | (g as u16 >> 2) << 5 | b as u16 >> 3
}

/// Encodes straight RGBA texels: per block, the darkest and brightest
/// colours as endpoints and each texel's nearest palette entry; alpha as
/// the block's range (DXT5) or 4 bits (DXT3); DXT1 keys texels with alpha
/// below 128. Plain, not a quality encoder: enough for kiln's fixtures.
pub fn encode(format: Dxt, width: u32, height: u32, texels: &[[u8; 4]]) -> Vec<u8> {
    let (w, h) = (width as usize, height as usize);
    let mut out = Vec::with_capacity(format.image_bytes(width, height) as usize);
    for by in (0..h).step_by(4) {
        for bx in (0..w).step_by(4) {
            let block: [[u8; 4]; 16] = std::array::from_fn(|k| {
                let (x, y) = ((bx + k % 4).min(w - 1), (by + k / 4).min(h - 1));
                texels[y * w + x]
            });
            match format {
                Dxt::Bc1 => out.extend_from_slice(&encode_colour(&block, true)),
                Dxt::Bc2 => {
                    let bits = block.iter().enumerate().fold(0u64, |acc, (k, t)| {
                        acc | ((t[3] as u64 + 8) / 17) << (4 * k)
                    });
                    out.extend_from_slice(&bits.to_le_bytes());
                    out.extend_from_slice(&encode_colour(&block, false));
                }
                Dxt::Bc3 => {
                    out.extend_from_slice(&encode_alpha(&block));
                    out.extend_from_slice(&encode_colour(&block, false));
                }
            }
        }
    }
    out
}

fn encode_colour(block: &[[u8; 4]; 16], bc1: bool) -> [u8; 8] {
    let keyed = |t: &[u8; 4]| bc1 && t[3] < 128;
    let luma = |t: &[u8; 4]| t[0] as u32 * 3 + t[1] as u32 * 6 + t[2] as u32;
    let opaque: Vec<&[u8; 4]> = block.iter().filter(|t| !keyed(t)).collect();
    let any_keyed = opaque.len() < 16;
    let (lo, hi) = match (
        opaque.iter().min_by_key(|t| luma(t)),
        opaque.iter().max_by_key(|t| luma(t)),
    ) {
        (Some(a), Some(b)) => (to565([a[0], a[1], a[2]]), to565([b[0], b[1], b[2]])),
        _ => (0, 0),
    };
    // Four-colour mode needs c0 > c1, three-colour + transparent c0 <= c1.
    let (c0, c1) = if any_keyed {
        (lo.min(hi), lo.max(hi))
    } else if hi == lo {
        (hi, hi)
    } else {
        (hi.max(lo), hi.min(lo))
    };
    let mut bytes = [0u8; 8];
    bytes[..2].copy_from_slice(&c0.to_le_bytes());
    bytes[2..4].copy_from_slice(&c1.to_le_bytes());
    // The colour of each index: index i in the first texel's slot.
    let palette: Vec<[u8; 4]> = (0..4u8)
        .map(|i| {
            let mut probe = bytes;
            probe[4] = i;
            colour_block(&probe, bc1)[0]
        })
        .collect();
    let mut idx = 0u32;
    for (k, t) in block.iter().enumerate() {
        let choice = if keyed(t) {
            3
        } else {
            (0..4)
                .filter(|&i| !(bc1 && c0 <= c1 && i == 3))
                .min_by_key(|&i| {
                    let p = palette[i];
                    (0..3)
                        .map(|c| (p[c] as i32 - t[c] as i32).pow(2))
                        .sum::<i32>()
                })
                .unwrap_or(0)
        };
        idx |= (choice as u32) << (2 * k);
    }
    bytes[4..].copy_from_slice(&idx.to_le_bytes());
    bytes
}

fn encode_alpha(block: &[[u8; 4]; 16]) -> [u8; 8] {
    let a0 = block.iter().map(|t| t[3]).max().unwrap_or(255);
    let a1 = block.iter().map(|t| t[3]).min().unwrap_or(255);
    let mut head = [a0, a1, 0, 0, 0, 0, 0, 0];
    // The palette value of each index: index i in the first texel's slot.
    let values: Vec<u8> = (0..8u8)
        .map(|i| {
            let mut probe = head;
            probe[2] = i;
            bc3_alpha(&probe)[0]
        })
        .collect();
    let mut bits = 0u64;
    for (k, t) in block.iter().enumerate() {
        let best = (0..8)
            .min_by_key(|&i| (values[i] as i32 - t[3] as i32).abs())
            .unwrap_or(0);
        bits |= (best as u64) << (3 * k);
    }
    head[2..8].copy_from_slice(&bits.to_le_bytes()[..6]);
    head
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_blocks_decode_close_to_the_source() {
        let texels: Vec<[u8; 4]> = (0..6 * 5)
            .map(|i| {
                [
                    (i * 8) as u8,
                    200 - (i * 5) as u8,
                    60,
                    if i % 7 == 0 { 0 } else { (i * 9) as u8 },
                ]
            })
            .collect();
        for format in [Dxt::Bc1, Dxt::Bc2, Dxt::Bc3] {
            let body = encode(format, 6, 5, &texels);
            assert_eq!(body.len() as u64, format.image_bytes(6, 5));
            let back = decode(format, 6, 5, &body);
            for (a, b) in texels.iter().zip(&back) {
                let keyed = format == Dxt::Bc1 && a[3] < 128;
                if keyed {
                    assert_eq!(b[3], 0);
                    continue;
                }
                for c in 0..3 {
                    assert!(
                        (a[c] as i32 - b[c] as i32).abs() <= 48,
                        "{format:?} {a:?} {b:?}"
                    );
                }
                if format != Dxt::Bc1 {
                    assert!(
                        (a[3] as i32 - b[3] as i32).abs() <= 40,
                        "{format:?} {a:?} {b:?}"
                    );
                }
            }
        }
    }
}
