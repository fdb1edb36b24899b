//! A second, lenient reading of a recipe: where the defaults and each job
//! and map start, and their names, so a serde error (which knows only its
//! line and column) can still say which job it lies in.

use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use serde_saphyr::{Location, Spanned};
use std::fmt;

/// Where the parts of a recipe start.
pub struct Starts {
    /// The `defaults:` mapping.
    pub defaults: Option<Location>,
    /// Each job in order, with its `name:` when that is a string.
    pub jobs: Vec<(Location, Option<String>)>,
    /// Each map in order, with its `name:` when that is a string.
    pub maps: Vec<(Location, Option<String>)>,
}

/// The starts of `text`'s parts; `None` when even the lenient reading
/// fails (the text is not YAML at all).
pub fn starts(text: &str) -> Option<Starts> {
    // Duplicate keys are an error in the real parse; here they must not
    // stop us from finding the job the duplicate sits in.
    let opts = serde_saphyr::options! {
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::LastWins,
    };
    let l = serde_saphyr::from_str_with_options::<LenientRecipe>(text, opts).ok()?;
    let named = |v: Option<Vec<Spanned<LenientJob>>>| -> Vec<(Location, Option<String>)> {
        v.unwrap_or_default()
            .into_iter()
            .map(|j| (j.referenced, j.value.name.and_then(|n| n.0)))
            .collect()
    };
    Some(Starts {
        defaults: l.defaults.map(|d| d.referenced),
        jobs: named(l.jobs),
        maps: named(l.maps),
    })
}

#[derive(Deserialize)]
struct LenientRecipe {
    #[serde(default)]
    defaults: Option<Spanned<IgnoredAny>>,
    #[serde(default)]
    jobs: Option<Vec<Spanned<LenientJob>>>,
    #[serde(default)]
    maps: Option<Vec<Spanned<LenientJob>>>,
}

#[derive(Deserialize)]
struct LenientJob {
    #[serde(default)]
    name: Option<AnyName>,
}

struct AnyName(Option<String>);

impl<'de> Deserialize<'de> for AnyName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AnyName;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<AnyName, E> {
                Ok(AnyName(Some(v.to_owned())))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<AnyName, E> {
                Ok(AnyName(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<AnyName, E> {
                Ok(AnyName(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<AnyName, E> {
                Ok(AnyName(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<AnyName, E> {
                Ok(AnyName(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<AnyName, E> {
                Ok(AnyName(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<AnyName, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(AnyName(None))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut a: A) -> Result<AnyName, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(AnyName(None))
            }
        }
        d.deserialize_any(V)
    }
}
