//! Reading files from disk with the checks a user's input needs: only
//! regular files (a FIFO or a device named as a model would block or never
//! end), never more than a size limit (a mistyped `/dev/zero` or a 5 GB
//! file is refused before it is read), and archives read entry by entry at
//! their offsets, never whole.

use crate::error::{Error, Result};
use crate::memory::human_bytes;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest file kiln reads whole unless a format says otherwise: real
/// models, animations and maps are far below it (the biggest corpus file is
/// 1.3 MB; client maps stay under 30 MB).
pub const DEFAULT_INPUT_LIMIT: u64 = 256 << 20;

/// The environment variable that overrides every input size limit, in
/// bytes with an optional suffix as [`parse_bytes`] reads (`KILN_MAX_INPUT=2G`).
pub const LIMIT_VARIABLE: &str = "KILN_MAX_INPUT";

/// The limit for a kind of input: `default`, unless [`LIMIT_VARIABLE`] is
/// set to a size.
pub fn input_limit(default: u64) -> u64 {
    std::env::var(LIMIT_VARIABLE)
        .ok()
        .and_then(|v| parse_bytes(&v).ok())
        .unwrap_or(default)
}

/// A byte count with an optional binary suffix, as `--memory-limit` and
/// `KILN_MAX_INPUT` take it: `1048576`, `512K`, `64M`, `4G`, `1T` (also
/// `64MiB` or `64MB`, both meaning 64 × 2²⁰; any case). The error says
/// what is wrong with `s`.
pub fn parse_bytes(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{s}' is not a size such as 512M or 4G"))?;
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        other => {
            return Err(format!(
                "unknown unit '{other}' in '{s}' (use K, M, G or T)"
            ))
        }
    };
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("'{s}' is too large"))
}

fn refuse(path: &Path, message: String) -> Error {
    Error::io(path, std::io::Error::other(message))
}

/// The file's size, or an error when `path` is not a regular file.
pub fn regular_file_size(path: &Path) -> Result<u64> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_file() {
        return Ok(meta.len());
    }
    let what = if meta.is_dir() {
        "a folder"
    } else {
        kind_of_special(&meta)
    };
    Err(refuse(
        path,
        format!("{what}, not a regular file; kiln reads only regular files"),
    ))
}

#[cfg(unix)]
fn kind_of_special(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn kind_of_special(_: &std::fs::Metadata) -> &'static str {
    "a special file"
}

/// Reads a whole regular file of at most `limit` bytes.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let size = regular_file_size(path)?;
    check_limit(path, size, limit)?;
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut bytes = Vec::with_capacity(size as usize);
    // The size may change between the check and the read: never read more
    // than the limit whatever happens.
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    check_limit(path, bytes.len() as u64, limit)?;
    Ok(bytes)
}

/// An error when `size` exceeds `limit`.
pub fn check_limit(path: &Path, size: u64, limit: u64) -> Result<()> {
    if size > limit {
        return Err(refuse(
            path,
            format!(
                "{} ({size} bytes) is larger than the {} kiln reads for this kind of file; \
                 set {LIMIT_VARIABLE} (e.g. {LIMIT_VARIABLE}=2G) to raise the limit",
                human_bytes(size),
                human_bytes(limit)
            ),
        ));
    }
    Ok(())
}

/// An archive file kept open: any part read at its offset, from any
/// thread, without reading the rest.
#[derive(Debug)]
pub struct RandomAccess {
    path: PathBuf,
    len: u64,
    #[cfg(any(unix, windows))]
    file: File,
    #[cfg(not(any(unix, windows)))]
    file: std::sync::Mutex<File>,
}

impl RandomAccess {
    /// Opens a regular file.
    pub fn open(path: &Path) -> Result<RandomAccess> {
        let len = regular_file_size(path)?;
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(RandomAccess {
            path: path.to_path_buf(),
            len,
            #[cfg(any(unix, windows))]
            file,
            #[cfg(not(any(unix, windows)))]
            file: std::sync::Mutex::new(file),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's size when it was opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `len` bytes at `offset`; `what` names the part in errors. Ranges
    /// past the end of the file are refused before anything is allocated.
    pub fn read_at(&self, offset: u64, len: u64, what: &str) -> Result<Vec<u8>> {
        let end = offset.checked_add(len);
        if end.is_none_or(|e| e > self.len) {
            return Err(Error::Parse(crate::error::ParseError {
                file: self.path.clone(),
                field: what.to_string(),
                offset,
                message: format!(
                    "{len} bytes at byte {offset} run past the end of the {}-byte file",
                    self.len
                ),
            }));
        }
        let mut buf = vec![0u8; len as usize];
        self.fill(offset, &mut buf)
            .map_err(|e| Error::io(&self.path, e))?;
        Ok(buf)
    }

    #[cfg(unix)]
    fn fill(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        self.file.read_exact_at(buf, offset)
    }

    #[cfg(windows)]
    fn fill(&self, mut offset: u64, mut buf: &mut [u8]) -> std::io::Result<()> {
        use std::os::windows::fs::FileExt;
        while !buf.is_empty() {
            let n = self.file.seek_read(buf, offset)?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            offset += n as u64;
            buf = &mut buf[n..];
        }
        Ok(())
    }

    #[cfg(not(any(unix, windows)))]
    fn fill(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        use std::io::{Seek, SeekFrom};
        let mut f = self
            .file
            .lock()
            .map_err(|_| std::io::Error::other("archive handle poisoned"))?;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_bytes("123"), Ok(123));
        assert_eq!(parse_bytes("64k"), Ok(64 << 10));
        assert_eq!(parse_bytes(" 256M "), Ok(256 << 20));
        assert_eq!(parse_bytes("2G"), Ok(2 << 30));
        assert_eq!(parse_bytes("64MiB"), Ok(64 << 20));
        assert_eq!(parse_bytes("1 tb"), Ok(1 << 40));
        assert_eq!(
            parse_bytes("x"),
            Err("'x' is not a size such as 512M or 4G".into())
        );
        assert!(parse_bytes("").is_err());
        assert_eq!(
            parse_bytes("5Q"),
            Err("unknown unit 'Q' in '5Q' (use K, M, G or T)".into())
        );
        assert_eq!(
            parse_bytes("99999999999999G"),
            Err("'99999999999999G' is too large".into())
        );
    }

    #[test]
    fn folders_and_oversized_files_are_refused_and_ranges_checked() {
        let d = std::env::temp_dir().join(format!("kiln-disk-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let e = read_limited(&d, 10).unwrap_err();
        assert!(
            e.to_string().contains("a folder, not a regular file"),
            "{e}"
        );
        let f = d.join("f.bin");
        std::fs::write(&f, [1u8, 2, 3, 4, 5]).unwrap();
        assert_eq!(read_limited(&f, 5).unwrap(), [1, 2, 3, 4, 5]);
        let e = read_limited(&f, 4).unwrap_err();
        assert!(e.to_string().contains("larger than the 4 bytes"), "{e}");
        let r = RandomAccess::open(&f).unwrap();
        assert_eq!(r.read_at(1, 3, "x").unwrap(), [2, 3, 4]);
        let e = r.read_at(3, 3, "entry").unwrap_err();
        assert!(e.to_string().contains("entry at byte 3"), "{e}");
        assert!(r.read_at(u64::MAX, 2, "entry").is_err());
        let _ = std::fs::remove_dir_all(&d);
    }
}
