//! `kiln render`'s flags: the model's, the view's and the look's groups, and
//! the groups only a map or a client sprite reads. Kept apart from the
//! commands so the map and sprite renders can take them without the render
//! command they are dispatched from.

use super::look_args::LookArgs;
use super::model_args::{ModelArgs, TimeArgs};
use super::values::region;
use super::view_args::ViewArgs;
use clap::Args;
use kiln::limits;
use std::path::PathBuf;

// Everything `kiln render` takes (no doc comment: clap would make it the about text).
#[derive(Args)]
#[command(mut_arg("model", |a| a.help(
    "Model file (.rsm, .rsm2, .model, .p3d), a Ragnarok map (.rsw) or a client sprite (.act beside its .spr)"
)), mut_arg("data", |a| a.help(
    "Extra folder or archive (GRF, PBO, .dat) to search first: a model's textures and animations, a map's ground, models and textures (repeatable)"
)))]
pub struct RenderArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Output PNG
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub time: TimeArgs,
    #[command(flatten)]
    pub view: ViewArgs,
    #[command(flatten)]
    pub map: MapViewArgs,
    #[command(flatten)]
    pub sprite: SpriteArgs,
    #[command(flatten)]
    pub look: LookArgs,
}

/// For a Ragnarok map (.rsw): a top-down view unless --angled.
#[derive(Args)]
pub struct MapViewArgs {
    /// Map: pixels per ground tile of the top-down view
    #[arg(long, value_name = "N", default_value_t = limits::map::PIXELS_PER_TILE)]
    pub pixels_per_tile: f32,
    /// Map: only the tiles X0..X1, Y0..Y1 (row 0 = south edge), as X0,Y0,X1,Y1
    #[arg(long, value_name = "X0,Y0,X1,Y1", value_parser = region)]
    pub region: Option<kiln::Region>,
    /// Map: an angled view from --yaw/--pitch at --size instead of the top-down one
    #[arg(long)]
    pub angled: bool,
}

/// For a Ragnarok client sprite (.act with its .spr): which frame.
#[derive(Args)]
pub struct SpriteArgs {
    /// Sprite: the motion (0 idle, 1 walk, 2 attack, 3 hurt, 4 die for monsters), or the
    /// action itself when the ACT's actions are not in eights
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub action: usize,
    /// Sprite: the direction, 0 south (facing the camera) to 7 south-east, turning clockwise
    #[arg(long, value_name = "D", default_value_t = 0)]
    pub direction: usize,
}
