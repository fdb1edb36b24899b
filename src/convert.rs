//! `kiln convert`: any texture kiln reads (BMP, TGA, PNG, DDS, PAA/PAC) to
//! PNG — the PAA → PNG step Arma modders otherwise need Windows tools for.

use crate::error::Result;
use crate::formats::texture::{decode_within, DecodeOptions};
use crate::source::Lookup;
use crate::spec::FileRef;
use std::path::{Path, PathBuf};

/// Decodes `texture` (from disk, else from the `data` folders and
/// archives by the name as written) at mip level `options.mip`, and writes
/// it as an RGBA PNG to `out`. Returns the image's size. The texels may
/// take `options.memory_limit` bytes; the PNG is encoded from them without
/// another copy of the image.
pub fn convert_texture(
    texture: &FileRef,
    data: &[PathBuf],
    options: DecodeOptions,
    out: &Path,
) -> Result<(u32, u32)> {
    let lookup = Lookup::with_folders(data, &[])?.with_memory_limit(options.memory_limit);
    let (bytes, origin) = lookup.read_named(texture)?;
    let t = decode_within(&bytes, &origin.name(), options, lookup.memory())?;
    drop(bytes);
    let (width, height) = (t.width, t.height);
    // The decoded texels are premultiplied; PNG keeps straight alpha. Undone
    // in place, and the texels become the image's bytes without a copy.
    let mut texels = t.texels;
    crate::texture::unpremultiply_all(&mut texels);
    let img = image::RgbaImage::from_raw(width, height, texels.into_flattened())
        .ok_or_else(|| crate::Error::Other(format!("{width}x{height}: texel count mismatch")))?;
    crate::output::write_png(out, &img)?;
    Ok((width, height))
}
