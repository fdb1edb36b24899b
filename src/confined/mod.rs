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
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!(".{name}.kiln-{}-{n}.tmp", PID.get_or_init(std::process::id))
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
    pub(crate) fn stage(&self, run: &mut Run, rel: &str, bytes: &[u8]) -> Result<Staged> {
        let (folders, file) = self.split(rel, false)?;
        Ok(Staged {
            inner: Some(imp::stage_in(
                &mut run.folders,
                self,
                rel,
                &folders,
                file,
                bytes,
                false,
            )?),
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

    /// Makes the file `rel` modified now if it was last modified before
    /// `than` (the newest input of the job that wrote it), without
    /// touching its bytes: whether it did. Missing is not an error. Opened
    /// by the same rule as [`Root::read`].
    pub fn refresh(&self, rel: &str, than: std::time::SystemTime) -> Result<bool> {
        let (folders, file) = self.split(rel, false)?;
        imp::refresh(self, rel, &folders, file, than)
    }

    /// Removes the file `rel` (a symbolic link there is removed, not what
    /// it points to). A file already gone is not an error.
    pub fn remove(&self, rel: &str) -> Result<()> {
        let (folders, file) = self.split(rel, false)?;
        imp::remove(self, rel, &folders, file)
    }
}

/// A run of [`Root::stage`] calls that removes no folder meanwhile (an
/// extraction): it keeps the last folder open for the next file.
#[derive(Debug, Default)]
pub(crate) struct Run {
    folders: imp::Folders,
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

    /// Which open folder handle it holds (the same for files staged in a
    /// row into one folder).
    pub(crate) fn folder(&self) -> usize {
        self.inner.as_ref().map_or(0, |f| f.folder())
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
mod unix;
#[cfg(unix)]
use unix as imp;

// Built for the tests on Unix too, where they run it beside the `openat`
// scheme.
#[cfg(any(not(unix), test))]
mod portable;
#[cfg(not(unix))]
use portable as imp;

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

    type WriteFn = fn(&Root, &str, &[&str], &str, &[u8]) -> Result<()>;
    type ReadFn = fn(&Root, &str, &[&str], &str, u64) -> Result<Contents>;
    type RemoveFn = fn(&Root, &str, &[&str], &str) -> Result<()>;

    /// Both schemes write, read and remove alike, and refuse a link below
    /// the root alike.
    #[test]
    fn both_schemes_keep_to_the_root() {
        let base = std::env::temp_dir().join(format!("kiln-confined-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        for (i, scheme) in ["openat", "portable"].into_iter().enumerate() {
            let root = Root::new(base.join(scheme).join("out"));
            let (w, r, d): (WriteFn, ReadFn, RemoveFn) = if i == 0 {
                #[cfg(unix)]
                {
                    (unix::write, unix::read, unix::remove)
                }
                #[cfg(not(unix))]
                {
                    (portable::write, portable::read, portable::remove)
                }
            } else {
                (portable::write, portable::read, portable::remove)
            };
            w(&root, "a/b/c.txt", &["a", "b"], "c.txt", b"hello").unwrap();
            assert_eq!(
                r(&root, "a/b/c.txt", &["a", "b"], "c.txt", 5).unwrap(),
                Contents::Bytes(b"hello".to_vec())
            );
            assert_eq!(
                r(&root, "a/b/c.txt", &["a", "b"], "c.txt", 4).unwrap(),
                Contents::Over(5)
            );
            assert_eq!(
                r(&root, "a/x.txt", &["a"], "x.txt", 9).unwrap(),
                Contents::Missing
            );
            d(&root, "a/b/c.txt", &["a", "b"], "c.txt").unwrap();
            d(&root, "a/b/c.txt", &["a", "b"], "c.txt").unwrap();
            assert!(!root.dir().join("a/b/c.txt").exists());
            #[cfg(unix)]
            {
                let away = base.join(scheme).join("away");
                std::fs::create_dir_all(&away).unwrap();
                std::os::unix::fs::symlink(&away, root.dir().join("link")).unwrap();
                let e = w(&root, "link/x", &["link"], "x", b"no").unwrap_err();
                assert!(
                    e.to_string().contains("is a symbolic link"),
                    "{scheme}: {e}"
                );
                assert!(r(&root, "link/x", &["link"], "x", 9).is_err(), "{scheme}");
                assert!(
                    std::fs::read_dir(&away).unwrap().next().is_none(),
                    "{scheme}"
                );
            }
        }
        let _ = std::fs::remove_dir_all(&base);
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
