//! The one rule for every file kiln writes, restores or deletes on behalf
//! of a job, an extraction, a cache or `verify --update`: the file lies
//! inside that work's root folder, is reached without following a symbolic
//! link below the root, and has a name kiln may write.
//!
//! A [`Root`] is the folder a piece of work owns (a job's `output.dir`, an
//! extraction's `-o`, a cache folder, verify's references). The folders
//! above it are the user's and are followed as the operating system
//! resolves them; the root itself and everything below it must be real
//! folders. On Unix every folder below the root is opened one at a time
//! relative to the one above it (`openat` with `O_NOFOLLOW`), so a link
//! swapped in between the check and the write cannot redirect it; files
//! are created with `O_EXCL | O_NOFOLLOW` under a temporary name, flushed
//! and renamed into place within that folder. Elsewhere each folder is
//! checked with `symlink_metadata` before it is used (a check, then the
//! act: a link swapped in between is not caught there).
//!
//! Names are checked before anything is touched ([`check_name`]): relative,
//! no `..`, no empty or `.` part, no drive or stream (`:`), no control
//! character, no Windows device name (`CON`, `COM1`, `CONOUT$`, …, with
//! any extension), no part ending in a dot or a space (Windows drops
//! those, so two names would be one file), parts of at most 255 bytes, and
//! not a reserved name: the state file `.kiln-state` and kiln's temporary
//! files.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The file in every job's output folder that records what each job wrote
/// (see `bake::state`).
pub const STATE_FILE: &str = ".kiln-state";

/// The longest file name part most file systems take.
const MAX_PART: usize = 255;

/// Why `rel` (a `/`- or `\`-separated name relative to a root) may not be
/// written, or its parts.
pub fn check_name(rel: &str) -> std::result::Result<Vec<&str>, String> {
    if rel.is_empty() {
        return Err("the name is empty".into());
    }
    if rel.starts_with(['/', '\\']) {
        return Err("the name is absolute".into());
    }
    let parts: Vec<&str> = rel.split(['/', '\\']).collect();
    for p in &parts {
        check_part(p)?;
    }
    Ok(parts)
}

/// Why one part of a name may not be written.
pub fn check_part(p: &str) -> std::result::Result<(), String> {
    if p.is_empty() {
        return Err("the name has an empty part (`//`)".into());
    }
    if p == "." || p == ".." {
        return Err(format!("the name holds `{p}`"));
    }
    if let Some(c) = p.chars().find(|c| c.is_control()) {
        return Err(format!("the name holds the control character {c:?}"));
    }
    if p.contains(':') {
        return Err(format!("`{p}` holds `:` (a drive or a stream on Windows)"));
    }
    if p.ends_with(['.', ' ']) {
        return Err(format!(
            "`{p}` ends with a dot or a space (Windows drops them, making it another name)"
        ));
    }
    if p.len() > MAX_PART {
        return Err(format!(
            "a part of the name is {} bytes long (at most {MAX_PART})",
            p.len()
        ));
    }
    if is_device_name(p) {
        return Err(format!("`{p}` is a Windows device name"));
    }
    if is_reserved(p) {
        return Err(format!(
            "`{p}` is reserved for kiln's own files (its state or temporary files)"
        ));
    }
    Ok(())
}

/// Windows device names, which name a device in every folder whatever
/// their extension (`NUL.png` is `NUL`). Matched case-insensitively, with
/// the superscript digits Windows also takes, and with trailing spaces
/// before the extension ignored as Windows does.
pub fn is_device_name(part: &str) -> bool {
    let stem = part.split('.').next().unwrap_or(part).trim_end_matches(' ');
    let upper = stem.to_uppercase();
    match upper.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$" | "CLOCK$" => true,
        _ => {
            let numbered = |prefix: &str| {
                upper.strip_prefix(prefix).is_some_and(|d| {
                    matches!(
                        d,
                        "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "¹" | "²" | "³"
                    )
                })
            };
            numbered("COM") || numbered("LPT")
        }
    }
}

/// Whether a name part is one kiln keeps for itself: the state file or a
/// temporary file of kiln's naming ([`temp_name`]). Case-insensitive, as
/// file systems on Windows and macOS are.
pub fn is_reserved(part: &str) -> bool {
    part.eq_ignore_ascii_case(STATE_FILE) || temp_owner(part).is_some()
}

/// The temporary name a write of `name` uses before its rename: unique per
/// write (jobs side by side may store the same cached bytes at once) and
/// carrying the process id, so a later bake can tell the leftovers of a
/// killed one ([`temp_owner`]).
pub fn temp_name(name: &str) -> String {
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!(".{name}.kiln-{}-{n}.tmp", std::process::id())
}

/// The process id in a temporary name of [`temp_name`]'s shape
/// (`.NAME.kiln-PID-N.tmp`), if `part` is one.
pub fn temp_owner(part: &str) -> Option<u32> {
    let lower = part.to_ascii_lowercase();
    let rest = lower.strip_prefix('.')?.strip_suffix(".tmp")?;
    let at = rest.rfind(".kiln-")?;
    let (pid, n) = rest[at + ".kiln-".len()..].split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n))
        .then(|| pid.parse().ok())
        .flatten()
}

/// A folder kiln owns for one piece of work; every file below it is
/// written, read and removed by [`check_name`]'s names through the rule
/// above.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    dir: PathBuf,
}

impl Root {
    /// The root at `dir` (nothing is touched until a file is written).
    pub fn new(dir: impl Into<PathBuf>) -> Root {
        Root { dir: dir.into() }
    }

    /// The root folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where `rel` is on disk (for messages and reports).
    pub fn path_of(&self, rel: &str) -> PathBuf {
        let mut p = self.dir.clone();
        for part in rel.split(['/', '\\']) {
            p.push(part);
        }
        p
    }

    /// The name of `path` below the root (`/`-separated), when it lies
    /// lexically inside it; an error naming both otherwise.
    pub fn name_of(&self, path: &Path) -> Result<String> {
        let dir = crate::paths::normalize(&self.dir);
        let p = crate::paths::normalize(path);
        let outside = || {
            Error::Other(format!(
                "{}: outside the folder {} that this work writes into; not written",
                path.display(),
                self.dir.display()
            ))
        };
        let rest = if dir == Path::new(".") && p.is_relative() {
            p.as_path()
        } else {
            p.strip_prefix(&dir).map_err(|_| outside())?
        };
        let mut parts = Vec::new();
        for c in rest.components() {
            match c {
                std::path::Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
                _ => return Err(outside()),
            }
        }
        if parts.is_empty() {
            return Err(outside());
        }
        Ok(parts.join("/"))
    }

    fn refuse(&self, rel: &str, why: String) -> Error {
        Error::Other(format!(
            "{}: {why}; not written",
            self.path_of(rel).display()
        ))
    }

    /// Splits a checked name into its folders and its file name.
    fn split<'n>(&self, rel: &'n str, reserved_ok: bool) -> Result<(Vec<&'n str>, &'n str)> {
        let mut parts = if reserved_ok {
            // kiln's own files (the state) pass every check but the
            // reserved one.
            let parts: Vec<&str> = rel.split(['/', '\\']).collect();
            for p in &parts {
                if !is_reserved(p) {
                    check_part(p).map_err(|w| self.refuse(rel, w))?;
                }
            }
            parts
        } else {
            check_name(rel).map_err(|w| self.refuse(rel, w))?
        };
        let file = parts.pop().unwrap_or_default();
        Ok((parts, file))
    }

    /// Writes `bytes` as `rel` atomically: a temporary file beside it,
    /// flushed to the disc, then renamed into place. Missing folders are
    /// created; a symbolic link or a file where a folder should be is
    /// refused.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        let (folders, file) = self.split(rel, false)?;
        imp::write(self, rel, &folders, file, bytes)
    }

    /// Writes `bytes` under the temporary name of `rel`, not yet flushed
    /// nor renamed: for many files at once, which [`Staged::flush`] makes
    /// durable with one flush before each is renamed into place
    /// ([`Staged::commit`]). A crash leaves only temporary files, which a
    /// later write into the folder removes.
    pub(crate) fn stage(&self, rel: &str, bytes: &[u8]) -> Result<Staged> {
        let (folders, file) = self.split(rel, false)?;
        Ok(Staged {
            inner: Some(imp::stage(self, rel, &folders, file, bytes, false)?),
        })
    }

    /// Writes one of kiln's own reserved files (the state) in the root.
    pub(crate) fn write_reserved(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let (folders, file) = self.split(name, true)?;
        imp::write(self, name, &folders, file, bytes)
    }

    /// Reads one of kiln's own reserved files.
    pub(crate) fn read_reserved(&self, name: &str, limit: u64) -> Result<Contents> {
        let (folders, file) = self.split(name, true)?;
        imp::read(self, name, &folders, file, limit)
    }

    /// The bytes of `rel` if it holds at most `limit` of them. A symbolic
    /// link at the name or above it is an error, never followed.
    pub fn read(&self, rel: &str, limit: u64) -> Result<Contents> {
        let (folders, file) = self.split(rel, false)?;
        imp::read(self, rel, &folders, file, limit)
    }

    /// The length of the file `rel`, `None` when there is none (read by
    /// the same rule as [`Root::read`]).
    pub fn file_len(&self, rel: &str) -> Result<Option<u64>> {
        Ok(match self.read(rel, 0)? {
            Contents::Missing => None,
            Contents::Over(n) => Some(n),
            Contents::Bytes(b) => Some(b.len() as u64),
        })
    }

    /// Removes the file `rel` (a symbolic link there is removed, not what
    /// it points to). A file already gone is not an error.
    pub fn remove(&self, rel: &str) -> Result<()> {
        let (folders, file) = self.split(rel, false)?;
        imp::remove(self, rel, &folders, file)
    }
}

/// What [`Root::read`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contents {
    /// No file there (or a folder above it is missing).
    Missing,
    /// A file of this many bytes, more than the reader takes.
    Over(u64),
    /// The file's bytes.
    Bytes(Vec<u8>),
}

/// Whether [`Staged::flush`] of one staged file makes every file staged on
/// its file system durable (Linux's `syncfs`; elsewhere each file is
/// flushed on its own, or, on other Unixes, everything with `sync`).
pub(crate) const FLUSH_COVERS_ALL: bool = cfg!(unix);

/// A file written under its temporary name, renamed into place by
/// [`Staged::commit`] (after the file system was flushed) or removed when
/// dropped uncommitted.
#[derive(Debug)]
pub(crate) struct Staged {
    inner: Option<imp::StagedFile>,
}

impl Staged {
    /// Renames the file into place.
    pub(crate) fn commit(mut self) -> Result<()> {
        match self.inner.take() {
            Some(f) => f.commit(),
            None => Ok(()),
        }
    }

    /// Flushes the file system holding this file, making every file staged
    /// on it so far durable (one flush for a whole batch of files; where
    /// the platform cannot flush a file system, this file alone).
    pub(crate) fn flush(&self) -> Result<()> {
        match &self.inner {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(f) = self.inner.take() {
            f.discard();
        }
    }
}

/// Leftover temporary files of kiln's naming whose process is gone are
/// removed from each folder the first time this process writes into it:
/// a bake killed mid-write leaves them, and nothing else would.
fn is_stale_temp(name: &str) -> bool {
    temp_owner(name).is_some_and(|pid| pid != std::process::id() && !imp::process_alive(pid))
}

#[cfg(unix)]
mod imp {
    use super::{is_stale_temp, temp_name, Root};
    use crate::error::{Error, Result};
    use rustix::fs::{AtFlags, Mode, OFlags};
    use rustix::io::Errno;
    use std::collections::HashSet;
    use std::io::{Read, Write};
    use std::os::fd::{AsFd, OwnedFd};
    use std::sync::Mutex;

    fn io(root: &Root, rel: &str, e: Errno) -> Error {
        Error::io(&root.path_of(rel), std::io::Error::from(e))
    }

    /// Folders already cleared of stale temporary files, by device and
    /// inode.
    static CLEARED: Mutex<Option<HashSet<(u64, u64)>>> = Mutex::new(None);

    fn clear_stale(dir: &OwnedFd) {
        let Ok(st) = rustix::fs::fstat(dir) else {
            return;
        };
        // The fields' types differ between platforms.
        #[allow(clippy::unnecessary_cast)]
        let id = (st.st_dev as u64, st.st_ino as u64);
        {
            let mut seen = CLEARED.lock().unwrap_or_else(|e| e.into_inner());
            if !seen.get_or_insert_with(HashSet::new).insert(id) {
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
                "is a symbolic link; kiln does not write through links below the folder it owns"
                    .into()
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
        if create {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        match rustix::fs::open(dir, DIR_FLAGS, Mode::empty()) {
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
    fn open_folders(
        root: &Root,
        rel: &str,
        folders: &[&str],
        create: bool,
    ) -> Result<Option<OwnedFd>> {
        let Some(mut fd) = open_root(root, create)? else {
            return Ok(None);
        };
        if create {
            clear_stale(&fd);
        }
        let mut at = root.dir.clone();
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
                clear_stale(&fd);
            }
        }
        Ok(Some(fd))
    }

    /// A file written under its temporary name in `dir`.
    #[derive(Debug)]
    pub struct StagedFile {
        dir: OwnedFd,
        temp: String,
        file: String,
        path: std::path::PathBuf,
    }

    impl StagedFile {
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

    pub fn stage(
        root: &Root,
        rel: &str,
        folders: &[&str],
        file: &str,
        bytes: &[u8],
        sync: bool,
    ) -> Result<StagedFile> {
        let dir = open_folders(root, rel, folders, true)?
            .ok_or_else(|| Error::Other(format!("{}: folder missing", root.dir.display())))?;
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

    pub fn read(
        root: &Root,
        rel: &str,
        folders: &[&str],
        file: &str,
        limit: u64,
    ) -> Result<super::Contents> {
        let Some(dir) = open_folders(root, rel, folders, false)? else {
            return Ok(super::Contents::Missing);
        };
        let fd = match rustix::fs::openat(
            &dir,
            file,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::empty(),
        ) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(super::Contents::Missing),
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
        if st.st_size as u64 > limit {
            return Ok(super::Contents::Over(st.st_size as u64));
        }
        let mut bytes = Vec::with_capacity(st.st_size as usize);
        std::fs::File::from(fd)
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(&root.path_of(rel), e))?;
        if bytes.len() as u64 > limit {
            return Ok(super::Contents::Over(bytes.len() as u64));
        }
        Ok(super::Contents::Bytes(bytes))
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
}

#[cfg(not(unix))]
mod imp {
    use super::{is_stale_temp, temp_name, Root};
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
    fn folders_of(
        root: &Root,
        rel: &str,
        folders: &[&str],
        create: bool,
    ) -> Result<Option<PathBuf>> {
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

    pub fn read(
        root: &Root,
        rel: &str,
        folders: &[&str],
        file: &str,
        limit: u64,
    ) -> Result<super::Contents> {
        let Some(dir) = folders_of(root, rel, folders, false)? else {
            return Ok(super::Contents::Missing);
        };
        let path = dir.join(file);
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(super::Contents::Missing)
            }
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
            Ok(m) if m.len() > limit => return Ok(super::Contents::Over(m.len())),
            Ok(_) => {}
        }
        let mut bytes = Vec::new();
        std::fs::File::open(&path)
            .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
            .map_err(|e| Error::io(&path, e))?;
        if bytes.len() as u64 > limit {
            return Ok(super::Contents::Over(bytes.len() as u64));
        }
        Ok(super::Contents::Bytes(bytes))
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_outside_or_reserved_are_refused() {
        for bad in [
            "",
            "/etc/passwd",
            "\\x",
            "a/../b",
            "..",
            "a//b",
            "./a",
            "c:x",
            "a/NUL.png",
            "COM5",
            "lpt9.txt",
            "CONIN$",
            "conout$.log",
            "COM¹",
            "trail.",
            "trail /x",
            "a\nb",
            "a\u{0}b",
            ".kiln-state",
            "sub/.KILN-STATE",
            ".x.png.kiln-12-3.tmp",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?} accepted");
        }
        let long = "x".repeat(256);
        assert!(check_name(&long).is_err());
        for good in [
            "a.png",
            "frames/walk/0.png",
            "frames\\walk\\0.png",
            "com10.png",
            "console.png",
            ".hidden",
            "x.kiln-state",
            "..a",
        ] {
            assert!(check_name(good).is_ok(), "{good:?} refused");
        }
        assert_eq!(check_name("a\\b/c").unwrap(), ["a", "b", "c"]);
    }

    #[test]
    fn temporary_names_carry_their_process() {
        let t = temp_name("sheet.png");
        assert_eq!(temp_owner(&t), Some(std::process::id()));
        assert!(is_reserved(&t));
        assert_eq!(temp_owner(".a.kiln-77-0.tmp"), Some(77));
        assert_eq!(temp_owner(".a.kiln-x-0.tmp"), None);
        assert_eq!(temp_owner("a.kiln-77-0.tmp"), None);
        assert_eq!(temp_owner(".a.kiln-77-.tmp"), None);
    }

    #[test]
    fn name_of_keeps_to_the_root() {
        let r = Root::new("out/job");
        assert_eq!(r.name_of(Path::new("out/job/a/b.png")).unwrap(), "a/b.png");
        assert_eq!(r.name_of(Path::new("out/x/../job/c.png")).unwrap(), "c.png");
        assert!(r.name_of(Path::new("out/other/c.png")).is_err());
        assert!(r.name_of(Path::new("out/job")).is_err());
        assert!(r.name_of(Path::new("/abs/c.png")).is_err());
        let here = Root::new("");
        assert_eq!(here.name_of(Path::new("x/y.png")).unwrap(), "x/y.png");
        assert!(here.name_of(Path::new("../y.png")).is_err());
    }
}
