//! Windows BMP: 1/4/8-bit palettized, 16/24/32-bit, BI_RGB and BI_BITFIELDS,
//! bottom-up and top-down, with the Ragnarok magenta colour key.
//!
//! 32-bit alpha: the 4th byte is used only when the header declares an alpha
//! mask (BI_BITFIELDS with a V4/V5 header, or BI_ALPHABITFIELDS). For BI_RGB
//! the byte is "reserved" by the format, and Ragnarok-era tools leave 0 or
//! garbage there, so honouring it would erase whole textures. Korangar's
//! `missing.bmp` is a V5 BI_BITFIELDS file with mask 0xff000000 whose alpha is
//! real (255 on the pattern, 0 on white), so it is honoured. A declared alpha
//! channel that is 0 everywhere is also treated as absent: that is the usual
//! writer bug, and nobody ships an invisible texture on purpose.

use super::{check_dimensions, parse_error, texel_buffer};
use crate::error::ParseError;
use crate::formats::reader::{Reader, Writer};
use crate::memory::Allowance;
use crate::texture::{apply_color_key, finish, Texture, TextureAlpha};
use std::path::Path;

const BI_RGB: u32 = 0;
const BI_BITFIELDS: u32 = 3;
const BI_ALPHABITFIELDS: u32 = 6;
const FILE_HEADER: usize = 14;

#[derive(Clone, Copy)]
struct Masks {
    r: u32,
    g: u32,
    b: u32,
    a: u32,
}

#[cfg(test)]
pub(crate) fn decode(data: &[u8], file: &Path) -> Result<Texture, ParseError> {
    decode_keyed(data, file, true, &Allowance::default())
}

/// Decodes, applying the colour key only when `key` is set.
pub(crate) fn decode_keyed(
    data: &[u8],
    file: &Path,
    key: bool,
    memory: &Allowance,
) -> Result<Texture, ParseError> {
    let mut r = Reader::new(data, file);
    if r.bytes(2, "file_header.magic")? != b"BM" {
        return Err(r.error_at(0, "file_header.magic", "not a BMP file (no \"BM\")"));
    }
    r.u32("file_header.size")?;
    r.u32("file_header.reserved")?;
    let pixel_offset_at = r.pos();
    let pixel_offset = r.u32("file_header.pixel_offset")? as usize;

    let info_at = r.pos();
    let info_size = r.u32("info_header.size")? as usize;
    let width: i64;
    let height: i64;
    let bpp: u16;
    let bpp_at;
    let mut compression = BI_RGB;
    let mut compression_at = 0;
    let mut colors_used = 0u32;
    let mut colors_used_at = 0;
    let mut declared_masks: Option<Masks> = None;
    let palette_entry: usize;
    if info_size == 12 {
        // BITMAPCOREHEADER (OS/2 1.x): unsigned 16-bit sizes, 3-byte palette.
        width = r.u16("info_header.width")? as i64;
        height = r.u16("info_header.height")? as i64;
        r.u16("info_header.planes")?;
        bpp_at = r.pos();
        bpp = r.u16("info_header.bit_count")?;
        palette_entry = 3;
    } else if info_size >= 40 {
        width = r.i32("info_header.width")? as i64;
        height = r.i32("info_header.height")? as i64;
        r.u16("info_header.planes")?;
        bpp_at = r.pos();
        bpp = r.u16("info_header.bit_count")?;
        compression_at = r.pos();
        compression = r.u32("info_header.compression")?;
        r.u32("info_header.image_size")?;
        r.i32("info_header.x_pels_per_meter")?;
        r.i32("info_header.y_pels_per_meter")?;
        colors_used_at = r.pos();
        colors_used = r.u32("info_header.colors_used")?;
        r.u32("info_header.colors_important")?;
        let uses_masks = compression == BI_BITFIELDS || compression == BI_ALPHABITFIELDS;
        if info_size >= 52 {
            let mr = r.u32("info_header.red_mask")?;
            let mg = r.u32("info_header.green_mask")?;
            let mb = r.u32("info_header.blue_mask")?;
            let ma = if info_size >= 56 {
                r.u32("info_header.alpha_mask")?
            } else {
                0
            };
            if uses_masks {
                declared_masks = Some(Masks {
                    r: mr,
                    g: mg,
                    b: mb,
                    a: ma,
                });
            }
        }
        r.seek(info_at + info_size, "info_header")?;
        if uses_masks && info_size < 52 {
            // BITMAPINFOHEADER keeps the masks right after the header.
            let mr = r.u32("bitfields.red_mask")?;
            let mg = r.u32("bitfields.green_mask")?;
            let mb = r.u32("bitfields.blue_mask")?;
            let ma = if compression == BI_ALPHABITFIELDS {
                r.u32("bitfields.alpha_mask")?
            } else {
                0
            };
            declared_masks = Some(Masks {
                r: mr,
                g: mg,
                b: mb,
                a: ma,
            });
        }
        palette_entry = 4;
    } else {
        return Err(r.error_at(
            info_at,
            "info_header.size",
            format!("unknown BMP info header size {info_size}"),
        ));
    }

    let dims_at = info_at + 4;
    if width <= 0 {
        return Err(parse_error(
            file,
            "info_header.width",
            dims_at,
            format!("width {width} is not positive"),
        ));
    }
    let top_down = height < 0;
    let height = height.unsigned_abs();
    check_dimensions(file, dims_at, width as u64, height)?;
    let (width, height) = (width as usize, height as usize);

    match compression {
        BI_RGB => {}
        BI_BITFIELDS | BI_ALPHABITFIELDS if bpp == 16 || bpp == 32 => {}
        1 | 2 => {
            return Err(parse_error(
                file,
                "info_header.compression",
                compression_at,
                "run-length encoded BMPs (BI_RLE8/BI_RLE4) are not supported",
            ))
        }
        c => {
            return Err(parse_error(
                file,
                "info_header.compression",
                compression_at,
                format!("unsupported compression {c} for a {bpp}-bit BMP"),
            ))
        }
    }

    let palette = match bpp {
        1 | 4 | 8 => {
            let max = 1usize << bpp;
            let n = if colors_used == 0 {
                max
            } else {
                colors_used as usize
            };
            if n > max {
                return Err(parse_error(
                    file,
                    "info_header.colors_used",
                    colors_used_at,
                    format!("{n} palette colours for a {bpp}-bit image (at most {max})"),
                ));
            }
            let at = r.pos();
            let n = r.check_count(at, "palette", n as u64, palette_entry)?;
            let mut pal = Vec::with_capacity(n);
            for _ in 0..n {
                let e = r.bytes(palette_entry, "palette")?;
                pal.push([e[2], e[1], e[0]]);
            }
            pal
        }
        16 | 24 | 32 => Vec::new(),
        _ => {
            return Err(parse_error(
                file,
                "info_header.bit_count",
                bpp_at,
                format!("unsupported bit depth {bpp}"),
            ))
        }
    };

    let masks = declared_masks.unwrap_or(match bpp {
        16 => Masks {
            r: 0x7c00,
            g: 0x03e0,
            b: 0x001f,
            a: 0,
        },
        _ => Masks {
            r: 0x00ff_0000,
            g: 0x0000_ff00,
            b: 0x0000_00ff,
            a: 0,
        },
    });

    if pixel_offset > data.len() {
        return Err(parse_error(
            file,
            "file_header.pixel_offset",
            pixel_offset_at,
            format!(
                "pixel data offset {pixel_offset} is past the end of the file ({} bytes)",
                data.len()
            ),
        ));
    }
    let bits = bpp as u64;
    let row_bytes = (width as u64 * bits).div_ceil(8);
    let stride = (width as u64 * bits).div_ceil(32) * 4;
    // Some writers drop the padding of the last row; accept that.
    let need = stride * (height as u64 - 1) + row_bytes;
    let have = (data.len() - pixel_offset) as u64;
    if need > have {
        return Err(parse_error(
            file,
            "pixels",
            pixel_offset,
            format!(
                "{width}×{height} at {bpp} bits needs {need} bytes of pixels but only {have} are left"
            ),
        ));
    }
    let (row_bytes, stride) = (row_bytes as usize, stride as usize);
    let pixels = &data[pixel_offset..];

    let (mut texels, held) = texel_buffer(file, dims_at, width as u32, height as u32, memory)?;
    for y in 0..height {
        let src_row = if top_down { y } else { height - 1 - y };
        let row_at = src_row * stride;
        let row = &pixels[row_at..row_at + row_bytes];
        match bpp {
            1 | 4 | 8 => {
                let per_byte = 8 / bpp as usize;
                for x in 0..width {
                    let byte = row[x / per_byte];
                    let shift = 8 - bpp as usize * (x % per_byte + 1);
                    let index = ((byte >> shift) & ((1u16 << bpp) - 1) as u8) as usize;
                    let Some(&[cr, cg, cb]) = palette.get(index) else {
                        return Err(parse_error(
                            file,
                            &format!("pixels[{x},{src_row}]"),
                            pixel_offset + row_at + x / per_byte,
                            format!(
                                "palette index {index} but the palette has {} colours",
                                palette.len()
                            ),
                        ));
                    };
                    texels.push([cr, cg, cb, 255]);
                }
            }
            24 => {
                for p in row.chunks_exact(3) {
                    texels.push([p[2], p[1], p[0], 255]);
                }
            }
            16 => {
                for p in row.chunks_exact(2) {
                    texels.push(from_masks(u16::from_le_bytes([p[0], p[1]]) as u32, masks));
                }
            }
            _ => {
                for p in row.chunks_exact(4) {
                    texels.push(from_masks(
                        u32::from_le_bytes([p[0], p[1], p[2], p[3]]),
                        masks,
                    ));
                }
            }
        }
    }

    if masks.a != 0 && texels.iter().all(|t| t[3] == 0) {
        for t in &mut texels {
            t[3] = 255;
        }
    }
    let opaque = texels.iter().all(|t| t[3] == 255);
    let keyed = key && apply_color_key(&mut texels, width);
    held.keep();
    let mut texture = finish(file, width as u32, height as u32, texels);
    if keyed && opaque {
        // Un-blended soft edges are partly transparent, but the texture is
        // still cut out (alpha-tested), not blended.
        texture.alpha = TextureAlpha::ColorKey;
    }
    Ok(texture)
}

fn from_masks(px: u32, m: Masks) -> [u8; 4] {
    let a = if m.a == 0 { 255 } else { channel(px, m.a) };
    [channel(px, m.r), channel(px, m.g), channel(px, m.b), a]
}

/// Extracts a channel and scales it to 0..=255 whatever its bit width.
fn channel(px: u32, mask: u32) -> u8 {
    if mask == 0 {
        return 0;
    }
    let shift = mask.trailing_zeros();
    let max = (mask >> shift) as u64;
    let v = ((px & mask) >> shift) as u64;
    ((v * 255 + max / 2) / max) as u8
}

fn file_and_info_header(w: &mut Writer, width: u32, height: u32, bpp: u16, palette: usize) {
    let stride = (width as usize * bpp as usize).div_ceil(32) * 4;
    let image = stride * height as usize;
    let offset = FILE_HEADER + 40 + palette * 4;
    w.bytes(b"BM")
        .u32((offset + image) as u32)
        .u32(0)
        .u32(offset as u32);
    w.u32(40)
        .i32(width as i32)
        .i32(height as i32)
        .u16(1)
        .u16(bpp)
        .u32(BI_RGB)
        .u32(image as u32)
        .i32(2835)
        .i32(2835)
        .u32(palette as u32)
        .u32(0);
}

/// Writes an 8-bit palettized, bottom-up BMP. `indices` holds `width × height`
/// palette indices, row 0 = top. Indices past the palette are written as
/// given (tests use that to build broken files).
///
/// # Panics
/// If `indices.len() != width × height`, the palette is empty or has more
/// than 256 colours, or a dimension exceeds `i32::MAX`.
pub fn encode_bmp8(width: u32, height: u32, palette: &[[u8; 3]], indices: &[u8]) -> Vec<u8> {
    assert_eq!(indices.len(), width as usize * height as usize, "indices");
    assert!(
        (1..=256).contains(&palette.len()),
        "palette of {} colours",
        palette.len()
    );
    assert!(width <= i32::MAX as u32 && height <= i32::MAX as u32);
    let mut w = Writer::new();
    file_and_info_header(&mut w, width, height, 8, palette.len());
    for &[r, g, b] in palette {
        w.bytes(&[b, g, r, 0]);
    }
    let pad = (4 - width as usize % 4) % 4;
    for row in indices.chunks_exact(width.max(1) as usize).rev() {
        w.bytes(row).bytes(&[0u8; 3][..pad]);
    }
    w.into_bytes()
}

/// Writes a 24-bit bottom-up BMP from `width × height` RGB texels, row 0 = top.
///
/// # Panics
/// If `rgb.len() != width × height` or a dimension exceeds `i32::MAX`.
pub fn encode_bmp24(width: u32, height: u32, rgb: &[[u8; 3]]) -> Vec<u8> {
    assert_eq!(rgb.len(), width as usize * height as usize, "texels");
    assert!(width <= i32::MAX as u32 && height <= i32::MAX as u32);
    let mut w = Writer::new();
    file_and_info_header(&mut w, width, height, 24, 0);
    let pad = (4 - (width as usize * 3) % 4) % 4;
    for row in rgb.chunks_exact(width.max(1) as usize).rev() {
        for &[r, g, b] in row {
            w.bytes(&[b, g, r]);
        }
        w.bytes(&[0u8; 3][..pad]);
    }
    w.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::TextureAlpha;

    fn name() -> &'static Path {
        Path::new("t.bmp")
    }

    #[test]
    fn bmp24_round_trip_with_padding_and_key() {
        // Width 3 → 9 bytes per row, padded to 12.
        let rgb = [
            [1, 2, 3],
            [255, 0, 255],
            [7, 8, 9],
            [10, 20, 30],
            [40, 50, 60],
            [248, 7, 248],
        ];
        let bytes = encode_bmp24(3, 2, &rgb);
        assert_eq!(bytes.len(), 54 + 2 * 12);
        let t = decode(&bytes, name()).unwrap();
        assert_eq!((t.width, t.height), (3, 2));
        assert_eq!(
            t.texels,
            vec![
                [1, 2, 3, 255],
                [0, 0, 0, 0],
                [7, 8, 9, 255],
                [10, 20, 30, 255],
                [40, 50, 60, 255],
                [0, 0, 0, 0],
            ]
        );
        assert_eq!(t.alpha, TextureAlpha::ColorKey);
        assert_eq!(t.name, "t.bmp");
    }

    #[test]
    fn bmp8_round_trip() {
        let pal = [[10, 20, 30], [255, 0, 255], [200, 100, 0]];
        let idx = [0, 1, 2, 2, 1, 0, 0, 0, 2, 2];
        let bytes = encode_bmp8(5, 2, &pal, &idx);
        assert_eq!(bytes.len(), 54 + 3 * 4 + 2 * 8);
        let t = decode(&bytes, name()).unwrap();
        let want: Vec<[u8; 4]> = idx
            .iter()
            .map(|&i| match i {
                1 => [0, 0, 0, 0],
                i => {
                    let [r, g, b] = pal[i as usize];
                    [r, g, b, 255]
                }
            })
            .collect();
        assert_eq!(t.texels, want);
        assert_eq!(t.alpha, TextureAlpha::ColorKey);
    }

    #[test]
    fn opaque_without_key() {
        let t = decode(&encode_bmp24(1, 1, &[[223, 0, 255]]), name()).unwrap();
        assert_eq!(t.texels, vec![[223, 0, 255, 255]]);
        assert_eq!(t.alpha, TextureAlpha::Opaque);
    }

    #[test]
    fn near_magenta_texels_around_a_cut_out_are_keyed() {
        // A leaf's edge as a real client texture holds it: pure magenta,
        // magenta that resampling moved, and the leaf's own greens and a
        // pink blossom that must stay.
        let px = [
            [255, 0, 255],
            [248, 1, 247],
            [233, 2, 232],
            [225, 5, 224],
            [40, 120, 30],
            [255, 105, 180],
        ];
        let t = decode(&encode_bmp24(6, 1, &px), name()).unwrap();
        let clear: Vec<bool> = t.texels.iter().map(|p| p[3] == 0).collect();
        assert_eq!(clear, [true, true, true, true, false, false]);
        assert!(t.texels[..4].iter().all(|p| *p == [0, 0, 0, 0]));
        assert_eq!(t.alpha, TextureAlpha::ColorKey);
    }

    #[test]
    fn soft_edges_beside_the_key_are_unblended() {
        // Texels a held-out tree holds where its leaves were softened
        // against the key, either side of it, then a leaf green, a blossom
        // pink and, four texels from the key, an orchid the art means.
        let px = [
            [225, 5, 222],
            [237, 28, 216],
            [255, 0, 255],
            [238, 32, 228],
            [40, 120, 30],
            [255, 105, 180],
            [200, 0, 200],
        ];
        let t = decode(&encode_bmp24(7, 1, &px), name()).unwrap();
        assert_eq!(t.texels[2], [0, 0, 0, 0]);
        for i in [0, 1, 3] {
            let p = t.texels[i];
            assert!(p[3] > 0 && p[3] < 128, "texel {i} alpha {}", p[3]);
            // Straight colour, premultiplied back out: nowhere near magenta.
            let s = |c: u8| (c as u32 * 255 / p[3] as u32).min(255);
            let (r, g, b) = (s(p[0]), s(p[1]), s(p[2]));
            assert!(
                !(r >= 200 && g <= 60 && b >= 200),
                "texel {i} is ({r},{g},{b})"
            );
        }
        assert_eq!(t.texels[4], [40, 120, 30, 255]);
        assert_eq!(t.texels[5], [255, 105, 180, 255]);
        assert_eq!(t.texels[6], [200, 0, 200, 255]);
        assert_eq!(t.alpha, TextureAlpha::ColorKey);
    }

    /// Hand-built 32-bit file: header size, compression, masks and height sign vary.
    fn bmp32(
        info_size: u32,
        compression: u32,
        alpha_mask: u32,
        height: i32,
        px: &[[u8; 4]],
    ) -> Vec<u8> {
        let mut w = Writer::new();
        let extra = if info_size == 40 && compression == BI_BITFIELDS {
            12
        } else {
            0
        };
        let offset = 14 + info_size + extra;
        w.bytes(b"BM").u32(0).u32(0).u32(offset);
        w.u32(info_size)
            .i32(px.len() as i32 / height.abs())
            .i32(height)
            .u16(1)
            .u16(32)
            .u32(compression)
            .u32(0)
            .i32(0)
            .i32(0)
            .u32(0)
            .u32(0);
        if info_size >= 56 {
            w.u32(0x00ff_0000).u32(0xff00).u32(0xff).u32(alpha_mask);
            w.bytes(&vec![0u8; info_size as usize - 56]);
        }
        if extra != 0 {
            w.u32(0x00ff_0000).u32(0xff00).u32(0xff);
        }
        for p in px {
            w.bytes(p);
        }
        w.into_bytes()
    }

    #[test]
    fn bmp32_bi_rgb_ignores_the_fourth_byte() {
        // Stored B, G, R, X. Bottom-up: the first stored row is the bottom one.
        let px = [[3, 2, 1, 0], [6, 5, 4, 17]];
        let t = decode(&bmp32(40, BI_RGB, 0, 2, &px), name()).unwrap();
        assert_eq!(t.texels, vec![[4, 5, 6, 255], [1, 2, 3, 255]]);
        assert_eq!(t.alpha, TextureAlpha::Opaque);
    }

    #[test]
    fn bmp32_v5_bitfields_alpha_is_used_and_top_down_is_honoured() {
        let px = [[0, 0, 200, 255], [255, 255, 255, 0], [100, 100, 100, 128]];
        let t = decode(&bmp32(124, BI_BITFIELDS, 0xff00_0000, -3, &px), name()).unwrap();
        assert_eq!(
            t.texels,
            vec![[200, 0, 0, 255], [0, 0, 0, 0], [50, 50, 50, 128]]
        );
        assert_eq!(t.alpha, TextureAlpha::Translucent);
    }

    #[test]
    fn bmp32_declared_alpha_all_zero_means_opaque() {
        let px = [[9, 8, 7, 0], [1, 2, 3, 0]];
        let t = decode(&bmp32(108, BI_BITFIELDS, 0xff00_0000, 1, &px), name()).unwrap();
        assert_eq!(t.texels, vec![[7, 8, 9, 255], [3, 2, 1, 255]]);
        assert_eq!(t.alpha, TextureAlpha::Opaque);
    }

    #[test]
    fn bmp32_info_header_with_trailing_bitfields() {
        let px = [[0, 0, 255, 0]];
        let t = decode(&bmp32(40, BI_BITFIELDS, 0, 1, &px), name()).unwrap();
        assert_eq!(t.texels, vec![[255, 0, 0, 255]]);
    }

    #[test]
    fn sixteen_bit_555_scales_to_8_bits() {
        let mut w = Writer::new();
        w.bytes(b"BM").u32(0).u32(0).u32(54);
        w.u32(40).i32(2).i32(1).u16(1).u16(16).u32(0).u32(0);
        w.i32(0).i32(0).u32(0).u32(0);
        // Pure red (0x7c00) and a mid grey-blue (r=0, g=16, b=31).
        w.u16(0x7c00).u16((16 << 5) | 31);
        let t = decode(&w.into_bytes(), name()).unwrap();
        assert_eq!(t.texels, vec![[255, 0, 0, 255], [0, 132, 255, 255]]);
    }

    #[test]
    fn four_bit_and_one_bit_palettes() {
        let mut w = Writer::new();
        w.bytes(b"BM").u32(0).u32(0).u32(54 + 8);
        w.u32(40).i32(3).i32(1).u16(1).u16(1).u32(0).u32(0);
        w.i32(0).i32(0).u32(2).u32(0);
        w.bytes(&[0, 0, 0, 0, 255, 255, 255, 0]);
        w.bytes(&[0b1010_0000, 0, 0, 0]);
        let t = decode(&w.into_bytes(), name()).unwrap();
        assert_eq!(t.texels, vec![[255; 4], [0, 0, 0, 255], [255; 4]]);

        let mut w = Writer::new();
        w.bytes(b"BM").u32(0).u32(0).u32(54 + 12);
        w.u32(40).i32(3).i32(1).u16(1).u16(4).u32(0).u32(0);
        w.i32(0).i32(0).u32(3).u32(0);
        w.bytes(&[1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0]);
        w.bytes(&[0x21, 0x00, 0, 0]);
        let t = decode(&w.into_bytes(), name()).unwrap();
        assert_eq!(
            t.texels,
            vec![[9, 8, 7, 255], [6, 5, 4, 255], [3, 2, 1, 255]]
        );
    }

    fn parse_err(data: &[u8]) -> ParseError {
        decode(data, name()).expect_err("must fail")
    }

    #[test]
    fn index_past_the_palette_is_an_error_naming_the_texel() {
        let bytes = encode_bmp8(2, 1, &[[1, 1, 1], [2, 2, 2]], &[1, 5]);
        let e = parse_err(&bytes);
        assert_eq!(e.field, "pixels[1,0]");
        assert_eq!(e.offset, 54 + 8 + 1);
        assert!(e.message.contains("palette index 5"), "{}", e.message);
    }

    #[test]
    fn oversized_palette_count_is_an_error() {
        let mut bytes = encode_bmp8(1, 1, &[[1, 1, 1]], &[0]);
        bytes[46..50].copy_from_slice(&257u32.to_le_bytes());
        let e = parse_err(&bytes);
        assert_eq!(
            (e.field.as_str(), e.offset),
            ("info_header.colors_used", 46)
        );
        // A count that fits 8 bits but not the file is caught before reading.
        bytes[46..50].copy_from_slice(&200u32.to_le_bytes());
        let e = parse_err(&bytes);
        assert_eq!((e.field.as_str(), e.offset), ("palette", 54));
    }

    #[test]
    fn huge_dimensions_fail_before_allocating() {
        let mut bytes = encode_bmp24(1, 1, &[[0, 0, 0]]);
        bytes[18..22].copy_from_slice(&16384i32.to_le_bytes());
        bytes[22..26].copy_from_slice(&16384i32.to_le_bytes());
        let e = parse_err(&bytes);
        assert_eq!((e.field.as_str(), e.offset), ("pixels", 54));
        bytes[18..22].copy_from_slice(&i32::MAX.to_le_bytes());
        let e = parse_err(&bytes);
        assert_eq!((e.field.as_str(), e.offset), ("dimensions", 18));
        bytes[18..22].copy_from_slice(&(-4i32).to_le_bytes());
        let e = parse_err(&bytes);
        assert_eq!((e.field.as_str(), e.offset), ("info_header.width", 18));
        bytes[18..22].copy_from_slice(&1i32.to_le_bytes());
        bytes[22..26].copy_from_slice(&i32::MIN.to_le_bytes());
        let e = parse_err(&bytes);
        assert_eq!((e.field.as_str(), e.offset), ("dimensions", 18));
    }

    #[test]
    fn rle_and_odd_depths_are_refused_by_field() {
        let mut bytes = encode_bmp8(1, 1, &[[1, 1, 1]], &[0]);
        bytes[30] = 1;
        assert_eq!(parse_err(&bytes).field, "info_header.compression");
        let mut bytes = encode_bmp24(1, 1, &[[0, 0, 0]]);
        bytes[28] = 2;
        let e = parse_err(&bytes);
        assert_eq!((e.field.as_str(), e.offset), ("info_header.bit_count", 28));
    }

    #[test]
    fn every_truncation_is_an_error() {
        for bytes in [
            encode_bmp8(3, 3, &[[1, 2, 3], [4, 5, 6]], &[0, 1, 0, 1, 0, 1, 0, 1, 0]),
            encode_bmp24(3, 2, &[[9, 9, 9]; 6]),
            bmp32(124, BI_BITFIELDS, 0xff00_0000, 2, &[[1, 2, 3, 4]; 4]),
        ] {
            // Only the last row's padding may be missing.
            let last_pad = match bytes[28] {
                8 => 1,
                24 => 3,
                _ => 0,
            };
            for len in 0..bytes.len() - last_pad {
                assert!(decode(&bytes[..len], name()).is_err(), "length {len}");
            }
            for len in bytes.len() - last_pad..=bytes.len() {
                assert!(decode(&bytes[..len], name()).is_ok(), "length {len}");
            }
        }
    }
}
