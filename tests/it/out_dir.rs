//! An output root (`BakeOptions::out_dir`, `kiln bake --out-dir`): every
//! job's folder below it and nothing beside the recipe, the same bytes and
//! keys as a bake beside the recipe, and folders that would leave it
//! refused at their line.

use crate::common::{example_copy, stderr};
use std::path::{Path, PathBuf};

/// A recipe of the two sample jobs, one in a named folder, one in the
/// default `out/{name}`, that a build script could bake below `OUT_DIR`.
const ROOTED: &str = "\
defaults: { size: 48x48, directions: 2, antialias: 1 }
jobs:
  - name: beacon
    model: samples/data/model/kiln/beacon.rsm
    clip: { frames: 2 }
    output: { dir: \"sprites/{name}\", sheet: \"{name}.png\" }
  - name: windmill
    model: samples/data/model/kiln/windmill.rsm2
    clip: { frames: 2 }
    output: { sheet: \"{name}.png\" }
";

#[test]
fn an_output_root_takes_every_folder_and_nothing_is_written_beside_the_recipe() {
    let dir = example_copy("out-dir");
    let recipe = dir.join("recipes/rooted.yaml");
    std::fs::write(&recipe, ROOTED).unwrap();
    let bake = |root: Option<&Path>, cache: Option<&Path>| {
        let options = kiln::BakeOptions {
            out_dir: root.map(Path::to_path_buf),
            cache: cache.map(Path::to_path_buf),
            ..kiln::BakeOptions::default()
        };
        let report = kiln::bake_files(&[&recipe], &options, &kiln::NoProgress).unwrap();
        assert_eq!(report.failed(), 0, "{:?}", report.jobs);
        report
    };
    let (a, b, cache) = (dir.join("a"), dir.join("b"), dir.join("cache"));
    let report = bake(Some(&a), Some(&cache));
    let mut files: Vec<PathBuf> = report
        .files()
        .iter()
        .map(|f| f.strip_prefix(&a).unwrap().to_path_buf())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "out/windmill/windmill.json",
            "out/windmill/windmill.png",
            "sprites/beacon/beacon.json",
            "sprites/beacon/beacon.png",
        ]
        .map(PathBuf::from)
    );
    assert!(!dir.join("recipes/out").exists() && !dir.join("recipes/sprites").exists());

    // The same bytes as a bake beside the recipe; and the key does not
    // depend on the root: a bake into another one restores from the cache.
    bake(None, None);
    for f in &files {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(dir.join("recipes").join(f)).unwrap(),
            "{}",
            f.display()
        );
    }
    let other = bake(Some(&b), Some(&cache));
    assert!(
        other
            .jobs
            .iter()
            .all(|j| j.status == kiln::JobStatus::Restored),
        "{:?}",
        other.jobs.iter().map(|j| j.status).collect::<Vec<_>>()
    );

    // The command line's --out-dir; a folder climbing out of the root, or
    // absolute, is a recipe error at its line.
    let o = crate::common::kiln(
        &["bake", "-q", "--out-dir", "c", "recipes/rooted.yaml"],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.join("c/sprites/beacon/beacon.png").is_file());
    let o = crate::common::kiln(
        &["bake", "-q", "--out-dir", "c", "recipes/example.yaml"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("example.yaml:25:")
            && e.contains("`../out/windmill` climbs out of the output root c"),
        "{e}"
    );
    let absolute = ROOTED.replace("\"sprites/{name}\"", "/tmp/kiln-elsewhere");
    std::fs::write(&recipe, absolute).unwrap();
    let o = crate::common::kiln(
        &["bake", "-q", "--out-dir", "c", "recipes/rooted.yaml"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("rooted.yaml:6:"), "{}", stderr(&o));
    assert!(stderr(&o).contains("is absolute"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
