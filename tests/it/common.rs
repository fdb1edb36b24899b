//! Helpers shared by the integration tests: golden-image comparison, corpus
//! paths, running the binary, scratch folders and deterministic noise.

use image::{Rgba, RgbaImage};
use std::path::{Path, PathBuf};

/// Per-channel difference tolerated before a pixel counts as different.
pub const TOLERANCE: u8 = 2;

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.png"))
}

/// Compares `img` with `tests/golden/<name>.png` (±2 per channel).
///
/// `KILN_BLESS=1` writes the reference instead. On a mismatch a diff image
/// (expected | actual | differences in red) is written under the target's
/// tmp dir and the test panics with the number of differing pixels.
pub fn assert_golden(name: &str, img: &RgbaImage) {
    let path = golden_path(name);
    if std::env::var_os("KILN_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        img.save(&path).unwrap();
        eprintln!("blessed {}", path.display());
        return;
    }
    let expected = match image::open(&path) {
        Ok(i) => i.to_rgba8(),
        Err(e) => panic!(
            "golden image {} missing or unreadable ({e}); run with KILN_BLESS=1 to create it",
            path.display()
        ),
    };
    if expected.dimensions() != img.dimensions() {
        let diff = write_diff(name, &expected, img);
        panic!(
            "{name}: size {:?} differs from golden {:?}; diff at {}",
            img.dimensions(),
            expected.dimensions(),
            diff.display()
        );
    }
    let differing = expected
        .pixels()
        .zip(img.pixels())
        .filter(|(a, b)| !close(a, b))
        .count();
    if differing > 0 {
        let diff = write_diff(name, &expected, img);
        panic!(
            "{name}: {differing} pixels differ from {} by more than ±{TOLERANCE}; diff at {}",
            path.display(),
            diff.display()
        );
    }
}

fn close(a: &Rgba<u8>, b: &Rgba<u8>) -> bool {
    a.0.iter().zip(b.0).all(|(x, y)| x.abs_diff(y) <= TOLERANCE)
}

fn write_diff(name: &str, expected: &RgbaImage, actual: &RgbaImage) -> PathBuf {
    let (w, h) = (
        expected.width().max(actual.width()),
        expected.height().max(actual.height()),
    );
    let mut out = RgbaImage::from_pixel(w * 3, h, Rgba([0, 0, 0, 255]));
    for (x, y, p) in expected.enumerate_pixels() {
        out.put_pixel(x, y, *p);
    }
    for (x, y, p) in actual.enumerate_pixels() {
        out.put_pixel(w + x, y, *p);
    }
    for y in 0..h {
        for x in 0..w {
            let e = expected.get_pixel_checked(x, y);
            let a = actual.get_pixel_checked(x, y);
            let bad = match (e, a) {
                (Some(e), Some(a)) => !close(e, a),
                _ => true,
            };
            let v = if bad {
                Rgba([255, 0, 0, 255])
            } else {
                Rgba([40, 40, 40, 255])
            };
            out.put_pixel(2 * w + x, y, v);
        }
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kiln-golden");
    let path = dir.join(format!("{name}.diff.png"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    out.save(&path).unwrap();
    path
}

/// The corpus folder, `../shared/corpus` beside the checkout.
pub fn corpus_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

/// A path inside `../shared/corpus`, or `None` after saying so on stderr
/// when the corpus is absent (a user's fresh clone has none).
///
/// Where the corpus is expected (`KILN_REQUIRE_CORPUS=1`, as `.ci/run`
/// sets when it finds one) a missing corpus fails the test instead; and a
/// corpus that is there but lacks the file always does, since that is a
/// moved or renamed file the test would otherwise never read again.
pub fn corpus(rel: &str) -> Option<PathBuf> {
    let root = corpus_root();
    let p = root.join(rel);
    if p.exists() {
        return Some(p);
    }
    if root.is_dir() {
        panic!("{} is missing from the corpus at {}", rel, root.display());
    }
    corpus_missing(&p);
    None
}

/// Reads a corpus file, or `None` after the skip line (see [`corpus`]).
pub fn corpus_bytes(rel: &str) -> Option<Vec<u8>> {
    let p = corpus(rel)?;
    Some(std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

/// Whether the run must have the corpus (`KILN_REQUIRE_CORPUS=1`).
pub fn corpus_required() -> bool {
    std::env::var_os("KILN_REQUIRE_CORPUS").is_some_and(|v| v == "1")
}

/// Reports a corpus path that is absent: a failure where the corpus is
/// required, a skip line on stderr (where `cargo test` shows it) elsewhere.
pub fn corpus_missing(p: &std::path::Path) {
    if corpus_required() {
        panic!(
            "KILN_REQUIRE_CORPUS=1 but the corpus is not at {}",
            p.display()
        );
    }
    eprintln!("skipped: corpus not found at {}", p.display());
}

/// Runs the `kiln` binary in `cwd`.
pub fn kiln(args: &[&str], cwd: &std::path::Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run kiln")
}

/// A fresh, empty temporary folder for one test. All areas run in one
/// process, so `tag` must be unique across the whole test binary.
pub fn tempdir(tag: &str) -> PathBuf {
    static SWEEP: std::sync::Once = std::sync::Once::new();
    SWEEP.call_once(sweep_ended_runs);
    let d = std::env::temp_dir().join(format!("kiln-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Removes the scratch folders of earlier runs of the suite whose process
/// has ended. Many tests leave theirs (a failed test's folder is what one
/// looks at), and each run names its own by its process id, so without
/// this every run would add its folders to the temporary directory for
/// good. A folder of a run still going (its process alive: another
/// `cargo test` beside this one) is left alone. Where `/proc` is absent
/// nothing is removed.
fn sweep_ended_runs() {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("kiln-test-")) else {
            continue;
        };
        let Some(pid) = rest.rsplit('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let _ = std::fs::remove_dir_all(e.path());
    }
}

pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// xorshift64*: deterministic noise without a dependency, so fuzz-style
/// tests reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The scene model of `spec`, loaded as `kiln render` loads it.
pub fn scene_of(spec: &kiln::internals::spec::ModelSpec) -> kiln::internals::scene::Model {
    let model = kiln::internals::model::Model::load(spec)
        .unwrap_or_else(|e| panic!("{}: {e}", spec.model.disk.display()));
    kiln::internals::scene_of(&model).clone()
}

/// The scene model of a file with every option at its default.
pub fn load(path: &std::path::Path) -> kiln::internals::scene::Model {
    scene_of(&kiln::internals::spec::ModelSpec::new(path))
}

/// The scene model of `spec` posed by the animation file `anim`.
pub fn animated(
    spec: &kiln::internals::spec::ModelSpec,
    anim: &std::path::Path,
) -> kiln::Result<kiln::internals::scene::Model> {
    let model = kiln::internals::model::Model::load(spec)?.animated(anim)?;
    Ok(kiln::internals::scene_of(&model).clone())
}

/// Copies the folder `from` to `to`, recursively.
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let q = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_tree(&p, &q);
        } else {
            std::fs::copy(&p, &q).unwrap();
        }
    }
}

/// `recipes/example.yaml` and the samples it reads, in a fresh folder
/// named for `tag`.
pub fn example_copy(tag: &str) -> PathBuf {
    let dir = tempdir(tag);
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    copy_tree(&repo.join("recipes/samples"), &dir.join("recipes/samples"));
    std::fs::copy(
        repo.join("recipes/example.yaml"),
        dir.join("recipes/example.yaml"),
    )
    .unwrap();
    dir
}
