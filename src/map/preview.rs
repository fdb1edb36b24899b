//! Maps as the library hands them out: loaded once, rendered from any
//! number of views — what `kiln render MAP.rsw` and a recipe's `maps:` do.

use super::camera::{MapViewCamera, Region};
use super::scene::MapScene;
use crate::error::{Error, Result};
use crate::raster::RenderOptions;
use crate::source::{Lookup, SourceRef};
use crate::spec::FileRef;
use std::path::PathBuf;

/// A Ragnarok map (an RSW scene on its GND ground, with its models),
/// loaded and ready to render.
#[derive(Debug)]
pub struct Map {
    scene: MapScene,
    inputs: Vec<PathBuf>,
}

/// One image of a map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapView {
    /// The tiles shown; `None` for the whole map.
    pub region: Option<Region>,
    /// Top-down or angled.
    pub camera: MapViewCamera,
    /// Map time in seconds (animated props).
    pub time: f32,
    /// Supersampling factor per axis, 1..=4.
    pub antialias: u32,
    /// Straight RGBA; alpha 0 is a transparent background.
    pub background: [u8; 4],
}

impl Map {
    /// Loads the map `rsw`, its ground and models, searching the folders
    /// `data` first (in order), then the map's own tree.
    pub fn load(rsw: impl Into<FileRef>, data: &[PathBuf]) -> Result<Map> {
        Map::load_from(rsw, data, &[])
    }

    /// As [`Map::load`], also searching `sources` after `data`.
    pub fn load_from(
        rsw: impl Into<FileRef>,
        data: &[PathBuf],
        sources: &[SourceRef],
    ) -> Result<Map> {
        let lookup = Lookup::with_folders(data, sources)?;
        let scene = MapScene::load(&rsw.into(), &lookup)?;
        Ok(Map {
            scene,
            inputs: lookup.reads(),
        })
    }

    /// The ground's size in tiles (columns, rows).
    pub fn size_in_tiles(&self) -> (u32, u32) {
        (self.scene.ground.width, self.scene.ground.height)
    }

    /// The RSW's version, `major.minor`.
    pub fn version(&self) -> &str {
        &self.scene.version
    }

    /// The longest loop of the map's animated props, in map seconds (0
    /// when nothing moves): how long a GIF of the map needs to show every
    /// prop's whole cycle once.
    pub fn duration(&self) -> f32 {
        self.scene.duration
    }

    /// How many model instances the map places.
    pub fn instance_count(&self) -> usize {
        self.scene.instances.len()
    }

    /// What the user should read once: missing models and textures (each
    /// listed once), unreadable models, the files' own warnings.
    pub fn notes(&self) -> Vec<String> {
        self.scene.notes()
    }

    /// Every file and folder read to load it, sorted.
    pub fn inputs(&self) -> &[PathBuf] {
        &self.inputs
    }

    /// Renders one view. A region off the ground, an image over the size
    /// limits, a pixels-per-tile value or antialias out of range is a
    /// usage error.
    pub fn render(&self, view: &MapView) -> Result<image::RgbaImage> {
        let (w, h) = self.size_in_tiles();
        let region = view.region.unwrap_or(Region::whole(w, h));
        region.check(w, h).map_err(Error::Usage)?;
        crate::render::ViewSpec::check_antialias(view.antialias.into())?;
        let cam = view
            .camera
            .frame(&self.scene, region)
            .map_err(Error::Usage)?;
        let opts = RenderOptions {
            width: cam.width,
            height: cam.height,
            supersample: view.antialias,
            background: view.background,
        };
        Ok(super::draw::render(
            &self.scene,
            &cam.camera,
            view.time,
            &opts,
        ))
    }

    /// The scene form, for kiln's own tests and tools (through
    /// `kiln::internals::map_scene`).
    pub(crate) fn scene(&self) -> &MapScene {
        &self.scene
    }
}
