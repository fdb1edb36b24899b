//! `look:` as written: typed, not yet checked (see `recipe/look.rs`).

use crate::bake::recipe::values::{Background, Int, Num, S};
use serde::Deserialize;

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(in crate::bake::recipe) struct RawLook {
    pub(in crate::bake::recipe) outline: Option<S<RawOutline>>,
    pub(in crate::bake::recipe) drop_shadow: Option<S<RawDropShadow>>,
    pub(in crate::bake::recipe) palette: Option<S<RawPalette>>,
    pub(in crate::bake::recipe) shading: Option<S<ShadingKey>>,
    pub(in crate::bake::recipe) cel: Option<S<RawCel>>,
    pub(in crate::bake::recipe) ground_shadow: Option<S<RawGroundShadow>>,
    pub(in crate::bake::recipe) passes: Option<S<RawPasses>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(in crate::bake::recipe) struct RawPasses {
    pub(in crate::bake::recipe) normal: Option<S<bool>>,
    pub(in crate::bake::recipe) depth: Option<S<Int>>,
    pub(in crate::bake::recipe) id: Option<S<IdKey>>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename = "Id", rename_all = "lowercase")]
pub(in crate::bake::recipe) enum IdKey {
    Material,
    Node,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename = "Shading", rename_all = "lowercase")]
pub(in crate::bake::recipe) enum ShadingKey {
    Lambert,
    Flat,
    Unlit,
    Cel,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(in crate::bake::recipe) struct RawCel {
    pub(in crate::bake::recipe) bands: Option<S<Int>>,
    pub(in crate::bake::recipe) rim: Option<S<Num>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(in crate::bake::recipe) struct RawGroundShadow {
    pub(in crate::bake::recipe) from: Option<S<ShadowFromKey>>,
    pub(in crate::bake::recipe) opacity: Option<S<Num>>,
    pub(in crate::bake::recipe) softness: Option<S<Int>>,
    pub(in crate::bake::recipe) color: Option<S<Background>>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename = "ShadowFrom", rename_all = "lowercase")]
pub(in crate::bake::recipe) enum ShadowFromKey {
    Light,
    Down,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(in crate::bake::recipe) struct RawOutline {
    pub(in crate::bake::recipe) width: Option<S<Int>>,
    pub(in crate::bake::recipe) color: Option<S<Background>>,
    pub(in crate::bake::recipe) side: Option<S<OutlineSideKey>>,
    pub(in crate::bake::recipe) hard: Option<S<bool>>,
    pub(in crate::bake::recipe) inner: Option<S<Num>>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename = "OutlineSide", rename_all = "lowercase")]
pub(in crate::bake::recipe) enum OutlineSideKey {
    Outside,
    Inside,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(in crate::bake::recipe) struct RawDropShadow {
    pub(in crate::bake::recipe) offset: Option<S<[Int; 2]>>,
    pub(in crate::bake::recipe) blur: Option<S<Int>>,
    pub(in crate::bake::recipe) color: Option<S<Background>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(in crate::bake::recipe) struct RawPalette {
    pub(in crate::bake::recipe) file: Option<S<String>>,
    pub(in crate::bake::recipe) colors: Option<S<Int>>,
    pub(in crate::bake::recipe) dither: Option<S<DitherKey>>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename = "Dither", rename_all = "lowercase")]
pub(in crate::bake::recipe) enum DitherKey {
    None,
    Ordered,
    Diffusion,
}
