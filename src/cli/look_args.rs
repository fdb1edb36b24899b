//! The sprite-look flags of `kiln render` (outline, drop shadow, palette,
//! shading, ground shadow) and the data passes.

use super::values::{color, flag_error, number, offset};
use clap::{Args, ValueEnum};
use kiln::{limits, DropShadow, Error, FileRef, GroundShadow, Look, Outline, PaletteLook, Shading};
use std::path::PathBuf;

/// Sprite looks of a model render (all off by default).
#[derive(Args)]
pub struct LookArgs {
    /// Outline width in pixels (1-8)
    #[arg(long, value_name = "PIXELS", value_parser = clap::value_parser!(u32).range(1..=limits::MAX_OUTLINE as i64))]
    outline: Option<u32>,
    /// Outline colour
    #[arg(long, value_name = "COLOR", default_value = "#000000", value_parser = color, requires = "outline")]
    outline_color: [u8; 4],
    /// Draw the outline over the silhouette's edge instead of around it
    #[arg(long, requires = "outline")]
    outline_inside: bool,
    /// Hard (pixel-art) outline edges instead of anti-aliased ones
    #[arg(long, requires = "outline")]
    outline_hard: bool,
    /// Inner lines too, where a part of the model passes in front of another by more than
    /// this fraction (0-1] of the depth the model spans
    #[arg(long, value_name = "JUMP", requires = "outline", value_parser = number(Outline::check_inner))]
    outline_inner: Option<f32>,
    /// Drop shadow offset in pixels as DX,DY (x right, y down)
    #[arg(long, value_name = "DX,DY", value_parser = offset, allow_hyphen_values = true)]
    drop_shadow: Option<[i32; 2]>,
    /// Drop shadow blur radius in pixels (0-32)
    #[arg(long, value_name = "PIXELS", default_value_t = limits::DROP_BLUR, value_parser = clap::value_parser!(u32).range(0..=limits::MAX_BLUR as i64), requires = "drop_shadow")]
    drop_blur: u32,
    /// Drop shadow colour; its alpha is the opacity
    #[arg(long, value_name = "COLOR", default_value = "#00000080", value_parser = color, requires = "drop_shadow")]
    drop_color: [u8; 4],
    /// Map colours to this palette (.gpl, .hex or .png swatch); alpha becomes 0 or 255
    #[arg(long, value_name = "FILE", conflicts_with = "colors")]
    palette: Option<PathBuf>,
    /// Map colours to this many colours (2-256) chosen from the image
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(limits::MIN_COLORS as i64..=limits::MAX_COLORS as i64))]
    colors: Option<u32>,
    /// Dithering of the palette mapping
    #[arg(long, value_enum, default_value = "none")]
    dither: DitherArg,
    /// How the model is lit
    #[arg(long, value_enum, default_value = "lambert")]
    shading: ShadingArg,
    /// Cel shading: light levels (2-8)
    #[arg(long, value_name = "N", default_value_t = limits::CEL_BANDS, value_parser = clap::value_parser!(u32).range(limits::MIN_CEL_BANDS as i64..=limits::MAX_CEL_BANDS as i64))]
    cel_bands: u32,
    /// Cel shading: rim light strength (0-1)
    #[arg(long, value_name = "STRENGTH", default_value_t = 0.0, value_parser = number(kiln::limits::check_rim))]
    rim: f32,
    /// Ground shadow from the model's geometry, cast along the light or straight down
    #[arg(long, value_enum, value_name = "FROM")]
    ground_shadow: Option<ShadowArg>,
    /// Ground shadow opacity (0-1)
    #[arg(
        long,
        value_name = "OPACITY",
        default_value_t = limits::SHADOW_OPACITY,
        requires = "ground_shadow",
        value_parser = number(GroundShadow::check_opacity)
    )]
    shadow_opacity: f32,
    /// Draw this pass instead of the colours: camera-space normals, depth, or flat ID
    /// colours (with a legend, OUTPUT_legend.json)
    #[arg(long, value_enum, value_name = "PASS")]
    pub pass: Option<PassArg>,
    /// Depth pass: bits of the grey PNG
    #[arg(long, value_name = "BITS", default_value_t = 16, value_parser = clap::builder::TypedValueParser::map(clap::builder::PossibleValuesParser::new(["8", "16"]), |s: String| if s == "8" { 8u8 } else { 16 }), requires = "pass")]
    depth_bits: u8,
    /// ID pass: one colour per material or per node
    #[arg(long, value_enum, default_value = "material", requires = "pass")]
    id_by: IdByArg,
    /// Ground shadow blur radius in pixels (0-32)
    #[arg(long, value_name = "PIXELS", default_value_t = limits::SHADOW_SOFTNESS, value_parser = clap::value_parser!(u32).range(0..=limits::MAX_BLUR as i64), requires = "ground_shadow")]
    shadow_softness: u32,
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
enum ShadingArg {
    Lambert,
    Flat,
    Unlit,
    Cel,
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
pub enum PassArg {
    Normal,
    Depth,
    Id,
}

#[derive(Clone, Copy, ValueEnum)]
enum IdByArg {
    Material,
    Node,
}

#[derive(Clone, Copy, ValueEnum)]
enum ShadowArg {
    Light,
    Down,
}

#[derive(Clone, Copy, ValueEnum)]
enum DitherArg {
    None,
    Ordered,
    Diffusion,
}

impl LookArgs {
    /// The look these flags describe.
    pub fn look(&self) -> Look {
        let palette = match (&self.palette, self.colors) {
            (Some(f), _) => Some(kiln::PaletteSource::File(FileRef::from(f.as_path()))),
            (None, Some(n)) => Some(kiln::PaletteSource::Auto(n)),
            (None, None) => None,
        };
        Look {
            outline: self.outline.map(|width| Outline {
                width,
                color: self.outline_color,
                side: if self.outline_inside {
                    kiln::OutlineSide::Inside
                } else {
                    kiln::OutlineSide::Outside
                },
                hard: self.outline_hard,
                inner: self.outline_inner,
            }),
            drop_shadow: self.drop_shadow.map(|offset| DropShadow {
                offset,
                blur: self.drop_blur,
                color: self.drop_color,
            }),
            palette: palette.map(|source| PaletteLook {
                source,
                dither: match self.dither {
                    DitherArg::None => kiln::Dither::None,
                    DitherArg::Ordered => kiln::Dither::Ordered,
                    DitherArg::Diffusion => kiln::Dither::Diffusion,
                },
            }),
            shading: match self.shading {
                ShadingArg::Lambert => Shading::Lambert,
                ShadingArg::Flat => Shading::Flat,
                ShadingArg::Unlit => Shading::Unlit,
                ShadingArg::Cel => Shading::Cel {
                    bands: self.cel_bands,
                    rim: self.rim,
                },
            },
            ground_shadow: self.ground_shadow.map(|from| GroundShadow {
                from: match from {
                    ShadowArg::Light => kiln::ShadowFrom::Light,
                    ShadowArg::Down => kiln::ShadowFrom::Down,
                },
                opacity: self.shadow_opacity,
                softness: self.shadow_softness,
                color: [0, 0, 0],
            }),
            passes: kiln::Passes::default(),
        }
    }

    /// The look's own checks (those a recipe's `look:` makes), each error
    /// naming its flag; and `--rim` only with cel shading.
    pub fn check(&self) -> Result<(), Error> {
        kiln::limits::check_rim(self.rim).map_err(|e| flag_error("--rim", e))?;
        GroundShadow::check_opacity(self.shadow_opacity)
            .map_err(|e| flag_error("--shadow-opacity", e))?;
        if let Some(j) = self.outline_inner {
            Outline::check_inner(j).map_err(|e| flag_error("--outline-inner", e))?;
        }
        if self.shading != ShadingArg::Cel && self.rim != 0.0 {
            return Err(Error::Usage("--rim needs --shading cel".into()));
        }
        Ok(())
    }

    /// The pass `--pass` names, with `--id-by`.
    pub fn pass_view(&self, pass: PassArg) -> kiln::PassView {
        match pass {
            PassArg::Normal => kiln::PassView::Normal,
            PassArg::Depth => kiln::PassView::Depth,
            PassArg::Id => kiln::PassView::Id(self.id_by()),
        }
    }

    /// What `--id-by` colours by.
    pub fn id_by(&self) -> kiln::IdBy {
        match self.id_by {
            IdByArg::Material => kiln::IdBy::Material,
            IdByArg::Node => kiln::IdBy::Node,
        }
    }

    /// The depth pass's PNG bits, `--depth-bits`.
    pub fn depth_bits(&self) -> kiln::DepthBits {
        if self.depth_bits == 8 {
            kiln::DepthBits::Eight
        } else {
            kiln::DepthBits::Sixteen
        }
    }
}
