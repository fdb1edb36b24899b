//! What `kiln bake` and `kiln verify` show while they run: a progress bar
//! on a terminal and a line per job.

use kiln::{JobOutcome, JobStatus, Progress};

/// The progress bar (on a terminal only) and the per-job lines.
pub struct Bar {
    pub bar: indicatif::ProgressBar,
    quiet: bool,
    /// Each job's files and inputs too, and its warnings' job label.
    pub verbose: bool,
}

impl Progress for Bar {
    fn job_started(&self, name: &str, images: usize) {
        self.bar.set_message(name.to_string());
        self.bar.inc_length(images as u64);
    }

    fn image_done(&self) {
        self.bar.inc(1);
    }

    fn job_finished(&self, outcome: &JobOutcome) {
        let label = outcome.label();
        match &outcome.result {
            Ok(report) => {
                for w in &report.warnings {
                    self.bar.suspend(|| say!("kiln: warning: {label}: {w}"));
                }
                if !self.quiet {
                    let what = match outcome.status {
                        JobStatus::Skipped => {
                            format!("up to date, {} files", report.files.len())
                        }
                        JobStatus::Restored => {
                            format!("{} files from the cache", report.files.len())
                        }
                        JobStatus::Stale => "stale: would be baked".to_string(),
                        _ => format!("{} images, {} files", report.images, report.files.len()),
                    };
                    self.bar.suspend(|| {
                        say!("kiln: {}: {what} in {}", report.name, outcome.dir.display())
                    });
                    if self.verbose {
                        self.bar.suspend(|| {
                            let key = outcome.key.as_deref().unwrap_or("none");
                            say!("kiln:   {:.2} s, content key {key}", outcome.seconds);
                            for f in &report.files {
                                say!("kiln:   {} {}", outcome.status.as_str(), f.display());
                            }
                            for f in &report.inputs {
                                say!("kiln:   read {}", f.display());
                            }
                        });
                    }
                }
            }
            Err(e) => self.bar.suspend(|| say!("kiln: error: {label}: {e}")),
        }
    }
}

/// The progress bar on a terminal (hidden in pipes, logs and `quiet`).
pub fn progress_bar(quiet: bool) -> Bar {
    use indicatif::{ProgressBar, ProgressStyle};
    use std::io::IsTerminal;
    let show = !quiet && std::io::stderr().is_terminal();
    let bar = if show {
        let b = ProgressBar::new(0);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} {msg:20} [{bar:30}] {pos}/{len} images {elapsed}/{eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    Bar {
        bar,
        quiet,
        verbose: false,
    }
}
