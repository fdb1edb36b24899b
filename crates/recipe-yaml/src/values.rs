//! The recipe's own value types: each exists for its message (serde's own
//! for a float given as `high` is a bare "invalid floating point"; these say
//! what was expected and what was found). Range checks happen in kiln, which
//! knows the job; these only read.

use crate::color::parse_color;
use crate::schema::ValueSchema;
use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{json, Value};
use serde_saphyr::{Location, Spanned};
use std::fmt;

/// Most directions a job may have: a count above it, or a longer list of
/// yaws, is refused while reading (a list is not collected past it).
pub const MAX_DIRECTIONS: usize = 360;

/// The metadata format names a recipe may write, for messages (kiln's
/// `MetaFormat::NAMES`; a kiln test checks the two agree).
pub const META_FORMAT_NAMES: &str =
    "texturepacker-hash, texturepacker-array, aseprite, pixi, godot";

/// A value with the position it was written at.
pub type S<T> = Spanned<T>;

/// `projection: orthographic` or `perspective`: the keyword alone, since the
/// field of view is its own key (`fov`); resolution turns the pair into a
/// `kiln::Projection`. Serde names it `Projection` in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename = "Projection", rename_all = "lowercase")]
pub enum ProjectionKind {
    /// Parallel rays: sizes do not change with depth.
    Orthographic,
    /// A pinhole camera with the field of view of `fov`.
    Perspective,
}

/// A number; a custom type only so that `pitch: high` says "expected a
/// number" instead of the parser's bare "invalid floating point".
#[derive(Clone, Copy)]
pub struct Num(pub f32);

impl ValueSchema for Num {
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number")
    }
    fn schema() -> Value {
        json!({ "type": "number" })
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                <Num as ValueSchema>::expecting(f)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num(v as f32))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num(v as f32))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num(v as f32))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Num, E> {
                Err(E::custom(format!("expected a number, got `{v}`")))
            }
        }
        d.deserialize_any(V)
    }
}

/// A whole number; custom so that `antialias: 2.5` says what was wrong.
#[derive(Clone, Copy)]
pub struct Int(pub i64);

impl ValueSchema for Int {
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a whole number")
    }
    fn schema() -> Value {
        json!({ "type": "integer" })
    }
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Int;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                <Int as ValueSchema>::expecting(f)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Int, E> {
                Ok(Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Int, E> {
                Ok(Int(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Int, E> {
                Err(E::custom(format!("expected a whole number, got {v}")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Int, E> {
                Err(E::custom(format!("expected a whole number, got `{v}`")))
            }
        }
        d.deserialize_any(V)
    }
}

/// `data: ../data` or `data: [a, b]` (also `exclude:`).
#[derive(Clone)]
pub struct OneOrMany(pub Vec<String>);

impl ValueSchema for OneOrMany {
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a path or a list of paths")
    }
    fn schema() -> Value {
        json!({ "anyOf": [
            { "type": "string" },
            { "type": "array", "items": { "type": "string" } },
        ] })
    }
}

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OneOrMany;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                <OneOrMany as ValueSchema>::expecting(f)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<OneOrMany, E> {
                Ok(OneOrMany(vec![v.to_owned()]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<OneOrMany, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = a.next_element::<String>()? {
                    v.push(s);
                }
                Ok(OneOrMany(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// `directions: 8` or `directions: [0, 90, 180, 270]`.
#[derive(Clone)]
pub enum Directions {
    /// That many directions, evenly around.
    Count(i64),
    /// These yaw angles, degrees.
    Yaws(Vec<f64>),
}

impl ValueSchema for Directions {
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a count of directions or a list of yaw angles in degrees")
    }
    fn schema() -> Value {
        json!({ "anyOf": [
            { "type": "integer" },
            { "type": "array", "items": { "type": "number" }, "maxItems": MAX_DIRECTIONS },
        ] })
    }
}

impl<'de> Deserialize<'de> for Directions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Directions;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                <Directions as ValueSchema>::expecting(f)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Directions, E> {
                Ok(Directions::Count(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Directions, E> {
                Ok(Directions::Count(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Directions, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = a.next_element::<f64>()? {
                    if v.len() >= MAX_DIRECTIONS {
                        return Err(de::Error::custom(format!(
                            "more than {MAX_DIRECTIONS} directions"
                        )));
                    }
                    v.push(s);
                }
                Ok(Directions::Yaws(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// `size: 128x128`, `size: [128, 96]` or `size: 128` (square).
#[derive(Clone, Copy)]
pub struct Size(pub i64, pub i64, pub bool);

impl ValueSchema for Size {
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a size like 128x96, [128, 96] or 128")
    }
    fn schema() -> Value {
        json!({ "anyOf": [
            { "type": "integer" },
            { "type": "string", "pattern": "^\\s*[+-]?[0-9]+\\s*[xX]\\s*[+-]?[0-9]+\\s*$" },
            { "type": "array", "items": { "type": "integer" }, "minItems": 2, "maxItems": 2 },
        ] })
    }
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Size;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                <Size as ValueSchema>::expecting(f)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Size, E> {
                Ok(Size(v, v, true))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Size, E> {
                let v = i64::try_from(v).unwrap_or(i64::MAX);
                Ok(Size(v, v, true))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Size, E> {
                let bad = || E::custom(format!("expected a size like 128x96, got `{v}`"));
                let (w, h) = v.split_once(['x', 'X']).ok_or_else(bad)?;
                let w = w.trim().parse::<i64>().map_err(|_| bad())?;
                let h = h.trim().parse::<i64>().map_err(|_| bad())?;
                Ok(Size(w, h, false))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Size, A::Error> {
                let w = a.next_element::<i64>()?;
                let h = a.next_element::<i64>()?;
                match (w, h) {
                    (Some(w), Some(h)) => {
                        if a.next_element::<IgnoredAny>()?.is_some() {
                            return Err(de::Error::custom(
                                "expected a size as [width, height], got more than two numbers",
                            ));
                        }
                        Ok(Size(w, h, false))
                    }
                    _ => Err(de::Error::custom(
                        "expected a size as [width, height], got fewer than two numbers",
                    )),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// `background: transparent`, `"#rrggbb"` or `"#rrggbbaa"`.
#[derive(Clone, Copy)]
pub struct Background(pub [u8; 4]);

impl ValueSchema for Background {
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a colour: `transparent`, \"#rrggbb\" or \"#rrggbbaa\"")
    }
    fn schema() -> Value {
        json!({
            "type": "string",
            "pattern": "^([Tt][Rr][Aa][Nn][Ss][Pp][Aa][Rr][Ee][Nn][Tt]|#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{8}))$",
        })
    }
}

impl<'de> Deserialize<'de> for Background {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Through a newtype only so the schema's walk can tell a colour
        // from a string; serde-saphyr hands the value straight on, and a
        // non-string is refused by `String`'s reader as before.
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Background;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                <Background as ValueSchema>::expecting(f)
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Background, D::Error> {
                let s = String::deserialize(d)?;
                parse_color(&s).map(Background).map_err(|_| {
                    de::Error::custom(format!(
                        "expected `transparent`, \"#rrggbb\" or \"#rrggbbaa\" (quoted: # starts a YAML comment), got `{s}`"
                    ))
                })
            }
        }
        d.deserialize_newtype_struct("Background", V)
    }
}

/// An output file name, or `false` to switch that output off.
#[derive(Clone)]
pub enum OutName {
    /// `false`: the output is not written.
    Off,
    /// The file name (a template).
    Name(String),
}

impl ValueSchema for OutName {
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a file name, or false to turn this output off")
    }
    fn schema() -> Value {
        json!({ "anyOf": [{ "type": "string" }, { "enum": [false] }] })
    }
}

impl<'de> Deserialize<'de> for OutName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OutName;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                <OutName as ValueSchema>::expecting(f)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<OutName, E> {
                if v {
                    Err(E::custom(
                        "expected a file name, or false to turn this output off, got true",
                    ))
                } else {
                    Ok(OutName::Off)
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<OutName, E> {
                Ok(OutName::Name(v.to_owned()))
            }
        }
        d.deserialize_any(V)
    }
}

/// `materials: {name: file, ...}`, kept in the order written (a map type
/// would sort it, and the order is what the user reads in messages).
#[derive(Clone)]
pub struct Materials(pub Vec<(S<String>, S<String>)>);

impl ValueSchema for Materials {
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping of material names to texture files")
    }
    fn schema() -> Value {
        json!({ "type": "object", "additionalProperties": { "type": "string" } })
    }
}

impl<'de> Deserialize<'de> for Materials {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Materials;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                <Materials as ValueSchema>::expecting(f)
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut a: A) -> Result<Materials, A::Error> {
                let mut v = Vec::new();
                while let Some(k) = a.next_key::<S<String>>()? {
                    let f = a.next_value::<S<String>>()?;
                    v.push((k, f));
                }
                Ok(Materials(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// `lod: 2` (an index) or `lod: {resolution: 1.5}`.
#[derive(Clone, Copy)]
pub enum Lod {
    /// The LOD at this position in the file.
    Index(i64),
    /// The LOD with this resolution value.
    Resolution(f32),
}

const LOD_EXPECTED: &str = "a LOD index (a whole number) or `{resolution: R}`";

impl ValueSchema for Lod {
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(LOD_EXPECTED)
    }
    fn schema() -> Value {
        json!({ "anyOf": [
            { "type": "integer" },
            {
                "type": "object",
                "properties": { "resolution": { "type": "number" } },
                "required": ["resolution"],
                "additionalProperties": false,
            },
        ] })
    }
}

impl<'de> Deserialize<'de> for Lod {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        const EXPECTED: &str = LOD_EXPECTED;
        impl<'de> Visitor<'de> for V {
            type Value = Lod;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                <Lod as ValueSchema>::expecting(f)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Lod, E> {
                Ok(Lod::Index(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Lod, E> {
                Ok(Lod::Index(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Lod, E> {
                Err(E::custom(format!("expected {EXPECTED}, got {v}")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Lod, E> {
                Err(E::custom(format!("expected {EXPECTED}, got `{v}`")))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut a: A) -> Result<Lod, A::Error> {
                let mut res = None;
                while let Some(k) = a.next_key::<String>()? {
                    if k != "resolution" {
                        return Err(de::Error::custom(format!(
                            "unknown key `{k}`, expected resolution"
                        )));
                    }
                    if res.is_some() {
                        return Err(de::Error::custom("duplicate key `resolution`"));
                    }
                    res = Some(a.next_value::<Num>()?.0);
                }
                res.map(Lod::Resolution)
                    .ok_or_else(|| de::Error::custom("missing key `resolution`"))
            }
        }
        d.deserialize_any(V)
    }
}

/// `pack.layout: grid` or `packed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename = "Layout", rename_all = "lowercase")]
pub enum PackLayout {
    /// One row per clip × direction, one full-size cell per frame.
    Grid,
    /// Frames placed wherever they fit, trimmed or not.
    Packed,
}

/// `metadata: [texturepacker-hash, pixi]`, or one name alone: the names
/// as written, each with its position, checked when the job resolves.
#[derive(Clone)]
pub struct MetaList(pub Vec<(String, Option<Location>)>);

impl ValueSchema for MetaList {
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a list of metadata formats ({})", META_FORMAT_NAMES)
    }
    fn schema() -> Value {
        let names: Vec<&str> = META_FORMAT_NAMES.split(", ").collect();
        json!({ "anyOf": [
            { "enum": names },
            { "type": "array", "items": { "enum": names } },
        ] })
    }
}

impl<'de> Deserialize<'de> for MetaList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MetaList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                <MetaList as ValueSchema>::expecting(f)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<MetaList, E> {
                Ok(MetaList(vec![(v.to_owned(), None)]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<MetaList, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = a.next_element::<S<String>>()? {
                    v.push((s.value, Some(s.referenced)));
                }
                Ok(MetaList(v))
            }
        }
        d.deserialize_any(V)
    }
}
