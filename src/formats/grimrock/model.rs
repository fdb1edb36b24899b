use super::*;
use crate::error::ParseError;
use crate::formats::reader::Reader;
use std::path::Path;

/// Parses a `.model` file held in memory; `file` names it in errors.
pub fn parse_model(data: &[u8], file: &Path) -> Result<Model, ParseError> {
    let r = Reader::new(data, file);
    Err(r.error("magic", "MDL1 parsing is not implemented yet"))
}

/// Reads and parses a `.model` file.
pub fn parse_model_file(path: &Path) -> crate::Result<Model> {
    let data = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    Ok(parse_model(&data, path)?)
}
