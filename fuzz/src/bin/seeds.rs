//! Writes a seed folder per target: `seeds OUT [CORPUS]`.
//!
//! Every target gets the seeds kiln's writers make (`kiln_fuzz::seeds`);
//! with `CORPUS` (the shared corpus folder, read in place), the corpus
//! files up to 128 KiB are copied in too, sorted to the targets that read
//! them. `OUT` must be outside the repository: corpus files are not
//! kiln's to commit.

use std::path::{Path, PathBuf};

/// Larger seeds slow every execution that starts from them.
const MAX_CORPUS_SEED: u64 = 128 << 10;

fn corpus_targets(path: &Path) -> &'static [&'static str] {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let name = name.strip_suffix(".bin").unwrap_or(&name);
    let ext = name.rsplit('.').next().unwrap_or("");
    match ext {
        "rsm" | "rsm2" => &["rsm", "inspect"],
        "rsw" => &["rsw", "inspect"],
        "gnd" => &["gnd", "inspect"],
        "spr" => &["spr", "inspect"],
        "act" => &["act", "inspect"],
        "model" => &["grimrock_model", "inspect"],
        "animation" => &["grimrock_anim", "inspect"],
        "lua" => &["lua"],
        "p3d" => &["p3d", "inspect"],
        "rtm" => &["rtm", "inspect"],
        "cfg" => &["cfg"],
        "bmp" => &["bmp"],
        "tga" => &["tga"],
        "png" => &["png"],
        "dds" => &["dds", "inspect"],
        "paa" => &["paa", "inspect"],
        "grf" => &["grf", "inspect"],
        _ if name.contains(".pbo") => &["pbo", "inspect"],
        _ => &[],
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            walk(&e, out);
        } else {
            out.push(e);
        }
    }
}

fn write(out: &Path, target: &str, name: &str, bytes: &[u8]) {
    let dir = out.join(target);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn main() {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let Some(out) = args.first() else {
        eprintln!("usage: seeds OUT [CORPUS]");
        std::process::exit(2);
    };
    let mut counts = std::collections::BTreeMap::<&str, (usize, usize)>::new();
    for (target, name, bytes) in kiln_fuzz::seeds::kiln_seeds() {
        write(out, target, &name, &bytes);
        counts.entry(target).or_default().0 += 1;
    }
    if let Some(corpus) = args.get(1) {
        let mut files = Vec::new();
        walk(corpus, &mut files);
        for f in files {
            let size = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(u64::MAX);
            let targets = corpus_targets(&f);
            if size > MAX_CORPUS_SEED || targets.is_empty() {
                continue;
            }
            let Ok(bytes) = std::fs::read(&f) else {
                continue;
            };
            let relative = f.strip_prefix(corpus).unwrap_or(&f);
            let name: String = format!("corpus-{}", relative.display())
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            for t in targets {
                write(out, t, &name, &bytes);
                counts.entry(t).or_default().1 += 1;
            }
        }
    }
    for t in kiln_fuzz::TARGETS {
        let (kiln, corpus) = counts.get(t.name).copied().unwrap_or_default();
        println!(
            "{:15} {kiln:3} kiln-made, {corpus:3} from the corpus",
            t.name
        );
    }
}
