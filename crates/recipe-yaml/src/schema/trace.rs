//! A serde `Deserializer` that reads no text: it walks one path through a
//! type's `Deserialize` impl and records the shape found at its end — a
//! struct's field names (derive passes them to `deserialize_struct`) and
//! whether it refuses unknown keys, an enum's variants, a primitive, a list,
//! a map, or one of the crate's own value types (known by what its visitor
//! says it expects, [`super::ValueSchema`]). Every walk ends in an error;
//! no value is ever built.

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use std::cell::RefCell;
use std::fmt;

/// One step down a type.
#[derive(Clone, Copy, Debug)]
pub enum Step {
    /// Into a struct's field.
    Field(&'static str),
    /// Into a list's (or fixed array's) items.
    Item,
    /// Into a map's values.
    Value,
    /// Into the list inside one of the crate's own value types.
    Inner,
}

/// What a walk found at the end of its path.
#[derive(Clone, Debug)]
pub enum Node {
    /// A struct: its name, its keys, whether unknown keys are refused.
    Struct(&'static str, &'static [&'static str], bool),
    /// A unit-variant enum: the keywords.
    Enum(&'static [&'static str]),
    /// A JSON Schema type name (`boolean`, `integer`, `number`, `string`).
    Primitive(&'static str),
    /// A list of any length.
    Seq,
    /// A fixed-length array.
    Tuple(usize),
    /// A mapping from strings.
    Map,
    /// One of the crate's own value types, by what its visitor expects.
    Custom(String),
}

/// Why the walk stopped: always, since nothing is read.
#[derive(Debug)]
pub struct Stop {
    pub message: String,
    /// Set when a struct refused the probing key.
    pub unknown_field: bool,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Stop {
            message: msg.to_string(),
            unknown_field: false,
        }
    }
    fn unknown_field(field: &str, _expected: &'static [&'static str]) -> Self {
        Stop {
            message: format!("unknown field `{field}`"),
            unknown_field: true,
        }
    }
}

fn stop<T>() -> Result<T, Stop> {
    Err(de::Error::custom("recorded"))
}

/// A key no recipe struct has: a struct that takes it ignores unknown keys.
const PROBE: &str = "\u{0}probe";

/// serde-saphyr's `Spanned<T>` reads `T` only from a map its own
/// deserializer marks with this key (serde-saphyr 2, `spanned.rs`); a
/// release that renames it makes the walk fail, and the schema test with it.
const SPANNED_MARKER: &str = "__serde_saphyr_private_spanned";

#[derive(Clone, Copy)]
pub struct Tracer<'a> {
    pub path: &'a [Step],
    pub found: &'a RefCell<Option<Node>>,
    /// `expecting` texts of the crate's own value types.
    pub custom: &'a [String],
}

impl<'a> Tracer<'a> {
    fn record<T>(self, node: Node) -> Result<T, Stop> {
        *self.found.borrow_mut() = Some(node);
        stop()
    }
    fn rest(self) -> Tracer<'a> {
        Tracer {
            path: &self.path[1..],
            ..self
        }
    }
    fn wrong<T>(self, what: &str) -> Result<T, Stop> {
        Err(de::Error::custom(format!(
            "path {:?} does not fit {what}",
            self.path
        )))
    }
    /// The crate's own value type behind `v`, if it is one.
    fn custom_type<'de, V: Visitor<'de>>(&self, v: &V) -> Option<String> {
        let text = format!("{}", v as &dyn de::Expected);
        self.custom.contains(&text).then_some(text)
    }
    fn custom_or<'de, V: Visitor<'de>>(
        self,
        v: V,
        otherwise: impl FnOnce(Self, V) -> Result<V::Value, Stop>,
    ) -> Result<V::Value, Stop> {
        match self.custom_type(&v) {
            None => otherwise(self, v),
            Some(text) => match self.path.first() {
                None => self.record(Node::Custom(text)),
                Some(Step::Inner) => v.visit_seq(One(Some(self.rest()))),
                Some(_) => self.wrong(&text),
            },
        }
    }
}

/// A sequence of one traced element.
struct One<'a>(Option<Tracer<'a>>);

impl<'de, 'a> SeqAccess<'de> for One<'a> {
    type Error = Stop;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Stop> {
        match self.0.take() {
            Some(t) => seed.deserialize(t).map(Some),
            None => Ok(None),
        }
    }
}

/// A map of fixed keys; each value is unit, or the traced one.
struct Entries<'a> {
    entries: Vec<(&'static str, Option<Tracer<'a>>)>,
    next: usize,
}

impl<'de, 'a> MapAccess<'de> for Entries<'a> {
    type Error = Stop;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Stop> {
        match self.entries.get(self.next) {
            Some((k, _)) => seed.deserialize((*k).into_deserializer()).map(Some),
            None => Ok(None),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Stop> {
        let value = self.entries.get(self.next).and_then(|e| e.1);
        self.next += 1;
        match value {
            Some(t) => seed.deserialize(t),
            None => seed.deserialize(().into_deserializer()),
        }
    }
}

fn entries<'a>(entries: Vec<(&'static str, Option<Tracer<'a>>)>) -> Entries<'a> {
    Entries { entries, next: 0 }
}

/// What a `Spanned<T>` is handed: the marked map with `T` as its value.
struct Spanned<'a>(Tracer<'a>);

impl<'de, 'a> de::Deserializer<'de> for Spanned<'a> {
    type Error = Stop;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Stop> {
        v.visit_map(entries(vec![
            (SPANNED_MARKER, None),
            ("value", Some(self.0)),
        ]))
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

macro_rules! primitive {
    ($($method:ident => $name:literal),* $(,)?) => {
        $(fn $method<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, Stop> {
            match self.path.first() {
                None => self.record(Node::Primitive($name)),
                Some(_) => self.wrong($name),
            }
        })*
    };
}

impl<'de, 'a> de::Deserializer<'de> for Tracer<'a> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Stop> {
        self.custom_or(v, |_, v| {
            Err(de::Error::custom(format!(
                "`{}` is read with deserialize_any but is not one of the crate's value types",
                &v as &dyn de::Expected
            )))
        })
    }

    primitive! {
        deserialize_bool => "boolean",
        deserialize_i8 => "integer", deserialize_i16 => "integer",
        deserialize_i32 => "integer", deserialize_i64 => "integer",
        deserialize_u8 => "integer", deserialize_u16 => "integer",
        deserialize_u32 => "integer", deserialize_u64 => "integer",
        deserialize_f32 => "number", deserialize_f64 => "number",
        deserialize_char => "string", deserialize_str => "string",
        deserialize_string => "string", deserialize_identifier => "string",
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Stop> {
        v.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        v: V,
    ) -> Result<V::Value, Stop> {
        if name == "__yaml_spanned" {
            return v.visit_newtype_struct(Spanned(self));
        }
        self.custom_or(v, |t, v| v.visit_newtype_struct(t))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Stop> {
        match self.path.first() {
            None => self.record(Node::Seq),
            Some(Step::Item) => v.visit_seq(One(Some(self.rest()))),
            Some(_) => self.wrong("a list"),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, Stop> {
        match self.path.first() {
            None => self.record(Node::Tuple(len)),
            Some(Step::Item) => v.visit_seq(One(Some(self.rest()))),
            Some(_) => self.wrong("an array"),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Stop> {
        self.custom_or(v, |t, v| match t.path.first() {
            None => t.record(Node::Map),
            Some(Step::Value) => v.visit_map(entries(vec![("key", Some(t.rest()))])),
            Some(_) => t.wrong("a map"),
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Stop> {
        match self.path.first() {
            None => {
                let closed = match v.visit_map(entries(vec![(PROBE, None)])) {
                    Err(e) => e.unknown_field,
                    Ok(_) => false,
                };
                self.record(Node::Struct(name, fields, closed))
            }
            Some(Step::Field(f)) => v.visit_map(entries(vec![(f, Some(self.rest()))])),
            Some(_) => self.wrong(name),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        _v: V,
    ) -> Result<V::Value, Stop> {
        match self.path.first() {
            None => self.record(Node::Enum(variants)),
            Some(_) => self.wrong("an enum"),
        }
    }

    serde::forward_to_deserialize_any! {
        i128 u128 bytes byte_buf unit unit_struct tuple_struct ignored_any
    }
}
