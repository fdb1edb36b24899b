//! Writing files so that a crash or a failed job never leaves a half-written
//! output: bytes go to a temporary file in the same folder, then a rename
//! (atomic on the same filesystem) puts them in place.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically, creating parent folders.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.kiln-{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    Ok(())
}

/// Encodes a straight-alpha RGBA image as PNG. Deterministic: fixed
/// compression settings, no timestamps or text chunks.
/// Fails only for images PNG cannot hold (zero width or height).
pub fn encode_png(img: &image::RgbaImage) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, img.width(), img.height());
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Balanced);
        let fail = |e: png::EncodingError| {
            Error::Other(format!(
                "PNG encoding of a {}x{} image: {e}",
                img.width(),
                img.height()
            ))
        };
        let mut w = enc.write_header().map_err(fail)?;
        w.write_image_data(img.as_raw()).map_err(fail)?;
    }
    Ok(out)
}

/// Writes `bytes` to `path` atomically (a temporary file beside it, then a
/// rename), creating folders: a failure never leaves a half-written file.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic(path, bytes)
}

/// Writes an RGBA image as a PNG file atomically.
pub fn write_png(path: &Path, img: &image::RgbaImage) -> Result<()> {
    write_atomic(path, &encode_png(img)?)
}
