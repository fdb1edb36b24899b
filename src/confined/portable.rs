//! The write rule where `openat` is not available: each folder from the
//! root down is checked with `symlink_metadata` before it is used (a check,
//! then the act), and leftover temporary files are judged by age.

// On Unix this file is built only for the tests that run it beside the
// `openat` scheme, which use part of it.
#![cfg_attr(unix, allow(dead_code))]

use super::{is_stale_temp, temp_name, Contents, Root};
use crate::error::{Error, Result};
use std::collections::HashSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Without a way to ask whether a process lives, a temporary file is
/// taken as left over once it is a day old.
pub fn process_alive(_pid: u32) -> bool {
    true
}

static CLEARED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

fn clear_stale(dir: &Path) {
    {
        let mut seen = CLEARED.lock().unwrap_or_else(|e| e.into_inner());
        if !seen
            .get_or_insert_with(HashSet::new)
            .insert(dir.to_path_buf())
        {
            return;
        }
    }
    let Ok(list) = std::fs::read_dir(dir) else {
        return;
    };
    let day = std::time::Duration::from_secs(24 * 3600);
    for entry in list.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > day);
        if super::temp_owner(&name).is_some() && (old || is_stale_temp(&name)) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Checks (and creates) the root and `folders` below it, refusing a
/// link anywhere from the root down.
fn folders_of(root: &Root, rel: &str, folders: &[&str], create: bool) -> Result<Option<PathBuf>> {
    let mut at = if root.dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        root.dir.clone()
    };
    if create {
        std::fs::create_dir_all(&at).map_err(|e| Error::io(&at, e))?;
    }
    let check = |at: &Path| -> Result<bool> {
        match std::fs::symlink_metadata(at) {
            Ok(m) if m.file_type().is_symlink() => Err(Error::Other(format!(
                "{}: is a symbolic link; kiln does not write through links below the folder it owns; {} not written",
                at.display(),
                root.path_of(rel).display()
            ))),
            Ok(m) if !m.is_dir() => Err(Error::Other(format!("{}: is not a folder", at.display()))),
            Ok(_) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(Error::io(at, e)),
        }
    };
    if !check(&at)? {
        return Ok(None);
    }
    if create {
        clear_stale(&at);
    }
    for part in folders {
        at.push(part);
        if !check(&at)? {
            if !create {
                return Ok(None);
            }
            std::fs::create_dir(&at).map_err(|e| Error::io(&at, e))?;
            check(&at)?;
        }
        if create {
            clear_stale(&at);
        }
    }
    Ok(Some(at))
}

#[derive(Debug)]
pub struct StagedFile {
    temp: PathBuf,
    path: PathBuf,
}

impl StagedFile {
    /// Nothing is held open here.
    pub fn folder(&self) -> usize {
        0
    }

    pub fn commit(self) -> Result<()> {
        std::fs::rename(&self.temp, &self.path).map_err(|e| {
            let _ = std::fs::remove_file(&self.temp);
            Error::io(&self.path, e)
        })
    }

    pub fn flush(&self) -> Result<()> {
        std::fs::OpenOptions::new()
            .write(true)
            .open(&self.temp)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(&self.path, e))
    }

    pub fn discard(self) {
        let _ = std::fs::remove_file(&self.temp);
    }
}

/// Nothing kept between writes here: each folder is checked every time.
#[derive(Debug, Default)]
pub struct Folders;

pub fn stage_in(
    _open: &mut Folders,
    root: &Root,
    rel: &str,
    folders: &[&str],
    file: &str,
    bytes: &[u8],
    sync: bool,
) -> Result<StagedFile> {
    stage(root, rel, folders, file, bytes, sync)
}

pub fn stage(
    root: &Root,
    rel: &str,
    folders: &[&str],
    file: &str,
    bytes: &[u8],
    sync: bool,
) -> Result<StagedFile> {
    let dir = folders_of(root, rel, folders, true)?
        .ok_or_else(|| Error::Other(format!("{}: folder missing", root.dir.display())))?;
    let path = dir.join(file);
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
        return Err(Error::Other(format!("{}: is a folder", path.display())));
    }
    let temp = dir.join(temp_name(file));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut f| {
            f.write_all(bytes)?;
            if sync {
                f.sync_all()?;
            }
            Ok(())
        });
    let staged = StagedFile { temp, path };
    if let Err(e) = written {
        let p = staged.path.clone();
        staged.discard();
        return Err(Error::io(&p, e));
    }
    Ok(staged)
}

pub fn write(root: &Root, rel: &str, folders: &[&str], file: &str, bytes: &[u8]) -> Result<()> {
    stage(root, rel, folders, file, bytes, true)?.commit()
}

pub fn read(root: &Root, rel: &str, folders: &[&str], file: &str, limit: u64) -> Result<Contents> {
    let Some(dir) = folders_of(root, rel, folders, false)? else {
        return Ok(Contents::Missing);
    };
    let path = dir.join(file);
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Contents::Missing),
        Err(e) => return Err(Error::io(&path, e)),
        Ok(m) if m.file_type().is_symlink() => {
            return Err(Error::Other(format!(
                "{}: is a symbolic link; kiln does not read through links below the folder it owns",
                path.display()
            )))
        }
        Ok(m) if !m.is_file() => {
            return Err(Error::Other(format!(
                "{}: not a regular file",
                path.display()
            )))
        }
        Ok(m) if m.len() > limit => return Ok(Contents::Over(m.len())),
        Ok(_) => {}
    }
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
        .map_err(|e| Error::io(&path, e))?;
    if bytes.len() as u64 > limit {
        return Ok(Contents::Over(bytes.len() as u64));
    }
    Ok(Contents::Bytes(bytes))
}

/// Sets the modification time of `rel` to now when it is older than
/// `than`; whether it did. A missing file is left missing, a link refused.
pub fn refresh(
    root: &Root,
    rel: &str,
    folders: &[&str],
    file: &str,
    than: std::time::SystemTime,
) -> Result<bool> {
    let Some(dir) = folders_of(root, rel, folders, false)? else {
        return Ok(false);
    };
    let path = dir.join(file);
    let modified = match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(Error::io(&path, e)),
        Ok(m) if m.file_type().is_symlink() => {
            return Err(Error::Other(format!(
            "{}: is a symbolic link; kiln does not write through links below the folder it owns",
            path.display()
        )))
        }
        Ok(m) if !m.is_file() => {
            return Err(Error::Other(format!(
                "{}: not a regular file",
                path.display()
            )))
        }
        Ok(m) => m.modified().map_err(|e| Error::io(&path, e))?,
    };
    if modified >= than {
        return Ok(false);
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_modified(std::time::SystemTime::now()))
        .map_err(|e| Error::io(&path, e))?;
    Ok(true)
}

pub fn remove(root: &Root, rel: &str, folders: &[&str], file: &str) -> Result<()> {
    let Some(dir) = folders_of(root, rel, folders, false)? else {
        return Ok(());
    };
    let path = dir.join(file);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(&path, e)),
    }
}
