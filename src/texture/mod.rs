//! Texture decoding (BMP, TGA, PNG), colour keys, and texture lookup.
//!
//! Every decoder produces the same [`Texture`]: premultiplied RGBA8 with row 0
//! at the top (UV v = 0), so bilinear filtering never bleeds colour out of
//! transparent texels (no pink fringes from colour-keyed magenta).

mod bmp;
mod lookup;
mod tga;

pub use lookup::TextureResolver;

use std::path::Path;

/// How a texture uses alpha; decides the material's alpha mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureAlpha {
    /// Every texel opaque.
    Opaque,
    /// Only fully opaque or fully transparent texels (BMP magenta colour key).
    ColorKey,
    /// Real alpha (TGA/PNG with an alpha channel in use): drawn blended.
    Translucent,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    pub name: String,
    pub width: u32,
    pub height: u32,
    /// Premultiplied RGBA8, `width * height` texels, row 0 = top.
    pub texels: Vec<[u8; 4]>,
    pub alpha: TextureAlpha,
}

impl Texture {
    /// The visible checker drawn where a texture is missing.
    pub fn checker() -> Texture {
        todo!("checker")
    }
}

/// Decodes a texture file by its contents (BMP, TGA or PNG), applying the
/// Ragnarok magenta colour key to BMPs.
pub fn load(path: &Path) -> crate::Result<Texture> {
    let _ = path;
    todo!("texture load")
}

/// As [`load`], from bytes; `name` is used in errors.
pub fn decode(data: &[u8], name: &Path) -> crate::Result<Texture> {
    let _ = (data, name);
    todo!("texture decode")
}
