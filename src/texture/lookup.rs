use std::path::{Path, PathBuf};

/// Finds texture files the way Ragnarok lays its data out.
#[derive(Debug, Clone, Default)]
pub struct TextureResolver {
    /// Extra folders searched after the model's own `data/texture/` (recipe
    /// `data:` entries, `--data DIR`), in priority order.
    pub search_dirs: Vec<PathBuf>,
}

impl TextureResolver {
    pub fn new(search_dirs: Vec<PathBuf>) -> Self {
        TextureResolver { search_dirs }
    }

    /// Resolves a texture name as stored in a model (raw bytes, CP949,
    /// backslashes, any case) for the model at `model_path`.
    pub fn resolve(&self, model_path: &Path, raw_name: &[u8]) -> Option<PathBuf> {
        let _ = (model_path, raw_name);
        todo!("texture lookup")
    }
}
