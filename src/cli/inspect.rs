//! `kiln inspect`: what a file holds, as text or JSON.

use super::emit;
use clap::Args;
use kiln::{Error, FileRef};
use std::path::PathBuf;

#[derive(Args)]
pub struct InspectArgs {
    /// Any file kiln reads: model, animation, map, ground, config, texture or archive
    file: PathBuf,
    /// Print the report as JSON; for RSW, RSM and GND files `details` holds every parsed field
    #[arg(long)]
    json: bool,
    /// With --json: `details` holds the header and counts only, not every field
    #[arg(long, requires = "json")]
    summary: bool,
    /// For an animation: the model whose nodes its tracks should name
    #[arg(long, value_name = "MODEL")]
    model: Option<PathBuf>,
    /// Extra folder or archive (GRF, PBO, .dat) to search for textures; for a map, searched first for its models (repeatable)
    #[arg(long = "data", value_name = "DIR|ARCHIVE")]
    data: Vec<PathBuf>,
    /// Memory the images it decodes (a texture, a model's textures) may take together, e.g. 512M (default 4G)
    #[arg(long = "memory-limit", value_name = "SIZE", value_parser = kiln::parse_bytes)]
    memory_limit: Option<u64>,
}

pub fn run(a: InspectArgs) -> Result<(), Error> {
    // The text report shows no `details`, so it never builds the full form.
    let detail = if a.json && !a.summary {
        kiln::InspectDetail::Full
    } else {
        kiln::InspectDetail::Summary
    };
    let report = kiln::inspect_within(
        &FileRef::from(a.file.as_path()),
        &a.data,
        a.model.as_deref(),
        detail,
        a.memory_limit.unwrap_or(kiln::DEFAULT_MEMORY_LIMIT),
    )?;
    if a.json {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| Error::Other(format!("JSON: {e}")))?;
        emit(&format!("{text}\n"))
    } else {
        emit(&report.to_text())
    }
}
