//! The YAML shape of a kiln recipe: every key a recipe may have, typed and
//! with its position, but not yet checked — kiln resolves and range-checks
//! it (`kiln::Recipe`), and re-exports the few types its API names
//! ([`keys`], [`values::PackLayout`], [`color`]).
//!
//! A crate of its own for one reason, compile time: serde's derived readers
//! instantiated for serde-saphyr's deserializer are over half of what kiln's
//! library would otherwise hand to the optimiser, and here they are
//! compiled once, unoptimised in the test profile (a recipe is a few
//! kilobytes), instead of twice at kiln's test opt-level
//! (`docs/design.md`, "Crates").

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod color;
pub mod keys;
mod lenient;
// Each key is documented where users read it, docs/recipes.md.
#[allow(missing_docs)]
pub mod raw;
pub mod schema;
pub mod values;

pub use lenient::{starts, Starts};
pub use serde_saphyr;
pub use serde_saphyr::{Location, Spanned};

/// Reads `text` into the recipe's shape. `.inf`/`.nan` reach kiln's number
/// types, which refuse them naming the key; serde-saphyr's default would
/// refuse them with a generic message.
pub fn parse(text: &str) -> Result<raw::RawRecipe, serde_saphyr::Error> {
    let options = serde_saphyr::options! {
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
    };
    serde_saphyr::from_str_with_options(text, options)
}
