//! Recipes: a YAML file holding several bake jobs and map previews, turned
//! into fully resolved [`Job`]s and [`MapJob`]s the run loop can use without
//! further checks.
//!
//! Parsing is two-layered. serde (through serde-saphyr, in the crate
//! `kiln-recipe-yaml`, which holds the recipe's YAML shape) does the typing
//! and rejects unknown keys; every value we still have to check is wrapped
//! in [`Spanned`](kiln_recipe_yaml::Spanned) so a range error can point at
//! its own line and column. Because a serde error does not know which job it
//! happened in, a second, lenient parse of the same text finds where each
//! job starts so the message can still name the job.
//!
//! One file per concern, each named for what it reads or resolves into.
//! Each uses only the files above it in this list, so the module has no
//! cycles (the resolved types live with their resolution, which is why
//! [`Direction`] has a file of its own: templates fill it in, jobs hold it):
//!
//! - `defaults`: the values a recipe gets for keys it leaves out, and limits.
//! - `error`: [`RecipeError`], the context resolvers report through, and
//!   the lenient parse that labels serde errors with their job.
//! - `values`: the range checks every part shares, over the recipe's own
//!   scalar types (numbers, sizes, colours, `directions`, `lod`, ...).
//! - `raw` (the crate `kiln-recipe-yaml`, docs/design.md says why it is a
//!   crate of its own): the whole file as serde reads it, jobs and maps.
//! - `metadata`: the engine formats a job can describe its sheet in, and
//!   their file names.
//! - `directions`, `template`, `clips`, `pack`, `output`: one part of a
//!   job each, its resolved type and how it resolves.
//! - `job`: a job entry merged with `defaults:` into a [`Job`].
//! - `maps`: the `maps:` section into [`MapJob`]s.
//! - this file: [`Recipe`], which runs the parse, resolves every entry and
//!   checks what no single entry can see: names and output files shared
//!   across jobs and maps, and framing groups whose jobs must share one
//!   camera.

mod catalogue;
mod client_sprite;
mod clips;
pub mod defaults;
mod directions;
mod error;
mod gallery;
mod job;
mod jobs;
mod look;
mod maps;
mod metadata;
mod mistakes;
mod output;
mod pack;
pub mod pattern;
use kiln_recipe_yaml::raw;
mod template;
mod values;

pub use client_sprite::{ClientSpriteSpec, SpriteImages};
pub use clips::ClipSpec;
pub use directions::Direction;
pub use error::RecipeError;
pub use gallery::GallerySpec;
pub use job::{FramingGroup, Job};
pub use maps::{GifSpec, MapJob, MapViewCamera, MapViewSpec};
pub use metadata::{page_path, MetaFormat};
pub use output::Outputs;
pub use pack::PackSpec;
pub use template::{Matcher, Template};
pub use values::PackLayout;

use error::{job_label, Ctx};
use kiln_recipe_yaml::Location;
use pattern::{job_patterns, map_patterns, PatternIndex};
use raw::{RawJob, RawRecipe};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use values::{check_file_name, S};

/// A parsed, validated recipe.
#[derive(Debug, Clone)]
pub struct Recipe {
    path: PathBuf,
    /// The text it was parsed from, to resolve again below an output root.
    text: String,
    /// The output root its folders lie below, if any.
    out_dir: Option<PathBuf>,
    jobs: jobs::JobList,
    maps: Vec<MapJob>,
    /// Its page of every job, if it asks for one.
    gallery: Option<GallerySpec>,
    /// The archives catalogue globs searched, kept open so the instances'
    /// loads find their tables read.
    #[allow(dead_code)]
    opened: std::sync::Arc<Vec<crate::source::SourceRef>>,
}

impl Recipe {
    /// Reads and validates a recipe file.
    pub fn load(path: &Path) -> Result<Recipe, RecipeError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| RecipeError::whole_file(path, format!("cannot read recipe: {e}")))?;
        Recipe::from_str(&text, path)
    }

    /// Reads and validates a recipe file with its output folders below
    /// `out_dir`: [`Recipe::load`] then [`Recipe::below`], parsed once.
    pub fn load_below(path: &Path, out_dir: &Path) -> Result<Recipe, RecipeError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| RecipeError::whole_file(path, format!("cannot read recipe: {e}")))?;
        Recipe::parse(&text, path, Some(out_dir))
    }

    /// Parses and validates recipe `text`; `path` names the file in messages
    /// and its folder is the base for every relative path in the recipe.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str, path: &Path) -> Result<Recipe, RecipeError> {
        Recipe::parse(text, path, None)
    }

    /// This recipe with every job's `output.dir` and every map's `output`
    /// resolved below `out_dir` instead of the recipe's folder (the rest of
    /// its paths still from the recipe's folder): what a bake with
    /// [`BakeOptions::out_dir`](crate::BakeOptions::out_dir) writes. A
    /// folder that is absolute or climbs out of `out_dir` with `..` is an
    /// error at its line.
    pub fn below(&self, out_dir: &Path) -> Result<Recipe, RecipeError> {
        if self.out_dir.as_deref() == Some(out_dir) {
            return Ok(self.clone());
        }
        Recipe::parse(&self.text, &self.path, Some(out_dir))
    }

    fn parse(text: &str, path: &Path, out: Option<&Path>) -> Result<Recipe, RecipeError> {
        if let Some((line, column, message)) = mistakes::unquoted_colour_in(text) {
            return Err(RecipeError {
                file: path.to_path_buf(),
                line,
                column,
                context: None,
                message,
            });
        }
        let raw: RawRecipe =
            kiln_recipe_yaml::parse(text).map_err(|e| RecipeError::from_serde(&e, text, path))?;
        let base = path.parent().unwrap_or(Path::new(""));
        let ctx = Ctx {
            text,
            file: path,
            base,
            out,
        };
        let defaults = defaults_of(&ctx, &raw)?;
        check_not_empty(&ctx, &raw)?;
        let raw_jobs: &[S<RawJob>] = raw.jobs.as_ref().map_or(&[], |j| j.value.as_slice());
        // Names shared by jobs and maps (`--only` picks by name) → first line.
        let mut names: BTreeMap<String, u64> = BTreeMap::new();
        // Every output so far, and the job or map that writes it.
        let mut claimed: PatternIndex<Claimant> = PatternIndex::default();
        let mut jobs = jobs::JobList::default();
        let mut groups = FramingGroups::default();
        let opened = catalogue::Opened::default();
        for (i, sj) in raw_jobs.iter().enumerate() {
            let mut entry = Entry {
                names: &mut names,
                claimed: &mut claimed,
                groups: &mut groups,
                opened: &opened,
            };
            entry.resolve(&ctx, i, sj, &defaults, &mut jobs)?;
        }
        let raw_maps = raw.maps.as_ref().map_or(&[][..], |m| m.value.as_slice());
        let maps = maps::resolve_maps(&ctx, raw_maps, &mut names)?;
        claim_map_views(path, &maps, &mut claimed)?;
        let gallery = match &raw.gallery {
            Some(g) => Some(gallery::resolve_gallery(&ctx, g)?),
            None => None,
        };
        Ok(Recipe {
            gallery,
            path: path.to_path_buf(),
            text: text.to_string(),
            out_dir: out.map(Path::to_path_buf),
            jobs,
            maps,
            opened: std::sync::Arc::new(opened.into_sources()),
        })
    }

    /// The recipe file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The resolved jobs, in file order, catalogue instances one by one.
    /// An instance is resolved again here, which fails only if `clips:
    /// all` now finds a different model.
    pub fn jobs(&self) -> Result<Vec<Job>, RecipeError> {
        (0..self.job_count())
            .map(|k| self.job(k).map(std::borrow::Cow::into_owned))
            .collect()
    }

    /// The resolved map previews, in file order.
    pub fn maps(&self) -> Vec<MapJob> {
        self.maps.clone()
    }

    /// How many jobs it has, each catalogue instance counted.
    pub(crate) fn job_count(&self) -> usize {
        self.jobs.len()
    }

    /// Job `k`'s name (`k < job_count()`), without resolving it.
    pub(crate) fn job_name(&self, k: usize) -> std::borrow::Cow<'_, str> {
        self.jobs.name(k)
    }

    /// Job `k` (`k < job_count()`): a catalogue instance is resolved now,
    /// on the calling thread, and lives as long as the caller keeps it.
    pub(crate) fn job(&self, k: usize) -> Result<std::borrow::Cow<'_, Job>, RecipeError> {
        let ctx = Ctx {
            text: &self.text,
            file: &self.path,
            base: self.path.parent().unwrap_or(Path::new("")),
            out: self.out_dir.as_deref(),
        };
        self.jobs.get(&ctx, k)
    }

    /// [`Recipe::maps`] without a copy.
    pub(crate) fn map_list(&self) -> &[MapJob] {
        &self.maps
    }

    /// Its `gallery:`, if it has one.
    pub fn gallery(&self) -> Option<&GallerySpec> {
        self.gallery.as_ref()
    }

    /// The output root its folders lie below, if any.
    pub(crate) fn out_dir(&self) -> Option<&Path> {
        self.out_dir.as_deref()
    }
}

/// The `defaults:` block, which may hold any job key but `name`.
fn defaults_of(ctx: &Ctx, raw: &RawRecipe) -> Result<RawJob, RecipeError> {
    match &raw.defaults {
        Some(d) => {
            if let Some(n) = &d.value.name {
                return Err(ctx.err(
                    &n.referenced,
                    "defaults",
                    "`name` cannot have a default; every job needs its own",
                ));
            }
            Ok(d.value.clone())
        }
        None => Ok(RawJob::default()),
    }
}

/// A recipe needs at least one job or one map.
fn check_not_empty(ctx: &Ctx, raw: &RawRecipe) -> Result<(), RecipeError> {
    let no_jobs = raw.jobs.as_ref().is_none_or(|j| j.value.is_empty());
    let no_maps = raw.maps.as_ref().is_none_or(|m| m.value.is_empty());
    if !(no_jobs && no_maps) {
        return Ok(());
    }
    let at = raw
        .jobs
        .as_ref()
        .map(|j| (j.referenced, "jobs"))
        .or(raw.maps.as_ref().map(|m| (m.referenced, "maps")));
    Err(match at {
        Some((at, key)) if raw.maps.is_some() => {
            ctx.err(&at, key, "the recipe has no jobs and no maps")
        }
        Some((at, key)) => ctx.err(&at, key, "the recipe has no jobs"),
        None => RecipeError::whole_file(ctx.file, "the recipe has no `jobs:` and no `maps:`"),
    })
}

/// What resolving the jobs one by one accumulates.
struct Entry<'a> {
    /// Names shared by jobs and maps (`--only` picks by name) → first line.
    names: &'a mut BTreeMap<String, u64>,
    /// Every output so far, and the job or map that writes it.
    claimed: &'a mut PatternIndex<Claimant>,
    /// The first job of each framing group so far.
    groups: &'a mut FramingGroups,
    /// The data sources catalogue globs have opened.
    opened: &'a catalogue::Opened,
}

impl Entry<'_> {
    /// Job `i`: its name checked and unique, resolved — into one job per
    /// file when its model is a glob — its output files claimed against
    /// every earlier job's and its framing group checked; pushed onto
    /// `jobs`. A catalogue's instances are resolved one at a time, checked
    /// and dropped: the list keeps their matches (`jobs::JobList`).
    fn resolve(
        &mut self,
        ctx: &Ctx,
        i: usize,
        sj: &S<RawJob>,
        defaults: &RawJob,
        jobs: &mut jobs::JobList,
    ) -> Result<(), RecipeError> {
        let at = &sj.referenced;
        let j = &sj.value;
        let Some(name) = &j.name else {
            return Err(ctx.err(at, &job_label(None, i), "missing key `name`"));
        };
        let label = job_label(Some(&name.value), i);
        check_file_name("job", &name.value).map_err(|m| ctx.err(&name.referenced, &label, m))?;
        if let Some(first) = self.names.get(&name.value) {
            return Err(ctx.err(
                &name.referenced,
                &label,
                format!("duplicate job name; line {first} already uses it"),
            ));
        }
        self.names
            .insert(name.value.clone(), name.referenced.line());
        let Some(matches) =
            catalogue::instances(ctx, &label, &name.value, at, j, defaults, self.opened)?
        else {
            let who = job::Who {
                label: &label,
                name: &name.value,
                file_name: &name.value,
                model: None,
            };
            let job = job::resolve_job(ctx, &who, at, j, defaults)?;
            self.claim(ctx, &label, at, &job)?;
            self.groups.check(ctx.file, &job)?;
            jobs.push_one(job);
            return Ok(());
        };
        let mut catalogue = jobs::Catalogue {
            label,
            at: *at,
            keys: j.clone(),
            defaults: defaults.clone(),
            matches,
            sites: None,
        };
        for n in 0..catalogue.matches.len() {
            let job = catalogue.resolve(ctx, n)?;
            let label = catalogue.label_of(&job.model.model.written);
            self.claim(ctx, &label, at, &job)?;
            self.groups.check(ctx.file, &job)?;
            catalogue
                .sites
                .get_or_insert_with(|| job.output.sites.clone());
        }
        jobs.push_catalogue(catalogue);
        Ok(())
    }

    /// Claims `job`'s output files, refusing one an earlier job writes.
    fn claim(
        &mut self,
        ctx: &Ctx,
        label: &str,
        at: &Location,
        job: &Job,
    ) -> Result<(), RecipeError> {
        let who: std::rc::Rc<str> = label.into();
        for (key, pattern) in job_patterns(job, &job.output.dir) {
            if let Some((name, other)) = self.claimed.first_overlap(&pattern, |_| false) {
                return Err(ctx.err(
                    &job.output.site(key).unwrap_or(*at),
                    label,
                    format!("output `{name}` (`output.{key}`) is also written by {other}"),
                ));
            }
            self.claimed
                .push(pattern, Claimant::Output(who.clone(), key));
        }
        Ok(())
    }
}

/// Jobs of one framing group are drawn with one set of cameras, so they
/// must agree on everything a camera depends on: directions, pitch, frame
/// size, projection and framing. Reported at the `group` of the first job
/// that differs from the group's first. Checked job by job as the recipe
/// is read, against the first job of each group so far.
#[derive(Default)]
struct FramingGroups {
    first: BTreeMap<String, (String, Vec<f32>, crate::render::ViewSpec)>,
}

impl FramingGroups {
    fn check(&mut self, file: &Path, job: &Job) -> Result<(), RecipeError> {
        let Some(g) = &job.framing_group else {
            return Ok(());
        };
        let yaws: Vec<f32> = job.directions.iter().map(|d| d.yaw).collect();
        let Some((first, first_yaws, a)) = self.first.get(&g.name) else {
            self.first
                .insert(g.name.clone(), (job.name.clone(), yaws, job.view));
            return Ok(());
        };
        let b = &job.view;
        let differs = if *first_yaws != yaws {
            Some("`directions`")
        } else if a.pitch != b.pitch {
            Some("`pitch`")
        } else if (a.width, a.height) != (b.width, b.height) {
            Some("`size`")
        } else if a.framing != b.framing {
            Some("`camera` or `scale`")
        } else {
            None
        };
        match differs {
            Some(what) => Err(RecipeError {
                file: file.to_path_buf(),
                line: g.line,
                column: g.column,
                context: Some(format!("job '{}'", job.name)),
                message: format!(
                    "framing group `{}` shares one camera, but {what} differs from job '{first}' in the same group",
                    g.name
                ),
            }),
            None => Ok(()),
        }
    }
}

/// Who claimed an output, worded only when a later claim meets it: a
/// catalogue claims thousands, and one label serves all of a job's.
enum Claimant {
    /// A job (its label) and the output key.
    Output(std::rc::Rc<str>, &'static str),
    /// A map, by name.
    Map(std::rc::Rc<str>),
}

impl std::fmt::Display for Claimant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Claimant::Output(label, key) => write!(f, "{label} (`output.{key}`)"),
            Claimant::Map(name) => write!(f, "map '{name}'"),
        }
    }
}

/// A map view may not write a file a job writes (views among themselves are
/// checked by [`maps::resolve_maps`]).
fn claim_map_views(
    file: &Path,
    maps: &[MapJob],
    claimed: &mut PatternIndex<Claimant>,
) -> Result<(), RecipeError> {
    for m in maps {
        for (v, (_, pattern)) in m.views.iter().zip(map_patterns(m, &m.dir)) {
            if let Some((name, other)) = claimed.first_overlap(&pattern, |_| false) {
                return Err(RecipeError {
                    file: file.to_path_buf(),
                    line: v.line,
                    column: v.column,
                    context: Some(format!("map '{}' view '{}'", m.name, v.name)),
                    message: format!("output `{name}` is also written by {other}"),
                });
            }
            claimed.push(pattern, Claimant::Map(m.name.as_str().into()));
        }
    }
    Ok(())
}
