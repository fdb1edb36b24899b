//! A folder on disk as a data source.
//!
//! Each path component is matched against the folder's listing, because
//! Linux is case-sensitive and game data is not. A Korean component can sit
//! on disk in three spellings, all tried: the CP949 bytes themselves
//! (extracted by tools that copy raw names), their proper UTF-8 decoding, or
//! the "Latin-1" mojibake that results when the CP949 bytes are read as
//! Latin-1 and re-encoded as UTF-8 (how many GRF extractors store them).
//! When several spellings match, the bytewise-smallest that leads to a file
//! wins, so the result never depends on the order the file system lists
//! entries in.

use super::path::eq_fold;
use super::{DataSource, Entry, EntryKind, GamePath, Listed};
use crate::error::Result;
use crate::text::decode_cp949;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Files below one folder on disk.
#[derive(Debug, Clone)]
pub struct Folder {
    root: PathBuf,
}

impl Folder {
    /// A source answering paths below `root`.
    pub fn new(root: impl Into<PathBuf>) -> Folder {
        let root = root.into();
        // A bare file name's parent is empty: that is the current folder.
        let root = if root.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            root
        };
        Folder { root }
    }

    /// The folder itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder or file `path` leads to, matching every component in the
    /// game's rules.
    fn locate(&self, path: &GamePath, want: EntryKind) -> Option<PathBuf> {
        if !self.root.is_dir() {
            return None;
        }
        if path.is_empty() {
            return (want == EntryKind::Folder).then(|| self.root.clone());
        }
        let parts: Vec<&[u8]> = path.parts().iter().map(Vec::as_slice).collect();
        walk(self.root.clone(), &parts, want)
    }
}

impl DataSource for Folder {
    fn describe(&self) -> String {
        self.root.display().to_string()
    }

    fn find(&self, path: &GamePath) -> Option<Entry> {
        let location = self.locate(path, EntryKind::File)?;
        let size = std::fs::metadata(&location).map_or(0, |m| m.len());
        Some(Entry {
            location,
            size,
            key: 0,
        })
    }

    fn read(&self, entry: &Entry) -> Result<Vec<u8>> {
        super::disk::read_limited(
            &entry.location,
            super::disk::input_limit(super::disk::DEFAULT_INPUT_LIMIT),
        )
    }

    fn list(&self, dir: &GamePath) -> Option<(PathBuf, Vec<Listed>)> {
        let location = self.locate(dir, EntryKind::Folder)?;
        let mut out: Vec<Listed> = std::fs::read_dir(&location)
            .ok()?
            .filter_map(|e| e.ok())
            .map(|e| {
                let path = e.path();
                let kind = match std::fs::symlink_metadata(&path) {
                    Ok(m) if m.is_dir() => EntryKind::Folder,
                    // A link to a folder is listed apart: walking into it
                    // could loop back up the tree.
                    Ok(m) if m.file_type().is_symlink() && path.is_dir() => EntryKind::LinkedFolder,
                    _ => EntryKind::File,
                };
                Listed {
                    name: e.file_name().as_encoded_bytes().to_vec(),
                    kind,
                }
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Some((location, out))
    }
}

/// Depth-first over matching entries in sorted order.
fn walk(dir: PathBuf, components: &[&[u8]], want: EntryKind) -> Option<PathBuf> {
    let (first, rest) = components.split_first()?;
    let raw = raw_spelling(first);
    let korean = decode_cp949(first);
    // A name typed in UTF-8 (a recipe's glob, a command line) finds the
    // CP949 bytes a client's files are stored under, and their mojibake.
    let typed = utf8_as_cp949(first);
    let mut matches: Vec<OsString> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .filter(|n| {
            let b = n.as_encoded_bytes();
            eq_fold(&raw, b)
                || korean.as_bytes().eq_ignore_ascii_case(b)
                || latin1_bytes(b).is_some_and(|l| eq_fold(&raw, &l))
                || typed.as_ref().is_some_and(|t| {
                    eq_fold(t, b) || latin1_bytes(b).is_some_and(|l| eq_fold(t, &l))
                })
        })
        .collect();
    matches.sort_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
    for m in matches {
        let path = dir.join(m);
        if rest.is_empty() {
            let fits = match want {
                EntryKind::File => path.is_file(),
                EntryKind::Folder | EntryKind::LinkedFolder => path.is_dir(),
            };
            if fits {
                return Some(path);
            }
        } else if path.is_dir() {
            if let Some(found) = walk(path, rest, want) {
                return Some(found);
            }
        }
    }
    None
}

/// Undoes the Latin-1 mojibake: UTF-8 text whose every character is below
/// U+0100 back to one byte per character. Korean UTF-8 never qualifies, and
/// ASCII comes back unchanged.
fn latin1_bytes(utf8: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(utf8).ok()?;
    text.chars().map(|c| u8::try_from(c).ok()).collect()
}

/// A UTF-8 name with non-ASCII characters in CP949, when every character
/// has a CP949 code.
fn utf8_as_cp949(name: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(name).ok()?;
    if text.is_ascii() {
        return None;
    }
    let (bytes, _, unmappable) = encoding_rs::EUC_KR.encode(text);
    (!unmappable).then(|| bytes.into_owned())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

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

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kiln-folder-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn files_are_found_in_any_case_and_folders_listed_sorted() {
        let d = scratch("find");
        std::fs::create_dir_all(d.join("Data/Texture")).unwrap();
        std::fs::write(d.join("Data/Texture/Wall.BMP"), b"1234").unwrap();
        std::fs::write(d.join("Data/b.txt"), b"").unwrap();
        let f = Folder::new(&d);
        let e = f.find(&GamePath::new("data\\texture\\wall.bmp")).unwrap();
        assert_eq!(
            (e.location.clone(), e.size),
            (d.join("Data/Texture/Wall.BMP"), 4)
        );
        assert_eq!(f.read(&e).unwrap(), b"1234");
        // A folder is not a file, and a missing name is not found.
        assert_eq!(f.find(&GamePath::new("data/texture")), None);
        assert_eq!(f.find(&GamePath::new("data/texture/none.bmp")), None);
        assert_eq!(f.find(&GamePath::root()), None);
        let (at, list) = f.list(&GamePath::new("DATA")).unwrap();
        assert_eq!(at, d.join("Data"));
        let names: Vec<(&[u8], EntryKind)> =
            list.iter().map(|l| (l.name.as_slice(), l.kind)).collect();
        assert_eq!(
            names,
            [
                (&b"Texture"[..], EntryKind::Folder),
                (b"b.txt", EntryKind::File)
            ]
        );
        assert_eq!(f.list(&GamePath::root()).unwrap().0, d);
        assert!(f.list(&GamePath::new("data/b.txt")).is_none());
        // A source whose folder does not exist holds nothing.
        let gone = Folder::new(d.join("gone"));
        assert_eq!(gone.find(&GamePath::new("data/b.txt")), None);
        assert!(gone.list(&GamePath::root()).is_none());
        // A file that vanished after it was found is an error naming it.
        std::fs::remove_file(d.join("Data/Texture/Wall.BMP")).unwrap();
        let err = f.read(&e).unwrap_err();
        assert!(
            matches!(&err, Error::Io { path, .. } if *path == e.location),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_bare_file_name_lies_in_the_current_folder() {
        assert_eq!(Folder::new("").root(), Path::new("."));
        assert_eq!(Folder::new("x").root(), Path::new("x"));
    }

    #[cfg(unix)]
    #[test]
    fn links_to_folders_are_listed_apart() {
        let d = scratch("links");
        std::fs::create_dir_all(d.join("real")).unwrap();
        std::os::unix::fs::symlink(&d, d.join("real/up")).unwrap();
        let (_, list) = Folder::new(&d).list(&GamePath::new("real")).unwrap();
        assert_eq!(list.len(), 1);
        assert_eq!(
            (list[0].name.as_slice(), list[0].kind),
            (&b"up"[..], EntryKind::LinkedFolder)
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
