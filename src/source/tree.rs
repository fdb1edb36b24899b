//! A file's own tree: the source it came from and the game root it sits
//! under, found from the file's own path, never by walking the machine's
//! folders above it.

use super::{Folder, GamePath, SourceRef};
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// How a game marks the root of its data tree in a file's path.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Folder names that sit just below the root, each with the name the
    /// next folder toward the file must have (`data` then `model` for a
    /// Ragnarok model), `Some("")` when the marker folder must hold the file
    /// itself, or `None` when anything may follow.
    pub markers: &'static [(&'static str, Option<&'static str>)],
}

impl Layout {
    /// Ragnarok models: `<root>/data/model/…`, or a model lying directly
    /// in `<root>/data/`.
    pub const RAGNAROK_MODEL: Layout = Layout {
        markers: &[("data", Some("model")), ("data", Some(""))],
    };
    /// Ragnarok maps and grounds: `<root>/data/…`.
    pub const RAGNAROK_MAP: Layout = Layout {
        markers: &[("data", None)],
    };
    /// Legend of Grimrock: `<root>/mod_assets/…` (a mod) or `<root>/assets/…`
    /// (the unpacked game).
    pub const GRIMROCK: Layout = Layout {
        markers: &[("mod_assets", None), ("assets", None)],
    };
    /// No known root: a file's tree is its own folder.
    pub const FOLDER: Layout = Layout { markers: &[] };

    /// Whether folder `name` marks the root; `next` is the folder below it
    /// toward the file (`None` when it holds the file itself).
    fn matches(&self, name: &[u8], next: Option<&[u8]>) -> bool {
        self.markers.iter().any(|(m, want)| {
            name.eq_ignore_ascii_case(m.as_bytes())
                && match (want, next) {
                    (None, _) => true,
                    (Some(""), next) => next.is_none(),
                    (Some(w), Some(n)) => n.eq_ignore_ascii_case(w.as_bytes()),
                    (Some(_), None) => false,
                }
        })
    }
}

/// Where a file came from: its source and its path there.
#[derive(Debug, Clone)]
pub struct Tree {
    /// The source holding the file (for a file on disk: a folder at the
    /// root of its tree).
    pub source: SourceRef,
    /// The file's path in `source`.
    pub file: GamePath,
}

impl Tree {
    /// The tree of a file on disk: its root is the folder above the nearest
    /// folder (at or above the file's own) that `layout` marks, else the
    /// file's own folder.
    pub fn of_disk_file(path: &Path, layout: Layout) -> Tree {
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let file_name = path
            .file_name()
            .map(|n| n.as_encoded_bytes().to_vec())
            .unwrap_or_default();
        let mut below: Vec<Vec<u8>> = vec![file_name.clone()];
        if !layout.markers.is_empty() {
            for (dir, name) in named_ancestors(&folder) {
                let Some(name) = name else { break };
                let name = name.as_encoded_bytes().to_vec();
                let next = below.first().filter(|_| below.len() > 1).map(Vec::as_slice);
                let hit = layout.matches(&name, next);
                below.insert(0, name);
                if hit {
                    return Tree {
                        source: Arc::new(Folder::new(parent_of(&dir))),
                        file: GamePath::new(below.join(&b'/')),
                    };
                }
            }
        }
        Tree {
            source: Arc::new(Folder::new(folder)),
            file: GamePath::new(file_name),
        }
    }

    /// The game root in the source: the path before the nearest folder of
    /// the file's path that `layout` marks, else the file's own folder.
    pub fn root(&self, layout: Layout) -> GamePath {
        let parts = self.file.parts();
        let folders = parts.len().saturating_sub(1);
        for i in (0..folders).rev() {
            let next = (i + 1 < folders).then(|| parts[i + 1].as_slice());
            if layout.matches(&parts[i], next) {
                return GamePath::new(parts[..i].join(&b'/'));
            }
        }
        self.file.parent()
    }

    /// The file's own folder in the source.
    pub fn folder(&self) -> GamePath {
        self.file.parent()
    }
}

/// The folder and each folder above it, with its name. Lexical names come
/// first; where the path runs out of names (`.`, `..`, a bare file name)
/// the real folder's name is asked of the file system, so a file opened
/// from inside its own `data/` still knows it is there.
fn named_ancestors(folder: &Path) -> Vec<(PathBuf, Option<OsString>)> {
    let mut out = Vec::new();
    let mut cur = folder.to_path_buf();
    // Deep enough for any real tree; a bound against symlink games.
    for _ in 0..256 {
        let name = match cur.components().next_back() {
            Some(Component::Normal(n)) => Some(n.to_os_string()),
            Some(Component::RootDir) | Some(Component::Prefix(_)) => None,
            _ => std::fs::canonicalize(&cur)
                .ok()
                .and_then(|c| c.file_name().map(|n| n.to_os_string())),
        };
        let done = name.is_none();
        out.push((cur.clone(), name));
        if done {
            break;
        }
        cur = parent_of(&cur);
        if std::fs::canonicalize(&cur).is_ok_and(|c| c.parent().is_none()) {
            out.push((cur, None));
            break;
        }
    }
    out
}

/// The folder above `dir`, lexically where the path allows (so messages
/// keep the user's relative paths), else through `..`.
fn parent_of(dir: &Path) -> PathBuf {
    match dir.components().next_back() {
        Some(Component::Normal(_)) => match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        },
        Some(Component::CurDir) | None => PathBuf::from(".."),
        _ => dir.join(".."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root_of(t: &Tree) -> String {
        t.source.describe()
    }

    #[test]
    fn a_ragnarok_model_is_rooted_above_its_data_folder() {
        let t = Tree::of_disk_file(Path::new("a/b/Data/model/x/y.rsm"), Layout::RAGNAROK_MODEL);
        assert_eq!(root_of(&t), "a/b");
        assert_eq!(t.file.to_string(), "Data/model/x/y.rsm");
        assert_eq!(t.root(Layout::RAGNAROK_MODEL), GamePath::root());
        assert_eq!(t.folder().to_string(), "Data/model/x");
    }

    #[test]
    fn without_a_marker_the_tree_is_the_file_folder() {
        let t = Tree::of_disk_file(Path::new("assets/knot.rsm"), Layout::RAGNAROK_MODEL);
        assert_eq!(root_of(&t), "assets");
        assert_eq!(t.file.to_string(), "knot.rsm");
        assert_eq!(t.root(Layout::RAGNAROK_MODEL), GamePath::root());
    }

    #[test]
    fn a_map_inside_data_is_rooted_above_it() {
        let t = Tree::of_disk_file(Path::new("client/data/prontera.rsw"), Layout::RAGNAROK_MAP);
        assert_eq!(root_of(&t), "client");
        assert_eq!(t.file.to_string(), "data/prontera.rsw");
        let t = Tree::of_disk_file(Path::new("data/prontera.rsw"), Layout::RAGNAROK_MAP);
        assert_eq!(root_of(&t), ".");
    }

    #[test]
    fn grimrock_models_are_rooted_above_mod_assets() {
        let t = Tree::of_disk_file(
            Path::new("mods/x/mod_assets/models/a.model"),
            Layout::GRIMROCK,
        );
        assert_eq!(root_of(&t), "mods/x");
        assert_eq!(t.root(Layout::GRIMROCK), GamePath::root());
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;

    #[test]
    fn a_data_folder_not_followed_by_model_is_not_a_model_root() {
        let t = Tree::of_disk_file(Path::new("data/projects/x.rsm"), Layout::RAGNAROK_MODEL);
        assert_eq!(t.source.describe(), "data/projects");
        assert_eq!(t.file.to_string(), "x.rsm");
        // A model lying directly in a data folder is rooted above it.
        let t = Tree::of_disk_file(Path::new("a/Data/x.rsm"), Layout::RAGNAROK_MODEL);
        assert_eq!(t.source.describe(), "a");
        assert_eq!(t.file.to_string(), "Data/x.rsm");
        assert_eq!(t.root(Layout::RAGNAROK_MODEL), GamePath::root());
    }

    #[test]
    fn roots_inside_a_source() {
        let t = Tree {
            source: Arc::new(crate::source::MemorySource::new("m")),
            file: GamePath::new("data\\model\\kiln\\a.rsm"),
        };
        assert_eq!(t.root(Layout::RAGNAROK_MODEL), GamePath::root());
        let t = Tree {
            source: t.source.clone(),
            file: GamePath::new("model/a.rsm"),
        };
        assert_eq!(t.root(Layout::RAGNAROK_MODEL).to_string(), "model");
    }

    #[test]
    fn a_path_through_dot_dot_asks_the_disk_for_folder_names() {
        let d = std::env::temp_dir().join(format!("kiln-tree-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("client/data/model")).unwrap();
        std::fs::write(d.join("client/data/model/x.rsm"), b"GRSM").unwrap();
        // `..` carries no name: the real folder above `model` is `data`.
        let path = d.join("client/data/model/../model/x.rsm");
        let t = Tree::of_disk_file(&path, Layout::RAGNAROK_MODEL);
        assert_eq!(t.file.to_string(), "data/model/x.rsm");
        assert_eq!(t.root(Layout::RAGNAROK_MODEL), GamePath::root());
        let e = t.source.find(&t.file).expect("the model, in its own tree");
        assert_eq!(t.source.read(&e).unwrap(), b"GRSM");
        let _ = std::fs::remove_dir_all(&d);
    }
}
