//! The one write rule: nothing is written, restored or deleted outside
//! what a job (an extraction, a cache, verify's references) owns — a
//! poisoned or swapped cache entry, a corrupt blob, a symbolic link planted
//! inside the output folder, prune beside look-alike files, reserved
//! output names, stale temporary files — each asserting the exit code, the
//! message, and that nothing around the folder changed.

use crate::common::{kiln, stderr, tempdir};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn beacon() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/model/kiln/beacon.rsm")
}

/// A small job baking the beacon into `out` (relative to the recipe).
fn recipe(extra_output: &str) -> String {
    format!(
        "jobs:\n  - name: b\n    model: '{}'\n    clip: {{ frames: 2 }}\n    directions: 2\n    size: 16x16\n    antialias: 1\n    output: {{ dir: out, gif: '{{name}}_{{dir}}.gif'{extra_output} }}\n",
        beacon().display()
    )
}

/// Every file below `dir` (links as links): contents or link target.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let key = p.strip_prefix(dir).unwrap().to_path_buf();
            if m.file_type().is_symlink() {
                let t = std::fs::read_link(&p).unwrap();
                out.insert(key, t.to_string_lossy().as_bytes().to_vec());
            } else if m.is_dir() {
                stack.push(p);
            } else {
                out.insert(key, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn run(args: &[&str], cwd: &Path) -> (i32, String) {
    let o = kiln(args, cwd);
    (o.status.code().unwrap_or(-1), stderr(&o))
}

/// The cache's manifest files.
fn manifests(cache: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(cache.join("keys"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// A cache entry naming `../../../escaped.png` or an absolute path is not
/// used: the job bakes instead (exit 0) with a warning naming the entry,
/// nothing lands outside its folder, and the cache entry is repaired.
#[test]
fn a_poisoned_cache_entry_restores_nothing_outside_the_job() {
    for (tag, poison) in [
        ("cache-up", "../../../escaped.png".to_string()),
        ("cache-abs", "/tmp/kiln-escaped-by-cache.png".to_string()),
        ("cache-reserved", ".kiln-state".to_string()),
    ] {
        let tmp = tempdir(&format!("rule-{tag}"));
        let work = tmp.join("work");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::write(work.join("r.yaml"), recipe("")).unwrap();
        let cache = tmp.join("cache");
        let c = cache.to_str().unwrap();
        let (code, err) = run(&["bake", "-q", "--cache", c, "r.yaml"], &work);
        assert_eq!(code, 0, "{err}");
        let good = snapshot(&work.join("out"));
        // Poison the one manifest: its first file now points elsewhere.
        let m = &manifests(&cache)[0];
        let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(m).unwrap()).unwrap();
        v["outputs"][0]["path"] = poison.clone().into();
        std::fs::write(m, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
        std::fs::remove_dir_all(work.join("out")).unwrap();
        let before = snapshot(&tmp);
        let (code, err) = run(&["bake", "--cache", c, "r.yaml"], &work);
        assert_eq!(code, 0, "{err}");
        assert!(
            err.contains(&format!(
                "names `{poison}`, which this job does not write; baked instead"
            )),
            "{err}"
        );
        assert_eq!(snapshot(&work.join("out")), good, "the job's own files");
        let after = snapshot(&tmp);
        for p in after.keys() {
            assert!(
                before.contains_key(p) || p.starts_with("work/out") || p.starts_with("cache"),
                "{} appeared",
                p.display()
            );
        }
        assert!(
            !tmp.join("escaped.png").exists() && !Path::new(&poison).is_file()
                || tag == "cache-reserved"
        );
        // The bake stored the entry again, so the next fresh runner restores.
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(m).unwrap()).unwrap();
        assert_ne!(v["outputs"][0]["path"], serde_json::Value::from(poison));
        std::fs::remove_dir_all(work.join("out")).unwrap();
        let o = kiln(&["bake", "--json", "--cache", c, "r.yaml"], &work);
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(j["jobs"][0]["status"], "restored", "{}", stderr(&o));
        assert_eq!(snapshot(&work.join("out")), good);
        let _ = std::fs::remove_dir_all(&tmp);
    }
}

/// A manifest swapped for another job's (filed under this job's key) names
/// the other key: refused, and the job bakes its own files.
#[test]
fn a_swapped_cache_entry_is_not_the_jobs() {
    let tmp = tempdir("rule-cache-swap");
    let cache = tmp.join("cache");
    let c = cache.to_str().unwrap();
    // Two jobs with the same output names in two folders, differing in
    // size: each other's files would be wrong but well-formed.
    let two = format!(
        "{}  - name: other\n    model: '{}'\n    clip: {{ frames: 2 }}\n    directions: 2\n    size: 24x24\n    antialias: 1\n    output: {{ dir: out2, sheet: b.png, meta: b.json, gif: 'b_{{dir}}.gif' }}\n",
        recipe(""),
        beacon().display()
    );
    std::fs::write(tmp.join("r.yaml"), two).unwrap();
    let (code, err) = run(&["bake", "-q", "--cache", c, "r.yaml"], &tmp);
    assert_eq!(code, 0, "{err}");
    let good = snapshot(&tmp.join("out"));
    let keys = manifests(&cache);
    assert_eq!(keys.len(), 2);
    let (a, b) = (&keys[0], &keys[1]);
    let a_bytes = std::fs::read(a).unwrap();
    std::fs::copy(b, a).unwrap();
    std::fs::copy(
        {
            let t = tmp.join("a.json");
            std::fs::write(&t, &a_bytes).unwrap();
            t
        },
        b,
    )
    .unwrap();
    std::fs::remove_dir_all(tmp.join("out")).unwrap();
    std::fs::remove_dir_all(tmp.join("out2")).unwrap();
    let o = kiln(&["bake", "--json", "--cache", c, "r.yaml"], &tmp);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for job in j["jobs"].as_array().unwrap() {
        assert_eq!(job["status"], "baked");
        let w = job["warnings"].as_array().unwrap();
        assert!(
            w.iter()
                .any(|w| w.as_str().unwrap().contains("is filed under another key")),
            "{w:?}"
        );
    }
    assert_eq!(snapshot(&tmp.join("out")), good);
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A blob whose bytes no longer have its digest is removed and the job
/// baked; the bake stores the blob again, so the cache heals.
#[test]
fn a_corrupt_blob_is_dropped_and_the_job_rebaked() {
    let tmp = tempdir("rule-cache-blob");
    std::fs::write(tmp.join("r.yaml"), recipe("")).unwrap();
    let cache = tmp.join("cache");
    let c = cache.to_str().unwrap();
    let (code, err) = run(&["bake", "-q", "--cache", c, "r.yaml"], &tmp);
    assert_eq!(code, 0, "{err}");
    let good = snapshot(&tmp.join("out"));
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifests(&cache)[0]).unwrap()).unwrap();
    let sha = m["outputs"][0]["sha256"].as_str().unwrap().to_string();
    let blob = cache.join("blobs").join(&sha);
    let mut bytes = std::fs::read(&blob).unwrap();
    bytes[0] ^= 0xff;
    std::fs::write(&blob, &bytes).unwrap();
    std::fs::remove_dir_all(tmp.join("out")).unwrap();
    for round in 0..2 {
        let o = kiln(&["bake", "--json", "--cache", c, "r.yaml"], &tmp);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        if round == 0 {
            assert_eq!(j["jobs"][0]["status"], "baked");
            let w = j["jobs"][0]["warnings"][0].as_str().unwrap();
            assert!(
                w.contains(&sha)
                    && w.ends_with(
                        "missing, or not the bytes its name says (removed); baked instead"
                    ),
                "{w}"
            );
        } else {
            // Repaired: a fresh runner restores from the cache.
            assert_eq!(j["jobs"][0]["status"], "restored");
        }
        assert_eq!(snapshot(&tmp.join("out")), good);
        std::fs::remove_dir_all(tmp.join("out")).unwrap();
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A folder link planted inside the job's folder (where its frames go), or
/// the job's folder itself being a link, is refused with exit 1; the
/// link's target is untouched; other jobs still bake.
#[cfg(unix)]
#[test]
fn symlinked_folders_inside_the_output_are_not_followed() {
    let tmp = tempdir("rule-symlink");
    let elsewhere = tmp.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("keep.txt"), "mine").unwrap();
    let two = format!(
        "{}  - name: fine\n    model: '{}'\n    clip: {{ time: 0 }}\n    directions: [0]\n    size: 16x16\n    output: {{ dir: fine }}\n",
        recipe(", frames: 'frames/{dir}_{frame}.png'"),
        beacon().display()
    );
    std::fs::write(tmp.join("r.yaml"), two).unwrap();
    std::fs::create_dir_all(tmp.join("out")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, tmp.join("out/frames")).unwrap();
    let before = snapshot(&elsewhere);
    let (code, err) = run(&["bake", "r.yaml"], &tmp);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("out/frames: is a symbolic link; kiln does not write through links below the folder it owns"),
        "{err}"
    );
    assert_eq!(snapshot(&elsewhere), before);
    assert!(tmp.join("fine/fine.png").is_file(), "the other job baked");
    // The job's folder itself a link.
    std::fs::remove_dir_all(tmp.join("out")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, tmp.join("out")).unwrap();
    let (code, err) = run(&["bake", "--only", "b", "r.yaml"], &tmp);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(
            "the folder kiln writes into is a symbolic link; name the folder it points to instead"
        ),
        "{err}"
    );
    assert_eq!(snapshot(&elsewhere), before);
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `verify --update` rewrites references by the same rule: a link inside
/// the reference folder is refused.
#[cfg(unix)]
#[test]
fn verify_update_does_not_write_through_links() {
    let tmp = tempdir("rule-verify");
    std::fs::write(tmp.join("r.yaml"), recipe("")).unwrap();
    let elsewhere = tmp.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let refs = tmp.join("refs");
    std::fs::create_dir_all(&refs).unwrap();
    std::os::unix::fs::symlink(&elsewhere, refs.join("out")).unwrap();
    let (code, err) = run(
        &["verify", "--reference", "refs", "--update", "r.yaml"],
        &tmp,
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("refs/out: is a symbolic link"), "{err}");
    assert!(snapshot(&elsewhere).is_empty());
    // Without the link the references are written.
    std::fs::remove_file(refs.join("out")).unwrap();
    let (code, err) = run(
        &["verify", "--reference", "refs", "--update", "r.yaml"],
        &tmp,
    );
    assert_eq!(code, 0, "{err}");
    assert!(refs.join("out/b.png").is_file());
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Prune removes only what the job's state records as written by it, and
/// only while it holds those bytes: look-alike user files stay, a changed
/// output stays with a warning.
#[test]
fn prune_keeps_look_alike_and_changed_files() {
    let tmp = tempdir("rule-prune");
    let many = recipe("").replace("directions: 2", "directions: 4");
    std::fs::write(tmp.join("r.yaml"), &many).unwrap();
    let (code, err) = run(&["bake", "-q", "r.yaml"], &tmp);
    assert_eq!(code, 0, "{err}");
    let out = tmp.join("out");
    for mine in ["holiday_0.gif", "vacation_1.gif", "b_7.gif", "b_x.gif"] {
        std::fs::write(out.join(mine), "mine").unwrap();
    }
    // The user edits one output kiln wrote.
    std::fs::write(out.join("b_3.gif"), "edited").unwrap();
    std::fs::write(tmp.join("r.yaml"), recipe("")).unwrap();
    let (code, err) = run(&["bake", "--prune", "r.yaml"], &tmp);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("out/b_3.gif: changed since kiln wrote it; not pruned"),
        "{err}"
    );
    let mut left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            ".kiln-state",
            "b.json",
            "b.png",
            "b_0.gif",
            "b_1.gif",
            "b_3.gif",
            "b_7.gif",
            "b_x.gif",
            "holiday_0.gif",
            "vacation_1.gif"
        ]
    );
    assert_eq!(std::fs::read(out.join("b_3.gif")).unwrap(), b"edited");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Output names the write rule refuses are recipe errors at their line and
/// column: the state file, kiln's temporary names, device names, control
/// characters.
#[test]
fn reserved_and_unwritable_output_names_are_recipe_errors() {
    let tmp = tempdir("rule-names");
    for (extra, why) in [
        (
            ", sheet: '.kiln-state'",
            "`.kiln-state` is reserved for kiln's own files",
        ),
        (
            ", sheet: 'x/.KILN-STATE'",
            "`.KILN-STATE` is reserved for kiln's own files",
        ),
        (
            ", sheet: '.b.png.kiln-1-2.tmp'",
            "is reserved for kiln's own files",
        ),
        (", sheet: 'NUL.png'", "`NUL.png` is a Windows device name"),
        (", sheet: 'COM5.png'", "`COM5.png` is a Windows device name"),
        (
            ", sheet: \"a\\nb.png\"",
            "the name holds the control character '\\n'",
        ),
        (", sheet: 'x./b.png'", "`x.` ends with a dot or a space"),
    ] {
        std::fs::write(tmp.join("r.yaml"), recipe(extra)).unwrap();
        let before = snapshot(&tmp);
        let (code, err) = run(&["bake", "r.yaml"], &tmp);
        assert_eq!(code, 2, "{extra}: {err}");
        assert!(err.contains("r.yaml:8:"), "{extra}: {err}");
        assert!(err.contains(why), "{extra}: {err}");
        assert_eq!(snapshot(&tmp), before, "{extra}");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A state entry with the job's key but no files (or files that are gone)
/// re-bakes the job; temporary files a killed bake left are removed by the
/// next bake into their folder, others' are kept.
#[test]
fn empty_state_entries_rebake_and_stale_temporaries_go() {
    let tmp = tempdir("rule-state");
    std::fs::write(tmp.join("r.yaml"), recipe("")).unwrap();
    let (code, err) = run(&["bake", "-q", "r.yaml"], &tmp);
    assert_eq!(code, 0, "{err}");
    let out = tmp.join("out");
    let state_file = out.join(kiln::STATE_FILE);
    let mut st: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&state_file).unwrap()).unwrap();
    st["jobs"]["job:b"]["outputs"] = serde_json::json!([]);
    std::fs::write(&state_file, serde_json::to_vec(&st).unwrap()).unwrap();
    for f in ["b.png", "b.json", "b_0.gif", "b_1.gif"] {
        std::fs::remove_file(out.join(f)).unwrap();
    }
    // A dead process's leftovers (pid 2^31 - 2 is never a live one here),
    // a live one's (this test's own process), and a user's file of a
    // similar name.
    let dead = ".b.png.kiln-2147483646-0.tmp";
    let live = format!(".b.png.kiln-{}-0.tmp", std::process::id());
    for f in [dead, live.as_str(), "b.png.tmp"] {
        std::fs::write(out.join(f), "partial").unwrap();
    }
    let o = kiln(&["bake", "--json", "r.yaml"], &tmp);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["jobs"][0]["status"], "baked");
    assert!(out.join("b.png").is_file());
    assert!(!out.join(dead).exists(), "a dead bake's temporary file");
    assert!(out.join(&live).exists(), "a live process's temporary file");
    assert!(out.join("b.png.tmp").exists(), "a file of the user's");
    let _ = std::fs::remove_dir_all(&tmp);
}
