//! Golden-image checks: bake recipes in memory and compare every file with
//! its reference — by default the file already at the output's own path
//! (the committed goldens), or the same relative path under a reference
//! folder. Images within a tolerance, JSON structurally, GIF/APNG frame by
//! frame; every mismatch leaves a three-panel diff image. `kiln verify` and
//! a Rust test call the same [`verify`].

pub mod compare;
mod junit;
mod report;
pub use report::{Attachments, FrameCheck};

use crate::bake::batch::bake_into;
use crate::bake::options::{BakeOptions, OutputMode, Progress};
use crate::bake::outputs::sink::{OutputRecord, OutputStatus, Sink};
use crate::bake::recipe::Recipe;
use crate::bake::report::BakeReport;
use crate::confined::{Contents, Root};
use crate::error::{Error, Result};
use crate::output::encode_png;
use compare::{compare_files, Tolerance, Verdict};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// How a verify runs.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// Which jobs, data sources, threads, shard (the output mode is ignored:
    /// nothing is written but references and diffs).
    pub bake: BakeOptions,
    /// Compare with `<reference>/<output path>` instead of the file at the
    /// output's own path. Output paths are taken relative to the current
    /// folder.
    pub reference: Option<PathBuf>,
    /// How far images may stray.
    pub tolerance: Tolerance,
    /// Where diff images go (`<diff_dir>/<output path>.diff.png`); the
    /// default is `kiln-diff`.
    pub diff_dir: Option<PathBuf>,
    /// Rewrite references that differ or are missing instead of failing.
    pub update: bool,
    /// Write an HTML report here (`index.html` and the pictures of every
    /// file that did not match).
    pub report: Option<PathBuf>,
}

/// What became of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckStatus {
    /// Within tolerance of its reference.
    Match,
    /// Differs from its reference.
    Mismatch,
    /// No reference file.
    Missing,
    /// Differed (or was missing); the reference was rewritten.
    Updated,
}

impl CheckStatus {
    /// `match`, `mismatch`, `missing` or `updated`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Match => "match",
            CheckStatus::Mismatch => "mismatch",
            CheckStatus::Missing => "missing",
            CheckStatus::Updated => "updated",
        }
    }
}

/// One baked file against its reference.
#[derive(Debug, Clone)]
pub struct FileCheck {
    /// The output's path.
    pub output: PathBuf,
    /// The reference compared with.
    pub reference: PathBuf,
    /// What was found.
    pub status: CheckStatus,
    /// Differing pixels (images), 0 otherwise.
    pub differing_pixels: u64,
    /// The largest channel difference (images), 0 otherwise.
    pub worst_delta: u8,
    /// What differs, in words (empty for a match).
    pub detail: String,
    /// The diff image written for a pixel mismatch.
    pub diff: Option<PathBuf>,
    /// What `--report` kept of a file that did not match.
    pub attachments: Option<report::Attachments>,
}

/// What a verify found.
#[derive(Debug)]
pub struct VerifyReport {
    /// The bake (jobs that failed are failures too).
    pub bake: BakeReport,
    /// Every file, in the order the bake made them.
    pub files: Vec<FileCheck>,
    /// The HTML report written (`--report`).
    pub page: Option<PathBuf>,
}

impl VerifyReport {
    /// Every job baked and every file matched (or was updated).
    pub fn passed(&self) -> bool {
        self.bake.failed() == 0
            && self
                .files
                .iter()
                .all(|f| matches!(f.status, CheckStatus::Match | CheckStatus::Updated))
    }

    /// Files with `status`.
    pub fn count(&self, status: CheckStatus) -> usize {
        self.files.iter().filter(|f| f.status == status).count()
    }

    /// A JUnit XML report (one test case per file, one per failed job), as
    /// CI systems (GitHub, GitLab, Jenkins) show them.
    pub fn junit(&self) -> String {
        junit::report(self)
    }

    /// A machine-readable summary.
    pub fn to_json(&self) -> serde_json::Value {
        let files: Vec<serde_json::Value> = self
            .files
            .iter()
            .map(|f| {
                serde_json::json!({
                    "output": f.output.display().to_string(),
                    "reference": f.reference.display().to_string(),
                    "status": f.status.as_str(),
                    "differing_pixels": f.differing_pixels,
                    "worst_delta": f.worst_delta,
                    "detail": f.detail,
                    "diff": f.diff.as_ref().map(|d| d.display().to_string()),
                })
            })
            .collect();
        serde_json::json!({
            "passed": self.passed(),
            "files": files,
            "report": self.page.as_ref().map(|p| p.display().to_string()),
            "bake": self.bake.to_json(),
        })
    }
}

/// Loads recipe files and verifies them.
pub fn verify_files(
    recipes: &[impl AsRef<Path>],
    options: &VerifyOptions,
    progress: &dyn Progress,
) -> Result<VerifyReport> {
    let loaded = recipes
        .iter()
        .map(|p| Recipe::load(p.as_ref()).map_err(Error::from))
        .collect::<Result<Vec<_>>>()?;
    verify(&loaded, options, progress)
}

/// Bakes `recipes` without writing their outputs and compares every file
/// with its reference.
pub fn verify(
    recipes: &[Recipe],
    options: &VerifyOptions,
    progress: &dyn Progress,
) -> Result<VerifyReport> {
    let found: Arc<Mutex<Vec<FileCheck>>> = Arc::default();
    let bake_options = BakeOptions {
        mode: OutputMode::Verify,
        force: true,
        cache: None,
        ..options.bake.clone()
    };
    let make = |root: &Root| -> Box<dyn Sink> {
        Box::new(CompareSink {
            job_root: root.clone(),
            options: options.clone(),
            found: found.clone(),
            records: Mutex::new(Vec::new()),
        })
    };
    let bake = bake_into(recipes, &bake_options, progress, &make)?;
    let mut files = std::mem::take(&mut *found.lock().unwrap_or_else(|e| e.into_inner()));
    // Jobs check their files side by side; the report lists them job by
    // job in recipe order, each job's in the order it wrote them, so two
    // runs print the same lines in the same order.
    // Checks hold normalized paths; the report's may be spelled
    // `recipes/../out/x`, so both are normalized to match.
    let order: std::collections::HashMap<PathBuf, usize> = bake
        .files()
        .into_iter()
        .enumerate()
        .map(|(i, f)| (crate::paths::normalize(f), i))
        .collect();
    let mut keyed: Vec<(usize, FileCheck)> = files
        .drain(..)
        .map(|f| (order.get(&f.output).copied().unwrap_or(usize::MAX), f))
        .collect();
    keyed.sort_by_key(|(i, _)| *i);
    let files = keyed.into_iter().map(|(_, f)| f).collect();
    let report = VerifyReport {
        bake,
        files,
        page: None,
    };
    match &options.report {
        None => Ok(report),
        Some(dir) => {
            let page = report::write_index(dir, &report, &options.tolerance)?;
            Ok(VerifyReport {
                page: Some(page),
                ..report
            })
        }
    }
}

/// Where an output's counterpart goes below another folder (a reference
/// folder, the diff folder): its path relative to the current folder, or
/// for an output elsewhere its whole path without the root, `/`-separated.
/// `..` that would climb out is refused.
fn mirrored(path: &Path) -> Result<String> {
    let n = crate::paths::normalize(path);
    let rel = match std::env::current_dir() {
        Ok(cwd) if n.is_absolute() => n
            .strip_prefix(crate::paths::normalize(&cwd))
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| n.clone()),
        _ => n.clone(),
    };
    let mut out: Vec<String> = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(x) => out.push(x.to_string_lossy().into_owned()),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            Component::ParentDir => {
                return Err(Error::Usage(format!(
                    "{}: outside the current folder; run verify from a folder above the outputs",
                    path.display()
                )))
            }
        }
    }
    Ok(out.join("/"))
}

/// Compares a job's files with their references; writes references
/// (`--update`) and diffs, each below its own root by the write rule.
struct CompareSink {
    /// The job's folder: where its references are without `--reference`.
    job_root: Root,
    options: VerifyOptions,
    found: Arc<Mutex<Vec<FileCheck>>>,
    records: Mutex<Vec<OutputRecord>>,
}

impl CompareSink {
    /// The root the reference of `path` is in, and its name there.
    fn reference(&self, path: &Path) -> Result<(Root, String)> {
        match &self.options.reference {
            None => Ok((self.job_root.clone(), self.job_root.name_of(path)?)),
            Some(r) => Ok((Root::new(r), mirrored(path)?)),
        }
    }

    /// The diff folder, and the name of `path`'s diff in it.
    fn diff(&self, path: &Path) -> Result<(Root, String)> {
        let dir = self
            .options
            .diff_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from("kiln-diff"));
        Ok((Root::new(dir), format!("{}.diff.png", mirrored(path)?)))
    }
}

impl Sink for CompareSink {
    /// Files a bake would prune are no outputs: nothing to compare.
    fn remove(&self, _: &Path) -> Result<()> {
        Ok(())
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        let (ref_root, ref_name) = self.reference(path)?;
        let reference = ref_root.path_of(&ref_name);
        let mut check = FileCheck {
            output: crate::paths::normalize(path),
            reference: crate::paths::normalize(&reference),
            status: CheckStatus::Match,
            differing_pixels: 0,
            worst_delta: 0,
            detail: String::new(),
            diff: None,
            attachments: None,
        };
        let limit = crate::source::disk::input_limit(crate::source::disk::DEFAULT_INPUT_LIMIT);
        let mut old = None;
        match ref_root.read(&ref_name, limit)? {
            Contents::Missing => {
                check.status = CheckStatus::Missing;
                check.detail = "no reference file".into();
            }
            Contents::Over(n) => {
                check.status = CheckStatus::Mismatch;
                check.detail = format!("the reference is {n} bytes, more than kiln reads");
            }
            Contents::Bytes(b) => {
                match compare_files(old.insert(b), bytes, &self.options.tolerance) {
                    Verdict::Match => {}
                    Verdict::Pixels {
                        differing,
                        worst,
                        frame,
                        panels,
                    } => {
                        check.status = CheckStatus::Mismatch;
                        check.differing_pixels = differing;
                        check.worst_delta = worst;
                        check.detail = match frame {
                        Some(f) => format!("{differing} pixels differ (first in frame {f}), worst channel delta {worst}"),
                        None => format!("{differing} pixels differ, worst channel delta {worst}"),
                    };
                        let (diff_root, diff_name) = self.diff(path)?;
                        diff_root.write(&diff_name, &encode_png(&panels)?)?;
                        check.diff = Some(diff_root.path_of(&diff_name));
                    }
                    Verdict::Other(why) => {
                        check.status = CheckStatus::Mismatch;
                        check.detail = why;
                    }
                }
            }
        }
        if let (Some(dir), true) = (&self.options.report, check.status != CheckStatus::Match) {
            check.attachments = Some(report::attach(
                &Root::new(dir),
                &mirrored(path)?,
                old.as_deref(),
                bytes,
                &self.options.tolerance,
            )?);
        }
        if self.options.update && check.status != CheckStatus::Match {
            ref_root.write(&ref_name, bytes)?;
            check.status = CheckStatus::Updated;
        }
        let outcome = match check.status {
            CheckStatus::Match => OutputStatus::Same,
            CheckStatus::Mismatch => OutputStatus::Different,
            CheckStatus::Missing => OutputStatus::Missing,
            CheckStatus::Updated => OutputStatus::Written,
        };
        self.records
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(OutputRecord {
                path: path.to_path_buf(),
                len: bytes.len(),
                outcome,
            });
        self.found
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(check);
        Ok(())
    }

    fn records(&self) -> Vec<OutputRecord> {
        self.records
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}
