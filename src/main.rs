//! The `kiln` command line: parses arguments, calls the library, maps errors
//! to exit codes (0 success, 1 a job or file failed, 2 usage error). Each
//! command's flags and what it does with them live in `cli/`.

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// A line on standard error. Messages are for a person: one that cannot be
/// shown (stderr closed) is dropped rather than ending the run.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

mod cli;

#[derive(Parser)]
#[command(
    name = "kiln",
    version,
    about = "Bakes animated 3D game models into 2D sprite sheets, metadata and GIFs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Bake every job and map of one or more YAML recipes into sheets, metadata, frames, map images and GIFs
    // Boxed: its job flags make it far larger than the other commands.
    Bake(Box<cli::bake::BakeArgs>),
    /// Render one image of a model, or of a Ragnarok map (.rsw), without a recipe
    Render(cli::render::RenderArgs),
    /// Say what a file holds: format, version, nodes, meshes, textures, animation, warnings
    Inspect(cli::inspect::InspectArgs),
    /// Write the model posed at one instant as glTF binary (.glb) or Wavefront OBJ (.obj + .mtl + textures), or with --clip its whole animation as glTF
    Export(cli::export::ExportArgs),
    /// Bake recipes in memory and compare every output with its golden reference
    Verify(cli::verify::VerifyArgs),
    /// List the jobs of recipes with their estimated cost and the shard each falls in
    Plan(cli::plan::PlanArgs),
    /// Write the entries of an archive (GRF, PBO, Grimrock .dat) to a folder
    Extract(cli::extract::ExtractArgs),
    /// Decode a texture (BMP, TGA, PNG, DDS, PAA/PAC) to PNG
    Convert(cli::convert::ConvertArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on standard output
    Completions(cli::shell::CompletionsArgs),
    /// Print the recipe's JSON Schema (for editors: yaml-language-server, VS Code) on standard output
    Schema,
    /// Print kiln's manual page, or a command's, (roff) on standard output
    Man(cli::shell::ManArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(e) = kiln::check_environment() {
        return cli::fail(&e);
    }
    let result = match cli.command {
        Command::Bake(a) => return cli::bake::run(*a),
        Command::Render(a) => cli::render::run(a),
        Command::Inspect(a) => cli::inspect::run(a),
        Command::Export(a) => cli::export::run(a),
        Command::Verify(a) => return cli::verify::run(a),
        Command::Plan(a) => cli::plan::run(a),
        Command::Extract(a) => cli::extract::run(a),
        Command::Convert(a) => cli::convert::run(a),
        Command::Completions(a) => cli::shell::completions(a, Cli::command()),
        Command::Schema => cli::schema::run(),
        Command::Man(a) => cli::shell::man(a, Cli::command()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => cli::fail(&e),
    }
}
