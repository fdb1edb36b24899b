//! Build-step baking: skipped re-bakes, re-bakes of exactly the jobs whose
//! inputs changed, dependency files, checks, dry runs, the shared cache,
//! shards, outputs kept inside their folders, and `kiln verify`.

use crate::common::{copy_tree, kiln, stderr, tempdir};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

const BUNDLED: [&str; 4] = ["example.yaml", "grimrock.yaml", "arma.yaml", "map.yaml"];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled recipes and samples copied into `dir/recipes` (outputs go
/// to `dir/out`, as the recipes say).
fn bundled_copy(tag: &str) -> PathBuf {
    let dir = tempdir(tag);
    copy_tree(
        &repo().join("recipes/samples"),
        &dir.join("recipes/samples"),
    );
    for r in BUNDLED {
        std::fs::copy(repo().join("recipes").join(r), dir.join("recipes").join(r)).unwrap();
    }
    dir
}

/// Every file below `dir` but kiln's state files: bytes and mtime.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().unwrap() != kiln::STATE_FILE {
                let m = std::fs::metadata(&p).unwrap().modified().unwrap();
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    (std::fs::read(&p).unwrap(), m),
                );
            }
        }
    }
    out
}

fn recipes(dir: &Path) -> Vec<String> {
    BUNDLED
        .iter()
        .map(|r| dir.join("recipes").join(r).display().to_string())
        .collect()
}

fn bake(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["bake", "-q"];
    args.extend_from_slice(extra);
    let rs = recipes(dir);
    args.extend(rs.iter().map(String::as_str));
    kiln(&args, dir)
}

/// `name → status` from `kiln bake --json`.
fn statuses(o: &std::process::Output) -> BTreeMap<String, String> {
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)));
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["name"].as_str().unwrap().to_string(),
                j["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_rebake_skips_everything_and_a_changed_texture_rebakes_exactly_its_jobs() {
    let dir = bundled_copy("incr-rebake");
    let first = bake(&dir, &["--json"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let all = statuses(&first);
    assert_eq!(all.len(), 7);
    assert!(all.values().all(|s| s == "baked"), "{all:?}");
    let before = snapshot(&dir.join("out"));
    assert_eq!(before.len(), 56);

    let again = bake(&dir, &["--json"]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(statuses(&again).values().all(|s| s == "skipped"));
    assert!(
        stderr(&again).contains("7 up to date"),
        "{}",
        stderr(&again)
    );
    assert!(
        snapshot(&dir.join("out")) == before,
        "a skipped bake touched a file"
    );
    let check = bake(&dir, &["--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));

    // The sail texture: read by the windmill and the beacon, and by the
    // map, whose windmill and beacons wear it. Flip one pixel's blue.
    let sail = dir.join("recipes/samples/data/texture/kiln/sail.bmp");
    let mut bytes = std::fs::read(&sail).unwrap();
    let n = bytes.len();
    bytes[n - 5] ^= 0x10;
    std::fs::write(&sail, &bytes).unwrap();
    let check = bake(&dir, &["--check", "--json"]);
    assert_eq!(check.status.code(), Some(1), "{}", stderr(&check));
    let stale: Vec<String> = statuses(&check)
        .into_iter()
        .filter(|(_, s)| s == "stale")
        .map(|(n, _)| n)
        .collect();
    assert_eq!(stale, ["beacon", "kiln_village", "windmill"]);
    assert!(snapshot(&dir.join("out")) == before, "a check wrote a file");

    let dep = dir.join("deps.d");
    let third = bake(&dir, &["--json", "--depfile", dep.to_str().unwrap()]);
    let s = statuses(&third);
    let baked: Vec<&String> = s
        .iter()
        .filter(|(_, v)| *v == "baked")
        .map(|(n, _)| n)
        .collect();
    assert_eq!(baked, ["beacon", "kiln_village", "windmill"]);
    assert_eq!(s.values().filter(|v| *v == "skipped").count(), 4);
    // The skipped jobs keep their bytes; their files, older than the
    // changed texture (an input of the bake), are made newer than it, so
    // a build tool's rule over all the bake's outputs is satisfied
    // (docs/builds.md, "make").
    let after = snapshot(&dir.join("out"));
    let sail_time = std::fs::metadata(&sail).unwrap().modified().unwrap();
    for (path, (b, m)) in &before {
        let untouched =
            path.starts_with("icons") || path.starts_with("tentacle") || path.starts_with("lever");
        if untouched {
            assert!(after[path].0 == *b, "{} changed", path.display());
            assert!(
                after[path].1 >= sail_time && after[path].1 > *m,
                "{}: not refreshed",
                path.display()
            );
        }
    }
    assert_eq!(bake(&dir, &["--check"]).status.code(), Some(0));

    // The dependency file: one rule per job, every input it read.
    let d = std::fs::read_to_string(&dep).unwrap();
    assert_eq!(d.lines().count(), 7, "{d}");
    let rule = |target: &str| -> String {
        d.lines()
            .find(|l| {
                l.split(": ")
                    .next()
                    .unwrap()
                    .split(' ')
                    .any(|t| t.ends_with(target))
            })
            .unwrap_or_else(|| panic!("no rule for {target}:\n{d}"))
            .to_string()
    };
    let windmill = rule("windmill/windmill.png");
    for input in [
        "example.yaml",
        "windmill.rsm2",
        "sail.bmp",
        "banner.tga",
        "wood.bmp",
    ] {
        assert!(windmill.contains(input), "{input} not in {windmill}");
    }
    let tentacle = rule("tentacle/tentacle.png");
    for input in [
        "kiln_tentacle.model",
        "kiln_materials.lua",
        "kiln_tentacle.tga",
        "kiln_tentacle_wave.animation",
    ] {
        assert!(tentacle.contains(input), "{input} not in {tentacle}");
    }
    let lever = rule("lever_swing_binarised.png");
    for input in [
        "kiln_lever.p3d",
        "kiln_lever_swing_bin.rtm",
        "model.cfg",
        "lever_co.tga",
    ] {
        assert!(lever.contains(input), "{input} not in {lever}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn force_rebakes_and_a_damaged_output_is_rebaked() {
    let dir = bundled_copy("incr-force");
    let rs = recipes(&dir);
    let example = rs[0].as_str();
    assert!(kiln(&["bake", "-q", example], &dir).status.success());
    let json = dir.join("out/windmill/windmill.json");
    let good = std::fs::read(&json).unwrap();
    std::fs::write(&json, b"{}").unwrap();
    let o = kiln(&["bake", "-q", "--json", example], &dir);
    let s = statuses(&o);
    assert_eq!(
        (s["windmill"].as_str(), s["beacon"].as_str()),
        ("baked", "skipped")
    );
    assert_eq!(std::fs::read(&json).unwrap(), good);
    let o = kiln(&["bake", "-q", "--json", "--force", example], &dir);
    assert!(statuses(&o).values().all(|v| v == "baked"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_shared_cache_restores_what_another_bake_made() {
    let cache = tempdir("incr-cache");
    let a = bundled_copy("incr-cache-a");
    let first = bake(&a, &["--cache", cache.to_str().unwrap()]);
    assert!(first.status.success(), "{}", stderr(&first));
    // Another runner: a fresh checkout, the same cache.
    let b = bundled_copy("incr-cache-b");
    let second = bake(&b, &["--json", "--cache", cache.to_str().unwrap()]);
    assert!(second.status.success(), "{}", stderr(&second));
    assert!(
        statuses(&second).values().all(|v| v == "restored"),
        "{:?}",
        statuses(&second)
    );
    let v: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert!(v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|j| j["images"] == 0));
    let (x, y) = (snapshot(&a.join("out")), snapshot(&b.join("out")));
    assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>());
    assert!(x.iter().all(|(k, (bytes, _))| y[k].0 == *bytes));
    // And the restored folder is up to date for the next bake.
    let third = bake(&b, &["--json"]);
    assert!(statuses(&third).values().all(|v| v == "skipped"));
    for d in [cache, a, b] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn a_dry_run_writes_nothing_and_names_what_it_would_write() {
    let dir = bundled_copy("incr-dry");
    let o = bake(&dir, &["--dry-run", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!dir.join("out").exists(), "a dry run wrote");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let files: usize = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["outputs"].as_array().unwrap().len())
        .sum();
    assert_eq!(files, 56);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_recipe_on_standard_input_takes_paths_from_the_current_folder() {
    use std::io::Write;
    let dir = tempdir("incr-stdin");
    let model = repo().join("recipes/samples/data/model/kiln/beacon.rsm");
    let text = format!(
        "jobs:\n  - name: b\n    model: '{}'\n    directions: 1\n    clip: {{time: 0}}\n    output: {{dir: sprites, gif: false}}\n",
        model.display()
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(["bake", "-q", "-"])
        .current_dir(&dir)
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.join("sprites/b.png").is_file());
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(["bake", "-"])
        .current_dir(&dir)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("<stdin>"), "{}", stderr(&bad));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn outputs_that_leave_their_folder_or_meet_are_refused_with_line_and_column() {
    let dir = tempdir("incr-escape");
    let model = repo().join("recipes/samples/data/model/kiln/beacon.rsm");
    let m = model.display();
    let cases = [
        (
            format!("jobs:\n  - name: a\n    model: '{m}'\n    output: {{ sheet: \"../../../../../ESCAPED_sheet.png\" }}\n"),
            "r.yaml:4:22: job 'a': `output.sheet` `../../../../../ESCAPED_sheet.png` climbs out with `..`",
        ),
        (
            format!("jobs:\n  - name: a\n    model: '{m}'\n    output: {{ gif: \"/elsewhere/x_{{dir}}.gif\" }}\n"),
            "r.yaml:4:20: job 'a': `output.gif` `/elsewhere/x_{dir}.gif` is absolute",
        ),
        (
            format!("jobs:\n  - name: a\n    model: '{m}'\n    directions: 2\n    clip: {{frames: 2}}\n    output: {{ dir: o, frames: \"f_{{dir}}_{{frame}}.png\", sheet: false }}\n  - name: b\n    model: '{m}'\n    output: {{ dir: o, sheet: \"f_1_0.png\" }}\n"),
            "r.yaml:9:30: job 'b': output `o/f_1_0.png` (`output.sheet`) is also written by job 'a' (`output.frames`)",
        ),
    ];
    for (text, want) in cases {
        std::fs::write(dir.join("r.yaml"), &text).unwrap();
        let o = kiln(&["bake", "r.yaml"], &dir);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(want), "want {want}\ngot {}", stderr(&o));
    }
    assert!(!dir.join("o").exists() && !dir.join("out").exists());
    // An absolute output folder is the way to write elsewhere.
    let elsewhere = dir.join("elsewhere");
    std::fs::write(
        dir.join("r.yaml"),
        format!("jobs:\n  - name: a\n    model: '{m}'\n    directions: 1\n    clip: {{time: 0}}\n    output: {{ dir: '{}', gif: false }}\n", elsewhere.display()),
    )
    .unwrap();
    assert!(kiln(&["bake", "-q", "r.yaml"], &dir).status.success());
    assert!(elsewhere.join("a.png").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn two_folders_that_are_one_through_a_link_are_one_folder() {
    let dir = tempdir("incr-link");
    std::fs::create_dir_all(dir.join("real")).unwrap();
    std::os::unix::fs::symlink(dir.join("real"), dir.join("link")).unwrap();
    let m = repo().join("recipes/samples/data/model/kiln/beacon.rsm");
    let m = m.display();
    std::fs::write(
        dir.join("a.yaml"),
        format!("jobs:\n  - name: a\n    model: '{m}'\n    output: {{ dir: real, sheet: s.png, gif: false }}\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("b.yaml"),
        format!("jobs:\n  - name: b\n    model: '{m}'\n    output: {{ dir: link, sheet: s.png, gif: false }}\n"),
    )
    .unwrap();
    let o = kiln(&["bake", "a.yaml", "b.yaml"], &dir);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("b.yaml:2: job 'b': `output.sheet` can write")
            && e.contains("which job 'a' (")
            && e.contains("a.yaml:2) also writes"),
        "{e}"
    );
    assert!(!dir.join("real/s.png").exists(), "nothing is baked");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The corpus recipes with their `../../../shared` made absolute, so a copy
/// elsewhere still finds the corpus.
fn corpus_recipes(into: &Path) -> Vec<String> {
    let shared = repo().join("../shared");
    let mut out = Vec::new();
    for r in ["arma_walk.yaml", "grimrock_warrior.yaml", "maps.yaml"] {
        let text = std::fs::read_to_string(repo().join("recipes/corpus").join(r))
            .unwrap()
            .replace("../../../shared", &shared.display().to_string());
        let p = into.join("recipes/corpus").join(r);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        out.push(p.display().to_string());
    }
    out
}

#[test]
fn three_shards_write_exactly_what_one_bake_writes() {
    let with_corpus = crate::common::corpus("").is_some();
    let whole = bundled_copy("incr-shard-whole");
    let mut rs = recipes(&whole);
    if with_corpus {
        rs.extend(corpus_recipes(&whole));
    }
    let args = |dir: &Path, extra: &[&str]| {
        let mut a: Vec<String> = vec!["bake".into(), "-q".into(), "--json".into()];
        a.extend(extra.iter().map(|s| s.to_string()));
        a.extend(
            rs.iter()
                .map(|r| r.replace(&whole.display().to_string(), &dir.display().to_string())),
        );
        a
    };
    let run = |dir: &Path, extra: &[&str]| {
        let a = args(dir, extra);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        let o = kiln(&refs, dir);
        assert!(o.status.success(), "{}", stderr(&o));
        o
    };
    run(&whole, &[]);
    let expected = snapshot(&whole.join("out"));
    let mut union: BTreeMap<PathBuf, Vec<u8>> = BTreeMap::new();
    let mut names = Vec::new();
    for k in 1..=3 {
        let dir = bundled_copy(&format!("incr-shard-{k}"));
        if with_corpus {
            corpus_recipes(&dir);
        }
        let o = run(&dir, &["--shard", &format!("{k}/3")]);
        names.extend(statuses(&o).into_keys());
        for (p, (b, _)) in snapshot(&dir.join("out")) {
            assert!(
                union.insert(p.clone(), b).is_none(),
                "{} written by two shards",
                p.display()
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    names.sort();
    let mut unique = names.clone();
    unique.dedup();
    assert_eq!(names, unique, "a job baked by two shards");
    assert_eq!(
        union.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    assert!(union.iter().all(|(p, b)| expected[p].0 == *b));
    // The plan's estimates are balanced within 2× where the jobs allow.
    let a = args(&whole, &[]);
    let mut plan_args: Vec<&str> = vec!["plan", "--shards", "3", "--json"];
    plan_args.extend(a[3..].iter().map(String::as_str));
    let o = kiln(&plan_args, &whole);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let costs: Vec<f64> = v["shard_costs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_f64().unwrap())
        .collect();
    let biggest = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["cost"].as_f64().unwrap())
        .fold(0.0, f64::max);
    let (lo, hi) = (
        costs.iter().cloned().fold(f64::INFINITY, f64::min),
        costs.iter().cloned().fold(0.0, f64::max),
    );
    assert!(hi <= (2.0 * lo).max(biggest), "shard costs {costs:?}");
    let _ = std::fs::remove_dir_all(&whole);
}

#[test]
fn verify_passes_fails_on_a_changed_block_and_updates() {
    let dir = bundled_copy("verify-cli");
    let example = dir.join("recipes/example.yaml").display().to_string();
    assert!(kiln(&["bake", "-q", &example], &dir).status.success());
    let pass = kiln(&["verify", &example], &dir);
    assert_eq!(pass.status.code(), Some(0), "{}", stderr(&pass));
    assert!(
        stderr(&pass).contains("verified 20 files: 20 match"),
        "{}",
        stderr(&pass)
    );

    // Paint a 6×4 block of the beacon sheet green.
    let sheet = dir.join("out/beacon/beacon.png");
    let mut img = image::open(&sheet).unwrap().to_rgba8();
    for y in 40..44 {
        for x in 130..136 {
            img.put_pixel(x, y, image::Rgba([0, 255, 0, 255]));
        }
    }
    img.save(&sheet).unwrap();
    let junit = dir.join("report.xml");
    let fail = kiln(
        &["verify", &example, "--junit", junit.to_str().unwrap()],
        &dir,
    );
    assert_eq!(fail.status.code(), Some(1), "{}", stderr(&fail));
    let e = stderr(&fail);
    assert!(e.contains("out/beacon/beacon.png: 24 pixels differ"), "{e}");
    let diff = image::open(dir.join("kiln-diff/out/beacon/beacon.png.diff.png"))
        .unwrap()
        .to_rgba8();
    let w = diff.width() / 3;
    let red: Vec<(u32, u32)> = (0..diff.height())
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| diff.get_pixel(2 * w + x, y).0 == [255, 0, 0, 255])
        .collect();
    let block: Vec<(u32, u32)> = (40..44)
        .flat_map(|y| (130..136).map(move |x| (x, y)))
        .collect();
    assert_eq!(red, block, "the highlighted area is exactly the block");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>"));
    assert!(
        xml.contains("tests=\"20\" failures=\"1\" errors=\"0\""),
        "{xml}"
    );
    assert_eq!(xml.matches("<testcase ").count(), 20);
    assert_eq!(
        xml.matches("<failure ").count(),
        xml.matches("</failure>").count()
    );
    assert!(xml.trim_end().ends_with("</testsuites>"));
    assert!(
        !xml.contains("'") && xml.contains("&apos;"),
        "attribute quotes escaped"
    );

    // Thresholds at their edges: 24 pixels may differ, 23 may not.
    assert_eq!(
        kiln(&["verify", &example, "--max-diff-pixels", "24"], &dir)
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        kiln(&["verify", &example, "--max-diff-pixels", "23"], &dir)
            .status
            .code(),
        Some(1)
    );
    let update = kiln(&["verify", &example, "--update"], &dir);
    assert_eq!(update.status.code(), Some(0), "{}", stderr(&update));
    assert!(
        stderr(&update).contains("out/beacon/beacon.png: 24 pixels differ"),
        "{}",
        stderr(&update)
    );
    assert_eq!(kiln(&["verify", &example], &dir).status.code(), Some(0));
    // A missing reference fails.
    std::fs::remove_file(dir.join("out/windmill/windmill_3.gif")).unwrap();
    let missing = kiln(&["verify", &example, "--json"], &dir);
    assert_eq!(missing.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&missing.stdout).unwrap();
    assert_eq!(v["passed"], false);
    let statuses: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses.iter().filter(|s| **s == "missing").count(), 1);
    assert_eq!(statuses.iter().filter(|s| **s == "match").count(), 19);
    // A reference folder elsewhere.
    let refs = dir.join("goldens");
    assert!(kiln(
        &[
            "verify",
            &example,
            "--reference",
            refs.to_str().unwrap(),
            "--update"
        ],
        &dir
    )
    .status
    .success());
    assert!(refs.join("out/windmill/windmill_3.gif").is_file());
    assert_eq!(
        kiln(
            &["verify", &example, "--reference", refs.to_str().unwrap()],
            &dir
        )
        .status
        .code(),
        Some(0)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The comparison is a library function: a Rust test asserts a recipe's
/// outputs against its goldens without the command.
#[test]
fn a_rust_test_verifies_goldens_through_the_library() {
    let dir = bundled_copy("verify-lib");
    let recipe = dir.join("recipes/grimrock.yaml");
    kiln::bake_files(&[&recipe], &kiln::BakeOptions::default(), &kiln::NoProgress).unwrap();
    let options = kiln::VerifyOptions {
        diff_dir: Some(dir.join("diffs")),
        ..Default::default()
    };
    let report = kiln::verify_files(&[&recipe], &options, &kiln::NoProgress).unwrap();
    assert!(report.passed());
    assert!(!report.files.is_empty());
    assert_eq!(report.count(kiln::CheckStatus::Match), report.files.len());

    // Brighten one pixel of the first PNG by 3 in red.
    let png = report
        .files
        .iter()
        .map(|f| f.output.clone())
        .find(|p| p.extension().is_some_and(|e| e == "png"))
        .unwrap();
    let mut img = image::open(&png).unwrap().to_rgba8();
    let (x, y) = (img.width() / 2, img.height() / 2);
    let px = img.get_pixel_mut(x, y);
    px.0[0] = if px.0[0] > 127 {
        px.0[0] - 3
    } else {
        px.0[0] + 3
    };
    img.save(&png).unwrap();

    let report = kiln::verify_files(&[&recipe], &options, &kiln::NoProgress).unwrap();
    assert!(!report.passed());
    let bad: Vec<&kiln::FileCheck> = report
        .files
        .iter()
        .filter(|f| f.status == kiln::CheckStatus::Mismatch)
        .collect();
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0].output, png);
    assert_eq!((bad[0].differing_pixels, bad[0].worst_delta), (1, 3));
    assert!(bad[0].diff.as_ref().unwrap().starts_with(dir.join("diffs")));

    // A channel tolerance of 3 lets it through, 2 does not.
    let tolerant = |channel| kiln::VerifyOptions {
        tolerance: kiln::Tolerance {
            channel,
            ..Default::default()
        },
        ..options.clone()
    };
    assert!(
        kiln::verify_files(&[&recipe], &tolerant(3), &kiln::NoProgress)
            .unwrap()
            .passed()
    );
    assert!(
        !kiln::verify_files(&[&recipe], &tolerant(2), &kiln::NoProgress)
            .unwrap()
            .passed()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
