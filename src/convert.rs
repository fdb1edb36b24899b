//! `kiln convert`: any texture kiln reads (BMP, TGA, PNG, DDS, PAA/PAC) to
//! PNG — the PAA → PNG step Arma modders otherwise need Windows tools for.

use crate::error::Result;
use crate::formats::texture::{decode_with, DecodeOptions};
use crate::source::Lookup;
use crate::spec::FileRef;
use std::path::{Path, PathBuf};

/// Decodes `texture` (from disk, else from the `data` folders and
/// archives by the name as written) at mip level `options.mip`, and writes
/// it as an RGBA PNG to `out`. Returns the image's size.
pub fn convert_texture(
    texture: &FileRef,
    data: &[PathBuf],
    options: DecodeOptions,
    out: &Path,
) -> Result<(u32, u32)> {
    let lookup = Lookup::with_folders(data, &[])?;
    let (bytes, origin) = lookup.read_named(texture)?;
    let t = decode_with(&bytes, &origin.name(), options)?;
    // The decoded texels are premultiplied; PNG keeps straight alpha.
    let mut img = image::RgbaImage::new(t.width, t.height);
    for (p, t) in img.pixels_mut().zip(&t.texels) {
        let a = t[3] as u32;
        let un = |c: u8| {
            (c as u32 * 255 + a / 2)
                .checked_div(a)
                .map_or(0, |v| v.min(255) as u8)
        };
        *p = image::Rgba([un(t[0]), un(t[1]), un(t[2]), t[3]]);
    }
    crate::output::write_png(out, &img)?;
    Ok((t.width, t.height))
}
