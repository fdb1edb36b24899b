//! The formats the `image` crate decodes for kiln (PNG, JPEG), all through
//! one path: kiln's dimension cap, an allocation bound from the file's size
//! and the load's memory left, and the decoded image charged until its
//! texels are copied out.

use super::{parse_error, texel_buffer, working_buffer};
use crate::error::ParseError;
use crate::memory::Allowance;
use crate::texture::{finish, Texture, MAX_DIMENSION};
use std::io::Cursor;
use std::path::Path;

/// How one format goes through [`decode`].
pub(super) struct Via {
    /// The `image` crate's decoder.
    pub format: image::ImageFormat,
    /// The field errors name (`png`, `jpeg`).
    pub field: &'static str,
    /// Decoded bytes allowed per input byte: no image larger than that can
    /// really be in the file, so a forged header cannot reserve hundreds of
    /// megabytes.
    pub max_expansion: u64,
    /// The byte offset a size error names (where the format keeps it).
    pub size_at: usize,
}

pub(super) fn decode(
    data: &[u8],
    file: &Path,
    via: &Via,
    memory: &Allowance,
) -> Result<Texture, ParseError> {
    let mut reader = image::ImageReader::with_format(Cursor::new(data), via.format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_DIMENSION);
    limits.max_image_height = Some(MAX_DIMENSION);
    let left = memory.limit().saturating_sub(memory.used());
    limits.max_alloc = Some(
        (data.len() as u64)
            .saturating_mul(via.max_expansion)
            .clamp(1 << 20, 512 << 20)
            .min(left),
    );
    reader.limits(limits);
    // The decoders report no byte offsets; 0 plus their message is the best
    // location kiln can give.
    let img = reader
        .decode()
        .map_err(|e| parse_error(file, via.field, 0, e.to_string()))?;
    // The decoder's image stays until its texels are copied out.
    let _decoded = working_buffer(
        file,
        via.field,
        via.size_at,
        img.as_bytes().len() as u64,
        memory,
    )?;
    let rgba = img.into_rgba8();
    let (w, h) = rgba.dimensions();
    let (mut texels, held) = texel_buffer(file, via.size_at, w, h, memory)?;
    texels.extend(rgba.pixels().map(|p| p.0));
    held.keep();
    Ok(finish(file, w, h, texels))
}
