//! Reader for the `model.cfg` / `config.cpp` subset that Arma skeletons use.
//!
//! Arma configs go through a C-like preprocessor before the engine sees them;
//! kiln does not run one. `#define`/`#include`/other `#` lines are skipped and
//! recorded in [`Cfg::notes`], so a skeleton built from macros is visibly
//! incomplete rather than silently wrong. Everything else the skeleton subset
//! needs is parsed: classes with bases, forward declarations, scalar and array
//! properties (`[] =` and `[] +=`), and both comment styles.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

/// A parse error with its 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CfgError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What was wrong there.
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
    /// An unquoted token that reads as a finite number.
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

impl CfgValue {
    /// The text of a string or bare word.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            CfgValue::String(s) | CfgValue::Word(s) => Some(s),
            _ => None,
        }
    }
}

/// `class name: base { entries; classes };` — the file itself is a root class named "".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CfgClass {
    /// Class name as written ("" for the file's root).
    pub name: String,
    /// The `: Base` class name as written, if any.
    pub base: Option<String>,
    /// Properties in file order (names as written).
    pub entries: Vec<(String, CfgValue)>,
    /// Nested classes in file order, forward declarations included.
    pub classes: Vec<CfgClass>,
    /// `class X;` — declared only, no body.
    pub forward: bool,
}

impl CfgClass {
    /// The last property of that name (config names are case-insensitive;
    /// a later definition overrides an earlier one).
    pub fn entry(&self, name: &str) -> Option<&CfgValue> {
        self.entries
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    }

    /// The last class with a body of that name, else a forward declaration.
    pub fn class(&self, name: &str) -> Option<&CfgClass> {
        let mut found = None;
        for c in self
            .classes
            .iter()
            .filter(|c| c.name.eq_ignore_ascii_case(name))
        {
            if !c.forward || found.is_none() {
                found = Some(c);
            }
        }
        found
    }
}

/// A parsed file: the root class plus notes about skipped preprocessor lines.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cfg {
    /// The file's top level, as a class named "".
    pub root: CfgClass,
    /// One note per skipped preprocessor (`#`) line.
    pub notes: Vec<String>,
}

/// One `class CfgSkeletons { class X ... }` entry, with class inheritance
/// (`class X: Y`) already applied to its properties.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skeleton {
    /// The skeleton's class name.
    pub name: String,
    /// `class X: Base` base, as written.
    pub base: Option<String>,
    /// `skeletonInherit`: whose bones come first (None when absent or "").
    pub inherit: Option<String>,
    /// `(bone, parent)` pairs from `skeletonBones[]`; parent "" = root.
    pub bones: Vec<(String, String)>,
    /// `isDiscrete`: true for a non-zero number or the word `true`.
    pub is_discrete: bool,
    /// `pivotsModel` (None when absent or "").
    pub pivots_model: Option<String>,
}

/// Nesting deeper than this is refused so hostile input cannot exhaust the stack.
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
    line: usize,
    col: usize,
    notes: Vec<String>,
}

impl Parser<'_> {
    fn err_here(&self, message: impl Into<String>) -> CfgError {
        CfgError {
            line: self.line,
            column: self.col,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
            self.col = 1;
        } else if b & 0xC0 != 0x80 {
            // Columns count characters, not UTF-8 continuation bytes.
            self.col += 1;
        }
        Some(b)
    }

    fn at_line_start(&self) -> bool {
        self.src[..self.pos]
            .iter()
            .rev()
            .take_while(|&&b| b != b'\n')
            .all(|b| b.is_ascii_whitespace())
    }

    /// Skips whitespace, comments and preprocessor lines.
    fn skip_ws(&mut self) -> Result<(), CfgError> {
        loop {
            match self.peek() {
                Some(b) if b.is_ascii_whitespace() => {
                    self.bump();
                }
                Some(b'/') if self.src.get(self.pos + 1) == Some(&b'/') => {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.bump();
                    }
                }
                Some(b'/') if self.src.get(self.pos + 1) == Some(&b'*') => {
                    let (line, column) = (self.line, self.col);
                    self.bump();
                    self.bump();
                    loop {
                        match self.bump() {
                            Some(b'*') if self.peek() == Some(b'/') => {
                                self.bump();
                                break;
                            }
                            Some(_) => {}
                            None => {
                                return Err(CfgError {
                                    line,
                                    column,
                                    message: "unterminated /* comment".into(),
                                })
                            }
                        }
                    }
                }
                Some(b'#') if self.at_line_start() => {
                    let line = self.line;
                    let start = self.pos;
                    // A trailing backslash continues a directive onto the next line.
                    while let Some(b) = self.peek() {
                        if b == b'\n' && self.src.get(self.pos.wrapping_sub(1)) != Some(&b'\\') {
                            break;
                        }
                        self.bump();
                    }
                    let text = String::from_utf8_lossy(&self.src[start..self.pos]);
                    let first = text.lines().next().unwrap_or("").trim_end();
                    self.notes
                        .push(format!("line {line}: skipped preprocessor line `{first}`"));
                }
                _ => return Ok(()),
            }
        }
    }

    fn ident(&mut self, what: &str) -> Result<String, CfgError> {
        self.skip_ws()?;
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
        {
            self.bump();
        }
        if self.pos == start {
            return Err(self.err_here(format!("expected {what}, found {}", self.describe())));
        }
        Ok(String::from_utf8_lossy(&self.src[start..self.pos]).into_owned())
    }

    fn describe(&self) -> String {
        match self.peek() {
            None => "end of file".into(),
            Some(b) if b.is_ascii_graphic() => format!("`{}`", b as char),
            Some(b) => format!("byte 0x{b:02x}"),
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), CfgError> {
        self.skip_ws()?;
        if self.peek() == Some(c) {
            self.bump();
            Ok(())
        } else {
            Err(self.err_here(format!(
                "expected `{}`, found {}",
                c as char,
                self.describe()
            )))
        }
    }

    fn eat(&mut self, c: u8) -> Result<bool, CfgError> {
        self.skip_ws()?;
        if self.peek() == Some(c) {
            self.bump();
            return Ok(true);
        }
        Ok(false)
    }

    /// Parses items until `}` (inside a class) or end of file (at the root).
    fn body(&mut self, class: &mut CfgClass, depth: usize) -> Result<(), CfgError> {
        loop {
            self.skip_ws()?;
            match self.peek() {
                None if depth == 0 => return Ok(()),
                None => return Err(self.err_here("end of file inside a class; missing `};`")),
                Some(b'}') if depth > 0 => return Ok(()),
                Some(b';') => {
                    self.bump();
                }
                _ => self.item(class, depth)?,
            }
        }
    }

    fn item(&mut self, class: &mut CfgClass, depth: usize) -> Result<(), CfgError> {
        let (line, column) = (self.line, self.col);
        let word = self.ident("a class or property name")?;
        if word == "class" {
            if depth >= MAX_DEPTH {
                return Err(CfgError {
                    line,
                    column,
                    message: format!("classes nested deeper than {MAX_DEPTH}"),
                });
            }
            let mut c = CfgClass {
                name: self.ident("a class name")?,
                ..CfgClass::default()
            };
            if self.eat(b':')? {
                c.base = Some(self.ident("a base class name")?);
            }
            if self.eat(b'{')? {
                self.body(&mut c, depth + 1)?;
                self.expect(b'}')?;
                self.expect(b';')?;
            } else {
                self.expect(b';')?;
                c.forward = true;
            }
            class.classes.push(c);
            return Ok(());
        }
        if word == "delete" {
            let name = self.ident("a class name")?;
            self.expect(b';')?;
            self.notes
                .push(format!("line {line}: ignored `delete {name};`"));
            return Ok(());
        }
        let array = self.eat(b'[')?;
        if array {
            self.expect(b']')?;
        }
        self.skip_ws()?;
        let append = if self.peek() == Some(b'+') {
            if !array {
                return Err(self.err_here("`+=` is only allowed on arrays (`name[] += {...}`)"));
            }
            self.bump();
            true
        } else {
            false
        };
        self.expect(b'=')?;
        let value = if array {
            self.skip_ws()?;
            if self.peek() != Some(b'{') {
                return Err(self.err_here(format!(
                    "array `{word}[]` needs a `{{...}}` value, found {}",
                    self.describe()
                )));
            }
            let items = self.array(1)?;
            if append {
                CfgValue::ArrayAppend(items)
            } else {
                CfgValue::Array(items)
            }
        } else {
            self.scalar(b";")?
        };
        self.expect(b';')?;
        class.entries.push((word, value));
        Ok(())
    }

    /// `{ v, v, {..}, }` starting at `{`.
    fn array(&mut self, depth: usize) -> Result<Vec<CfgValue>, CfgError> {
        if depth > MAX_DEPTH {
            return Err(self.err_here(format!("arrays nested deeper than {MAX_DEPTH}")));
        }
        self.expect(b'{')?;
        let mut items = Vec::new();
        loop {
            self.skip_ws()?;
            match self.peek() {
                Some(b'}') => {
                    self.bump();
                    return Ok(items);
                }
                Some(b'{') => items.push(CfgValue::Array(self.array(depth + 1)?)),
                None => return Err(self.err_here("end of file inside an array; missing `}`")),
                _ => items.push(self.scalar(b",}")?),
            }
            self.skip_ws()?;
            match self.peek() {
                Some(b',') => {
                    self.bump();
                }
                Some(b'}') => {}
                _ => {
                    return Err(self.err_here(format!(
                        "expected `,` or `}}` in an array, found {}",
                        self.describe()
                    )))
                }
            }
        }
    }

    /// A string, number or bare word, ending before any byte of `stops`.
    fn scalar(&mut self, stops: &[u8]) -> Result<CfgValue, CfgError> {
        self.skip_ws()?;
        if self.peek() == Some(b'"') {
            let (line, column) = (self.line, self.col);
            self.bump();
            let mut bytes = Vec::new();
            loop {
                match self.bump() {
                    Some(b'"') if self.peek() == Some(b'"') => {
                        self.bump();
                        bytes.push(b'"');
                    }
                    Some(b'"') => break,
                    Some(b) => bytes.push(b),
                    None => {
                        return Err(CfgError {
                            line,
                            column,
                            message: "unterminated string".into(),
                        })
                    }
                }
            }
            return Ok(CfgValue::String(
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|b| !stops.contains(&b) && b != b'\n' && b != b'{' && b != b'}')
        {
            self.bump();
        }
        let text = String::from_utf8_lossy(&self.src[start..self.pos])
            .trim()
            .to_string();
        if text.is_empty() {
            return Err(self.err_here(format!("expected a value, found {}", self.describe())));
        }
        Ok(match text.parse::<f64>() {
            Ok(n) if n.is_finite() => CfgValue::Number(n),
            _ => CfgValue::Word(text),
        })
    }
}

/// Parses config text into a tree rooted at a class named "".
pub fn parse(text: &str) -> Result<Cfg, CfgError> {
    let mut p = Parser {
        src: text.as_bytes(),
        pos: 0,
        line: 1,
        col: 1,
        notes: Vec::new(),
    };
    let mut root = CfgClass::default();
    p.body(&mut root, 0)?;
    Ok(Cfg {
        root,
        notes: p.notes,
    })
}

/// Reads and parses a config file; errors read `path:line:column: message`.
pub fn parse_file(path: &Path) -> crate::Result<Cfg> {
    let bytes = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    parse_bytes(&bytes, path)
}

/// Parses a config file's bytes; `file` names it in errors, which read
/// `file:line:column: message`.
pub fn parse_bytes(bytes: &[u8], file: &Path) -> crate::Result<Cfg> {
    // Configs are usually ASCII or CP1252; lossy decoding keeps positions usable.
    let text = String::from_utf8_lossy(bytes);
    parse(&text).map_err(|e| crate::Error::Other(format!("{}:{e}", file.display())))
}

/// Inheritance (`class X: Base`, `skeletonInherit`) deeper than this is
/// cut there: real configs stay within a handful of levels, and without a
/// bound a long chain (or a cycle) costs every class the whole chain.
const MAX_INHERITANCE: usize = 32;

/// The classes of one body by case-folded name: the last with a body of
/// each name, as the engine resolves a base. Built once per body, so a base
/// lookup is not a scan of every sibling.
struct Siblings<'a>(HashMap<String, &'a CfgClass>);

impl<'a> Siblings<'a> {
    fn new(classes: &'a [CfgClass]) -> Self {
        let mut by_name = HashMap::new();
        for c in classes.iter().filter(|c| !c.forward) {
            by_name.insert(c.name.to_ascii_lowercase(), c);
        }
        Siblings(by_name)
    }

    fn get(&self, name: &str) -> Option<&'a CfgClass> {
        self.0.get(&name.to_ascii_lowercase()).copied()
    }
}

/// Looks a property up through `class X: Base` chains among `siblings`,
/// at most [`MAX_INHERITANCE`] bases up; a cycle ends where it comes back.
/// Returns the value and, for `+=` arrays, everything appended along the way.
fn inherited<'a>(
    siblings: &Siblings<'a>,
    class: &'a CfgClass,
    name: &str,
) -> Option<Vec<&'a CfgValue>> {
    let mut chain = Vec::new();
    let mut walked: Vec<&CfgClass> = Vec::new();
    let mut cur = class;
    while walked.len() <= MAX_INHERITANCE && !walked.iter().any(|c| std::ptr::eq(*c, cur)) {
        walked.push(cur);
        if let Some(v) = cur.entry(name) {
            chain.push(v);
            if !matches!(v, CfgValue::ArrayAppend(_)) {
                return Some(chain);
            }
        }
        match cur.base.as_deref().and_then(|base| siblings.get(base)) {
            Some(n) => cur = n,
            None => break,
        }
    }
    if chain.is_empty() {
        None
    } else {
        Some(chain)
    }
}

fn text_of(v: Option<Vec<&CfgValue>>) -> Option<String> {
    v.and_then(|c| c.first().and_then(|v| v.as_text()).map(str::to_string))
}

/// Every skeleton in `class CfgSkeletons`, in file order (forward
/// declarations skipped), with class inheritance applied to its properties.
pub fn skeletons(cfg: &Cfg) -> Vec<Skeleton> {
    let Some(sk) = cfg.root.class("CfgSkeletons") else {
        return Vec::new();
    };
    let siblings = Siblings::new(&sk.classes);
    let mut out = Vec::new();
    for c in sk.classes.iter().filter(|c| !c.forward) {
        let mut items: Vec<String> = Vec::new();
        if let Some(chain) = inherited(&siblings, c, "skeletonBones") {
            // The chain runs from the class itself to the base holding `=`;
            // appends apply base-first.
            for v in chain.iter().rev() {
                if let CfgValue::Array(a) | CfgValue::ArrayAppend(a) = v {
                    items.extend(a.iter().filter_map(|x| x.as_text()).map(str::to_string));
                }
            }
        }
        let bones = items
            .chunks(2)
            .map(|p| (p[0].clone(), p.get(1).cloned().unwrap_or_default()))
            .collect();
        let is_discrete = inherited(&siblings, c, "isDiscrete")
            .and_then(|ch| ch.first().copied().cloned())
            .is_some_and(|v| match v {
                CfgValue::Number(n) => n != 0.0,
                CfgValue::Word(w) => w.eq_ignore_ascii_case("true"),
                _ => false,
            });
        out.push(Skeleton {
            name: c.name.clone(),
            base: c.base.clone(),
            inherit: text_of(inherited(&siblings, c, "skeletonInherit")).filter(|s| !s.is_empty()),
            bones,
            is_discrete,
            pivots_model: text_of(inherited(&siblings, c, "pivotsModel")).filter(|s| !s.is_empty()),
        });
    }
    out
}

/// The full `(bone, parent)` list of skeleton `name`: `skeletonInherit`
/// bones first (recursively), then its own. Names match case-insensitively
/// (the last skeleton of a name wins); an unknown skeleton, an inheritance
/// cycle or a chain deeper than `MAX_INHERITANCE` is an error.
pub fn resolve_bones(skeletons: &[Skeleton], name: &str) -> crate::Result<Vec<(String, String)>> {
    let by_name: HashMap<String, &Skeleton> = skeletons
        .iter()
        .map(|s| (s.name.to_ascii_lowercase(), s))
        .collect();
    let mut chain: Vec<&Skeleton> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut cur = name.to_string();
    loop {
        let Some(s) = by_name.get(&cur.to_ascii_lowercase()).copied() else {
            return Err(crate::Error::Other(if chain.is_empty() {
                format!("skeleton `{name}` is not defined in CfgSkeletons")
            } else {
                format!("skeleton `{name}` inherits `{cur}`, which is not defined in CfgSkeletons")
            }));
        };
        if !seen.insert(s.name.to_ascii_lowercase()) {
            return Err(crate::Error::Other(format!(
                "skeleton `{name}`: skeletonInherit cycle through `{}`",
                s.name
            )));
        }
        if chain.len() == MAX_INHERITANCE {
            return Err(crate::Error::Other(format!(
                "skeleton `{name}`: skeletonInherit chain deeper than {MAX_INHERITANCE} skeletons"
            )));
        }
        chain.push(s);
        match &s.inherit {
            Some(next) => cur = next.clone(),
            None => break,
        }
    }
    Ok(chain
        .iter()
        .rev()
        .flat_map(|s| s.bones.iter().cloned())
        .collect())
}

/// The `skeletonName` of `class CfgModels { class <model> ... }`, following
/// class bases (animations name their model class, e.g. `zmbStandDeath2 :
/// ArmaMan`). None when the model is unknown or its skeleton name is empty.
pub fn model_skeleton_name(cfg: &Cfg, model: &str) -> Option<String> {
    let models = cfg.root.class("CfgModels")?;
    let class = models
        .classes
        .iter()
        .rev()
        .find(|c| c.name.eq_ignore_ascii_case(model) && !c.forward)?;
    text_of(inherited(
        &Siblings::new(&models.classes),
        class,
        "skeletonName",
    ))
    .filter(|s| !s.is_empty())
}
