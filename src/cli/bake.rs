//! `kiln bake`: every job and map of the recipes, with a progress bar and a
//! summary.

use super::job_flags::JobFlags;
use super::progress::progress_bar;
use super::{emit, fail, load_recipes};
use clap::Args;
use kiln::{limits, BakeOptions, JobStatus, OutputMode, Recipe};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct BakeArgs {
    /// Recipe files (YAML); `-` reads one from standard input (relative paths in it are taken from the current folder)
    #[arg(required_unless_present = "model", conflicts_with = "model")]
    recipes: Vec<PathBuf>,
    #[command(flatten)]
    job: JobFlags,
    /// Worker threads (default: one per core)
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=limits::MAX_THREADS as i64))]
    threads: Option<u32>,
    /// Bake only the jobs with these names (repeatable)
    #[arg(long = "only", value_name = "NAME")]
    only: Vec<String>,
    /// No progress bar and no per-job lines; errors and the summary still print
    #[arg(short, long)]
    quiet: bool,
    /// Bake every job, even those whose inputs and outputs are unchanged since the last bake
    #[arg(long)]
    force: bool,
    /// A folder of baked files by content, shared between bakes and machines (a CI cache)
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Write a Makefile dependency file: each job's outputs depend on every file it read
    #[arg(long, value_name = "FILE")]
    depfile: Option<PathBuf>,
    /// Write nothing; exit 1 and list the jobs that a bake would re-bake
    #[arg(long, conflicts_with = "dry_run")]
    check: bool,
    /// Write nothing; say which jobs would be baked and which files written
    #[arg(long)]
    dry_run: bool,
    /// Print a summary as JSON on standard output (per job: status, outputs, inputs, time, warnings)
    #[arg(long)]
    json: bool,
    /// Bake shard K of N (1-based), or `auto` (KILN_SHARD, Kubernetes JOB_COMPLETION_INDEX with KILN_SHARD_COUNT, Slurm array variables)
    #[arg(long, value_name = "K/N|auto", value_parser = kiln::Shard::parse)]
    shard: Option<kiln::Shard>,
    /// Remove files an earlier bake of a job wrote and this one does not (as `output: { prune: true }`)
    #[arg(long)]
    prune: bool,
    /// Memory a job's rendered frames and sheet may take at once, e.g. 512M, 8G
    /// (default 4G); a job needing more fails before rendering
    #[arg(long = "memory-limit", value_name = "SIZE", value_parser = kiln::parse_bytes)]
    memory_limit: Option<u64>,
    /// Also list each job's time, content key, every file it wrote (or kept) and every file it read
    #[arg(short, long, conflicts_with = "quiet")]
    verbose: bool,
    /// Output root: every job's `output.dir` (and map's `output`) resolves below DIR instead of the recipe's folder, and must stay inside it
    #[arg(long = "out-dir", value_name = "DIR")]
    out_dir: Option<PathBuf>,
}

/// What messages call the recipe `--model` and its flags make; relative
/// paths in it are taken from the current folder, as a recipe on standard
/// input's are.
const FLAGS_RECIPE: &str = "<command line>";

/// Runs every job; a failed job is reported and the others still run.
/// Exit code: 0 all good, 1 a job failed (or, with --check, a job is
/// stale), else the error's own (2 a recipe could not be read).
pub fn run(a: BakeArgs) -> ExitCode {
    let started = std::time::Instant::now();
    let flags_recipe = a.job.recipe();
    if let (Some(text), true) = (&flags_recipe, a.job.print_recipe) {
        return match emit(text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&e),
        };
    }
    let loaded = match &flags_recipe {
        Some(text) => Recipe::from_str(text, std::path::Path::new(FLAGS_RECIPE))
            .map(|r| vec![r])
            .map_err(|e| kiln::Error::Usage(e.to_string())),
        None => load_recipes(&a.recipes, a.out_dir.as_deref()),
    };
    let recipes = match loaded {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let mut progress = progress_bar(a.quiet);
    progress.verbose = a.verbose;
    let mode = if a.check {
        OutputMode::Check
    } else if a.dry_run {
        OutputMode::DryRun
    } else {
        OutputMode::Write
    };
    let options = BakeOptions {
        only: a.only.clone(),
        threads: a.threads.map(|n| n as usize),
        mode,
        force: a.force,
        cache: a.cache.clone(),
        shard: a.shard,
        prune: a.prune,
        memory_limit: a.memory_limit,
        out_dir: a.out_dir.clone(),
        // Warnings are printed as each job ends; only --json and a dry
        // run's list read the rest at the end.
        summary_only: !a.json && mode != OutputMode::DryRun,
        ..BakeOptions::default()
    };
    let report = match kiln::bake(&recipes, &options, &progress) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    progress.bar.finish_and_clear();
    if let Some(dep) = &a.depfile {
        let written = report
            .depfile()
            .and_then(|text| kiln::write_file(dep, text.as_bytes()));
        if let Err(e) = written {
            return fail(&e);
        }
    }
    if a.json {
        let text = serde_json::to_string_pretty(&report.to_json()).unwrap_or_default();
        if let Err(e) = emit(&format!("{text}\n")) {
            return fail(&e);
        }
    }
    if mode == OutputMode::DryRun && !a.quiet && !a.json {
        for line in report.would_write() {
            say!("kiln: {line}");
        }
    }
    let failed = report.failed();
    let stale = report.count(JobStatus::Stale);
    let mut extra = String::new();
    for (n, what) in [
        (report.count(JobStatus::Skipped), "up to date"),
        (report.count(JobStatus::Restored), "from the cache"),
        (stale, "stale"),
    ] {
        if n > 0 {
            extra.push_str(&format!(", {n} {what}"));
        }
    }
    if failed > 0 {
        extra.push_str(&format!(", {failed} FAILED"));
    }
    let verb = match mode {
        OutputMode::Check => "checked",
        OutputMode::DryRun => "dry-ran",
        _ => "baked",
    };
    say!(
        "kiln: {verb} {} of {} job(s): {} images, {} files in {:.2} s{extra}",
        report.succeeded(),
        report.jobs.len(),
        report.images(),
        report.files().len(),
        started.elapsed().as_secs_f64()
    );
    if failed == 0 && stale == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
