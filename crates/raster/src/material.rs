//! How a batch's material is drawn, as the scene model states it: its
//! alpha mode and its texture's sampler. The scene model re-exports these
//! (`kiln::scene`), so a reader and the rasterizer name the same types.

/// How a material's alpha is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AlphaMode {
    /// Alpha ignored.
    Opaque,
    /// Alpha test: texels below the cutoff are discarded (colour keys).
    Mask(f32),
    /// Blended after opaque geometry, back to front.
    Blend,
}

/// How a texture is sampled: what lies outside 0..1 on each axis, and the
/// filter. The default is what kiln did before samplers existed: repeat,
/// bilinear.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sampler {
    /// Along u.
    pub wrap_u: Wrap,
    /// Along v.
    pub wrap_v: Wrap,
    /// Between texels.
    pub filter: Filter,
}

/// What a texture coordinate outside 0..1 samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Wrap {
    /// The texture tiles.
    #[default]
    Repeat,
    /// The edge texels extend.
    Clamp,
    /// The texture tiles, every other copy mirrored.
    Mirror,
}

/// How a texture is filtered between texel centres.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Filter {
    /// The four nearest texels, weighted.
    #[default]
    Bilinear,
    /// The texel under the coordinate alone (pixel art).
    Nearest,
}
