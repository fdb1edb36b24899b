//! `client_sprite:` and the camera preset as written: typed, not yet
//! checked (checked by kiln's `bake/recipe/client_sprite.rs`).

pub use crate::keys::SpriteImages;
use crate::values::{Int, S};
use serde::Deserialize;
use std::collections::BTreeMap;

/// `client_sprite:` as written.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawClientSprite {
    pub images: Option<S<SpriteImages>>,
    pub dither: Option<S<bool>>,
    pub mirror: Option<S<bool>>,
    pub hit: Option<S<BTreeMap<String, S<Int>>>>,
}

/// Camera presets (`camera: { preset: ragnarok }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CameraPreset {
    /// The client's view: pitch 45°, perspective with a 15° field of view.
    Ragnarok,
}
