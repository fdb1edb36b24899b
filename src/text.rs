//! Names stored as raw bytes in game files. Ragnarok data uses CP949 (Korean
//! Windows code page) for file names; we keep the bytes and decode on demand.

/// Decodes game-file bytes (CP949 / EUC-KR superset; plain ASCII passes through).
pub fn decode_cp949(bytes: &[u8]) -> String {
    let (text, _, _) = encoding_rs::EUC_KR.decode(bytes);
    text.into_owned()
}

/// Bytes of a NUL-padded fixed-size field up to the first NUL.
pub fn until_nul(bytes: &[u8]) -> &[u8] {
    match bytes.iter().position(|&b| b == 0) {
        Some(n) => &bytes[..n],
        None => bytes,
    }
}
