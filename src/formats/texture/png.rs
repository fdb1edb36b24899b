//! PNG through the `image` crate, limited to kiln's dimension cap.

use super::via_image::{self, Via};
use crate::error::ParseError;
use crate::memory::Allowance;
use crate::texture::Texture;
use std::path::Path;

pub(crate) const MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";
/// Decoded bytes allowed per input byte (deflate's ceiling, plus slack).
const MAX_EXPANSION: u64 = 1100;

/// Byte offset of the width in the IHDR chunk.
const IHDR_WIDTH_AT: usize = 16;

pub(crate) fn decode(data: &[u8], file: &Path, memory: &Allowance) -> Result<Texture, ParseError> {
    let via = Via {
        format: image::ImageFormat::Png,
        field: "png",
        max_expansion: MAX_EXPANSION,
        size_at: IHDR_WIDTH_AT,
    };
    via_image::decode(data, file, &via, memory)
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
