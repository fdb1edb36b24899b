//! The recipe's JSON Schema (draft-07, SchemaStore's conventions),
//! generated from the types serde reads a recipe into, so the two cannot
//! drift: `trace` walks the derived `Deserialize` impls for their keys,
//! keywords and nesting, and each of the crate's own value types (a size, a
//! colour, …) gives its fragment beside its reader (`ValueSchema`).
//! Descriptions come from `descriptions`, checked against the keys.

mod descriptions;
mod trace;

use crate::raw::RawRecipe;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::fmt;
use trace::{Node, Step, Tracer};

/// The schema's `$id`: a name, not an address, since kiln publishes the
/// schema as a file (`schema/kiln-recipe.schema.json`) and by `kiln
/// schema`, not at a URL of its own.
pub const SCHEMA_ID: &str = "urn:kiln:recipe-schema:1";

/// One of the crate's own value types, as the schema describes it.
pub(crate) trait ValueSchema {
    /// What its visitor says it expects (its `expecting` writes this), by
    /// which the walk knows it.
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result;
    /// Its schema fragment; `{"$inner": true}` stands for the schema of the
    /// list items it reads with serde's own readers.
    fn schema() -> Value;
}

/// Formats `T::expecting`.
struct Expecting<T>(std::marker::PhantomData<T>);

impl<T: ValueSchema> fmt::Display for Expecting<T> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        T::expecting(f)
    }
}

fn entry<T: ValueSchema>() -> (String, Value) {
    (
        Expecting::<T>(std::marker::PhantomData).to_string(),
        T::schema(),
    )
}

fn value_types() -> Vec<(String, Value)> {
    use crate::raw::RawClips;
    use crate::values::*;
    vec![
        entry::<Num>(),
        entry::<Int>(),
        entry::<OneOrMany>(),
        entry::<Directions>(),
        entry::<Size>(),
        entry::<Background>(),
        entry::<OutName>(),
        entry::<Materials>(),
        entry::<Lod>(),
        entry::<MetaList>(),
        entry::<RawClips>(),
    ]
}

/// Why the schema could not be generated: a type the walk does not know
/// (a bug kiln's tests catch, never a user's mistake).
#[derive(Debug)]
pub struct SchemaError(String);

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "cannot generate the recipe schema: {}", self.0)
    }
}

impl std::error::Error for SchemaError {}

struct Gen {
    custom: Vec<(String, Value)>,
    texts: Vec<String>,
    definitions: Map<String, Value>,
}

impl Gen {
    fn node(&self, path: &[Step]) -> Result<Node, SchemaError> {
        let found = RefCell::new(None);
        let tracer = Tracer {
            path,
            found: &found,
            custom: &self.texts,
        };
        let outcome = RawRecipe::deserialize(tracer);
        let node = found.into_inner();
        match (node, outcome) {
            (Some(n), _) => Ok(n),
            (None, Err(e)) => Err(SchemaError(format!("at {path:?}: {e}"))),
            (None, Ok(_)) => Err(SchemaError(format!("at {path:?}: nothing recorded"))),
        }
    }

    fn below(&mut self, path: &[Step], step: Step) -> Result<Value, SchemaError> {
        let mut p = path.to_vec();
        p.push(step);
        self.schema(&p)
    }

    fn schema(&mut self, path: &[Step]) -> Result<Value, SchemaError> {
        if path.len() > 16 {
            return Err(SchemaError(format!("at {path:?}: nested too deep")));
        }
        Ok(match self.node(path)? {
            Node::Primitive(t) => json!({ "type": t }),
            Node::Enum(variants) => json!({ "enum": variants }),
            Node::Seq => json!({ "type": "array", "items": self.below(path, Step::Item)? }),
            Node::Tuple(n) => json!({
                "type": "array",
                "items": self.below(path, Step::Item)?,
                "minItems": n,
                "maxItems": n,
            }),
            Node::Map => json!({
                "type": "object",
                "additionalProperties": self.below(path, Step::Value)?,
            }),
            Node::Custom(text) => {
                let fragment = self
                    .custom
                    .iter()
                    .find(|(t, _)| *t == text)
                    .map(|(_, v)| v.clone())
                    .ok_or_else(|| SchemaError(format!("no fragment for `{text}`")))?;
                self.fill_inner(fragment, path)?
            }
            Node::Struct(name, fields, closed) => {
                let key = name.strip_prefix("Raw").unwrap_or(name).to_string();
                if !self.definitions.contains_key(&key) {
                    // Placed first so that a type containing itself ends.
                    self.definitions.insert(key.clone(), Value::Null);
                    let mut properties = Map::new();
                    for f in fields {
                        let mut s = self.below(path, Step::Field(f))?;
                        if let (Some(d), Some(o)) =
                            (descriptions::describe(name, f), s.as_object_mut())
                        {
                            o.insert("description".into(), d.into());
                        }
                        properties.insert((*f).to_string(), s);
                    }
                    let mut def = json!({ "type": "object", "properties": properties });
                    if closed {
                        def["additionalProperties"] = false.into();
                    }
                    self.definitions.insert(key.clone(), def);
                }
                json!({ "$ref": format!("#/definitions/{key}") })
            }
        })
    }

    /// Replaces `{"$inner": true}` in a fragment by the schema of the items
    /// the value type reads with serde's own readers.
    fn fill_inner(&mut self, v: Value, path: &[Step]) -> Result<Value, SchemaError> {
        Ok(match v {
            Value::Object(o) if o.get("$inner") == Some(&Value::Bool(true)) => {
                self.below(path, Step::Inner)?
            }
            Value::Object(o) => {
                let mut out = Map::new();
                for (k, v) in o {
                    out.insert(k, self.fill_inner(v, path)?);
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(
                a.into_iter()
                    .map(|v| self.fill_inner(v, path))
                    .collect::<Result<_, _>>()?,
            ),
            v => v,
        })
    }
}

/// The recipe schema as a JSON value.
pub fn schema() -> Result<Value, SchemaError> {
    let custom = value_types();
    let texts = custom.iter().map(|(t, _)| t.clone()).collect();
    let mut g = Gen {
        custom,
        texts,
        definitions: Map::new(),
    };
    let root = g.schema(&[])?;
    let root_key = root["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/definitions/"))
        .map(str::to_owned)
        .ok_or_else(|| SchemaError("the recipe is not a struct".into()))?;
    let Some(Value::Object(top)) = g.definitions.remove(&root_key) else {
        return Err(SchemaError("the recipe's definition is missing".into()));
    };
    let mut out = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "kiln recipe",
        "description": "A kiln recipe: jobs that bake 3D models into 2D sprite sheets, and map previews (docs/recipes.md).",
    });
    for (k, v) in top {
        out[k] = v;
    }
    out["definitions"] = Value::Object(g.definitions);
    Ok(out)
}

/// The schema as `kiln schema` prints it and the repository ships it:
/// two-space indented, keys sorted, ending in a newline.
pub fn schema_text() -> Result<String, SchemaError> {
    let v = schema()?;
    let text = serde_json::to_string_pretty(&v).map_err(|e| SchemaError(e.to_string()))?;
    Ok(text + "\n")
}
