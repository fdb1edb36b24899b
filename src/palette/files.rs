//! Palettes from files: GIMP `.gpl`, `.hex` (one `rrggbb` a line, as
//! Lospec publishes them) and PNG swatches (every distinct opaque colour,
//! in reading order). Each colour appears once, in the file's order.

use super::{Palette, MAX_COLORS};
use crate::error::{Error, Result};

impl Palette {
    /// Reads a palette file; the format follows its extension (`.gpl`,
    /// `.hex`, `.png`), `name` is used in messages.
    pub fn parse(name: &str, bytes: &[u8]) -> Result<Palette> {
        let ext = name
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        let colors = match ext.as_str() {
            "gpl" => parse_gpl(name, bytes)?,
            "hex" => parse_hex(name, bytes)?,
            "png" => parse_png(name, bytes)?,
            _ => {
                return Err(Error::Usage(format!(
                    "{name}: palette files are .gpl (GIMP), .hex or .png swatches"
                )))
            }
        };
        match Palette::new(&colors) {
            Some(p) => Ok(p),
            None if colors.is_empty() => Err(Error::Usage(format!(
                "{name}: the palette holds no colours"
            ))),
            None => Err(Error::Usage(format!(
                "{name}: the palette holds more than {MAX_COLORS} distinct colours"
            ))),
        }
    }
}

fn text<'a>(name: &str, bytes: &'a [u8]) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        Error::Usage(format!(
            "{name}: not UTF-8 text (byte offset {})",
            e.valid_up_to()
        ))
    })
}

/// GIMP's palette: a `GIMP Palette` line, optional `Name:`/`Columns:`
/// lines and `#` comments, then `R G B [name]` lines with values 0..=255.
fn parse_gpl(name: &str, bytes: &[u8]) -> Result<Vec<[u8; 3]>> {
    let t = text(name, bytes)?;
    let mut lines = t.lines().enumerate();
    match lines.next() {
        Some((_, l)) if l.trim_start_matches('\u{feff}').trim() == "GIMP Palette" => {}
        _ => {
            return Err(Error::Usage(format!(
                "{name}:1: a GIMP palette starts with the line `GIMP Palette`"
            )))
        }
    }
    let mut out = Vec::new();
    for (i, line) in lines {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') || l.starts_with("Name:") || l.starts_with("Columns:")
        {
            continue;
        }
        let mut parts = l.split_whitespace();
        let mut rgb = [0u8; 3];
        for (k, ch) in rgb.iter_mut().enumerate() {
            let v = parts.next().and_then(|p| p.parse::<u8>().ok());
            *ch = v.ok_or_else(|| {
                Error::Usage(format!(
                    "{name}:{}: expected `R G B [name]` with values 0..=255, got `{l}` (channel {})",
                    i + 1,
                    ["red", "green", "blue"][k]
                ))
            })?;
        }
        out.push(rgb);
    }
    Ok(out)
}

/// One `rrggbb` (optionally `#rrggbb`) a line; blank lines and `;`/`#`
/// comment lines skipped.
fn parse_hex(name: &str, bytes: &[u8]) -> Result<Vec<[u8; 3]>> {
    let t = text(name, bytes)?;
    let mut out = Vec::new();
    for (i, line) in t.lines().enumerate() {
        let l = line.trim().trim_start_matches('\u{feff}');
        if l.is_empty() || l.starts_with(';') || l.starts_with("//") {
            continue;
        }
        let h = l.strip_prefix('#').unwrap_or(l);
        let ok = h.len() == 6 && h.bytes().all(|b| b.is_ascii_hexdigit());
        if !ok {
            return Err(Error::Usage(format!(
                "{name}:{}: expected a colour as rrggbb, got `{l}`",
                i + 1
            )));
        }
        let v = u32::from_str_radix(h, 16).unwrap_or(0);
        out.push([(v >> 16) as u8, (v >> 8) as u8, v as u8]);
    }
    Ok(out)
}

/// Every distinct colour of the swatch's pixels with alpha ≥ 128, in
/// reading order.
fn parse_png(name: &str, bytes: &[u8]) -> Result<Vec<[u8; 3]>> {
    let img = image::load_from_memory_with_format(bytes, image::ImageFormat::Png)
        .map_err(|e| Error::Usage(format!("{name}: not a readable PNG: {e}")))?
        .to_rgba8();
    let mut out: Vec<[u8; 3]> = Vec::new();
    for p in img.pixels() {
        let c = [p[0], p[1], p[2]];
        if p[3] >= 128 && !out.contains(&c) {
            if out.len() > MAX_COLORS {
                break;
            }
            out.push(c);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::Palette;

    #[test]
    fn reads_gpl_and_hex() {
        let gpl =
            b"GIMP Palette\nName: two\nColumns: 2\n# c\n  0   0   0\tBlack\n255 128 7 Orange\n";
        let p = Palette::parse("a.gpl", gpl).unwrap();
        assert_eq!(p.colors(), &[[0, 0, 0], [255, 128, 7]]);
        let hex = b"000000\n#FF8007\n\nff8007\n";
        assert_eq!(Palette::parse("a.hex", hex).unwrap(), p);
        let bad = Palette::parse("a.gpl", b"GIMP Palette\n1 2\n").unwrap_err();
        assert!(bad.to_string().contains("a.gpl:2:"), "{bad}");
        let bad = Palette::parse("a.hex", b"00000g\n").unwrap_err();
        assert!(bad.to_string().contains("a.hex:1:"), "{bad}");
        assert!(Palette::parse("a.txt", b"").is_err());
        assert!(Palette::parse("a.hex", b"\n").is_err());
    }
}
