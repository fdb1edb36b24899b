//! Files held in memory: for tests, and for programs that generate their
//! assets instead of reading them from disk.

use super::path::fold;
use super::{DataSource, Entry, EntryKind, GamePath, Listed};
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// An in-memory data source: game paths and their bytes.
#[derive(Debug, Clone, Default)]
pub struct MemorySource {
    name: String,
    /// Folded path → (path as added, bytes).
    files: BTreeMap<Vec<Vec<u8>>, (GamePath, Vec<u8>)>,
}

impl MemorySource {
    /// An empty source; `name` shows in messages and locations
    /// (`<name>:/data/texture/x.bmp`).
    pub fn new(name: impl Into<String>) -> MemorySource {
        MemorySource {
            name: name.into(),
            files: BTreeMap::new(),
        }
    }

    /// Adds (or replaces) the file at `path`.
    pub fn insert(&mut self, path: impl AsRef<[u8]>, bytes: Vec<u8>) -> &mut Self {
        let path = GamePath::new(path);
        self.files.insert(key(&path), (path, bytes));
        self
    }

    /// Number of files held.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when no file is held.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    fn location(&self, path: &GamePath) -> PathBuf {
        PathBuf::from(format!("{}:/{path}", self.name))
    }
}

fn key(path: &GamePath) -> Vec<Vec<u8>> {
    path.parts().iter().map(|p| fold(p)).collect()
}

impl DataSource for MemorySource {
    fn describe(&self) -> String {
        format!("{} (in memory, {} files)", self.name, self.files.len())
    }

    fn find(&self, path: &GamePath) -> Option<Entry> {
        let (stored, bytes) = self.files.get(&key(path))?;
        Some(Entry {
            location: self.location(stored),
            size: bytes.len() as u64,
            key: 0,
        })
    }

    fn read(&self, entry: &Entry) -> Result<Vec<u8>> {
        let text = entry.location.to_string_lossy();
        let path = text
            .strip_prefix(&format!("{}:/", self.name))
            .map(GamePath::new);
        path.and_then(|p| self.files.get(&key(&p)))
            .map(|(_, b)| b.clone())
            .ok_or_else(|| {
                Error::io(
                    &entry.location,
                    std::io::Error::new(std::io::ErrorKind::NotFound, "not in this source"),
                )
            })
    }

    fn list(&self, dir: &GamePath) -> Option<(PathBuf, Vec<Listed>)> {
        let prefix = key(dir);
        let mut out: BTreeMap<Vec<u8>, EntryKind> = BTreeMap::new();
        for (k, (stored, _)) in &self.files {
            if k.len() > prefix.len() && k[..prefix.len()] == prefix[..] {
                let name = stored.parts()[prefix.len()].clone();
                let kind = if k.len() == prefix.len() + 1 {
                    EntryKind::File
                } else {
                    EntryKind::Folder
                };
                out.entry(name).or_insert(kind);
            }
        }
        if out.is_empty() && !dir.is_empty() {
            return None;
        }
        Some((
            self.location(dir),
            out.into_iter()
                .map(|(name, kind)| Listed { name, kind })
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_in_any_case_and_lists_folders() {
        let mut m = MemorySource::new("mem");
        m.insert("data\\Texture\\a.bmp", vec![1, 2])
            .insert("data/model/x.rsm", vec![3]);
        let e = m.find(&GamePath::new("DATA/texture/A.BMP")).unwrap();
        assert_eq!(e.location, PathBuf::from("mem:/data/Texture/a.bmp"));
        assert_eq!(m.read(&e).unwrap(), vec![1, 2]);
        assert!(m.find(&GamePath::new("data/texture")).is_none());
        let (_, l) = m.list(&GamePath::new("data")).unwrap();
        let names: Vec<_> = l.iter().map(|e| (e.name.clone(), e.kind)).collect();
        assert_eq!(
            names,
            vec![
                (b"Texture".to_vec(), EntryKind::Folder),
                (b"model".to_vec(), EntryKind::Folder)
            ]
        );
        assert!(m.list(&GamePath::new("nowhere")).is_none());
    }

    #[test]
    fn a_later_insert_in_another_case_replaces_the_file() {
        let mut m = MemorySource::new("mem");
        assert!(m.is_empty());
        m.insert("a/B.bmp", vec![1]).insert("A/b.BMP", vec![2]);
        assert_eq!(m.len(), 1);
        let e = m.find(&GamePath::new("a/b.bmp")).unwrap();
        assert_eq!(
            (e.location.clone(), e.size),
            (PathBuf::from("mem:/A/b.BMP"), 1)
        );
        assert_eq!(m.read(&e).unwrap(), vec![2]);
        let (at, root) = m.list(&GamePath::root()).unwrap();
        assert_eq!(at, PathBuf::from("mem:/"));
        assert_eq!(root.len(), 1);
        // An entry another source found is not read from this one.
        let other = Entry {
            location: PathBuf::from("other:/A/b.BMP"),
            size: 1,
            key: 0,
        };
        let err = m.read(&other).unwrap_err();
        assert!(err.to_string().starts_with("other:/A/b.BMP"), "{err}");
    }
}
