//! Incremental bakes by content. A job's key is the SHA-256 of kiln's
//! version, the job as resolved (without its position in the recipe) and
//! the digest of every file planning read (model, textures, Lua files,
//! animations, `model.cfg`, a map's ground and models). A small file beside
//! the outputs, `.kiln-state`, keeps each job's key and the digest of every
//! file it wrote; a job whose key matches and whose files are all there
//! with those digests is skipped without touching them. With a cache folder
//! the written files are also kept by content (`blobs/<sha256>`) under the
//! key (`keys/<key>.json`), so any machine sharing the folder restores them
//! instead of baking.

use super::sink::Sink;
use crate::error::{Error, Result};
use crate::output::write_atomic;
use crate::source::digest;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The state file in every output folder kiln bakes into.
pub const STATE_FILE: &str = ".kiln-state";

/// Bumped when the state file's shape or the key's recipe changes.
const STATE_VERSION: u32 = 1;

/// `path` as seen from the recipe's folder `base`, so two checkouts of one
/// tree in different places give the same key: a path under `base` loses
/// it, and both are made absolute first so `recipes/x.rsm` and
/// `/home/me/game/recipes/x.rsm` agree. A path elsewhere stays absolute.
pub fn from_recipe(base: &Path, path: &Path) -> PathBuf {
    let (Ok(b), Ok(p)) = (std::path::absolute(base), std::path::absolute(path)) else {
        return path.to_path_buf();
    };
    match p.strip_prefix(&b) {
        Ok(rest) => Path::new("<recipe>").join(rest),
        Err(_) => p,
    }
}

/// A job's description with the recipe folder's spelling replaced, so the
/// same recipe in another checkout, or named from another working
/// directory, describes the same job. Paths in a resolved job are the
/// recipe folder joined with what the recipe wrote (never normalised), so
/// they all start with it.
pub fn unlocated(description: &str, base: &Path) -> String {
    let mut out = description.to_string();
    let mut spellings = vec![format!("{:?}", base.as_os_str())];
    if let Ok(abs) = std::path::absolute(base) {
        spellings.push(format!("{:?}", abs.as_os_str()));
    }
    // Longest first: an absolute spelling contains no relative one at a
    // quote, but keep the order meaningful anyway.
    spellings.sort_by_key(|s| std::cmp::Reverse(s.len()));
    for quoted in spellings {
        let inner = &quoted[1..quoted.len() - 1];
        if inner.is_empty() {
            continue;
        }
        for sep in ["/", "\\\\", "\""] {
            out = out.replace(&format!("\"{inner}{sep}"), &format!("\"<recipe>{sep}"));
        }
    }
    out
}

/// The content key of a job: kiln's version, its description and what
/// planning read (entries without a digest — the recipe itself, which the
/// description stands for — are left out).
pub fn job_key(description: &str, reads: &[(PathBuf, String)]) -> String {
    let mut text = format!(
        "kiln {} state {STATE_VERSION}\n{description}\n",
        env!("CARGO_PKG_VERSION")
    );
    for (path, d) in reads.iter().filter(|(_, d)| !d.is_empty()) {
        text.push_str(&format!("{}\0{d}\n", path.display()));
    }
    digest(text.as_bytes())
}

/// One file a job wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputState {
    /// Relative to the job's output folder, `/`-separated.
    pub path: String,
    /// Bytes.
    pub size: u64,
    /// SHA-256 of the bytes.
    pub sha256: String,
}

/// What the last bake of a job left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobState {
    /// The job's content key.
    pub key: String,
    /// The files it wrote.
    pub outputs: Vec<OutputState>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StateFile {
    version: u32,
    /// By `job:NAME` or `map:NAME`.
    jobs: BTreeMap<String, JobState>,
}

fn state_path(dir: &Path) -> PathBuf {
    dir.join(STATE_FILE)
}

fn load_file(dir: &Path) -> StateFile {
    std::fs::read(state_path(dir))
        .ok()
        .and_then(|b| serde_json::from_slice::<StateFile>(&b).ok())
        .filter(|s| s.version == STATE_VERSION)
        .unwrap_or_default()
}

/// The last bake's record of `id` in `dir`, if any.
pub fn load(dir: &Path, id: &str) -> Option<JobState> {
    load_file(dir).jobs.get(id).cloned()
}

/// Held while a state file is read, changed and written back: jobs of one
/// bake that share a folder run side by side, and two of them saving at
/// once would each keep only its own entry.
static SAVING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Records `state` for `id` in `dir` (atomically, keeping the other jobs').
pub fn save(dir: &Path, id: &str, state: JobState) -> Result<()> {
    let _one_at_a_time = SAVING.lock().unwrap_or_else(|e| e.into_inner());
    let mut file = load_file(dir);
    file.version = STATE_VERSION;
    file.jobs.insert(id.to_string(), state);
    let mut text = serde_json::to_string_pretty(&file)
        .map_err(|e| Error::Other(format!("{}: {e}", state_path(dir).display())))?;
    text.push('\n');
    write_atomic(&state_path(dir), text.as_bytes())
}

/// Whether every file of `state` is in `dir` with the bytes it was written
/// with.
pub fn outputs_intact(dir: &Path, state: &JobState) -> bool {
    state.outputs.iter().all(|o| {
        let p = dir.join(&o.path);
        std::fs::metadata(&p).is_ok_and(|m| m.len() == o.size)
            && std::fs::read(&p).is_ok_and(|b| digest(&b) == o.sha256)
    })
}

/// `path` relative to `dir`, `/`-separated (both lexically normalised).
pub fn relative(dir: &Path, path: &Path) -> String {
    let d = crate::paths::normalize(dir);
    let p = crate::paths::normalize(path);
    let rel = p.strip_prefix(&d).unwrap_or(&p);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// A shared folder of baked files by content.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
}

impl Cache {
    /// The cache in `root` (created as needed).
    pub fn new(root: impl Into<PathBuf>) -> Cache {
        Cache { root: root.into() }
    }

    fn blob(&self, sha: &str) -> PathBuf {
        self.root.join("blobs").join(sha)
    }

    fn manifest(&self, key: &str) -> PathBuf {
        self.root.join("keys").join(format!("{key}.json"))
    }

    /// The files a job with `key` wrote, if the cache holds them all.
    pub fn lookup(&self, key: &str) -> Option<Vec<OutputState>> {
        let b = std::fs::read(self.manifest(key)).ok()?;
        let outputs: Vec<OutputState> = serde_json::from_slice(&b).ok()?;
        outputs
            .iter()
            .all(|o| self.blob(&o.sha256).is_file())
            .then_some(outputs)
    }

    /// The bytes of a cached file, checked against its digest.
    pub fn read(&self, o: &OutputState) -> Result<Vec<u8>> {
        let p = self.blob(&o.sha256);
        let bytes = std::fs::read(&p).map_err(|e| Error::io(&p, e))?;
        if digest(&bytes) != o.sha256 {
            return Err(Error::Other(format!(
                "{}: cached file does not match its digest; delete it",
                p.display()
            )));
        }
        Ok(bytes)
    }

    fn store_blob(&self, sha: &str, bytes: &[u8]) -> Result<()> {
        let p = self.blob(sha);
        if !p.is_file() {
            write_atomic(&p, bytes)?;
        }
        Ok(())
    }

    /// Records that a job with `key` wrote `outputs`.
    pub fn store(&self, key: &str, outputs: &[OutputState]) -> Result<()> {
        let mut text = serde_json::to_string_pretty(outputs)
            .map_err(|e| Error::Other(format!("cache manifest: {e}")))?;
        text.push('\n');
        write_atomic(&self.manifest(key), text.as_bytes())
    }
}

/// Passes every file on to `inner` and keeps its digest (and, with a
/// cache, its bytes there) for the job's state.
pub struct Recorder<'a> {
    inner: &'a dyn Sink,
    dir: PathBuf,
    cache: Option<&'a Cache>,
    seen: Mutex<Vec<OutputState>>,
}

impl<'a> Recorder<'a> {
    /// Records for a job writing into `dir`.
    pub fn new(inner: &'a dyn Sink, dir: &Path, cache: Option<&'a Cache>) -> Recorder<'a> {
        Recorder {
            inner,
            dir: dir.to_path_buf(),
            cache,
            seen: Mutex::new(Vec::new()),
        }
    }

    /// Every file handed over, in order.
    pub fn outputs(&self) -> Vec<OutputState> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Sink for Recorder<'_> {
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        self.inner.write(path, bytes)?;
        let sha = digest(bytes);
        if let Some(c) = self.cache {
            c.store_blob(&sha, bytes)?;
        }
        self.seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(OutputState {
                path: relative(&self.dir, path),
                size: bytes.len() as u64,
                sha256: sha,
            });
        Ok(())
    }

    fn remove(&self, path: &Path) -> Result<()> {
        self.inner.remove(path)
    }

    fn records(&self) -> Vec<super::sink::OutputRecord> {
        self.inner.records()
    }

    fn settle(&self) -> Result<()> {
        self.inner.settle()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_change_with_any_input_and_ignore_the_recipe_entry() {
        let reads = vec![
            (PathBuf::from("r.yaml"), String::new()),
            (PathBuf::from("m.rsm"), digest(b"model")),
        ];
        let k = job_key("job", &reads);
        assert_eq!(k.len(), 64);
        assert_eq!(k, job_key("job", &reads));
        assert_ne!(k, job_key("job 2", &reads));
        let mut changed = reads.clone();
        changed[1].1 = digest(b"model!");
        assert_ne!(k, job_key("job", &changed));
        assert_eq!(k, job_key("job", &reads[1..]));
    }

    #[test]
    fn relative_paths_are_slash_separated_below_the_folder() {
        assert_eq!(
            relative(Path::new("a/../out"), Path::new("out/x/y.png")),
            "x/y.png"
        );
        assert_eq!(relative(Path::new("out"), Path::new("out/y.png")), "y.png");
    }
}
