//! The command line against careless and hostile use: closed standard
//! output and error for every command, non-finite and absurd numbers,
//! environment values kiln cannot use, depfile names make cannot read,
//! huge names — each with its exact exit code and message, never a panic.

use crate::common::{kiln, stderr, tempdir};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn beacon() -> String {
    repo()
        .join("recipes/samples/data/model/kiln/beacon.rsm")
        .display()
        .to_string()
}

/// Runs kiln under bash with `redirect` applied to it (`>&-` closes
/// standard output, `2>/dev/full` makes every write to standard error
/// fail, `| true` hands standard output to a reader that is gone), and
/// gives kiln's own exit code.
fn redirected(redirect: &str, args: &[&str], cwd: &Path) -> (Option<i32>, String) {
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!("\"$0\" \"$@\" {redirect}; exit ${{PIPESTATUS[0]}}"))
        .arg(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run bash");
    (o.status.code(), stderr(&o))
}

fn small_recipe(dir: &Path) -> String {
    let r = dir.join("r.yaml");
    std::fs::write(
        &r,
        format!(
            "jobs:\n  - name: b\n    model: '{}'\n    clip: {{ frames: 2 }}\n    directions: 2\n    size: 16x16\n    antialias: 1\n    output: {{ dir: out }}\n",
            beacon()
        ),
    )
    .unwrap();
    r.display().to_string()
}

/// Every command with standard error closed, full or going to a reader
/// that is gone ends as it would with it open (no panic, no exit 101).
/// Standard output likewise; where the output is the point (`inspect`,
/// `plan`, `--json`) and it cannot be written (a full disc), the command
/// ends with exit 1 and says why — while a reader that went away
/// (`| head -1`, `| true`) wanted no more, and the command ends quietly.
#[test]
fn closed_standard_streams_never_panic() {
    let tmp = tempdir("hostile-pipes");
    let r = small_recipe(&tmp);
    let village = repo().join("recipes/samples/data/kiln_village.rsw");
    let grf = tmp.join("a.grf");
    let bytes = kiln::archives::write_grf(
        kiln::archives::GrfVersion::V200,
        &[(
            b"data\\a.txt",
            b"hello",
            kiln::archives::WriteOptions::default(),
        )],
    );
    std::fs::write(&grf, bytes).unwrap();
    let bmp = repo().join("recipes/samples/data/texture/kiln/stone.bmp");
    let b = beacon();
    let v = village.display().to_string();
    let g = grf.display().to_string();
    let t = bmp.display().to_string();
    // (command, exit code when standard output cannot be written)
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["render", &b, "-o", "x.png", "--size", "16x16"], 0),
        (
            vec!["render", &v, "-o", "m.png", "--pixels-per-tile", "1"],
            0,
        ),
        (vec!["convert", &t, "-o", "c.png"], 0),
        (vec!["extract", &g, "-o", "ex"], 0),
        (vec!["bake", "--force", &r], 0),
        (vec!["bake", "--force", "--json", &r], 1),
        (vec!["verify", &r], 0),
        (vec!["verify", "--json", &r], 1),
        (vec!["export", &b, "-o", "e.glb"], 0),
        (vec!["inspect", &b], 1),
        (vec!["inspect", "--json", &b], 1),
        (vec!["plan", &r], 1),
        (vec!["plan", "--json", &r], 1),
    ];
    for (args, unwritable) in &cases {
        for (redirect, want) in [
            ("2>&-", 0),
            ("2>/dev/full", 0),
            ("2>&1 >/dev/null | true", 0),
            (">&-", 0),
            ("| true", 0),
            (">/dev/full", *unwritable),
            (">/dev/full 2>/dev/full", *unwritable),
        ] {
            let (code, e) = redirected(redirect, args, &tmp);
            assert_eq!(code, Some(want), "{args:?} {redirect}: {e}");
            assert!(!e.contains("panicked"), "{args:?} {redirect}: {e}");
            if want == 1 && !redirect.contains("2>") {
                assert!(
                    e.contains("kiln: error: standard output: No space left on device"),
                    "{args:?} {redirect}: {e}"
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Non-finite and absurd numbers are refused before anything is drawn,
/// with exit 2 and the flag named.
#[test]
fn non_finite_and_absurd_flags_are_usage_errors() {
    let tmp = tempdir("hostile-nan");
    let b = beacon();
    for (flag, value, why) in [
        ("--yaw", "NaN", "must be a finite number, got NaN"),
        ("--yaw", "inf", "must be a finite number, got inf"),
        ("--yaw", "1e9", "must be in [-3600, 3600], got 1000000000"),
        ("--pitch", "91", "must be in [-90, 90], got 91"),
        ("--time", "NaN", "must be a finite number, got NaN"),
        ("--time", "1e308", "must be a finite number, got 1e308"),
        (
            "--time",
            "1e30",
            "must be in [0, 86400], got 1000000000000000000000000000000",
        ),
        ("--time", "-1", "must be in [0, 86400], got -1"),
        ("--fov", "0", "must be in [1, 170], got 0"),
        ("--duration", "0", "must be in (0, 86400], got 0"),
        ("--rim", "nan", "must be a finite number, got nan"),
    ] {
        let out = tmp.join("x.png");
        let o = kiln(
            &[
                "render",
                &b,
                "-o",
                out.to_str().unwrap(),
                &format!("{flag}={value}"),
            ],
            &tmp,
        );
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {e}");
        assert!(e.contains(&format!("'{flag} ")), "{flag} {value}: {e}");
        assert!(e.contains(why), "{flag} {value}: {e}");
        assert!(!out.exists());
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Recipe frame rates and times are bounded where a frame's duration would
/// overflow what GIFs and metadata hold.
#[test]
fn absurd_recipe_times_are_refused_at_their_line() {
    let tmp = tempdir("hostile-fps");
    for (clip, why) in [
        (
            "{ fps: 1.0e-8 }",
            "`clip.fps` must be in [0.01, 1000], got 0.00000001",
        ),
        (
            "{ fps: .nan }",
            "`clip.fps` must be a finite number, got NaN",
        ),
        (
            "{ time: 1.0e30 }",
            "`clip.time` must be at most 86400 seconds (a day)",
        ),
        (
            "{ start: 0, end: 1.0e12 }",
            "`clip.end` must be at most 86400 seconds (a day)",
        ),
    ] {
        std::fs::write(
            tmp.join("r.yaml"),
            format!(
                "jobs:\n  - name: b\n    model: '{}'\n    clip: {clip}\n",
                beacon()
            ),
        )
        .unwrap();
        let o = kiln(&["bake", "r.yaml"], &tmp);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{clip}: {e}");
        assert!(e.contains("r.yaml:4:"), "{clip}: {e}");
        assert!(e.contains(why), "{clip}: {e}");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A `KILN_*` value kiln cannot use is an error naming the variable.
#[test]
fn unusable_environment_values_name_their_variable() {
    let tmp = tempdir("hostile-env");
    let b = beacon();
    for (var, value) in [("KILN_SIMD", "avx1024"), ("KILN_MAX_INPUT", "-1")] {
        let o = Command::new(env!("CARGO_BIN_EXE_kiln"))
            .args(["inspect", &b])
            .env(var, value)
            .current_dir(&tmp)
            .output()
            .unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{var}: {e}");
        assert!(
            e.starts_with(&format!(
                "kiln: error: {var}={value}: not a value kiln can use; {var} takes "
            )),
            "{e}"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A depfile names paths as make reads them; one holding a newline (which
/// would start a rule of its own) cannot be named and is an error.
#[cfg(unix)]
#[test]
fn depfiles_escape_for_make_and_refuse_newlines() {
    let tmp = tempdir("hostile-depfile");
    let odd = tmp.join("a b#c$d:e");
    std::fs::create_dir_all(&odd).unwrap();
    std::fs::copy(beacon(), odd.join("m.rsm")).unwrap();
    let nl = tmp.join("evil\nall:");
    std::fs::create_dir_all(&nl).unwrap();
    std::fs::copy(beacon(), nl.join("m.rsm")).unwrap();
    let job = |model: &Path| {
        format!(
            "jobs:\n  - name: b\n    model: \"{}\"\n    clip: {{ time: 0 }}\n    directions: [0]\n    size: 16x16\n    output: {{ dir: out }}\n",
            model.display().to_string().escape_default()
        )
    };
    std::fs::write(tmp.join("r.yaml"), job(&odd.join("m.rsm"))).unwrap();
    let o = kiln(&["bake", "-q", "--depfile", "d.d", "r.yaml"], &tmp);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let d = std::fs::read_to_string(tmp.join("d.d")).unwrap();
    assert!(d.contains("a\\ b\\#c$$d\\:e/m.rsm"), "{d}");
    assert_eq!(d.lines().count(), 1, "{d}");
    std::fs::write(tmp.join("r.yaml"), job(&nl.join("m.rsm"))).unwrap();
    let o = kiln(
        &["bake", "-q", "--force", "--depfile", "d2.d", "r.yaml"],
        &tmp,
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("a control character in the name; a depfile cannot name it"),
        "{e}"
    );
    assert!(!tmp.join("d2.d").exists());
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Names far longer than any file system takes are refused at once with
/// their line and column, not worked through.
#[test]
fn huge_names_are_refused_at_their_line() {
    let tmp = tempdir("hostile-long");
    let long = "n".repeat(1 << 20);
    for (field, yaml) in [
        (
            "job",
            format!("jobs:\n  - name: {long}\n    model: '{}'\n", beacon()),
        ),
        (
            "sheet",
            format!(
                "jobs:\n  - name: b\n    model: '{}'\n    output: {{ sheet: '{long}.png' }}\n",
                beacon()
            ),
        ),
    ] {
        std::fs::write(tmp.join("r.yaml"), yaml).unwrap();
        let o = kiln(&["bake", "r.yaml"], &tmp);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{field}");
        assert!(
            e.contains("bytes long (at most 255)"),
            "{field}: {}",
            &e[..e.len().min(300)]
        );
        assert!(
            e.len() < 4096,
            "{field}: the message does not repeat the name whole"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
