//! Opening whatever a user gives as `data:` / `--data` — a folder, or a
//! file recognised by its content as a GRF, a PBO or a Grimrock `.dat`.
//!
//! An archive is opened once: its header and entry table are read, the
//! entries themselves only when asked for, each at its own offset, so a
//! multi-gigabyte `data.grf` costs its table and nothing more. Opening the
//! same archive again while it is open (several jobs of a bake naming the
//! same `data.grf`) hands back the same reader.

use super::disk::RandomAccess;
use super::entries::{Archive, ArchiveRef};
use super::{Folder, SourceRef};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

/// The kinds of archive kiln reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveKind {
    /// Ragnarok Online `.grf`.
    Grf,
    /// Arma `.pbo`.
    Pbo,
    /// Legend of Grimrock `.dat`.
    GrimrockDat,
}

/// The archive kind of a file, told by its first bytes (up to 1024 if the
/// file has them).
pub fn sniff(head: &[u8]) -> Option<ArchiveKind> {
    if head.starts_with(super::grf::MAGIC) {
        Some(ArchiveKind::Grf)
    } else if head.starts_with(b"GRAR") || head.starts_with(b"GRA2") {
        Some(ArchiveKind::GrimrockDat)
    } else if super::pbo::looks_like_pbo(head) {
        Some(ArchiveKind::Pbo)
    } else {
        None
    }
}

/// Opens the archive at `path`, recognised by its content.
pub fn open_archive(path: &Path) -> Result<ArchiveRef> {
    if let Some(open) = cached(path) {
        return Ok(open);
    }
    let file = RandomAccess::open(path)?;
    let head = file.read_at(0, file.len().min(1024), "header")?;
    let archive: ArchiveRef = match sniff(&head) {
        Some(ArchiveKind::Grf) => Arc::new(super::grf::Grf::open(file)?),
        Some(ArchiveKind::Pbo) => Arc::new(super::pbo::Pbo::open(file)?),
        Some(ArchiveKind::GrimrockDat) => Arc::new(super::grimrock_dat::GrimrockDat::open(file)?),
        None => {
            let first: String = head.iter().take(8).map(|b| format!("{b:02x}")).collect();
            return Err(Error::Parse(crate::error::ParseError {
                file: path.to_path_buf(),
                field: "magic".into(),
                offset: 0,
                message: format!(
                    "not an archive kiln reads (first bytes {first}); expected a GRF \
                     (\"Master of Magic\"), a PBO or a Grimrock .dat (GRAR/GRA2)"
                ),
            }));
        }
    };
    remember(path, &archive);
    Ok(archive)
}

/// A data source for `path`: the folder, or the archive the file holds. A
/// path that does not exist is a folder that holds nothing (a recipe may
/// name optional folders).
pub fn open_data(path: &Path) -> Result<SourceRef> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_dir() => {
            let archive = open_archive(path)?;
            Ok(archive as SourceRef)
        }
        _ => Ok(Arc::new(Folder::new(path.to_path_buf()))),
    }
}

type Key = (PathBuf, u64, Option<std::time::SystemTime>);

/// Archives open somewhere in the process, by canonical path, size and
/// modification time (a rewritten archive is opened afresh).
static OPEN: Mutex<Vec<(Key, Weak<dyn Archive>)>> = Mutex::new(Vec::new());

fn cache_key(path: &Path) -> Option<Key> {
    let canonical = std::fs::canonicalize(path).ok()?;
    let meta = std::fs::metadata(&canonical).ok()?;
    Some((canonical, meta.len(), meta.modified().ok()))
}

fn cached(path: &Path) -> Option<ArchiveRef> {
    let key = cache_key(path)?;
    let mut open = OPEN.lock().ok()?;
    open.retain(|(_, w)| w.strong_count() > 0);
    open.iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, w)| w.upgrade())
}

fn remember(path: &Path, archive: &ArchiveRef) {
    if let (Some(key), Ok(mut open)) = (cache_key(path), OPEN.lock()) {
        open.push((key, Arc::downgrade(archive)));
    }
}
