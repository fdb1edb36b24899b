//! Globs over data sources: `data/model/**/*.rsm` matched against a folder
//! on disk or an archive's table alike, through [`DataSource::list`], so a
//! catalogue job finds the same models in an extracted client and in its
//! `data.grf`.
//!
//! Names are compared as a person types them: in UTF-8 (a GRF's CP949
//! names and the Latin-1 mojibake extractors leave on disk are decoded
//! first), ASCII case ignored, `\` or `/` between folders. `*` is any run
//! of characters within one name, `?` one character, `[abc]` / `[a-z]` /
//! `[!x]` one of a set, `{rsm,rsm2}` one of several spellings, and `**`, a
//! whole component, any number of folders. The walk keeps the set of
//! pattern positions each folder can be at, so even several `**` visit
//! every folder once.

use super::{DataSource, EntryKind, GamePath};
use crate::text::decode_cp949;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Longest glob accepted, in bytes.
const MAX_GLOB: usize = 1024;
/// Most components a glob may have.
const MAX_PARTS: usize = 64;
/// Deepest folder a walk descends to below the glob's base: deeper trees
/// than any game ships are cut off rather than followed.
const MAX_DEPTH: usize = 64;

/// A parsed glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    /// The leading components without wildcards: where the walk starts.
    base: Vec<String>,
    /// The rest, matched folder by folder.
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// `**`: any number of folders.
    Folders,
    /// One name: each alternative a sequence of tokens.
    Name(Vec<Vec<Tok>>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Char(char),
    Any,
    Star,
    Set {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

/// One file a glob matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    /// Its path, decoded, `/` between components: the base as the glob
    /// spells it, the rest as the source does.
    pub path: String,
    /// The part below the glob's base.
    pub below_base: String,
}

/// Whether `text` is a glob rather than a file name: it holds `*` or `?`
/// (sets and alternatives only mean something beside those).
pub fn is_glob(text: &str) -> bool {
    text.contains(['*', '?'])
}

impl Glob {
    /// Parses `text`; the message says what is wrong with it.
    pub fn parse(text: &str) -> Result<Glob, String> {
        if text.len() > MAX_GLOB {
            return Err(format!(
                "the glob is {} bytes long, more than {MAX_GLOB}",
                text.len()
            ));
        }
        let comps: Vec<&str> = text
            .split(['/', '\\'])
            .filter(|c| !c.is_empty() && *c != ".")
            .collect();
        if comps.len() > MAX_PARTS {
            return Err(format!(
                "the glob has {} components, more than {MAX_PARTS}",
                comps.len()
            ));
        }
        if comps.contains(&"..") {
            return Err("a glob cannot climb with `..`; name the folder it starts in".into());
        }
        let mut base = Vec::new();
        let mut parts = Vec::new();
        for c in comps {
            let wild = c.contains(['*', '?', '[', '{']);
            if parts.is_empty() && !wild {
                base.push(c.to_string());
                continue;
            }
            if c == "**" {
                if parts.last() != Some(&Part::Folders) {
                    parts.push(Part::Folders);
                }
                continue;
            }
            if c.contains("**") {
                return Err(format!(
                    "`**` must be a whole component (as in `a/**/b`), got `{c}`"
                ));
            }
            let alternatives = alternatives(c)?
                .iter()
                .map(|a| tokens(a))
                .collect::<Result<Vec<_>, _>>()?;
            parts.push(Part::Name(alternatives));
        }
        // `a/**` is every file below `a`.
        if parts.last() == Some(&Part::Folders) {
            parts.push(Part::Name(vec![vec![Tok::Star]]));
        }
        match parts.is_empty() {
            true => Err("the glob has no `*` or `?` below its folder".into()),
            false => Ok(Glob { base, parts }),
        }
    }

    /// The folder the walk starts in, as written.
    pub fn base(&self) -> String {
        self.base.join("/")
    }

    /// Every file of `source` the glob matches, with where the source
    /// says it is (a path on disk for a folder, `archive:/path` inside an
    /// archive), sorted by [`path_order`].
    pub fn walk(&self, source: &dyn DataSource) -> Vec<(Matched, PathBuf)> {
        let mut out = Vec::new();
        let start = GamePath::new(self.base());
        let states = self.closure([0].into());
        self.descend(source, &start, &mut Vec::new(), &states, &mut out);
        out.sort_by(|a, b| path_order(&a.0.path, &b.0.path));
        out
    }

    fn descend(
        &self,
        source: &dyn DataSource,
        dir: &GamePath,
        below: &mut Vec<String>,
        states: &BTreeSet<usize>,
        out: &mut Vec<(Matched, PathBuf)>,
    ) {
        if below.len() > MAX_DEPTH {
            return;
        }
        let Some((location, listed)) = source.list(dir) else {
            return;
        };
        for entry in listed {
            let name = display_name(&entry.name);
            match entry.kind {
                EntryKind::File => {
                    let last = self.parts.len() - 1;
                    if states
                        .iter()
                        .any(|&i| i == last && self.name_matches(i, &name))
                    {
                        below.push(name);
                        let below_base = below.join("/");
                        below.pop();
                        let path = match self.base.is_empty() {
                            true => below_base.clone(),
                            false => format!("{}/{below_base}", self.base()),
                        };
                        let at = location.join(os_name(&entry.name));
                        out.push((Matched { path, below_base }, at));
                    }
                }
                // A link to a folder could lead back up the tree.
                EntryKind::LinkedFolder => {}
                EntryKind::Folder => {
                    let mut next = BTreeSet::new();
                    for &i in states {
                        match &self.parts[i] {
                            Part::Folders => {
                                next.insert(i);
                            }
                            Part::Name(_) if i + 1 < self.parts.len() => {
                                if self.name_matches(i, &name) {
                                    next.insert(i + 1);
                                }
                            }
                            Part::Name(_) => {}
                        }
                    }
                    let next = self.closure(next);
                    if next.is_empty() {
                        continue;
                    }
                    below.push(name);
                    let child = dir.child(&entry.name);
                    self.descend(source, &child, below, &next, out);
                    below.pop();
                }
            }
        }
    }

    /// `states` with every position a `**` may skip to.
    fn closure(&self, mut states: BTreeSet<usize>) -> BTreeSet<usize> {
        let mut todo: Vec<usize> = states.iter().copied().collect();
        while let Some(i) = todo.pop() {
            if matches!(self.parts.get(i), Some(Part::Folders)) && states.insert(i + 1) {
                todo.push(i + 1);
            }
        }
        states.retain(|&i| i < self.parts.len());
        states
    }

    fn name_matches(&self, i: usize, name: &str) -> bool {
        match &self.parts[i] {
            Part::Folders => false,
            Part::Name(alts) => {
                let name: Vec<char> = name.chars().map(|c| c.to_ascii_lowercase()).collect();
                alts.iter().any(|toks| match_tokens(toks, &name))
            }
        }
    }

    /// Whether `path` (`/` or `\` between components) is one the glob
    /// matches, base included: how `exclude:` globs judge a match.
    pub fn matches_path(&self, path: &str) -> bool {
        let comps: Vec<&str> = path
            .split(['/', '\\'])
            .filter(|c| !c.is_empty() && *c != ".")
            .collect();
        if comps.len() < self.base.len()
            || !comps
                .iter()
                .zip(&self.base)
                .all(|(a, b)| a.eq_ignore_ascii_case(b))
        {
            return false;
        }
        let rest = &comps[self.base.len()..];
        let mut states = self.closure([0].into());
        for (k, c) in rest.iter().enumerate() {
            let file = k + 1 == rest.len();
            if file {
                let last = self.parts.len() - 1;
                return states.iter().any(|&i| i == last && self.name_matches(i, c));
            }
            let mut next = BTreeSet::new();
            for &i in &states {
                match &self.parts[i] {
                    Part::Folders => {
                        next.insert(i);
                    }
                    Part::Name(_) if i + 1 < self.parts.len() && self.name_matches(i, c) => {
                        next.insert(i + 1);
                    }
                    Part::Name(_) => {}
                }
            }
            states = self.closure(next);
            if states.is_empty() {
                return false;
            }
        }
        false
    }
}

/// The order matches are listed in: by path with ASCII case ignored, then
/// bytewise, so a folder and an archive holding the same names agree.
pub fn path_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.to_ascii_lowercase()
        .cmp(&b.to_ascii_lowercase())
        .then_with(|| a.cmp(b))
}

/// A listed name as a file name on disk, bytes as they were listed.
#[cfg(unix)]
fn os_name(raw: &[u8]) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(raw).to_os_string()
}

/// A listed name as a file name on disk (listings outside Unix are UTF-8).
#[cfg(not(unix))]
fn os_name(raw: &[u8]) -> std::ffi::OsString {
    String::from_utf8_lossy(raw).into_owned().into()
}

/// A stored name as a person reads it: UTF-8 as it is, unless it is the
/// Latin-1 mojibake of CP949 bytes; anything else decoded as CP949.
pub fn display_name(raw: &[u8]) -> String {
    match std::str::from_utf8(raw) {
        Ok(s) => {
            let latin1: Option<Vec<u8>> = s.chars().map(|c| u8::try_from(c as u32).ok()).collect();
            match latin1 {
                Some(bytes) if bytes.iter().any(|&b| b >= 0x80) => {
                    let (text, _, bad) = encoding_rs::EUC_KR.decode(&bytes);
                    if bad {
                        s.to_string()
                    } else {
                        text.into_owned()
                    }
                }
                _ => s.to_string(),
            }
        }
        Err(_) => decode_cp949(raw),
    }
}

/// `a{b,c}d` → `abd`, `acd` (one level; at most 64 spellings).
fn alternatives(c: &str) -> Result<Vec<String>, String> {
    let Some(open) = c.find('{') else {
        if c.contains('}') {
            return Err(format!("unmatched `}}` in `{c}`"));
        }
        return Ok(vec![c.to_string()]);
    };
    let close = c[open..]
        .find('}')
        .map(|i| open + i)
        .ok_or_else(|| format!("unclosed `{{` in `{c}`"))?;
    let (head, body, tail) = (&c[..open], &c[open + 1..close], &c[close + 1..]);
    if body.contains('{') {
        return Err(format!("`{{...}}` cannot nest, in `{c}`"));
    }
    let mut out = Vec::new();
    for rest in alternatives(tail)? {
        for alt in body.split(',') {
            out.push(format!("{head}{alt}{rest}"));
            if out.len() > 64 {
                return Err(format!("`{c}` spells more than 64 names"));
            }
        }
    }
    Ok(out)
}

fn tokens(text: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(match c {
            '*' => {
                if out.last() == Some(&Tok::Star) {
                    continue;
                }
                Tok::Star
            }
            '?' => Tok::Any,
            '[' => {
                let negated = chars.next_if(|&c| c == '!' || c == '^').is_some();
                let mut ranges = Vec::new();
                loop {
                    let Some(a) = chars.next() else {
                        return Err(format!("unclosed `[` in `{text}`"));
                    };
                    if a == ']' && !ranges.is_empty() {
                        break;
                    }
                    let a = a.to_ascii_lowercase();
                    if chars.next_if_eq(&'-').is_some() {
                        match chars.next() {
                            Some(']') | None => {
                                return Err(format!("a range in `{text}` has no end"));
                            }
                            Some(b) => ranges.push((a, b.to_ascii_lowercase())),
                        }
                    } else {
                        ranges.push((a, a));
                    }
                }
                Tok::Set { negated, ranges }
            }
            ']' => return Err(format!("unmatched `]` in `{text}`")),
            c => Tok::Char(c.to_ascii_lowercase()),
        });
    }
    Ok(out)
}

/// Matches `name` (lowercased) against `toks`: a star remembers where it
/// could take one more character, so the match is linear per star.
fn match_tokens(toks: &[Tok], name: &[char]) -> bool {
    let (mut t, mut n) = (0, 0);
    let mut back: Option<(usize, usize)> = None;
    while n < name.len() {
        match toks.get(t) {
            Some(Tok::Star) => {
                back = Some((t, n));
                t += 1;
                continue;
            }
            Some(tok) if one(tok, name[n]) => {
                t += 1;
                n += 1;
                continue;
            }
            _ => {}
        }
        match back {
            Some((bt, bn)) => {
                t = bt + 1;
                n = bn + 1;
                back = Some((bt, bn + 1));
            }
            None => return false,
        }
    }
    toks[t..].iter().all(|x| *x == Tok::Star)
}

fn one(tok: &Tok, c: char) -> bool {
    match tok {
        Tok::Char(x) => *x == c,
        Tok::Any => true,
        Tok::Star => false,
        Tok::Set { negated, ranges } => ranges.iter().any(|&(a, b)| a <= c && c <= b) != *negated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(glob: &str, path: &str) -> bool {
        Glob::parse(glob).unwrap().matches_path(path)
    }

    #[test]
    fn components_match_as_typed_in_any_ascii_case() {
        assert!(m("data/model/**/*.rsm", "data/model/a.rsm"));
        assert!(m("data/model/**/*.rsm", "Data\\Model\\x\\y\\B.RSM"));
        assert!(!m("data/model/**/*.rsm", "data/model/a.rsm2"));
        assert!(!m("data/model/*.rsm", "data/model/x/a.rsm"));
        assert!(m("*.p3d", "house.p3d"));
        assert!(!m("*.p3d", "a/house.p3d"));
        assert!(m("a/**/b/**/*.x", "a/b/c.x"));
        assert!(m("a/**/b/**/*.x", "a/q/b/r/s/c.x"));
        assert!(!m("a/**/b/**/*.x", "a/q/r/c.x"));
        assert!(m("m/h?use_[0-9].{rsm,rsm2}", "m/house_7.rsm2"));
        assert!(!m("m/h?use_[!0-9].rsm", "m/house_7.rsm"));
        assert!(m(
            "data/sprite/몬스터/*.act",
            "data/sprite/몬스터/poring.act"
        ));
        assert!(m("skip/**", "skip/a/b.rsm"));
        assert!(m("skip/**", "skip/b.rsm"));
        assert!(!m("skip/**", "skipped/b.rsm"));
        assert!(m("*a*b*c", "xxaxxbxxbcc"));
        assert!(!m("*a*b*c", "xxaxxbxxbcd"));
    }

    #[test]
    fn bad_globs_say_why() {
        for (g, why) in [
            ("a/b**/c.x", "whole component"),
            ("../*.rsm", "climb"),
            ("a/b.rsm", "no `*`"),
            ("*.{a,b", "unclosed `{`"),
            ("[a-].x", "no end"),
        ] {
            let e = Glob::parse(g).unwrap_err();
            assert!(e.contains(why), "{g}: {e}");
        }
    }

    #[test]
    fn cp949_and_its_mojibake_read_as_korean() {
        let cp949 = [0xB8, 0xF3, 0xBD, 0xBA, 0xC5, 0xCD]; // 몬스터
        assert_eq!(display_name(&cp949), "몬스터");
        let mojibake: String = cp949.iter().map(|&b| b as char).collect();
        assert_eq!(display_name(mojibake.as_bytes()), "몬스터");
        assert_eq!(display_name("café".as_bytes()), "café");
    }
}
