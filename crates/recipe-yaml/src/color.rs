//! Colours as users write them: `transparent`, `#rrggbb` or `#rrggbbaa`.
//!
//! Recipes and the command line read the same spellings; each words its own
//! message, since only a recipe needs the hint that YAML takes `#` for a
//! comment.

/// Why a colour could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorError {
    /// Neither `transparent` nor starting with `#`.
    NoHash,
    /// Not 6 or 8 characters after the `#`.
    Length,
    /// A character after the `#` that is not a hexadecimal digit.
    Digit,
}

/// Straight RGBA from `transparent` (all zero), `#rrggbb` (opaque) or
/// `#rrggbbaa`; letters in either case.
pub fn parse_color(s: &str) -> Result<[u8; 4], ColorError> {
    if s.eq_ignore_ascii_case("transparent") {
        return Ok([0, 0, 0, 0]);
    }
    let hex = s.strip_prefix('#').ok_or(ColorError::NoHash)?;
    if !(hex.len() == 6 || hex.len() == 8) {
        return Err(ColorError::Length);
    }
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ColorError::Digit);
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| ColorError::Digit);
    let a = if hex.len() == 8 { byte(6)? } else { 255 };
    Ok([byte(0)?, byte(2)?, byte(4)?, a])
}

#[cfg(test)]
mod tests {
    use super::{parse_color, ColorError};

    #[test]
    fn spellings_and_errors() {
        assert_eq!(parse_color("Transparent"), Ok([0, 0, 0, 0]));
        assert_eq!(parse_color("#FFa000"), Ok([255, 160, 0, 255]));
        assert_eq!(parse_color("#10203080"), Ok([0x10, 0x20, 0x30, 0x80]));
        assert_eq!(parse_color("red"), Err(ColorError::NoHash));
        assert_eq!(parse_color("#fff"), Err(ColorError::Length));
        assert_eq!(parse_color("#12345g"), Err(ColorError::Digit));
        // `from_str_radix` alone would take a sign.
        assert_eq!(parse_color("#+1+2+3"), Err(ColorError::Digit));
    }
}
