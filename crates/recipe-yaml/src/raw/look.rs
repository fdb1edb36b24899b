//! `look:` as written: typed, not yet checked (see `recipe/look.rs`).

use crate::values::{Background, Int, Num, S};
use serde::Deserialize;

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawLook {
    pub outline: Option<S<RawOutline>>,
    pub drop_shadow: Option<S<RawDropShadow>>,
    pub palette: Option<S<RawPalette>>,
    pub shading: Option<S<ShadingKey>>,
    pub cel: Option<S<RawCel>>,
    pub ground_shadow: Option<S<RawGroundShadow>>,
    pub passes: Option<S<RawPasses>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawPasses {
    pub normal: Option<S<bool>>,
    pub depth: Option<S<Int>>,
    pub id: Option<S<IdKey>>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename = "Id", rename_all = "lowercase")]
pub enum IdKey {
    Material,
    Node,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename = "Shading", rename_all = "lowercase")]
pub enum ShadingKey {
    Lambert,
    Flat,
    Unlit,
    Cel,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawCel {
    pub bands: Option<S<Int>>,
    pub rim: Option<S<Num>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawGroundShadow {
    pub from: Option<S<ShadowFromKey>>,
    pub opacity: Option<S<Num>>,
    pub softness: Option<S<Int>>,
    pub color: Option<S<Background>>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename = "ShadowFrom", rename_all = "lowercase")]
pub enum ShadowFromKey {
    Light,
    Down,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawOutline {
    pub width: Option<S<Int>>,
    pub color: Option<S<Background>>,
    pub side: Option<S<OutlineSideKey>>,
    pub hard: Option<S<bool>>,
    pub inner: Option<S<Num>>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename = "OutlineSide", rename_all = "lowercase")]
pub enum OutlineSideKey {
    Outside,
    Inside,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawDropShadow {
    pub offset: Option<S<[Int; 2]>>,
    pub blur: Option<S<Int>>,
    pub color: Option<S<Background>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawPalette {
    pub file: Option<S<String>>,
    pub colors: Option<S<Int>>,
    pub dither: Option<S<DitherKey>>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename = "Dither", rename_all = "lowercase")]
pub enum DitherKey {
    None,
    Ordered,
    Diffusion,
}
