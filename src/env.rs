//! kiln's environment variables, checked before any work starts: a value
//! kiln cannot use is an error naming the variable, never silently
//! ignored (a `KILN_SIMD=avx1024` that quietly ran the best level, or a
//! `KILN_MAX_INPUT=-1` that quietly kept the default, would hide the typo
//! from the person measuring with it).

use crate::error::{Error, Result};

/// The variables kiln reads, each with what it takes.
pub const VARIABLES: &[(&str, &str)] = &[
    (
        crate::source::disk::LIMIT_VARIABLE,
        "the largest input file read whole, in bytes with an optional K, M or G (`2G`)",
    ),
    (
        crate::raster::SIMD_VARIABLE,
        "the raster's instruction level: `portable`, `avx2` or `avx512`",
    ),
];

/// Checks every variable of [`VARIABLES`] that is set.
pub fn check() -> Result<()> {
    check_with(&|name| std::env::var_os(name))
}

/// [`check`] over the environment `var` gives.
pub fn check_with(var: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Result<()> {
    for (name, takes) in VARIABLES {
        let Some(raw) = var(name) else { continue };
        let value = raw.to_string_lossy();
        let ok = match *name {
            crate::source::disk::LIMIT_VARIABLE => {
                crate::source::disk::parse_bytes(&value).is_ok_and(|n| n > 0)
            }
            crate::raster::SIMD_VARIABLE => crate::raster::simd::Level::ALL
                .iter()
                .any(|l| l.name() == value),
            _ => true,
        };
        if !ok {
            return Err(Error::Usage(format!(
                "{name}={}: not a value kiln can use; {name} takes {takes}",
                value.escape_debug()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_kiln_cannot_use_name_their_variable() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        assert!(check_with(&env(&[])).is_ok());
        assert!(check_with(&env(&[("KILN_SIMD", "avx2"), ("KILN_MAX_INPUT", "2G")])).is_ok());
        let e = check_with(&env(&[("KILN_SIMD", "avx1024")])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "KILN_SIMD=avx1024: not a value kiln can use; KILN_SIMD takes the raster's instruction level: `portable`, `avx2` or `avx512`"
        );
        for bad in ["-1", "0", "lots", "12X", ""] {
            let pairs: &'static [(&'static str, &'static str)] =
                Box::leak(Box::new([("KILN_MAX_INPUT", bad)]));
            let e = check_with(&env(pairs)).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("KILN_MAX_INPUT={bad}: not a value")),
                "{e}"
            );
        }
    }
}
