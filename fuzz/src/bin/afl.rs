//! The AFL++ entry point: `kiln-afl TARGET`, built with
//! `cargo afl build --release --features afl` and run under `cargo afl fuzz`.
//! Every input goes to the named target's harness in persistent mode.

fn main() {
    let name = std::env::args().nth(1).unwrap_or_default();
    let Some(target) = kiln_fuzz::target(&name) else {
        let names: Vec<&str> = kiln_fuzz::TARGETS.iter().map(|t| t.name).collect();
        eprintln!("usage: kiln-afl TARGET, one of: {}", names.join(" "));
        std::process::exit(2);
    };
    let run = target.run;
    afl::fuzz!(|data: &[u8]| {
        run(data);
    });
}
