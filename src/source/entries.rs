//! What every archive reader shares: its entries as the table stores them
//! ([`Item`]), the [`Archive`] trait, a case-folded index for lookups and
//! folder listings, and the check before an entry is read. The readers
//! (GRF, PBO, Grimrock `.dat`) build on this module; opening an archive by
//! its content (`super::archive`) builds on them.

use super::disk::{check_limit, input_limit, DEFAULT_INPUT_LIMIT};
use super::path::fold;
use super::{DataSource, Entry, EntryKind, GamePath, Listed};
use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One entry of an archive, as its table stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// The name as stored (CP949 bytes for GRF; for a Grimrock `.dat`,
    /// whose table keeps only hashes, `#` and the hash in hex).
    #[serde(skip)]
    pub raw_name: Vec<u8>,
    /// The name for people: decoded, `/` between folders.
    pub name: String,
    /// Size once extracted.
    pub size: u64,
    /// Bytes it takes in the archive.
    pub stored: u64,
    /// Where its bytes start in the archive file.
    pub offset: u64,
    /// The table's flag bits, as stored.
    pub flags: u32,
    /// How it is compressed: `none`, `zlib`, `lzss`, …
    pub compression: &'static str,
    /// How it is encrypted: `none`, `des-mixed`, `des-header`, …
    pub encryption: &'static str,
    /// Why kiln cannot extract it, when it cannot.
    pub refused: Option<String>,
}

/// What an archive reader provides beyond a [`DataSource`]: its entries,
/// for `kiln inspect` and `kiln extract`.
pub trait Archive: DataSource {
    /// The format and version, e.g. `GRF 0x200`.
    fn format(&self) -> String;
    /// Every file entry, in table order.
    fn items(&self) -> &[Item];
    /// The bytes of entry `index`, extracted.
    fn read_item(&self, index: usize) -> Result<Vec<u8>>;
    /// Header fields worth showing (`prefix` of a PBO, …).
    fn properties(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// What is odd about the archive but did not stop it opening.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A shared archive.
pub type ArchiveRef = Arc<dyn Archive>;

/// Case-folded entry names → item index, and the folders they imply. A
/// name is kept as its folded components joined by `/` (which no
/// component holds): one allocation an entry, and a folder's entries lie
/// together in the map's order.
#[derive(Debug, Default)]
pub struct NameIndex {
    files: BTreeMap<Box<[u8]>, usize>,
}

impl NameIndex {
    /// An index over `items`' raw names; of names equal in the game's rules
    /// the first in table order wins (as the client's own lookup does).
    pub fn new<'a>(names: impl IntoIterator<Item = &'a [u8]>) -> NameIndex {
        let mut files = BTreeMap::new();
        for (i, name) in names.into_iter().enumerate() {
            let key = key(&GamePath::new(name));
            if !key.is_empty() {
                files.entry(key.into_boxed_slice()).or_insert(i);
            }
        }
        NameIndex { files }
    }

    /// The item at `path`. Archives store Korean names as CP949 bytes; a
    /// path typed in UTF-8 (or in the Latin-1 mojibake extractors leave)
    /// finds them too.
    pub fn find(&self, path: &GamePath) -> Option<usize> {
        if let Some(&i) = self.files.get(key(path).as_slice()) {
            return Some(i);
        }
        let respelled = |f: fn(&[u8]) -> Option<Vec<u8>>| -> Option<GamePath> {
            let parts: Option<Vec<Vec<u8>>> = path.parts().iter().map(|p| f(p)).collect();
            Some(GamePath::new(parts?.join(&b'/')))
        };
        [respelled(utf8_to_cp949), respelled(latin1_to_bytes)]
            .into_iter()
            .flatten()
            .find_map(|p| self.files.get(key(&p).as_slice()).copied())
    }

    /// The names directly below folder `dir` (as stored in the first item
    /// that spells them), bytewise sorted; `None` when no item lies below.
    pub fn list(&self, dir: &GamePath, items: &[Item]) -> Option<Vec<Listed>> {
        let depth = dir.parts().len();
        let mut prefix = key(dir);
        if depth > 0 {
            prefix.push(b'/');
        }
        let mut out: BTreeMap<Vec<u8>, EntryKind> = BTreeMap::new();
        for (k, &i) in self.files.range::<[u8], _>((
            std::ops::Bound::Included(prefix.as_slice()),
            std::ops::Bound::Unbounded,
        )) {
            if !k.starts_with(&prefix) {
                break;
            }
            let rest = &k[prefix.len()..];
            let stored = GamePath::new(&items[i].raw_name);
            let Some(name) = stored.parts().get(depth) else {
                continue;
            };
            let kind = if rest.contains(&b'/') {
                EntryKind::Folder
            } else {
                EntryKind::File
            };
            out.entry(name.clone()).or_insert(kind);
        }
        if out.is_empty() && depth > 0 {
            return None;
        }
        Some(
            out.into_iter()
                .map(|(name, kind)| Listed { name, kind })
                .collect(),
        )
    }
}

/// A UTF-8 component in CP949, when every character has a CP949 code.
fn utf8_to_cp949(part: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(part).ok()?;
    let (bytes, _, unmappable) = encoding_rs::EUC_KR.encode(text);
    (!unmappable).then(|| bytes.into_owned())
}

/// UTF-8 whose characters are all below U+0100 back to one byte each.
fn latin1_to_bytes(part: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(part).ok()?;
    text.chars().map(|c| u8::try_from(c).ok()).collect()
}

fn key(path: &GamePath) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, p) in path.parts().iter().enumerate() {
        if i > 0 {
            out.push(b'/');
        }
        out.extend(fold(p));
    }
    out
}

/// Where an archive entry is, for messages and reports: `archive:/name`.
pub fn location(archive: &Path, name: &str) -> PathBuf {
    PathBuf::from(format!("{}:/{name}", archive.display()))
}

/// The [`Entry`] of item `index`.
pub fn entry(archive: &Path, items: &[Item], index: usize) -> Entry {
    let item = &items[index];
    Entry {
        location: location(archive, &item.name),
        size: item.size,
        key: index as u64,
    }
}

/// The item index an [`Entry`] this archive found stands for, checked.
pub fn index_of(archive: &Path, items: &[Item], entry: &Entry) -> Result<usize> {
    let i = entry.key as usize;
    match items.get(i) {
        Some(item) if location(archive, &item.name) == entry.location => Ok(i),
        _ => Err(Error::io(
            &entry.location,
            std::io::Error::new(std::io::ErrorKind::NotFound, "not in this archive"),
        )),
    }
}

/// Item `index`, checked before its bytes are read: it exists, kiln does
/// not refuse it, and its extracted size is within the input limit. Gives
/// the item and where it is, for the reader's own messages.
pub fn readable<'a>(
    archive: &Path,
    items: &'a [Item],
    index: usize,
) -> Result<(&'a Item, PathBuf)> {
    let Some(item) = items.get(index) else {
        return Err(Error::Other(format!(
            "{}: no entry {index}",
            archive.display()
        )));
    };
    let location = location(archive, &item.name);
    if let Some(why) = &item.refused {
        return Err(Error::Other(format!("{}: {why}", location.display())));
    }
    check_limit(&location, item.size, input_limit(DEFAULT_INPUT_LIMIT))?;
    Ok((item, location))
}

/// Whether an entry's stored name is safe to write below an extraction
/// folder: relative (no leading separator or drive), no `..`, no device
/// names, no control characters.
pub fn safe_relative(raw: &[u8]) -> bool {
    let name = GamePath::new(raw);
    !name.is_empty()
        && !raw.starts_with(b"/")
        && !raw.starts_with(b"\\")
        && name.parts().iter().all(|p| {
            p.as_slice() != b".."
                && !p.contains(&b':')
                && !p.iter().any(|&b| b < 0x20)
                && !is_windows_device(p)
        })
}

/// Device names are matched on the name as extraction decodes it.
fn is_windows_device(part: &[u8]) -> bool {
    crate::confined::is_device_name(&String::from_utf8_lossy(part))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(name: &str) -> Item {
        Item {
            raw_name: name.as_bytes().to_vec(),
            name: name.replace('\\', "/"),
            size: 1,
            stored: 1,
            offset: 0,
            flags: 0,
            compression: "none",
            encryption: "none",
            refused: None,
        }
    }

    #[test]
    fn the_index_finds_in_any_case_and_lists_folders() {
        let items: Vec<Item> = [
            "data\\Texture\\a.bmp",
            "data\\model\\x.rsm",
            "DATA\\texture\\A.BMP",
            "readme.txt",
        ]
        .into_iter()
        .map(item)
        .collect();
        let index = NameIndex::new(items.iter().map(|i| i.raw_name.as_slice()));
        assert_eq!(index.find(&GamePath::new("data/TEXTURE/a.BMP")), Some(0));
        assert_eq!(index.find(&GamePath::new("data/texture")), None);
        let names = |dir: &str| -> Vec<(String, EntryKind)> {
            index
                .list(&GamePath::new(dir), &items)
                .unwrap()
                .into_iter()
                .map(|l| (String::from_utf8(l.name).unwrap(), l.kind))
                .collect()
        };
        assert_eq!(
            names("Data"),
            [
                ("Texture".to_string(), EntryKind::Folder),
                ("model".into(), EntryKind::Folder)
            ]
        );
        assert_eq!(
            names("data/texture"),
            [("a.bmp".to_string(), EntryKind::File)]
        );
        assert_eq!(names("").len(), 2);
        assert!(index.list(&GamePath::new("nowhere"), &items).is_none());
    }

    #[test]
    fn an_entry_is_read_only_when_present_accepted_and_within_the_limit() {
        let archive = Path::new("a.grf");
        let mut items = vec![item("data\\ok.txt"), item("data\\no.txt"), item("big.bin")];
        items[1].refused = Some("encrypted".into());
        items[2].size = u64::MAX;
        let (ok, at) = readable(archive, &items, 0).unwrap();
        assert_eq!((ok, at), (&items[0], PathBuf::from("a.grf:/data/ok.txt")));
        let message = |i| readable(archive, &items, i).unwrap_err().to_string();
        assert_eq!(message(1), "a.grf:/data/no.txt: encrypted");
        assert!(message(2).contains("a.grf:/big.bin"), "{}", message(2));
        assert!(message(2).contains("is larger than the"), "{}", message(2));
        assert_eq!(message(3), "a.grf: no entry 3");
    }

    #[test]
    fn unsafe_names_are_told_apart() {
        for bad in [
            "..\\x",
            "a/../../b",
            "c:\\windows\\x",
            "con.txt",
            "a\u{1}b",
            "",
            "/abs/olute.txt",
            "\\x",
        ] {
            assert!(!safe_relative(bad.as_bytes()), "{bad}");
        }
        for good in ["data\\texture\\a.bmp", "x..y", "a/./b"] {
            assert!(safe_relative(good.as_bytes()), "{good}");
        }
    }
}
