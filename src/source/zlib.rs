//! zlib streams in archives (GRF entries and tables, Grimrock `.dat`
//! bodies), through flate2's pure-Rust backend: inflated to exactly the
//! size the archive promises, never more.

use crate::error::{ParseError, Result};
use std::io::{Read, Write};
use std::path::Path;

/// Inflates the zlib stream `data` to exactly `expected` bytes. `field` and
/// `offset` name the stream in errors. The output grows as the stream
/// yields bytes, so a hostile `expected` allocates nothing up front.
pub fn inflate_exact(
    data: &[u8],
    expected: u64,
    file: &Path,
    field: &str,
    offset: u64,
) -> Result<Vec<u8>> {
    let error = |message: String| ParseError {
        file: file.to_path_buf(),
        field: field.to_string(),
        offset,
        message,
    };
    if !looks_like_zlib(data) {
        let head: String = data.iter().take(4).map(|b| format!("{b:02x}")).collect();
        let lzma = if data.first() == Some(&0x5d) {
            " (it looks LZMA-compressed, an extension of GRF Editor that kiln does not read)"
        } else {
            ""
        };
        return Err(error(format!("not a zlib stream (first bytes {head}){lzma}")).into());
    }
    let mut out = Vec::with_capacity(expected.min(1 << 20) as usize);
    flate2::read::ZlibDecoder::new(data)
        .take(expected.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| error(format!("zlib stream is corrupt: {e}")))?;
    if out.len() as u64 != expected {
        let got = if out.len() as u64 > expected {
            "more".to_string()
        } else {
            out.len().to_string()
        };
        return Err(error(format!(
            "zlib stream inflates to {got} bytes, the table says {expected}"
        ))
        .into());
    }
    Ok(out)
}

/// A zlib header: deflate method, a window of at most 32 KiB, a valid
/// check value.
pub fn looks_like_zlib(data: &[u8]) -> bool {
    match data {
        [cmf, flg, ..] => {
            cmf & 0x0f == 8 && cmf >> 4 <= 7 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0
        }
        _ => false,
    }
}

/// `data` as a zlib stream (kiln's archive writers).
pub fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing to a Vec cannot fail.
    let _ = e.write_all(data);
    e.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_inflate_to_exactly_the_promised_size() {
        let text = b"test test test test test test test".repeat(9);
        let z = deflate(&text);
        let p = Path::new("a.grf");
        assert_eq!(
            inflate_exact(&z, text.len() as u64, p, "f", 0).unwrap(),
            text
        );
        let short = inflate_exact(&z, text.len() as u64 + 1, p, "f", 9).unwrap_err();
        assert!(
            short
                .to_string()
                .contains("inflates to 306 bytes, the table says 307"),
            "{short}"
        );
        let long = inflate_exact(&z, 10, p, "f", 9).unwrap_err();
        assert!(
            long.to_string().contains("inflates to more bytes"),
            "{long}"
        );
        let e = inflate_exact(&z[..z.len() / 2], text.len() as u64, p, "entry", 46).unwrap_err();
        assert!(e.to_string().starts_with("a.grf: entry at byte 46"), "{e}");
        let lzma = inflate_exact(&[0x5d, 0, 0, 0x80, 0], 5, p, "entry", 0).unwrap_err();
        assert!(lzma.to_string().contains("LZMA"), "{lzma}");
        assert_eq!(inflate_exact(&deflate(b""), 0, p, "f", 0).unwrap(), b"");
    }
}
