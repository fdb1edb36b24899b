//! Every parsed field of an RSW for `kiln inspect --json`: the [`Rsw`]
//! struct as it serialises (names as text, the quad tree as its nodes), plus
//! the bytes real files keep after a name's NUL, listed by field.

use super::*;
use serde::Serialize;

/// A name field whose stored bytes go on after its NUL.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NameBytes {
    /// The field as the JSON names it: `"gnd"`, `"objects[3].file"`.
    pub field: String,
    /// The bytes after the NUL, lowercase hex.
    pub hex: String,
}

/// Every name field of `rsw` with its JSON path, in file order.
pub fn names(rsw: &Rsw) -> Vec<(String, &FixedName)> {
    let mut out: Vec<(String, &FixedName)> =
        vec![("ini".into(), &rsw.ini), ("gnd".into(), &rsw.gnd)];
    if let Some(g) = &rsw.gat {
        out.push(("gat".into(), g));
    }
    out.push(("src".into(), &rsw.src));
    for (i, o) in rsw.objects.iter().enumerate() {
        let f = |s: &str| format!("objects[{i}].{s}");
        match o {
            Object::Model(m) => {
                if let Some(n) = &m.name {
                    out.push((f("name"), n));
                }
                out.push((f("file"), &m.file));
                out.push((f("node"), &m.node));
            }
            Object::Light(l) => out.push((f("name"), &l.name)),
            Object::Sound(s) => {
                out.push((f("name"), &s.name));
                out.push((f("file"), &s.file));
            }
            Object::Effect(e) => out.push((f("name"), &e.name)),
        }
    }
    out
}

/// The name fields that keep bytes after their NUL, with those bytes.
pub fn bytes_after_nul(rsw: &Rsw) -> Vec<NameBytes> {
    names(rsw)
        .into_iter()
        .filter_map(|(field, n)| {
            n.after_nul().map(|b| NameBytes {
                field,
                hex: crate::formats::json::to_hex(b),
            })
        })
        .collect()
}

/// The full JSON form: every field of `rsw`, and `bytes_after_nul`.
pub fn details(rsw: &Rsw) -> serde_json::Value {
    #[derive(Serialize)]
    struct Details<'a> {
        #[serde(flatten)]
        rsw: &'a Rsw,
        bytes_after_nul: Vec<NameBytes>,
    }
    crate::formats::json::to_value(&Details {
        rsw,
        bytes_after_nul: bytes_after_nul(rsw),
    })
}

/// The quad tree as its nodes (`null` when the file has none).
pub(super) fn quad_tree<S: serde::Serializer>(
    q: &Option<Vec<u8>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let nodes: Option<Vec<QuadNode>> = q
        .as_ref()
        .map(|b| b.chunks(48).map(QuadNode::from_bytes).collect());
    nodes.serialize(s)
}
