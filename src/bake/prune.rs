//! `prune`: after a job is baked, the files an earlier bake of it wrote
//! and this one did not — directions dropped from 8 to 4, a renamed clip,
//! a sheet that shrank from three pages to two — are handed to the sink
//! for removal.
//!
//! kiln keeps no record of earlier bakes, so "an earlier bake of the job"
//! is judged by name: a file in the job's output folder whose name one of
//! the job's outputs could give with other clips, directions, yaws, frames
//! or pages. A file some other job of the bake could also name is kept,
//! so jobs sharing a folder never prune each other.

use super::recipe::{page_path, Job, Matcher, MetaFormat};
use crate::paths::normalize;
use std::path::{Path, PathBuf};

/// How deep below the output folder files are looked for (templates may
/// hold folders, e.g. `frames/{clip}/{frame}.png`).
const MAX_DEPTH: usize = 6;

/// Every file name `job` could write, as patterns relative to its output
/// folder.
fn matchers(job: &Job) -> Vec<Matcher> {
    let o = &job.output;
    let mut out = Vec::new();
    for t in [&o.frames, &o.gif, &o.apng].into_iter().flatten() {
        out.push(t.matcher(&job.name));
    }
    let mut fixed = |path: &Path, suffix: &str, paged: bool| {
        let Some(rel) = relative(path, &o.dir) else {
            return;
        };
        out.push(Matcher::literal(&rel));
        if paged {
            // The page pattern is the name with a number where page_path
            // puts it.
            let marker = page_path(Path::new(&rel), 0, suffix)
                .to_string_lossy()
                .replace('\\', "/");
            if let Some(i) = marker.rfind("-0") {
                out.push(Matcher::numbered(&marker[..i + 1], &marker[i + 2..]));
            }
        }
    };
    if let Some(sheet) = &o.sheet {
        fixed(sheet, "", true);
        for (f, path) in &o.metadata {
            fixed(
                path,
                f.suffix(),
                f.per_page() || *f == MetaFormat::TexturePackerHash,
            );
        }
    }
    out
}

/// `path` relative to `dir`, with `/` separators, when it lies inside.
fn relative(path: &Path, dir: &Path) -> Option<String> {
    let rel = normalize(path)
        .strip_prefix(normalize(dir))
        .ok()?
        .to_path_buf();
    Some(rel.to_string_lossy().replace('\\', "/"))
}

/// The files under `job`'s output folder that it could have written, did
/// not write this time (`written`), and that no job of `others` could
/// write either; sorted.
pub fn stale_files(job: &Job, written: &[PathBuf], others: &[Job]) -> Vec<PathBuf> {
    let mine = matchers(job);
    let theirs: Vec<(&Job, Vec<Matcher>)> = others
        .iter()
        .filter(|o| o.name != job.name)
        .map(|o| (o, matchers(o)))
        .collect();
    let written: Vec<PathBuf> = written.iter().map(|p| normalize(p)).collect();
    let mut found = Vec::new();
    collect_files(&job.output.dir, 0, &mut found);
    found.sort();
    found
        .into_iter()
        .filter(|f| {
            let Some(rel) = relative(f, &job.output.dir) else {
                return false;
            };
            mine.iter().any(|m| m.matches(&rel))
                && !written.contains(&normalize(f))
                && !theirs.iter().any(|(o, ms)| {
                    relative(f, &o.output.dir).is_some_and(|r| ms.iter().any(|m| m.matches(&r)))
                })
        })
        .collect()
}

/// Regular files under `dir`, `depth` levels down so far; unreadable
/// folders are skipped, links are not followed.
fn collect_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_file() {
            out.push(e.path());
        } else if kind.is_dir() {
            collect_files(&e.path(), depth + 1, out);
        }
    }
}
