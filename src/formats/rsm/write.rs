use super::*;

/// Serialises an `Rsm` in the layout of its `major.minor` version.
pub fn write(rsm: &Rsm) -> Vec<u8> {
    let _ = rsm;
    todo!("RSM writer")
}
