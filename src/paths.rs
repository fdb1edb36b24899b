//! Paths compared or shown without touching the disk.

use std::path::{Component, Path, PathBuf};

/// `a/./b/../c` → `a/c`, lexically: drops `.`, folds `..` into the name
/// before it, and keeps a `..` that has no name to fold into (a leading one,
/// or one after the root). An empty result is `.`.
///
/// Two spellings of one output file compare equal after this (recipes use it
/// to find jobs and map views writing one file), and `recipes/../out/x`
/// prints as `out/x`. It does not follow symbolic links, so `link/..` folds
/// even where the file system would not; for telling outputs apart and for
/// messages that is the wanted answer.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            _ => out.push(c),
        }
    }
    if out.is_empty() {
        PathBuf::from(".")
    } else {
        out.iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::normalize;
    use std::path::{Path, PathBuf};

    #[test]
    fn folds_dots_lexically() {
        let n = |s: &str| normalize(Path::new(s));
        assert_eq!(n("a/./b/../c"), PathBuf::from("a/c"));
        assert_eq!(n("recipes/../out/x"), PathBuf::from("out/x"));
        assert_eq!(n("../a/../../b"), PathBuf::from("../../b"));
        assert_eq!(n("/.."), PathBuf::from("/.."));
        assert_eq!(n("a/.."), PathBuf::from("."));
        assert_eq!(n("./"), PathBuf::from("."));
    }
}
