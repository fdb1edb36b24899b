//! The make and ninja rules of docs/builds.md, run by real make and ninja
//! on a copy of the bundled example (two jobs: the windmill reads
//! `banner.tga`, the beacon `stone.bmp`, both `sail.bmp` and `wood.bmp`):
//! an input touched without a change, a changed texture and a deleted
//! output each run the bake once, bake exactly the job they concern (and
//! keep the other's bytes), and leave both tools with nothing to do. Each test skips, saying so on
//! stderr, when its tool is not installed (`.ci/run` installs both).

use crate::common::{example_copy, stderr};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

/// The files both rules name as their targets.
const TARGETS: [&str; 4] = [
    "out/windmill/windmill.png",
    "out/windmill/windmill.json",
    "out/beacon/beacon.png",
    "out/beacon/beacon.json",
];

/// docs/builds.md's Makefile for `recipes/example.yaml`, with the bake's
/// `--json` summary kept in `bake.json` for the test to read.
const MAKEFILE: &str = "\
SPRITES := out/windmill/windmill.png out/windmill/windmill.json out/beacon/beacon.png out/beacon/beacon.json
all: $(SPRITES)
$(SPRITES) &: recipes/example.yaml
\t$(KILN) bake --quiet --json --depfile sprites.d recipes/example.yaml > bake.json
-include sprites.d
";

/// docs/builds.md's ninja rule, the same way.
const NINJA: &str = "\
rule kiln
  command = $kiln bake --quiet --json --depfile sprites.d recipes/example.yaml > bake.json
  depfile = sprites.d
  deps = gcc
build out/windmill/windmill.png out/windmill/windmill.json out/beacon/beacon.png out/beacon/beacon.json: kiln recipes/example.yaml
";

/// Whether `tool --version` runs; if not, the skip line.
fn have(tool: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: `{tool}` is not installed (apt-get install make ninja-build)");
    }
    found
}

/// Each job's status in the summary the last bake wrote.
fn statuses(dir: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read(dir.join("bake.json")).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&text)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&text)));
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

/// Every output of both jobs: bytes and modification time.
fn outputs(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    let mut out = BTreeMap::new();
    for job in ["windmill", "beacon"] {
        for e in std::fs::read_dir(dir.join("out").join(job)).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().unwrap() == kiln::STATE_FILE {
                continue;
            }
            let m = std::fs::metadata(&p).unwrap().modified().unwrap();
            let bytes = std::fs::read(&p).unwrap();
            out.insert(p, (bytes, m));
        }
    }
    out
}

/// How many outputs of `job` have another time in `b` than in `a`,
/// asserting that `b` lists the same files with the same bytes.
fn moved(
    a: &BTreeMap<PathBuf, (Vec<u8>, SystemTime)>,
    b: &BTreeMap<PathBuf, (Vec<u8>, SystemTime)>,
    job: &str,
) -> usize {
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "the outputs differ"
    );
    a.iter()
        .filter(|(p, _)| p.parent().unwrap().ends_with(job))
        .filter(|(p, (bytes, t))| {
            assert!(b[*p].0 == *bytes, "{} changed", p.display());
            b[*p].1 != *t
        })
        .count()
}

/// Whether every output in `files` of `job` is at least as new as `input`.
fn newer(files: &BTreeMap<PathBuf, (Vec<u8>, SystemTime)>, job: &str, input: &Path) -> bool {
    let t = std::fs::metadata(input).unwrap().modified().unwrap();
    files
        .iter()
        .filter(|(p, _)| p.parent().unwrap().ends_with(job))
        .all(|(_, (_, m))| *m >= t)
}

/// A texture rewritten with one byte of its last pixel changed.
fn change(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let n = bytes.len();
    bytes[n - 5] ^= 0x10;
    std::fs::write(path, &bytes).unwrap();
}

/// `path` modified now, its bytes untouched.
fn touch(path: &Path) {
    std::fs::File::options()
        .append(true)
        .open(path)
        .and_then(|f| f.set_modified(SystemTime::now()))
        .unwrap();
}

/// How one tool is driven: a run, and whether it would do anything.
struct Tool {
    dir: PathBuf,
    run: fn(&Path) -> Output,
    idle: fn(&Path) -> bool,
}

impl Tool {
    /// Runs the tool, which must run the bake, and returns each job's
    /// status; then runs it again, which must find nothing to do.
    fn rebuild(&self, what: &str) -> BTreeMap<String, String> {
        let _ = std::fs::remove_file(self.dir.join("bake.json"));
        let o = (self.run)(&self.dir);
        assert!(o.status.success(), "{what}: {}", stderr(&o));
        assert!(
            self.dir.join("bake.json").exists(),
            "{what}: the bake did not run"
        );
        let s = statuses(&self.dir);
        self.settled(what);
        s
    }

    /// Nothing to do: the tool says so, and a run leaves the bake unrun.
    fn settled(&self, what: &str) {
        assert!((self.idle)(&self.dir), "{what}: the tool has work left");
        let _ = std::fs::remove_file(self.dir.join("bake.json"));
        let o = (self.run)(&self.dir);
        assert!(o.status.success(), "{what}: {}", stderr(&o));
        assert!(
            !self.dir.join("bake.json").exists(),
            "{what}: a second run baked again"
        );
    }
}

/// The three changes, each followed by a rebuild that must bake exactly
/// the jobs it concerns and a second run that must do nothing.
fn three_changes(tool: Tool) {
    let dir = tool.dir.clone();
    let first = tool.rebuild("the first build");
    assert!(first.values().all(|s| s == "baked"), "{first:?}");
    assert_eq!(first.len(), 2);
    for t in TARGETS {
        assert!(dir.join(t).is_file(), "{t} was not written");
    }

    // Touched, not changed: the bake runs once and skips both jobs; their
    // files keep their bytes and become newer than the banner (the
    // windmill reads it; the beacon's files too, as the rule's targets
    // are compared with every prerequisite of the rule).
    let texture = dir.join("recipes/samples/data/texture/kiln");
    let before = outputs(&dir);
    touch(&texture.join("banner.tga"));
    let s = tool.rebuild("after a touch");
    assert!(s.values().all(|v| v == "skipped"), "{s:?}");
    let after = outputs(&dir);
    assert!(moved(&before, &after, "windmill") > 0, "no time refreshed");
    moved(&before, &after, "beacon");
    for job in ["windmill", "beacon"] {
        assert!(newer(&after, job, &texture.join("banner.tga")), "{job}");
    }

    // A texture only the beacon reads: the beacon bakes, the windmill is
    // skipped with its bytes.
    let before = after;
    change(&texture.join("stone.bmp"));
    let s = tool.rebuild("after a changed texture");
    assert_eq!(s["beacon"], "baked", "{s:?}");
    assert_eq!(s["windmill"], "skipped", "{s:?}");
    let after = outputs(&dir);
    moved(&before, &after, "windmill");

    // A deleted output: its job bakes again; the other, whose inputs are
    // all older than its files now, is skipped and keeps its times.
    let before = after;
    std::fs::remove_file(dir.join("out/windmill/windmill.json")).unwrap();
    let s = tool.rebuild("after a deleted output");
    assert_eq!(s["windmill"], "baked", "{s:?}");
    assert_eq!(s["beacon"], "skipped", "{s:?}");
    assert_eq!(moved(&before, &outputs(&dir), "beacon"), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn make_runs_the_bake_once_per_change_and_then_has_nothing_to_do() {
    if !have("make") {
        return;
    }
    let dir = example_copy("make-rules");
    std::fs::write(dir.join("Makefile"), MAKEFILE).unwrap();
    three_changes(Tool {
        dir,
        run: |d| {
            Command::new("make")
                .arg(format!("KILN={}", env!("CARGO_BIN_EXE_kiln")))
                .current_dir(d)
                .output()
                .unwrap()
        },
        // `make -q`: exit 0 when every target is up to date.
        idle: |d| {
            Command::new("make")
                .args(["-q", &format!("KILN={}", env!("CARGO_BIN_EXE_kiln"))])
                .current_dir(d)
                .status()
                .unwrap()
                .success()
        },
    });
}

#[test]
fn ninja_runs_the_bake_once_per_change_and_then_has_nothing_to_do() {
    if !have("ninja") {
        return;
    }
    let dir = example_copy("ninja-rules");
    let file = format!("kiln = {}\n{NINJA}", env!("CARGO_BIN_EXE_kiln"));
    std::fs::write(dir.join("build.ninja"), file).unwrap();
    three_changes(Tool {
        dir,
        run: |d| Command::new("ninja").current_dir(d).output().unwrap(),
        // `ninja -n` (a dry run) says so when nothing is dirty.
        idle: |d| {
            let o = Command::new("ninja")
                .arg("-n")
                .current_dir(d)
                .output()
                .unwrap();
            String::from_utf8_lossy(&o.stdout).contains("no work to do")
        },
    });
}
