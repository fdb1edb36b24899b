//! The `maps:` part of a recipe: Ragnarok map previews.
//!
//! ```yaml
//! maps:
//!   - name: desert
//!     map: data/desert.rsw
//!     data: [client/data, grf/data]     # priority order, first wins
//!     output: ../out/maps
//!     views:
//!       - { name: overview, pixels_per_tile: 4 }
//!       - { name: oasis, region: [40, 20, 60, 40], pixels_per_tile: 16 }
//!       - { name: oasis_angled, region: [40, 20, 60, 40], yaw: 30, pitch: 40, size: 800x600 }
//!       - { name: props, region: [40, 20, 60, 40], pixels_per_tile: 8, gif: { fps: 10, frames: 20 } }
//! ```
//! A view with `yaw` or `pitch` is angled; otherwise it looks straight down.
//! Files are `<output>/<map name>_<view name>.png` (or `.gif`).
//! Two views may not write one file, across maps too (`a_b` + `c` and
//! `a` + `b_c` meet in `a_b_c.png` when the maps share an `output`).

use super::defaults::{self, MAX_ANGLED_SIDE, MAX_GIF_FRAMES, MAX_PIXELS_PER_TILE};
use super::error::{Ctx, RecipeError};
use super::raw::{RawGif, RawMap, RawView};
use super::values::{
    check_file_name, finite, in_range, int_range, non_negative, Int, ProjectionKind, Size, S,
};
use crate::camera::Projection;
pub use crate::map::camera::MapViewCamera;
use crate::map::Region;
use crate::paths::normalize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One map of a recipe, resolved.
#[derive(Debug, Clone, PartialEq)]
/// One entry of a recipe's `maps:`, resolved.
pub struct MapJob {
    /// The map's name, unique among the recipe's jobs and maps.
    pub name: String,
    /// The recipe file, for messages.
    pub recipe: PathBuf,
    /// The entry's line in the recipe.
    pub line: u64,
    /// The `.rsw` file.
    pub map: crate::spec::FileRef,
    /// Data folders in priority order.
    pub data: Vec<PathBuf>,
    /// The images to render, in recipe order.
    pub views: Vec<MapViewSpec>,
    /// Supersampling factor per axis, 1..=4.
    pub antialias: u32,
    /// Straight RGBA; alpha 0 is transparent.
    pub background: [u8; 4],
    /// The folder the views are written to (`output`).
    pub dir: PathBuf,
}

/// One view of a map job.
#[derive(Debug, Clone, PartialEq)]
pub struct MapViewSpec {
    /// The view's name, part of its file name.
    pub name: String,
    /// The view's line in the recipe.
    pub line: u64,
    /// Where the view starts in the recipe, for messages.
    pub column: u64,
    /// `None`: the whole map.
    pub region: Option<Region>,
    /// Top-down or angled.
    pub camera: MapViewCamera,
    /// Map time in seconds for a still.
    pub time: f32,
    /// Frames of an animated GIF, when the view is one.
    pub gif: Option<GifSpec>,
    /// The file written.
    pub file: PathBuf,
}

/// The frames of an animated map view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GifSpec {
    /// Frames per second.
    pub fps: f32,
    /// Frames to render.
    pub frames: u32,
}

impl GifSpec {
    /// Frame times in seconds, starting at the view's `time`.
    pub fn times(&self, start: f32) -> Vec<f32> {
        (0..self.frames)
            .map(|k| start + k as f32 / self.fps)
            .collect()
    }
}

pub(super) fn resolve_maps(
    ctx: &Ctx,
    raw: &[S<RawMap>],
    names: &mut BTreeMap<String, u64>,
) -> Result<Vec<MapJob>, RecipeError> {
    let mut out = Vec::with_capacity(raw.len());
    // File → the view that claimed it. Map and view names are each unique,
    // yet `a_b` + `c` and `a` + `b_c` still meet in one file name.
    let mut claimed: BTreeMap<PathBuf, (String, String, u64)> = BTreeMap::new();
    for (i, sm) in raw.iter().enumerate() {
        let job = resolve_map(ctx, i, sm, names)?;
        let raw_views = sm.value.views.as_ref().map_or(&[][..], |v| &v.value[..]);
        for (v, rv) in job.views.iter().zip(raw_views) {
            let key = normalize(&v.file);
            if let Some((map, view, line)) = claimed.get(&key) {
                let at = rv
                    .value
                    .name
                    .as_ref()
                    .map_or(rv.referenced, |n| n.referenced);
                return Err(ctx.err(
                    &at,
                    &format!("map '{}' view '{}'", job.name, v.name),
                    format!(
                        "writes `{}`, which map '{map}' view '{view}' (line {line}) also writes; rename one of them or give the maps different `output` folders",
                        v.file.display()
                    ),
                ));
            }
            claimed.insert(key, (job.name.clone(), v.name.clone(), v.line));
        }
        out.push(job);
    }
    Ok(out)
}

fn resolve_map(
    ctx: &Ctx,
    index: usize,
    sm: &S<RawMap>,
    names: &mut BTreeMap<String, u64>,
) -> Result<MapJob, RecipeError> {
    let at = &sm.referenced;
    let m = &sm.value;
    let Some(name) = &m.name else {
        return Err(ctx.err(at, &format!("map #{}", index + 1), "missing key `name`"));
    };
    let label = format!("map '{}'", name.value);
    check_file_name("job", &name.value).map_err(|e| ctx.err(&name.referenced, &label, e))?;
    if let Some(first) = names.get(&name.value) {
        return Err(ctx.err(
            &name.referenced,
            &label,
            format!(
                "duplicate name `{}`; line {first} already uses it (jobs and maps share names, as `--only` picks by name)",
                name.value
            ),
        ));
    }
    names.insert(name.value.clone(), name.referenced.line());
    let Some(map) = &m.map else {
        return Err(ctx.err(at, &label, "missing key `map` (the .rsw file)"));
    };
    let data = m
        .data
        .as_ref()
        .map(|d| d.value.0.iter().map(|p| ctx.base.join(p)).collect())
        .unwrap_or_default();
    let antialias = match &m.antialias {
        Some(a) => int_range(ctx, &label, "antialias", a, 1, 4)?,
        None => defaults::map::ANTIALIAS,
    };
    let background = m.background.as_ref().map_or([0, 0, 0, 0], |b| b.value.0);
    let dir = ctx
        .output_folder(m.output.as_ref().map_or(".", |o| o.value.as_str()))
        .map_err(|e| {
            let at = m.output.as_ref().map_or(*at, |o| o.referenced);
            ctx.err(&at, &label, format!("`output`: {e}"))
        })?;
    let Some(views) = &m.views else {
        return Err(ctx.err(at, &label, "missing key `views` (at least one view)"));
    };
    if views.value.is_empty() {
        return Err(ctx.err(
            &views.referenced,
            &label,
            "`views` is empty; give at least one view",
        ));
    }
    let mut seen: BTreeMap<String, u64> = BTreeMap::new();
    let mut out = Vec::with_capacity(views.value.len());
    for (k, sv) in views.value.iter().enumerate() {
        let v = resolve_view(ctx, &label, &name.value, &dir, k, sv)?;
        if let Some(first) = seen.get(&v.name) {
            let at = sv
                .value
                .name
                .as_ref()
                .map_or(sv.referenced, |n| n.referenced);
            return Err(ctx.err(
                &at,
                &label,
                format!(
                    "duplicate view name `{}`; line {first} already uses it",
                    v.name
                ),
            ));
        }
        seen.insert(v.name.clone(), v.line);
        out.push(v);
    }
    Ok(MapJob {
        name: name.value.clone(),
        recipe: ctx.file.to_path_buf(),
        line: at.line(),
        map: crate::spec::FileRef::relative_to(ctx.base, &map.value),
        data,
        views: out,
        antialias,
        background,
        dir,
    })
}

/// One view of map `map_name` (labelled `map_label`), writing into `dir`.
fn resolve_view(
    ctx: &Ctx,
    map_label: &str,
    map_name: &str,
    dir: &Path,
    index: usize,
    sv: &S<RawView>,
) -> Result<MapViewSpec, RecipeError> {
    let at = &sv.referenced;
    let v = &sv.value;
    let Some(name) = &v.name else {
        return Err(ctx.err(
            at,
            map_label,
            format!("view #{}: missing key `name`", index + 1),
        ));
    };
    let label = format!("{map_label} view '{}'", name.value);
    check_file_name("job", &name.value).map_err(|e| ctx.err(&name.referenced, &label, e))?;
    let region = match &v.region {
        None => None,
        Some(r) => Some(resolve_region(ctx, &label, r)?),
    };
    let camera = if v.yaw.is_some() || v.pitch.is_some() {
        resolve_angled(ctx, &label, v)?
    } else {
        resolve_top_down(ctx, &label, v)?
    };
    let time = match &v.time {
        Some(t) => non_negative(ctx, &label, "time", t)?,
        None => 0.0,
    };
    let gif = match &v.gif {
        None => None,
        Some(g) => Some(resolve_gif(ctx, &label, &g.value)?),
    };
    let ext = if gif.is_some() { "gif" } else { "png" };
    Ok(MapViewSpec {
        file: dir.join(format!("{map_name}_{}.{ext}", name.value)),
        name: name.value.clone(),
        line: at.line(),
        column: at.column(),
        region,
        camera,
        time,
        gif,
    })
}

/// `region: [x0, y0, x1, y1]` in tiles, not empty. Whether it lies on the
/// ground is only known once the map is loaded.
fn resolve_region(ctx: &Ctx, label: &str, r: &S<[Int; 4]>) -> Result<Region, RecipeError> {
    let mut vals = [0u32; 4];
    for (slot, n) in vals.iter_mut().zip(r.value) {
        if !(0..=i64::from(u16::MAX)).contains(&n.0) {
            return Err(ctx.err(
                &r.referenced,
                label,
                format!("`region` values are tile numbers 0..=65535, got {}", n.0),
            ));
        }
        *slot = n.0 as u32;
    }
    let region = Region {
        x0: vals[0],
        y0: vals[1],
        x1: vals[2],
        y1: vals[3],
    };
    if region.x0 >= region.x1 || region.y0 >= region.y1 {
        return Err(ctx.err(
            &r.referenced,
            label,
            format!(
                "`region` is [x0, y0, x1, y1] in tiles with x0 < x1 and y0 < y1, got [{}, {}, {}, {}]",
                vals[0], vals[1], vals[2], vals[3]
            ),
        ));
    }
    Ok(region)
}

/// A view given `yaw` or `pitch`: framed from that angle at `size`.
fn resolve_angled(ctx: &Ctx, label: &str, v: &RawView) -> Result<MapViewCamera, RecipeError> {
    if let Some(p) = &v.pixels_per_tile {
        return Err(ctx.err(
            &p.referenced,
            label,
            "`pixels_per_tile` is for top-down views; an angled view (yaw/pitch) takes `size`",
        ));
    }
    let yaw = match &v.yaw {
        Some(y) => finite(ctx, label, "yaw", y)?,
        None => 0.0,
    };
    let pitch = match &v.pitch {
        Some(p) => in_range(ctx, label, "pitch", p, 1.0, 90.0, false)?,
        None => defaults::map::PITCH,
    };
    let (width, height) = match &v.size {
        Some(s) => {
            let Size(w, h, _) = s.value;
            let ok = |x: i64| (1..=i64::from(MAX_ANGLED_SIDE)).contains(&x);
            if !ok(w) || !ok(h) {
                return Err(ctx.err(
                    &s.referenced,
                    label,
                    format!("`size` sides must be 1..={MAX_ANGLED_SIDE} pixels, got {w}x{h}"),
                ));
            }
            (w as u32, h as u32)
        }
        None => defaults::map::ANGLED_SIZE,
    };
    let fov = match &v.fov {
        Some(f) => in_range(ctx, label, "fov", f, 1.0, 170.0, false)?,
        None => defaults::map::FOV,
    };
    let projection = match v.projection.as_ref().map(|p| p.value) {
        Some(ProjectionKind::Perspective) => Projection::Perspective { fov_deg: fov },
        _ => Projection::Orthographic,
    };
    Ok(MapViewCamera::Angled {
        yaw,
        pitch,
        width,
        height,
        projection,
    })
}

/// A view looking straight down at `pixels_per_tile`; the angled keys are
/// refused so a forgotten `yaw` does not go unnoticed.
fn resolve_top_down(ctx: &Ctx, label: &str, v: &RawView) -> Result<MapViewCamera, RecipeError> {
    for (key, given) in [
        ("size", v.size.as_ref().map(|s| s.referenced)),
        ("projection", v.projection.as_ref().map(|s| s.referenced)),
        ("fov", v.fov.as_ref().map(|s| s.referenced)),
    ] {
        if let Some(loc) = given {
            return Err(ctx.err(
                &loc,
                label,
                format!(
                    "`{key}` is for angled views; give `yaw`/`pitch`, or use `pixels_per_tile` for a top-down view"
                ),
            ));
        }
    }
    let pixels_per_tile = match &v.pixels_per_tile {
        Some(p) => in_range(
            ctx,
            label,
            "pixels_per_tile",
            p,
            0.0,
            MAX_PIXELS_PER_TILE,
            true,
        )?,
        None => defaults::map::PIXELS_PER_TILE,
    };
    Ok(MapViewCamera::TopDown { pixels_per_tile })
}

/// `gif: {fps, frames | duration}`.
fn resolve_gif(ctx: &Ctx, label: &str, g: &RawGif) -> Result<GifSpec, RecipeError> {
    let fps = match &g.fps {
        Some(f) => in_range(
            ctx,
            label,
            "gif.fps",
            f,
            defaults::MIN_FPS,
            defaults::MAX_MAP_GIF_FPS,
            false,
        )?,
        None => defaults::map::GIF_FPS,
    };
    let frames = match (&g.frames, &g.duration) {
        (Some(_), Some(d)) => {
            return Err(ctx.err(
                &d.referenced,
                label,
                "give `gif.frames` or `gif.duration`, not both",
            ))
        }
        (Some(f), None) => int_range(ctx, label, "gif.frames", f, 1, i64::from(MAX_GIF_FRAMES))?,
        (None, Some(d)) => {
            let secs = in_range(ctx, label, "gif.duration", d, 0.0, 600.0, true)?;
            let n = (secs * fps).round().max(1.0);
            if n > MAX_GIF_FRAMES as f32 {
                return Err(ctx.err(
                    &d.referenced,
                    label,
                    format!(
                        "`gif.duration` × `gif.fps` gives {n} frames, more than the {MAX_GIF_FRAMES} allowed"
                    ),
                ));
            }
            n as u32
        }
        (None, None) => defaults::map::GIF_FRAMES,
    };
    Ok(GifSpec { fps, frames })
}
