//! Recipe errors and where they point: [`RecipeError`] with its line,
//! column and the job (or map, or `defaults`) it lies in.
//!
//! A range check knows its own job; a serde error does not, so for those a
//! second, lenient parse of the same text finds where each job starts
//! ([`Regions`]) and the message still names the job.

use kiln_recipe_yaml::serde_saphyr::{self, Location, MessageFormatter};
use std::fmt;
use std::path::{Component, Path, PathBuf};

/// A recipe that cannot be used. `line`/`column` are 1-based; 0 when unknown
/// (e.g. the file cannot be read).
#[derive(Debug, Clone, PartialEq)]
pub struct RecipeError {
    /// The recipe file.
    pub file: PathBuf,
    /// 1-based line; 0 when unknown.
    pub line: u64,
    /// 1-based column; 0 when unknown.
    pub column: u64,
    /// `job 'name'`, `job #3` or `defaults`, when the error lies inside one.
    pub context: Option<String>,
    /// What is wrong, worded for the user.
    pub message: String,
}

impl fmt::Display for RecipeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        write!(f, ": ")?;
        if let Some(c) = &self.context {
            write!(f, "{c}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for RecipeError {}

impl From<RecipeError> for crate::Error {
    fn from(e: RecipeError) -> Self {
        crate::Error::Usage(e.to_string())
    }
}

impl RecipeError {
    /// An error about the whole file, with no position.
    pub(super) fn whole_file(file: &Path, message: impl Into<String>) -> RecipeError {
        RecipeError {
            file: file.to_path_buf(),
            line: 0,
            column: 0,
            context: None,
            message: message.into(),
        }
    }

    /// A serde error of the typed parse, worded in the recipe's terms and
    /// labelled with the job it lies in.
    pub(super) fn from_serde(e: &serde_saphyr::Error, text: &str, file: &Path) -> RecipeError {
        let inner = e.without_snippet();
        let (line, column) = inner
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((0, 0));
        let message = serde_saphyr::DefaultMessageFormatter
            .format_message(inner)
            .replace("unknown field", "unknown key")
            .replace("missing field", "missing key")
            .replace(", set DuplicateKeyPolicy in Options if acceptable", "");
        let message = super::mistakes::suggest_key(&message);
        let context = if line > 0 {
            Regions::find(text).label(line, column)
        } else {
            None
        };
        RecipeError {
            file: file.to_path_buf(),
            line,
            column,
            context,
            message,
        }
    }

    /// The offending source line with a caret under the column, for a
    /// terminal; empty when the position is unknown.
    pub fn snippet(&self, text: &str) -> String {
        if self.line == 0 {
            return String::new();
        }
        let Some(src) = text.lines().nth(self.line as usize - 1) else {
            return String::new();
        };
        let pad: String = src
            .chars()
            .take(self.column.saturating_sub(1) as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        format!("{:>5} | {src}\n      | {pad}^", self.line)
    }
}

/// What every resolver needs: the recipe's text and file, for messages, and
/// its folder, the base of every relative path in it — except the output
/// folders, which lie below `out` when the bake has an output root.
pub(super) struct Ctx<'a> {
    pub(super) text: &'a str,
    pub(super) file: &'a Path,
    pub(super) base: &'a Path,
    pub(super) out: Option<&'a Path>,
}

impl Ctx<'_> {
    /// The folder a job or map writes into, `written` as the recipe spells
    /// it (templates filled in): joined to the recipe's folder, or to the
    /// output root. Below a root it must stay inside it — neither absolute
    /// nor climbing out by `..` — so a build script writing into its
    /// `OUT_DIR` writes nothing elsewhere; the message says which.
    pub(super) fn output_folder(&self, written: &str) -> Result<PathBuf, String> {
        let Some(root) = self.out else {
            return Ok(self.base.join(written));
        };
        let absolute = || {
            format!(
                "`{written}` is absolute; below an output root (`--out-dir`, `BakeOptions::out_dir`) every folder is relative to it"
            )
        };
        let mut depth = 0usize;
        for c in Path::new(written).components() {
            match c {
                Component::Normal(_) => depth += 1,
                Component::CurDir => {}
                Component::ParentDir if depth > 0 => depth -= 1,
                Component::ParentDir => {
                    return Err(format!(
                        "`{written}` climbs out of the output root {} (`--out-dir`, `BakeOptions::out_dir`); name a folder below it",
                        root.display()
                    ))
                }
                Component::RootDir | Component::Prefix(_) => return Err(absolute()),
            }
        }
        Ok(root.join(written))
    }

    pub(super) fn err(
        &self,
        at: &Location,
        context: &str,
        message: impl Into<String>,
    ) -> RecipeError {
        RecipeError {
            file: self.file.to_path_buf(),
            line: at.line(),
            column: at.column(),
            context: Some(context.to_string()),
            message: message.into(),
        }
    }

    /// The source text of a scalar, or "" when the span is unknown.
    pub(super) fn source_of(&self, at: &Location) -> &str {
        let span = at.span();
        match (span.byte_offset(), span.byte_len()) {
            (Some(o), Some(l)) => self.text.get(o as usize..(o + l) as usize).unwrap_or(""),
            _ => "",
        }
    }
}

/// How messages name a job: `job 'walk'`, or `job #3` before it has a name.
pub(super) fn job_label(name: Option<&str>, index: usize) -> String {
    match name {
        Some(n) => format!("job '{}'", crate::text::shorten(n)),
        None => format!("job #{}", index + 1),
    }
}

/// Labels for one job's errors. A value taken from `defaults:` is reported
/// against the defaults block (its own position), labelled so the user knows
/// which job pulled it in.
#[derive(Clone, Copy)]
pub(super) struct JobLabel<'a>(pub(super) &'a str);

impl JobLabel<'_> {
    /// The label for a value the job set itself (`true`) or took from
    /// `defaults:` (`false`).
    pub(super) fn of(&self, from_job: bool) -> String {
        if from_job {
            self.0.to_string()
        } else {
            format!("defaults (used by {})", self.0)
        }
    }
}

/// Where each job (and the defaults) starts, to label a bare location.
struct Regions(Vec<(Location, String)>);

impl Regions {
    fn find(text: &str) -> Regions {
        let mut v = Vec::new();
        if let Some(s) = kiln_recipe_yaml::starts(text) {
            if let Some(d) = s.defaults {
                v.push((d, "defaults".to_string()));
            }
            for (i, (at, name)) in s.jobs.into_iter().enumerate() {
                v.push((at, job_label(name.as_deref(), i)));
            }
            for (i, (at, name)) in s.maps.into_iter().enumerate() {
                let label = match name {
                    Some(n) => format!("map '{n}'"),
                    None => format!("map #{}", i + 1),
                };
                v.push((at, label));
            }
        }
        v.sort_by_key(|(l, _)| (l.line(), l.column()));
        Regions(v)
    }

    fn label(&self, line: u64, column: u64) -> Option<String> {
        // The last region starting at or before the position; a position
        // left of the region's own column on a later line has left it (a
        // top-level key after the job list).
        let (start, label) = self
            .0
            .iter()
            .rev()
            .find(|(l, _)| (l.line(), l.column()) <= (line, column))?;
        if line > start.line() && column < start.column() {
            return None;
        }
        Some(label.clone())
    }
}
