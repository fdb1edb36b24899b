//! PNG through the `image` crate, limited to kiln's dimension cap.

use super::{parse_error, texel_buffer, working_buffer};
use crate::error::ParseError;
use crate::memory::Allowance;
use crate::texture::{finish, Texture, MAX_DIMENSION};
use std::io::Cursor;
use std::path::Path;

pub(crate) const MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";
/// Decoded bytes allowed per input byte (deflate's ceiling, plus slack).
const MAX_EXPANSION: u64 = 1100;

/// Byte offset of the width in the IHDR chunk.
const IHDR_WIDTH_AT: usize = 16;

pub(crate) fn decode(data: &[u8], file: &Path, memory: &Allowance) -> Result<Texture, ParseError> {
    let mut reader = image::ImageReader::with_format(Cursor::new(data), image::ImageFormat::Png);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_DIMENSION);
    limits.max_image_height = Some(MAX_DIMENSION);
    // Deflate expands at most ~1032:1, so a larger image than that cannot
    // really be in the file; refusing it up front keeps a forged header from
    // reserving hundreds of megabytes. Nor may it take more than the load
    // has left.
    let left = memory.limit().saturating_sub(memory.used());
    limits.max_alloc = Some(
        (data.len() as u64)
            .saturating_mul(MAX_EXPANSION)
            .clamp(1 << 20, 512 << 20)
            .min(left),
    );
    reader.limits(limits);
    // The png decoder reports no byte offsets; 0 plus its message is the best
    // location kiln can give.
    let img = reader
        .decode()
        .map_err(|e| parse_error(file, "png", 0, e.to_string()))?;
    // The decoder's image stays until its texels are copied out.
    let _decoded = working_buffer(
        file,
        "png",
        IHDR_WIDTH_AT,
        img.as_bytes().len() as u64,
        memory,
    )?;
    let rgba = img.into_rgba8();
    let (w, h) = rgba.dimensions();
    let (mut texels, held) = texel_buffer(file, IHDR_WIDTH_AT, w, h, memory)?;
    texels.extend(rgba.pixels().map(|p| p.0));
    held.keep();
    Ok(finish(file, w, h, texels))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::TextureAlpha;

    fn png(w: u32, h: u32, rgba: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut enc = ::png::Encoder::new(&mut out, w, h);
        enc.set_color(::png::ColorType::Rgba);
        enc.set_depth(::png::BitDepth::Eight);
        let mut wr = enc.write_header().unwrap();
        wr.write_image_data(rgba).unwrap();
        wr.finish().unwrap();
        out
    }

    #[test]
    fn png_is_premultiplied_and_classified() {
        let data = png(2, 1, &[255, 0, 255, 255, 200, 100, 50, 128]);
        let t = crate::formats::texture::decode(&data, Path::new("a.png")).unwrap();
        // No colour key for PNG: magenta with full alpha stays magenta.
        assert_eq!(t.texels, vec![[255, 0, 255, 255], [100, 50, 25, 128]]);
        assert_eq!(t.alpha, TextureAlpha::Translucent);
        assert_eq!((t.width, t.height), (2, 1));
    }

    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= b as u32;
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn forged_huge_dimensions_are_refused() {
        let mut data = png(1, 1, &[1, 2, 3, 4]);
        // IHDR data sits at 16..29, its CRC at 29..33.
        data[16..20].copy_from_slice(&5000u32.to_be_bytes());
        data[20..24].copy_from_slice(&5000u32.to_be_bytes());
        let crc = crc32(&data[12..29]);
        data[29..33].copy_from_slice(&crc.to_be_bytes());
        let e = crate::formats::texture::decode(&data, Path::new("a.png")).unwrap_err();
        assert!(
            matches!(e, crate::Error::Parse(ref p) if p.field == "png"),
            "{e}"
        );
        assert!(e.to_string().to_lowercase().contains("limit"), "{e}");
        // Past the dimension cap as well.
        data[16..20].copy_from_slice(&20000u32.to_be_bytes());
        data[20..24].copy_from_slice(&1u32.to_be_bytes());
        let crc = crc32(&data[12..29]);
        data[29..33].copy_from_slice(&crc.to_be_bytes());
        let e = crate::formats::texture::decode(&data, Path::new("a.png")).unwrap_err();
        assert!(e.to_string().to_lowercase().contains("limit"), "{e}");
    }

    #[test]
    fn truncated_png_is_an_error() {
        let data = png(4, 4, &[7u8; 64]);
        for len in [8, 20, 33, data.len() - 13] {
            let e = crate::formats::texture::decode(&data[..len], Path::new("a.png")).unwrap_err();
            assert!(
                matches!(e, crate::Error::Parse(ref p) if p.field == "png"),
                "{len}: {e}"
            );
        }
    }
}
