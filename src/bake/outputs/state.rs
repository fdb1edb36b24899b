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

use crate::bake::outputs::sink::Sink;
use crate::confined::{Contents, Root};
use crate::error::{Error, Result};
use crate::source::digest;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use crate::confined::STATE_FILE;

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
    spelled_as(description, base, "<recipe>")
}

/// A description with the output root's spelling replaced (it is where the
/// files go, not what they are made of), so a bake into another root — a
/// build script's `OUT_DIR` in another profile — has the same keys, and a
/// shared cache serves it.
pub fn unrooted(description: &str, out_dir: &Path) -> String {
    spelled_as(description, out_dir, "<out>")
}

/// `description` with each quoted path that starts with `folder`, spelled
/// as given or absolute, starting with `marker` instead.
fn spelled_as(description: &str, folder: &Path, marker: &str) -> String {
    let mut out = description.to_string();
    let mut spellings = vec![format!("{:?}", folder.as_os_str())];
    if let Ok(abs) = std::path::absolute(folder) {
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
            out = out.replace(&format!("\"{inner}{sep}"), &format!("\"{marker}{sep}"));
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

impl OutputState {
    /// Whether the record can name a file of a job at all: a name the
    /// write rule takes and a digest of SHA-256's shape. State files and
    /// cache entries are read from disk, so neither is trusted.
    fn well_formed(&self) -> bool {
        crate::confined::check_name(&self.path).is_ok()
            && self.sha256.len() == 64
            && self
                .sha256
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    }
}

/// What the last bake of a job left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobState {
    /// The job's content key.
    pub key: String,
    /// The files it wrote.
    pub outputs: Vec<OutputState>,
    /// Files earlier bakes of the job wrote that later ones did not, and
    /// that were not pruned yet: what `--prune` removes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left: Vec<OutputState>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StateFile {
    version: u32,
    /// By `job:NAME` or `map:NAME`.
    jobs: BTreeMap<String, JobState>,
}

/// The largest state file read: far above what 100,000 jobs sharing one
/// folder write.
const MAX_STATE_BYTES: u64 = 256 << 20;

fn load_file(root: &Root) -> StateFile {
    match root.read_reserved(STATE_FILE, MAX_STATE_BYTES) {
        Ok(Contents::Bytes(b)) => serde_json::from_slice::<StateFile>(&b)
            .ok()
            .filter(|s| s.version == STATE_VERSION)
            .unwrap_or_default(),
        _ => StateFile::default(),
    }
}

/// The last bake's record of `id` in `root`, if any.
pub fn load(root: &Root, id: &str) -> Option<JobState> {
    load_file(root).jobs.remove(id)
}

/// Held while a state file is read, changed and written back: jobs of one
/// bake that share a folder run side by side, and two of them saving at
/// once would each keep only its own entry.
static SAVING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Records `state` for `id` in `root` (atomically, keeping the other
/// jobs').
pub fn save(root: &Root, id: &str, state: JobState) -> Result<()> {
    let _one_at_a_time = SAVING.lock().unwrap_or_else(|e| e.into_inner());
    let mut file = load_file(root);
    file.version = STATE_VERSION;
    file.jobs.insert(id.to_string(), state);
    let mut text = serde_json::to_string_pretty(&file)
        .map_err(|e| Error::Other(format!("{}: {e}", root.path_of(STATE_FILE).display())))?;
    text.push('\n');
    root.write_reserved(STATE_FILE, text.as_bytes())
}

/// Whether `o` is in `root` with the bytes it was written with (read by
/// the write rule: a link there is not the file).
pub fn intact(root: &Root, o: &OutputState) -> bool {
    o.well_formed()
        && matches!(root.read(&o.path, o.size), Ok(Contents::Bytes(b)) if digest(&b) == o.sha256)
}

/// Whether `state` lists the files of a job — at least one, each a name
/// `could_write` says the job can write — and every one is in `root` with
/// the bytes it was written with.
pub fn outputs_intact(root: &Root, state: &JobState, could_write: &dyn Fn(&str) -> bool) -> bool {
    !state.outputs.is_empty()
        && state
            .outputs
            .iter()
            .all(|o| could_write(&o.path) && intact(root, o))
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

/// A shared folder of baked files by content: `blobs/<sha256>` holds
/// bytes, `keys/<key>.json` the files a job with that key wrote.
///
/// The folder is not trusted (`docs/builds.md`, "A shared cache"): a manifest is
/// used only when it names the key it is filed under, and every file it
/// lists is one the job itself writes; a blob is used only when its bytes
/// have its digest, and one that does not is removed so the next bake
/// stores it again. Everything is read and written below the folder by
/// the write rule.
#[derive(Debug, Clone)]
pub struct Cache {
    root: Root,
}

/// The shape of a manifest; bumped when it changes.
const MANIFEST_VERSION: u32 = 2;

/// The largest manifest read.
const MAX_MANIFEST_BYTES: u64 = 64 << 20;

#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    kiln_cache: u32,
    /// The key it is filed under: a manifest copied under another key
    /// names the wrong one.
    key: String,
    outputs: Vec<OutputState>,
}

/// What the cache holds for a key.
#[derive(Debug)]
pub enum Cached {
    /// Nothing (or the entry of an older kiln).
    Miss,
    /// The files a job with the key wrote, each in the cache.
    Hit(Vec<OutputState>),
    /// An entry that cannot be the key's, and why: it is not used, and the
    /// job's bake replaces it.
    Refused(String),
}

impl Cache {
    /// The cache in `root` (created as needed).
    pub fn new(root: impl Into<PathBuf>) -> Cache {
        Cache {
            root: Root::new(root),
        }
    }

    fn blob(sha: &str) -> String {
        format!("blobs/{sha}")
    }

    fn manifest(key: &str) -> String {
        format!("keys/{key}.json")
    }

    /// The files a job with `key` wrote, if the cache holds them all and
    /// `could_write` says the job writes each.
    pub fn lookup(&self, key: &str, could_write: &dyn Fn(&str) -> bool) -> Cached {
        let name = Self::manifest(key);
        let at = || self.root.path_of(&name).display().to_string();
        let bytes = match self.root.read(&name, MAX_MANIFEST_BYTES) {
            Ok(Contents::Bytes(b)) => b,
            Ok(Contents::Missing) => return Cached::Miss,
            Ok(Contents::Over(n)) => {
                return Cached::Refused(format!("cache entry {}: {n} bytes, too large", at()))
            }
            Err(e) => return Cached::Refused(format!("cache entry: {e}")),
        };
        let Ok(m) = serde_json::from_slice::<Manifest>(&bytes) else {
            // Older kilns wrote a bare list; what else is there is not ours.
            return match serde_json::from_slice::<Vec<OutputState>>(&bytes) {
                Ok(_) => Cached::Miss,
                Err(e) => {
                    Cached::Refused(format!("cache entry {}: not a cache manifest ({e})", at()))
                }
            };
        };
        if m.kiln_cache != MANIFEST_VERSION {
            return Cached::Miss;
        }
        if m.key != key {
            return Cached::Refused(format!(
                "cache entry {} is filed under another key ({}): not this job's",
                at(),
                m.key
            ));
        }
        if m.outputs.is_empty() {
            return Cached::Refused(format!("cache entry {} lists no files", at()));
        }
        for o in &m.outputs {
            if !o.well_formed() || !could_write(&o.path) {
                return Cached::Refused(format!(
                    "cache entry {} names `{}`, which this job does not write",
                    at(),
                    o.path
                ));
            }
        }
        let all_there = m.outputs.iter().all(
            |o| matches!(self.root.file_len(&Self::blob(&o.sha256)), Ok(Some(n)) if n == o.size),
        );
        if all_there {
            Cached::Hit(m.outputs)
        } else {
            Cached::Miss
        }
    }

    /// The bytes of a cached file, `None` when the blob is gone or does
    /// not hold them (a corrupt blob is then removed, so the bake that
    /// follows stores it again).
    pub fn read(&self, o: &OutputState) -> Result<Option<Vec<u8>>> {
        let name = Self::blob(&o.sha256);
        match self.root.read(&name, o.size)? {
            Contents::Bytes(b) if digest(&b) == o.sha256 => Ok(Some(b)),
            Contents::Missing => Ok(None),
            _ => {
                self.root.remove(&name)?;
                Ok(None)
            }
        }
    }

    /// Where a blob is, for messages.
    pub fn blob_path(&self, o: &OutputState) -> PathBuf {
        self.root.path_of(&Self::blob(&o.sha256))
    }

    fn store_blob(&self, sha: &str, bytes: &[u8]) -> Result<()> {
        let name = Self::blob(sha);
        let good = matches!(
            self.root.read(&name, bytes.len() as u64),
            Ok(Contents::Bytes(b)) if b == bytes
        );
        if !good {
            self.root.write(&name, bytes)?;
        }
        Ok(())
    }

    /// Records that a job with `key` wrote `outputs`.
    pub fn store(&self, key: &str, outputs: &[OutputState]) -> Result<()> {
        let m = Manifest {
            kiln_cache: MANIFEST_VERSION,
            key: key.to_string(),
            outputs: outputs.to_vec(),
        };
        let mut text = serde_json::to_string_pretty(&m)
            .map_err(|e| Error::Other(format!("cache manifest: {e}")))?;
        text.push('\n');
        self.root.write(&Self::manifest(key), text.as_bytes())
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

    fn records(&self) -> Vec<crate::bake::outputs::sink::OutputRecord> {
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
