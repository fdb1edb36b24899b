//! `kiln extract`: writes an archive's entries out below a folder, keeping
//! their paths, refusing names that would land outside it.

use crate::error::{Error, Result};
use crate::source::archive::safe_relative;
use crate::source::GamePath;
use std::path::{Path, PathBuf};

/// What an extraction did.
#[derive(Debug, Default)]
pub struct ExtractReport {
    /// Files written, in the archive's order.
    pub written: Vec<PathBuf>,
    /// Entries left out, each with why (an unsafe name, an entry kiln
    /// cannot decode).
    pub skipped: Vec<(String, String)>,
}

/// Writes the entries of `archive` whose names match `pattern` (all when
/// `None`) below `out`. A pattern matches the whole name, `/` or `\`
/// between folders, in any ASCII case; `*` stands for any run of
/// characters within a folder name, `**` for any run across folders, `?`
/// for one character; a pattern without wildcards also matches every
/// entry below that folder.
pub fn extract(archive: &Path, pattern: Option<&str>, out: &Path) -> Result<ExtractReport> {
    let archive = crate::source::open_archive(archive)?;
    let mut report = ExtractReport::default();
    for (i, item) in archive.items().iter().enumerate() {
        if let Some(p) = pattern {
            if !matches(p, &item.name) {
                continue;
            }
        }
        if !safe_relative(&item.raw_name) {
            report.skipped.push((
                item.name.clone(),
                "unsafe name (absolute, `..`, a drive or a device): not written".into(),
            ));
            continue;
        }
        let bytes = match archive.read_item(i) {
            Ok(b) => b,
            Err(e) => {
                report.skipped.push((item.name.clone(), e.to_string()));
                continue;
            }
        };
        let mut path = out.to_path_buf();
        for part in GamePath::new(&item.raw_name).parts() {
            path.push(component(part));
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        crate::output::write_atomic(&path, &bytes)?;
        report.written.push(path);
    }
    Ok(report)
}

/// A stored name component as a file name: UTF-8 as is, CP949 decoded
/// (Korean names come out readable).
fn component(raw: &[u8]) -> String {
    match std::str::from_utf8(raw) {
        Ok(s) => s.to_string(),
        Err(_) => crate::text::decode_cp949(raw),
    }
}

/// Whether `name` matches `pattern` (see [`extract`]).
pub fn matches(pattern: &str, name: &str) -> bool {
    let norm = |s: &str| {
        s.replace('\\', "/")
            .trim_start_matches('/')
            .to_ascii_lowercase()
    };
    let (p, n) = (norm(pattern), norm(name));
    if !p.contains(['*', '?']) {
        let p = p.trim_end_matches('/');
        return n == p || n.starts_with(&format!("{p}/"));
    }
    glob(p.as_bytes(), n.as_bytes())
}

fn glob(p: &[u8], n: &[u8]) -> bool {
    match p {
        [] => n.is_empty(),
        [b'*', b'*', rest @ ..] => (0..=n.len()).any(|i| glob(rest, &n[i..])),
        [b'*', rest @ ..] => (0..=n.len())
            .take_while(|&i| i == 0 || n[i - 1] != b'/')
            .any(|i| glob(rest, &n[i..])),
        [b'?', rest @ ..] => !n.is_empty() && n[0] != b'/' && glob(rest, &n[1..]),
        [c, rest @ ..] => n.first() == Some(c) && glob(rest, &n[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_whole_names_in_any_case() {
        assert!(matches("data/texture/*.bmp", "DATA\\Texture\\a.BMP"));
        assert!(!matches("data/texture/*.bmp", "data/texture/sub/a.bmp"));
        assert!(matches("data/**.bmp", "data/texture/sub/a.bmp"));
        assert!(matches("data/texture", "data/texture/sub/a.bmp"));
        assert!(!matches("data/tex", "data/texture/a.bmp"));
        assert!(matches("*.tx?", "readme.txt"));
        assert!(!matches("*.tx?", "readme.tx"));
    }
}
