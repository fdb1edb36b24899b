//! `pack:` — how a job's frames are laid out on its sheet: a grid of full
//! cells (the default, what people slice by hand) or packed, trimmed to
//! their pixels; spacing, page size and page growth.

use super::error::{Ctx, JobLabel, RecipeError};
use super::raw::{pick, RawPack};
use super::values::{int_range, PackLayout, Size, S};

/// Largest page side (also the grid's limit before `pack:` existed).
pub const MAX_PAGE_SIDE: u32 = 32768;
/// A packed sheet's default page size: what every current GPU takes.
pub const PACKED_MAX_SIZE: (u32, u32) = (4096, 4096);
/// Most padding or extrusion, pixels.
pub const MAX_SPACING: i64 = 256;

/// How a job's frames are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackSpec {
    /// Grid or packed.
    pub layout: PackLayout,
    /// Packed only: each frame cut to its non-transparent pixels; the
    /// metadata keeps the untrimmed size and offset.
    pub trim: bool,
    /// Transparent pixels between frames.
    pub padding: u32,
    /// Pixels of each frame's edge repeated around it, against bleeding
    /// when an engine filters the sheet.
    pub extrude: u32,
    /// Largest page; frames that do not fit continue on the next page.
    pub max_size: (u32, u32),
    /// Page sides rounded up to powers of two.
    pub power_of_two: bool,
}

impl Default for PackSpec {
    /// The grid as kiln always wrote it: full cells, no spacing, one page
    /// up to 32768 pixels a side.
    fn default() -> Self {
        PackSpec {
            layout: PackLayout::Grid,
            trim: false,
            padding: 0,
            extrude: 0,
            max_size: (MAX_PAGE_SIDE, MAX_PAGE_SIDE),
            power_of_two: false,
        }
    }
}

/// The job's `pack:` merged key by key with the defaults'.
pub(super) fn resolve_pack(
    ctx: &Ctx,
    lab: JobLabel,
    j: &RawPack,
    d: &RawPack,
) -> Result<PackSpec, RecipeError> {
    let layout = pick(&j.layout, &d.layout)
        .map(|l| l.value)
        .unwrap_or(PackLayout::Grid);
    let trim = pick(&j.trim, &d.trim);
    if let (Some(t), PackLayout::Grid) = (trim, layout) {
        if t.value {
            return Err(ctx.err(
                &t.referenced,
                &lab.of(j.trim.is_some()),
                "`pack.trim` needs `pack.layout: packed`: a grid keeps every cell whole",
            ));
        }
    }
    let spacing = |key: &str, jv: &Option<S<super::values::Int>>, dv| -> Result<u32, RecipeError> {
        match pick(jv, dv) {
            Some(v) => int_range(
                ctx,
                &lab.of(jv.is_some()),
                &format!("pack.{key}"),
                v,
                0,
                MAX_SPACING,
            ),
            None => Ok(0),
        }
    };
    let padding = spacing("padding", &j.padding, &d.padding)?;
    let extrude = spacing("extrude", &j.extrude, &d.extrude)?;
    let max_size = match pick(&j.max_size, &d.max_size) {
        Some(s) => max_size(ctx, &lab.of(j.max_size.is_some()), s)?,
        None => match layout {
            PackLayout::Grid => (MAX_PAGE_SIDE, MAX_PAGE_SIDE),
            PackLayout::Packed => PACKED_MAX_SIZE,
        },
    };
    Ok(PackSpec {
        layout,
        trim: trim.is_some_and(|t| t.value),
        padding,
        extrude,
        max_size,
        power_of_two: pick(&j.power_of_two, &d.power_of_two).is_some_and(|p| p.value),
    })
}

fn max_size(ctx: &Ctx, l: &str, s: &S<Size>) -> Result<(u32, u32), RecipeError> {
    let Size(w, h, from_int) = s.value;
    // As for `size`: YAML reads `0x40` as the number 64.
    let text = ctx.source_of(&s.defined);
    if from_int && !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ctx.err(
            &s.referenced,
            l,
            format!("`pack.max_size` `{text}` reads as a number; write it as WIDTHxHEIGHT"),
        ));
    }
    let r = 1..=MAX_PAGE_SIDE as i64;
    if !r.contains(&w) || !r.contains(&h) {
        return Err(ctx.err(
            &s.referenced,
            l,
            format!("`pack.max_size` sides must be in 1..={MAX_PAGE_SIDE}, got {w}x{h}"),
        ));
    }
    Ok((w as u32, h as u32))
}
