//! How flags' values are read: each parser turns the text into the
//! library's value and leaves the range to the library's own check.

use kiln::{ColorError, Error, ValueError};

/// A flag's number: finite, then whatever `check` (the library's check of
/// that field) takes. The message is the check's, without the field: clap
/// names the flag.
pub fn number(
    check: fn(f32) -> Result<f32, ValueError>,
) -> impl Fn(&str) -> Result<f32, String> + Clone + Send + Sync {
    move |s: &str| check(finite_number(s)?).map_err(|e| e.message)
}

fn finite_number(s: &str) -> Result<f32, String> {
    let v: f32 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number"))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("must be a finite number, got {s}"))
    }
}

/// A value a flag was given that the library's check refused, as a usage
/// error naming the flag.
pub fn flag_error(flag: &str, e: ValueError) -> Error {
    Error::Usage(format!("{flag} {}", e.message))
}

/// `--size WIDTHxHEIGHT`, each side in the renderer's range.
pub fn size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WIDTHxHEIGHT, got '{s}'"))?;
    let w: u32 = w
        .trim()
        .parse()
        .map_err(|_| format!("bad width in '{s}'"))?;
    let h: u32 = h
        .trim()
        .parse()
        .map_err(|_| format!("bad height in '{s}'"))?;
    kiln::ViewSpec::check_size(w.into(), h.into()).map_err(|e| e.to_string())
}

pub fn color(s: &str) -> Result<[u8; 4], String> {
    kiln::parse_color(s).map_err(|e| match e {
        ColorError::NoHash => format!("expected transparent, #rrggbb or #rrggbbaa, got '{s}'"),
        ColorError::Length => format!("expected #rrggbb or #rrggbbaa, got '{s}'"),
        ColorError::Digit => format!("bad colour '{s}'"),
    })
}

/// `--drop-shadow DX,DY`, each within the drop shadow's offset range.
pub fn offset(s: &str) -> Result<[i32; 2], String> {
    let v: Vec<i32> = s
        .split(',')
        .map(|p| p.trim().parse::<i32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("expected DX,DY in pixels, got '{s}'"))?;
    match v[..] {
        [x, y] => kiln::DropShadow::check_offset([x.into(), y.into()]).map_err(|_| {
            let m = kiln::limits::MAX_OFFSET;
            format!("offset '{s}' out of range -{m}..={m}")
        }),
        _ => Err(format!("expected two numbers DX,DY, got '{s}'")),
    }
}

/// `--region X0,Y0,X1,Y1`, a non-empty rectangle of tiles.
pub fn region(s: &str) -> Result<kiln::Region, String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("expected X0,Y0,X1,Y1 (tile numbers), got '{s}'"))?;
    match v[..] {
        [x0, y0, x1, y1] => {
            let region = kiln::Region { x0, y0, x1, y1 };
            // On a ground as large as can be, only an empty region is refused.
            match region.check(u32::MAX, u32::MAX) {
                Ok(()) => Ok(region),
                Err(_) => Err(format!(
                    "region '{s}' is empty: X0 < X1 and Y0 < Y1 are needed"
                )),
            }
        }
        _ => Err(format!("expected four numbers X0,Y0,X1,Y1, got '{s}'")),
    }
}
