//! File-name templates: `{name}_{clip}_{dir}_{frame}.png` and the like,
//! parsed once and filled per file. Numbers may be zero-padded to a width,
//! `{frame:03}`, so file listings sort in frame order.

use super::directions::Direction;

/// A file-name pattern with `{name}`, `{clip}`, `{dir}`, `{yaw}`, `{frame}` holes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub(super) parts: Vec<Part>,
}

/// A piece of a template. Numbers carry their zero-padded width (0: as
/// many digits as they need).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Part {
    Text(String),
    Name,
    Clip,
    Dir(u8),
    Yaw(u8),
    Frame(u8),
}

/// Widest zero padding a number may ask for.
const MAX_WIDTH: u8 = 9;

impl Template {
    /// Parses `text`; `allowed` lists the placeholders this output may use.
    pub fn parse(text: &str, allowed: &[&str]) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut rest = text;
        while let Some(i) = rest.find(['{', '}']) {
            lit.push_str(&rest[..i]);
            if rest[i..].starts_with('}') {
                return Err(format!("unmatched `}}` in `{text}`"));
            }
            let close = rest[i..]
                .find('}')
                .ok_or_else(|| format!("unclosed `{{` in `{text}`"))?;
            let hole = &rest[i + 1..i + close];
            let (key, width) = match hole.split_once(':') {
                Some((k, w)) => (k, Some(w)),
                None => (hole, None),
            };
            let pad = match width {
                None => 0,
                Some(w) => {
                    if !matches!(key, "dir" | "yaw" | "frame") {
                        return Err(format!(
                            "`{{{hole}}}` in `{text}`: only `{{dir}}`, `{{yaw}}` and `{{frame}}` take a width"
                        ));
                    }
                    zero_pad(w).ok_or_else(|| {
                        format!(
                            "`{{{hole}}}` in `{text}`: write a zero-padded width as `{{{key}:03}}` (1 to {MAX_WIDTH} digits)"
                        )
                    })?
                }
            };
            let part = match key {
                "name" => Part::Name,
                "clip" => Part::Clip,
                "dir" => Part::Dir(pad),
                "yaw" => Part::Yaw(pad),
                "frame" => Part::Frame(pad),
                "stem" | "path" => {
                    return Err(format!(
                        "`{{{key}}}` in `{text}` names the file a glob `model` matched; this job's `model` is not a glob"
                    ))
                }
                _ => {
                    return Err(format!(
                        "unknown placeholder `{{{key}}}` in `{text}`, expected one of {}",
                        allowed
                            .iter()
                            .map(|a| format!("`{{{a}}}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }
            };
            if !allowed.contains(&key) {
                return Err(format!(
                    "placeholder `{{{key}}}` cannot be used in `{text}`, expected only {}",
                    allowed
                        .iter()
                        .map(|a| format!("`{{{a}}}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if !lit.is_empty() {
                parts.push(Part::Text(std::mem::take(&mut lit)));
            }
            parts.push(part);
            rest = &rest[i + close + 1..];
        }
        lit.push_str(rest);
        if !lit.is_empty() {
            parts.push(Part::Text(lit));
        }
        if parts.is_empty() {
            return Err("empty file name".into());
        }
        Ok(Template { parts })
    }

    /// Whether the template has a hole of `p`'s kind (whatever its width).
    pub(super) fn uses(&self, p: &Part) -> bool {
        self.parts
            .iter()
            .any(|q| std::mem::discriminant(q) == std::mem::discriminant(p))
    }

    /// A pattern matching every file name this template gives for any
    /// clip, direction and frame: the holes other than `{name}` become
    /// wildcards. Used to find files an earlier bake left behind.
    pub fn matcher(&self, name: &str) -> Matcher {
        let mut pieces = Vec::new();
        for p in &self.parts {
            pieces.push(match p {
                Part::Text(t) => Piece::Text(t.clone()),
                Part::Name => Piece::Text(name.to_string()),
                Part::Clip => Piece::Any,
                Part::Dir(_) | Part::Frame(_) => Piece::Digits,
                Part::Yaw(_) => Piece::Signed,
            });
        }
        Matcher { pieces }
    }

    /// Fills the holes; a hole whose value is not given is left as written,
    /// which is how two jobs' patterns are compared.
    pub fn render(
        &self,
        name: &str,
        clip: Option<&str>,
        dir: Option<&Direction>,
        frame: Option<usize>,
    ) -> String {
        let mut s = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => s.push_str(t),
                Part::Name => s.push_str(name),
                Part::Clip => s.push_str(clip.unwrap_or("{clip}")),
                Part::Dir(w) => match dir {
                    Some(d) => s.push_str(&padded(d.index as i64, *w)),
                    None => s.push_str("{dir}"),
                },
                Part::Yaw(w) => match dir {
                    Some(d) => s.push_str(&padded(d.yaw.round() as i64, *w)),
                    None => s.push_str("{yaw}"),
                },
                Part::Frame(w) => match frame {
                    Some(f) => s.push_str(&padded(f as i64, *w)),
                    None => s.push_str("{frame}"),
                },
            }
        }
        s
    }
}

/// `03` → 3: a zero-padded width as written after the colon.
fn zero_pad(w: &str) -> Option<u8> {
    let digits = w.strip_prefix('0')?;
    let n: u8 = digits.parse().ok()?;
    (digits.len() == 1 && (1..=MAX_WIDTH).contains(&n)).then_some(n)
}

pub(super) fn padded(v: i64, width: u8) -> String {
    format!("{v:0width$}", width = width as usize)
}

/// A file-name pattern from a [`Template`]: literal text, and holes that
/// match any clip name, digits or a signed whole number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matcher {
    pieces: Vec<Piece>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    /// A clip name: anything but a path separator, at least one character.
    Any,
    /// One or more ASCII digits.
    Digits,
    /// Digits with an optional leading `-`.
    Signed,
}

impl Matcher {
    /// A pattern matching exactly `path` (a relative path with `/`
    /// separators).
    pub fn literal(path: &str) -> Matcher {
        Matcher {
            pieces: vec![Piece::Text(path.to_string())],
        }
    }

    /// `prefix`, one or more digits, `suffix`: the pages of a sheet or of
    /// its metadata (`warrior-0.png`, `warrior-1.png`, …).
    pub fn numbered(prefix: &str, suffix: &str) -> Matcher {
        Matcher {
            pieces: vec![
                Piece::Text(prefix.to_string()),
                Piece::Digits,
                Piece::Text(suffix.to_string()),
            ],
        }
    }

    /// Whether `candidate` (a relative path with `/` separators) is a file
    /// name the template could have given.
    pub fn matches(&self, candidate: &str) -> bool {
        fn go(p: &[Piece], s: &str) -> bool {
            let Some((first, rest)) = p.split_first() else {
                return s.is_empty();
            };
            match first {
                Piece::Text(t) => s.strip_prefix(t.as_str()).is_some_and(|r| go(rest, r)),
                Piece::Any => {
                    // Within one folder name: up to the next separator,
                    // found once rather than per length tried.
                    let end = s.find('/').unwrap_or(s.len());
                    (1..=end)
                        .filter(|&i| s.is_char_boundary(i))
                        .any(|i| go(rest, &s[i..]))
                }
                Piece::Digits | Piece::Signed => {
                    let body = match (first, s.strip_prefix('-')) {
                        (Piece::Signed, Some(r)) => r,
                        _ => s,
                    };
                    let skip = s.len() - body.len();
                    let n = body.bytes().take_while(u8::is_ascii_digit).count();
                    (1..=n).any(|i| go(rest, &s[skip + i..]))
                }
            }
        }
        go(&self.pieces, candidate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &[&str] = &["name", "clip", "dir", "yaw", "frame"];

    #[test]
    fn numbers_take_a_zero_padded_width() {
        let t = Template::parse("{name}_{clip}_{dir:02}_{frame:03}.png", ALL).unwrap();
        let d = Direction {
            index: 4,
            yaw: -45.0,
        };
        assert_eq!(
            t.render("w", Some("walk"), Some(&d), Some(7)),
            "w_walk_04_007.png"
        );
        assert_eq!(
            t.render("w", Some("walk"), Some(&d), Some(1234)),
            "w_walk_04_1234.png"
        );
        let y = Template::parse("{yaw:04}", ALL).unwrap();
        assert_eq!(y.render("w", None, Some(&d), None), "-045");
        for bad in [
            "{frame:3}",
            "{frame:0}",
            "{frame:010}",
            "{frame:0x}",
            "{name:03}",
        ] {
            assert!(Template::parse(bad, ALL).is_err(), "{bad}");
        }
        assert_eq!(
            Template::parse("{clip:02}.png", ALL).unwrap_err(),
            "`{clip:02}` in `{clip:02}.png`: only `{dir}`, `{yaw}` and `{frame}` take a width"
        );
    }

    #[test]
    fn matchers_find_what_the_template_could_write() {
        let m = Template::parse("{name}_{clip}_{dir}.gif", ALL)
            .unwrap()
            .matcher("orc");
        assert!(m.matches("orc_walk_7.gif"));
        assert!(m.matches("orc_run_fast_12.gif"));
        assert!(!m.matches("orc_walk_.gif"));
        assert!(!m.matches("orc__3.gif"));
        assert!(!m.matches("orcs_walk_3.gif"));
        assert!(!m.matches("orc_walk_3.png"));
        assert!(!m.matches("sub/orc_walk_3.gif"));
        let y = Template::parse("f/{yaw}/{frame:03}.png", ALL)
            .unwrap()
            .matcher("orc");
        assert!(y.matches("f/-45/001.png"));
        assert!(y.matches("f/90/12.png"));
        assert!(!y.matches("f/x/12.png"));
    }
}
