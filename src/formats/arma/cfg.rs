//! Reader for the `model.cfg` / `config.cpp` subset that Arma skeletons use.

use std::fmt;

/// A parse error with its 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CfgError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for CfgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for CfgError {}

/// A property value.
#[derive(Debug, Clone, PartialEq)]
pub enum CfgValue {
    Number(f64),
    /// A quoted string with `""` escapes resolved.
    String(String),
    /// An unquoted word (macro names, `true`, expressions kiln does not evaluate).
    Word(String),
    /// `name[] = {...}`.
    Array(Vec<CfgValue>),
    /// `name[] += {...}`: appends to the inherited array.
    ArrayAppend(Vec<CfgValue>),
}

/// `class name: base { entries; classes };` — the file itself is a root class named "".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CfgClass {
    pub name: String,
    pub base: Option<String>,
    /// Properties in file order (names as written).
    pub entries: Vec<(String, CfgValue)>,
    pub classes: Vec<CfgClass>,
    /// `class X;` — declared only, no body.
    pub forward: bool,
}

/// A parsed file: the root class plus notes about skipped preprocessor lines.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cfg {
    pub root: CfgClass,
    pub notes: Vec<String>,
}

/// One `class CfgSkeletons { class X ... }` entry, with class inheritance
/// (`class X: Y`) already applied to its properties.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skeleton {
    pub name: String,
    /// `class X: Base` base, as written.
    pub base: Option<String>,
    /// `skeletonInherit`: whose bones come first (None when absent or "").
    pub inherit: Option<String>,
    /// `(bone, parent)` pairs from `skeletonBones[]`; parent "" = root.
    pub bones: Vec<(String, String)>,
    pub is_discrete: bool,
    pub pivots_model: Option<String>,
}

pub fn parse(_text: &str) -> Result<Cfg, CfgError> {
    Err(CfgError {
        line: 1,
        column: 1,
        message: "model.cfg reader in progress".into(),
    })
}

pub fn skeletons(_cfg: &Cfg) -> Vec<Skeleton> {
    Vec::new()
}

pub fn resolve_bones(_skeletons: &[Skeleton], name: &str) -> crate::Result<Vec<(String, String)>> {
    Err(crate::Error::Other(format!(
        "skeleton {name}: resolver in progress"
    )))
}
