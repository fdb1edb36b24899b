//! Where kiln reads game files from: the data-source seam.
//!
//! Every file kiln reads while loading a model or a map — the model itself
//! when it is not a file on disk, textures, animations, Lua definition
//! files, `model.cfg`, a map's ground and models — is asked of a
//! [`DataSource`] by its game path ("bytes for `data\texture\x.bmp`"), never
//! opened by path. A load searches the caller's sources first, in order (a
//! recipe's `data:`, `--data`, [`BakeOptions::sources`](crate::BakeOptions)),
//! then the file's own tree ([`Tree`]): the folder or archive it came from,
//! rooted where the game's layout says, and never the folders above that.
//!
//! A [`Folder`] answers from disk with the games' rules (any case, CP949
//! names in their three on-disk spellings); a [`MemorySource`] from memory;
//! the archives — [`grf::Grf`], [`pbo::Pbo`], [`grimrock_dat::GrimrockDat`]
//! — from the entries of one archive file, read one at a time. A `data:`
//! entry that is a file is opened as the archive its content says
//! ([`open_data`]).

pub mod archive;
mod dat_names;
pub mod disk;
pub mod entries;
mod folder;
pub(crate) mod glob;
pub mod grf;
pub mod grimrock_dat;
pub mod lzss;
mod memory;
mod named;
mod path;
pub mod pbo;
mod tree;
pub(crate) mod zlib;

pub use archive::{open_archive, open_data};
pub use entries::{Archive, ArchiveRef, Item};
pub use folder::Folder;
pub use memory::MemorySource;
pub use named::FileRef;
pub use path::GamePath;
pub use tree::{Layout, Tree};

use crate::error::Result;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A place game files come from.
///
/// Paths are matched with the games' rules: `\` or `/`, any ASCII case,
/// CP949-aware (see [`GamePath`]).
pub trait DataSource: Send + Sync + fmt::Debug {
    /// How the source is named in messages (a folder's path, an archive's).
    fn describe(&self) -> String;
    /// The file at `path`, if the source holds one.
    fn find(&self, path: &GamePath) -> Option<Entry>;
    /// The bytes of an entry this source found.
    fn read(&self, entry: &Entry) -> Result<Vec<u8>>;
    /// The folder at `dir`: its location and its entries sorted bytewise
    /// by name; `None` when there is no such folder.
    fn list(&self, dir: &GamePath) -> Option<(PathBuf, Vec<Listed>)>;
    /// What a listing of this source leaves out, for messages about a
    /// glob that found nothing; `None` when it lists every file.
    fn listing_note(&self) -> Option<String> {
        None
    }
}

/// A shared data source.
pub type SourceRef = Arc<dyn DataSource>;

/// A file a source found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Where it is, for messages and for reports of what a bake read: a
    /// path on disk, or `archive:/path` inside an archive or memory.
    pub location: PathBuf,
    /// Its size in bytes (as stored uncompressed, when known).
    pub size: u64,
    /// The source's own handle for it (an archive's entry index).
    pub key: u64,
}

/// One name in a folder listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The name as stored.
    pub name: Vec<u8>,
    /// What it is.
    pub kind: EntryKind,
}

/// What a listed name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A file.
    File,
    /// A folder.
    Folder,
    /// A symbolic link to a folder: listed, but not walked into by
    /// recursive searches, which could loop.
    LinkedFolder,
}

/// What one load may read: the caller's sources in priority order, and a
/// record of every location read with a digest of what was there (for
/// `cargo:rerun-if-changed` lines, dependency files, and the content keys
/// of incremental bakes).
#[derive(Debug, Default)]
pub struct Lookup {
    sources: Vec<SourceRef>,
    reads: Mutex<BTreeMap<PathBuf, String>>,
    /// What the images the load decodes may take together.
    memory: crate::memory::Allowance,
}

/// The SHA-256 of `bytes`, in hexadecimal.
pub fn digest(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Lookup {
    /// Searches `sources` in order before any file's own tree.
    pub fn new(sources: Vec<SourceRef>) -> Lookup {
        Lookup {
            sources,
            reads: Mutex::new(BTreeMap::new()),
            memory: crate::memory::Allowance::default(),
        }
    }

    /// The same lookup, its decoded images allowed `limit` bytes together
    /// ([`DEFAULT_MEMORY_LIMIT`](crate::DEFAULT_MEMORY_LIMIT) unless set).
    pub fn with_memory_limit(mut self, limit: u64) -> Lookup {
        self.memory = crate::memory::Allowance::new(limit);
        self
    }

    /// The allowance the load's decoded images are charged to.
    pub(crate) fn memory(&self) -> &crate::memory::Allowance {
        &self.memory
    }

    /// Searches `data` (a recipe's `data:`, `--data`: folders, or archive
    /// files opened by their content), then `then` (a caller's extra
    /// sources), before any file's own tree. An archive that cannot be
    /// opened is an error.
    pub fn with_folders(data: &[PathBuf], then: &[SourceRef]) -> Result<Lookup> {
        let mut sources: Vec<SourceRef> =
            data.iter().map(|d| open_data(d)).collect::<Result<_>>()?;
        sources.extend(then.iter().cloned());
        Ok(Lookup::new(sources))
    }

    /// The caller's sources, in priority order.
    pub fn sources(&self) -> &[SourceRef] {
        &self.sources
    }

    /// The first of `candidates` some source holds.
    pub fn first(
        &self,
        candidates: impl IntoIterator<Item = (SourceRef, GamePath)>,
    ) -> Option<Found> {
        candidates.into_iter().find_map(|(source, path)| {
            let entry = source.find(&path)?;
            Some(Found {
                source,
                path,
                entry,
            })
        })
    }

    /// Reads a found file, recording its location and content digest.
    pub fn read(&self, found: &Found) -> Result<Vec<u8>> {
        let bytes = found.source.read(&found.entry)?;
        self.record(&found.entry.location, digest(&bytes));
        Ok(bytes)
    }

    /// Lists a folder of a source, recording its location and a digest of
    /// the names it holds (a file added there can change what is found).
    pub fn list(&self, source: &SourceRef, dir: &GamePath) -> Vec<Listed> {
        match source.list(dir) {
            Some((location, entries)) => {
                let mut names = Vec::new();
                for e in &entries {
                    names.extend_from_slice(&e.name);
                    names.push(match e.kind {
                        EntryKind::File => 0,
                        EntryKind::Folder => 1,
                        EntryKind::LinkedFolder => 2,
                    });
                }
                self.record(&location, digest(&names));
                entries
            }
            None => Vec::new(),
        }
    }

    /// Reads a file named on the command line or in a recipe: from disk
    /// when it is there, else by the name as written from the caller's
    /// sources. A file on neither gives the disk's "not found" error.
    ///
    /// A file on disk must be a regular file no larger than the input limit
    /// ([`disk::DEFAULT_INPUT_LIMIT`], or `KILN_MAX_INPUT`): a FIFO, a device
    /// or an oversized file is refused, not read.
    pub fn read_named(&self, file: &FileRef) -> Result<(Vec<u8>, Origin)> {
        let limit = disk::input_limit(disk::DEFAULT_INPUT_LIMIT);
        match disk::read_limited(&file.disk, limit) {
            Ok(bytes) => {
                self.record(&file.disk, digest(&bytes));
                Ok((bytes, Origin::Disk(file.disk.clone())))
            }
            // Something that is there but cannot be read as a file (a FIFO,
            // a device, too large): said as it is, not looked up elsewhere.
            Err(e) if std::fs::metadata(&file.disk).is_ok_and(|m| !m.is_dir()) => Err(e),
            Err(e) => {
                let name = GamePath::new(&file.written);
                let found = if name.is_empty() {
                    None
                } else {
                    self.first(self.sources.iter().map(|s| (s.clone(), name.clone())))
                };
                match found {
                    Some(f) => Ok((self.read(&f)?, Origin::Source(f))),
                    None => Err(e),
                }
            }
        }
    }

    /// Records a location read by someone else, whose content the job's
    /// own description already stands for (its recipe).
    pub fn note_read(&self, location: &Path) {
        self.record(location, String::new());
    }

    fn record(&self, location: &Path, digest: String) {
        let mut r = self.reads.lock().unwrap_or_else(|e| e.into_inner());
        r.insert(location.to_path_buf(), digest);
    }

    /// Every location read so far, sorted.
    pub fn reads(&self) -> Vec<PathBuf> {
        self.read_digests().into_iter().map(|(p, _)| p).collect()
    }

    /// Every location read so far with the digest of its content, sorted.
    pub fn read_digests(&self) -> Vec<(PathBuf, String)> {
        let r = self.reads.lock().unwrap_or_else(|e| e.into_inner());
        r.iter().map(|(p, d)| (p.clone(), d.clone())).collect()
    }
}

/// Where a named file was read from.
#[derive(Debug, Clone)]
pub enum Origin {
    /// A path on disk.
    Disk(PathBuf),
    /// One of the caller's sources.
    Source(Found),
}

impl Origin {
    /// How the file is named in messages.
    pub fn name(&self) -> PathBuf {
        match self {
            Origin::Disk(p) => p.clone(),
            Origin::Source(f) => f.entry.location.clone(),
        }
    }

    /// The file's tree, rooted as `layout` says for files on disk.
    pub fn tree(&self, layout: Layout) -> Tree {
        match self {
            Origin::Disk(p) => Tree::of_disk_file(p, layout),
            Origin::Source(f) => f.tree(),
        }
    }
}

/// A file some source holds.
#[derive(Debug, Clone)]
pub struct Found {
    /// The source that holds it.
    pub source: SourceRef,
    /// The path it was found at.
    pub path: GamePath,
    /// The source's entry.
    pub entry: Entry,
}

impl Found {
    /// The tree of the found file (for lookups relative to it).
    pub fn tree(&self) -> Tree {
        Tree {
            source: self.source.clone(),
            file: self.path.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kiln-source-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn memory(name: &str, files: &[(&str, &[u8])]) -> SourceRef {
        let mut m = MemorySource::new(name);
        for (path, bytes) in files {
            m.insert(path, bytes.to_vec());
        }
        Arc::new(m)
    }

    #[test]
    fn the_first_candidate_a_source_holds_wins_and_reads_are_recorded() {
        let a = memory("a", &[("x/one.bmp", b"a1")]);
        let b = memory("b", &[("x/one.bmp", b"b1"), ("x/two.bmp", b"b2")]);
        let lookup = Lookup::new(vec![a.clone(), b.clone()]);
        let path = |p: &str| GamePath::new(p);
        let found = lookup
            .first([
                (a.clone(), path("x/two.bmp")),
                (b.clone(), path("X/ONE.BMP")),
                (a.clone(), path("x/one.bmp")),
            ])
            .unwrap();
        assert_eq!(found.entry.location, PathBuf::from("b:/x/one.bmp"));
        assert_eq!(found.path, path("X/ONE.BMP"));
        assert!(lookup.reads().is_empty(), "finding is not reading");
        assert_eq!(lookup.read(&found).unwrap(), b"b1");
        assert_eq!(lookup.list(&a, &path("x")).len(), 1);
        assert!(lookup.list(&a, &path("nowhere")).is_empty());
        assert!(lookup.first([(a.clone(), path("x/two.bmp"))]).is_none());
        assert_eq!(
            lookup.reads(),
            [PathBuf::from("a:/x"), PathBuf::from("b:/x/one.bmp")]
        );
        // The found file's tree is the source it came from.
        let tree = found.tree();
        assert_eq!(tree.source.describe(), "b (in memory, 2 files)");
        assert_eq!(tree.folder(), path("X"));
    }

    #[test]
    fn named_files_come_from_disk_then_from_the_sources_by_the_name_written() {
        let dir = scratch("named");
        std::fs::write(dir.join("m.rsm"), b"disk").unwrap();
        let lookup = Lookup::new(vec![memory("mem", &[("data/m.rsm", b"mem")])]);

        let on_disk = FileRef::relative_to(&dir, "m.rsm");
        let (bytes, origin) = lookup.read_named(&on_disk).unwrap();
        assert_eq!(
            (bytes.as_slice(), origin.name()),
            (&b"disk"[..], dir.join("m.rsm"))
        );

        let in_source = FileRef::relative_to(&dir, "DATA\\m.rsm");
        let (bytes, origin) = lookup.read_named(&in_source).unwrap();
        assert_eq!(bytes, b"mem");
        assert_eq!(origin.name(), PathBuf::from("mem:/data/m.rsm"));
        // Its tree is the source, with the file at the path as asked.
        let tree = origin.tree(Layout::RAGNAROK_MAP);
        assert_eq!(tree.file, GamePath::new("DATA/m.rsm"));
        assert_eq!(tree.root(Layout::RAGNAROK_MAP), GamePath::root());

        // Neither on disk nor in a source: the disk's error, naming the
        // path on disk; an empty name asks no source.
        for written in ["lost.rsm", ""] {
            let e = lookup
                .read_named(&FileRef::relative_to(&dir, written))
                .unwrap_err();
            assert!(
                matches!(&e, crate::Error::Io { path, .. } if *path == dir.join(written)),
                "{e}"
            );
        }
        assert_eq!(
            lookup.reads(),
            [dir.join("m.rsm"), PathBuf::from("mem:/data/m.rsm")]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn data_folders_come_before_the_extra_sources() {
        let dir = scratch("order");
        std::fs::create_dir_all(dir.join("texture")).unwrap();
        std::fs::write(dir.join("texture/a.bmp"), b"folder").unwrap();
        let extra = memory("mem", &[("texture/a.bmp", b"mem")]);
        let lookup = Lookup::with_folders(std::slice::from_ref(&dir), &[extra]).unwrap();
        let names: Vec<String> = lookup.sources().iter().map(|s| s.describe()).collect();
        assert_eq!(
            names,
            [dir.display().to_string(), "mem (in memory, 1 files)".into()]
        );
        let found = lookup
            .first(
                lookup
                    .sources()
                    .iter()
                    .map(|s| (s.clone(), GamePath::new("TEXTURE/A.bmp"))),
            )
            .unwrap();
        assert_eq!(lookup.read(&found).unwrap(), b"folder");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
