//! Texture lookup the way Ragnarok lays its data out: names relative to
//! `data/texture/`, backslashes, any case, CP949 bytes.
//!
//! Each path component is matched against the directory listing, because
//! Linux is case-sensitive and Ragnarok data is not. A Korean component can
//! sit on disk in three spellings, all tried: the CP949 bytes themselves
//! (extracted by tools that copy raw names), their proper UTF-8 decoding, or
//! the "Latin-1" mojibake that results when the CP949 bytes are read as
//! Latin-1 and re-encoded as UTF-8 (how the corpus's Aste-Grf files and many
//! GRF extractors store them).
//!
//! Case folding is ASCII-only and CP949-aware: in CP949 only ASCII letters
//! have case, and a double-byte character's trail byte may look like an
//! ASCII letter without being one. Folding the mojibake's `Â`/`â`, or such a
//! trail byte, would match a different Korean name.

use super::{load, Texture};
use crate::formats::text::decode_cp949;
use crate::scene::TextureSlot;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Finds texture files the way Ragnarok lays its data out.
#[derive(Debug, Clone, Default)]
pub struct TextureResolver {
    /// Extra folders searched after the model's own `data/texture/` (recipe
    /// `data:` entries, `--data DIR`), in priority order.
    pub search_dirs: Vec<PathBuf>,
}

impl TextureResolver {
    pub fn new(search_dirs: Vec<PathBuf>) -> Self {
        TextureResolver { search_dirs }
    }

    /// Resolves a texture name as stored in a model (raw bytes, CP949,
    /// backslashes, any case) for the model at `model_path`.
    ///
    /// Order: `<data>/texture/<name>` for every ancestor folder of the model
    /// named `data` (any case), nearest first; then for each search dir
    /// `<dir>/<name>`, `<dir>/texture/<name>`, `<dir>/data/texture/<name>`;
    /// then `<ancestor>/data/texture/<name>` for every ancestor of the model,
    /// nearest first; last the model's own folder.
    /// When several case variants match, the bytewise-smallest that leads to
    /// a file wins.
    pub fn resolve(&self, model_path: &Path, raw_name: &[u8]) -> Option<PathBuf> {
        let name = split_name(raw_name);
        if name.is_empty() {
            return None;
        }
        for root in self.roots(model_path) {
            if let Some(found) = find(&root.base, &root.prefix, &name) {
                return Some(found);
            }
        }
        None
    }

    /// Every place a name is looked up, in order (also used in warnings).
    fn roots(&self, model_path: &Path) -> Vec<Root> {
        let mut roots = Vec::new();
        let start = model_path.parent().unwrap_or(Path::new(""));
        for dir in start.ancestors() {
            if dir
                .file_name()
                .is_some_and(|n| n.as_encoded_bytes().eq_ignore_ascii_case(b"data"))
            {
                roots.push(Root::new(dir, &[b"texture"]));
            }
        }
        for dir in &self.search_dirs {
            roots.push(Root::new(dir, &[]));
            roots.push(Root::new(dir, &[b"texture"]));
            roots.push(Root::new(dir, &[b"data", b"texture"]));
        }
        // Loose layouts: a `data/texture/` beside the model or beside one of
        // its folders (an extracted GRF next to a model, the benchmark's
        // assets), then the model's own folder.
        for dir in start.ancestors().filter(|d| !d.as_os_str().is_empty()) {
            roots.push(Root::new(dir, &[b"data", b"texture"]));
        }
        roots.push(Root::new(
            if start.as_os_str().is_empty() {
                Path::new(".")
            } else {
                start
            },
            &[],
        ));
        roots
    }

    /// The folders [`resolve`](Self::resolve) would search, for messages.
    pub fn searched(&self, model_path: &Path) -> Vec<PathBuf> {
        self.roots(model_path)
            .into_iter()
            .map(|r| {
                let mut p = r.base;
                for c in &r.prefix {
                    p.push(String::from_utf8_lossy(c).as_ref());
                }
                p
            })
            .collect()
    }
}

struct Root {
    base: PathBuf,
    /// Components below `base` that are themselves matched case-insensitively.
    prefix: Vec<Vec<u8>>,
}

impl Root {
    fn new(base: &Path, prefix: &[&[u8]]) -> Root {
        Root {
            base: base.to_path_buf(),
            prefix: prefix.iter().map(|c| c.to_vec()).collect(),
        }
    }
}

/// Splits on `\` and `/`, dropping empty and `.` components. Trailing spaces
/// and dots are dropped because Windows ignores them in file names.
pub(crate) fn split_name(raw: &[u8]) -> Vec<Vec<u8>> {
    raw.split(|&b| b == b'\\' || b == b'/')
        .map(|c| {
            let end = c
                .iter()
                .rposition(|&b| b != b' ' && b != b'.')
                .map_or(0, |i| i + 1);
            // Keep "." / ".." recognisable rather than emptying them.
            if c.iter().all(|&b| b == b'.') {
                c
            } else {
                &c[..end]
            }
        })
        .filter(|c| !c.is_empty() && *c != b".")
        .map(|c| c.to_vec())
        .collect()
}

pub(crate) fn find(base: &Path, prefix: &[Vec<u8>], name: &[Vec<u8>]) -> Option<PathBuf> {
    let mut components: Vec<&[u8]> = prefix.iter().map(|c| c.as_slice()).collect();
    components.extend(name.iter().map(|c| c.as_slice()));
    if !base.is_dir() {
        return None;
    }
    walk(base.to_path_buf(), &components)
}

/// Depth-first over matching entries in sorted order, so the result is the
/// same whatever order the file system lists them in.
fn walk(dir: PathBuf, components: &[&[u8]]) -> Option<PathBuf> {
    let (first, rest) = components.split_first()?;
    let raw = raw_spelling(first);
    let korean = decode_cp949(first);
    let mut matches: Vec<OsString> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .filter(|n| {
            let b = n.as_encoded_bytes();
            eq_fold_cp949(&raw, b)
                || korean.as_bytes().eq_ignore_ascii_case(b)
                || latin1_bytes(b).is_some_and(|l| eq_fold_cp949(&raw, &l))
        })
        .collect();
    matches.sort_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
    for m in matches {
        let path = dir.join(m);
        if rest.is_empty() {
            if path.is_file() {
                return Some(path);
            }
        } else if path.is_dir() {
            if let Some(found) = walk(path, rest) {
                return Some(found);
            }
        }
    }
    None
}

/// Case-insensitive equality of CP949 bytes. A CP949 trail byte may be an
/// ASCII letter (0x41..=0x5A, 0x61..=0x7A in the extended Hangul range), and
/// folding it would turn one Korean syllable into another, so only bytes that
/// start a character are folded.
fn eq_fold_cp949(a: &[u8], b: &[u8]) -> bool {
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

/// Undoes the Latin-1 mojibake: UTF-8 text whose every character is below
/// U+0100 back to one byte per character. Korean UTF-8 never qualifies, and
/// ASCII comes back unchanged.
fn latin1_bytes(utf8: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(utf8).ok()?;
    text.chars().map(|c| u8::try_from(c).ok()).collect()
}

/// The raw bytes as the platform would store them.
#[cfg(unix)]
fn raw_spelling(raw: &[u8]) -> Vec<u8> {
    raw.to_vec()
}

/// Without raw byte file names only a valid UTF-8 spelling can exist.
#[cfg(not(unix))]
fn raw_spelling(raw: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(raw).into_owned().into_bytes()
}

/// A texture ready to be put in a model's texture slot.
#[derive(Debug, Clone)]
pub struct LoadedTexture {
    /// The name as the model gives it, decoded from CP949.
    pub name: String,
    /// Where the file was found, if anywhere (also set when it failed to decode).
    pub path: Option<PathBuf>,
    /// The decoded image, or the checker.
    pub image: Arc<Texture>,
    /// Why the checker is shown, worded for the user.
    pub warning: Option<String>,
}

impl LoadedTexture {
    pub fn into_slot(self) -> TextureSlot {
        TextureSlot {
            name: self.name,
            path: self.path,
            image: self.image,
        }
    }
}

/// Resolves and decodes a model's texture; a missing or unreadable file
/// gives the checker and a warning instead of an error, so the model still
/// renders.
pub fn load_or_checker(
    resolver: &TextureResolver,
    model_path: &Path,
    raw_name: &[u8],
) -> LoadedTexture {
    let name = decode_cp949(raw_name);
    let Some(path) = resolver.resolve(model_path, raw_name) else {
        let searched: Vec<String> = resolver
            .searched(model_path)
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let where_ = if searched.is_empty() {
            "no data/ folder above the model and no --data folders".to_string()
        } else {
            format!("looked in {}", searched.join(", "))
        };
        return LoadedTexture {
            warning: Some(format!(
                "texture \"{name}\" of {} not found ({where_}); drawing a checker",
                model_path.display()
            )),
            name,
            path: None,
            image: Arc::new(Texture::checker()),
        };
    };
    match load(&path) {
        Ok(t) => LoadedTexture {
            name,
            path: Some(path),
            image: Arc::new(t),
            warning: None,
        },
        Err(e) => LoadedTexture {
            warning: Some(format!(
                "texture \"{name}\" could not be read ({e}); drawing a checker"
            )),
            name,
            path: Some(path),
            image: Arc::new(Texture::checker()),
        },
    }
}

/// Finds a Ragnarok data file in one given data folder: `<dir>/<kind>/<name>`,
/// then `<dir>/data/<kind>/<name>` (a client folder given instead of its
/// `data/`). `kind` may be empty for files at the data root (a map's `.gnd`).
/// `raw` is the name as stored (CP949 bytes, backslashes, any case).
pub fn find_in_data_dir(dir: &Path, kind: &str, raw: &[u8]) -> Option<PathBuf> {
    let parts = split_name(raw);
    if parts.is_empty() {
        return None;
    }
    let (kind, nested) = kind_prefixes(kind);
    find(dir, &kind, &parts).or_else(|| find(dir, &nested, &parts))
}

/// `kind` as path components (none for the data root), and the same below a
/// `data` folder.
fn kind_prefixes(kind: &str) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let kind: Vec<Vec<u8>> = if kind.is_empty() {
        Vec::new()
    } else {
        vec![kind.as_bytes().to_vec()]
    };
    let mut nested = vec![b"data".to_vec()];
    nested.extend(kind.iter().cloned());
    (kind, nested)
}

/// Finds a Ragnarok data file (`kind` = "model", "texture", …) named as a
/// map or model names it (backslashes, any case, CP949), looking in every
/// `data` folder at or above `start` and in `data/` beside each of them.
pub fn lookup_data_file(start: &Path, kind: &str, name: &str) -> Option<PathBuf> {
    lookup_data_file_raw(start, kind, name.as_bytes())
}

/// [`lookup_data_file`] for a name as stored (CP949 bytes).
pub fn lookup_data_file_raw(start: &Path, kind: &str, raw: &[u8]) -> Option<PathBuf> {
    let parts = split_name(raw);
    if parts.is_empty() {
        return None;
    }
    let (kind, nested) = kind_prefixes(kind);
    for dir in start.ancestors() {
        let named_data = dir
            .file_name()
            .is_some_and(|n| n.as_encoded_bytes().eq_ignore_ascii_case(b"data"));
        if named_data {
            if let Some(p) = find(dir, &kind, &parts) {
                return Some(p);
            }
        }
        let base = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Some(p) = find(base, &nested, &parts) {
            return Some(p);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_on_both_slashes_and_drop_windows_trailers() {
        assert_eq!(
            split_name(b"la_scifi\\error_01.bmp"),
            vec![b"la_scifi".to_vec(), b"error_01.bmp".to_vec()]
        );
        assert_eq!(
            split_name(b"\\a//.\\b.bmp. "),
            vec![b"a".to_vec(), b"b.bmp".to_vec()]
        );
        assert_eq!(split_name(b"..\\x"), vec![b"..".to_vec(), b"x".to_vec()]);
        assert!(split_name(b"").is_empty());
    }

    #[test]
    fn latin1_mojibake_maps_back_to_cp949_bytes() {
        // "트랩" in CP949, as extractors that read it as Latin-1 store it.
        assert_eq!(
            latin1_bytes("Æ®·¦".as_bytes()),
            Some(vec![0xc6, 0xae, 0xb7, 0xa6])
        );
        assert_eq!(latin1_bytes(b"abc"), Some(b"abc".to_vec()));
        assert_eq!(latin1_bytes("트랩".as_bytes()), None);
        assert_eq!(latin1_bytes(&[0xc6, 0xae]), None);
    }

    #[test]
    fn cp949_folding_leaves_trail_bytes_alone() {
        // 0x81 0x41 and 0x81 0x61 are two different extended-Hangul syllables.
        assert!(!eq_fold_cp949(&[0x81, 0x41, b'a'], &[0x81, 0x61, b'A']));
        assert!(eq_fold_cp949(&[0x81, 0x41, b'a'], &[0x81, 0x41, b'A']));
        assert!(eq_fold_cp949(b"Error_01.BMP", b"error_01.bmp"));
        assert!(!eq_fold_cp949(b"error_01.bmp", b"error_01.bm"));
    }
}
