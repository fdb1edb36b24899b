//! The range of every look value, checked in one place: a recipe's
//! `look:` and `kiln render`'s look flags check each value as it is read
//! (`Outline::check_width`, …), and [`Look::check`] a look a program built.
//! Each error names the field as a recipe writes it (`look.outline.width`).

use super::{
    DropShadow, GroundShadow, Look, Outline, PaletteLook, PaletteSource, Shading, MAX_BLUR,
    MAX_CEL_BANDS, MAX_OFFSET, MAX_OUTLINE, MIN_CEL_BANDS, MIN_COLORS,
};
use crate::error::ValueError;
use crate::palette::MAX_COLORS;
use crate::range;

impl Look {
    /// Refuses a value no look takes (each part's `check`), as a usage
    /// error naming the field.
    pub fn check(&self) -> crate::Result<()> {
        if let Some(o) = &self.outline {
            o.check()?;
        }
        if let Some(d) = &self.drop_shadow {
            d.check()?;
        }
        if let Some(p) = &self.palette {
            p.check()?;
        }
        check_shading(&self.shading)?;
        if let Some(g) = &self.ground_shadow {
            g.check()?;
        }
        Ok(())
    }
}

impl Outline {
    /// An outline width in pixels, 1..=[`MAX_OUTLINE`].
    pub fn check_width(width: i64) -> Result<u32, ValueError> {
        range::whole("look.outline.width", width, 1, MAX_OUTLINE)
    }

    /// The depth jump of inner lines, as a fraction in (0, 1].
    pub fn check_inner(jump: f32) -> Result<f32, ValueError> {
        range::above("look.outline.inner", jump, 0.0, 1.0)
    }

    /// Every field of this outline.
    pub fn check(&self) -> Result<(), ValueError> {
        Outline::check_width(self.width.into())?;
        if let Some(jump) = self.inner {
            Outline::check_inner(jump)?;
        }
        Ok(())
    }
}

impl DropShadow {
    /// An offset in pixels, each axis at most [`MAX_OFFSET`] either way.
    pub fn check_offset(offset: [i64; 2]) -> Result<[i32; 2], ValueError> {
        let m = i64::from(MAX_OFFSET);
        match offset {
            [x, y] if (-m..=m).contains(&x) && (-m..=m).contains(&y) => Ok([x as i32, y as i32]),
            [x, y] => Err(ValueError {
                field: "look.drop_shadow.offset",
                message: format!("must be in -{m}..={m} pixels, got [{x}, {y}]"),
            }),
        }
    }

    /// A blur radius in pixels, 0..=[`MAX_BLUR`].
    pub fn check_blur(blur: i64) -> Result<u32, ValueError> {
        range::whole("look.drop_shadow.blur", blur, 0, MAX_BLUR)
    }

    /// Every field of this drop shadow.
    pub fn check(&self) -> Result<(), ValueError> {
        DropShadow::check_offset(self.offset.map(i64::from))?;
        DropShadow::check_blur(self.blur.into())?;
        Ok(())
    }
}

impl PaletteLook {
    /// How many colours a palette chosen from the image has,
    /// [`MIN_COLORS`]..=256.
    pub fn check_colors(n: i64) -> Result<u32, ValueError> {
        range::whole("look.palette.colors", n, MIN_COLORS, MAX_COLORS as u32)
    }

    /// Every field of this palette look.
    pub fn check(&self) -> Result<(), ValueError> {
        if let PaletteSource::Auto(n) = self.source {
            PaletteLook::check_colors(n.into())?;
        }
        Ok(())
    }
}

/// Light levels of cel shading, [`MIN_CEL_BANDS`]..=[`MAX_CEL_BANDS`].
/// ([`Shading`] is the rasterizer's type, so its checks are functions here.)
pub fn check_cel_bands(bands: i64) -> Result<u32, ValueError> {
    range::whole("look.cel.bands", bands, MIN_CEL_BANDS, MAX_CEL_BANDS)
}

/// Rim light strength of cel shading, in [0, 1].
pub fn check_rim(rim: f32) -> Result<f32, ValueError> {
    range::closed("look.cel.rim", rim, 0.0, 1.0)
}

/// Every field of a shading.
pub fn check_shading(shading: &Shading) -> Result<(), ValueError> {
    if let Shading::Cel { bands, rim } = *shading {
        check_cel_bands(bands.into())?;
        check_rim(rim)?;
    }
    Ok(())
}

impl GroundShadow {
    /// The ground shadow's opacity, in [0, 1].
    pub fn check_opacity(opacity: f32) -> Result<f32, ValueError> {
        range::closed("look.ground_shadow.opacity", opacity, 0.0, 1.0)
    }

    /// The ground shadow's blur radius in pixels, 0..=[`MAX_BLUR`].
    pub fn check_softness(softness: i64) -> Result<u32, ValueError> {
        range::whole("look.ground_shadow.softness", softness, 0, MAX_BLUR)
    }

    /// Every field of this ground shadow.
    pub fn check(&self) -> Result<(), ValueError> {
        GroundShadow::check_opacity(self.opacity)?;
        GroundShadow::check_softness(self.softness.into())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::look::{ShadowFrom, OUTLINE_COLOR};

    #[test]
    fn each_part_names_its_field() {
        let outline = Outline {
            width: 9,
            color: OUTLINE_COLOR,
            side: Default::default(),
            hard: false,
            inner: None,
        };
        let look = Look {
            outline: Some(outline),
            ..Look::default()
        };
        match look.check() {
            Err(crate::Error::Usage(m)) => {
                assert_eq!(m, "look.outline.width must be in 1..=8, got 9")
            }
            other => panic!("{other:?}"),
        }
        assert!(Outline {
            width: 8,
            inner: Some(1.0),
            ..outline
        }
        .check()
        .is_ok());
        assert_eq!(
            Outline::check_inner(0.0).unwrap_err().to_string(),
            "look.outline.inner must be in (0, 1], got 0"
        );
        assert_eq!(
            DropShadow::check_offset([3, -257]).unwrap_err().message,
            "must be in -256..=256 pixels, got [3, -257]"
        );
        assert_eq!(DropShadow::check_offset([-256, 256]), Ok([-256, 256]));
        assert_eq!(
            check_rim(f32::NAN).unwrap_err().message,
            "must be a finite number, got NaN"
        );
        let cel = Shading::Cel { bands: 9, rim: 0.0 };
        assert_eq!(check_shading(&cel).unwrap_err().field, "look.cel.bands");
        let ground = GroundShadow {
            from: ShadowFrom::Down,
            opacity: 1.5,
            softness: 1,
            color: [0, 0, 0],
        };
        assert_eq!(
            ground.check().unwrap_err().field,
            "look.ground_shadow.opacity"
        );
        assert_eq!(
            PaletteLook::check_colors(257).unwrap_err().message,
            "must be in 2..=256, got 257"
        );
        assert!(Look::default().check().is_ok());
    }
}
