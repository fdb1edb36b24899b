//! What a job owns in its output folder, and `prune`: the files an earlier
//! bake of a job wrote — as the job's state in that folder records them —
//! and this one did not (directions dropped from 8 to 4, a renamed clip, a
//! sheet that shrank from three pages to two) are handed to the sink for
//! removal.
//!
//! Only files the state records are ever removed, and only while they
//! still hold the bytes kiln wrote: a file of the user's that merely looks
//! like an output (`holiday_0.gif` beside `{name}_{dir}.gif`) was never
//! recorded, and one the user changed since is kept with a warning. A file
//! some other job of the bake can write is kept too, so jobs sharing a
//! folder never prune each other.

use crate::bake::outputs::state::{intact, JobState, OutputState};
use crate::bake::recipe::{page_path, Job, MapJob, Matcher, MetaFormat};
use crate::confined::Root;
use crate::paths::normalize;
use std::path::Path;

/// Every file name a job or map can write, relative to its output folder:
/// its templates with any clip, direction or frame, and its fixed files
/// with any page number.
#[derive(Debug, Clone)]
pub struct Owned {
    matchers: Vec<Matcher>,
}

impl Owned {
    /// The names `job` can write.
    pub fn of_job(job: &Job) -> Owned {
        let o = &job.output;
        let mut out = Owned {
            matchers: Vec::new(),
        };
        for t in [&o.frames, &o.gif, &o.apng].into_iter().flatten() {
            out.matchers.push(t.matcher(&job.file_name));
        }
        let mut fixed: Vec<std::path::PathBuf> = Vec::new();
        fixed.extend(o.sheet.iter().cloned());
        fixed.extend(o.meta.iter().cloned());
        fixed.extend(o.metadata.iter().map(|(_, p)| p.clone()));
        fixed.extend(o.gltf.iter().cloned());
        if let Some(base) = &o.ro_sprite {
            for ext in [".spr", ".act"] {
                let mut file = base.clone().into_os_string();
                file.push(ext);
                fixed.push(file.into());
            }
        }
        fixed.extend(job.pass_files());
        for p in &fixed {
            out.add_fixed(p, &o.dir);
        }
        out
    }

    /// The names `map` can write: one file per view.
    pub fn of_map(map: &MapJob) -> Owned {
        let mut out = Owned {
            matchers: Vec::new(),
        };
        for v in &map.views {
            out.add_fixed(&v.file, &map.dir);
        }
        out
    }

    /// A fixed file, and its pages as `page_path` numbers them for a sheet
    /// and for every metadata format.
    fn add_fixed(&mut self, path: &Path, dir: &Path) {
        let Some(rel) = relative(path, dir) else {
            return;
        };
        self.matchers.push(Matcher::literal(&rel));
        let suffixes = std::iter::once("").chain(
            [
                MetaFormat::TexturePackerHash,
                MetaFormat::TexturePackerArray,
                MetaFormat::Aseprite,
                MetaFormat::Pixi,
                MetaFormat::Godot,
            ]
            .map(MetaFormat::suffix),
        );
        for suffix in suffixes {
            let marker = page_path(Path::new(&rel), 0, suffix)
                .to_string_lossy()
                .replace('\\', "/");
            if let Some(i) = marker.rfind("-0") {
                let m = Matcher::numbered(&marker[..i + 1], &marker[i + 2..]);
                if !self.matchers.contains(&m) {
                    self.matchers.push(m);
                }
            }
        }
    }

    /// Whether `rel` (relative to the output folder, `/`-separated) is a
    /// name this job or map can write.
    pub fn contains(&self, rel: &str) -> bool {
        self.matchers.iter().any(|m| m.matches(rel))
    }
}

/// `path` relative to `dir`, with `/` separators, when it lies inside.
fn relative(path: &Path, dir: &Path) -> Option<String> {
    let rel = normalize(path)
        .strip_prefix(normalize(dir))
        .ok()?
        .to_path_buf();
    Some(rel.to_string_lossy().replace('\\', "/"))
}

/// The files earlier bakes recorded in `earlier` (written, or left from
/// before) that this bake did not write (`written`), and that no job of
/// `jobs` but `me` can write in `dir`, in the state's order, each once.
pub fn stale(
    earlier: &JobState,
    written: &[OutputState],
    dir: &Path,
    jobs: &[(String, std::path::PathBuf, Owned)],
    me: Option<&str>,
) -> Vec<OutputState> {
    let mut out: Vec<OutputState> = Vec::new();
    for o in earlier.outputs.iter().chain(&earlier.left) {
        if written.iter().any(|w| w.path == o.path) || out.iter().any(|s| s.path == o.path) {
            continue;
        }
        let theirs = jobs.iter().any(|(name, their_dir, owned)| {
            Some(name.as_str()) != me
                && relative(&dir.join(&o.path), their_dir).is_some_and(|r| owned.contains(&r))
        });
        if !theirs {
            out.push(o.clone());
        }
    }
    out
}

/// What pruning `stale` in `root` comes to: the files to remove (still
/// holding what kiln wrote), those to keep recording for a later prune,
/// and a warning per file the user changed since.
pub struct Verdicts {
    /// Still as kiln wrote them: removed by a prune.
    pub remove: Vec<OutputState>,
    /// Kept in the state's `left` list.
    pub keep: Vec<OutputState>,
    /// One per changed file, which is kept and forgotten.
    pub warnings: Vec<String>,
}

/// Sorts `stale` files: those still holding the bytes kiln wrote can be
/// removed; a file already gone is forgotten; a changed one is the user's
/// now and is forgotten with a warning.
pub fn judge(root: &Root, stale: Vec<OutputState>, pruning: bool) -> Verdicts {
    let mut v = Verdicts {
        remove: Vec::new(),
        keep: Vec::new(),
        warnings: Vec::new(),
    };
    for o in stale {
        if intact(root, &o) {
            if pruning {
                v.remove.push(o);
            } else {
                v.keep.push(o);
            }
        } else if pruning && matches!(root.file_len(&o.path), Ok(Some(_)) | Err(_)) {
            v.warnings.push(format!(
                "{}: changed since kiln wrote it; not pruned",
                root.path_of(&o.path).display()
            ));
        }
    }
    v
}
