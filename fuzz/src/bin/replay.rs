//! Runs a target's harness over files without AFL: `replay TARGET PATH…`
//! (folders are read recursively). Prints each input's time and whether it
//! returned or panicked; exits 1 if any panicked. An abort (a failed
//! allocation, a stack overflow) ends the process: the line printed before
//! it names the input.
//!
//! `replay --list` names every target and what it reads.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            files(&e, out);
        }
    } else if path.is_file() {
        out.push(path.to_path_buf());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--list") {
        for t in kiln_fuzz::TARGETS {
            println!("{:15} {}", t.name, t.reads);
        }
        return;
    }
    let Some(target) = args.first().and_then(|n| kiln_fuzz::target(n)) else {
        eprintln!("usage: replay TARGET PATH… (replay --list names the targets)");
        std::process::exit(2);
    };
    let mut inputs = Vec::new();
    for a in &args[1..] {
        files(Path::new(a), &mut inputs);
    }
    let (mut panicked, mut total, mut slowest) = (0, Duration::ZERO, (Duration::ZERO, None));
    for input in &inputs {
        // AFL's queue holds a `README.txt` and state files beside inputs;
        // they are inputs like any other.
        let Ok(data) = std::fs::read(input) else {
            continue;
        };
        print!("{} ({} bytes): ", input.display(), data.len());
        let _ = std::io::stdout().flush();
        let start = Instant::now();
        let result = std::panic::catch_unwind(|| (target.run)(&data));
        let took = start.elapsed();
        total += took;
        if took > slowest.0 {
            slowest = (took, Some(input));
        }
        match result {
            Ok(()) => println!("ok in {took:.2?}"),
            Err(_) => {
                panicked += 1;
                println!("PANICKED after {took:.2?}");
            }
        }
    }
    println!(
        "{}: {} inputs, {panicked} panicked, {total:.2?} in all, slowest {:.2?}{}",
        target.name,
        inputs.len(),
        slowest.0,
        slowest
            .1
            .map(|p| format!(" ({})", p.display()))
            .unwrap_or_default()
    );
    if panicked > 0 {
        std::process::exit(1);
    }
}
