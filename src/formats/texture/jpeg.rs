//! JPEG through the `image` crate (its pure-Rust zune-jpeg decoder),
//! limited to kiln's dimension cap. Only glTF images are JPEG: the other
//! formats' texture lookups never decode one.

use super::{parse_error, texel_buffer, working_buffer};
use crate::error::ParseError;
use crate::memory::Allowance;
use crate::texture::{finish, Texture, MAX_DIMENSION};
use std::io::Cursor;
use std::path::Path;

/// Every JPEG starts with a start-of-image marker and another marker.
pub(crate) const MAGIC: &[u8] = b"\xff\xd8\xff";
/// Decoded bytes allowed per input byte: a baseline JPEG of flat colour
/// compresses better than 100:1, but not past a few hundred.
const MAX_EXPANSION: u64 = 1000;

pub(crate) fn decode(data: &[u8], file: &Path, memory: &Allowance) -> Result<Texture, ParseError> {
    let mut reader = image::ImageReader::with_format(Cursor::new(data), image::ImageFormat::Jpeg);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_DIMENSION);
    limits.max_image_height = Some(MAX_DIMENSION);
    let left = memory.limit().saturating_sub(memory.used());
    limits.max_alloc = Some(
        (data.len() as u64)
            .saturating_mul(MAX_EXPANSION)
            .clamp(1 << 20, 512 << 20)
            .min(left),
    );
    reader.limits(limits);
    let img = reader
        .decode()
        .map_err(|e| parse_error(file, "jpeg", 0, e.to_string()))?;
    let _decoded = working_buffer(file, "jpeg", 0, img.as_bytes().len() as u64, memory)?;
    let rgba = img.into_rgba8();
    let (w, h) = rgba.dimensions();
    let (mut texels, held) = texel_buffer(file, 0, w, h, memory)?;
    texels.extend(rgba.pixels().map(|p| p.0));
    held.keep();
    Ok(finish(file, w, h, texels))
}
