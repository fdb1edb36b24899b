//! Static HTML pages (the gallery, the verify report): text escaped for
//! element content and attributes, and relative links that survive the
//! folder being moved or opened from `file://`.

use std::fmt::Write as _;
use std::path::{Component, Path};

/// `to` as seen from folder `from`, `/` between parts; both are made
/// absolute first, and a path on another drive stays absolute.
pub(crate) fn relative(from: &Path, to: &Path) -> String {
    let abs = |p: &Path| {
        crate::paths::normalize(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
    };
    let (f, t) = (abs(from), abs(to));
    let fc: Vec<Component> = f.components().collect();
    let tc: Vec<Component> = t.components().collect();
    let common = fc.iter().zip(&tc).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return t.to_string_lossy().replace('\\', "/");
    }
    let mut parts: Vec<String> = vec!["..".into(); fc.len() - common];
    parts.extend(
        tc[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// A relative link, its characters that mean something in a URL escaped.
pub(crate) fn url(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'.' | b'-' | b'_' | b'~' => {
                out.push(b as char)
            }
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// Text for HTML, element content or quoted attribute.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_relative_and_escaped() {
        assert_eq!(
            relative(Path::new("/a/b/gallery"), Path::new("/a/b/out/x y.png")),
            "../out/x y.png"
        );
        assert_eq!(url("../out/x y#1.png"), "../out/x%20y%231.png");
        assert_eq!(url("몬"), "%EB%AA%AC");
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
