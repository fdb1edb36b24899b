//! A reader for the table syntax of Lua definition files (Legend of Grimrock
//! `defineMaterial{…}` and friends), without running any Lua.
//!
//! Only top-level calls matter: a call nested in a function body, an `if` or
//! a loop may never run (or run many times with values kiln cannot know), so
//! it is skipped with the rest of the statements by counting block keywords
//! and brackets. Inside a wanted call the table constructor is parsed fully;
//! values kiln cannot evaluate (variables, calls, functions, comparisons) are
//! kept as their source text. Scalar constants assigned at the top level
//! (`local path = "mod_assets/…"`) are remembered so later calls can use them,
//! as modders do to shorten texture paths.
//!
//! Lexing follows Lua 5.1 (what both Grimrock games embed): unknown escapes
//! like `\q` stand for the character itself, identifiers may hold UTF-8.
//! A file Lua itself could not lex (an unfinished string) is an error, since
//! nothing after that point can be read reliably.

use crate::error::ParseError;
use std::collections::BTreeMap;
use std::path::Path;

/// Deepest nesting of tables and expressions accepted; far beyond any real
/// definition, and it keeps hostile input from overflowing the stack.
const MAX_DEPTH: u32 = 200;

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

    fn is_constant(&self) -> bool {
        matches!(
            self,
            LuaValue::Nil | LuaValue::Bool(_) | LuaValue::Number(_) | LuaValue::String(_)
        )
    }

    fn truthy(&self) -> bool {
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

/// The table argument of every top-level call `function{…}` or
/// `function({…})` in `source`, in source order.
///
/// Other statements are skipped. An error is returned for source Lua could
/// not lex, and for a syntax error inside a wanted call; it names `file`, the
/// byte offset, and the line:column in its message.
pub fn calls(source: &str, file: &Path, function: &str) -> Result<Vec<LuaTable>, ParseError> {
    let mut p = Parser::new(source);
    p.scan(function).map_err(|f| {
        let (line, column) = line_column(source.as_bytes(), f.offset);
        let field = match f.call {
            Some(at) => {
                let (l, c) = line_column(source.as_bytes(), at);
                format!("{function} call at {l}:{c}")
            }
            None => "lua source".to_string(),
        };
        ParseError {
            file: file.to_path_buf(),
            field,
            offset: f.offset as u64,
            message: format!("line {line}:{column}: {}", f.message),
        }
    })
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_column(src: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(src.len());
    let before = &src[..offset];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before[line_start..]
        .iter()
        .filter(|&&b| b & 0xc0 != 0x80)
        .count()
        + 1;
    (line, column)
}

#[derive(Debug)]
struct Fail {
    offset: usize,
    message: String,
    /// Offset of the wanted call being parsed, if any.
    call: Option<usize>,
}

fn fail<T>(offset: usize, message: impl Into<String>) -> Result<T, Fail> {
    Err(Fail {
        offset,
        message: message.into(),
        call: None,
    })
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Str(Vec<u8>),
    Num(f64),
    Sym(&'static str),
    Eof,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

/// Longest first, so `...` is not read as `..` + `.`.
const SYMBOLS: &[&str] = &[
    "...", "..", "==", "~=", "<=", ">=", "<<", ">>", "//", "::", "+", "-", "*", "/", "%", "^", "#",
    "&", "~", "|", "<", ">", "=", "(", ")", "{", "}", "[", "]", ";", ":", ",", ".",
];

struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn new(src: &'a [u8]) -> Self {
        // Windows editors start files with a byte-order mark, which would
        // otherwise glue onto the first name (`\u{feff}defineMaterial`).
        let start = if src.starts_with("\u{feff}".as_bytes()) {
            3
        } else {
            0
        };
        // A first line starting with `#` (a shebang) is skipped, as lua does.
        let pos = if src.get(start) == Some(&b'#') {
            src[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(src.len(), |n| start + n)
        } else {
            start
        };
        Lexer { src, pos }
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.src.get(i).copied()
    }

    fn next(&mut self) -> Result<Token, Fail> {
        self.skip_space_and_comments()?;
        let start = self.pos;
        let Some(c) = self.at(start) else {
            return Ok(Token {
                tok: Tok::Eof,
                start,
                end: start,
            });
        };
        let tok = if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            let end = self.src[start..]
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80))
                .map_or(self.src.len(), |n| start + n);
            self.pos = end;
            Tok::Name(String::from_utf8_lossy(&self.src[start..end]).into_owned())
        } else if c.is_ascii_digit()
            || (c == b'.' && self.at(start + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            Tok::Num(self.number()?)
        } else if c == b'"' || c == b'\'' {
            Tok::Str(self.quoted(c)?)
        } else if c == b'[' && matches!(self.at(start + 1), Some(b'[' | b'=')) {
            match self.long_bracket()? {
                Some(s) => Tok::Str(s),
                None => fail(
                    start,
                    "invalid long string delimiter (expected `[` after `[=…`)",
                )?,
            }
        } else {
            let rest = &self.src[start..];
            match SYMBOLS.iter().find(|s| rest.starts_with(s.as_bytes())) {
                Some(s) => {
                    self.pos += s.len();
                    Tok::Sym(s)
                }
                None => fail(start, format!("unexpected character {:?}", char::from(c)))?,
            }
        };
        Ok(Token {
            tok,
            start,
            end: self.pos,
        })
    }

    fn skip_space_and_comments(&mut self) -> Result<(), Fail> {
        loop {
            match self.at(self.pos) {
                Some(b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c) => self.pos += 1,
                Some(b'-') if self.at(self.pos + 1) == Some(b'-') => {
                    let start = self.pos;
                    self.pos += 2;
                    if self.at(self.pos) == Some(b'[') {
                        if let Some(level) = self.long_open_level(self.pos) {
                            self.pos += level + 2;
                            if self.long_close(level).is_none() {
                                return fail(start, "unfinished long comment");
                            }
                            continue;
                        }
                    }
                    self.pos = self.src[self.pos..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(self.src.len(), |n| self.pos + n);
                }
                _ => return Ok(()),
            }
        }
    }

    /// The level of a long bracket `[==[` opening at `at`, if one does.
    fn long_open_level(&self, at: usize) -> Option<usize> {
        if self.at(at) != Some(b'[') {
            return None;
        }
        let level = self.src[at + 1..]
            .iter()
            .take_while(|&&b| b == b'=')
            .count();
        (self.at(at + 1 + level) == Some(b'[')).then_some(level)
    }

    /// Moves past the closing `]==]` of `level` and returns the content's end.
    fn long_close(&mut self, level: usize) -> Option<usize> {
        let mut i = self.pos;
        while i < self.src.len() {
            if self.src[i] == b']' {
                let eq = self.src[i + 1..].iter().take_while(|&&b| b == b'=').count();
                if eq == level && self.at(i + 1 + eq) == Some(b']') {
                    self.pos = i + level + 2;
                    return Some(i);
                }
                // `]=]` inside `[==[`: resume at the next `]`, which may close.
                i += 1 + eq;
            } else {
                i += 1;
            }
        }
        None
    }

    /// A long string; `None` when `[=` is not a long bracket.
    fn long_bracket(&mut self) -> Result<Option<Vec<u8>>, Fail> {
        let start = self.pos;
        let Some(level) = self.long_open_level(start) else {
            return Ok(None);
        };
        self.pos += level + 2;
        // A newline right after the opening bracket is not part of the string.
        match (self.at(self.pos), self.at(self.pos + 1)) {
            (Some(b'\r'), Some(b'\n')) | (Some(b'\n'), Some(b'\r')) => self.pos += 2,
            (Some(b'\r' | b'\n'), _) => self.pos += 1,
            _ => {}
        }
        let content_start = self.pos;
        match self.long_close(level) {
            Some(end) => Ok(Some(self.src[content_start..end].to_vec())),
            None => fail(start, "unfinished long string"),
        }
    }

    fn quoted(&mut self, quote: u8) -> Result<Vec<u8>, Fail> {
        let start = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(c) = self.at(self.pos) else {
                return fail(start, "unfinished string (end of file)");
            };
            match c {
                _ if c == quote => {
                    self.pos += 1;
                    return Ok(out);
                }
                b'\n' | b'\r' => return fail(start, "unfinished string (end of line)"),
                b'\\' => self.escape(&mut out)?,
                _ => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), Fail> {
        let at = self.pos;
        self.pos += 1;
        let Some(c) = self.at(self.pos) else {
            return fail(at, "unfinished string (end of file after `\\`)");
        };
        self.pos += 1;
        let simple = match c {
            b'a' => Some(7),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(11),
            _ => None,
        };
        if let Some(b) = simple {
            out.push(b);
            return Ok(());
        }
        match c {
            b'\n' | b'\r' => {
                // An escaped line break is one newline, CRLF or LFCR included.
                if matches!(self.at(self.pos), Some(d) if (d == b'\n' || d == b'\r') && d != c) {
                    self.pos += 1;
                }
                out.push(b'\n');
            }
            b'x' => {
                let hex = |b: Option<u8>| b.and_then(|b| (b as char).to_digit(16));
                match (hex(self.at(self.pos)), hex(self.at(self.pos + 1))) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        self.pos += 2;
                    }
                    _ => return fail(at, "`\\x` needs two hexadecimal digits"),
                }
            }
            b'z' => {
                while matches!(
                    self.at(self.pos),
                    Some(b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
                ) {
                    self.pos += 1;
                }
            }
            b'0'..=b'9' => {
                let mut value = u32::from(c - b'0');
                for _ in 0..2 {
                    match self.at(self.pos) {
                        Some(d @ b'0'..=b'9') => {
                            value = value * 10 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                match u8::try_from(value) {
                    Ok(b) => out.push(b),
                    Err(_) => return fail(at, format!("decimal escape \\{value} is above 255")),
                }
            }
            b'u' => {
                let digits_start = self.pos + 1;
                let digits: &[u8] = match self.src.get(digits_start..) {
                    Some(rest) => {
                        let n = rest.iter().take_while(|b| b.is_ascii_hexdigit()).count();
                        &rest[..n]
                    }
                    None => &[],
                };
                let closed = self.at(self.pos) == Some(b'{')
                    && self.at(digits_start + digits.len()) == Some(b'}');
                let code = if closed && !digits.is_empty() && digits.len() <= 8 {
                    std::str::from_utf8(digits)
                        .ok()
                        .and_then(|t| u32::from_str_radix(t, 16).ok())
                        .and_then(char::from_u32)
                } else {
                    None
                };
                match code {
                    Some(ch) => {
                        let mut buf = [0; 4];
                        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        self.pos = digits_start + digits.len() + 1;
                    }
                    None => return fail(at, "`\\u` needs `{hex}` naming a Unicode scalar"),
                }
            }
            // Lua 5.1 keeps the character of any other escape (`\"`, `\\`, `\q`).
            _ => {
                self.pos -= 1;
                let ch_len = utf8_len(c);
                let end = (self.pos + ch_len).min(self.src.len());
                out.extend_from_slice(&self.src[self.pos..end]);
                self.pos = end;
            }
        }
        Ok(())
    }

    fn number(&mut self) -> Result<f64, Fail> {
        let start = self.pos;
        let hex = self.at(start) == Some(b'0') && matches!(self.at(start + 1), Some(b'x' | b'X'));
        let (exp_lo, exp_hi) = if hex { (b'p', b'P') } else { (b'e', b'E') };
        let mut i = start + if hex { 2 } else { 0 };
        // Read greedily like Lua, then reject what does not convert (`3..2`).
        while let Some(b) = self.at(i) {
            if (b == exp_lo || b == exp_hi) && matches!(self.at(i + 1), Some(b'+' | b'-')) {
                i += 2;
            } else if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' {
                i += 1;
            } else {
                break;
            }
        }
        self.pos = i;
        let text = std::str::from_utf8(&self.src[start..i]).unwrap_or("");
        let value = if hex {
            text.get(2..).and_then(parse_hex)
        } else {
            text.parse::<f64>().ok()
        };
        match value {
            Some(v) => Ok(v),
            None => fail(start, format!("malformed number {text:?}")),
        }
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

/// `1F`, `1.8p3`, `.8P-1` (after the `0x`).
fn parse_hex(text: &str) -> Option<f64> {
    let (mantissa, exponent) = match text.find(['p', 'P']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut value = 0f64;
    for c in int.chars() {
        value = value * 16.0 + f64::from(c.to_digit(16)?);
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        value += f64::from(c.to_digit(16)?) * scale;
        scale /= 16.0;
    }
    if let Some(e) = exponent {
        let e: i32 = e.parse().ok()?;
        value *= 2f64.powi(e.clamp(-2000, 2000));
    }
    Some(value)
}

/// Binary operators with Lua's (left, right) priorities.
fn binary_priority(tok: &Tok) -> Option<(&'static str, u8, u8)> {
    let op = match tok {
        Tok::Name(n) if n == "or" => "or",
        Tok::Name(n) if n == "and" => "and",
        Tok::Sym(s) => *s,
        _ => return None,
    };
    let (l, r) = match op {
        "or" => (1, 1),
        "and" => (2, 2),
        "<" | ">" | "<=" | ">=" | "~=" | "==" => (3, 3),
        "|" => (4, 4),
        "~" => (5, 5),
        "&" => (6, 6),
        "<<" | ">>" => (7, 7),
        ".." => (9, 8),
        "+" | "-" => (10, 10),
        "*" | "/" | "//" | "%" => (11, 11),
        "^" => (14, 13),
        _ => return None,
    };
    Some((op, l, r))
}

const UNARY_PRIORITY: u8 = 12;

struct Parser<'a> {
    src: &'a str,
    lex: Lexer<'a>,
    tok: Token,
    peeked: Option<Token>,
    /// End of the last consumed token (for expression source text).
    prev_end: usize,
    depth: u32,
    /// Scalar constants assigned at the top level so far.
    constants: BTreeMap<String, LuaValue>,
    /// Byte offset of each line's start, so positions of many tables in a
    /// big file cost a binary search rather than a rescan.
    line_starts: Vec<usize>,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Self {
        Parser {
            src,
            lex: Lexer::new(src.as_bytes()),
            tok: Token {
                tok: Tok::Eof,
                start: 0,
                end: 0,
            },
            peeked: None,
            prev_end: 0,
            depth: 0,
            constants: BTreeMap::new(),
            line_starts: std::iter::once(0)
                .chain(
                    src.bytes()
                        .enumerate()
                        .filter(|&(_, b)| b == b'\n')
                        .map(|(i, _)| i + 1),
                )
                .collect(),
        }
    }

    /// Moves to the next token and returns the one that was current.
    fn advance(&mut self) -> Result<Token, Fail> {
        let next = match self.peeked.take() {
            Some(t) => t,
            None => self.lex.next()?,
        };
        self.prev_end = self.tok.end;
        Ok(std::mem::replace(&mut self.tok, next))
    }

    fn peek(&mut self) -> Result<&Tok, Fail> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lex.next()?);
        }
        Ok(&self.peeked.as_ref().expect("just filled").tok)
    }

    /// As [`line_column`].
    fn position(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.src.len());
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self.line_starts[line.saturating_sub(1).min(self.line_starts.len() - 1)];
        let column = self.src.as_bytes()[start..offset]
            .iter()
            .filter(|&&b| b & 0xc0 != 0x80)
            .count()
            + 1;
        (line, column)
    }

    fn is_sym(&self, s: &str) -> bool {
        matches!(&self.tok.tok, Tok::Sym(t) if *t == s)
    }

    fn describe(&self) -> String {
        match &self.tok.tok {
            Tok::Eof => "end of file".to_string(),
            _ => {
                let end = self.tok.end.min(self.src.len());
                let text = String::from_utf8_lossy(&self.src.as_bytes()[self.tok.start..end]);
                let short: String = text.chars().take(40).collect();
                format!("`{short}`")
            }
        }
    }

    fn expect(&mut self, s: &str, context: &str) -> Result<(), Fail> {
        if self.is_sym(s) {
            self.advance()?;
            Ok(())
        } else {
            fail(
                self.tok.start,
                format!("expected `{s}` {context}, found {}", self.describe()),
            )
        }
    }

    fn enter(&mut self) -> Result<(), Fail> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return fail(
                self.tok.start,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            );
        }
        Ok(())
    }

    fn text(&self, start: usize) -> String {
        let end = self.prev_end.max(start).min(self.src.len());
        String::from_utf8_lossy(&self.src.as_bytes()[start..end]).into_owned()
    }

    /// Lexer position, to retry from after a speculative parse failed.
    fn snapshot(&self) -> (usize, Token, Option<Token>, usize) {
        (
            self.lex.pos,
            self.tok.clone(),
            self.peeked.clone(),
            self.prev_end,
        )
    }

    fn restore(&mut self, s: (usize, Token, Option<Token>, usize)) {
        (self.lex.pos, self.tok, self.peeked, self.prev_end) = s;
        self.depth = 0;
    }

    fn scan(&mut self, function: &str) -> Result<Vec<LuaTable>, Fail> {
        self.advance()?;
        let mut out = Vec::new();
        let mut blocks = 0usize;
        let mut brackets = 0usize;
        // Whether the token before the current one makes a name something
        // other than a statement's start: a field (`x.defineMaterial`,
        // `obj:defineMaterial`) or a loop variable (`for i = 1, 3`).
        let mut after_dot = false;
        loop {
            let top = blocks == 0 && brackets == 0;
            let mut dot = false;
            match &self.tok.tok {
                Tok::Eof => break,
                Tok::Name(n) if top && !after_dot && n == function => {
                    let call = self.tok.start;
                    self.advance()?;
                    if self.is_sym("{") {
                        let t = self.table().map_err(|f| Fail {
                            call: Some(call),
                            ..f
                        })?;
                        out.push(t);
                        continue;
                    }
                    if self.is_sym("(") && matches!(self.peek()?, Tok::Sym("{")) {
                        self.advance()?;
                        let t = self.table().map_err(|f| Fail {
                            call: Some(call),
                            ..f
                        })?;
                        self.expect(")", &format!("to close the {function}( call"))
                            .map_err(|f| Fail {
                                call: Some(call),
                                ..f
                            })?;
                        out.push(t);
                        continue;
                    }
                    // Called with something else (a variable): not ours to read.
                    continue;
                }
                Tok::Name(n) if top && !after_dot && n == "local" => {
                    self.advance()?;
                    if matches!(&self.tok.tok, Tok::Name(n) if n != "function") {
                        self.assignment()?;
                    }
                    continue;
                }
                Tok::Name(n) if top && !after_dot && !is_keyword(n) => {
                    if matches!(self.peek()?, Tok::Sym("=")) {
                        self.assignment()?;
                        continue;
                    }
                }
                Tok::Name(n) => match n.as_str() {
                    "function" | "if" | "do" | "repeat" => blocks += 1,
                    "end" | "until" => blocks = blocks.saturating_sub(1),
                    "for" => dot = true,
                    _ => {}
                },
                Tok::Sym("{" | "(" | "[") => brackets += 1,
                Tok::Sym("}" | ")" | "]") => brackets = brackets.saturating_sub(1),
                Tok::Sym("." | ":") => dot = true,
                _ => {}
            }
            after_dot = dot;
            self.advance()?;
        }
        Ok(out)
    }

    /// At `name = expr` (top level): remembers a constant value. Anything
    /// kiln cannot follow is forgotten and scanning resumes after the name.
    fn assignment(&mut self) -> Result<(), Fail> {
        let Tok::Name(name) = self.tok.tok.clone() else {
            return Ok(());
        };
        self.advance()?;
        if !self.is_sym("=") {
            // `local a, b = …` or a bare declaration: a later value is unknown.
            self.constants.remove(&name);
            return Ok(());
        }
        self.advance()?;
        let saved = self.snapshot();
        match self.expr(0) {
            Ok(v) if v.is_constant() && !self.is_sym(",") => {
                self.constants.insert(name, v);
            }
            Ok(_) => {
                self.constants.remove(&name);
            }
            Err(_) => {
                self.constants.remove(&name);
                self.restore(saved);
            }
        }
        self.depth = 0;
        Ok(())
    }

    fn table(&mut self) -> Result<LuaTable, Fail> {
        self.enter()?;
        let open = self.tok.start;
        let (line, column) = self.position(open);
        self.expect("{", "to open a table")?;
        let mut entries = Vec::new();
        let mut next_index: i64 = 1;
        loop {
            if self.is_sym("}") {
                self.advance()?;
                break;
            }
            if self.is_sym("[") {
                self.advance()?;
                let key = self.expr(0)?;
                self.expect("]", "to close a table key")?;
                self.expect("=", "after a bracketed table key")?;
                let value = self.expr(0)?;
                let key = match key {
                    LuaValue::String(s) => LuaKey::Str(s),
                    LuaValue::Number(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => {
                        LuaKey::Index(n as i64)
                    }
                    LuaValue::Nil => return fail(open, "table key is nil"),
                    other => LuaKey::Other(other),
                };
                entries.push((key, value));
            } else if matches!(&self.tok.tok, Tok::Name(n) if !is_keyword(n))
                && matches!(self.peek()?, Tok::Sym("="))
            {
                let Tok::Name(name) = self.advance()?.tok else {
                    unreachable!("checked to be a name")
                };
                self.advance()?;
                let value = self.expr(0)?;
                entries.push((LuaKey::Str(name), value));
            } else {
                let value = self.expr(0)?;
                entries.push((LuaKey::Index(next_index), value));
                next_index = next_index.saturating_add(1);
            }
            if self.is_sym(",") || self.is_sym(";") {
                self.advance()?;
            } else if !self.is_sym("}") {
                return fail(
                    self.tok.start,
                    format!(
                        "expected `,`, `;` or `}}` in the table opened at {line}:{column}, found {}",
                        self.describe()
                    ),
                );
            }
        }
        self.depth -= 1;
        Ok(LuaTable {
            entries,
            offset: open,
            line,
            column,
        })
    }

    /// Precedence climbing as in Lua's `subexpr`, folding constants.
    fn expr(&mut self, limit: u8) -> Result<LuaValue, Fail> {
        self.enter()?;
        let start = self.tok.start;
        let unary = match &self.tok.tok {
            Tok::Sym(s @ ("-" | "#" | "~")) => Some(*s),
            Tok::Name(n) if n == "not" => Some("not"),
            _ => None,
        };
        let mut value = if let Some(op) = unary {
            self.advance()?;
            let v = self.expr(UNARY_PRIORITY)?;
            match (op, v) {
                ("-", LuaValue::Number(n)) => LuaValue::Number(-n),
                ("not", v) if v.is_constant() => LuaValue::Bool(!v.truthy()),
                _ => LuaValue::Expr(self.text(start)),
            }
        } else {
            self.simple()?
        };
        while let Some((op, left, right)) = binary_priority(&self.tok.tok) {
            if left <= limit {
                break;
            }
            self.advance()?;
            let rhs = self.expr(right)?;
            value = fold(op, value, rhs).unwrap_or_else(|| LuaValue::Expr(self.text(start)));
        }
        self.depth -= 1;
        Ok(value)
    }

    fn simple(&mut self) -> Result<LuaValue, Fail> {
        let start = self.tok.start;
        let value = match &self.tok.tok {
            Tok::Num(n) => LuaValue::Number(*n),
            Tok::Str(s) => LuaValue::String(String::from_utf8_lossy(s).into_owned()),
            Tok::Name(n) if n == "nil" => LuaValue::Nil,
            Tok::Name(n) if n == "true" => LuaValue::Bool(true),
            Tok::Name(n) if n == "false" => LuaValue::Bool(false),
            Tok::Sym("...") => LuaValue::Expr("...".to_string()),
            Tok::Sym("{") => return Ok(LuaValue::Table(self.table()?)),
            Tok::Name(n) if n == "function" => {
                self.skip_function()?;
                return Ok(LuaValue::Expr(self.text(start)));
            }
            _ => return self.suffixed(),
        };
        self.advance()?;
        Ok(value)
    }

    /// `name` or `(expr)` followed by any of `.f`, `[k]`, `:m(…)`, `(…)`,
    /// `{…}`, `"…"`.
    fn suffixed(&mut self) -> Result<LuaValue, Fail> {
        let start = self.tok.start;
        let mut value = match &self.tok.tok {
            Tok::Name(n) if !is_keyword(n) => {
                let v = self
                    .constants
                    .get(n)
                    .cloned()
                    .unwrap_or_else(|| LuaValue::Expr(n.clone()));
                self.advance()?;
                v
            }
            Tok::Sym("(") => {
                self.advance()?;
                let v = self.expr(0)?;
                self.expect(")", "to close a parenthesis")?;
                v
            }
            _ => {
                return fail(
                    self.tok.start,
                    format!("expected a value, found {}", self.describe()),
                )
            }
        };
        loop {
            match &self.tok.tok {
                Tok::Sym(".") => {
                    self.advance()?;
                    self.name("after `.`")?;
                }
                Tok::Sym("[") => {
                    self.advance()?;
                    self.expr(0)?;
                    self.expect("]", "to close an index")?;
                }
                Tok::Sym(":") => {
                    self.advance()?;
                    self.name("after `:`")?;
                    self.call_args()?;
                }
                Tok::Sym("(" | "{") | Tok::Str(_) => self.call_args()?,
                _ => break,
            }
            value = LuaValue::Expr(self.text(start));
        }
        Ok(value)
    }

    fn name(&mut self, context: &str) -> Result<(), Fail> {
        match &self.tok.tok {
            Tok::Name(n) if !is_keyword(n) => {
                self.advance()?;
                Ok(())
            }
            _ => fail(
                self.tok.start,
                format!("expected a name {context}, found {}", self.describe()),
            ),
        }
    }

    fn call_args(&mut self) -> Result<(), Fail> {
        match &self.tok.tok {
            Tok::Str(_) => {
                self.advance()?;
            }
            Tok::Sym("{") => {
                self.table()?;
            }
            Tok::Sym("(") => {
                self.advance()?;
                if !self.is_sym(")") {
                    self.expr(0)?;
                    while self.is_sym(",") {
                        self.advance()?;
                        self.expr(0)?;
                    }
                }
                self.expect(")", "to close the call's arguments")?;
            }
            _ => {
                return fail(
                    self.tok.start,
                    format!("expected call arguments, found {}", self.describe()),
                )
            }
        }
        Ok(())
    }

    /// From `function` to its matching `end`, counting nested blocks.
    fn skip_function(&mut self) -> Result<(), Fail> {
        let open = self.tok.start;
        let mut blocks = 0usize;
        loop {
            match &self.tok.tok {
                Tok::Eof => {
                    let (l, c) = line_column(self.src.as_bytes(), open);
                    return fail(
                        self.tok.start,
                        format!("function opened at {l}:{c} has no matching `end`"),
                    );
                }
                Tok::Name(n) => match n.as_str() {
                    "function" | "if" | "do" | "repeat" => blocks += 1,
                    "end" | "until" => {
                        blocks -= 1;
                        if blocks == 0 {
                            self.advance()?;
                            return Ok(());
                        }
                    }
                    _ => {}
                },
                _ => {}
            }
            self.advance()?;
        }
    }
}

fn is_keyword(n: &str) -> bool {
    matches!(
        n,
        "and"
            | "break"
            | "do"
            | "else"
            | "elseif"
            | "end"
            | "false"
            | "for"
            | "function"
            | "goto"
            | "if"
            | "in"
            | "local"
            | "nil"
            | "not"
            | "or"
            | "repeat"
            | "return"
            | "then"
            | "true"
            | "until"
            | "while"
    )
}

/// Lua's tostring of a number in a concatenation (`%.14g`).
fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn fold(op: &str, a: LuaValue, b: LuaValue) -> Option<LuaValue> {
    use LuaValue::{Number as N, String as S};
    Some(match (op, a, b) {
        ("and", a, b) if a.is_constant() && b.is_constant() => {
            if a.truthy() {
                b
            } else {
                a
            }
        }
        ("or", a, b) if a.is_constant() && b.is_constant() => {
            if a.truthy() {
                a
            } else {
                b
            }
        }
        ("..", a @ (S(_) | N(_)), b @ (S(_) | N(_))) => {
            let text = |v: LuaValue| match v {
                S(s) => s,
                N(n) => number_text(n),
                _ => String::new(),
            };
            S(text(a) + &text(b))
        }
        ("+", N(a), N(b)) => N(a + b),
        ("-", N(a), N(b)) => N(a - b),
        ("*", N(a), N(b)) => N(a * b),
        ("/", N(a), N(b)) => N(a / b),
        ("^", N(a), N(b)) => N(a.powf(b)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str) -> LuaTable {
        let mut t = calls(src, Path::new("t.lua"), "f").expect("parses");
        assert_eq!(t.len(), 1, "one call in {src:?}");
        t.remove(0)
    }

    #[test]
    fn numbers_in_every_notation() {
        let t = one("f{ 3, 3.5, .5, 1e3, 2E-2, 0x1F, 0XfF, 0x1.8p1, 5., -7, - -2 }");
        let want = [
            3.0, 3.5, 0.5, 1000.0, 0.02, 31.0, 255.0, 3.0, 5.0, -7.0, 2.0,
        ];
        let got: Vec<f64> = t.array().iter().map(|v| v.as_number().unwrap()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn malformed_numbers_are_lex_errors() {
        for src in ["f{ 3..2 }", "f{ 0x }", "f{ 1e }", "f{ 12abc }"] {
            let e = calls(src, Path::new("n.lua"), "f").unwrap_err();
            assert_eq!(e.offset, 3, "{src}");
            assert!(e.message.starts_with("line 1:4: malformed number"), "{e}");
        }
    }

    #[test]
    fn escapes_follow_lua_5_1() {
        let t = one(
            r#"f{ "a\tb\n", 'it\'s', "\65\066\0671", "\x41\u{e9}", "q\q", "x\z
               y", "\\" }"#,
        );
        let got: Vec<&str> = t.array().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(got, ["a\tb\n", "it's", "ABC1", "Aé", "qq", "xy", "\\"]);
    }

    #[test]
    fn escaped_newline_and_bad_escapes() {
        let t = one("f{ \"a\\\r\nb\" }");
        assert_eq!(t.get_index(1), Some(&LuaValue::String("a\nb".into())));
        let e = calls("f{ \"\\300\" }", Path::new("e.lua"), "f").unwrap_err();
        assert_eq!((e.offset, e.field.as_str()), (4, "f call at 1:1"));
        assert!(e.message.contains("above 255"), "{e}");
        let e = calls("x = '\\300'\nf{}", Path::new("e.lua"), "f").unwrap_err();
        assert_eq!((e.offset, e.field.as_str()), (5, "lua source"));
        let e = calls("x = 1\nf{ \"\\xZZ\" }", Path::new("e.lua"), "f").unwrap_err();
        assert!(e.message.starts_with("line 2:5:"), "{e}");
    }

    #[test]
    fn long_strings_and_comments() {
        let src = "--[==[ f{ 'commented out' } ]] still comment ]==]\n\
                   f{ --[[ in { the } table ]] a = [[\nline1\n]], -- line comment }\n\
                   b = [=[x]]y]=], c = --[[x]] 1 }\n-- f{}";
        let t = one(src);
        assert_eq!(t.get("a"), Some(&LuaValue::String("line1\n".into())));
        assert_eq!(t.get("b"), Some(&LuaValue::String("x]]y".into())));
        assert_eq!(t.get("c"), Some(&LuaValue::Number(1.0)));
        assert_eq!(t.names(), ["a", "b", "c"]);
        assert_eq!((t.line, t.column, t.offset), (2, 2, 51));
    }

    #[test]
    fn nested_tables_keys_and_separators() {
        let t =
            one(r#"f({ x = { 1, { y = "z" }; [3] = true }, ["k-ey"] = 2; [2.5] = "h", "pos", })"#);
        let x = t.get("x").unwrap().as_table().unwrap();
        assert_eq!(x.get_index(1), Some(&LuaValue::Number(1.0)));
        let inner = x.get_index(2).unwrap().as_table().unwrap();
        assert_eq!(inner.get("y").unwrap().as_str(), Some("z"));
        assert_eq!(x.get_index(3), Some(&LuaValue::Bool(true)));
        assert_eq!(x.array().len(), 3);
        assert_eq!(t.get("k-ey"), Some(&LuaValue::Number(2.0)));
        assert_eq!(
            t.entries[2],
            (
                LuaKey::Other(LuaValue::Number(2.5)),
                LuaValue::String("h".into())
            )
        );
        assert_eq!(t.get_index(1), Some(&LuaValue::String("pos".into())));
    }

    #[test]
    fn only_top_level_calls_are_read() {
        let src = r#"
            import "mod_assets/scripts/x.lua"
            defineObject{ name = "o", f = 1 }
            local t = { f = 2 }
            t.f{ name = "field call" }
            function make(n) f{ name = n } end
            for i = 1, 3 do f{ name = "loop" .. i } end
            if x then f{ name = "cond" } end
            repeat f{ name = "r" } until true
            f{ name = "a" }
            f "string arg"
            f(variable)
            f({ name = "b" })
            obj:f{ name = "method" }
        "#;
        let found = calls(src, Path::new("s.lua"), "f").unwrap();
        let names: Vec<&str> = found
            .iter()
            .map(|t| t.get("name").unwrap().as_str().unwrap())
            .collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn top_level_constants_and_folding() {
        let src = r#"
            local root = "mod_assets/textures/"
            ext = ".tga"
            local n = 2 * 10 + 1
            local function helper() return 1 end
            local unknown = helper()
            f{ d = root .. "wall" .. ext, g = n, h = -n ^ 2, u = unknown, s = 1 .. "",
               o = nil or "dflt", b = not nil, x = y.z, fn = function(self, t) if t then return end end }
        "#;
        let t = one(src);
        assert_eq!(
            t.get("d").unwrap().as_str(),
            Some("mod_assets/textures/wall.tga")
        );
        assert_eq!(t.get("g").unwrap().as_number(), Some(21.0));
        assert_eq!(t.get("h").unwrap().as_number(), Some(-441.0));
        assert_eq!(t.get("u"), Some(&LuaValue::Expr("unknown".into())));
        assert_eq!(t.get("s").unwrap().as_str(), Some("1"));
        assert_eq!(t.get("o").unwrap().as_str(), Some("dflt"));
        assert_eq!(t.get("b"), Some(&LuaValue::Bool(true)));
        assert_eq!(t.get("x"), Some(&LuaValue::Expr("y.z".into())));
        assert_eq!(
            t.get("fn"),
            Some(&LuaValue::Expr(
                "function(self, t) if t then return end end".into()
            ))
        );
    }

    #[test]
    fn constants_inside_blocks_do_not_leak() {
        let t = one("local p = 'a'\nfunction g() p = 'b' end\nfor p = 1, 2 do end\nf{ v = p }");
        assert_eq!(t.get("v").unwrap().as_str(), Some("a"));
    }

    #[test]
    fn syntax_error_in_a_call_names_position() {
        let src = "defineObject{ broken = = }\nf{\n  name = \"x\"\n  other = 1 }\n";
        let e = calls(src, Path::new("bad.lua"), "f").unwrap_err();
        assert_eq!(e.file, Path::new("bad.lua"));
        assert_eq!(e.field, "f call at 2:1");
        assert_eq!(e.offset, 45);
        assert_eq!(
            e.message,
            "line 4:3: expected `,`, `;` or `}` in the table opened at 2:2, found `other`"
        );
    }

    #[test]
    fn unfinished_things_are_errors() {
        for (src, msg) in [
            ("f{ a = 'x", "unfinished string"),
            ("f{ a = [[x", "unfinished long string"),
            ("--[[ never closed", "unfinished long comment"),
            ("f{ a = {", "expected a value, found end of file"),
            ("f{ a = function() ", "has no matching `end`"),
            ("f{ [==x", "invalid long string delimiter"),
        ] {
            let e = calls(src, Path::new("u.lua"), "f").unwrap_err();
            assert!(e.message.contains(msg), "{src:?}: {e}");
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let src = format!("f{{ a = {}1{} }}", "{".repeat(5000), "}".repeat(5000));
        let e = calls(&src, Path::new("d.lua"), "f").unwrap_err();
        assert!(e.message.contains("nesting deeper than 200"), "{e}");
        let src = format!("f{{ a = {}1 }}", "- ".repeat(5000));
        assert!(calls(&src, Path::new("d.lua"), "f").is_err());
        // Outside a wanted call nesting is only counted.
        let src = format!("x = {}1{}\nf{{}}", "{".repeat(5000), "}".repeat(5000));
        assert_eq!(calls(&src, Path::new("d.lua"), "f").unwrap().len(), 1);
    }

    #[test]
    fn byte_order_mark_and_shebang_are_skipped() {
        let t = one("\u{feff}f{ a = 1 }");
        assert_eq!((t.offset, t.line, t.column), (4, 1, 3));
        let t = one("\u{feff}#!/bin/lua f{ a = 2 }\nf{ a = 3 }");
        assert_eq!(t.get("a"), Some(&LuaValue::Number(3.0)));
    }

    #[test]
    fn line_columns_count_characters() {
        let src = "é\nab€c";
        let p = Parser::new(src);
        for offset in [0, 2, 3, 5, 8, 9, 999] {
            assert_eq!(p.position(offset), line_column(src.as_bytes(), offset));
        }
        assert_eq!(line_column(src.as_bytes(), 0), (1, 1));
        assert_eq!(line_column(src.as_bytes(), 3), (2, 1));
        assert_eq!(line_column(src.as_bytes(), 8), (2, 4));
        assert_eq!(line_column(src.as_bytes(), 999), (2, 5));
    }
}
