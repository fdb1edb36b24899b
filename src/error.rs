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
    /// The exit code a program reports this error with: 2 for a usage
    /// error (a recipe or a value that cannot be used), 1 for everything
    /// else (a file that cannot be read, parsed or written). The `kiln`
    /// command exits with it.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            _ => 1,
        }
    }

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

/// A value out of what kiln takes, with the field it was given for: the
/// one check a recipe key, a command-line flag and a library call share.
/// Each names the field its own way: a recipe as `` `look.outline.width` ``
/// at the value's line, the command line by its flag, [`Error::Usage`] as
/// `field message`.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueError {
    /// The field as a recipe's key names it: `pitch`, `look.outline.width`.
    pub field: &'static str,
    /// What is wrong with the value, e.g. `must be in 1..=8, got 9`.
    pub message: String,
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.field, self.message)
    }
}

impl std::error::Error for ValueError {}

impl From<ValueError> for Error {
    fn from(e: ValueError) -> Self {
        Error::Usage(e.to_string())
    }
}

impl From<ParseError> for Error {
    fn from(e: ParseError) -> Self {
        Error::Parse(e)
    }
}
