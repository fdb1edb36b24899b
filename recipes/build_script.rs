//! The shape of a `build.rs` that bakes sprites with kiln as a library:
//! bake the recipes into `OUT_DIR`, fail the build on a failed job, and
//! tell Cargo which files to watch so the next build re-bakes only when an
//! input changed.
//!
//! In a game crate, with `kiln = { version = "…", default-features = false }`
//! under `[build-dependencies]` (no command-line dependencies), this is the
//! whole `build.rs` (`package.build` may name this file); the crate then
//! embeds a sheet with
//! `include_bytes!(concat!(env!("OUT_DIR"), "/hero/hero.png"))`.
//! `tests/build-script/` is such a crate, built by `.ci/run`. Cargo builds
//! build scripts unoptimised, and kiln works so (`docs/library.md`, "Any
//! profile").
//!
//! The recipes are the arguments, else `sprites.yaml` beside the crate's
//! `Cargo.toml` (a build script's working folder); every job's
//! `output.dir` is taken below `OUT_DIR`. Run as an example, without
//! `OUT_DIR`, it writes where the recipes say:
//!
//! ```sh
//! cargo run --example build-script -- recipes/example.yaml
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut recipes: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if recipes.is_empty() {
        recipes.push("sprites.yaml".into());
    }
    let options = kiln::BakeOptions {
        out_dir: std::env::var_os("OUT_DIR").map(PathBuf::from),
        ..kiln::BakeOptions::default()
    };
    let report = match kiln::bake_files(&recipes, &options, &kiln::NoProgress) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("kiln: {e}");
            return ExitCode::FAILURE;
        }
    };
    for job in &report.jobs {
        match &job.result {
            Ok(r) => {
                for w in &r.warnings {
                    println!("cargo:warning={}: {w}", job.label());
                }
            }
            Err(e) => println!("cargo:warning={}: {e}", job.label()),
        }
    }
    for input in report.inputs() {
        println!("cargo:rerun-if-changed={}", input.display());
    }
    if report.failed() > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
