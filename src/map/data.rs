//! Where a map's files come from: data folders in priority order, as a
//! client's own data overrides its GRF, then the folders around the map.

use crate::texture::{find_in_data_dir, lookup_data_file_raw, TextureResolver};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default)]
pub struct DataFolders {
    /// RO `data/` folders (or client folders holding one), first wins.
    pub dirs: Vec<PathBuf>,
}

impl DataFolders {
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        DataFolders { dirs }
    }

    /// Finds `raw` (as a map names it: CP949 bytes, backslashes, any case)
    /// of `kind` ("model", "texture", or "" for the data root): every data
    /// folder in order, then the `data` folders at or above `near` (the map's
    /// own folder).
    pub fn find(&self, kind: &str, raw: &[u8], near: &Path) -> Option<PathBuf> {
        // `.` or `..` carry no folder name: resolve them so that a map read
        // from inside its own `data/` still finds that folder.
        let resolved = std::fs::canonicalize(near).ok();
        let near = resolved.as_deref().unwrap_or(near);
        for dir in &self.dirs {
            if let Some(p) = find_in_data_dir(dir, kind, raw) {
                return Some(p);
            }
        }
        if kind.is_empty() {
            // A ground named by its map sits beside it.
            if let Some(p) = find_in_data_dir(near, "", raw) {
                return Some(p);
            }
        }
        lookup_data_file_raw(near, kind, raw)
    }

    /// The resolver used for the textures of the map's models.
    pub fn texture_resolver(&self) -> TextureResolver {
        TextureResolver::new(self.dirs.clone())
    }

    /// The folders searched, for messages.
    pub fn describe(&self, near: &Path) -> String {
        let mut all: Vec<String> = self.dirs.iter().map(|d| d.display().to_string()).collect();
        all.push(format!("data folders at or above {}", near.display()));
        all.join(", ")
    }
}
