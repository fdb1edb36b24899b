//! `client_sprite:` and the camera preset as written: typed, not yet
//! checked (see `recipe/client_sprite.rs`).

use crate::bake::recipe::values::{Int, S};
use serde::Deserialize;
use std::collections::BTreeMap;

/// What the sprite's images are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpriteImages {
    /// Palette images sharing one 256-colour palette (index 0
    /// transparent), as the client's monsters are.
    #[default]
    Palette,
    /// RGBA images, with soft edges.
    Rgba,
}

/// `client_sprite:` as written.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(in crate::bake::recipe) struct RawClientSprite {
    pub(in crate::bake::recipe) images: Option<S<SpriteImages>>,
    pub(in crate::bake::recipe) dither: Option<S<bool>>,
    pub(in crate::bake::recipe) mirror: Option<S<bool>>,
    pub(in crate::bake::recipe) hit: Option<S<BTreeMap<String, S<Int>>>>,
}

/// Camera presets (`camera: { preset: ragnarok }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(in crate::bake::recipe) enum CameraPreset {
    /// The client's view: pitch 45°, perspective with a 15° field of view.
    Ragnarok,
}
