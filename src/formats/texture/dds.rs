//! DirectDraw Surface: BC1/DXT1, BC2/DXT3, BC3/DXT5 (also behind a DX10
//! header) and uncompressed 24/32-bit masks, any mip level (the top one for
//! models);
//! Grimrock's textures are DXT1/DXT5 with full mip chains.

use super::dxt::{self, Dxt};
use super::{check_dimensions, parse_error, texel_buffer};
use crate::error::ParseError;
use crate::formats::reader::Reader;
use crate::memory::Allowance;
use crate::texture::{finish, Texture};
use std::path::Path;

pub(crate) const MAGIC: &[u8] = b"DDS ";

const DDPF_ALPHAPIXELS: u32 = 0x1;
const DDPF_FOURCC: u32 = 0x4;
const DDPF_RGB: u32 = 0x40;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Format {
    Block(Dxt),
    Masks {
        bytes: usize,
        r: u32,
        g: u32,
        b: u32,
        a: u32,
    },
}

#[cfg(test)]
pub(crate) fn decode(data: &[u8], file: &Path) -> Result<Texture, ParseError> {
    decode_mip(data, file, 0, &Allowance::default())
}

/// What the header says, and where the pixels start.
struct Header {
    width: u32,
    height: u32,
    format: Format,
    pixels_at: usize,
    /// The header's mip-map count (at least 1).
    declared: u32,
}

impl Header {
    /// Bytes of mip level `mip`.
    fn level_bytes(&self, mip: u32) -> u64 {
        let (w, h) = self.level_size(mip);
        match self.format {
            Format::Block(kind) => kind.image_bytes(w, h),
            Format::Masks { bytes, .. } => w as u64 * h as u64 * bytes as u64,
        }
    }

    fn level_size(&self, mip: u32) -> (u32, u32) {
        (
            self.width.checked_shr(mip).unwrap_or(0).max(1),
            self.height.checked_shr(mip).unwrap_or(0).max(1),
        )
    }
}

/// The mip levels of a DDS: as many as the header declares, but no more
/// than a full chain for its size (down to 1×1) and than the file holds
/// whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Levels {
    /// The header's `mip_map_count` (at least 1).
    pub declared: u32,
    /// Levels of a full chain: ⌊log₂ of the larger side⌋ + 1.
    pub possible: u32,
    /// Levels the file holds whole, one after another.
    pub present: u32,
}

impl Levels {
    /// The levels kiln reads.
    pub fn usable(&self) -> u32 {
        self.declared.min(self.possible).min(self.present)
    }
}

/// The mip levels of a DDS file.
pub(crate) fn levels(data: &[u8], file: &Path) -> Result<Levels, ParseError> {
    let h = header(data, file)?;
    let possible = 32 - h.width.max(h.height).leading_zeros();
    let mut left = (data.len() - h.pixels_at) as u64;
    let mut present = 0;
    while present < possible.min(h.declared) {
        let need = h.level_bytes(present);
        if need > left {
            break;
        }
        left -= need;
        present += 1;
    }
    Ok(Levels {
        declared: h.declared,
        possible,
        present,
    })
}

fn header(data: &[u8], file: &Path) -> Result<Header, ParseError> {
    let mut r = Reader::new(data, file);
    r.skip(4, "magic")?;
    let size_at = r.pos();
    let size = r.u32("header.size")?;
    if size != 124 {
        return Err(r.error_at(
            size_at,
            "header.size",
            format!("DDS header size {size}, expected 124"),
        ));
    }
    r.u32("header.flags")?;
    let top_height = r.u32("header.height")?;
    let top_width = r.u32("header.width")?;
    check_dimensions(file, 12, top_width as u64, top_height as u64)?;
    r.skip(4 + 4 + 4 + 44, "header.reserved")?;
    let pf_at = r.pos();
    r.u32("pixel_format.size")?;
    let pf_flags = r.u32("pixel_format.flags")?;
    let fourcc_at = r.pos();
    let fourcc: [u8; 4] = r
        .bytes(4, "pixel_format.four_cc")?
        .try_into()
        .unwrap_or([0; 4]);
    let bits = r.u32("pixel_format.rgb_bit_count")?;
    let (mr, mg, mb, ma) = (
        r.u32("pixel_format.r_mask")?,
        r.u32("pixel_format.g_mask")?,
        r.u32("pixel_format.b_mask")?,
        r.u32("pixel_format.a_mask")?,
    );
    r.skip(20, "header.caps")?;

    let format = if pf_flags & DDPF_FOURCC != 0 {
        match &fourcc {
            b"DXT1" => Format::Block(Dxt::Bc1),
            b"DXT2" | b"DXT3" => Format::Block(Dxt::Bc2),
            b"DXT4" | b"DXT5" => Format::Block(Dxt::Bc3),
            b"DX10" => {
                let at = r.pos();
                let dxgi = r.u32("dx10.dxgi_format")?;
                r.skip(16, "dx10")?;
                match dxgi {
                    71 | 72 => Format::Block(Dxt::Bc1),
                    74 | 75 => Format::Block(Dxt::Bc2),
                    77 | 78 => Format::Block(Dxt::Bc3),
                    f => {
                        return Err(parse_error(
                            file,
                            "dx10.dxgi_format",
                            at,
                            format!("unsupported DXGI format {f}"),
                        ))
                    }
                }
            }
            other => {
                return Err(parse_error(
                    file,
                    "pixel_format.four_cc",
                    fourcc_at,
                    format!(
                        "unsupported compression {:?}",
                        String::from_utf8_lossy(other)
                    ),
                ))
            }
        }
    } else if pf_flags & DDPF_RGB != 0 && (bits == 24 || bits == 32) {
        Format::Masks {
            bytes: bits as usize / 8,
            r: mr,
            g: mg,
            b: mb,
            a: if pf_flags & DDPF_ALPHAPIXELS != 0 {
                ma
            } else {
                0
            },
        }
    } else {
        return Err(parse_error(
            file,
            "pixel_format.flags",
            pf_at + 4,
            format!("unsupported pixel format (flags 0x{pf_flags:x}, {bits} bits)"),
        ));
    };

    Ok(Header {
        width: top_width,
        height: top_height,
        format,
        pixels_at: r.pos(),
        declared: data
            .get(28..32)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]).max(1))
            .unwrap_or(1),
    })
}

/// Decodes mip level `mip` (0 = the largest): the levels are stored one
/// after another, each side halved (at least 1).
pub(crate) fn decode_mip(
    data: &[u8],
    file: &Path,
    mip: u32,
    memory: &Allowance,
) -> Result<Texture, ParseError> {
    let hd = header(data, file)?;
    if mip > 0 {
        let l = levels(data, file)?;
        if mip >= l.usable() {
            return Err(parse_error(
                file,
                "header.mip_map_count",
                28,
                format!(
                    "no mip level {mip}: the file declares {}, a {}×{} image has at most {} and \
                     the file holds {} whole",
                    l.declared, hd.width, hd.height, l.possible, l.present
                ),
            ));
        }
    }
    let format = hd.format;
    let mut r = Reader::new(data, file);
    r.seek(hd.pixels_at, "pixels")?;
    let skip: u64 = (0..mip).map(|i| hd.level_bytes(i)).sum();
    if skip > r.remaining() as u64 {
        return Err(r.error(
            "pixels",
            format!("mip level {mip} starts past the end of the file"),
        ));
    }
    r.skip(skip as usize, "pixels")?;
    let (width, height) = hd.level_size(mip);
    let (w, h) = (width as usize, height as usize);
    let need = hd.level_bytes(mip);
    if need > r.remaining() as u64 {
        return Err(r.error(
            "pixels",
            format!(
                "{w}×{h} needs {need} bytes for {} but only {} are left",
                if mip == 0 {
                    "the top mip level".to_string()
                } else {
                    format!("mip level {mip}")
                },
                r.remaining()
            ),
        ));
    }
    let body = r.bytes(need as usize, "pixels")?;

    let (mut texels, held) = texel_buffer(file, 12, width, height, memory)?;
    match format {
        Format::Masks {
            bytes,
            r: mr,
            g: mg,
            b: mb,
            a: ma,
        } => {
            texels.extend(body.chunks_exact(bytes).map(|p| {
                let v = p
                    .iter()
                    .rev()
                    .fold(0u32, |acc, &byte| (acc << 8) | byte as u32);
                let a = if ma == 0 { 255 } else { channel(v, ma) };
                [channel(v, mr), channel(v, mg), channel(v, mb), a]
            }));
            if ma != 0 && texels.iter().all(|t| t[3] == 0) {
                texels.iter_mut().for_each(|t| t[3] = 255);
            }
        }
        Format::Block(kind) => dxt::decode_into(kind, width, height, body, &mut texels),
    }
    held.keep();
    Ok(finish(file, width, height, texels))
}

fn channel(px: u32, mask: u32) -> u8 {
    if mask == 0 {
        return 0;
    }
    let shift = mask.trailing_zeros();
    let max = (mask >> shift) as u64;
    ((((px & mask) >> shift) as u64 * 255 + max / 2) / max) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::TextureAlpha;

    fn header(
        w: u32,
        h: u32,
        pf_flags: u32,
        fourcc: &[u8; 4],
        bits: u32,
        masks: [u32; 4],
    ) -> Vec<u8> {
        let mut v = b"DDS ".to_vec();
        for x in [124u32, 0x1007, h, w, 0, 0, 1] {
            v.extend_from_slice(&x.to_le_bytes());
        }
        v.extend_from_slice(&[0; 44]);
        v.extend_from_slice(&32u32.to_le_bytes());
        v.extend_from_slice(&pf_flags.to_le_bytes());
        v.extend_from_slice(fourcc);
        v.extend_from_slice(&bits.to_le_bytes());
        for m in masks {
            v.extend_from_slice(&m.to_le_bytes());
        }
        v.extend_from_slice(&[0; 20]);
        assert_eq!(v.len(), 128);
        v
    }

    #[test]
    fn dxt1_four_and_three_colour_modes() {
        // 8×4: two blocks. Block 0: red (0xf800) > blue (0x001f), indices
        // 0,1,2,3 in the first row, 0 elsewhere. Block 1: c0 <= c1, index 3
        // (transparent) everywhere.
        let mut d = header(6, 4, DDPF_FOURCC, b"DXT1", 0, [0; 4]);
        d.extend_from_slice(&[0x00, 0xf8, 0x1f, 0x00, 0b1110_0100, 0, 0, 0]);
        d.extend_from_slice(&[0x1f, 0x00, 0x00, 0xf8, 0xff, 0xff, 0xff, 0xff]);
        let t = crate::formats::texture::decode(&d, Path::new("a.dds")).unwrap();
        assert_eq!((t.width, t.height), (6, 4));
        assert_eq!(
            &t.texels[..6],
            &[
                [255, 0, 0, 255],
                [0, 0, 255, 255],
                [170, 0, 85, 255],
                [85, 0, 170, 255],
                [0, 0, 0, 0],
                [0, 0, 0, 0]
            ]
        );
        assert_eq!(t.texels[6], [255, 0, 0, 255]);
        assert_eq!(t.alpha, TextureAlpha::ColorKey);
    }

    #[test]
    fn dxt5_interpolated_alpha_is_premultiplied() {
        let mut d = header(4, 4, DDPF_FOURCC, b"DXT5", 0, [0; 4]);
        // a0 = 255, a1 = 0: index 2 → (6·255 + 0 + 3) / 7 = 219. First
        // texel index 2, the rest 0.
        d.extend_from_slice(&[255, 0, 2, 0, 0, 0, 0, 0]);
        d.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
        let t = crate::formats::texture::decode(&d, Path::new("a.dds")).unwrap();
        assert_eq!(t.texels[0], [219, 219, 219, 219]);
        assert_eq!(t.texels[1], [255, 255, 255, 255]);
        assert_eq!(t.alpha, TextureAlpha::Translucent);
    }

    #[test]
    fn uncompressed_bgra_and_truncation() {
        let mut d = header(
            2,
            1,
            DDPF_RGB | DDPF_ALPHAPIXELS,
            &[0; 4],
            32,
            [0xff_0000, 0xff00, 0xff, 0xff00_0000],
        );
        d.extend_from_slice(&[10, 20, 30, 255, 1, 2, 3, 0]);
        let t = crate::formats::texture::decode(&d, Path::new("a.dds")).unwrap();
        assert_eq!(t.texels, vec![[30, 20, 10, 255], [0, 0, 0, 0]]);
        for len in 0..d.len() {
            assert!(crate::formats::texture::decode(&d[..len], Path::new("a.dds")).is_err());
        }
        let mut huge = header(16384, 16384, DDPF_FOURCC, b"DXT5", 0, [0; 4]);
        huge.extend_from_slice(&[0; 64]);
        let e = decode(&huge, Path::new("a.dds")).unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("pixels", 128));
        let e = decode(
            &header(4, 4, DDPF_FOURCC, b"ATI2", 0, [0; 4]),
            Path::new("a.dds"),
        )
        .unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("pixel_format.four_cc", 84));
    }

    #[test]
    fn levels_are_the_least_of_declared_possible_and_present() {
        // 16×4 DXT1: levels 16×4, 8×2, 4×1, 2×1, 1×1, each one 4×4 block
        // or more (4 + 2 + 1 + 1 + 1 blocks of 8 bytes).
        let with = |declared: u32, blocks: usize| {
            let mut d = header(16, 4, DDPF_FOURCC, b"DXT1", 0, [0; 4]);
            d[28..32].copy_from_slice(&declared.to_le_bytes());
            d.extend(std::iter::repeat_n(0u8, blocks * 8));
            levels(&d, Path::new("a.dds")).unwrap()
        };
        let l = with(u32::MAX, 9);
        assert_eq!(
            (l.declared, l.possible, l.present, l.usable()),
            (u32::MAX, 5, 5, 5)
        );
        let l = with(u32::MAX, 6);
        assert_eq!((l.possible, l.present, l.usable()), (5, 2, 2));
        let l = with(3, 9);
        assert_eq!((l.present, l.usable()), (3, 3));
        // 0 declares one level, as writers that leave the count unset mean.
        assert_eq!(with(0, 9).usable(), 1);
        // The last level is 1×1 and decodes; one past it is refused.
        let mut d = header(16, 4, DDPF_FOURCC, b"DXT1", 0, [0; 4]);
        d[28..32].copy_from_slice(&5u32.to_le_bytes());
        d.extend(std::iter::repeat_n(0u8, 9 * 8));
        let t = decode_mip(&d, Path::new("a.dds"), 4, &Allowance::default()).unwrap();
        assert_eq!((t.width, t.height), (1, 1));
        let e = decode_mip(&d, Path::new("a.dds"), 5, &Allowance::default()).unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("header.mip_map_count", 28));
    }
}
