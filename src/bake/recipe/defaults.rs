//! What a recipe gets when it leaves a key out, and how far each value may
//! go. The recipe reference (`docs/recipes.md`) quotes these values; keep them
//! in step.

/// Defaults applied when neither the job nor `defaults:` sets a key.
pub const SIZE: (u32, u32) = (128, 128);
/// Directions around the model (`directions`).
pub const DIRECTIONS: u32 = 8;
/// Camera elevation, degrees (`pitch`).
pub const PITCH: f32 = 30.0;
/// Frames per second of a clip (`fps`).
pub const FPS: f32 = 12.0;
/// Supersampling per axis (`antialias`).
pub const ANTIALIAS: u32 = 2;
/// Room left around the framed model, as a share of the frame (`camera.padding`).
pub const PADDING: f32 = 0.05;
/// Camera zoom (`camera.zoom`).
pub const ZOOM: f32 = 1.0;
/// Vertical field of view of a perspective camera, degrees (`camera.fov`).
pub const FOV: f32 = 35.0;
/// Light direction yaw in camera space, degrees (`light.yaw`).
pub const LIGHT_YAW: f32 = crate::camera::LightSpec::DEFAULT_YAW;
/// Light direction pitch in camera space, degrees (`light.pitch`).
pub const LIGHT_PITCH: f32 = crate::camera::LightSpec::DEFAULT_PITCH;
/// Light colour (`light.color`).
pub const LIGHT_COLOR: [f32; 3] = crate::camera::LightSpec::DEFAULT_COLOR;
/// Ambient light (`light.ambient`).
pub const AMBIENT: [f32; 3] = crate::camera::LightSpec::DEFAULT_AMBIENT;
/// Where a job's files go (`output.dir`).
pub const OUTPUT_DIR: &str = "out/{name}";
/// The sheet's file name (`output.sheet`).
pub const SHEET: &str = "{name}.png";
/// The name of the one clip of a job given `clip:` (or no clip at all).
pub const DEFAULT_CLIP_NAME: &str = "default";

/// Defaults of a map view (`maps:`).
pub mod map {
    /// Pixels per ground tile of a top-down view.
    pub const PIXELS_PER_TILE: f32 = 4.0;
    /// Image size of an angled view.
    pub const ANGLED_SIZE: (u32, u32) = (1024, 768);
    /// Elevation of an angled view, degrees.
    pub const PITCH: f32 = 45.0;
    /// Field of view of a perspective view, degrees.
    pub const FOV: f32 = 35.0;
    /// Supersampling per axis.
    pub const ANTIALIAS: u32 = 2;
    /// Frames per second of a view's GIF.
    pub const GIF_FPS: f32 = 10.0;
    /// Frames of a view's GIF.
    pub const GIF_FRAMES: u32 = 20;
}

/// Largest frame side, in pixels.
pub const MAX_SIZE: u32 = crate::render::MAX_SIZE;
/// Most supersampling per axis.
pub const MAX_ANTIALIAS: u32 = crate::render::MAX_ANTIALIAS;
/// Most worker threads a bake or a verification may be given (`-j`).
pub const MAX_THREADS: u32 = 1024;
/// Most directions a job may render.
pub use kiln_recipe_yaml::values::MAX_DIRECTIONS;
/// Most clips one job may list.
pub const MAX_CLIPS: usize = 256;
/// Highest LOD index a job may ask for.
pub const MAX_LOD_INDEX: u32 = 255;
/// Longest `duration`, seconds (a day: anything longer is a typo).
pub const MAX_DURATION: f32 = crate::spec::MAX_DURATION;
/// Latest time a clip or a still may start or end at, seconds: the same
/// day.
pub const MAX_SECONDS: f32 = crate::scene::clip::MAX_SECONDS;
/// Slowest frame rate: a frame a minute and a half lasts longer than a
/// GIF frame can hold (655.35 s) only far below it, and nothing slower is
/// an animation.
pub const MIN_FPS: f32 = 0.01;
/// Fastest frame rate of a clip.
pub const MAX_FPS: f32 = 1000.0;
/// Fastest frame rate of a map view's GIF.
pub const MAX_MAP_GIF_FPS: f32 = 100.0;
/// Camera elevation, degrees.
pub const PITCH_RANGE: (f32, f32) = crate::render::PITCH_RANGE;
/// Vertical field of view of a perspective camera, degrees.
pub const FOV_RANGE: (f32, f32) = crate::render::FOV_RANGE;
/// Largest yaw, degrees either way (ten turns: anything more is a typo).
pub const MAX_YAW: f32 = crate::render::MAX_YAW;
/// Most pixels per tile a map view may ask for.
pub const MAX_PIXELS_PER_TILE: f32 = crate::map::camera::MAX_PIXELS_PER_TILE;
/// Largest angled map image side.
pub const MAX_ANGLED_SIDE: u32 = 8192;
/// Most GIF frames a map view may render.
pub const MAX_GIF_FRAMES: u32 = 1000;
