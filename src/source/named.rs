//! Files the user names: a path on disk, and the same name as written for
//! the data sources to answer when nothing is on disk there.

use std::path::{Path, PathBuf};

/// A file named by the user on the command line or in a recipe.
///
/// `disk` is the path on disk (a recipe's relative names already joined to
/// the recipe's folder); when no file is there, `written` — the name as the
/// user wrote it — is looked up in the data sources, so
/// `--data client data/model/x.rsm` (the model inside `client/`) and an
/// in-memory source can answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    /// The path on disk.
    pub disk: PathBuf,
    /// The name as written, for the data sources.
    pub written: String,
}

impl FileRef {
    /// A file named by `written`, relative to `base` on disk.
    pub fn relative_to(base: &Path, written: &str) -> FileRef {
        FileRef {
            disk: base.join(written),
            written: written.to_string(),
        }
    }
}

impl From<&Path> for FileRef {
    fn from(p: &Path) -> FileRef {
        FileRef {
            disk: p.to_path_buf(),
            written: p.to_string_lossy().into_owned(),
        }
    }
}

impl From<PathBuf> for FileRef {
    fn from(p: PathBuf) -> FileRef {
        FileRef::from(p.as_path())
    }
}

impl From<&PathBuf> for FileRef {
    fn from(p: &PathBuf) -> FileRef {
        FileRef::from(p.as_path())
    }
}

impl From<&str> for FileRef {
    fn from(p: &str) -> FileRef {
        FileRef::from(Path::new(p))
    }
}
