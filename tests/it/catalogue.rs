//! Catalogue jobs: a glob `model:` over a folder and over a GRF written by
//! kiln's writer, CP949 names included, gives the same instances in the
//! same order; `{stem}`/`{path}` and `exclude`; a broken model fails its
//! instance alone; a changed model re-bakes exactly its instance; shards of
//! a catalogue union to the whole bake; `kiln plan` lists the instances.

use crate::common::{kiln, stderr, tempdir};
use kiln::internals::source::grf::{write_grf, GrfVersion, WriteOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// 몬스터 ("monster") in CP949, as a Korean client stores the folder name.
const MONSTER_CP949: [u8; 6] = [0xB8, 0xF3, 0xBD, 0xBA, 0xC5, 0xCD];

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data")
}

/// The files of the catalogue, as `(game path bytes, contents)`: the two
/// sample models under several names and folders, one of them Korean, one
/// broken model, and the textures they use.
fn entries() -> Vec<(Vec<u8>, Vec<u8>)> {
    let beacon = std::fs::read(samples().join("model/kiln/beacon.rsm")).unwrap();
    let windmill = std::fs::read(samples().join("model/kiln/windmill.rsm2")).unwrap();
    let mut korean = b"data/model/".to_vec();
    korean.extend_from_slice(&MONSTER_CP949);
    korean.extend_from_slice(b"/poring.rsm");
    let mut out = vec![
        (b"data/model/kiln/beacon.rsm".to_vec(), beacon.clone()),
        (b"data/model/kiln/Windmill.rsm2".to_vec(), windmill),
        (b"data/model/town/deep/lamp.rsm".to_vec(), beacon.clone()),
        (b"data/model/skip/hidden.rsm".to_vec(), beacon.clone()),
        (korean, beacon),
        (
            b"data/model/town/broken.rsm".to_vec(),
            b"GRSM\x01\x04garbage".to_vec(),
        ),
        (
            b"data/model/kiln/readme.txt".to_vec(),
            b"not a model".to_vec(),
        ),
    ];
    for t in std::fs::read_dir(samples().join("texture/kiln")).unwrap() {
        let t = t.unwrap();
        let mut name = b"data/texture/kiln/".to_vec();
        name.extend_from_slice(t.file_name().to_str().unwrap().as_bytes());
        out.push((name, std::fs::read(t.path()).unwrap()));
    }
    out
}

/// The catalogue as a folder `client/` (raw CP949 bytes in the Korean
/// name, as extractors that copy names leave them) and as `data.grf`.
fn catalogue(tag: &str) -> PathBuf {
    let dir = tempdir(tag);
    for (name, bytes) in entries() {
        let p = dir.join("client").join(os(&name));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let list = entries();
    let with: Vec<(&[u8], &[u8], WriteOptions)> = list
        .iter()
        .map(|(n, b)| (n.as_slice(), b.as_slice(), WriteOptions::default()))
        .collect();
    std::fs::write(dir.join("data.grf"), write_grf(GrfVersion::V200, &with)).unwrap();
    dir
}

#[cfg(unix)]
fn os(raw: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(raw))
}

#[cfg(not(unix))]
fn os(raw: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(raw).into_owned())
}

/// A catalogue job over `data` leaving out `exclude`, with `extra` keys.
fn recipe_with(dir: &Path, data: &str, exclude: &str, extra: &str) -> PathBuf {
    let text = format!(
        "jobs:\n  - name: models\n    model: data/model/**/*.rsm*\n    data: [{data}]\n    exclude: [{exclude}]\n    size: 24x24\n    directions: 2\n    clip: {{ frames: 2 }}\n    antialias: 1\n{extra}"
    );
    let p = dir.join(format!("{}.yaml", data.replace('.', "_")));
    std::fs::write(&p, text).unwrap();
    p
}

fn recipe(dir: &Path, data: &str, extra: &str) -> PathBuf {
    recipe_with(dir, data, "data/model/skip/**", extra)
}

fn json(o: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {} {}", String::from_utf8_lossy(&o.stdout), stderr(o)))
}

/// `name → (status, error)` from `kiln bake --json`.
fn outcomes(o: &std::process::Output) -> BTreeMap<String, (String, String)> {
    json(o)["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["name"].as_str().unwrap().to_string(),
                (
                    j["status"].as_str().unwrap().to_string(),
                    j["error"].as_str().unwrap_or("").to_string(),
                ),
            )
        })
        .collect()
}

/// Instance names in plan order, from `kiln plan --json`.
fn planned(dir: &Path, recipe: &Path) -> Vec<String> {
    let o = kiln(&["plan", "--json", recipe.to_str().unwrap()], dir);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["name"].as_str().unwrap().to_string())
        .collect()
}

const INSTANCES: [&str; 5] = [
    "models/kiln/beacon.rsm",
    "models/kiln/Windmill.rsm2",
    "models/town/broken.rsm",
    "models/town/deep/lamp.rsm",
    "models/몬스터/poring.rsm",
];

#[test]
fn a_folder_and_a_grf_give_the_same_instances_in_the_same_order() {
    let dir = catalogue("catalogue-order");
    let from_folder = planned(&dir, &recipe(&dir, "client", ""));
    let from_grf = planned(&dir, &recipe(&dir, "data.grf", ""));
    assert_eq!(from_folder, INSTANCES);
    assert_eq!(from_grf, INSTANCES);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn instances_bake_to_their_own_names_and_a_broken_one_fails_alone() {
    let dir = catalogue("catalogue-bake");
    let out = "    output: { dir: \"out/{path}\", sheet: \"{stem}.png\", meta: \"{name}.json\" }\n";
    let r = recipe(&dir, "data.grf", out);
    let o = kiln(&["bake", "-q", "--json", r.to_str().unwrap()], &dir);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let got = outcomes(&o);
    let mut names = INSTANCES.to_vec();
    names.sort();
    assert_eq!(got.keys().collect::<Vec<_>>(), names);
    for (name, (status, error)) in &got {
        if name == "models/town/broken.rsm" {
            assert_eq!(status, "failed");
            assert!(error.contains("broken.rsm"), "{error}");
        } else {
            assert_eq!(status, "baked", "{name}: {error}");
        }
    }
    for sheet in [
        "out/kiln/beacon/beacon.png",
        "out/kiln/Windmill/Windmill.png",
        "out/town/deep/lamp/lamp.png",
        "out/몬스터/poring/poring.png",
    ] {
        let img = image::open(dir.join(sheet)).unwrap_or_else(|e| panic!("{sheet}: {e}"));
        assert_eq!((img.width(), img.height()), (48, 48), "{sheet}");
        assert!(dir.join(sheet.replace(".png", ".json")).is_file());
    }
    assert!(!dir.join("out/skip").exists(), "exclude left it out");
    // The same model under two names draws the same pixels.
    assert_eq!(
        std::fs::read(dir.join("out/kiln/beacon/beacon.png")).unwrap(),
        std::fs::read(dir.join("out/town/deep/lamp/lamp.png")).unwrap()
    );
    // The failure is named on stderr too, and the rest stay whole.
    let text = kiln(&["bake", "-q", r.to_str().unwrap()], &dir);
    assert!(
        stderr(&text).contains("models/town/broken.rsm"),
        "{}",
        stderr(&text)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_changed_model_rebakes_exactly_its_instance() {
    let dir = catalogue("catalogue-change");
    let r = recipe_with(&dir, "client", "data/model/skip/**, \"**/broken.rsm\"", "");
    let bake = || {
        let o = kiln(&["bake", "-q", "--json", r.to_str().unwrap()], &dir);
        assert!(o.status.success(), "{}", stderr(&o));
        outcomes(&o)
    };
    assert!(bake().values().all(|(s, _)| s == "baked"));
    assert!(bake().values().all(|(s, _)| s == "skipped"));
    let lamp = dir.join("client/data/model/town/deep/lamp.rsm");
    let windmill = std::fs::read(samples().join("model/kiln/windmill.rsm2")).unwrap();
    std::fs::write(&lamp, windmill).unwrap();
    let third = bake();
    let baked: Vec<&String> = third
        .iter()
        .filter(|(_, (s, _))| s == "baked")
        .map(|(n, _)| n)
        .collect();
    assert_eq!(baked, ["models/town/deep/lamp.rsm"]);
    assert_eq!(third.len(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shards_of_a_catalogue_union_to_the_whole_bake() {
    let dir = catalogue("catalogue-shards");
    let r = recipe(&dir, "data.grf", "    output: { dir: \"out/{path}\" }\n");
    let files = |root: &Path| -> BTreeMap<PathBuf, Vec<u8>> {
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
    };
    let whole = dir.join("whole");
    let o = kiln(
        &[
            "bake",
            "-q",
            "--out-dir",
            whole.to_str().unwrap(),
            r.to_str().unwrap(),
        ],
        &dir,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let expected = files(&whole);
    // A sheet and its JSON for each of the four good models.
    assert_eq!(expected.len(), 8, "{:?}", expected.keys());
    let mut union = BTreeMap::new();
    for k in 1..=3 {
        let part = dir.join(format!("shard{k}"));
        let shard = format!("{k}/3");
        let o = kiln(
            &[
                "bake",
                "-q",
                "--shard",
                &shard,
                "--out-dir",
                part.to_str().unwrap(),
                r.to_str().unwrap(),
            ],
            &dir,
        );
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
        for (p, b) in files(&part) {
            assert!(
                union.insert(p.clone(), b).is_none(),
                "{} in two shards",
                p.display()
            );
        }
    }
    assert_eq!(union, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn globs_that_match_nothing_and_placeholders_without_a_glob_are_errors() {
    let dir = catalogue("catalogue-errors");
    let none = dir.join("none.yaml");
    std::fs::write(
        &none,
        "jobs:\n  - name: m\n    model: data/model/**/*.gr2\n    data: [data.grf, client]\n",
    )
    .unwrap();
    let o = kiln(&["plan", none.to_str().unwrap()], &dir);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("none.yaml:3:12") && e.contains("matches no file"),
        "{e}"
    );
    assert!(e.contains("data.grf") && e.contains("client"), "{e}");
    let all_out = dir.join("all_out.yaml");
    std::fs::write(&all_out, "jobs:\n  - name: m\n    model: data/model/kiln/*.rsm\n    data: client\n    exclude: \"**/*\"\n").unwrap();
    let e = stderr(&kiln(&["plan", all_out.to_str().unwrap()], &dir));
    assert!(e.contains("all left out by `exclude`"), "{e}");
    let stem = dir.join("stem.yaml");
    std::fs::write(&stem, "jobs:\n  - name: m\n    model: client/data/model/kiln/beacon.rsm\n    output: { sheet: \"{stem}.png\" }\n").unwrap();
    let e = stderr(&kiln(&["plan", stem.to_str().unwrap()], &dir));
    assert!(e.contains("`{stem}`") && e.contains("not a glob"), "{e}");
    // Two instances writing one file: found before anything is baked.
    let clash = dir.join("clash.yaml");
    std::fs::write(&clash, "jobs:\n  - name: m\n    model: data/model/**/*.rsm\n    data: client\n    output: { dir: out, sheet: sheet.png }\n").unwrap();
    let e = stderr(&kiln(&["plan", clash.to_str().unwrap()], &dir));
    assert!(e.contains("is also written by job 'm'"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_texture_names_each_place_looked_in_once() {
    // The model inside the GRF it is read from: its tree's `data/texture`
    // is also the archive's own, and the warning says so once.
    let dir = tempdir("catalogue-missing-texture");
    let beacon = std::fs::read(samples().join("model/kiln/beacon.rsm")).unwrap();
    let entries: Vec<(&[u8], &[u8], WriteOptions)> = vec![(
        b"data/model/kiln/beacon.rsm",
        &beacon,
        WriteOptions::default(),
    )];
    std::fs::write(dir.join("data.grf"), write_grf(GrfVersion::V200, &entries)).unwrap();
    let r = dir.join("one.yaml");
    std::fs::write(
        &r,
        "jobs:\n  - name: beacon\n    model: data/model/**/*.rsm\n    data: data.grf\n    size: 16x16\n    directions: 1\n    clip: { frames: 1 }\n    antialias: 1\n",
    )
    .unwrap();
    let o = kiln(&["bake", r.to_str().unwrap()], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let g = dir.join("data.grf").display().to_string();
    let places = format!("{g}, {g}/texture, {g}/data/texture, {g}/data/model/kiln");
    for texture in ["kiln\\stone.bmp", "kiln\\sail.bmp"] {
        let line = format!(
            "kiln: warning: job 'beacon/kiln/beacon.rsm': texture \"{texture}\" of \
             {g}:/data/model/kiln/beacon.rsm not found (looked in {places}); drawing a checker"
        );
        assert!(
            stderr(&o).lines().any(|l| l == line),
            "{line}\n{}",
            stderr(&o)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bake that keeps only its totals (`summary_only`, as `kiln bake`
/// without `--json`) hands every warning to the progress as its job ends,
/// keeps each instance's files and inputs but not its warnings, records
/// and key — unless a gallery, which shows the warnings, needs them.
#[test]
fn a_summary_bake_keeps_totals_and_hands_warnings_on() {
    let dir = tempdir("catalogue-summary");
    // Beacons without their textures: each instance warns.
    let beacon = std::fs::read(samples().join("model/kiln/beacon.rsm")).unwrap();
    for n in ["a", "b", "c"] {
        let p = dir.join(format!("bare/data/model/{n}.rsm"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, &beacon).unwrap();
    }
    struct Warnings(std::sync::Mutex<Vec<String>>);
    impl kiln::Progress for Warnings {
        fn job_finished(&self, o: &kiln::JobOutcome) {
            if let Ok(r) = &o.result {
                self.0.lock().unwrap().extend(r.warnings.iter().cloned());
            }
        }
    }
    for gallery in [false, true] {
        let extra = match gallery {
            true => "gallery: { file: out/index.html }\n",
            false => "",
        };
        let r = recipe(&dir, "bare", "");
        let text = format!("{extra}{}", std::fs::read_to_string(&r).unwrap());
        std::fs::write(&r, text).unwrap();
        let options = kiln::BakeOptions {
            summary_only: true,
            force: true,
            ..kiln::BakeOptions::default()
        };
        let seen = Warnings(Default::default());
        let report = kiln::bake_files(&[&r], &options, &seen).unwrap();
        assert_eq!((report.succeeded(), report.failed()), (3, 0));
        assert_eq!(report.images(), 3 * 2 * 2);
        assert_eq!(report.files().len(), 3 * 2, "a sheet and its metadata each");
        let handed = seen.0.lock().unwrap().clone();
        assert!(
            handed.len() >= 3 && handed.iter().all(|w| w.contains("not found")),
            "{handed:?}"
        );
        let mut kept = Vec::new();
        for o in &report.jobs {
            let j = o.result.as_ref().unwrap();
            assert_eq!(j.files.len(), 2, "{}", o.name);
            assert!(j.inputs.iter().any(|i| i.ends_with(Path::new(&format!(
                "data/model/{}",
                o.name.rsplit('/').next().unwrap()
            )))));
            assert_eq!(o.records.is_empty(), !gallery, "{}", o.name);
            assert_eq!(o.key.is_none(), !gallery, "{}", o.name);
            kept.extend(j.warnings.iter().cloned());
        }
        match gallery {
            false => assert!(kept.is_empty(), "{kept:?}"),
            true => assert_eq!(kept, handed),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An archive's names are its maker's: an entry that climbs out of its
/// folder with `..` (or names a device) would steer `{path}` out of the
/// output folder. The glob refuses it by name before anything is written,
/// and `exclude` leaves it out.
#[test]
fn an_archive_name_climbing_out_is_refused_before_anything_is_written() {
    let dir = tempdir("catalogue-climb");
    let beacon = std::fs::read(samples().join("model/kiln/beacon.rsm")).unwrap();
    let entries: Vec<(&[u8], &[u8], WriteOptions)> = vec![
        (b"data/model/ok.rsm", &beacon, WriteOptions::default()),
        (
            b"data\\model\\..\\..\\escaped.rsm",
            &beacon,
            WriteOptions::default(),
        ),
        (b"data/model/con.rsm", &beacon, WriteOptions::default()),
    ];
    std::fs::write(dir.join("evil.grf"), write_grf(GrfVersion::V200, &entries)).unwrap();
    std::fs::create_dir_all(dir.join("r")).unwrap();
    let r = dir.join("r/evil.yaml");
    let recipe = |exclude: &str| {
        let text = format!(
            "jobs:\n  - name: m\n    model: data/model/**/*.rsm\n    data: [../evil.grf]\n    exclude: [{exclude}]\n    size: 8x8\n    directions: 1\n    antialias: 1\n    output: {{ dir: \"out/{{path}}\", sheet: \"{{stem}}.png\" }}\n"
        );
        std::fs::write(&r, text).unwrap();
    };
    recipe("");
    let o = kiln(&["bake", "-q", r.to_str().unwrap()], &dir);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("cannot name an output") && e.contains("exclude"),
        "{e}"
    );
    // `out/{path}` would have been `r/out/../../escaped`: this folder.
    assert!(!dir.join("escaped").exists() && !dir.join("r/out").exists());
    recipe("\"**/escaped.rsm\", \"**/con.rsm\"");
    let o = kiln(&["plan", "--json", r.to_str().unwrap()], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let names: Vec<String> = json(&o)["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["m/ok.rsm"]);
    let _ = std::fs::remove_dir_all(&dir);
}
