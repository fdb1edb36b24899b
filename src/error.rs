//! Errors shared by every part of kiln.
//!
//! Parse errors always carry the file, the field being read and the byte
//! offset, because a user holding a broken model needs all three to act.

use std::fmt;
use std::path::{Path, PathBuf};

/// kiln's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A malformed or unsupported input file.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// The file (or its location inside an archive or data source).
    pub file: PathBuf,
    /// The field being read, e.g. `node[3].vertices[17]`.
    pub field: String,
    /// Byte offset in the file where the field starts (or where reading failed).
    pub offset: u64,
    /// What was wrong there.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} at byte {} (0x{:x}): {}",
            self.file.display(),
            self.field,
            self.offset,
            self.offset,
            self.message
        )
    }
}

impl std::error::Error for ParseError {}

/// Everything that can go wrong in kiln, worded for the user.
#[derive(Debug)]
pub enum Error {
    /// A malformed or unsupported input file.
    Parse(ParseError),
    /// A file that could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A recipe or command-line value that cannot be used (exit code 2 from the CLI).
    Usage(String),
    /// Anything else, already worded for the user.
    Other(String),
}

impl Error {
    /// An I/O error on `path`.
    /// A [`ParseError`]: `file`, the `field` being read, the byte `offset`
    /// and what was wrong there.
    pub fn parse(
        file: &Path,
        field: impl Into<String>,
        offset: u64,
        message: impl Into<String>,
    ) -> Self {
        Error::Parse(ParseError {
            file: file.to_path_buf(),
            field: field.into(),
            offset,
            message: message.into(),
        })
    }

    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse(e) => e.fmt(f),
            Error::Io { path, source } => write!(f, "{}: {}", path.display(), source),
            Error::Usage(m) | Error::Other(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Parse(e) => Some(e),
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<ParseError> for Error {
    fn from(e: ParseError) -> Self {
        Error::Parse(e)
    }
}
