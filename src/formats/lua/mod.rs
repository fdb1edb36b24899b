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

mod lexer;
mod parser;
#[cfg(test)]
mod tests;
mod value;

pub use value::{LuaKey, LuaTable, LuaValue};

use crate::error::ParseError;
use parser::Parser;
use std::path::Path;

/// Deepest nesting of tables and expressions accepted; far beyond any real
/// definition, and it keeps hostile input from overflowing the stack.
const MAX_DEPTH: u32 = 200;

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
