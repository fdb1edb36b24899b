//! The keywords of a recipe that are also kiln's own types (kiln re-exports
//! each where its API names it): defined here so that reading a recipe
//! needs nothing from kiln.

use serde::Deserialize;

/// Which pose a skinned model starts from (Grimrock).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RestPose {
    /// The node matrices stored in the file (recipe `pose: rest`).
    #[default]
    #[serde(rename = "rest")]
    Nodes,
    /// The skin's bind pose, from its inverse bind matrices (`pose: bind`,
    /// `--bind-pose`).
    Bind,
}

/// What a bake does with the horizontal travel of a clip's root (a walk's
/// forward motion).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootMotion {
    /// The root's horizontal travel is taken out of every frame, so the
    /// figure stays on its pivot; the removed offsets go to the metadata
    /// for the engine to move the sprite by.
    #[default]
    InPlace,
    /// The frames show the travel, framed over the whole path.
    Keep,
}

/// How hard PNG outputs are compressed (a recipe's `png: { compression }`).
/// Every level is deterministic; only size and time differ
/// (`docs/benchmarks.md`, "PNG compression levels").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PngCompression {
    /// Deflate level 1: quicker, files larger.
    Fast,
    /// Deflate level 5: within 1 % of level 6's size on kiln's sheets, and
    /// the 1024² knot bake 9–10 % quicker (`docs/benchmarks.md`).
    #[default]
    Default,
    /// Deflate level 9: slower, a little smaller.
    Best,
}

impl PngCompression {
    /// The zlib level: 1 (fast), 5 (default), 9 (best).
    pub const fn zlib_level(self) -> u8 {
        match self {
            PngCompression::Fast => 1,
            PngCompression::Default => 5,
            PngCompression::Best => 9,
        }
    }
}

/// Whether the light turns with the camera (every direction lit alike, the
/// usual choice for sprites) or stays fixed in the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LightSpace {
    /// The direction is relative to the camera and turns with its yaw.
    Camera,
    /// The direction is fixed in the model's world.
    World,
}

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
