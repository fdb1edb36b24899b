//! The shape serde reads: every key a recipe may have, typed but not yet
//! checked. Unknown keys are refused here (`deny_unknown_fields`); values
//! that need a range check are [`S`]panned so the check can point at them.

pub(super) mod client_sprite;
pub(super) mod look;

use super::values::{
    Background, Directions, Int, Lod, Materials, MetaList, Num, OneOrMany, OutName, PackLayout,
    ProjectionKind, Size, S,
};
use crate::camera::LightSpace;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRecipe {
    #[serde(default)]
    pub(super) defaults: Option<S<RawJob>>,
    #[serde(default)]
    pub(super) jobs: Option<S<Vec<S<RawJob>>>>,
    #[serde(default)]
    pub(super) maps: Option<S<Vec<S<RawMap>>>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawJob {
    pub(super) name: Option<S<String>>,
    pub(super) model: Option<S<String>>,
    pub(super) data: Option<S<OneOrMany>>,
    pub(super) clip: Option<S<RawClip>>,
    pub(super) clips: Option<S<RawClips>>,
    pub(super) pose: Option<S<crate::spec::RestPose>>,
    pub(super) materials: Option<S<Materials>>,
    pub(super) skeleton: Option<S<RawSkeleton>>,
    pub(super) duration: Option<S<Num>>,
    pub(super) travel: Option<S<bool>>,
    pub(super) root_motion: Option<S<crate::spec::RootMotion>>,
    pub(super) lod: Option<S<Lod>>,
    pub(super) scene: Option<S<String>>,
    pub(super) directions: Option<S<Directions>>,
    pub(super) pitch: Option<S<Num>>,
    pub(super) size: Option<S<Size>>,
    pub(super) camera: Option<RawCamera>,
    pub(super) scale: Option<S<RawScale>>,
    pub(super) framing: Option<S<RawFraming>>,
    pub(super) light: Option<S<RawLight>>,
    pub(super) background: Option<S<Background>>,
    pub(super) antialias: Option<S<Int>>,
    pub(super) pack: Option<RawPack>,
    pub(super) metadata: Option<S<MetaList>>,
    pub(super) output: Option<RawOutput>,
    pub(super) client_sprite: Option<S<client_sprite::RawClientSprite>>,
    pub(super) look: Option<S<look::RawLook>>,
    pub(super) png: Option<S<RawPng>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPng {
    pub(super) compression: Option<S<crate::output::PngCompression>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawClip {
    pub(super) start: Option<S<Num>>,
    pub(super) end: Option<S<Num>>,
    pub(super) fps: Option<S<Num>>,
    pub(super) frames: Option<S<Int>>,
    pub(super) time: Option<S<Num>>,
    #[serde(rename = "loop")]
    pub(super) looping: Option<S<bool>>,
    pub(super) root_motion: Option<S<crate::spec::RootMotion>>,
}

/// `clips:` — a list, or `all`: one clip per animation the model file
/// holds (glTF).
#[derive(Clone)]
pub(super) enum RawClips {
    All(String),
    List(Vec<S<RawClipEntry>>),
}

/// By hand rather than `untagged`, so an entry's own error (an unknown
/// key, a wrong type) is reported as it is, not as "no variant matched".
impl<'de> Deserialize<'de> for RawClips {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = RawClips;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of clips, or `all`")
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
pub(super) struct RawClipEntry {
    pub(super) name: Option<S<String>>,
    pub(super) animation: Option<S<String>>,
    pub(super) embedded: Option<S<String>>,
    pub(super) start: Option<S<Num>>,
    pub(super) end: Option<S<Num>>,
    pub(super) fps: Option<S<Num>>,
    pub(super) frames: Option<S<Int>>,
    pub(super) time: Option<S<Num>>,
    #[serde(rename = "loop")]
    pub(super) looping: Option<S<bool>>,
    pub(super) root_motion: Option<S<crate::spec::RootMotion>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSkeleton {
    pub(super) config: Option<S<String>>,
    pub(super) class: Option<S<String>>,
    pub(super) bones: Option<S<Vec<Vec<String>>>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCamera {
    pub(super) projection: Option<S<ProjectionKind>>,
    pub(super) padding: Option<S<Num>>,
    pub(super) zoom: Option<S<Num>>,
    pub(super) fov: Option<S<Num>>,
    pub(super) preset: Option<S<client_sprite::CameraPreset>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLight {
    pub(super) yaw: Option<S<Num>>,
    pub(super) pitch: Option<S<Num>>,
    pub(super) direction: Option<S<[Num; 3]>>,
    pub(super) space: Option<S<LightSpace>>,
    pub(super) color: Option<S<[Num; 3]>>,
    pub(super) ambient: Option<S<[Num; 3]>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOutput {
    pub(super) dir: Option<S<String>>,
    pub(super) frames: Option<S<OutName>>,
    pub(super) sheet: Option<S<OutName>>,
    pub(super) meta: Option<S<OutName>>,
    pub(super) gif: Option<S<OutName>>,
    pub(super) gltf: Option<S<OutName>>,
    pub(super) apng: Option<S<OutName>>,
    pub(super) prune: Option<S<bool>>,
    pub(super) ro_sprite: Option<S<OutName>>,
}

/// `scale: { pixels_per_unit: N }`.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScale {
    pub(super) pixels_per_unit: Option<S<Num>>,
}

/// `framing: { group: NAME }`.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFraming {
    pub(super) group: Option<S<String>>,
}

/// `pack:`, merged key by key with the defaults'.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPack {
    pub(super) layout: Option<S<PackLayout>>,
    pub(super) trim: Option<S<bool>>,
    pub(super) padding: Option<S<Int>>,
    pub(super) extrude: Option<S<Int>>,
    pub(super) max_size: Option<S<Size>>,
    pub(super) power_of_two: Option<S<bool>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMap {
    pub(super) name: Option<S<String>>,
    pub(super) map: Option<S<String>>,
    pub(super) data: Option<S<OneOrMany>>,
    pub(super) output: Option<S<String>>,
    pub(super) antialias: Option<S<Int>>,
    pub(super) background: Option<S<Background>>,
    pub(super) views: Option<S<Vec<S<RawView>>>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawView {
    pub(super) name: Option<S<String>>,
    pub(super) region: Option<S<[Int; 4]>>,
    pub(super) pixels_per_tile: Option<S<Num>>,
    pub(super) yaw: Option<S<Num>>,
    pub(super) pitch: Option<S<Num>>,
    pub(super) size: Option<S<Size>>,
    pub(super) projection: Option<S<ProjectionKind>>,
    pub(super) fov: Option<S<Num>>,
    pub(super) time: Option<S<Num>>,
    pub(super) gif: Option<S<RawGif>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGif {
    pub(super) fps: Option<S<Num>>,
    pub(super) frames: Option<S<Int>>,
    pub(super) duration: Option<S<Num>>,
}

/// A job's own value for a key, else the one from `defaults:`.
pub(super) fn pick<'a, T>(job: &'a Option<T>, def: &'a Option<T>) -> Option<&'a T> {
    job.as_ref().or(def.as_ref())
}
