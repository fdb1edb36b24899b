//! A catalogue in one job: kiln's own GRF writer packs N models — kiln's
//! two samples and the corpus' RSM files, when `../shared/corpus` is
//! there, under many names — with their textures into
//! `target/bench-catalogue/<N>/data.grf`, and one recipe bakes every model
//! of it by a glob, each into a 128² thumbnail sheet of 8 frames and one
//! GIF. For N = 200 and 2,000 (or the counts given) it prints, per count:
//! the bake's wall time and models a second, the no-op re-bake's time,
//! peak resident memory of each (`/usr/bin/time -f %M`, when present), and
//! whether three shards (`--shard auto`, `KILN_SHARD=k/3`) together write exactly the
//! whole bake's bytes.
//!
//! `cargo bench --bench catalogue [-- N ...]`; docs/benchmarks.md,
//! "Catalogues", has the figures.

use kiln::archives::{GrfVersion, GrfWriter, WriteOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The models packed under many names: `(extension, bytes)`.
fn models() -> Vec<(&'static str, Vec<u8>)> {
    let samples = repo().join("recipes/samples/data/model/kiln");
    let mut out = vec![
        ("rsm", std::fs::read(samples.join("beacon.rsm")).unwrap()),
        (
            "rsm2",
            std::fs::read(samples.join("windmill.rsm2")).unwrap(),
        ),
    ];
    let corpus = repo().join("../shared/corpus/ro");
    for rel in [
        "hurtsky+RO-Clientresources/data/model/goomba/goomba_1.rsm",
        "hurtsky+RO-Clientresources/data/model/planets/pl_earth.rsm",
        "RagnarokResearchLab+RagLite/Tests/Fixtures/v0104.rsm",
        "RagnarokResearchLab+RagLite/Tests/Fixtures/v0105.rsm",
        "RagnarokResearchLab+RagLite/Tests/Fixtures/v0202.rsm2",
        "RagnarokResearchLab+RagLite/Tests/Fixtures/v0203.rsm2",
    ] {
        if let Ok(b) = std::fs::read(corpus.join(rel)) {
            out.push((if rel.ends_with("rsm2") { "rsm2" } else { "rsm" }, b));
        }
    }
    out
}

/// Writes the archive and the recipe for `n` models once; returns the
/// folder.
fn catalogue(n: usize) -> PathBuf {
    let dir = repo().join(format!("target/bench-catalogue/{n}"));
    let grf = dir.join("data.grf");
    let recipe = dir.join("catalogue.yaml");
    if !grf.is_file() {
        std::fs::create_dir_all(&dir).unwrap();
        let file = std::io::BufWriter::new(std::fs::File::create(&grf).unwrap());
        let mut w = GrfWriter::new(file, GrfVersion::V200).unwrap();
        let models = models();
        for i in 0..n {
            let (ext, bytes) = &models[i % models.len()];
            let name = format!("data\\model\\set{:03}\\model{i:05}.{ext}", i / 100);
            w.add(name.as_bytes(), bytes, WriteOptions::default())
                .unwrap();
        }
        let textures = repo().join("recipes/samples/data/texture/kiln");
        let mut names: Vec<_> = std::fs::read_dir(&textures)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        for t in names {
            let name = format!("data\\texture\\kiln\\{}", t.to_string_lossy());
            let bytes = std::fs::read(textures.join(&t)).unwrap();
            w.add(name.as_bytes(), &bytes, WriteOptions::default())
                .unwrap();
        }
        w.finish().unwrap();
    }
    std::fs::write(
        &recipe,
        "jobs:\n  - name: catalogue\n    model: data/model/**/*.rsm*\n    data: data.grf\n    size: 128x128\n    directions: 1\n    clip: { frames: 8 }\n    antialias: 1\n    output: { dir: \"out/{path}\", sheet: \"{stem}.png\", gif: \"{stem}.gif\", meta: false }\n",
    )
    .unwrap();
    dir
}

/// Runs kiln with `args` in `dir`: (seconds, peak RSS in KiB when
/// `/usr/bin/time` is there, exit code).
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (f64, Option<u64>, i32) {
    let kiln = env!("CARGO_BIN_EXE_kiln");
    let timed = Path::new("/usr/bin/time").is_file();
    let mut cmd = if timed {
        let mut c = Command::new("/usr/bin/time");
        c.args(["-f", "%M", kiln]);
        c
    } else {
        Command::new(kiln)
    };
    let start = Instant::now();
    let out = cmd
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .output()
        .unwrap();
    let secs = start.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    let rss = timed
        .then(|| err.lines().last().and_then(|l| l.trim().parse().ok()))
        .flatten();
    let code = out.status.code().unwrap_or(-1);
    if code != 0 {
        eprintln!("kiln {}: exit {code}\n{err}", args.join(" "));
    }
    (secs, rss, code)
}

/// Every file below `root` but kiln's state files, with its bytes.
fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().unwrap() != kiln::STATE_FILE {
                out.insert(
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

fn main() {
    let counts: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let counts = if counts.is_empty() {
        vec![200, 2000]
    } else {
        counts
    };
    println!("| models | bake s | models/s | bake peak MiB | no-op s | no-op peak MiB | 3 shards = whole |");
    println!("|---:|---:|---:|---:|---:|---:|---|");
    let mib = |k: Option<u64>| k.map_or("n/a".to_string(), |k| format!("{:.1}", k as f64 / 1024.0));
    for n in counts {
        let dir = catalogue(n);
        let whole = dir.join("whole");
        let _ = std::fs::remove_dir_all(&whole);
        let w = whole.to_str().unwrap();
        let (bake, bake_rss, c1) =
            run(&dir, &["bake", "-q", "--out-dir", w, "catalogue.yaml"], &[]);
        let (noop, noop_rss, c2) =
            run(&dir, &["bake", "-q", "--out-dir", w, "catalogue.yaml"], &[]);
        let expected = files(&whole);
        let mut union = BTreeMap::new();
        let mut twice = false;
        for k in 1..=3 {
            let part = dir.join(format!("shard{k}"));
            let _ = std::fs::remove_dir_all(&part);
            let shard = format!("{k}/3");
            let p = part.to_str().unwrap();
            run(
                &dir,
                &[
                    "bake",
                    "-q",
                    "--shard",
                    "auto",
                    "--out-dir",
                    p,
                    "catalogue.yaml",
                ],
                &[("KILN_SHARD", &shard)],
            );
            for (f, b) in files(&part) {
                twice |= union.insert(f, b).is_some();
            }
            let _ = std::fs::remove_dir_all(&part);
        }
        let same = !twice && union == expected && c1 == 0 && c2 == 0;
        println!(
            "| {n} | {bake:.2} | {:.0} | {} | {noop:.3} | {} | {} ({} files) |",
            n as f64 / bake,
            mib(bake_rss),
            mib(noop_rss),
            if same { "yes" } else { "NO" },
            expected.len()
        );
    }
}
