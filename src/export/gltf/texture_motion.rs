//! RSM2 texture animation as `KHR_texture_transform` values.
//!
//! kiln moves texture coordinates by `T(t) · T(c) · R(θ) · T(−c) · S(s)`
//! (c the texture centre); `KHR_texture_transform` applies
//! `T(offset) · R'(ρ) · S(scale)`, where its rotation turns the other way
//! (`R'(ρ) = R(−ρ)`). So `offset` is the translation of kiln's whole
//! transform, `ρ = −θ` and `scale = s`. The offset is linear between keys
//! unless the texture also rotates; then keys are added until it follows.

use super::keys::Signal;
use crate::scene::pose::{uv_parts, uv_transform};
use crate::scene::UvAnim;
use glam::Vec2;

pub(super) struct TextureSignals<'a> {
    pub offset: Signal<'a, Vec2>,
    pub rotation: Signal<'a, f32>,
    pub scale: Signal<'a, Vec2>,
}

pub(super) fn signals(anims: &[UvAnim], tolerance: f32) -> TextureSignals<'_> {
    let knots: Vec<f32> = anims
        .iter()
        .flat_map(|a| a.track.times.iter().copied())
        .collect();
    let step = anims
        .iter()
        .all(|a| a.track.interp == crate::scene::Interp::Step)
        && !anims.is_empty();
    let signal = |eval| Signal {
        eval,
        knots: knots.clone(),
        step,
        tolerance,
    };
    TextureSignals {
        offset: signal(Box::new(move |u| uv_transform(anims, u).translation)),
        rotation: Signal {
            eval: Box::new(move |u| -uv_parts(anims, u).2),
            knots: knots.clone(),
            step,
            tolerance,
        },
        scale: signal(Box::new(move |u| uv_parts(anims, u).1)),
    }
}
