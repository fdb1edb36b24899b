//! Writing files so that a crash or a failed job never leaves a half-written
//! output: bytes go to a temporary file in the same folder, then a rename
//! (atomic on the same filesystem) puts them in place.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically, creating parent folders.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(crate::confined::temp_name(&name));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    Ok(())
}

pub use kiln_recipe_yaml::keys::PngCompression;

/// The png crate's setting for `compression`.
fn deflate_level(compression: PngCompression) -> png::DeflateCompression {
    png::DeflateCompression::Level(compression.zlib_level())
}

/// Encodes a straight-alpha RGBA image as PNG. Deterministic: fixed
/// compression settings, no timestamps or text chunks.
/// Fails only for images PNG cannot hold (zero width or height).
pub fn encode_png(img: &image::RgbaImage) -> Result<Vec<u8>> {
    encode_png_with(img, PngCompression::Default)
}

/// [`encode_png`] at a chosen compression.
/// Images of [`crate::parallel_png::PARALLEL_FROM`] bytes or more (big
/// sheets) are deflated in bands on every core.
pub fn encode_png_with(img: &image::RgbaImage, compression: PngCompression) -> Result<Vec<u8>> {
    if crate::parallel_png::in_bands(img.width(), img.height()) {
        return crate::parallel_png::encode_rgba(img, compression.zlib_level() as u32);
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, img.width(), img.height());
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_deflate_compression(deflate_level(compression));
        let fail = |e: png::EncodingError| {
            Error::Other(format!(
                "PNG encoding of a {}x{} image: {e}",
                img.width(),
                img.height()
            ))
        };
        let mut w = enc.write_header().map_err(fail)?;
        w.write_image_data(img.as_raw()).map_err(fail)?;
    }
    Ok(out)
}

/// A [`crate::parallel_png::RowStream`] that gives the bytes
/// [`encode_png_with`] gives a `width × height` image at `compression`, or
/// `None` when such an image is too small to be encoded in bands (the png
/// crate encodes it whole).
pub fn png_rows(
    width: u32,
    height: u32,
    compression: PngCompression,
) -> Option<crate::parallel_png::RowStream> {
    crate::parallel_png::RowStream::for_image(width, height, compression.zlib_level() as u32)
}

/// Encodes `img` as an indexed PNG (a palette, with `tRNS` for the fully
/// transparent entry) when it holds at most 256 colours, each fully opaque
/// or exactly transparent black — what a palette look makes; otherwise as
/// [`encode_png`]. Decoding gives back exactly `img`. Entries are numbered
/// in the order colours first appear, at the fewest bits a pixel that holds
/// them (1, 2, 4 or 8), so the bytes depend only on the pixels.
pub fn encode_png_indexed(img: &image::RgbaImage, compression: PngCompression) -> Result<Vec<u8>> {
    match index_colors(img) {
        Some((palette, indices)) => {
            encode_indexed(img.width(), img.height(), &palette, &indices, compression)
        }
        None => encode_png_with(img, compression),
    }
}

/// Each pixel's palette entry and the palette, or `None` past 256 colours
/// or at a pixel neither opaque nor transparent black.
fn index_colors(img: &image::RgbaImage) -> Option<(Vec<[u8; 4]>, Vec<u8>)> {
    // Entry + 1 per opaque RGB; zeroed memory is mapped lazily, so only
    // the pages of colours that occur are touched.
    let mut table = vec![0u16; 1 << 24];
    let mut palette: Vec<[u8; 4]> = Vec::new();
    let mut transparent: Option<u8> = None;
    let mut indices = Vec::with_capacity(img.as_raw().len() / 4);
    for p in img.as_raw().chunks_exact(4) {
        let i = match p[3] {
            255 => {
                let key = (p[0] as usize) << 16 | (p[1] as usize) << 8 | p[2] as usize;
                match table[key] {
                    0 => {
                        if palette.len() == 256 {
                            return None;
                        }
                        palette.push([p[0], p[1], p[2], 255]);
                        table[key] = palette.len() as u16;
                        palette.len() - 1
                    }
                    e => e as usize - 1,
                }
            }
            0 if p[..3] == [0, 0, 0] => match transparent {
                Some(i) => i as usize,
                None => {
                    if palette.len() == 256 {
                        return None;
                    }
                    palette.push([0, 0, 0, 0]);
                    transparent = Some((palette.len() - 1) as u8);
                    palette.len() - 1
                }
            },
            _ => return None,
        };
        indices.push(i as u8);
    }
    Some((palette, indices))
}

fn encode_indexed(
    w: u32,
    h: u32,
    palette: &[[u8; 4]],
    indices: &[u8],
    compression: PngCompression,
) -> Result<Vec<u8>> {
    let bits: u32 = match palette.len() {
        0..=2 => 1,
        3..=4 => 2,
        5..=16 => 4,
        _ => 8,
    };
    let per_byte = (8 / bits) as usize;
    let row_bytes = (w as usize).div_ceil(per_byte);
    let mut packed = vec![0u8; row_bytes * h as usize];
    if w > 0 {
        for (row, out) in indices
            .chunks_exact(w as usize)
            .zip(packed.chunks_exact_mut(row_bytes))
        {
            for (x, &i) in row.iter().enumerate() {
                // Leftmost pixel in the highest bits, as PNG packs them.
                let shift = 8 - bits as usize * (x % per_byte + 1);
                out[x / per_byte] |= i << shift;
            }
        }
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(match bits {
            1 => png::BitDepth::One,
            2 => png::BitDepth::Two,
            4 => png::BitDepth::Four,
            _ => png::BitDepth::Eight,
        });
        enc.set_palette(
            palette
                .iter()
                .flat_map(|c| [c[0], c[1], c[2]])
                .collect::<Vec<u8>>(),
        );
        // Alpha per entry up to the last translucent one, as tRNS holds it.
        if let Some(last) = palette.iter().rposition(|c| c[3] != 255) {
            enc.set_trns(palette[..=last].iter().map(|c| c[3]).collect::<Vec<u8>>());
        }
        enc.set_deflate_compression(deflate_level(compression));
        let fail = |e: png::EncodingError| {
            Error::Other(format!("PNG encoding of a {w}x{h} indexed image: {e}"))
        };
        let mut writer = enc.write_header().map_err(fail)?;
        writer.write_image_data(&packed).map_err(fail)?;
    }
    Ok(out)
}

/// Writes `bytes` to `path` atomically (a temporary file beside it, then a
/// rename), creating folders: a failure never leaves a half-written file.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic(path, bytes)
}

/// Writes an RGBA image as a PNG file atomically.
pub fn write_png(path: &Path, img: &image::RgbaImage) -> Result<()> {
    write_atomic(path, &encode_png(img)?)
}

#[cfg(test)]
mod tests {
    use super::{encode_png_indexed, PngCompression};
    use image::{Rgba, RgbaImage};

    fn decode(bytes: &[u8]) -> RgbaImage {
        image::load_from_memory(bytes).expect("decodes").to_rgba8()
    }

    #[test]
    fn indexed_pngs_decode_to_the_same_pixels_at_every_depth() {
        for colours in [1u32, 2, 3, 4, 5, 16, 17, 256] {
            // Odd width: the last byte of each packed row is partly used.
            let img = RgbaImage::from_fn(37, 11, |x, y| {
                let k = (x * 7 + y * 13) % (colours + 1);
                if k == colours {
                    Rgba([0, 0, 0, 0])
                } else {
                    Rgba([(k * 3) as u8, (k * 5) as u8, 255 - k as u8, 255])
                }
            });
            let bytes = encode_png_indexed(&img, PngCompression::Default).unwrap();
            // Colour type 3 (indexed) in IHDR, byte 25.
            let indexed = colours < 256;
            assert_eq!(bytes[25] == 3, indexed, "{colours} colours");
            assert_eq!(decode(&bytes), img, "{colours} colours");
        }
        // A translucent pixel, or transparent with a colour, keeps RGBA.
        for odd in [Rgba([9, 9, 9, 128]), Rgba([9, 9, 9, 0])] {
            let mut img = RgbaImage::from_pixel(4, 4, Rgba([1, 2, 3, 255]));
            img.put_pixel(2, 2, odd);
            let bytes = encode_png_indexed(&img, PngCompression::Fast).unwrap();
            assert_eq!(bytes[25], 6);
            assert_eq!(decode(&bytes), img);
        }
    }
}
