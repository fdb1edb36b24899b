//! The commands of `kiln`, one module each, and the flag groups several
//! share. Each maps its flags onto the library's own types; the ranges,
//! size syntax and exit codes are the library's.

pub mod bake;
pub mod convert;
pub mod export;
pub mod extract;
pub mod inspect;
mod job_flags;
mod look_args;
mod map;
mod model_args;
pub mod plan;
mod progress;
pub mod render;
mod render_args;
pub mod schema;
pub mod shell;
mod sprite;
mod values;
pub mod verify;
mod view_args;

use kiln::{Error, Recipe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Says `e` and gives the exit code the library assigns it.
pub fn fail(e: &Error) -> ExitCode {
    say!("kiln: error: {e}");
    ExitCode::from(e.exit_code())
}

/// Loads recipe files; `-` is a recipe on standard input. A recipe that
/// cannot be read or understood is a usage error.
fn load_recipes(paths: &[PathBuf], out_dir: Option<&Path>) -> Result<Vec<Recipe>, Error> {
    let mut out = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .map_err(|e| Error::Usage(format!("<stdin>: cannot read recipe: {e}")))?;
            out.push(
                Recipe::from_str(&text, Path::new("<stdin>"))
                    .map_err(|e| Error::Usage(e.to_string()))?,
            );
        } else {
            // Parsed once, below the root when there is one, so the bake
            // holds each job once.
            let loaded = match out_dir {
                Some(root) => Recipe::load_below(path, root),
                None => Recipe::load(path),
            };
            out.push(loaded.map_err(|e| Error::Usage(e.to_string()))?);
        }
    }
    Ok(out)
}

/// Writes to standard output. A reader that went away (`kiln inspect x |
/// head -1`) ends the output quietly: that is not an error.
fn emit(text: &str) -> Result<(), Error> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::io(Path::new("standard output"), e))
        }
        _ => Ok(()),
    }
}
