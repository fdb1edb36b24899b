//! `kiln verify`: recipes baked in memory and compared with their
//! references.

use super::progress::progress_bar;
use super::{emit, fail, load_recipes};
use clap::Args;
use kiln::{limits, BakeOptions, CheckStatus};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct VerifyArgs {
    /// Recipe files (YAML); `-` reads one from standard input
    #[arg(required = true)]
    recipes: Vec<PathBuf>,
    /// Compare with the same relative paths under this folder instead of the files at the outputs' own paths
    #[arg(long, value_name = "DIR")]
    reference: Option<PathBuf>,
    /// A pixel differs when a channel differs by more than N
    #[arg(long, value_name = "N", default_value_t = 0)]
    tolerance: u8,
    /// How many pixels may differ per image: a count or a percentage (e.g. 0.1%)
    #[arg(long, value_name = "N|P%", value_parser = kiln::PixelBudget::parse, default_value = "0")]
    max_diff_pixels: kiln::PixelBudget,
    /// Ignore differences a one-pixel shift of an edge explains (anti-aliasing)
    #[arg(long)]
    aa: bool,
    /// Where diff images go
    #[arg(long, value_name = "DIR", default_value = "kiln-diff")]
    diff_dir: PathBuf,
    /// Rewrite references that differ or are missing, and say which
    #[arg(long)]
    update: bool,
    /// Write a JUnit XML report
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write an HTML report to DIR/index.html: every file's verdict, each mismatch's reference, actual and difference side by side
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// Print the result as JSON on standard output
    #[arg(long)]
    json: bool,
    /// Verify only the jobs with these names (repeatable)
    #[arg(long = "only", value_name = "NAME")]
    only: Vec<String>,
    /// Worker threads (default: one per core)
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=limits::MAX_THREADS as i64))]
    threads: Option<u32>,
    /// Verify shard K of N only
    #[arg(long, value_name = "K/N|auto", value_parser = kiln::Shard::parse)]
    shard: Option<kiln::Shard>,
}

/// Exit code: 0 every file matches, 1 a mismatch, a missing reference or a
/// failed job, else the error's own (2 a usage or recipe error).
pub fn run(a: VerifyArgs) -> ExitCode {
    let recipes = match load_recipes(&a.recipes, None) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let progress = progress_bar(true);
    let options = kiln::VerifyOptions {
        bake: BakeOptions {
            only: a.only.clone(),
            threads: a.threads.map(|n| n as usize),
            shard: a.shard,
            ..BakeOptions::default()
        },
        reference: a.reference.clone(),
        tolerance: kiln::Tolerance {
            channel: a.tolerance,
            pixels: a.max_diff_pixels,
            antialiasing: a.aa,
        },
        diff_dir: Some(a.diff_dir.clone()),
        update: a.update,
        report: a.report.clone(),
    };
    let report = match kiln::verify(&recipes, &options, &progress) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    for f in &report.files {
        match f.status {
            CheckStatus::Match => {}
            CheckStatus::Updated => {
                say!("kiln: updated {}: {}", f.reference.display(), f.detail)
            }
            s => {
                let diff = f
                    .diff
                    .as_ref()
                    .map(|d| format!(" (diff {})", d.display()))
                    .unwrap_or_default();
                say!(
                    "kiln: {} {}: {}{diff}",
                    s.as_str(),
                    f.output.display(),
                    f.detail
                );
            }
        }
    }
    if let Some(page) = &report.page {
        say!("kiln: report {}", page.display());
    }
    if let Some(path) = &a.junit {
        if let Err(e) = kiln::write_file(path, report.junit().as_bytes()) {
            return fail(&e);
        }
    }
    if a.json {
        let text = serde_json::to_string_pretty(&report.to_json()).unwrap_or_default();
        if let Err(e) = emit(&format!("{text}\n")) {
            return fail(&e);
        }
    }
    let failed = report.bake.failed();
    say!(
        "kiln: verified {} files: {} match, {} differ, {} missing, {} updated{}",
        report.files.len(),
        report.count(CheckStatus::Match),
        report.count(CheckStatus::Mismatch),
        report.count(CheckStatus::Missing),
        report.count(CheckStatus::Updated),
        if failed > 0 {
            format!(", {failed} job(s) FAILED")
        } else {
            String::new()
        }
    );
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
