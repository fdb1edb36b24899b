//! JPEG through the `image` crate (its pure-Rust zune-jpeg decoder),
//! limited to kiln's dimension cap. Only glTF images are JPEG: the other
//! formats' texture lookups never decode one.

use super::via_image::{self, Via};
use crate::error::ParseError;
use crate::memory::Allowance;
use crate::texture::Texture;
use std::path::Path;

/// Every JPEG starts with a start-of-image marker and another marker.
pub(crate) const MAGIC: &[u8] = b"\xff\xd8\xff";
/// Decoded bytes allowed per input byte: a baseline JPEG of flat colour
/// compresses better than 100:1, but not past a few hundred.
const MAX_EXPANSION: u64 = 1000;

pub(crate) fn decode(data: &[u8], file: &Path, memory: &Allowance) -> Result<Texture, ParseError> {
    let via = Via {
        format: image::ImageFormat::Jpeg,
        field: "jpeg",
        max_expansion: MAX_EXPANSION,
        size_at: 0,
    };
    via_image::decode(data, file, &via, memory)
}
