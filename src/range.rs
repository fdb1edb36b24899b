//! The range checks behind every field validator (`ViewSpec::check_pitch`,
//! `Outline::check_width`, …), worded once: a recipe puts the key before
//! the message, the command line its flag, so both read the same.

use crate::error::ValueError;

fn refuse<T>(field: &'static str, message: String) -> Result<T, ValueError> {
    Err(ValueError { field, message })
}

/// `v`, refused when infinite or NaN.
pub(crate) fn finite(field: &'static str, v: f32) -> Result<f32, ValueError> {
    if v.is_finite() {
        Ok(v)
    } else {
        refuse(field, format!("must be a finite number, got {v}"))
    }
}

/// `v` in `[lo, hi]`.
pub(crate) fn closed(field: &'static str, v: f32, lo: f32, hi: f32) -> Result<f32, ValueError> {
    let v = finite(field, v)?;
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        refuse(field, format!("must be in [{lo}, {hi}], got {v}"))
    }
}

/// `v` in `(lo, hi]`.
pub(crate) fn above(field: &'static str, v: f32, lo: f32, hi: f32) -> Result<f32, ValueError> {
    let v = finite(field, v)?;
    if v > lo && v <= hi {
        Ok(v)
    } else {
        refuse(field, format!("must be in ({lo}, {hi}], got {v}"))
    }
}

/// A whole number in `lo..=hi`; `hi` fits a `u32`, so the value does.
pub(crate) fn whole(field: &'static str, v: i64, lo: u32, hi: u32) -> Result<u32, ValueError> {
    if (i64::from(lo)..=i64::from(hi)).contains(&v) {
        Ok(v as u32)
    } else {
        refuse(field, format!("must be in {lo}..={hi}, got {v}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_range_and_the_value() {
        let m = |r: Result<f32, ValueError>| r.unwrap_err().to_string();
        assert_eq!(
            m(finite("yaw", f32::NAN)),
            "yaw must be a finite number, got NaN"
        );
        assert_eq!(
            m(closed("rim", 1.5, 0.0, 1.0)),
            "rim must be in [0, 1], got 1.5"
        );
        assert_eq!(
            m(above("inner", 0.0, 0.0, 1.0)),
            "inner must be in (0, 1], got 0"
        );
        assert_eq!(
            whole("width", -1, 1, 8).unwrap_err().to_string(),
            "width must be in 1..=8, got -1"
        );
        assert_eq!(whole("width", 8, 1, 8), Ok(8));
        assert_eq!(closed("rim", 1.0, 0.0, 1.0), Ok(1.0));
        assert_eq!(above("inner", 1.0, 0.0, 1.0), Ok(1.0));
        assert!(whole("n", i64::MAX, 0, u32::MAX).is_err());
    }
}
