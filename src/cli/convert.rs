//! `kiln convert`: a texture decoded to PNG.

use clap::Args;
use kiln::{Error, FileRef};
use std::path::PathBuf;

#[derive(Args)]
pub struct ConvertArgs {
    /// The texture: a file, or a game path found in the --data folders and archives
    texture: PathBuf,
    /// Output PNG
    #[arg(short, long)]
    output: PathBuf,
    /// Mip level to write (0 = the largest; PAA and DDS hold several)
    #[arg(long, value_name = "N", default_value_t = 0)]
    mip: u32,
    /// Keep BMP magenta as it is instead of making it transparent
    #[arg(long)]
    no_colour_key: bool,
    /// Folder or archive to look the texture up in (repeatable)
    #[arg(long = "data", value_name = "DIR|ARCHIVE")]
    data: Vec<PathBuf>,
    /// Memory the decoded texture may take, e.g. 512M, 8G (default 4G); a larger one is refused
    #[arg(long = "memory-limit", value_name = "SIZE", value_parser = kiln::parse_bytes)]
    memory_limit: Option<u64>,
}

pub fn run(a: ConvertArgs) -> Result<(), Error> {
    let options = kiln::DecodeOptions {
        colour_key: !a.no_colour_key,
        mip: a.mip,
        memory_limit: a.memory_limit.unwrap_or(kiln::DEFAULT_MEMORY_LIMIT),
    };
    let (w, h) = kiln::convert_texture(
        &FileRef::from(a.texture.as_path()),
        &a.data,
        options,
        &a.output,
    )?;
    say!("kiln: wrote {} ({w}x{h})", a.output.display());
    Ok(())
}
