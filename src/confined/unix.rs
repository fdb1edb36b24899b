//! The write rule on Unix: every folder below the root opened relative to
//! the one above it (`openat` with `O_NOFOLLOW`), files created under a
//! temporary name with `O_EXCL | O_NOFOLLOW` and renamed within their
//! folder, so no link swapped in at any moment redirects a write.

use super::{is_stale_temp, temp_name, Contents, Root};
use crate::error::{Error, Result};
use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;
use std::collections::HashSet;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

fn io(root: &Root, rel: &str, e: Errno) -> Error {
    Error::io(&root.path_of(rel), std::io::Error::from(e))
}

/// Folders already cleared of stale temporary files in this process, by a
/// 128-bit hash of their path (a folder removed and made again since holds
/// none): a catalogue's thousands of folders cost 16 bytes each, not their
/// paths. Two paths meeting on one hash would leave the second uncleared
/// until the next run, nothing worse.
static CLEARED: Mutex<Option<HashSet<u128>>> = Mutex::new(None);

fn path_hash(at: &std::path::Path) -> u128 {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let half = |seed: u64| {
        let mut h = DefaultHasher::new();
        seed.hash(&mut h);
        at.hash(&mut h);
        h.finish() as u128
    };
    (half(0) << 64) | half(1)
}

fn clear_stale(dir: &OwnedFd, at: &std::path::Path) {
    {
        let mut seen = CLEARED.lock().unwrap_or_else(|e| e.into_inner());
        let seen = seen.get_or_insert_with(HashSet::new);
        if !seen.insert(path_hash(at)) {
            return;
        }
    }
    let Ok(list) = rustix::fs::Dir::read_from(dir) else {
        return;
    };
    for entry in list.flatten() {
        let name = entry.file_name().to_string_lossy();
        if is_stale_temp(&name) {
            let _ = rustix::fs::unlinkat(dir, entry.file_name(), AtFlags::empty());
        }
    }
}

pub fn process_alive(pid: u32) -> bool {
    let Some(p) = rustix::process::Pid::from_raw(pid as i32) else {
        return false;
    };
    // EPERM: it exists but belongs to someone else.
    !matches!(rustix::process::test_kill_process(p), Err(Errno::SRCH))
}

const DIR_FLAGS: OFlags = OFlags::DIRECTORY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC)
    .union(OFlags::RDONLY);

/// Why the entry `name` in `dir` cannot be a folder to go through.
fn not_a_folder(dir: &OwnedFd, name: &str) -> String {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) if rustix::fs::FileType::from_raw_mode(st.st_mode).is_symlink() => {
            "is a symbolic link; kiln does not write through links below the folder it owns".into()
        }
        _ => "is not a folder".into(),
    }
}

/// The root folder, created (with the folders above it) when `create`;
/// `None` when it is missing and not created.
fn open_root(root: &Root, create: bool) -> Result<Option<OwnedFd>> {
    let dir = if root.dir.as_os_str().is_empty() {
        std::path::Path::new(".")
    } else {
        root.dir.as_path()
    };
    let mut opened = rustix::fs::open(dir, DIR_FLAGS, Mode::empty());
    if create && matches!(opened, Err(Errno::NOENT)) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        opened = rustix::fs::open(dir, DIR_FLAGS, Mode::empty());
    }
    match opened {
        Ok(fd) => Ok(Some(fd)),
        Err(Errno::NOENT) if !create => Ok(None),
        Err(Errno::LOOP | Errno::NOTDIR) => Err(Error::Other(format!(
            "{}: {}",
            dir.display(),
            match std::fs::symlink_metadata(dir) {
                Ok(m) if m.file_type().is_symlink() =>
                    "the folder kiln writes into is a symbolic link; name the folder it points to instead",
                _ => "is not a folder",
            }
        ))),
        Err(e) => Err(Error::io(dir, e.into())),
    }
}

/// Opens `folders` below the root one at a time, never following a
/// link; creates missing ones when `create`. `None` when one is missing
/// and not created.
fn open_folders(root: &Root, rel: &str, folders: &[&str], create: bool) -> Result<Option<OwnedFd>> {
    let Some(mut fd) = open_root(root, create)? else {
        return Ok(None);
    };
    let mut at = root.dir.clone();
    if create {
        clear_stale(&fd, &at);
    }
    for part in folders {
        at.push(part);
        let next = match rustix::fs::openat(&fd, *part, DIR_FLAGS, Mode::empty()) {
            Ok(f) => f,
            Err(Errno::NOENT) if create => {
                match rustix::fs::mkdirat(&fd, *part, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(Error::io(&at, e.into())),
                }
                rustix::fs::openat(&fd, *part, DIR_FLAGS, Mode::empty()).map_err(|e| {
                    if matches!(e, Errno::LOOP | Errno::NOTDIR) {
                        Error::Other(format!("{}: {}", at.display(), not_a_folder(&fd, part)))
                    } else {
                        Error::io(&at, e.into())
                    }
                })?
            }
            Err(Errno::NOENT) => return Ok(None),
            Err(Errno::LOOP | Errno::NOTDIR) => {
                return Err(Error::Other(format!(
                    "{}: {}; {} not written",
                    at.display(),
                    not_a_folder(&fd, part),
                    root.path_of(rel).display()
                )))
            }
            Err(e) => return Err(Error::io(&at, e.into())),
        };
        fd = next;
        if create {
            clear_stale(&fd, &at);
        }
    }
    Ok(Some(fd))
}

/// A file written under its temporary name in `dir`.
#[derive(Debug)]
pub struct StagedFile {
    dir: Arc<OwnedFd>,
    temp: String,
    file: String,
    path: std::path::PathBuf,
}

impl StagedFile {
    /// Which open folder it is in (files staged in a run into one folder
    /// share it).
    pub fn folder(&self) -> usize {
        Arc::as_ptr(&self.dir) as usize
    }

    pub fn commit(self) -> Result<()> {
        let done = rustix::fs::renameat(&self.dir, &self.temp, &self.dir, &self.file);
        if let Err(e) = done {
            let _ = rustix::fs::unlinkat(&self.dir, &self.temp, AtFlags::empty());
            return Err(Error::io(&self.path, e.into()));
        }
        Ok(())
    }

    pub fn flush(&self) -> Result<()> {
        // One flush of the whole file system makes every file staged
        // on it durable; where there is none, `sync` does the same.
        #[cfg(any(target_os = "linux", target_os = "android"))]
        let flushed = rustix::fs::syncfs(&self.dir);
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let flushed = {
            rustix::fs::sync();
            Ok(())
        };
        flushed.map_err(|e| Error::io(&self.path, e.into()))
    }

    pub fn discard(self) {
        let _ = rustix::fs::unlinkat(&self.dir, &self.temp, AtFlags::empty());
    }
}

/// The folder of the last file a run of writes staged, kept open for the
/// next file into the same folder: an extraction writes folder by folder,
/// and walking from the root again for each file costs a system call a
/// level. Only for a run of writes that removes no folder.
#[derive(Debug, Default)]
pub struct Folders {
    last: Option<(PathBuf, Vec<String>, Arc<OwnedFd>)>,
}

impl Folders {
    fn open(&mut self, root: &Root, rel: &str, folders: &[&str]) -> Result<Arc<OwnedFd>> {
        if let Some((r, f, fd)) = &self.last {
            if *r == root.dir && f.iter().map(String::as_str).eq(folders.iter().copied()) {
                return Ok(Arc::clone(fd));
            }
        }
        let fd = Arc::new(
            open_folders(root, rel, folders, true)?
                .ok_or_else(|| Error::Other(format!("{}: folder missing", root.dir.display())))?,
        );
        self.last = Some((
            root.dir.clone(),
            folders.iter().map(|s| s.to_string()).collect(),
            Arc::clone(&fd),
        ));
        Ok(fd)
    }
}

pub fn stage(
    root: &Root,
    rel: &str,
    folders: &[&str],
    file: &str,
    bytes: &[u8],
    sync: bool,
) -> Result<StagedFile> {
    stage_in(
        &mut Folders::default(),
        root,
        rel,
        folders,
        file,
        bytes,
        sync,
    )
}

pub fn stage_in(
    open: &mut Folders,
    root: &Root,
    rel: &str,
    folders: &[&str],
    file: &str,
    bytes: &[u8],
    sync: bool,
) -> Result<StagedFile> {
    let dir = open.open(root, rel, folders)?;
    let temp = temp_name(file);
    let path = root.path_of(rel);
    let handle = rustix::fs::openat(
        &dir,
        temp.as_str(),
        OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    )
    .map_err(|e| io(root, rel, e))?;
    let staged = StagedFile {
        dir,
        temp,
        file: file.to_string(),
        path,
    };
    let mut f = std::fs::File::from(handle);
    let done = f
        .write_all(bytes)
        .and_then(|()| if sync { f.sync_all() } else { Ok(()) });
    if let Err(e) = done {
        let p = staged.path.clone();
        staged.discard();
        return Err(Error::io(&p, e));
    }
    Ok(staged)
}

pub fn write(root: &Root, rel: &str, folders: &[&str], file: &str, bytes: &[u8]) -> Result<()> {
    stage(root, rel, folders, file, bytes, true)?.commit()
}

/// The regular file `rel`, opened for reading without following a link at
/// any level, and its status; `None` when it is missing.
fn open_file(
    root: &Root,
    rel: &str,
    folders: &[&str],
    file: &str,
) -> Result<Option<(OwnedFd, rustix::fs::Stat)>> {
    let Some(dir) = open_folders(root, rel, folders, false)? else {
        return Ok(None);
    };
    let fd = match rustix::fs::openat(
        &dir,
        file,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(None),
        Err(Errno::LOOP) => {
            return Err(Error::Other(format!(
                "{}: is a symbolic link; kiln does not read through links below the folder it owns",
                root.path_of(rel).display()
            )))
        }
        Err(e) => return Err(io(root, rel, e)),
    };
    let st = rustix::fs::fstat(&fd).map_err(|e| io(root, rel, e))?;
    if !rustix::fs::FileType::from_raw_mode(st.st_mode).is_file() {
        return Err(Error::Other(format!(
            "{}: not a regular file",
            root.path_of(rel).display()
        )));
    }
    Ok(Some((fd, st)))
}

/// Sets the modification time of `rel` to now when it is older than
/// `than`, through the file itself (opened as [`read`] opens it); whether
/// it did. A missing file is left missing.
pub fn refresh(
    root: &Root,
    rel: &str,
    folders: &[&str],
    file: &str,
    than: SystemTime,
) -> Result<bool> {
    let Some((fd, _)) = open_file(root, rel, folders, file)? else {
        return Ok(false);
    };
    let f = std::fs::File::from(fd);
    let path = || root.path_of(rel);
    let modified = f
        .metadata()
        .and_then(|m| m.modified())
        .map_err(|e| Error::io(&path(), e))?;
    if modified >= than {
        return Ok(false);
    }
    f.set_modified(SystemTime::now())
        .map_err(|e| Error::io(&path(), e))?;
    Ok(true)
}

pub fn read(root: &Root, rel: &str, folders: &[&str], file: &str, limit: u64) -> Result<Contents> {
    let Some((fd, st)) = open_file(root, rel, folders, file)? else {
        return Ok(Contents::Missing);
    };
    if st.st_size as u64 > limit {
        return Ok(Contents::Over(st.st_size as u64));
    }
    let mut bytes = Vec::with_capacity(st.st_size as usize);
    std::fs::File::from(fd)
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(&root.path_of(rel), e))?;
    if bytes.len() as u64 > limit {
        return Ok(Contents::Over(bytes.len() as u64));
    }
    Ok(Contents::Bytes(bytes))
}

pub fn remove(root: &Root, rel: &str, folders: &[&str], file: &str) -> Result<()> {
    let Some(dir) = open_folders(root, rel, folders, false)? else {
        return Ok(());
    };
    match rustix::fs::unlinkat(dir.as_fd(), file, AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) => Ok(()),
        Err(e) => Err(io(root, rel, e)),
    }
}
