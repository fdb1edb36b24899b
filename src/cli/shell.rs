//! `kiln completions SHELL` and `kiln man`: what a package puts beside the
//! binary, generated from the same argument definitions the binary parses,
//! so they never drift from it.

use super::emit;
use clap::Args;
use kiln::Error;

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Prints the completion script; e.g. `kiln completions bash >
/// ~/.local/share/bash-completion/completions/kiln`.
pub fn completions(a: CompletionsArgs, mut cmd: clap::Command) -> Result<(), Error> {
    let mut out = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "kiln", &mut out);
    emit(&String::from_utf8_lossy(&out))
}

#[derive(Args)]
pub struct ManArgs {
    /// A command's own page (`kiln man bake` is kiln-bake(1)); without it, kiln(1)
    command: Option<String>,
}

/// Prints a manual page (roff): `kiln man > kiln.1; man ./kiln.1`, and
/// `kiln man bake > kiln-bake.1` for each command the page lists.
pub fn man(a: ManArgs, cmd: clap::Command) -> Result<(), Error> {
    let page = match &a.command {
        None => cmd,
        Some(name) => {
            let Some(sub) = cmd.find_subcommand(name) else {
                let names: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
                return Err(Error::Usage(format!(
                    "kiln has no command `{name}`; the commands are {}",
                    names.join(", ")
                )));
            };
            // clap names commands with `&'static str` (without its `string`
            // feature); one page name a run is all this leaks.
            let page_name: &'static str = Box::leak(format!("kiln-{name}").into_boxed_str());
            sub.clone()
                .name(page_name)
                .version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut out)
        .map_err(|e| Error::io(std::path::Path::new("the manual page"), e))?;
    emit(&String::from_utf8_lossy(&out))
}
