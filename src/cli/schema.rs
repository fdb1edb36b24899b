//! `kiln schema`: the recipe's JSON Schema, generated from the types kiln
//! reads recipes into (the repository ships the same text as
//! `schema/kiln-recipe.schema.json`).

use super::emit;
use kiln::Error;

/// Prints the schema; `kiln schema > kiln-recipe.schema.json`.
pub fn run() -> Result<(), Error> {
    let text = kiln::recipe_schema().map_err(|e| Error::Usage(e.to_string()))?;
    emit(&text)
}
