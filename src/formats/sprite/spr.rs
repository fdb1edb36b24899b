//! Ragnarok SPR sprite images (1.0, 1.1, 2.0, 2.1).
//!
//! "SP", then the version as a minor byte before a major byte, the count
//! of palette images and (2.0 on) of RGBA images, the palette images
//! (`u16 width, u16 height`, one palette index per pixel; from 2.1 a `u16`
//! byte count and the indices with every run of index 0 stored as `00 n`),
//! the RGBA images (`u16 width, u16 height`, pixels as A, B, G, R, the
//! bottom row first) and, from 1.1, the 256-colour palette (R, G, B, and a
//! byte the client ignores) as the file's last 1,024 bytes. Palette index 0
//! is the transparent background whatever its colour.

use crate::error::ParseError;
use crate::formats::reader::{Reader, Writer};
use std::path::Path;

/// The two bytes every SPR file starts with.
pub const MAGIC: &[u8; 2] = b"SP";
/// Bytes of the palette at the end of the file.
pub const PALETTE_BYTES: usize = 1024;

/// One SPR file, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Spr {
    /// Major version (1 or 2).
    pub major: u8,
    /// Minor version (0 or 1).
    pub minor: u8,
    /// The palette images, in file order (ACT layers of image type 0 index
    /// them).
    pub indexed: Vec<IndexedImage>,
    /// The RGBA images (2.0 on), in file order (ACT layers of image type 1
    /// index them).
    pub rgba: Vec<RgbaImage>,
    /// The 256 palette colours as stored (R, G, B, unused byte); `None` in
    /// 1.0, which has none.
    pub palette: Option<Vec<[u8; 4]>>,
    /// Bytes between the last image and the palette, kept so a file writes
    /// back as it was read (none in any known file).
    pub gap: Vec<u8>,
}

/// A palette image: one palette index per pixel, rows top-down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedImage {
    /// In pixels.
    pub width: u16,
    /// In pixels.
    pub height: u16,
    /// `width × height` palette indices, row-major from the top row.
    pub pixels: Vec<u8>,
}

/// An RGBA image, decoded to rows top-down in R, G, B, A order (straight
/// alpha, as the file stores it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbaImage {
    /// In pixels.
    pub width: u16,
    /// In pixels.
    pub height: u16,
    /// `width × height × 4` bytes.
    pub pixels: Vec<u8>,
}

impl Spr {
    /// Version as "major.minor".
    pub fn version(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }

    /// Whether this version stores RGBA images (2.0 on).
    pub fn has_rgba(&self) -> bool {
        self.major >= 2
    }

    /// Whether this version run-length encodes palette images (2.1 on).
    pub fn is_rle(&self) -> bool {
        (self.major, self.minor) >= (2, 1)
    }
}

/// Whether `(major, minor)` is an SPR version kiln reads and writes.
pub fn known_version(major: u8, minor: u8) -> bool {
    matches!((major, minor), (1, 0) | (1, 1) | (2, 0) | (2, 1))
}

/// Parses a whole SPR file. Every count and size is checked against the
/// bytes left before anything is allocated.
pub fn parse(data: &[u8], file: &Path) -> Result<Spr, ParseError> {
    let mut r = Reader::new(data, file);
    let magic = r.bytes(2, "magic")?;
    if magic != MAGIC {
        return Err(r.error_at(0, "magic", format!("expected \"SP\", found {magic:02x?}")));
    }
    let minor = r.u8("version.minor")?;
    let major = r.u8("version.major")?;
    if !known_version(major, minor) {
        return Err(r.error_at(
            2,
            "version",
            format!("SPR {major}.{minor} is not a known version (1.0, 1.1, 2.0, 2.1)"),
        ));
    }
    let mut spr = Spr {
        major,
        minor,
        indexed: Vec::new(),
        rgba: Vec::new(),
        palette: None,
        gap: Vec::new(),
    };
    let indexed_at = r.pos();
    let indexed_count = r.u16("indexed_count")? as usize;
    let rgba_at = r.pos();
    let rgba_count = if spr.has_rgba() {
        r.u16("rgba_count")? as usize
    } else {
        0
    };
    // Each image holds at least its 4-byte size.
    r.check_count(indexed_at, "indexed_count", indexed_count as u64, 4)?;
    r.check_count(
        rgba_at,
        "rgba_count",
        (indexed_count + rgba_count) as u64,
        4,
    )?;
    spr.indexed.reserve(indexed_count);
    for i in 0..indexed_count {
        let field = format!("indexed[{i}]");
        spr.indexed.push(if spr.is_rle() {
            read_rle_image(&mut r, &field)?
        } else {
            read_plain_image(&mut r, &field)?
        });
    }
    spr.rgba.reserve(rgba_count);
    for i in 0..rgba_count {
        spr.rgba
            .push(read_rgba_image(&mut r, &format!("rgba[{i}]"))?);
    }
    if (major, minor) >= (1, 1) {
        let left = r.remaining();
        if left < PALETTE_BYTES {
            return Err(r.error(
                "palette",
                format!("needs {PALETTE_BYTES} bytes but the file ends after {left}"),
            ));
        }
        spr.gap = r.bytes(left - PALETTE_BYTES, "palette")?.to_vec();
        let bytes = r.bytes(PALETTE_BYTES, "palette")?;
        spr.palette = Some(
            bytes
                .chunks_exact(4)
                .map(|c| [c[0], c[1], c[2], c[3]])
                .collect(),
        );
    } else {
        spr.gap = r.bytes(r.remaining(), "trailing")?.to_vec();
    }
    Ok(spr)
}

fn read_size(r: &mut Reader, field: &str) -> Result<(u16, u16), ParseError> {
    let w = r.u16(&format!("{field}.width"))?;
    let h = r.u16(&format!("{field}.height"))?;
    Ok((w, h))
}

fn read_plain_image(r: &mut Reader, field: &str) -> Result<IndexedImage, ParseError> {
    let (width, height) = read_size(r, field)?;
    let n = width as usize * height as usize;
    let pixels = r.bytes(n, &format!("{field}.pixels"))?.to_vec();
    Ok(IndexedImage {
        width,
        height,
        pixels,
    })
}

fn read_rle_image(r: &mut Reader, field: &str) -> Result<IndexedImage, ParseError> {
    let (width, height) = read_size(r, field)?;
    let size_field = format!("{field}.encoded_size");
    let size = r.u16(&size_field)? as usize;
    let at = r.pos();
    let encoded = r.bytes(size, &format!("{field}.pixels"))?;
    let want = width as usize * height as usize;
    let pixels = decode_rle(encoded, want)
        .map_err(|(offset, msg)| r.error_at(at + offset, &format!("{field}.pixels"), msg))?;
    Ok(IndexedImage {
        width,
        height,
        pixels,
    })
}

fn read_rgba_image(r: &mut Reader, field: &str) -> Result<RgbaImage, ParseError> {
    let (width, height) = read_size(r, field)?;
    let (w, h) = (width as usize, height as usize);
    let stored = r.bytes(w * h * 4, &format!("{field}.pixels"))?;
    let mut pixels = vec![0u8; w * h * 4];
    for y in 0..h {
        let src = &stored[(h - 1 - y) * w * 4..(h - y) * w * 4];
        let dst = &mut pixels[y * w * 4..(y + 1) * w * 4];
        for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
            d.copy_from_slice(&[s[3], s[2], s[1], s[0]]);
        }
    }
    Ok(RgbaImage {
        width,
        height,
        pixels,
    })
}

/// Expands 2.1's run-length code: a 0 byte is followed by how many index-0
/// pixels it stands for. Fails (with the offset into `encoded`) when the
/// pixels do not come out to exactly `want`.
pub fn decode_rle(encoded: &[u8], want: usize) -> Result<Vec<u8>, (usize, String)> {
    let mut out = Vec::with_capacity(want.min(encoded.len().saturating_mul(255)));
    let mut i = 0;
    while i < encoded.len() {
        let b = encoded[i];
        if b == 0 {
            let Some(&n) = encoded.get(i + 1) else {
                return Err((i, "a run of index 0 has no length byte".into()));
            };
            out.resize(out.len() + n as usize, 0);
            i += 2;
        } else {
            out.push(b);
            i += 1;
        }
        if out.len() > want {
            return Err((
                i.min(encoded.len()),
                format!("the encoded pixels run past the image's {want} pixels"),
            ));
        }
    }
    if out.len() != want {
        return Err((
            encoded.len(),
            format!(
                "the encoded pixels give {} of the image's {want} pixels",
                out.len()
            ),
        ));
    }
    Ok(out)
}

/// 2.1's run-length code of `pixels`: each run of index 0, across row ends,
/// as `00 n` with runs longer than 255 split (as the client's own files
/// store them).
pub fn encode_rle(pixels: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(pixels.len());
    let mut i = 0;
    while i < pixels.len() {
        if pixels[i] != 0 {
            out.push(pixels[i]);
            i += 1;
            continue;
        }
        let run = pixels[i..]
            .iter()
            .take(255)
            .take_while(|&&p| p == 0)
            .count();
        out.push(0);
        out.push(run as u8);
        i += run;
    }
    out
}

/// Why an SPR cannot be written.
fn invalid(message: String) -> ParseError {
    ParseError {
        file: "<spr>".into(),
        field: "write".into(),
        offset: 0,
        message,
    }
}

/// Writes `spr` in its own version: a file read by [`parse`] comes back
/// byte for byte. Fails when the version cannot hold what it is given (RGBA
/// images before 2.0, no palette from 1.1, more than 65,535 images, a
/// pixel count that does not match the size, a 2.1 image whose code
/// exceeds 65,535 bytes).
pub fn write(spr: &Spr) -> Result<Vec<u8>, ParseError> {
    if !known_version(spr.major, spr.minor) {
        return Err(invalid(format!(
            "SPR {} is not a version kiln writes",
            spr.version()
        )));
    }
    if !spr.has_rgba() && !spr.rgba.is_empty() {
        return Err(invalid(format!(
            "SPR {} cannot hold RGBA images; use 2.0 or later",
            spr.version()
        )));
    }
    let needs_palette = (spr.major, spr.minor) >= (1, 1);
    if needs_palette != spr.palette.is_some() {
        return Err(invalid(format!(
            "SPR {} {} a palette",
            spr.version(),
            if needs_palette {
                "needs"
            } else {
                "has no room for"
            }
        )));
    }
    let count = |n: usize, what: &str| {
        u16::try_from(n).map_err(|_| invalid(format!("{n} {what} images (at most 65,535)")))
    };
    let mut w = Writer::new();
    w.bytes(MAGIC).u8(spr.minor).u8(spr.major);
    w.u16(count(spr.indexed.len(), "palette")?);
    if spr.has_rgba() {
        w.u16(count(spr.rgba.len(), "RGBA")?);
    }
    for (i, img) in spr.indexed.iter().enumerate() {
        if img.pixels.len() != img.width as usize * img.height as usize {
            return Err(invalid(format!(
                "palette image {i} is {}×{} but holds {} pixels",
                img.width,
                img.height,
                img.pixels.len()
            )));
        }
        w.u16(img.width).u16(img.height);
        if spr.is_rle() {
            let code = encode_rle(&img.pixels);
            let size = u16::try_from(code.len()).map_err(|_| {
                invalid(format!(
                    "palette image {i} encodes to {} bytes, more than SPR 2.1's 65,535; \
                     split it or write RGBA images",
                    code.len()
                ))
            })?;
            w.u16(size).bytes(&code);
        } else {
            w.bytes(&img.pixels);
        }
    }
    for (i, img) in spr.rgba.iter().enumerate() {
        let (wd, h) = (img.width as usize, img.height as usize);
        if img.pixels.len() != wd * h * 4 {
            return Err(invalid(format!(
                "RGBA image {i} is {wd}×{h} but holds {} bytes",
                img.pixels.len()
            )));
        }
        w.u16(img.width).u16(img.height);
        for y in (0..h).rev() {
            for p in img.pixels[y * wd * 4..(y + 1) * wd * 4].chunks_exact(4) {
                w.bytes(&[p[3], p[2], p[1], p[0]]);
            }
        }
    }
    w.bytes(&spr.gap);
    if let Some(palette) = &spr.palette {
        if palette.len() != 256 {
            return Err(invalid(format!(
                "the palette has {} colours (256 needed)",
                palette.len()
            )));
        }
        for c in palette {
            w.bytes(c);
        }
    }
    Ok(w.into_bytes())
}
