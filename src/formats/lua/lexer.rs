//! Lua 5.1 tokens: names, strings with their escapes, numbers, symbols.

use super::{fail, Fail};

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Name(String),
    Str(Vec<u8>),
    Num(f64),
    Sym(&'static str),
    Eof,
}

#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// Longest first, so `...` is not read as `..` + `.`.
pub(super) const SYMBOLS: &[&str] = &[
    "...", "..", "==", "~=", "<=", ">=", "<<", ">>", "//", "::", "+", "-", "*", "/", "%", "^", "#",
    "&", "~", "|", "<", ">", "=", "(", ")", "{", "}", "[", "]", ";", ":", ",", ".",
];

pub(super) struct Lexer<'a> {
    pub(super) src: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(src: &'a [u8]) -> Self {
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

    pub(super) fn at(&self, i: usize) -> Option<u8> {
        self.src.get(i).copied()
    }

    pub(super) fn next(&mut self) -> Result<Token, Fail> {
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

    pub(super) fn skip_space_and_comments(&mut self) -> Result<(), Fail> {
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
    pub(super) fn long_open_level(&self, at: usize) -> Option<usize> {
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
    pub(super) fn long_close(&mut self, level: usize) -> Option<usize> {
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
    pub(super) fn long_bracket(&mut self) -> Result<Option<Vec<u8>>, Fail> {
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

    pub(super) fn quoted(&mut self, quote: u8) -> Result<Vec<u8>, Fail> {
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

    pub(super) fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), Fail> {
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

    pub(super) fn number(&mut self) -> Result<f64, Fail> {
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

pub(super) fn utf8_len(first: u8) -> usize {
    match first {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

/// `1F`, `1.8p3`, `.8P-1` (after the `0x`).
pub(super) fn parse_hex(text: &str) -> Option<f64> {
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
