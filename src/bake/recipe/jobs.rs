//! A recipe's jobs in order, as the bake takes them: a job written out is
//! resolved once, when the recipe is read; a catalogue instance is
//! resolved again each time it is asked for, from the catalogue's keys and
//! its match.
//!
//! A resolved job is a few kilobytes (its clips, look, output names and
//! their matchers), its match a few hundred bytes; held resolved, a
//! catalogue of thousands would grow the bake's memory by megabytes with
//! every thousand models. Resolved on the worker that bakes it, an
//! instance lives as long as its bake. Resolving is what the recipe's
//! reading already did for each instance (to check it and claim its
//! files), so it gives the same job — or, when `clips: all` reads a model
//! that changed since, an error that fails the instance alone.

use super::catalogue::Matches;
use super::error::Ctx;
use super::job::{resolve_job, Job, Who};
use super::output::Sites;
use super::raw::RawJob;
use super::RecipeError;
use kiln_recipe_yaml::Location;
use std::borrow::Cow;

/// The jobs of one recipe.
#[derive(Debug, Clone, Default)]
pub(super) struct JobList {
    slots: Vec<Slot>,
    /// The index of each slot's first job.
    starts: Vec<usize>,
    count: usize,
}

#[derive(Debug, Clone)]
enum Slot {
    One(Box<Job>),
    Catalogue(Box<Catalogue>),
}

/// A catalogue job: what each of its instances is resolved from.
#[derive(Clone)]
pub(super) struct Catalogue {
    /// How messages name the job.
    pub(super) label: String,
    /// Where the job's entry is.
    pub(super) at: Location,
    /// Its keys and the recipe's defaults, as written.
    pub(super) keys: RawJob,
    pub(super) defaults: RawJob,
    pub(super) matches: Matches,
    /// The output sites its instances share (they name their outputs at
    /// the same lines): one copy for all of them.
    pub(super) sites: Option<Sites>,
}

impl std::fmt::Debug for Catalogue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalogue")
            .field("label", &self.label)
            .field("matches", &self.matches)
            .finish_non_exhaustive()
    }
}

impl Catalogue {
    /// How messages name the instance of model `written`.
    pub(super) fn label_of(&self, written: &str) -> String {
        format!("{} ({written})", self.label)
    }

    /// Instance `n`, resolved.
    pub(super) fn resolve(&self, ctx: &Ctx, n: usize) -> Result<Job, RecipeError> {
        let inst = self
            .matches
            .instance(n, &self.keys, &self.defaults, ctx.base);
        let label = self.label_of(&inst.model.written);
        let who = Who {
            label: &label,
            name: &inst.name,
            file_name: &inst.stem,
            model: Some(inst.model),
        };
        let mut job = resolve_job(ctx, &who, &self.at, &inst.job, &inst.defaults)?;
        if let Some(s) = self.sites.as_ref().filter(|s| **s == job.output.sites) {
            job.output.sites = s.clone();
        }
        Ok(job)
    }
}

impl JobList {
    pub(super) fn push_one(&mut self, job: Job) {
        self.starts.push(self.count);
        self.count += 1;
        self.slots.push(Slot::One(Box::new(job)));
    }

    pub(super) fn push_catalogue(&mut self, c: Catalogue) {
        self.starts.push(self.count);
        self.count += c.matches.len();
        self.slots.push(Slot::Catalogue(Box::new(c)));
    }

    /// How many jobs, each instance counted.
    pub(super) fn len(&self) -> usize {
        self.count
    }

    /// The slot job `k` is in, and its place among the slot's instances.
    fn locate(&self, k: usize) -> (&Slot, usize) {
        let s = self.starts.partition_point(|&start| start <= k) - 1;
        (&self.slots[s], k - self.starts[s])
    }

    /// Job `k`'s name, without resolving it. `k < len()`.
    pub(super) fn name(&self, k: usize) -> Cow<'_, str> {
        match self.locate(k) {
            (Slot::One(j), _) => Cow::Borrowed(&j.name),
            (Slot::Catalogue(c), n) => Cow::Owned(c.matches.name(n)),
        }
    }

    /// Job `k`, resolved now if it is a catalogue instance. `k < len()`.
    pub(super) fn get(&self, ctx: &Ctx, k: usize) -> Result<Cow<'_, Job>, RecipeError> {
        match self.locate(k) {
            (Slot::One(j), _) => Ok(Cow::Borrowed(j)),
            (Slot::Catalogue(c), n) => c.resolve(ctx, n).map(Cow::Owned),
        }
    }
}
