//! Map cameras: a top-down orthographic view of a region at a chosen number
//! of pixels per tile, and angled views framed on a region.

use super::scene::MapScene;
use crate::camera::{fit_cameras, Framing, Projection};
use crate::error::ValueError;
use crate::raster::Camera;
use glam::{Mat4, Vec3};

/// A rectangle of ground tiles: columns `x0..x1`, rows `y0..y1` (ends
/// exclusive), in the GND's (and GAT's halved) coordinates: row 0 is the
/// southern edge, so a region reads like in-game coordinates / 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// First column.
    pub x0: u32,
    /// First row (row 0 is the southern edge).
    pub y0: u32,
    /// Column past the last.
    pub x1: u32,
    /// Row past the last.
    pub y1: u32,
}

impl Region {
    /// Every tile of a `width × height` ground.
    pub fn whole(width: u32, height: u32) -> Region {
        Region {
            x0: 0,
            y0: 0,
            x1: width,
            y1: height,
        }
    }

    /// Checks the region lies on a `width × height` ground and is not empty.
    pub fn check(&self, width: u32, height: u32) -> Result<(), String> {
        if self.x0 >= self.x1 || self.y0 >= self.y1 {
            return Err(format!(
                "region [{}, {}, {}, {}] is empty: it is [x0, y0, x1, y1] with x0 < x1 and y0 < y1",
                self.x0, self.y0, self.x1, self.y1
            ));
        }
        if self.x1 > width || self.y1 > height {
            return Err(format!(
                "region [{}, {}, {}, {}] leaves the {width}×{height}-tile ground",
                self.x0, self.y0, self.x1, self.y1
            ));
        }
        Ok(())
    }

    /// Columns in the region.
    pub fn tiles_wide(&self) -> u32 {
        self.x1 - self.x0
    }

    /// Rows in the region.
    pub fn tiles_high(&self) -> u32 {
        self.y1 - self.y0
    }

    /// World x range and z range (z of row y is `−scale · y`).
    pub fn world_xz(&self, scale: f32) -> ((f32, f32), (f32, f32)) {
        (
            (self.x0 as f32 * scale, self.x1 as f32 * scale),
            (-(self.y1 as f32) * scale, -(self.y0 as f32) * scale),
        )
    }

    /// Whether a world point lies over the region (x/z only).
    pub fn contains_xz(&self, scale: f32, p: Vec3) -> bool {
        let ((x0, x1), (z0, z1)) = self.world_xz(scale);
        p.x >= x0 && p.x <= x1 && p.z >= z0 && p.z <= z1
    }
}

/// A camera and the image size it was framed for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapCamera {
    /// The camera.
    pub camera: Camera,
    /// The image's width, pixels.
    pub width: u32,
    /// The image's height, pixels.
    pub height: u32,
}

/// How a map view looks at its region.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MapViewCamera {
    /// Straight down, north up, at a number of pixels per ground tile.
    TopDown {
        /// Pixels per tile, in (0, [`MAX_PIXELS_PER_TILE`]].
        pixels_per_tile: f32,
    },
    /// From an angle, framed on what stands in the region.
    Angled {
        /// Degrees; 0 looks north from the south, as the client's camera does.
        yaw: f32,
        /// Degrees above the horizon.
        pitch: f32,
        /// Image width in pixels.
        width: u32,
        /// Image height in pixels.
        height: u32,
        /// Orthographic or perspective.
        projection: Projection,
    },
}

/// Most pixels per tile a top-down view may ask for.
pub const MAX_PIXELS_PER_TILE: f32 = 256.0;

impl MapViewCamera {
    /// A top-down view's pixels per tile, in (0, [`MAX_PIXELS_PER_TILE`]].
    pub fn check_pixels_per_tile(pixels_per_tile: f32) -> Result<f32, ValueError> {
        crate::range::above("pixels_per_tile", pixels_per_tile, 0.0, MAX_PIXELS_PER_TILE)
    }

    /// The camera of this view of `region`; an oversized or empty image, or
    /// a pixels-per-tile value out of range, is refused.
    pub(crate) fn frame(&self, scene: &MapScene, region: Region) -> Result<MapCamera, String> {
        match *self {
            MapViewCamera::TopDown { pixels_per_tile } => {
                MapViewCamera::check_pixels_per_tile(pixels_per_tile)
                    .map_err(|_| {
                        format!(
                            "pixels per tile must be in (0, {MAX_PIXELS_PER_TILE}], got {pixels_per_tile}"
                        )
                    })?;
                top_down(scene, region, pixels_per_tile)
            }
            MapViewCamera::Angled {
                yaw,
                pitch,
                width,
                height,
                projection,
            } => Ok(angled(scene, region, yaw, pitch, width, height, projection)),
        }
    }
}

/// Largest edge of a map image in pixels; a bigger request is refused up
/// front rather than failing after minutes of work.
pub const MAX_EDGE: u32 = 32768;

/// Straight down on `region`, north up, `pixels_per_tile` pixels per tile.
pub fn top_down(
    scene: &MapScene,
    region: Region,
    pixels_per_tile: f32,
) -> Result<MapCamera, String> {
    let s = scene.ground.scale;
    let width = (region.tiles_wide() as f32 * pixels_per_tile).round();
    let height = (region.tiles_high() as f32 * pixels_per_tile).round();
    if !(width >= 1.0 && height >= 1.0) {
        return Err(format!(
            "{pixels_per_tile} pixels per tile gives an empty {width}×{height} image"
        ));
    }
    if width > MAX_EDGE as f32 || height > MAX_EDGE as f32 {
        return Err(format!(
            "{pixels_per_tile} pixels per tile gives a {width}×{height} image; the limit is {MAX_EDGE} pixels a side"
        ));
    }
    let ((x0, x1), (z0, z1)) = region.world_xz(s);
    let (lo, hi) = scene.bounds();
    let centre = Vec3::new((x0 + x1) / 2.0, hi.y + 10.0, (z0 + z1) / 2.0);
    let view = Mat4::look_to_rh(centre, Vec3::NEG_Y, Vec3::NEG_Z);
    let (hw, hh) = ((x1 - x0) / 2.0, (z1 - z0) / 2.0);
    let depth = (hi.y - lo.y) + 20.0;
    let proj = Mat4::orthographic_rh(-hw, hw, -hh, hh, 1.0, depth.max(2.0));
    Ok(MapCamera {
        camera: Camera { view, proj },
        width: width as u32,
        height: height as u32,
    })
}

/// From `yaw`/`pitch` degrees (yaw 0 looks north from the south, the
/// client's default), framed so the region's ground and the models standing
/// on it fill a `width × height` image.
pub fn angled(
    scene: &MapScene,
    region: Region,
    yaw: f32,
    pitch: f32,
    width: u32,
    height: u32,
    projection: Projection,
) -> MapCamera {
    let s = scene.ground.scale;
    let ((x0, x1), (z0, z1)) = region.world_xz(s);
    // Frame what is drawn in the region, not the empty tiles around it.
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    // Ground and water chunks, clipped to the region's x/z.
    let ground = scene
        .ground
        .chunks
        .iter()
        .filter(|c| !c.positions.is_empty())
        .map(|c| (c.min, c.max));
    let water = scene.water.iter().map(|c| (c.min, c.max));
    for (cmin, cmax) in ground.chain(water) {
        let clo = cmin.max(Vec3::new(x0, f32::NEG_INFINITY, z0));
        let chi = cmax.min(Vec3::new(x1, f32::INFINITY, z1));
        if clo.x <= chi.x && clo.z <= chi.z {
            lo = lo.min(clo);
            hi = hi.max(chi);
        }
    }
    for i in &scene.instances {
        if region.contains_xz(s, i.origin) {
            lo = lo.min(i.bounds.0);
            hi = hi.max(i.bounds.1);
        }
    }
    if lo.x > hi.x {
        lo = Vec3::new(x0, 0.0, z0);
        hi = Vec3::new(x1, 0.0, z1);
    }
    let corners = super::scene::box_corners((lo, hi));
    let framing = Framing {
        projection,
        padding: 0.02,
        zoom: 1.0,
        pixels_per_unit: None,
    };
    let aspect = width as f32 / height.max(1) as f32;
    let camera = fit_cameras(&corners, &[(yaw, pitch)], aspect, &framing)
        .into_iter()
        .next()
        .unwrap_or(Camera {
            view: Mat4::IDENTITY,
            proj: Mat4::IDENTITY,
        });
    MapCamera {
        camera,
        width,
        height,
    }
}
