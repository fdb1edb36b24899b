//! Gravity's "DES": one round of the Data Encryption Standard's Feistel
//! network with an all-zero key and no final swap, over the standard
//! tables (initial and final permutations, expansion, the eight S-boxes,
//! the P permutation). One such round is its own inverse, so the same
//! function encrypts and decrypts a block. A standard DES library will not
//! do: it runs sixteen rounds with a key schedule.
//!
//! On top of it, GRF entries are "mixed" (the first 20 blocks, then every
//! `cycle`-th block, and every 7th of the others byte-shuffled) or
//! "header" (the first 20 blocks only) encrypted; 0x102/0x103 archives also
//! encrypt entry names.

/// Initial permutation: output bit i (from 1, most significant first) is
/// input bit `IP[i]`.
const IP: [u8; 64] = [
    58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4, 62, 54, 46, 38, 30, 22, 14, 6,
    64, 56, 48, 40, 32, 24, 16, 8, 57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3, 61,
    53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7,
];

/// Final permutation, the inverse of [`IP`].
const FP: [u8; 64] = [
    40, 8, 48, 16, 56, 24, 64, 32, 39, 7, 47, 15, 55, 23, 63, 31, 38, 6, 46, 14, 54, 22, 62, 30,
    37, 5, 45, 13, 53, 21, 61, 29, 36, 4, 44, 12, 52, 20, 60, 28, 35, 3, 43, 11, 51, 19, 59, 27,
    34, 2, 42, 10, 50, 18, 58, 26, 33, 1, 41, 9, 49, 17, 57, 25,
];

/// Expansion of the right half's 32 bits to 48.
const E: [u8; 48] = [
    32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13, 12, 13, 14, 15, 16, 17, 16, 17, 18,
    19, 20, 21, 20, 21, 22, 23, 24, 25, 24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1,
];

/// The permutation of the S-boxes' 32 output bits.
const P: [u8; 32] = [
    16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10, 2, 8, 24, 14, 32, 27, 3, 9, 19,
    13, 30, 6, 22, 11, 4, 25,
];

/// S1–S8, each 4 rows × 16 columns (row = outer input bits, column = the
/// middle four).
const S: [[u8; 64]; 8] = [
    [
        14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7, 0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12,
        11, 9, 5, 3, 8, 4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0, 15, 12, 8, 2, 4, 9,
        1, 7, 5, 11, 3, 14, 10, 0, 6, 13,
    ],
    [
        15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10, 3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1,
        10, 6, 9, 11, 5, 0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15, 13, 8, 10, 1, 3, 15,
        4, 2, 11, 6, 7, 12, 0, 5, 14, 9,
    ],
    [
        10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8, 13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5,
        14, 12, 11, 15, 1, 13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7, 1, 10, 13, 0, 6,
        9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12,
    ],
    [
        7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15, 13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2,
        12, 1, 10, 14, 9, 10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4, 3, 15, 0, 6, 10, 1,
        13, 8, 9, 4, 5, 11, 12, 7, 2, 14,
    ],
    [
        2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9, 14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15,
        10, 3, 9, 8, 6, 4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14, 11, 8, 12, 7, 1, 14,
        2, 13, 6, 15, 0, 9, 10, 4, 5, 3,
    ],
    [
        12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11, 10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13,
        14, 0, 11, 3, 8, 9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6, 4, 3, 2, 12, 9, 5,
        15, 10, 11, 14, 1, 7, 6, 0, 8, 13,
    ],
    [
        4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1, 13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5,
        12, 2, 15, 8, 6, 1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2, 6, 11, 13, 8, 1, 4,
        10, 7, 9, 5, 0, 15, 14, 2, 3, 12,
    ],
    [
        13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7, 1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6,
        11, 0, 14, 9, 2, 7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8, 2, 1, 14, 7, 4, 10,
        8, 13, 15, 12, 9, 0, 3, 5, 6, 11,
    ],
];

/// Bit `n` (from 1, most significant first) of a `width`-bit value moved
/// to each output position as `table` says.
fn permute(input: u64, width: u32, table: &[u8]) -> u64 {
    let out_width = table.len() as u32;
    table.iter().enumerate().fold(0u64, |acc, (i, &from)| {
        let bit = (input >> (width - from as u32)) & 1;
        acc | bit << (out_width - 1 - i as u32)
    })
}

/// The round function with a zero key: P(S(E(r))).
fn feistel(r: u32) -> u32 {
    let expanded = permute(r as u64, 32, &E);
    let mut out = 0u32;
    for (i, sbox) in S.iter().enumerate() {
        let six = ((expanded >> (42 - 6 * i)) & 0x3f) as usize;
        let row = (six >> 4 & 2) | (six & 1);
        let col = (six >> 1) & 0xf;
        out = out << 4 | sbox[row * 16 + col] as u32;
    }
    permute(out as u64, 32, &P) as u32
}

/// Encrypts or decrypts one 8-byte block in place (the two are the same).
pub fn crypt_block(block: &mut [u8]) {
    let Ok(bytes) = <[u8; 8]>::try_from(&block[..8.min(block.len())]) else {
        return;
    };
    let x = permute(u64::from_be_bytes(bytes), 64, &IP);
    let (l, r) = ((x >> 32) as u32, x as u32);
    let y = ((l ^ feistel(r)) as u64) << 32 | r as u64;
    block[..8].copy_from_slice(&permute(y, 64, &FP).to_be_bytes());
}

/// The byte substitution of shuffled blocks: seven swapped pairs.
fn substitute(b: u8) -> u8 {
    const PAIRS: [(u8, u8); 7] = [
        (0x00, 0x2b),
        (0x6c, 0x80),
        (0x01, 0x68),
        (0x48, 0x77),
        (0x60, 0xff),
        (0xb9, 0xc0),
        (0xfe, 0xeb),
    ];
    for (a, c) in PAIRS {
        if b == a {
            return c;
        }
        if b == c {
            return a;
        }
    }
    b
}

fn unshuffle(b: &mut [u8]) {
    let i: [u8; 8] = [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
    b[..8].copy_from_slice(&[i[3], i[4], i[6], i[0], i[1], i[2], i[5], substitute(i[7])]);
}

fn shuffle(b: &mut [u8]) {
    let i: [u8; 8] = [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
    b[..8].copy_from_slice(&[i[3], i[4], i[5], i[0], i[1], i[6], i[2], substitute(i[7])]);
}

/// Every how many blocks a mixed entry DES-encrypts one, from the number
/// of decimal digits of its compressed size.
pub fn cycle(compressed_size: u64) -> usize {
    let digits = compressed_size.max(1).ilog10() as usize + 1;
    match digits {
        0..=2 => 1,
        3..=4 => digits + 1,
        5..=6 => digits + 9,
        _ => digits + 15,
    }
}

/// What happens to each block of a mixed entry.
fn mixed(data: &mut [u8], compressed_size: u64, decrypting: bool) {
    let cycle = cycle(compressed_size);
    let mut others = 0usize;
    for (i, block) in data.chunks_exact_mut(8).enumerate() {
        if i < 20 || i % cycle == 0 {
            crypt_block(block);
            continue;
        }
        // Of the blocks after the first 20 that are not DES-encrypted, the
        // 8th, 15th, 22nd, … (counting from 1) are shuffled.
        if others > 0 && others.is_multiple_of(7) {
            if decrypting {
                unshuffle(block);
            } else {
                shuffle(block);
            }
        }
        others += 1;
    }
}

/// Decrypts a "mixed" entry in place (whole blocks only).
pub fn decrypt_mixed(data: &mut [u8], compressed_size: u64) {
    mixed(data, compressed_size, true);
}

/// Encrypts an entry as "mixed" (the inverse of [`decrypt_mixed`]).
pub fn encrypt_mixed(data: &mut [u8], compressed_size: u64) {
    mixed(data, compressed_size, false);
}

/// Decrypts (or encrypts) the first 20 blocks.
pub fn crypt_header(data: &mut [u8]) {
    for block in data.chunks_exact_mut(8).take(20) {
        crypt_block(block);
    }
}

/// A 0x102/0x103 entry name as stored → its bytes: nibbles swapped, then
/// whole blocks decrypted; cut at the first NUL.
pub fn decode_name(stored: &[u8]) -> Vec<u8> {
    let mut b: Vec<u8> = stored.iter().map(|&x| x.rotate_left(4)).collect();
    for block in b.chunks_exact_mut(8) {
        crypt_block(block);
    }
    let end = b.iter().position(|&x| x == 0).unwrap_or(b.len());
    b.truncate(end);
    b
}

/// The stored form of a 0x102/0x103 name: NUL-terminated, padded with
/// NULs to whole blocks, encrypted, nibbles swapped.
pub fn encode_name(name: &[u8]) -> Vec<u8> {
    let mut b = name.to_vec();
    b.push(0);
    b.resize(b.len().div_ceil(8) * 8, 0);
    for block in b.chunks_exact_mut(8) {
        crypt_block(block);
    }
    b.iter().map(|&x| x.rotate_left(4)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_round_is_its_own_inverse_and_changes_the_block() {
        for seed in 0..64u64 {
            let plain = (seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)).to_le_bytes();
            let mut b = plain;
            crypt_block(&mut b);
            assert_ne!(b, plain);
            crypt_block(&mut b);
            assert_eq!(b, plain);
        }
    }

    #[test]
    fn shuffling_and_mixed_mode_round_trip() {
        let mut b = [1u8, 2, 3, 4, 5, 6, 7, 0x2b];
        shuffle(&mut b);
        unshuffle(&mut b);
        assert_eq!(b, [1, 2, 3, 4, 5, 6, 7, 0x2b]);
        let plain: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 251) as u8).collect();
        for size in [50u64, 361, 4096, 123_456, 10_000_000] {
            let mut d = plain.clone();
            encrypt_mixed(&mut d, size);
            assert_ne!(d, plain);
            decrypt_mixed(&mut d, size);
            assert_eq!(d, plain, "{size}");
        }
        assert_eq!(
            [1, 99, 100, 9999, 10_000, 999_999, 1_000_000, 123_456_789].map(cycle),
            [1, 1, 4, 5, 14, 15, 22, 24]
        );
    }

    #[test]
    fn names_round_trip() {
        for name in [
            &b"data\\a.bmp"[..],
            b"",
            b"exactly8",
            b"data\\texture\\\xc0\xaf\xc0\xfa.bmp",
        ] {
            let stored = encode_name(name);
            assert_eq!(stored.len() % 8, 0);
            assert_eq!(decode_name(&stored), name);
        }
    }
}
