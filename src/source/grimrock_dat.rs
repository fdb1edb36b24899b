//! Legend of Grimrock `.dat` archives (the game's `grimrock.dat`, exported
//! mods) as a data source.
//!
//! `GRAR` (Grimrock 1): u32 count, then 16-byte entries — u32 FNV-1a hash
//! of the path, u32 offset from the start of the file, u32 compressed
//! length (0 = stored), u32 size. A compressed body is u32 size then a
//! zlib stream (the compressed length counts both). `GRA2` (Grimrock 2)
//! adds a u32 flag to each entry: 1 for a plain zlib body; other values on
//! compressed entries are refused (encrypted mods).
//!
//! The table keeps hashes, not names: a file is found by hashing the path
//! asked for (as given, then lower-cased). Folders are listed from the
//! names the archive's own scripts spell (`super::dat_names`), recovered
//! the first time a folder is listed.
//! No archive is public to test against, so this reader follows the
//! community's descriptions and kiln's own writer; it is unverified on real
//! archives.

use super::dat_names;
use super::disk::RandomAccess;
use super::entries::{self, Archive, Item, NameIndex};
use super::zlib::{inflate_exact, looks_like_zlib};
use super::{DataSource, Entry, GamePath, Listed};
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// FNV-1a, 32 bits, over the path's bytes.
pub fn fnv1a(path: &[u8]) -> u32 {
    path.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    })
}

/// The archive generations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatVersion {
    /// `GRAR`, Legend of Grimrock.
    Grar,
    /// `GRA2`, Legend of Grimrock 2.
    Gra2,
}

#[derive(Debug, Clone, Copy)]
struct Row {
    hash: u32,
    offset: u64,
    compressed: u64,
    size: u64,
    flag: u32,
}

/// An open Grimrock `.dat`.
#[derive(Debug)]
pub struct GrimrockDat {
    file: RandomAccess,
    version: DatVersion,
    rows: Vec<Row>,
    /// The entries as the table has them, named by their hashes.
    hashed: Vec<Item>,
    by_hash: BTreeMap<u32, usize>,
    warnings: Vec<String>,
    named: OnceLock<Named>,
}

/// Every entry in table order under the name the archive's scripts give
/// it, or its hash where they give none (what `kiln inspect` lists and
/// `kiln extract` writes), and a case-folded index over the named ones.
#[derive(Debug, Default)]
struct Named {
    table: Vec<Item>,
    index: NameIndex,
    /// How many entries are named.
    count: usize,
}

impl GrimrockDat {
    /// Opens the archive at `path`.
    pub fn open_path(path: &Path) -> Result<GrimrockDat> {
        GrimrockDat::open(RandomAccess::open(path)?)
    }

    /// Reads the table of an opened file.
    pub fn open(file: RandomAccess) -> Result<GrimrockDat> {
        let path = file.path().to_path_buf();
        let err =
            |field: &str, offset: u64, message: String| Error::parse(&path, field, offset, message);
        let head = file.read_at(0, 8.min(file.len()), "header")?;
        if head.len() < 8 {
            return Err(err(
                "header",
                0,
                "too short for a Grimrock .dat header".into(),
            ));
        }
        let version = match &head[..4] {
            b"GRAR" => DatVersion::Grar,
            b"GRA2" => DatVersion::Gra2,
            _ => {
                return Err(err(
                    "header.magic",
                    0,
                    "not a Grimrock .dat (GRAR/GRA2)".into(),
                ))
            }
        };
        let count = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as u64;
        let row_size = if version == DatVersion::Grar { 16 } else { 20 };
        if count > (file.len() - 8) / row_size {
            return Err(err(
                "header.count",
                4,
                format!(
                    "{count} entries of {row_size} bytes cannot fit in a {}-byte file",
                    file.len()
                ),
            ));
        }
        let table = file.read_at(8, count * row_size, "table")?;
        let mut rows = Vec::with_capacity(count as usize);
        let mut items = Vec::with_capacity(count as usize);
        let mut by_hash = BTreeMap::new();
        let mut warnings = Vec::new();
        for (i, r) in table.chunks_exact(row_size as usize).enumerate() {
            let u = |k: usize| u32::from_le_bytes([r[k], r[k + 1], r[k + 2], r[k + 3]]);
            let row = Row {
                hash: u(0),
                offset: u(4) as u64,
                compressed: u(8) as u64,
                size: u(12) as u64,
                flag: if version == DatVersion::Gra2 {
                    u(16)
                } else {
                    1
                },
            };
            let stored = if row.compressed == 0 {
                row.size
            } else {
                row.compressed
            };
            let refused = if row.compressed != 0 && row.flag != 1 {
                Some(format!(
                    "compressed with flag {} (only 1, plain zlib, is known; others are encrypted)",
                    row.flag
                ))
            } else if row.compressed != 0 && row.compressed < 4 {
                Some(format!(
                    "compressed length {} is shorter than its size field",
                    row.compressed
                ))
            } else if row
                .offset
                .checked_add(stored)
                .is_none_or(|e| e > file.len())
            {
                Some(format!(
                    "its {stored} bytes at byte {} run past the end of the {}-byte file",
                    row.offset,
                    file.len()
                ))
            } else {
                None
            };
            let name = format!("#{:08x}", row.hash);
            if by_hash.insert(row.hash, i).is_some() {
                warnings.push(format!(
                    "hash {name} appears more than once; the last entry is used"
                ));
            }
            items.push(Item {
                raw_name: name.clone().into_bytes(),
                name,
                size: row.size,
                stored,
                offset: row.offset,
                flags: row.flag,
                compression: if row.compressed == 0 { "none" } else { "zlib" },
                encryption: if row.compressed != 0 && row.flag != 1 {
                    "unknown"
                } else {
                    "none"
                },
                refused,
            });
            rows.push(row);
        }
        Ok(GrimrockDat {
            file,
            version,
            rows,
            hashed: items,
            by_hash,
            warnings,
            named: OnceLock::new(),
        })
    }

    /// The archive's path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The generation.
    pub fn version(&self) -> DatVersion {
        self.version
    }

    fn extract(&self, index: usize) -> Result<Vec<u8>> {
        let (_, location) = entries::readable(self.path(), &self.hashed, index)?;
        let row = self.rows[index];
        if row.compressed == 0 {
            return self.file.read_at(row.offset, row.size, "entry");
        }
        let body = self.file.read_at(row.offset, row.compressed, "entry")?;
        let inner = u32::from_le_bytes([body[0], body[1], body[2], body[3]]) as u64;
        if inner != row.size {
            return Err(Error::parse(
                &location,
                "entry.size",
                row.offset,
                format!("body says {inner} bytes, the table {}", row.size),
            ));
        }
        let stream = &body[4..];
        if looks_like_zlib(stream) {
            return inflate_exact(stream, row.size, &location, "entry", row.offset + 4);
        }
        // A raw deflate stream without the zlib wrapper.
        use std::io::Read;
        let mut out = Vec::new();
        flate2::read::DeflateDecoder::new(stream)
            .take(row.size + 1)
            .read_to_end(&mut out)
            .ok()
            .filter(|_| out.len() as u64 == row.size)
            .map(|_| out)
            .ok_or_else(|| {
                Error::parse(
                    &location,
                    "entry",
                    row.offset + 4,
                    "neither a zlib nor a deflate stream of the table's size",
                )
            })
    }

    /// The first bytes of entry `index` once extracted, without extracting
    /// the rest; `None` when it cannot be read.
    fn head(&self, index: usize) -> Option<Vec<u8>> {
        let row = self.rows[index];
        if self.hashed[index].refused.is_some() {
            return None;
        }
        let want = (dat_names::HEAD as u64).min(row.size);
        if row.compressed == 0 {
            return self.file.read_at(row.offset, want, "entry").ok();
        }
        // 1 KiB of deflate yields far more than HEAD bytes of any script.
        let take = (row.compressed - 4).min(1024);
        let body = self.file.read_at(row.offset + 4, take, "entry").ok()?;
        use std::io::Read;
        let mut out = Vec::new();
        let read = if looks_like_zlib(&body) {
            flate2::read::ZlibDecoder::new(&body[..])
                .take(want)
                .read_to_end(&mut out)
        } else {
            flate2::read::DeflateDecoder::new(&body[..])
                .take(want)
                .read_to_end(&mut out)
        };
        // A stream cut at `take` bytes ends in an error after what it gave.
        (read.is_ok() || !out.is_empty()).then_some(out)
    }

    /// Names the entries the archive's own scripts spell.
    fn recover_names(&self) -> Named {
        let scripts = (0..self.rows.len())
            .filter(|&i| self.rows[i].size <= dat_names::MAX_SCRIPT)
            .filter(|&i| {
                self.head(i)
                    .is_some_and(|h| dat_names::looks_like_script(&h))
            })
            .filter_map(|i| self.extract(i).ok());
        let names = dat_names::recover(&self.by_hash, fnv1a, scripts);
        let mut table = self.hashed.clone();
        for (&row, name) in &names {
            table[row].raw_name = name.clone().into_bytes();
            table[row].name = name.clone();
        }
        // An entry without a name is left out of the index (an empty name
        // is never indexed), so the index's numbers are table rows.
        let index =
            NameIndex::new(table.iter().enumerate().map(
                |(row, item)| match names.contains_key(&row) {
                    true => item.raw_name.as_slice(),
                    false => &[][..],
                },
            ));
        Named {
            table,
            index,
            count: names.len(),
        }
    }

    fn named(&self) -> &Named {
        self.named.get_or_init(|| self.recover_names())
    }

    fn index_of_path(&self, path: &GamePath) -> Option<usize> {
        if let Some(named) = self.named.get() {
            if let Some(row) = named.index.find(path) {
                return Some(row);
            }
        }
        let text = path
            .parts()
            .iter()
            .map(|p| p.as_slice())
            .collect::<Vec<_>>()
            .join(&b'/');
        self.by_hash
            .get(&fnv1a(&text))
            .or_else(|| self.by_hash.get(&fnv1a(&text.to_ascii_lowercase())))
            .copied()
    }
}

impl DataSource for GrimrockDat {
    fn describe(&self) -> String {
        self.path().display().to_string()
    }

    fn find(&self, path: &GamePath) -> Option<Entry> {
        let i = self.index_of_path(path)?;
        let mut e = entries::entry(self.path(), &self.hashed, i);
        // Name the file as asked: the table has only its hash.
        e.location = entries::location(self.path(), &path.to_string());
        Some(e)
    }

    fn read(&self, entry: &Entry) -> Result<Vec<u8>> {
        let i = entry.key as usize;
        let text = entry.location.to_string_lossy();
        let prefix = format!("{}:/", self.path().display());
        let named = text
            .strip_prefix(&prefix)
            .and_then(|p| self.index_of_path(&GamePath::new(p)))
            == Some(i);
        if !named && entries::index_of(self.path(), &self.hashed, entry).is_err() {
            return Err(Error::io(
                &entry.location,
                std::io::Error::new(std::io::ErrorKind::NotFound, "not in this archive"),
            ));
        }
        self.extract(i)
    }

    fn list(&self, dir: &GamePath) -> Option<(PathBuf, Vec<Listed>)> {
        let named = self.named();
        let listed = named.index.list(dir, &named.table)?;
        Some((entries::location(self.path(), &dir.to_string()), listed))
    }

    fn listing_note(&self) -> Option<String> {
        let named = self.named();
        Some(format!(
            "{} keeps hashes of its names: it lists only the {} of its {} files its own scripts name",
            self.path().display(),
            named.count,
            self.hashed.len()
        ))
    }
}

impl Archive for GrimrockDat {
    fn format(&self) -> String {
        match self.version {
            DatVersion::Grar => "Grimrock .dat (GRAR)".into(),
            DatVersion::Gra2 => "Grimrock .dat (GRA2)".into(),
        }
    }

    /// Every entry, named where the archive's scripts name it, else by
    /// `#` and its hash.
    fn items(&self) -> &[Item] {
        &self.named().table
    }

    fn read_item(&self, index: usize) -> Result<Vec<u8>> {
        self.extract(index)
    }

    fn warnings(&self) -> Vec<String> {
        let mut w = self.warnings.clone();
        w.push(format!(
            "entry names are FNV-1a hashes: {} of the {} entries are named by the archive's own scripts; the rest are found only by the path asked for",
            self.named().count,
            self.hashed.len()
        ));
        w
    }
}

/// kiln's `.dat` writer: `(path, bytes, compress)` entries, hashed by
/// their path as given.
pub fn write_dat(version: DatVersion, entries: &[(&str, &[u8], bool)]) -> Vec<u8> {
    let row_size = if version == DatVersion::Grar { 16 } else { 20 };
    let mut out = Vec::new();
    out.extend_from_slice(match version {
        DatVersion::Grar => b"GRAR",
        DatVersion::Gra2 => b"GRA2",
    });
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    let bodies: Vec<Vec<u8>> = entries
        .iter()
        .map(|(_, data, compress)| {
            if *compress {
                let mut b = (data.len() as u32).to_le_bytes().to_vec();
                b.extend_from_slice(&super::zlib::deflate(data));
                b
            } else {
                data.to_vec()
            }
        })
        .collect();
    let mut offset = 8 + entries.len() * row_size;
    for ((path, data, compress), body) in entries.iter().zip(&bodies) {
        let fields = [
            fnv1a(path.as_bytes()),
            offset as u32,
            if *compress { body.len() as u32 } else { 0 },
            data.len() as u32,
        ];
        for f in fields {
            out.extend_from_slice(&f.to_le_bytes());
        }
        if version == DatVersion::Gra2 {
            out.extend_from_slice(&1u32.to_le_bytes());
        }
        offset += body.len();
    }
    for body in &bodies {
        out.extend_from_slice(body);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_known_values() {
        // The published FNV-1a test vectors.
        assert_eq!(fnv1a(b""), 0x811c_9dc5);
        assert_eq!(fnv1a(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a(b"foobar"), 0xbf9c_f968);
    }
}
