//! The recipe's value types (read by `kiln-recipe-yaml`, with their serde
//! messages) and the range checks every part shares. The checks take a
//! [`Spanned`](kiln_recipe_yaml::Spanned) value so an error points at the
//! value itself.

use super::error::{Ctx, RecipeError};
use glam::Vec3;
pub use kiln_recipe_yaml::values::PackLayout;
pub(super) use kiln_recipe_yaml::values::{
    Directions, Int, Lod, Materials, MetaList, Num, OutName, ProjectionKind, Size, S,
};

/// Job, map, view and clip names become parts of file names. `what` names
/// the kind in the message ("job", "clip").
pub(super) fn check_file_name(what: &str, n: &str) -> Result<(), String> {
    if n.trim().is_empty() {
        return Err(format!("{what} name is empty"));
    }
    if n == "." || n == ".." || n.chars().any(|c| "/\\{}".contains(c) || c.is_control()) {
        return Err(format!(
            "{what} name `{}` is used in file names, so it cannot contain /, \\, {{, }} or control characters",
            n.escape_debug()
        ));
    }
    if let Err(why) = crate::confined::check_part(n) {
        return Err(format!("{what} name is used in file names, and {why}"));
    }
    Ok(())
}

/// `key`'s value, refused when infinite or NaN.
pub(super) fn finite(ctx: &Ctx, label: &str, key: &str, v: &S<Num>) -> Result<f32, RecipeError> {
    if v.value.0.is_finite() {
        Ok(v.value.0)
    } else {
        Err(ctx.err(
            &v.referenced,
            label,
            format!("`{key}` must be a finite number, got {}", v.value.0),
        ))
    }
}

/// `key`'s value in `[lo, hi]`, or `(lo, hi]` when `lo_open`.
pub(super) fn in_range(
    ctx: &Ctx,
    label: &str,
    key: &str,
    v: &S<Num>,
    lo: f32,
    hi: f32,
    lo_open: bool,
) -> Result<f32, RecipeError> {
    let x = finite(ctx, label, key, v)?;
    let ok = if lo_open { x > lo } else { x >= lo } && x <= hi;
    if ok {
        Ok(x)
    } else {
        let open = if lo_open { "(" } else { "[" };
        Err(ctx.err(
            &v.referenced,
            label,
            format!("`{key}` must be in {open}{lo}, {hi}], got {x}"),
        ))
    }
}

/// A time in seconds, at least 0 and at most
/// [`MAX_SECONDS`](super::defaults::MAX_SECONDS).
pub(super) fn non_negative(
    ctx: &Ctx,
    label: &str,
    key: &str,
    v: &S<Num>,
) -> Result<f32, RecipeError> {
    let x = finite(ctx, label, key, v)?;
    let most = super::defaults::MAX_SECONDS;
    if x < 0.0 {
        Err(ctx.err(
            &v.referenced,
            label,
            format!("`{key}` must be at least 0 seconds, got {x}"),
        ))
    } else if x > most {
        Err(ctx.err(
            &v.referenced,
            label,
            format!("`{key}` must be at most {most} seconds (a day), got {x}"),
        ))
    } else {
        Ok(x)
    }
}

/// A whole number in `lo..=hi`.
pub(super) fn int_range(
    ctx: &Ctx,
    label: &str,
    key: &str,
    v: &S<Int>,
    lo: i64,
    hi: i64,
) -> Result<u32, RecipeError> {
    if (lo..=hi).contains(&v.value.0) {
        Ok(v.value.0 as u32)
    } else {
        Err(ctx.err(
            &v.referenced,
            label,
            format!("`{key}` must be in {lo}..={hi}, got {}", v.value.0),
        ))
    }
}

/// An RGB light colour, each channel in `[0, 4]` (above 1 brightens).
pub(super) fn color3(
    ctx: &Ctx,
    label: &str,
    key: &str,
    v: &S<[Num; 3]>,
) -> Result<Vec3, RecipeError> {
    let c = v.value.map(|n| n.0);
    if c.iter().all(|c| c.is_finite() && (0.0..=4.0).contains(c)) {
        Ok(Vec3::from_array(c))
    } else {
        Err(ctx.err(
            &v.referenced,
            label,
            format!("`{key}` components must be in [0, 4], got {c:?}"),
        ))
    }
}
