//! The shape of a `build.rs` that bakes sprites with kiln as a library:
//! bake the recipes, fail the build on a failed job, and tell Cargo which
//! files to watch so the next build re-bakes only when an input changed.
//!
//! In a game crate, with `kiln = { version = "…", default-features = false }`
//! under `[build-dependencies]` (no command-line dependencies), this is the
//! whole `build.rs`. Here it runs as an example:
//!
//! ```sh
//! cargo run --example build-script -- recipes/example.yaml
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    let recipes: Vec<String> = std::env::args().skip(1).collect();
    let recipes = if recipes.is_empty() {
        vec!["recipes/example.yaml".to_string()]
    } else {
        recipes
    };
    let report = match kiln::bake_files(&recipes, &kiln::BakeOptions::default(), &kiln::NoProgress)
    {
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
