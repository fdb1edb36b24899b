use super::*;
use crate::error::ParseError;
use std::path::Path;

/// Parses an RSM/RSM2 file held in memory; `file` names it in errors.
pub fn parse(data: &[u8], file: &Path) -> Result<Rsm, ParseError> {
    let _ = (data, file);
    todo!("RSM parser")
}

/// Reads and parses an RSM/RSM2 file.
pub fn parse_file(path: &Path) -> crate::Result<Rsm> {
    let data = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    Ok(parse(&data, path)?)
}
