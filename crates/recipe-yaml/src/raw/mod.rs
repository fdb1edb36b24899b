//! The shape serde reads: every key a recipe may have, typed but not yet
//! checked. Unknown keys are refused here (`deny_unknown_fields`); values
//! that need a range check are [`S`]panned so the check can point at them.

pub mod client_sprite;
pub mod look;

use super::values::{
    Background, Directions, Int, Lod, Materials, MetaList, Num, OneOrMany, OutName, PackLayout,
    ProjectionKind, Size, S,
};
use crate::keys::{LightSpace, PngCompression, RestPose, RootMotion};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRecipe {
    #[serde(default)]
    pub defaults: Option<S<RawJob>>,
    #[serde(default)]
    pub jobs: Option<S<Vec<S<RawJob>>>>,
    #[serde(default)]
    pub maps: Option<S<Vec<S<RawMap>>>>,
    #[serde(default)]
    pub gallery: Option<S<RawGallery>>,
}

/// `gallery: { file: out/gallery.html, page_size: 500 }`.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawGallery {
    pub file: Option<S<String>>,
    pub page_size: Option<S<Int>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawJob {
    pub name: Option<S<String>>,
    pub model: Option<S<String>>,
    pub exclude: Option<S<OneOrMany>>,
    pub data: Option<S<OneOrMany>>,
    pub clip: Option<S<RawClip>>,
    pub clips: Option<S<RawClips>>,
    pub pose: Option<S<RestPose>>,
    pub materials: Option<S<Materials>>,
    pub skeleton: Option<S<RawSkeleton>>,
    pub duration: Option<S<Num>>,
    pub travel: Option<S<bool>>,
    pub root_motion: Option<S<RootMotion>>,
    pub lod: Option<S<Lod>>,
    pub scene: Option<S<String>>,
    pub directions: Option<S<Directions>>,
    pub pitch: Option<S<Num>>,
    pub size: Option<S<Size>>,
    pub camera: Option<RawCamera>,
    pub scale: Option<S<RawScale>>,
    pub framing: Option<S<RawFraming>>,
    pub light: Option<S<RawLight>>,
    pub background: Option<S<Background>>,
    pub antialias: Option<S<Int>>,
    pub pack: Option<RawPack>,
    pub metadata: Option<S<MetaList>>,
    pub output: Option<RawOutput>,
    pub client_sprite: Option<S<client_sprite::RawClientSprite>>,
    pub look: Option<S<look::RawLook>>,
    pub png: Option<S<RawPng>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawPng {
    pub compression: Option<S<PngCompression>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawClip {
    pub start: Option<S<Num>>,
    pub end: Option<S<Num>>,
    pub fps: Option<S<Num>>,
    pub frames: Option<S<Int>>,
    pub time: Option<S<Num>>,
    #[serde(rename = "loop")]
    pub looping: Option<S<bool>>,
    pub root_motion: Option<S<RootMotion>>,
}

/// `clips:` — a list, or `all`: one clip per animation the model file
/// holds (glTF).
#[derive(Clone)]
pub enum RawClips {
    All(String),
    List(Vec<S<RawClipEntry>>),
}

impl crate::schema::ValueSchema for RawClips {
    fn expecting(f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of clips, or `all`")
    }
    fn schema() -> serde_json::Value {
        serde_json::json!({ "anyOf": [
            { "enum": ["all"] },
            { "type": "array", "items": { "$inner": true } },
        ] })
    }
}

/// By hand rather than `untagged`, so an entry's own error (an unknown
/// key, a wrong type) is reported as it is, not as "no variant matched".
impl<'de> Deserialize<'de> for RawClips {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = RawClips;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                <RawClips as crate::schema::ValueSchema>::expecting(f)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawClips, E> {
                Ok(RawClips::All(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<RawClips, A::Error> {
                let mut out = Vec::new();
                while let Some(e) = seq.next_element::<S<RawClipEntry>>()? {
                    out.push(e);
                }
                Ok(RawClips::List(out))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// One entry of `clips:`: a `clip:` plus its name and animation file.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawClipEntry {
    pub name: Option<S<String>>,
    pub animation: Option<S<String>>,
    pub embedded: Option<S<String>>,
    pub start: Option<S<Num>>,
    pub end: Option<S<Num>>,
    pub fps: Option<S<Num>>,
    pub frames: Option<S<Int>>,
    pub time: Option<S<Num>>,
    #[serde(rename = "loop")]
    pub looping: Option<S<bool>>,
    pub root_motion: Option<S<RootMotion>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawSkeleton {
    pub config: Option<S<String>>,
    pub class: Option<S<String>>,
    pub bones: Option<S<Vec<Vec<String>>>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawCamera {
    pub projection: Option<S<ProjectionKind>>,
    pub padding: Option<S<Num>>,
    pub zoom: Option<S<Num>>,
    pub fov: Option<S<Num>>,
    pub preset: Option<S<client_sprite::CameraPreset>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawLight {
    pub yaw: Option<S<Num>>,
    pub pitch: Option<S<Num>>,
    pub direction: Option<S<[Num; 3]>>,
    pub space: Option<S<LightSpace>>,
    pub color: Option<S<[Num; 3]>>,
    pub ambient: Option<S<[Num; 3]>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawOutput {
    pub dir: Option<S<String>>,
    pub frames: Option<S<OutName>>,
    pub sheet: Option<S<OutName>>,
    pub meta: Option<S<OutName>>,
    pub gif: Option<S<OutName>>,
    pub gltf: Option<S<OutName>>,
    pub apng: Option<S<OutName>>,
    pub prune: Option<S<bool>>,
    pub ro_sprite: Option<S<OutName>>,
}

/// `scale: { pixels_per_unit: N }`.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawScale {
    pub pixels_per_unit: Option<S<Num>>,
}

/// `framing: { group: NAME }`.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawFraming {
    pub group: Option<S<String>>,
}

/// `pack:`, merged key by key with the defaults'.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawPack {
    pub layout: Option<S<PackLayout>>,
    pub trim: Option<S<bool>>,
    pub padding: Option<S<Int>>,
    pub extrude: Option<S<Int>>,
    pub max_size: Option<S<Size>>,
    pub power_of_two: Option<S<bool>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawMap {
    pub name: Option<S<String>>,
    pub map: Option<S<String>>,
    pub data: Option<S<OneOrMany>>,
    pub output: Option<S<String>>,
    pub antialias: Option<S<Int>>,
    pub background: Option<S<Background>>,
    pub views: Option<S<Vec<S<RawView>>>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawView {
    pub name: Option<S<String>>,
    pub region: Option<S<[Int; 4]>>,
    pub pixels_per_tile: Option<S<Num>>,
    pub yaw: Option<S<Num>>,
    pub pitch: Option<S<Num>>,
    pub size: Option<S<Size>>,
    pub projection: Option<S<ProjectionKind>>,
    pub fov: Option<S<Num>>,
    pub time: Option<S<Num>>,
    pub gif: Option<S<RawGif>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawGif {
    pub fps: Option<S<Num>>,
    pub frames: Option<S<Int>>,
    pub duration: Option<S<Num>>,
}

/// A job's own value for a key, else the one from `defaults:`.
pub fn pick<'a, T>(job: &'a Option<T>, def: &'a Option<T>) -> Option<&'a T> {
    job.as_ref().or(def.as_ref())
}
