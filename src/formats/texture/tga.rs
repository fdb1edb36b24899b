//! Truevision TGA: colour-mapped (1/9), truecolour (2/10) and grayscale
//! (3/11), raw or run-length encoded, either origin.
//!
//! 32-bit (and 16-bit with an attribute bit) texels carry straight alpha,
//! which is premultiplied. A declared alpha channel that is 0 everywhere is
//! treated as absent (writers that leave it unset), as for BMP.

use super::{check_dimensions, texel_buffer};
use crate::error::ParseError;
use crate::formats::reader::{Reader, Writer};
use crate::memory::Allowance;
use crate::texture::{finish, Texture};
use std::path::Path;

const HEADER: usize = 18;
/// Largest run a packet can describe.
const MAX_PACKET: usize = 128;

/// Whether the first 18 bytes are a plausible TGA header. TGA has no magic,
/// so this is only called once BMP and PNG have been ruled out.
pub(crate) fn looks_like_tga(data: &[u8]) -> bool {
    if data.len() < HEADER {
        return false;
    }
    let cmap_type = data[1];
    let image_type = data[2];
    let w = u16::from_le_bytes([data[12], data[13]]);
    let h = u16::from_le_bytes([data[14], data[15]]);
    let bpp = data[16];
    let cmap_ok = match image_type {
        1 | 9 => cmap_type == 1,
        2 | 3 | 10 | 11 => cmap_type <= 1,
        _ => false,
    };
    cmap_ok && w > 0 && h > 0 && matches!(bpp, 8 | 15 | 16 | 24 | 32)
}

struct Header {
    cmap_len: u16,
    cmap_bits: u8,
    alpha_bits: u8,
    right_to_left: bool,
    top_to_bottom: bool,
}

pub(crate) fn decode(data: &[u8], file: &Path, memory: &Allowance) -> Result<Texture, ParseError> {
    let mut r = Reader::new(data, file);
    let id_len = r.u8("header.id_length")? as usize;
    let cmap_type = r.u8("header.color_map_type")?;
    let image_type = r.u8("header.image_type")?;
    let cmap_first = r.u16("header.color_map_first")?;
    let cmap_len = r.u16("header.color_map_length")?;
    let cmap_bits = r.u8("header.color_map_entry_size")?;
    r.u16("header.x_origin")?;
    r.u16("header.y_origin")?;
    let width = r.u16("header.width")? as usize;
    let height = r.u16("header.height")? as usize;
    let bpp = r.u8("header.pixel_depth")?;
    let descriptor = r.u8("header.image_descriptor")?;
    let h = Header {
        cmap_len,
        cmap_bits,
        alpha_bits: descriptor & 0x0f,
        right_to_left: descriptor & 0x10 != 0,
        top_to_bottom: descriptor & 0x20 != 0,
    };
    check_dimensions(file, 12, width as u64, height as u64)?;

    let kind = image_type & !8;
    let depth_ok = match kind {
        1 => matches!(bpp, 8 | 16),
        2 => matches!(bpp, 15 | 16 | 24 | 32),
        3 => matches!(bpp, 8 | 16),
        _ => {
            return Err(r.error_at(
                2,
                "header.image_type",
                format!("unsupported TGA image type {image_type}"),
            ))
        }
    };
    if !depth_ok {
        return Err(r.error_at(
            16,
            "header.pixel_depth",
            format!("{bpp}-bit pixels in a type {image_type} TGA are not supported"),
        ));
    }
    if cmap_type > 1 || (kind == 1 && cmap_type != 1) {
        return Err(r.error_at(
            1,
            "header.color_map_type",
            format!("colour map type {cmap_type} for image type {image_type}"),
        ));
    }

    r.skip(id_len, "image_id")?;
    let palette = if cmap_type == 1 {
        read_palette(&mut r, &h)?
    } else {
        Vec::new()
    };

    let bytes_pp = (bpp as usize).div_ceil(8);
    let count = width * height;
    let pixels_at = r.pos();
    // Raw data must hold every pixel; RLE data needs at least one packet
    // (1 + one pixel) per 128 pixels. Either bound caps the allocation by the
    // bytes actually present.
    let min_bytes = if image_type & 8 == 0 {
        count as u64 * bytes_pp as u64
    } else {
        count.div_ceil(MAX_PACKET) as u64 * (1 + bytes_pp) as u64
    };
    if min_bytes > r.remaining() as u64 {
        return Err(r.error(
            "pixels",
            format!(
                "{width}×{height} at {bpp} bits needs at least {min_bytes} bytes but only {} are left",
                r.remaining()
            ),
        ));
    }

    // Each texel goes straight to its place (row 0 at the top, column 0 at
    // the left): one image-sized buffer, however the file is stored.
    let (mut texels, held) = texel_buffer(file, 12, width as u32, height as u32, memory)?;
    texels.push([0; 4]);
    fill_rest(&mut texels, count);
    let place = |i: usize| {
        let (sx, sy) = (i % width, i / width);
        let y = if h.top_to_bottom { sy } else { height - 1 - sy };
        let x = if h.right_to_left { width - 1 - sx } else { sx };
        y * width + x
    };
    let convert = |i: usize, v: u32| -> Result<[u8; 4], ParseError> {
        Ok(match kind {
            1 => {
                let index = (v as usize).wrapping_sub(cmap_first as usize);
                match palette.get(index) {
                    Some(&c) => c,
                    None => {
                        return Err(r.error_at(
                            if image_type & 8 == 0 {
                                pixels_at + i * bytes_pp
                            } else {
                                pixels_at
                            },
                            &format!("pixels[{i}]"),
                            format!(
                                "colour index {v} outside the colour map ({} entries from {cmap_first})",
                                palette.len()
                            ),
                        ))
                    }
                }
            }
            2 => colour(v, bpp, h.alpha_bits),
            _ => {
                let g = v as u8;
                let a = if bpp == 16 { (v >> 8) as u8 } else { 255 };
                [g, g, g, a]
            }
        })
    };
    let mut r2 = Reader::new(data, file);
    r2.seek(pixels_at, "pixels")?;
    if image_type & 8 == 0 {
        let b = r2.bytes(count * bytes_pp, "pixels")?;
        for (i, p) in b.chunks_exact(bytes_pp).enumerate() {
            texels[place(i)] = convert(i, pixel_value(p))?;
        }
    } else {
        let mut done = 0;
        while done < count {
            let packet_at = r2.pos();
            let head = r2.u8("pixels.packet")?;
            let n = (head & 0x7f) as usize + 1;
            if done + n > count {
                return Err(r2.error_at(
                    packet_at,
                    "pixels.packet",
                    format!("packet of {n} pixels overruns the image ({done} of {count} decoded)"),
                ));
            }
            if head & 0x80 != 0 {
                let t = convert(done, pixel_value(r2.bytes(bytes_pp, "pixels.packet")?))?;
                // A run is filled a row's stretch at a time, not texel by
                // texel: a 16384² texture is mostly runs.
                let mut i = done;
                while i < done + n {
                    let (sx, sy) = (i % width, i / width);
                    let len = (width - sx).min(done + n - i);
                    let y = if h.top_to_bottom { sy } else { height - 1 - sy };
                    let x = if h.right_to_left {
                        width - sx - len
                    } else {
                        sx
                    };
                    fill(&mut texels[y * width + x..][..len], t);
                    i += len;
                }
            } else {
                let b = r2.bytes(n * bytes_pp, "pixels.packet")?;
                for (k, p) in b.chunks_exact(bytes_pp).enumerate() {
                    texels[place(done + k)] = convert(done + k, pixel_value(p))?;
                }
            }
            done += n;
        }
    }

    let has_alpha = match kind {
        1 => cmap_bits == 32 || (cmap_bits == 16 && h.alpha_bits > 0),
        2 => bpp == 32 || (bpp == 16 && h.alpha_bits > 0),
        _ => bpp == 16,
    };
    if has_alpha && texels.iter().all(|t| t[3] == 0) {
        for t in &mut texels {
            t[3] = 255;
        }
    }
    held.keep();
    Ok(finish(file, width as u32, height as u32, texels))
}

/// Sets every texel of `span` to `t` with a doubling number of block
/// copies, which stays fast in an unoptimised build (a build script's).
fn fill(span: &mut [[u8; 4]], t: [u8; 4]) {
    let Some(first) = span.first_mut() else {
        return;
    };
    *first = t;
    let mut filled = 1;
    while filled < span.len() {
        let k = filled.min(span.len() - filled);
        span.copy_within(..k, filled);
        filled += k;
    }
}

/// Grows `texels` (holding at least one texel, with the capacity
/// reserved) to `count` copies of its first texel, the same way.
fn fill_rest(texels: &mut Vec<[u8; 4]>, count: usize) {
    while texels.len() < count {
        let k = texels.len().min(count - texels.len());
        texels.extend_from_within(..k);
    }
}

fn read_palette(r: &mut Reader, h: &Header) -> Result<Vec<[u8; 4]>, ParseError> {
    let at = r.pos();
    let entry = match h.cmap_bits {
        15 | 16 => 2,
        24 => 3,
        32 => 4,
        bits => {
            return Err(r.error_at(
                5,
                "header.color_map_entry_size",
                format!("unsupported colour map entry size {bits}"),
            ))
        }
    };
    let n = r.check_count(at, "color_map", h.cmap_len as u64, entry)?;
    let b = r.bytes(n * entry, "color_map")?;
    Ok(b.chunks_exact(entry)
        .map(|e| colour(pixel_value(e), h.cmap_bits, h.alpha_bits))
        .collect())
}

fn pixel_value(b: &[u8]) -> u32 {
    b.iter()
        .rev()
        .fold(0u32, |acc, &byte| (acc << 8) | byte as u32)
}

/// A little-endian BGR(A) value (or 5-5-5 + attribute bit) → straight RGBA.
fn colour(v: u32, bits: u8, alpha_bits: u8) -> [u8; 4] {
    match bits {
        15 | 16 => {
            let c5 = |s: u32| (((v >> s) & 31) * 255 / 31) as u8;
            let a = if bits == 16 && alpha_bits > 0 && v & 0x8000 == 0 {
                0
            } else {
                255
            };
            [c5(10), c5(5), c5(0), a]
        }
        24 => [(v >> 16) as u8, (v >> 8) as u8, v as u8, 255],
        _ => [(v >> 16) as u8, (v >> 8) as u8, v as u8, (v >> 24) as u8],
    }
}

/// Writes a 32-bit TGA (type 2, or type 10 with `rle`), top-left origin, from
/// `width × height` straight-alpha RGBA texels, row 0 = top.
///
/// # Panics
/// If `rgba.len() != width × height` or a dimension exceeds 65535.
pub fn encode_tga32(width: u32, height: u32, rgba: &[[u8; 4]], rle: bool) -> Vec<u8> {
    assert_eq!(rgba.len(), width as usize * height as usize, "texels");
    assert!(width <= u16::MAX as u32 && height <= u16::MAX as u32);
    let mut w = Writer::new();
    w.u8(0)
        .u8(0)
        .u8(if rle { 10 } else { 2 })
        .u16(0)
        .u16(0)
        .u8(0)
        .u16(0)
        .u16(0)
        .u16(width as u16)
        .u16(height as u16)
        .u8(32)
        .u8(0x28);
    let bgra = |p: &[u8; 4]| [p[2], p[1], p[0], p[3]];
    if !rle {
        for p in rgba {
            w.bytes(&bgra(p));
        }
        return w.into_bytes();
    }
    // Packets stay within a row, as TGA 2.0 asks.
    for row in rgba.chunks_exact(width.max(1) as usize) {
        let mut i = 0;
        while i < row.len() {
            let run = row[i..]
                .iter()
                .take(MAX_PACKET)
                .take_while(|p| **p == row[i])
                .count();
            if run >= 2 {
                w.u8(0x80 | (run - 1) as u8).bytes(&bgra(&row[i]));
                i += run;
                continue;
            }
            // A raw packet runs until two equal neighbours start a run.
            let mut n = 1;
            while i + n < row.len() && n < MAX_PACKET && row.get(i + n + 1) != Some(&row[i + n]) {
                n += 1;
            }
            w.u8((n - 1) as u8);
            for p in &row[i..i + n] {
                w.bytes(&bgra(p));
            }
            i += n;
        }
    }
    w.into_bytes()
}
