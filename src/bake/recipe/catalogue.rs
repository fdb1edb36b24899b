//! Catalogue jobs: a job whose `model:` is a glob becomes one instance per
//! file it matches — in the recipe's folder on disk and in the job's
//! `data:` sources, archives included — each an ordinary [`Job`](super::Job)
//! named `<job>/<path below the glob's base>`.
//!
//! Only the sources' listings are read (an archive's table, a folder's
//! entries), never a model, so a catalogue of thousands plans in the time
//! its tables take to read. Each instance's output names may use `{stem}`
//! (the file name without its extension, which `{name}` also gives an
//! instance) and `{path}` (the path below the glob's base, without the
//! extension); they are filled in before the names are parsed, so every
//! rule an output name obeys — confinement, collisions — holds for each
//! instance's own names.

use super::error::{Ctx, RecipeError};
use super::raw::{pick, RawJob, RawOutput};
use crate::source::glob::{path_order, Glob};
use crate::source::{open_data, Folder, SourceRef};
use crate::spec::FileRef;
use kiln_recipe_yaml::values::OutName;
use kiln_recipe_yaml::{Location, Spanned};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Most instances one glob may make: far above any game's model count,
/// low enough that a glob over the wrong folder (a whole disk) stops.
pub const MAX_INSTANCES: usize = 200_000;

/// The data sources a recipe's globs have opened, by path: each archive's
/// table is read once however many jobs search it, and the recipe keeps
/// them open so its instances' loads find them open too.
#[derive(Debug, Default)]
pub(super) struct Opened(RefCell<BTreeMap<PathBuf, SourceRef>>);

impl Opened {
    fn open(&self, path: &Path) -> crate::error::Result<SourceRef> {
        if let Some(s) = self.0.borrow().get(path) {
            return Ok(s.clone());
        }
        let s = open_data(path)?;
        self.0.borrow_mut().insert(path.to_path_buf(), s.clone());
        Ok(s)
    }

    /// Every source opened, to keep them open.
    pub(super) fn into_sources(self) -> Vec<SourceRef> {
        self.0.into_inner().into_values().collect()
    }
}

/// One instance of a catalogue job, before it is resolved.
pub(super) struct Instance {
    /// `<job>/<path below the base>`: unique in the recipe.
    pub(super) name: String,
    /// What `{name}` and `{stem}` give in its output names.
    pub(super) stem: String,
    /// Its own copy of the job's keys, model and output names filled in.
    pub(super) job: RawJob,
    /// The defaults, output names filled in.
    pub(super) defaults: RawJob,
    /// The matched file.
    pub(super) model: FileRef,
}

/// The instances of job `name` when its model is a glob; `None` when the
/// model is a file name.
pub(super) fn instances(
    ctx: &Ctx,
    label: &str,
    name: &str,
    at: &Location,
    j: &RawJob,
    d: &RawJob,
    opened: &Opened,
) -> Result<Option<Matches>, RecipeError> {
    let Some(m) = pick(&j.model, &d.model) else {
        return Ok(None);
    };
    let from_job = j.model.is_some();
    let l = |own: bool| match own {
        true => label.to_string(),
        false => format!("defaults (used by {label})"),
    };
    if !crate::source::glob::is_glob(&m.value) {
        if let Some(e) = pick(&j.exclude, &d.exclude) {
            return Err(ctx.err(
                &e.referenced,
                &l(j.exclude.is_some()),
                "`exclude` needs a glob `model` (one with `*` or `?`)",
            ));
        }
        return Ok(None);
    }
    let err = |msg: String| ctx.err(&m.referenced, &l(from_job), msg);
    let glob =
        Glob::parse(&m.value).map_err(|e| err(format!("`model` glob `{}`: {e}", m.value)))?;
    let excludes = match pick(&j.exclude, &d.exclude) {
        Some(e) => e
            .value
            .0
            .iter()
            .map(|x| {
                Glob::parse(x).map_err(|why| {
                    ctx.err(
                        &e.referenced,
                        &l(j.exclude.is_some()),
                        format!("`exclude` glob `{x}`: {why}"),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    // The recipe's folder first (as a model named by its path is read from
    // disk first), then the data sources in their order.
    let (disk_root, glob) = rooted(ctx.base, &m.value, glob);
    let disk: SourceRef = std::sync::Arc::new(Folder::new(disk_root));
    let mut sources = vec![(disk, true)];
    for p in pick(&j.data, &d.data).map_or(&[][..], |v| v.value.0.as_slice()) {
        let s = opened.open(&ctx.base.join(p)).map_err(|e| {
            ctx.err(
                &m.referenced,
                &l(from_job),
                format!("data source `{p}`: {e}"),
            )
        })?;
        sources.push((s, false));
    }
    let mut seen = BTreeSet::new();
    let mut found: Vec<Found> = Vec::new();
    let mut matched = 0usize;
    for (source, on_disk) in &sources {
        for (hit, location) in glob.walk(source.as_ref()) {
            matched += 1;
            if excludes.iter().any(|x| x.matches_path(&hit.path)) {
                continue;
            }
            // Names equal in the game's rules: the first source's wins, as
            // in every lookup.
            if !seen.insert(hit.path.to_ascii_lowercase()) {
                continue;
            }
            // A file found on disk is named by where it is, whatever
            // spelling of its name the disk uses.
            found.push(Found {
                below: hit.path.len() - hit.below_base.len(),
                path: hit.path,
                disk: on_disk.then_some(location),
            });
            if found.len() > MAX_INSTANCES {
                return Err(err(format!(
                    "`model` glob `{}` matches more than {MAX_INSTANCES} files; narrow it",
                    m.value
                )));
            }
        }
    }
    if found.is_empty() {
        let searched: Vec<String> = sources.iter().map(|(s, _)| s.describe()).collect();
        let why = match matched {
            0 => "matches no file".to_string(),
            n => format!("matches {n} file(s), all left out by `exclude`"),
        };
        let notes: String = sources
            .iter()
            .filter_map(|(s, _)| s.listing_note())
            .map(|n| format!("; {n}"))
            .collect();
        return Err(err(format!(
            "`model` glob `{}` {why} in {} (searched below `{}`){notes}",
            m.value,
            searched.join(", "),
            glob.base()
        )));
    }
    // One order whichever source held each file, so a folder and the
    // archive it was extracted from give the same instances in turn.
    found.sort_by(|a, b| path_order(&a.path, &b.path));
    for hit in &found {
        if hit.below_base().contains(['{', '}']) {
            return Err(err(format!(
                "`{}` has `{{` or `}}` in its name, which output names cannot hold; leave it out with `exclude`",
                hit.path
            )));
        }
        // An archive's names are its maker's: one climbing with `..` would
        // steer `{path}` out of the output folder.
        if !crate::source::entries::safe_relative(hit.below_base().as_bytes()) {
            return Err(err(format!(
                "`{}` cannot name an output (a `..`, a drive, a device name or a control character in its name); leave it out with `exclude`",
                hit.path
            )));
        }
    }
    Ok(Some(Matches {
        job: name.to_string(),
        at: *at,
        model_at: (m.referenced, m.defined),
        found,
    }))
}

/// What a catalogue job's glob matched, in instance order. An instance is
/// made when it is asked for ([`Matches::instance`]): each carries a copy
/// of the job's keys, far larger than the match, so a catalogue of
/// thousands never holds them all.
#[derive(Debug, Clone)]
pub(super) struct Matches {
    job: String,
    at: Location,
    model_at: (Location, Location),
    found: Vec<Found>,
}

/// One file a glob matched, in one allocation or two: a catalogue holds
/// one per instance.
#[derive(Debug, Clone)]
struct Found {
    /// Its path: the glob's base as written, the rest as the source
    /// spells it.
    path: String,
    /// Where the part below the glob's base starts in `path`.
    below: usize,
    /// Where it is, for a file found on disk (its name as the disk spells
    /// it); `None` for one in a data source, found by `path`.
    disk: Option<PathBuf>,
}

impl Found {
    fn below_base(&self) -> &str {
        &self.path[self.below..]
    }

    /// The model file, read from disk where it was found there.
    fn file(&self, base: &Path) -> FileRef {
        match &self.disk {
            Some(d) => FileRef {
                disk: d.clone(),
                written: self.path.clone(),
            },
            None => FileRef::relative_to(base, &self.path),
        }
    }
}

impl Matches {
    /// How many instances there are.
    pub(super) fn len(&self) -> usize {
        self.found.len()
    }

    /// Instance `n`'s name, `<job>/<path below the base>`.
    pub(super) fn name(&self, n: usize) -> String {
        format!("{}/{}", self.job, self.found[n].below_base())
    }

    /// Instance `n` of job keys `j` over defaults `d`, paths relative to
    /// the recipe's folder `base`.
    pub(super) fn instance(&self, n: usize, j: &RawJob, d: &RawJob, base: &Path) -> Instance {
        let hit = &self.found[n];
        let (referenced, defined) = self.model_at;
        let (stem, path) = stem_and_path(hit.below_base());
        let mut job = j.clone();
        let mut defaults = d.clone();
        job.model = Some(Spanned::new(hit.path.clone(), referenced, defined));
        let dir_of = |r: &RawJob| r.output.as_ref().and_then(|o| o.dir.as_ref().map(|_| ()));
        if dir_of(j).or(dir_of(d)).is_none() {
            let o = job.output.get_or_insert_with(RawOutput::default);
            o.dir = Some(Spanned::new(
                format!("out/{}/{{path}}", self.job),
                self.at,
                self.at,
            ));
        }
        for o in [job.output.as_mut(), defaults.output.as_mut()]
            .into_iter()
            .flatten()
        {
            fill(o, &path);
        }
        Instance {
            name: self.name(n),
            stem,
            job,
            defaults,
            model: hit.file(base),
        }
    }
}

/// An absolute glob is walked from its file system root, a relative one
/// from the recipe's folder.
fn rooted(base: &Path, written: &str, glob: Glob) -> (PathBuf, Glob) {
    let p = Path::new(written);
    if !p.is_absolute() {
        return (base.to_path_buf(), glob);
    }
    let root: PathBuf = p
        .components()
        .take_while(|c| {
            matches!(
                c,
                std::path::Component::Prefix(_) | std::path::Component::RootDir
            )
        })
        .collect();
    let rest = p
        .strip_prefix(&root)
        .unwrap_or(p)
        .to_string_lossy()
        .into_owned();
    match Glob::parse(&rest) {
        Ok(g) => (root, g),
        Err(_) => (root, glob),
    }
}

/// `prontera/house.rsm` → (`house`, `prontera/house`).
fn stem_and_path(below: &str) -> (String, String) {
    let (dir, file) = match below.rsplit_once('/') {
        Some((d, f)) => (Some(d), f),
        None => (None, below),
    };
    let stem = match file.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => file,
    };
    let path = match dir {
        Some(d) => format!("{d}/{stem}"),
        None => stem.to_string(),
    };
    (stem.to_string(), path)
}

/// `{stem}` and `{path}` filled into every output name of `o`.
fn fill(o: &mut RawOutput, path: &str) {
    let put = |s: &str| s.replace("{stem}", "{name}").replace("{path}", path);
    if let Some(d) = o.dir.as_mut() {
        d.value = put(&d.value);
    }
    for n in [
        &mut o.frames,
        &mut o.sheet,
        &mut o.meta,
        &mut o.gif,
        &mut o.gltf,
        &mut o.apng,
        &mut o.ro_sprite,
    ]
    .into_iter()
    .flatten()
    {
        if let OutName::Name(t) = &mut n.value {
            *t = put(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_and_paths_drop_the_extension_only() {
        assert_eq!(
            stem_and_path("a/b/house.rsm"),
            ("house".into(), "a/b/house".into())
        );
        assert_eq!(
            stem_and_path("house.tar.gz"),
            ("house.tar".into(), "house.tar".into())
        );
        assert_eq!(
            stem_and_path(".hidden"),
            (".hidden".into(), ".hidden".into())
        );
    }
}
