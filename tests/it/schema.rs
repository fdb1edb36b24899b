//! The recipe JSON Schema: the shipped file is what `kiln schema` prints,
//! every bundled recipe passes it, and a recipe with an unknown key or a
//! wrong type fails it. The validator here is written from the JSON Schema
//! specification for the keywords the schema uses, and refuses any other
//! keyword, so the schema cannot lean on one it would ignore.

use crate::common::{kiln, stderr, tempdir};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn shipped() -> Value {
    let text = std::fs::read_to_string(repo().join("schema/kiln-recipe.schema.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Errors of `v` against `s`, each with its JSON pointer.
fn validate(root: &Value, s: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
    let Some(s) = s.as_object() else {
        panic!("schema at {at} is not an object");
    };
    for (k, kw) in s {
        match k.as_str() {
            "$schema" | "$id" | "title" | "description" | "definitions" | "pattern" => {}
            "$ref" => {
                let name = kw.as_str().unwrap().strip_prefix("#/definitions/").unwrap();
                validate(root, &root["definitions"][name], v, at, errors);
            }
            "type" => {
                let ok = match kw.as_str().unwrap() {
                    "object" => v.is_object(),
                    "array" => v.is_array(),
                    "string" => v.is_string(),
                    "boolean" => v.is_boolean(),
                    "number" => v.is_number(),
                    "integer" => v.is_i64() || v.is_u64(),
                    t => panic!("unknown type {t}"),
                };
                if !ok {
                    errors.push(format!("{at}: {v} is not of type {kw}"));
                }
            }
            "enum" => {
                if !kw.as_array().unwrap().contains(v) {
                    errors.push(format!("{at}: {v} is not one of {kw}"));
                }
            }
            "anyOf" => {
                let any = kw.as_array().unwrap().iter().any(|alt| {
                    let mut e = Vec::new();
                    validate(root, alt, v, at, &mut e);
                    e.is_empty()
                });
                if !any {
                    errors.push(format!("{at}: {v} matches none of {kw}"));
                }
            }
            "properties" => {
                if let Some(o) = v.as_object() {
                    for (name, value) in o {
                        if let Some(ps) = kw.get(name) {
                            validate(root, ps, value, &format!("{at}/{name}"), errors);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(o) = v.as_object() {
                    let known = s.get("properties");
                    for (name, value) in o {
                        if known.and_then(|p| p.get(name)).is_some() {
                            continue;
                        }
                        if kw == &Value::Bool(false) {
                            errors.push(format!("{at}: key `{name}` is not allowed"));
                        } else {
                            validate(root, kw, value, &format!("{at}/{name}"), errors);
                        }
                    }
                }
            }
            "required" => {
                if let Some(o) = v.as_object() {
                    for r in kw.as_array().unwrap() {
                        if !o.contains_key(r.as_str().unwrap()) {
                            errors.push(format!("{at}: `{r}` is required"));
                        }
                    }
                }
            }
            "items" => {
                if let Some(a) = v.as_array() {
                    for (i, item) in a.iter().enumerate() {
                        validate(root, kw, item, &format!("{at}/{i}"), errors);
                    }
                }
            }
            "minItems" | "maxItems" => {
                if let Some(a) = v.as_array() {
                    let n = kw.as_u64().unwrap() as usize;
                    if (k == "minItems" && a.len() < n) || (k == "maxItems" && a.len() > n) {
                        errors.push(format!("{at}: {} items breaks {k} {n}", a.len()));
                    }
                }
            }
            other => {
                panic!("the schema uses `{other}` at {at}, which this validator does not know")
            }
        }
    }
}

fn errors_of(yaml: &str) -> Vec<String> {
    let v: Value = kiln_recipe_yaml::serde_saphyr::from_str(yaml).unwrap();
    let root = shipped();
    let mut e = Vec::new();
    validate(&root, &root, &v, "", &mut e);
    e
}

fn recipes_below(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            recipes_below(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml") {
            out.push(p);
        }
    }
}

#[test]
fn shipped_schema_is_what_kiln_schema_prints() {
    let o = kiln(&["schema"], &tempdir("schema-print"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let file = std::fs::read(repo().join("schema/kiln-recipe.schema.json")).unwrap();
    assert!(
        o.stdout == file,
        "schema/kiln-recipe.schema.json is stale: run `cargo run -- schema > schema/kiln-recipe.schema.json`"
    );
    let s = shipped();
    assert_eq!(s["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(s["additionalProperties"], false);
    assert!(s["definitions"]["Job"]["properties"]["size"]["description"].is_string());
}

#[test]
fn every_bundled_recipe_passes_the_schema() {
    let mut files = Vec::new();
    recipes_below(&repo().join("recipes"), &mut files);
    files.sort();
    assert!(files.len() >= 12, "{files:?}");
    for f in &files {
        let e = errors_of(&std::fs::read_to_string(f).unwrap());
        assert!(e.is_empty(), "{}: {e:#?}", f.display());
    }
}

#[test]
fn unknown_keys_and_wrong_types_fail_the_schema() {
    let cases: [(&str, &str); 8] = [
        (
            "jobs: [{ name: a, model: m.glb, sizes: 64 }]",
            "/jobs/0: key `sizes` is not allowed",
        ),
        (
            "jobs: [{ name: a, model: m.glb, size: [64] }]",
            "/jobs/0/size: [64] matches none of",
        ),
        (
            "jobs: [{ name: a, model: m.glb, directions: [a] }]",
            "/jobs/0/directions: [\"a\"] matches none of",
        ),
        (
            "jobs: [{ name: a, model: m.glb, antialias: 2.5 }]",
            "/jobs/0/antialias: 2.5 is not of type \"integer\"",
        ),
        (
            "jobs: [{ name: a, model: m.glb, output: { sheet: true } }]",
            "/jobs/0/output/sheet: true matches none of",
        ),
        (
            "jobs: [{ name: a, model: m.glb, clips: [{ name: w, fsp: 3 }] }]",
            "/jobs/0/clips: [{\"fsp\":3,\"name\":\"w\"}] matches none of",
        ),
        (
            "jobs: [{ name: a, model: m.glb, look: { shading: toon } }]",
            "/jobs/0/look/shading: \"toon\" is not one of",
        ),
        ("job: []", ": key `job` is not allowed"),
    ];
    for (yaml, want) in cases {
        let e = errors_of(yaml);
        assert_eq!(e.len(), 1, "{yaml}: {e:#?}");
        assert!(e[0].starts_with(want), "{yaml}: {} (wanted {want})", e[0]);
    }
    assert_eq!(
        errors_of("jobs: [{ name: a, model: m.glb, size: 64x32, background: \"#102030\" }]"),
        Vec::<String>::new()
    );
}
