//! Colours as users write them: `transparent`, `#rrggbb` or `#rrggbbaa`.
//! The reader lives with the recipe's YAML shape (`kiln-recipe-yaml`),
//! whose `background:` keys need it; the command line reads the same
//! spellings through it.

pub use kiln_recipe_yaml::color::{parse_color, ColorError};
