//! How a job bakes into a Ragnarok client sprite (`output.ro_sprite`):
//! `client_sprite: { images: palette | rgba, dither, mirror, hit: { clip:
//! frame } }`, and the `ragnarok` camera preset.

use super::clips::ClipSpec;
use super::error::{Ctx, JobLabel, RecipeError};
use super::raw::client_sprite::RawClientSprite;
pub use super::raw::client_sprite::SpriteImages;
use super::values::S;

/// A job's client-sprite settings.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClientSpriteSpec {
    /// Palette or RGBA images.
    pub images: SpriteImages,
    /// Floyd–Steinberg dithering into the palette.
    pub dither: bool,
    /// Draw only directions 0–4 and show 5–7 as 3–1 mirrored (for models
    /// symmetric left to right).
    pub mirror: bool,
    /// Clip name → the frame that carries the `atk` event (the hit).
    pub hits: Vec<(String, u32)>,
}

/// The client's camera: its height above the player equals its distance
/// along the ground (45°), with a 15° vertical field of view.
pub const RAGNAROK_PITCH: f32 = 45.0;
/// See [`RAGNAROK_PITCH`].
pub const RAGNAROK_FOV: f32 = 15.0;

/// The job's (or the defaults') `client_sprite:`, taken whole; `hit`
/// must name the job's clips and frames they have.
pub(super) fn resolve_client_sprite(
    ctx: &Ctx,
    lab: JobLabel,
    j: Option<&S<RawClientSprite>>,
    d: Option<&S<RawClientSprite>>,
    clips: &[ClipSpec],
) -> Result<ClientSpriteSpec, RecipeError> {
    let Some(s) = j.or(d) else {
        return Ok(ClientSpriteSpec::default());
    };
    let l = lab.of(j.is_some());
    let mut spec = ClientSpriteSpec {
        images: s.value.images.as_ref().map(|i| i.value).unwrap_or_default(),
        dither: s.value.dither.as_ref().is_some_and(|x| x.value),
        mirror: s.value.mirror.as_ref().is_some_and(|x| x.value),
        hits: Vec::new(),
    };
    if let Some(hits) = &s.value.hit {
        for (clip, frame) in &hits.value {
            if !clips.iter().any(|c| &c.name == clip) {
                let names: Vec<&str> = clips.iter().map(|c| c.name.as_str()).collect();
                return Err(ctx.err(
                    &hits.referenced,
                    &l,
                    format!(
                        "`client_sprite.hit` names clip '{clip}', which the job does not have ({})",
                        names.join(", ")
                    ),
                ));
            }
            if !(0..=i64::from(u16::MAX)).contains(&frame.value.0) {
                return Err(ctx.err(
                    &frame.referenced,
                    &l,
                    format!(
                        "`client_sprite.hit.{clip}` must be a frame index, got {}",
                        frame.value.0
                    ),
                ));
            }
            spec.hits.push((clip.clone(), frame.value.0 as u32));
        }
    }
    Ok(spec)
}
