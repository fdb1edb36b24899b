//! `kiln extract`: an archive's entries written to a folder.

use clap::Args;
use kiln::Error;
use std::path::PathBuf;

#[derive(Args)]
pub struct ExtractArgs {
    /// The archive: .grf, .pbo or a Grimrock .dat
    archive: PathBuf,
    /// Only entries matching this: a folder (`data/texture`) or a pattern
    /// with `*` (within a folder name), `**` (across folders) and `?`, any case
    pattern: Option<String>,
    /// Folder to write into (created if needed)
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
}

/// Nothing matched is a usage error; an entry that could not be written
/// fails the run after the others are written.
pub fn run(a: ExtractArgs) -> Result<(), Error> {
    let report = kiln::extract(&a.archive, a.pattern.as_deref(), &a.output)?;
    for (name, why) in report.renamed.iter().chain(&report.skipped) {
        say!("kiln: warning: {name}: {why}");
    }
    say!(
        "kiln: wrote {} file(s) to {}{}",
        report.written.len(),
        a.output.display(),
        if report.skipped.is_empty() {
            String::new()
        } else {
            format!(", skipped {}", report.skipped.len())
        }
    );
    if report.written.is_empty() && report.skipped.is_empty() {
        return Err(Error::Usage(match &a.pattern {
            Some(p) => format!("no entry of {} matches '{p}'", a.archive.display()),
            None => format!("{} holds no entries", a.archive.display()),
        }));
    }
    if report.skipped.is_empty() {
        Ok(())
    } else {
        Err(Error::Other(format!(
            "{} entr(ies) could not be extracted",
            report.skipped.len()
        )))
    }
}
