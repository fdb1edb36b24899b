//! `kiln extract`: writes an archive's entries out below a folder, keeping
//! their paths, by the write rule (`confined.rs`): nothing lands outside
//! the folder, no link below it is followed, no entry is lost.
//!
//! Names are mapped as the game reads them: case-insensitively. A folder
//! spelled two ways (`data\Texture`, `data\texture`) is one folder, the
//! first spelling kept; an entry whose name maps onto a file already
//! extracted — two raw names decoding alike, or differing only in case —
//! or onto a folder (or whose folder is a file) is written under the next
//! free name `STEM~2.EXT` (`~3`, …) with a warning naming both. Files are
//! written in batches: each batch's files go to temporary names, the file
//! system is flushed once, then each is renamed into place, so a crash
//! leaves whole files or temporary ones (removed by the next write into
//! that folder), and a large archive is not held up by one flush per file.

use crate::confined::{Root, Run, Staged, FLUSH_COVERS_ALL};
use crate::error::Result;
use crate::source::entries::safe_relative;
use crate::source::GamePath;
use std::collections::HashMap;
use std::path::PathBuf;

/// What an extraction did.
#[derive(Debug, Default)]
pub struct ExtractReport {
    /// Files written, in the archive's order.
    pub written: Vec<PathBuf>,
    /// Entries left out, each with why (an unsafe name, an entry kiln
    /// cannot decode, a file that could not be written).
    pub skipped: Vec<(String, String)>,
    /// Entries written under another name than their own, each with why.
    pub renamed: Vec<(String, String)>,
}

/// Files staged before the file system is flushed and they are renamed
/// into place; also bounded in bytes, and in folder handles held open
/// (staged files in a row into one folder share one), well under the
/// usual limit of 1024 open files.
const BATCH_FILES: usize = 2048;
const BATCH_BYTES: usize = 64 << 20;
const BATCH_FOLDERS: usize = 256;

/// Writes the entries of `archive` whose names match `pattern` (all when
/// `None`) below `out`. A pattern matches the whole name, `/` or `\`
/// between folders, in any ASCII case; `*` stands for any run of
/// characters within a folder name, `**` for any run across folders, `?`
/// for one character; a pattern without wildcards also matches every
/// entry below that folder. An entry that cannot be read or written is
/// reported in [`ExtractReport::skipped`] and the others are still
/// written.
pub fn extract(
    archive: &std::path::Path,
    pattern: Option<&str>,
    out: &std::path::Path,
) -> Result<ExtractReport> {
    let archive = crate::source::open_archive(archive)?;
    let root = Root::new(out);
    let mut report = ExtractReport::default();
    let mut names = Names::default();
    let mut batch = Batch::default();
    let mut run = Run::default();
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
        let parts: Vec<String> = GamePath::new(&item.raw_name)
            .parts()
            .iter()
            .map(|p| component(p))
            .collect();
        let (rel, clash) = names.place(&parts);
        match root.stage(&mut run, &rel, &bytes) {
            Ok(staged) => {
                if let Some(other) = clash {
                    report.renamed.push((
                        item.name.clone(),
                        format!("written as {rel}: its name is taken by {other}"),
                    ));
                }
                batch.add(staged, root.path_of(&rel), bytes.len());
            }
            Err(e) => {
                names.release(&rel);
                report.skipped.push((item.name.clone(), e.to_string()));
            }
        }
        if batch.full() {
            batch.commit(&mut report);
        }
    }
    batch.commit(&mut report);
    Ok(report)
}

/// Staged files waiting for one flush.
#[derive(Default)]
struct Batch {
    files: Vec<(Staged, PathBuf)>,
    bytes: usize,
    /// Folder handles held open (a new one each time the folder changes).
    folders: usize,
}

impl Batch {
    fn add(&mut self, staged: Staged, path: PathBuf, len: usize) {
        if self
            .files
            .last()
            .is_none_or(|(s, _)| s.folder() != staged.folder())
        {
            self.folders += 1;
        }
        self.files.push((staged, path));
        self.bytes += len;
    }

    fn full(&self) -> bool {
        self.files.len() >= BATCH_FILES
            || self.bytes >= BATCH_BYTES
            || self.folders >= BATCH_FOLDERS
    }

    /// Flushes, then renames each file into place; a file that fails is
    /// reported and its temporary file removed.
    fn commit(&mut self, report: &mut ExtractReport) {
        let files = std::mem::take(&mut self.files);
        self.bytes = 0;
        self.folders = 0;
        let mut flushed = false;
        for (staged, path) in files {
            let name = path.display().to_string();
            if !flushed || !FLUSH_COVERS_ALL {
                if let Err(e) = staged.flush() {
                    report.skipped.push((name, e.to_string()));
                    continue;
                }
                flushed = true;
            }
            match staged.commit() {
                Ok(()) => report.written.push(path),
                Err(e) => report.skipped.push((name, e.to_string())),
            }
        }
    }
}

/// Which names an extraction has used, keyed case-insensitively.
#[derive(Default)]
struct Names {
    /// Lower-cased path → the path as written, and whether it is a file.
    taken: HashMap<String, (String, bool)>,
}

impl Names {
    /// The path to write an entry with these name parts under, and the
    /// path of what it clashed with when it had to take another name.
    fn place(&mut self, parts: &[String]) -> (String, Option<String>) {
        let mut at = String::new();
        let mut clash = None;
        for (i, part) in parts.iter().enumerate() {
            let file = i + 1 == parts.len();
            let mut name = part.clone();
            let mut n = 1;
            loop {
                let path = join(&at, &name);
                let key = path.to_lowercase();
                match self.taken.get(&key) {
                    None => {
                        self.taken.insert(key, (path, file));
                        break;
                    }
                    // The folder is already there: take its spelling.
                    Some((spelled, false)) if !file => {
                        name = spelled.rsplit('/').next().unwrap_or(spelled).to_string();
                        break;
                    }
                    Some((spelled, _)) => {
                        clash.get_or_insert_with(|| spelled.clone());
                        n += 1;
                        name = numbered(part, n);
                    }
                }
            }
            at = join(&at, &name);
        }
        (at, clash)
    }

    /// Gives back a file name that could not be written.
    fn release(&mut self, path: &str) {
        self.taken.remove(&path.to_lowercase());
    }
}

fn join(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_string()
    } else {
        format!("{at}/{name}")
    }
}

/// `stem~n.ext` (`name~n` without an extension).
fn numbered(name: &str, n: usize) -> String {
    match name.rfind('.').filter(|&i| i > 0) {
        Some(i) => format!("{}~{n}{}", &name[..i], &name[i..]),
        None => format!("{name}~{n}"),
    }
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
    fn clashing_names_take_the_next_free_one() {
        let mut n = Names::default();
        let p = |n: &mut Names, s: &str| {
            let parts: Vec<String> = s.split('/').map(String::from).collect();
            n.place(&parts)
        };
        assert_eq!(
            p(&mut n, "data/Texture/a.bmp"),
            ("data/Texture/a.bmp".into(), None)
        );
        // One folder in two spellings; a name differing only in case.
        assert_eq!(
            p(&mut n, "data/texture/A.BMP"),
            (
                "data/Texture/A~2.BMP".into(),
                Some("data/Texture/a.bmp".into())
            )
        );
        assert_eq!(
            p(&mut n, "data/texture/b.bmp"),
            ("data/Texture/b.bmp".into(), None)
        );
        // A file where a folder goes, and a folder where a file goes.
        assert_eq!(p(&mut n, "x"), ("x".into(), None));
        assert_eq!(p(&mut n, "x/y"), ("x~2/y".into(), Some("x".into())));
        assert_eq!(p(&mut n, "data"), ("data~2".into(), Some("data".into())));
        // Released names are free again.
        n.release("data~2");
        assert_eq!(p(&mut n, "DATA"), ("DATA~2".into(), Some("data".into())));
        assert_eq!(numbered("noext", 3), "noext~3");
        assert_eq!(numbered(".hidden", 2), ".hidden~2");
    }

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
