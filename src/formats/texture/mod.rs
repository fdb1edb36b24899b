//! Texture files: BMP (with the Ragnarok magenta colour key), TGA, PNG, DDS
//! and Arma PAA/PAC decoders, and the BMP/TGA/PAA encoders kiln's sample
//! generators and tests use. Every decoder produces the same [`Texture`].

mod bmp;
mod dds;
pub mod dxt;
pub(crate) mod jpeg;
pub mod paa;
pub(crate) mod png;
mod tga;
mod via_image;

pub use crate::texture::{Texture, TextureAlpha};
pub use bmp::{encode_bmp24, encode_bmp8};
pub use tga::encode_tga32;

use crate::error::ParseError;
use crate::memory::{try_vec, Allowance, Held};
use crate::source::{Found, Lookup};
use crate::spec::FileRef;
use crate::texture::MAX_DIMENSION;
use std::path::{Path, PathBuf};

/// Decodes a texture file by its contents (BMP, TGA, PNG, DDS or PAA),
/// applying the Ragnarok magenta colour key to BMPs; `name` is used in
/// errors and as the texture's name (its last component). Its texels may
/// take up to [`DEFAULT_MEMORY_LIMIT`](crate::DEFAULT_MEMORY_LIMIT).
pub fn decode(data: &[u8], name: &Path) -> crate::Result<Texture> {
    decode_with(data, name, DecodeOptions::default())
}

/// How [`decode_with`] decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Apply the Ragnarok magenta colour key to BMPs.
    pub colour_key: bool,
    /// Which mip level (0 = the largest; PAA and DDS hold several).
    pub mip: u32,
    /// Bytes the decoded texels and the decoder's working buffers may take
    /// (`--memory-limit`); a larger image is refused before it is decoded.
    pub memory_limit: u64,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            colour_key: true,
            mip: 0,
            memory_limit: crate::memory::DEFAULT_MEMORY_LIMIT,
        }
    }
}

/// Decodes a texture file by its contents with `options`.
pub fn decode_with(data: &[u8], name: &Path, options: DecodeOptions) -> crate::Result<Texture> {
    decode_within(data, name, options, &Allowance::new(options.memory_limit))
}

/// [`decode_with`] charging the texels to `memory` (a load's allowance,
/// shared by all the textures it decodes) rather than to
/// `options.memory_limit`; they stay charged once decoded.
pub(crate) fn decode_within(
    data: &[u8],
    name: &Path,
    options: DecodeOptions,
    memory: &Allowance,
) -> crate::Result<Texture> {
    // Not a fault of the file at some byte: the request asks for what this
    // kind of file cannot hold.
    let only_one = |kind: &str| -> crate::Result<Texture> {
        Err(crate::Error::Other(format!(
            "{}: a {kind} file holds one image: there is no mip level {} (only 0)",
            name.display(),
            options.mip
        )))
    };
    let decoded = if data.starts_with(b"BM") {
        if options.mip > 0 {
            return only_one("BMP");
        }
        bmp::decode_keyed(data, name, options.colour_key, memory)
    } else if data.starts_with(dds::MAGIC) {
        dds::decode_mip(data, name, options.mip, memory)
    } else if paa::looks_like_paa(data, name) {
        paa::decode_mip_in(data, name, options.mip as usize, memory)
    } else if options.mip > 0 {
        return only_one(if data.starts_with(png::MAGIC) {
            "PNG"
        } else {
            "TGA"
        });
    } else if data.starts_with(png::MAGIC) {
        png::decode(data, name, memory)
    } else if tga::looks_like_tga(data) {
        tga::decode(data, name, memory)
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

/// What `kiln inspect` says about a texture file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TextureSummary {
    /// The file format and its variant: `BMP 8-bit`, `PAA DXT5`, `DDS DXT1`.
    pub format: String,
    /// Width of the largest image.
    pub width: u32,
    /// Height of the largest image.
    pub height: u32,
    /// `Opaque`, `ColorKey` or `Translucent`, as kiln draws it.
    pub alpha: String,
    /// Every mip level's size, largest first.
    pub mips: Vec<[u32; 2]>,
    /// Texels the colour key made transparent (BMP).
    pub keyed_texels: usize,
    /// Opaque texels close to magenta that the key left (r ≥ 200, g ≤ 60,
    /// b ≥ 200): what would show as a pink fringe.
    pub near_key_texels: usize,
    /// Up to eight of those colours, most frequent first, with counts.
    pub near_key_colours: Vec<([u8; 3], usize)>,
    /// PAA tags, alpha flag and swizzle, and the like.
    pub notes: Vec<String>,
}

/// Decodes a texture and summarises it.
pub fn summarize(data: &[u8], name: &Path) -> crate::Result<TextureSummary> {
    summarize_within(data, name, &Allowance::default())
}

/// [`summarize`] with the texels charged to `memory`.
pub(crate) fn summarize_within(
    data: &[u8],
    name: &Path,
    memory: &Allowance,
) -> crate::Result<TextureSummary> {
    let texture = decode_within(data, name, DecodeOptions::default(), memory)?;
    let mut notes = Vec::new();
    let (format, mips) = if data.starts_with(b"BM") {
        let bits = data
            .get(28..30)
            .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]));
        (
            format!("BMP {bits}-bit"),
            vec![[texture.width, texture.height]],
        )
    } else if data.starts_with(png::MAGIC) {
        ("PNG".to_string(), vec![[texture.width, texture.height]])
    } else if data.starts_with(dds::MAGIC) {
        let four = data
            .get(84..88)
            .map(|f| String::from_utf8_lossy(f).trim_matches('\0').to_string());
        let l = dds::levels(data, name)?;
        if l.declared > l.usable() {
            notes.push(format!(
                "header.mip_map_count at byte 28 declares {} levels; a {}×{} image has at most \
                 {} and the file holds {} whole: {} listed",
                l.declared,
                texture.width,
                texture.height,
                l.possible,
                l.present,
                l.usable()
            ));
        }
        // At most 15 levels (a 16384² chain), whatever the header says.
        let mips = (0..l.usable().max(1))
            .map(|i| [(texture.width >> i).max(1), (texture.height >> i).max(1)])
            .collect();
        (
            format!(
                "DDS {}",
                four.filter(|f| !f.is_empty())
                    .unwrap_or_else(|| "RGB".into())
            ),
            mips,
        )
    } else if paa::looks_like_paa(data, name) {
        let p = paa::parse(data, name)?;
        for (tag, len) in &p.tags {
            notes.push(format!("tag {tag}: {len} bytes"));
        }
        if let Some(f) = p.alpha_flag {
            notes.push(format!(
                "alpha flag {f} ({})",
                match f {
                    1 => "interpolated alpha: drawn blended",
                    2 => "alpha-tested: drawn with a cut-out",
                    _ => "unknown",
                }
            ));
        }
        if let Some(s) = p.swizzle {
            notes.push(format!("channel swizzle {s:?} (undone when decoding)"));
        }
        let compressed = p.mips.iter().filter(|m| m.compressed).count();
        notes.push(format!("{compressed} of {} mips compressed", p.mips.len()));
        (
            format!("PAA {:?}", p.format)
                .replace("Argb", "ARGB")
                .replace("Dxt", "DXT")
                .replace("Ai88", "AI88"),
            p.mips.iter().map(|m| [m.width, m.height]).collect(),
        )
    } else {
        ("TGA".to_string(), vec![[texture.width, texture.height]])
    };
    let keyed_texels = if data.starts_with(b"BM") {
        texture.texels.iter().filter(|t| t[3] == 0).count()
    } else {
        0
    };
    let mut near: std::collections::BTreeMap<[u8; 3], usize> = std::collections::BTreeMap::new();
    for t in &texture.texels {
        if t[3] == 255 && t[0] >= 200 && t[1] <= 60 && t[2] >= 200 {
            *near.entry([t[0], t[1], t[2]]).or_default() += 1;
        }
    }
    let near_key_texels = near.values().sum();
    let mut near_key_colours: Vec<([u8; 3], usize)> = near.into_iter().collect();
    near_key_colours.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    near_key_colours.truncate(8);
    Ok(TextureSummary {
        format,
        width: texture.width,
        height: texture.height,
        alpha: format!("{:?}", texture.alpha),
        mips,
        keyed_texels,
        near_key_texels,
        near_key_colours,
        notes,
    })
}

/// Whether `data` is a texture kiln decodes, by its first bytes (TGA,
/// which has none, by its header making sense).
pub fn looks_like_texture(data: &[u8], name: &Path) -> bool {
    data.starts_with(b"BM")
        || data.starts_with(png::MAGIC)
        || data.starts_with(dds::MAGIC)
        || paa::looks_like_paa(data, name)
        || tga::looks_like_tga(data)
}

/// A texture file read through the data sources: where it was read from,
/// and the decoded texture or why it could not be read.
pub(crate) type TextureFile = (PathBuf, crate::Result<Texture>);

/// Reads and decodes a file a source found.
pub(crate) fn read_found(lookup: &Lookup, found: &Found) -> TextureFile {
    let location = found.entry.location.clone();
    let texture = lookup
        .read(found)
        .and_then(|bytes| decode_in(lookup, &bytes, &location));
    (location, texture)
}

/// Reads and decodes an image file the user named (a recipe's
/// `materials:`): from disk, else from the sources by the name as written.
/// A file found nowhere is named by its disk path.
pub(crate) fn read_named(lookup: &Lookup, file: &FileRef) -> TextureFile {
    match lookup.read_named(file) {
        Ok((bytes, origin)) => {
            let location = origin.name();
            let texture = decode_in(lookup, &bytes, &location);
            (location, texture)
        }
        Err(e) => (file.disk.clone(), Err(e)),
    }
}

/// Decodes a texture a load read, charged to the load's allowance.
pub(crate) fn decode_in(lookup: &Lookup, data: &[u8], name: &Path) -> crate::Result<Texture> {
    decode_within(data, name, DecodeOptions::default(), lookup.memory())
}

/// Room for the `width × height` texels of an image of `file` (its size
/// given at byte `offset`), charged to `memory`: the one place a decoder
/// allocates the image it returns. The charge is given back when the
/// guard drops (a decoder that fails later) unless it is kept.
pub(crate) fn texel_buffer<'m>(
    file: &Path,
    offset: usize,
    width: u32,
    height: u32,
    memory: &'m Allowance,
) -> Result<(Vec<[u8; 4]>, Held<'m>), ParseError> {
    let n = width as u64 * height as u64;
    let fail = |m: String| {
        parse_error(
            file,
            "dimensions",
            offset,
            format!("{width}×{height} texels need {m}"),
        )
    };
    let held = memory.hold(n * 4).map_err(fail)?;
    let texels = try_vec(n as usize).map_err(|m| {
        parse_error(
            file,
            "dimensions",
            offset,
            format!("{width}×{height} texels: {m}"),
        )
    })?;
    Ok((texels, held))
}

/// Charges a decoder's working buffer of `bytes` (compressed pixels
/// expanded, a copy the decoder cannot avoid) to `memory` while it lives.
pub(crate) fn working_buffer<'m>(
    file: &Path,
    field: &str,
    offset: usize,
    bytes: u64,
    memory: &'m Allowance,
) -> Result<Held<'m>, ParseError> {
    memory
        .hold(bytes)
        .map_err(|m| parse_error(file, field, offset, format!("the decoded pixels need {m}")))
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
