//! The values a table constructor holds, and the reader API over them.

/// A value in a table constructor.
#[derive(Debug, Clone, PartialEq)]
pub enum LuaValue {
    /// `nil`.
    Nil,
    /// `true` or `false`.
    Bool(bool),
    /// A numeric literal (Lua 5.1 numbers are all doubles).
    Number(f64),
    /// Lua strings are bytes; invalid UTF-8 is replaced (U+FFFD).
    String(String),
    /// A nested table constructor.
    Table(LuaTable),
    /// Anything kiln does not evaluate (an unknown variable, a call, a
    /// function, a comparison), as its source text.
    Expr(String),
}

impl LuaValue {
    /// The text of a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            LuaValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value of a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            LuaValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The value of a number.
    pub fn as_number(&self) -> Option<f64> {
        match self {
            LuaValue::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// The table of a table value.
    pub fn as_table(&self) -> Option<&LuaTable> {
        match self {
            LuaValue::Table(t) => Some(t),
            _ => None,
        }
    }

    /// Lua's name for the type, for messages (`Expr` is "expression").
    pub fn type_name(&self) -> &'static str {
        match self {
            LuaValue::Nil => "nil",
            LuaValue::Bool(_) => "boolean",
            LuaValue::Number(_) => "number",
            LuaValue::String(_) => "string",
            LuaValue::Table(_) => "table",
            LuaValue::Expr(_) => "expression",
        }
    }

    pub(super) fn is_constant(&self) -> bool {
        matches!(
            self,
            LuaValue::Nil | LuaValue::Bool(_) | LuaValue::Number(_) | LuaValue::String(_)
        )
    }

    pub(super) fn truthy(&self) -> bool {
        !matches!(self, LuaValue::Nil | LuaValue::Bool(false))
    }
}

/// A table key.
#[derive(Debug, Clone, PartialEq)]
pub enum LuaKey {
    /// `name = v` or `["name"] = v`.
    Str(String),
    /// A positional value (numbered from 1) or `[n] = v` with an integral `n`.
    Index(i64),
    /// Any other bracketed key, as its value (`[true]`, `[1.5]`, `[x]`).
    Other(LuaValue),
}

/// A table constructor: its entries in source order, duplicates kept.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LuaTable {
    /// Key–value pairs in source order; positional values get `Index` keys.
    pub entries: Vec<(LuaKey, LuaValue)>,
    /// Byte offset of the opening `{`.
    pub offset: usize,
    /// 1-based line of the opening `{`.
    pub line: usize,
    /// 1-based column (in characters) of the opening `{`.
    pub column: usize,
}

impl LuaTable {
    /// The value of `key`; when a key repeats the last one wins, as in Lua.
    pub fn get(&self, key: &str) -> Option<&LuaValue> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| matches!(k, LuaKey::Str(s) if s == key))
            .map(|(_, v)| v)
    }

    /// The value at integer key `index` (positional or `[n] =`); the last one wins.
    pub fn get_index(&self, index: i64) -> Option<&LuaValue> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| *k == LuaKey::Index(index))
            .map(|(_, v)| v)
    }

    /// The array part: values at 1, 2, 3… up to the first missing index.
    pub fn array(&self) -> Vec<&LuaValue> {
        let mut out = Vec::new();
        let mut i = 1;
        while let Some(v) = self.get_index(i) {
            out.push(v);
            i += 1;
        }
        out
    }

    /// Keys given by name, in source order, each once.
    pub fn names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for (k, _) in &self.entries {
            if let LuaKey::Str(s) = k {
                if !out.contains(&s.as_str()) {
                    out.push(s);
                }
            }
        }
        out
    }
}
