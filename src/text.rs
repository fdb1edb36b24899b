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

/// `s` for a message: whole when short, else its start and end around an
/// ellipsis, so a name of a megabyte does not become a message of one.
pub fn shorten(s: &str) -> std::borrow::Cow<'_, str> {
    const HEAD: usize = 48;
    const TAIL: usize = 16;
    if s.chars().count() <= HEAD + TAIL + 1 {
        return s.into();
    }
    let head: String = s.chars().take(HEAD).collect();
    let tail: Vec<char> = s.chars().rev().take(TAIL).collect();
    let tail: String = tail.into_iter().rev().collect();
    format!("{head}…{tail} ({} bytes)", s.len()).into()
}
