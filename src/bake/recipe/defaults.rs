//! What a recipe gets when it leaves a key out, and how far each value may
//! go. The README's recipe reference quotes these values; keep them in step.

/// Defaults applied when neither the job nor `defaults:` sets a key.
pub const SIZE: (u32, u32) = (128, 128);
pub const DIRECTIONS: u32 = 8;
pub const PITCH: f32 = 30.0;
pub const FPS: f32 = 12.0;
pub const ANTIALIAS: u32 = 2;
pub const PADDING: f32 = 0.05;
pub const ZOOM: f32 = 1.0;
pub const FOV: f32 = 35.0;
pub const LIGHT_YAW: f32 = crate::camera::LightSpec::DEFAULT_YAW;
pub const LIGHT_PITCH: f32 = crate::camera::LightSpec::DEFAULT_PITCH;
pub const LIGHT_COLOR: [f32; 3] = crate::camera::LightSpec::DEFAULT_COLOR;
pub const AMBIENT: [f32; 3] = crate::camera::LightSpec::DEFAULT_AMBIENT;
pub const OUTPUT_DIR: &str = "out/{name}";
pub const SHEET: &str = "{name}.png";
/// The name of the one clip of a job given `clip:` (or no clip at all).
pub const DEFAULT_CLIP_NAME: &str = "default";

/// Defaults of a map view (`maps:`).
pub mod map {
    pub const PIXELS_PER_TILE: f32 = 4.0;
    pub const ANGLED_SIZE: (u32, u32) = (1024, 768);
    pub const PITCH: f32 = 45.0;
    pub const FOV: f32 = 35.0;
    pub const ANTIALIAS: u32 = 2;
    pub const GIF_FPS: f32 = 10.0;
    pub const GIF_FRAMES: u32 = 20;
}

/// Largest frame side, in pixels.
pub const MAX_SIZE: u32 = 8192;
/// Most directions a job may render.
pub const MAX_DIRECTIONS: usize = 360;
/// Most clips one job may list.
pub const MAX_CLIPS: usize = 256;
/// Highest LOD index a job may ask for.
pub const MAX_LOD_INDEX: u32 = 255;
/// Longest `duration`, seconds (a day: anything longer is a typo).
pub const MAX_DURATION: f32 = 86400.0;
/// Most pixels per tile a map view may ask for.
pub const MAX_PIXELS_PER_TILE: f32 = crate::map::camera::MAX_PIXELS_PER_TILE;
/// Largest angled map image side.
pub const MAX_ANGLED_SIDE: u32 = 8192;
/// Most GIF frames a map view may render.
pub const MAX_GIF_FRAMES: u32 = 1000;
