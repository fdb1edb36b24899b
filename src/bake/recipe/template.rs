//! File-name templates: `{name}_{clip}_{dir}_{frame}.png` and the like,
//! parsed once and filled per file.

use super::directions::Direction;

/// A file-name pattern with `{name}`, `{clip}`, `{dir}`, `{yaw}`, `{frame}` holes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub(super) parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Part {
    Text(String),
    Name,
    Clip,
    Dir,
    Yaw,
    Frame,
}

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
            let key = &rest[i + 1..i + close];
            let part = match key {
                "name" => Part::Name,
                "clip" => Part::Clip,
                "dir" => Part::Dir,
                "yaw" => Part::Yaw,
                "frame" => Part::Frame,
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

    pub(super) fn uses(&self, p: &Part) -> bool {
        self.parts.contains(p)
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
                Part::Dir => match dir {
                    Some(d) => s.push_str(&d.index.to_string()),
                    None => s.push_str("{dir}"),
                },
                Part::Yaw => match dir {
                    Some(d) => s.push_str(&format!("{}", d.yaw.round() as i64)),
                    None => s.push_str("{yaw}"),
                },
                Part::Frame => match frame {
                    Some(f) => s.push_str(&f.to_string()),
                    None => s.push_str("{frame}"),
                },
            }
        }
        s
    }
}
