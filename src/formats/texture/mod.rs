//! Texture files: BMP (with the Ragnarok magenta colour key), TGA, PNG, DDS
//! and Arma PAA/PAC decoders, and the BMP/TGA/PAA encoders kiln's sample
//! generators and tests use. Every decoder produces the same [`Texture`].

mod bmp;
mod dds;
pub mod dxt;
pub mod paa;
mod png;
mod tga;

pub use crate::texture::{Texture, TextureAlpha};
pub use bmp::{encode_bmp24, encode_bmp8};
pub use tga::encode_tga32;

use crate::error::ParseError;
use crate::source::{Found, Lookup};
use crate::spec::FileRef;
use crate::texture::MAX_DIMENSION;
use std::path::{Path, PathBuf};

/// Decodes a texture file by its contents (BMP, TGA, PNG, DDS or PAA),
/// applying the Ragnarok magenta colour key to BMPs; `name` is used in
/// errors and as the texture's name (its last component).
pub fn decode(data: &[u8], name: &Path) -> crate::Result<Texture> {
    let decoded = if data.starts_with(b"BM") {
        bmp::decode(data, name)
    } else if data.starts_with(png::MAGIC) {
        png::decode(data, name)
    } else if data.starts_with(dds::MAGIC) {
        dds::decode(data, name)
    } else if paa::looks_like_paa(data, name) {
        paa::decode(data, name)
    } else if tga::looks_like_tga(data) {
        tga::decode(data, name)
    } else {
        Err(parse_error(
            name,
            "magic",
            0,
            "not a BMP (\"BM\"), PNG, DDS, PAA or TGA (no sensible TGA header) file",
        ))
    };
    Ok(decoded?)
}

/// A texture file read through the data sources: where it was read from,
/// and the decoded texture or why it could not be read.
pub(crate) type TextureFile = (PathBuf, crate::Result<Texture>);

/// Reads and decodes a file a source found.
pub(crate) fn read_found(lookup: &Lookup, found: &Found) -> TextureFile {
    let location = found.entry.location.clone();
    let texture = lookup
        .read(found)
        .and_then(|bytes| decode(&bytes, &location));
    (location, texture)
}

/// Reads and decodes an image file the user named (a recipe's
/// `materials:`): from disk, else from the sources by the name as written.
/// A file found nowhere is named by its disk path.
pub(crate) fn read_named(lookup: &Lookup, file: &FileRef) -> TextureFile {
    match lookup.read_named(file) {
        Ok((bytes, origin)) => {
            let location = origin.name();
            let texture = decode(&bytes, &location);
            (location, texture)
        }
        Err(e) => (file.disk.clone(), Err(e)),
    }
}

pub(crate) fn parse_error(
    file: &Path,
    field: &str,
    offset: usize,
    message: impl Into<String>,
) -> ParseError {
    ParseError {
        file: file.to_path_buf(),
        field: field.to_string(),
        offset: offset as u64,
        message: message.into(),
    }
}

/// Checks both dimensions against [`MAX_DIMENSION`] and zero.
pub(crate) fn check_dimensions(
    file: &Path,
    offset: usize,
    width: u64,
    height: u64,
) -> Result<(), ParseError> {
    if width == 0 || height == 0 {
        return Err(parse_error(
            file,
            "dimensions",
            offset,
            format!("empty image {width}×{height}"),
        ));
    }
    if width > MAX_DIMENSION as u64 || height > MAX_DIMENSION as u64 {
        return Err(parse_error(
            file,
            "dimensions",
            offset,
            format!(
                "{width}×{height} is larger than the {MAX_DIMENSION}×{MAX_DIMENSION} kiln accepts"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_content_is_a_parse_error_at_byte_0() {
        let e = decode(b"hello world, not an image", Path::new("x.bmp")).unwrap_err();
        match e {
            crate::Error::Parse(p) => {
                assert_eq!((p.field.as_str(), p.offset), ("magic", 0));
                assert_eq!(p.file, Path::new("x.bmp"));
            }
            other => panic!("expected a parse error, got {other}"),
        }
    }
}
