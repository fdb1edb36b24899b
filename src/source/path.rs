//! Paths as games name their files: `\` or `/` between components, any
//! ASCII case, raw bytes (Ragnarok names are CP949).

use crate::text::decode_cp949;
use std::fmt;

/// A file's path inside a data source, as a game names it.
///
/// Components are split on `\` and `/`; empty and `.` components are
/// dropped, and trailing spaces and dots are cut from each component
/// because Windows ignores them. Sources (and [`GamePath::part_is`]) match
/// components in any ASCII case, CP949-aware: a double-byte character's
/// trail byte may look like an ASCII letter without being one, so it is
/// never folded. `==` and the ordering compare spellings byte for byte:
/// `Data/x.bmp` and `data/X.BMP` are two values naming the same file.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GamePath {
    parts: Vec<Vec<u8>>,
}

impl GamePath {
    /// Parses a name as a model, map or recipe writes it.
    pub fn new(raw: impl AsRef<[u8]>) -> GamePath {
        GamePath {
            parts: split(raw.as_ref()),
        }
    }

    /// The path with no components (a source's root).
    pub fn root() -> GamePath {
        GamePath::default()
    }

    /// The components, as stored.
    pub fn parts(&self) -> &[Vec<u8>] {
        &self.parts
    }

    /// True for the root.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// `self` followed by `rest`.
    pub fn join(&self, rest: &GamePath) -> GamePath {
        let mut parts = self.parts.clone();
        parts.extend(rest.parts.iter().cloned());
        GamePath { parts }
    }

    /// `self` followed by one more component.
    pub fn child(&self, name: impl AsRef<[u8]>) -> GamePath {
        self.join(&GamePath::new(name))
    }

    /// The folder holding this path (the root for a one-component path).
    pub fn parent(&self) -> GamePath {
        let mut parts = self.parts.clone();
        parts.pop();
        GamePath { parts }
    }

    /// The last component.
    pub fn file_name(&self) -> Option<&[u8]> {
        self.parts.last().map(Vec::as_slice)
    }

    /// The path without its first `n` components.
    pub fn skip(&self, n: usize) -> GamePath {
        GamePath {
            parts: self.parts.iter().skip(n).cloned().collect(),
        }
    }

    /// Whether component `i` equals `name` in the game's rules.
    pub fn part_is(&self, i: usize, name: &[u8]) -> bool {
        self.parts.get(i).is_some_and(|p| eq_fold(p, name))
    }
}

impl fmt::Display for GamePath {
    /// Components decoded from CP949 and joined with `/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.parts.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            f.write_str(&decode_cp949(p))?;
        }
        Ok(())
    }
}

impl fmt::Debug for GamePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GamePath({self})")
    }
}

/// Splits on `\` and `/`, dropping empty and `.` components and trailing
/// spaces and dots (kept whole for `..`, so it stays recognisable).
pub(crate) fn split(raw: &[u8]) -> Vec<Vec<u8>> {
    raw.split(|&b| b == b'\\' || b == b'/')
        .map(|c| {
            if c.iter().all(|&b| b == b'.') {
                return c;
            }
            let end = c
                .iter()
                .rposition(|&b| b != b' ' && b != b'.')
                .map_or(0, |i| i + 1);
            &c[..end]
        })
        .filter(|c| !c.is_empty() && *c != b".")
        .map(<[u8]>::to_vec)
        .collect()
}

/// Case-insensitive equality of CP949 bytes: only bytes that start a
/// character are folded (0x81 0x41 and 0x81 0x61 are two different
/// extended-Hangul syllables).
pub(crate) fn eq_fold(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] >= 0x81 && a[i] != 0xff && i + 1 < a.len() {
            if a[i..i + 2] != b[i..i + 2] {
                return false;
            }
            i += 2;
        } else {
            if !a[i].eq_ignore_ascii_case(&b[i]) {
                return false;
            }
            i += 1;
        }
    }
    true
}

/// The component folded to one spelling per equivalence class of
/// [`eq_fold`] (lower-case ASCII outside double-byte characters).
pub(crate) fn fold(a: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let mut i = 0;
    while i < a.len() {
        if a[i] >= 0x81 && a[i] != 0xff && i + 1 < a.len() {
            out.extend_from_slice(&a[i..i + 2]);
            i += 2;
        } else {
            out.push(a[i].to_ascii_lowercase());
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_on_both_slashes_and_drop_windows_trailers() {
        assert_eq!(
            split(b"la_scifi\\error_01.bmp"),
            vec![b"la_scifi".to_vec(), b"error_01.bmp".to_vec()]
        );
        assert_eq!(
            split(b"\\a//.\\b.bmp. "),
            vec![b"a".to_vec(), b"b.bmp".to_vec()]
        );
        assert_eq!(split(b"..\\x"), vec![b"..".to_vec(), b"x".to_vec()]);
        assert!(split(b"").is_empty());
    }

    #[test]
    fn cp949_folding_leaves_trail_bytes_alone() {
        assert!(!eq_fold(&[0x81, 0x41, b'a'], &[0x81, 0x61, b'A']));
        assert!(eq_fold(&[0x81, 0x41, b'a'], &[0x81, 0x41, b'A']));
        assert!(eq_fold(b"Error_01.BMP", b"error_01.bmp"));
        assert!(!eq_fold(b"error_01.bmp", b"error_01.bm"));
        assert_eq!(fold(&[0x81, 0x41, b'A']), vec![0x81, 0x41, b'a']);
    }

    #[test]
    fn paths_join_and_display() {
        let p = GamePath::new("data\\texture").child("kiln/Sail.bmp");
        assert_eq!(p.to_string(), "data/texture/kiln/Sail.bmp");
        assert_eq!(p.parent().to_string(), "data/texture/kiln");
        assert_eq!(p.file_name(), Some(&b"Sail.bmp"[..]));
        assert!(p.part_is(0, b"DATA"));
        assert_eq!(p.skip(2).to_string(), "kiln/Sail.bmp");
        // Equality is by spelling; matching in the game's rules is the
        // sources' (and part_is') business.
        assert_ne!(GamePath::new("Data/x.bmp"), GamePath::new("data/X.BMP"));
        assert_eq!(GamePath::new("data\\x.bmp"), GamePath::new("data/x.bmp"));
    }
}
