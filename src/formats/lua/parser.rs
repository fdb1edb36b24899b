//! Statements skipped to the wanted top-level calls, their table
//! constructors parsed, and constant expressions folded.

use super::lexer::{Lexer, Tok, Token};
use super::{fail, line_column, Fail, LuaKey, LuaTable, LuaValue, MAX_DEPTH};
use std::collections::BTreeMap;

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

pub(super) const UNARY_PRIORITY: u8 = 12;

pub(super) struct Parser<'a> {
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
    pub(super) fn new(src: &'a str) -> Self {
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
    pub(super) fn position(&self, offset: usize) -> (usize, usize) {
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

    pub(super) fn scan(&mut self, function: &str) -> Result<Vec<LuaTable>, Fail> {
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
