//! Loading any supported model file into a `scene::Model`, chosen by content.

use crate::error::{Error, ParseError, Result};
use crate::formats::rsm;
use crate::scene::{self, Model};
use crate::texture::TextureResolver;
use std::path::Path;

/// What a file is, judged by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Rsm,
}

pub fn sniff(data: &[u8], path: &Path) -> Result<FileKind> {
    if data.starts_with(b"GRSM") {
        return Ok(FileKind::Rsm);
    }
    let head: String = data.iter().take(8).map(|b| format!("{b:02x}")).collect();
    Err(Error::Parse(ParseError {
        file: path.to_path_buf(),
        field: "magic".into(),
        offset: 0,
        message: format!(
            "not a model kiln can read (first bytes {head}); expected GRSM (Ragnarok RSM/RSM2)"
        ),
    }))
}

pub fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(path, e))
}

/// Loads a model and its textures.
pub fn load_model(path: &Path, resolver: &TextureResolver) -> Result<Model> {
    let data = read(path)?;
    match sniff(&data, path)? {
        FileKind::Rsm => {
            let parsed = rsm::parse(&data, path)?;
            Ok(scene::lower_rsm::lower(&parsed, path, resolver))
        }
    }
}
