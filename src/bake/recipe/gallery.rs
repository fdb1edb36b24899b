//! `gallery:`: where a recipe's page of every job goes, and how many jobs
//! a page shows.

use super::error::{Ctx, RecipeError};
use super::raw::RawGallery;
use super::values::{int_range, S};
use std::path::PathBuf;

/// Jobs a page shows unless the recipe says.
pub const PAGE_SIZE: usize = 500;

/// A recipe's gallery, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GallerySpec {
    /// The first page; further pages take `-2`, `-3`, … before `.html`.
    pub path: PathBuf,
    /// Jobs a page shows.
    pub page_size: usize,
}

pub(super) fn resolve_gallery(ctx: &Ctx, g: &S<RawGallery>) -> Result<GallerySpec, RecipeError> {
    let label = "gallery";
    let Some(file) = &g.value.file else {
        return Err(ctx.err(&g.referenced, label, "`gallery` needs `file: NAME.html`"));
    };
    let written = file.value.trim();
    let name = written.rsplit(['/', '\\']).next().unwrap_or(written);
    if !name.to_ascii_lowercase().ends_with(".html") {
        return Err(ctx.err(
            &file.referenced,
            label,
            format!("`gallery.file` must name an .html file, got `{written}`"),
        ));
    }
    crate::confined::check_part(name).map_err(|why| {
        ctx.err(
            &file.referenced,
            label,
            format!("`gallery.file` `{written}`: {why}"),
        )
    })?;
    let path = ctx
        .output_folder(written)
        .map_err(|m| ctx.err(&file.referenced, label, m))?;
    let page_size = match &g.value.page_size {
        Some(n) => int_range(ctx, label, "page_size", n, 1, 10_000)? as usize,
        None => PAGE_SIZE,
    };
    Ok(GallerySpec { path, page_size })
}
