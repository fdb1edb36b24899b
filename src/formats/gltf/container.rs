//! The two forms a glTF file takes — JSON text, or a binary `.glb`
//! container holding the JSON and one binary chunk — and the places its
//! buffers and images live: the `.glb`'s chunk, `data:` URIs, or files
//! named relative to the glTF file, found through the data sources.

use super::doc::Document;
use crate::error::{Error, Result};
use crate::source::{GamePath, Lookup, Tree};
use std::path::Path;

/// The `.glb` magic.
pub(crate) const GLB_MAGIC: &[u8] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// A parsed glTF file: its document and, for a `.glb`, its binary chunk.
pub(crate) struct Container {
    pub doc: Document,
    /// The `.glb`'s BIN chunk (the buffer without a URI).
    pub bin: Option<Vec<u8>>,
    /// Where the JSON starts in the file (20 in a `.glb`), for offsets.
    pub json_at: u64,
    /// The JSON text itself, for `kiln inspect --json`'s raw fields.
    pub json: serde_json::Value,
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)
        .map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
}

/// Whether `head` starts a glTF file: the `.glb` magic with version 2, or
/// JSON text whose first object holds an `"asset"` (every glTF must).
pub(crate) fn sniff(head: &[u8]) -> bool {
    if head.starts_with(GLB_MAGIC) {
        return u32_at(head, 4) == Some(2);
    }
    let text = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let start = text.iter().position(|b| !b.is_ascii_whitespace());
    match start {
        Some(i) if text[i] == b'{' => {
            let window = &text[i..text.len().min(i + 4096)];
            window.windows(7).any(|w| w == b"\"asset\"")
        }
        _ => false,
    }
}

/// Parses a `.glb` or a `.gltf`'s bytes.
pub(crate) fn parse(bytes: &[u8], file: &Path) -> Result<Container> {
    if bytes.starts_with(GLB_MAGIC) {
        parse_glb(bytes, file)
    } else {
        let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        let skip = (bytes.len() - text.len()) as u64;
        let (doc, json) = parse_json(text, file, skip)?;
        Ok(Container {
            doc,
            bin: None,
            json_at: skip,
            json,
        })
    }
}

fn parse_glb(bytes: &[u8], file: &Path) -> Result<Container> {
    let err = |field: &str, at: usize, m: String| Error::parse(file, field, at as u64, m);
    let version = u32_at(bytes, 4).ok_or_else(|| err("header", 4, "truncated header".into()))?;
    if version != 2 {
        return Err(err(
            "header.version",
            4,
            format!("glTF binary version {version}; kiln reads version 2"),
        ));
    }
    let length = u32_at(bytes, 8).ok_or_else(|| err("header", 8, "truncated header".into()))?;
    if length as usize > bytes.len() {
        return Err(err(
            "header.length",
            8,
            format!("says {length} bytes but the file holds {}", bytes.len()),
        ));
    }
    let body = &bytes[..length as usize];
    let mut at = 12usize;
    let mut json: Option<(usize, usize)> = None;
    let mut bin: Option<Vec<u8>> = None;
    let mut index = 0;
    while at + 8 <= body.len() {
        let len = u32_at(body, at).unwrap_or(0) as usize;
        let kind = u32_at(body, at + 4).unwrap_or(0);
        let data = at + 8;
        if len > body.len() - data {
            return Err(err(
                &format!("chunk[{index}].length"),
                at,
                format!("says {len} bytes but {} remain", body.len() - data),
            ));
        }
        match kind {
            CHUNK_JSON if index == 0 => json = Some((data, len)),
            CHUNK_BIN if index == 1 => bin = Some(body[data..data + len].to_vec()),
            // Chunks of other types are to be ignored (the specification).
            _ if index == 0 => {
                return Err(err(
                    "chunk[0].type",
                    at + 4,
                    "the first chunk must be JSON".into(),
                ))
            }
            _ => {}
        }
        at = data + len;
        index += 1;
    }
    let Some((json_at, json_len)) = json else {
        return Err(err("chunk[0]", 12, "no JSON chunk".into()));
    };
    let (doc, value) = parse_json(&body[json_at..json_at + json_len], file, json_at as u64)?;
    Ok(Container {
        doc,
        bin,
        json_at: json_at as u64,
        json: value,
    })
}

fn parse_json(text: &[u8], file: &Path, at: u64) -> Result<(Document, serde_json::Value)> {
    let value: serde_json::Value =
        serde_json::from_slice(text).map_err(|e| json_error(text, file, at, &e, "json"))?;
    let doc: Document = serde_json::from_value(value.clone())
        .map_err(|e| Error::parse(file, "json", at, format!("not a glTF document: {e}")))?;
    if !doc.asset.version.starts_with("2.") {
        return Err(Error::parse(
            file,
            "asset.version",
            at,
            format!("glTF version {:?}; kiln reads glTF 2.0", doc.asset.version),
        ));
    }
    Ok((doc, value))
}

/// A JSON syntax error at its byte offset in the file.
fn json_error(text: &[u8], file: &Path, at: u64, e: &serde_json::Error, field: &str) -> Error {
    let (line, col) = (e.line(), e.column());
    let mut offset = 0usize;
    let mut l = 1;
    for (i, &b) in text.iter().enumerate() {
        if l == line {
            offset = i + col.saturating_sub(1);
            break;
        }
        if b == b'\n' {
            l += 1;
        }
    }
    Error::parse(
        file,
        field,
        at + offset as u64,
        format!("invalid JSON: {e}"),
    )
}

/// What a URI names: bytes held in it, or a file relative to the glTF.
pub(crate) enum Uri {
    /// A `data:` URI's bytes.
    Data(Vec<u8>),
    /// A relative path, percent-decoded.
    File(String),
}

/// Reads a `uri` as the specification allows: `data:` with base64 (or
/// percent-encoded) bytes, else a relative reference.
pub(crate) fn uri(uri: &str) -> std::result::Result<Uri, String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (meta, data) = rest
            .split_once(',')
            .ok_or_else(|| "a data URI without a comma".to_string())?;
        if meta.ends_with(";base64") {
            return base64(data).map(Uri::Data);
        }
        return Ok(Uri::Data(percent_decode(data).into_bytes()));
    }
    if uri.contains("://") {
        return Err(format!(
            "{uri:?} is not a relative path; kiln reads no network URIs"
        ));
    }
    Ok(Uri::File(percent_decode(uri)))
}

/// `%xx` escapes decoded (bytes that do not form UTF-8 are replaced).
pub(crate) fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Standard base64 (padding optional, whitespace skipped).
pub(crate) fn base64(s: &str) -> std::result::Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 3);
    let mut acc = 0u32;
    let mut bits = 0;
    for (i, c) in s.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            c if c.is_ascii_whitespace() => continue,
            _ => return Err(format!("base64 data has {:?} at character {i}", c as char)),
        };
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// Reads a file a glTF names by a relative `path`, through the lookup: the
/// glTF's own tree first, relative to the glTF's folder (`..` climbs
/// within the tree), then the caller's sources by the same path. Returns
/// the bytes and the name to give it in messages.
pub(crate) fn read_relative(
    lookup: &Lookup,
    tree: &Tree,
    path: &str,
) -> Option<(Vec<u8>, std::path::PathBuf)> {
    let mut parts: Vec<Vec<u8>> = tree.folder().parts().to_vec();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p.as_bytes().to_vec()),
        }
    }
    let wanted = GamePath::new(parts.join(&b'/'));
    let candidates = std::iter::once(tree.source.clone())
        .chain(lookup.sources().iter().cloned())
        .map(|s| (s, wanted.clone()));
    let found = lookup.first(candidates)?;
    let bytes = lookup.read(&found).ok()?;
    Some((bytes, found.entry.location.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_percent_decoding() {
        assert_eq!(base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64("aGVsbG8").unwrap(), b"hello");
        assert_eq!(base64("AAEC\n/w==").unwrap(), vec![0, 1, 2, 255]);
        assert!(base64("a*b").is_err());
        assert_eq!(percent_decode("my%20file%2Fx.bin"), "my file/x.bin");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%4"), "%4");
    }

    #[test]
    fn sniffs_glb_and_json_with_an_asset() {
        assert!(sniff(b"glTF\x02\0\0\0"));
        assert!(!sniff(b"glTF\x01\0\0\0"));
        assert!(sniff(b"  {\n \"asset\": {\"version\": \"2.0\"}}"));
        assert!(!sniff(b"{\"clips\": []}"));
    }
}
