//! Looks: what sprite artists add to a render — outlines, a 2D drop
//! shadow, pixel-art palettes with dithering — applied to every frame after
//! it is rendered and before sheets, frame PNGs and GIFs are written. Each
//! look is its own file; [`Look`] gathers them, and the default (every
//! look off) leaves frames untouched, byte for byte.
//!
//! Order on a frame: outline, then drop shadow (so the outline casts a
//! shadow too), then the palette (so every pixel of the result, shadow and
//! outline included, is a palette colour). The palette of `colors: N` is
//! chosen once per job from every frame of every clip and direction.

pub mod blur;
mod check;
pub use check::{check_cel_bands, check_rim, check_shading};
pub mod dither;
pub mod drop_shadow;
pub mod frames;
pub mod ground_shadow;
pub mod outline;
pub mod passes;

pub use crate::palette::Palette;

use image::RgbaImage;

/// Every look of a job or a `kiln render`; the default has all off.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Look {
    /// A line around (or inside) the silhouette.
    pub outline: Option<Outline>,
    /// The frame's shape, blurred and offset, under it.
    pub drop_shadow: Option<DropShadow>,
    /// Colours mapped to a palette, alpha made 0 or 255.
    pub palette: Option<PaletteLook>,
    /// How the model is lit.
    pub shading: Shading,
    /// The model's shadow on the ground, from its geometry.
    pub ground_shadow: Option<GroundShadow>,
    /// Normal, depth and ID sheets written beside the colour sheet.
    pub passes: passes::Passes,
}

pub use crate::raster::Shading;

/// Which way a ground shadow is cast.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShadowFrom {
    /// Along the job's light (a light lower than 10° casts as at 10°).
    #[default]
    Light,
    /// Straight down: a contact shadow under the model.
    Down,
}

/// A shadow of the model on the ground plane under it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroundShadow {
    /// Along the light or straight down.
    pub from: ShadowFrom,
    /// 0..=1.
    pub opacity: f32,
    /// Blur radius in pixels, 0..=32.
    pub softness: u32,
    /// Straight RGB of the shadow.
    pub color: [u8; 3],
}

/// Which side of the silhouette's edge the outline is drawn on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutlineSide {
    /// Around the silhouette, growing the sprite.
    #[default]
    Outside,
    /// Over the silhouette's own edge pixels.
    Inside,
}

/// An outline `width` pixels wide.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outline {
    /// Width in output pixels, 1..=8.
    pub width: u32,
    /// Straight RGBA.
    pub color: [u8; 4],
    /// Around or inside the silhouette.
    pub side: OutlineSide,
    /// Hard pixel edges (every outline pixel fully the colour) instead of
    /// an anti-aliased outer edge.
    pub hard: bool,
    /// Lines inside the silhouette too, where one part of the model passes
    /// in front of another: a depth jump larger than this fraction (0..=1)
    /// of the depth the clip spans from the camera. `None`: no inner lines.
    pub inner: Option<f32>,
}

/// A drop shadow: the frame's coverage blurred by `blur` pixels, tinted
/// `color`, moved by `offset` pixels (x right, y down).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DropShadow {
    /// Pixels right and down.
    pub offset: [i32; 2],
    /// Blur radius in pixels, 0..=32.
    pub blur: u32,
    /// Straight RGBA; its alpha is the shadow's opacity.
    pub color: [u8; 4],
}

/// Where a pixel-art palette comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum PaletteSource {
    /// Given colours.
    Fixed(Palette),
    /// A palette file (`.gpl`, `.hex`, `.png`), read when the job is
    /// planned ([`Look::load_palette`]).
    File(crate::spec::FileRef),
    /// This many colours (2..=256), chosen once per job by median cut.
    Auto(u32),
}

/// How colours between palette entries are approximated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dither {
    /// Each pixel takes its nearest colour.
    #[default]
    None,
    /// An 8×8 Bayer pattern.
    Ordered,
    /// Floyd–Steinberg error diffusion.
    Diffusion,
}

/// Palette mapping of a pixel-art look.
#[derive(Debug, Clone, PartialEq)]
pub struct PaletteLook {
    /// The colours.
    pub source: PaletteSource,
    /// How colours between them are approximated.
    pub dither: Dither,
}

/// Most outline width, pixels.
pub const MAX_OUTLINE: u32 = 8;
/// Most drop-shadow blur radius (and ground-shadow softness), pixels.
pub const MAX_BLUR: u32 = 32;
/// Most drop-shadow offset along an axis, pixels.
pub const MAX_OFFSET: i32 = 256;
/// Fewest light levels of cel shading.
pub const MIN_CEL_BANDS: u32 = 2;
/// Most light levels of cel shading.
pub const MAX_CEL_BANDS: u32 = 8;
/// Fewest colours of a palette chosen from the image.
pub const MIN_COLORS: u32 = 2;

/// Outline defaults: one black pixel outside, anti-aliased.
pub const OUTLINE_WIDTH: u32 = 1;
/// The outline's colour when none is given: opaque black.
pub const OUTLINE_COLOR: [u8; 4] = [0, 0, 0, 255];
/// Drop shadow defaults: 50 % black, 2 px right and down, 2 px blur.
pub const DROP_OFFSET: [i32; 2] = [2, 2];
/// The drop shadow's blur radius when none is given, pixels.
pub const DROP_BLUR: u32 = 2;
/// The drop shadow's colour when none is given: half-opaque black.
pub const DROP_COLOR: [u8; 4] = [0, 0, 0, 128];
/// Cel defaults: three light levels, no rim.
pub const CEL_BANDS: u32 = 3;
/// Ground shadow defaults: half-opaque black, 1 px of softness.
pub const SHADOW_OPACITY: f32 = 0.5;
/// The ground shadow's blur radius when none is given, pixels.
pub const SHADOW_SOFTNESS: u32 = 1;

impl Look {
    /// Whether every look is off (frames are left as rendered).
    pub fn is_off(&self) -> bool {
        *self == Look::default()
    }

    /// Pixels the framing keeps free on each side so outline, drop
    /// shadow and the ground shadow's softness stay inside the frame.
    pub fn margin(&self) -> u32 {
        let soft = self.ground_shadow.map_or(0, |g| 3 * g.softness);
        let line = match &self.outline {
            Some(o) if o.side == OutlineSide::Outside => o.width + 1,
            _ => 0,
        };
        let drop = self.drop_shadow.map_or(0, |d| {
            // Three box passes reach three radii.
            d.offset[0].unsigned_abs().max(d.offset[1].unsigned_abs()) + 3 * d.blur
        });
        line + drop + soft
    }

    /// The framing with room for [`Look::margin`] in a `w × h` frame: the
    /// padding grows by the margin's share of the shorter side.
    pub fn framing(
        &self,
        framing: crate::camera::Framing,
        w: u32,
        h: u32,
    ) -> crate::camera::Framing {
        let m = self.margin();
        if m == 0 {
            return framing;
        }
        let extra = m as f32 / w.min(h).max(1) as f32;
        crate::camera::Framing {
            padding: (framing.padding + extra).min(0.45),
            ..framing
        }
    }

    /// The per-frame looks (outline, drop shadow) on one frame, without
    /// inner lines (they need the frame's depth: [`Look::apply_frame_with_depth`]).
    pub fn apply_frame(&self, img: &mut RgbaImage) {
        self.apply_frame_with_depth(img, None);
    }

    /// The per-frame looks on one frame; `depth` is the frame's depth pass
    /// (see [`crate::raster::Pass::Depth`]) for the outline's inner lines.
    pub fn apply_frame_with_depth(&self, img: &mut RgbaImage, depth: Option<&RgbaImage>) {
        if let Some(o) = &self.outline {
            if let (Some(jump), Some(depth)) = (o.inner, depth) {
                outline::apply_inner(img, depth, o, jump);
            }
            outline::apply(img, o);
        }
        if let Some(s) = &self.drop_shadow {
            drop_shadow::apply(img, s);
        }
    }

    /// Reads a palette file, if the look names one, with `read`, and keeps
    /// its colours instead.
    pub fn load_palette(
        &mut self,
        read: impl FnOnce(&crate::spec::FileRef) -> crate::Result<Vec<u8>>,
    ) -> crate::Result<()> {
        if let Some(p) = &mut self.palette {
            if let PaletteSource::File(f) = &p.source {
                let bytes = read(f)?;
                let name = f.disk.display().to_string();
                p.source = PaletteSource::Fixed(Palette::parse(&name, &bytes)?);
            }
        }
        Ok(())
    }

    /// The palette for a job whose frames are `frames`, when the look maps
    /// to one (a file not yet loaded gives none).
    pub fn job_palette(&self, frames: &[&RgbaImage]) -> Option<Palette> {
        match &self.palette.as_ref()?.source {
            PaletteSource::Fixed(p) => Some(p.clone()),
            PaletteSource::File(_) => None,
            PaletteSource::Auto(n) => Some(Palette::over_frames(
                frames,
                *n as usize,
                dither::OPAQUE_FROM,
            )),
        }
    }

    /// Whether the job's palette is chosen over its rendered frames
    /// (`colors: N`), so no frame can be mapped before every frame is
    /// drawn.
    pub fn palette_over_frames(&self) -> bool {
        matches!(
            self.palette.as_ref().map(|p| &p.source),
            Some(PaletteSource::Auto(_))
        )
    }

    /// The mapping to `palette` with this look's dithering, built once
    /// for every frame of a job.
    pub fn mapper<'a>(&self, palette: &'a Palette) -> dither::Mapper<'a> {
        let dither = self.palette.as_ref().map_or(Dither::None, |p| p.dither);
        dither::Mapper::new(palette, dither)
    }
}

/// `top` over `bottom`, straight RGBA8 (source-over, rounded).
pub fn over_pixel(top: [u8; 4], bottom: [u8; 4]) -> [u8; 4] {
    let ta = top[3] as u32;
    if ta == 255 || bottom[3] == 0 {
        return top;
    }
    if ta == 0 {
        return bottom;
    }
    // Alphas scaled to 255·255 so the sum stays in integers.
    let ba = bottom[3] as u32 * (255 - ta);
    let out_a = ta * 255 + ba;
    let mut out = [0u8; 4];
    for k in 0..3 {
        let num = top[k] as u32 * ta * 255 + bottom[k] as u32 * ba;
        out[k] = ((num + out_a / 2) / out_a) as u8;
    }
    out[3] = ((out_a + 127) / 255) as u8;
    out
}
