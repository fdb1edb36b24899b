use super::*;
use crate::error::ParseError;
use crate::formats::reader::Reader;
use std::path::Path;

/// Parses an `.animation` file held in memory; `file` names it in errors.
pub fn parse_animation(data: &[u8], file: &Path) -> Result<Animation, ParseError> {
    let r = Reader::new(data, file);
    Err(r.error("magic", "ANIM parsing is not implemented yet"))
}

/// Reads and parses an `.animation` file.
pub fn parse_animation_file(path: &Path) -> crate::Result<Animation> {
    let data = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    Ok(parse_animation(&data, path)?)
}
