//! `look:`, a job's sprite looks (see [`crate::look`]): `outline`,
//! `drop_shadow`, `palette`, `shading` with `cel`, and `ground_shadow`,
//! each taken whole from the job or from `defaults:`.

use super::error::{Ctx, JobLabel, RecipeError};
use super::raw::look::{DitherKey, IdKey, OutlineSideKey, ShadingKey, ShadowFromKey};
use super::raw::{pick, RawJob};
use super::values::S;
use crate::error::ValueError;
use crate::look::passes::{DepthBits, IdBy};
use crate::look::{
    Dither, DropShadow, GroundShadow, Look, Outline, OutlineSide, PaletteLook, PaletteSource,
    Shading, ShadowFrom, CEL_BANDS, DROP_BLUR, DROP_COLOR, DROP_OFFSET, OUTLINE_COLOR,
    OUTLINE_WIDTH, SHADOW_OPACITY, SHADOW_SOFTNESS,
};
use crate::spec::FileRef;

/// A value the look's own check ([`crate::look`]) took, or its error
/// pointed at where the value was written.
fn checked<T, V>(
    ctx: &Ctx,
    label: &str,
    at: &S<V>,
    r: Result<T, ValueError>,
) -> Result<T, RecipeError> {
    r.map_err(|e| {
        ctx.err(
            &at.referenced,
            label,
            format!("`{}` {}", e.field, e.message),
        )
    })
}

pub(super) fn resolve_look(
    ctx: &Ctx,
    lab: JobLabel,
    j: &RawJob,
    d: &RawJob,
    has_sheet: bool,
) -> Result<Look, RecipeError> {
    let jl = j.look.as_ref().map(|s| s.value.clone()).unwrap_or_default();
    let dl = d.look.as_ref().map(|s| s.value.clone()).unwrap_or_default();
    let mut look = Look::default();
    if let Some(o) = pick(&jl.outline, &dl.outline) {
        let l = lab.of(jl.outline.is_some());
        let r = &o.value;
        let width = match &r.width {
            Some(w) => checked(ctx, &l, w, Outline::check_width(w.value.0))?,
            None => OUTLINE_WIDTH,
        };
        look.outline = Some(Outline {
            width,
            color: r.color.as_ref().map_or(OUTLINE_COLOR, |c| c.value.0),
            side: match r.side.as_ref().map(|s| s.value) {
                Some(OutlineSideKey::Inside) => OutlineSide::Inside,
                _ => OutlineSide::Outside,
            },
            hard: r.hard.as_ref().is_some_and(|h| h.value),
            inner: match &r.inner {
                Some(j) => Some(checked(ctx, &l, j, Outline::check_inner(j.value.0))?),
                None => None,
            },
        });
    }
    if let Some(s) = pick(&jl.drop_shadow, &dl.drop_shadow) {
        let l = lab.of(jl.drop_shadow.is_some());
        let r = &s.value;
        let offset = match &r.offset {
            Some(o) => checked(ctx, &l, o, DropShadow::check_offset(o.value.map(|v| v.0)))?,
            None => DROP_OFFSET,
        };
        let blur = match &r.blur {
            Some(b) => checked(ctx, &l, b, DropShadow::check_blur(b.value.0))?,
            None => DROP_BLUR,
        };
        look.drop_shadow = Some(DropShadow {
            offset,
            blur,
            color: r.color.as_ref().map_or(DROP_COLOR, |c| c.value.0),
        });
    }
    if let Some(p) = pick(&jl.palette, &dl.palette) {
        let l = lab.of(jl.palette.is_some());
        let r = &p.value;
        let dither = match r.dither.as_ref().map(|d| d.value) {
            Some(DitherKey::Ordered) => Dither::Ordered,
            Some(DitherKey::Diffusion) => Dither::Diffusion,
            _ => Dither::None,
        };
        let source = match (&r.file, &r.colors) {
            (Some(f), None) => {
                if f.value.trim().is_empty() {
                    return Err(ctx.err(&f.referenced, &l, "`look.palette.file` is empty"));
                }
                PaletteSource::File(FileRef::relative_to(ctx.base, &f.value))
            }
            (None, Some(n)) => {
                PaletteSource::Auto(checked(ctx, &l, n, PaletteLook::check_colors(n.value.0))?)
            }
            _ => {
                return Err(ctx.err(
                    &p.referenced,
                    &l,
                    "`look.palette` takes either `file` (a .gpl, .hex or .png palette) or `colors` (how many to choose)",
                ))
            }
        };
        look.palette = Some(PaletteLook { source, dither });
    }
    let shading = pick(&jl.shading, &dl.shading);
    let cel = pick(&jl.cel, &dl.cel);
    look.shading = match shading.map(|s| s.value) {
        None | Some(ShadingKey::Lambert) => Shading::Lambert,
        Some(ShadingKey::Flat) => Shading::Flat,
        Some(ShadingKey::Unlit) => Shading::Unlit,
        Some(ShadingKey::Cel) => {
            let (bands, rim) = match cel {
                Some(c) => {
                    let l = lab.of(jl.cel.is_some());
                    let bands = match &c.value.bands {
                        Some(b) => checked(ctx, &l, b, crate::look::check_cel_bands(b.value.0))?,
                        None => CEL_BANDS,
                    };
                    let rim = match &c.value.rim {
                        Some(r) => checked(ctx, &l, r, crate::look::check_rim(r.value.0))?,
                        None => 0.0,
                    };
                    (bands, rim)
                }
                None => (CEL_BANDS, 0.0),
            };
            Shading::Cel { bands, rim }
        }
    };
    if let (Some(c), false) = (cel, matches!(look.shading, Shading::Cel { .. })) {
        return Err(ctx.err(
            &c.referenced,
            &lab.of(jl.cel.is_some()),
            "`look.cel` sets up cel shading; add `shading: cel`",
        ));
    }
    if let Some(g) = pick(&jl.ground_shadow, &dl.ground_shadow) {
        let l = lab.of(jl.ground_shadow.is_some());
        let r = &g.value;
        let opacity = match &r.opacity {
            Some(o) => checked(ctx, &l, o, GroundShadow::check_opacity(o.value.0))?,
            None => SHADOW_OPACITY,
        };
        let softness = match &r.softness {
            Some(s) => checked(ctx, &l, s, GroundShadow::check_softness(s.value.0))?,
            None => SHADOW_SOFTNESS,
        };
        let color = r.color.as_ref().map_or([0, 0, 0, 255], |c| c.value.0);
        look.ground_shadow = Some(GroundShadow {
            from: match r.from.as_ref().map(|f| f.value) {
                Some(ShadowFromKey::Down) => ShadowFrom::Down,
                _ => ShadowFrom::Light,
            },
            opacity,
            softness,
            color: [color[0], color[1], color[2]],
        });
    }
    if let Some(p) = pick(&jl.passes, &dl.passes) {
        let l = lab.of(jl.passes.is_some());
        let r = &p.value;
        look.passes.normal = r.normal.as_ref().is_some_and(|n| n.value);
        look.passes.depth = match &r.depth {
            Some(d) => match d.value.0 {
                8 => Some(DepthBits::Eight),
                16 => Some(DepthBits::Sixteen),
                n => {
                    return Err(ctx.err(
                        &d.referenced,
                        &l,
                        format!("`look.passes.depth` is the bits a sample keeps, 8 or 16; got {n}"),
                    ))
                }
            },
            None => None,
        };
        look.passes.id = r.id.as_ref().map(|i| match i.value {
            IdKey::Material => IdBy::Material,
            IdKey::Node => IdBy::Node,
        });
        if look.passes.any() && !has_sheet {
            return Err(ctx.err(
                &p.referenced,
                &l,
                "`look.passes` are sheets laid out like `output.sheet`, which is off",
            ));
        }
    }
    Ok(look)
}
