//! `kiln extract` never loses an entry and never writes outside its
//! folder: names that map onto one file take the next free name with a
//! warning, one unwritable entry is reported while the rest are written,
//! every Windows device name is refused, a link inside the folder is not
//! followed, and the count it prints is true.

use crate::common::{kiln, stderr, tempdir};
use kiln::archives::{write_grf, GrfVersion, WriteOptions};
use std::path::Path;

fn files_below(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if std::fs::symlink_metadata(&p).unwrap().is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn colliding_names_are_kept_apart_and_counted_truly() {
    let dir = tempdir("extract-collide");
    let o = WriteOptions::default();
    let long = format!("data\\{}.txt", "x".repeat(300));
    let grf = write_grf(
        GrfVersion::V200,
        &[
            // Two undecodable lead bytes both decode to U+FFFD.
            (b"\xff\\a.txt", b"first", o),
            (b"\x81\\a.txt", b"second", o),
            // One name in two cases.
            (b"data\\Readme.txt", b"upper", o),
            (b"data\\readme.TXT", b"lower", o),
            // A file where a folder goes.
            (b"data\\x", b"a file", o),
            (b"data\\x\\y.txt", b"below it", o),
            // Unwritable: too long a name; devices. A trailing dot names
            // the folder without it.
            (long.as_bytes(), b"long", o),
            (b"trail.\\c", b"dot", o),
            (b"trail\\c", b"plain", o),
            (b"data\\COM5.txt", b"dev", o),
            (b"data\\lpt9", b"dev", o),
            (b"data\\CONIN$", b"dev", o),
            (b"data\\conout$.log", b"dev", o),
            (b"data\\last.txt", b"still here", o),
        ],
    );
    std::fs::write(dir.join("c.grf"), grf).unwrap();
    let out = kiln(&["extract", "c.grf", "-o", "x"], &dir);
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    let got = files_below(&dir.join("x"));
    assert_eq!(
        got,
        [
            "data/Readme.txt",
            "data/last.txt",
            "data/readme~2.TXT",
            "data/x",
            "data/x~2/y.txt",
            "trail/c",
            "trail/c~2",
            "\u{fffd}/a.txt",
            "\u{fffd}/a~2.txt",
        ]
    );
    let read = |p: &str| std::fs::read_to_string(dir.join("x").join(p)).unwrap();
    assert_eq!(read("\u{fffd}/a.txt"), "first");
    assert_eq!(read("\u{fffd}/a~2.txt"), "second");
    assert_eq!(read("data/readme~2.TXT"), "lower");
    assert_eq!(read("data/x~2/y.txt"), "below it");
    assert!(
        e.contains("written as data/readme~2.TXT: its name is taken by data/Readme.txt"),
        "{e}"
    );
    assert!(
        e.contains("written as data/x~2/y.txt: its name is taken by data/x"),
        "{e}"
    );
    assert!(e.contains("bytes long (at most 255)"), "{e}");
    // `trail.` is `trail` as Windows and the game read it.
    assert_eq!(read("trail/c"), "dot");
    assert_eq!(read("trail/c~2"), "plain");
    assert!(
        e.contains("written as trail/c~2: its name is taken by trail/c"),
        "{e}"
    );
    for dev in ["COM5.txt", "lpt9", "CONIN$", "conout$.log"] {
        assert!(
            e.contains(&format!("data/{dev}: unsafe name")),
            "{dev}: {e}"
        );
    }
    assert!(
        e.contains(&format!(
            "kiln: wrote {} file(s) to x, skipped 5",
            got.len()
        )),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A folder link inside the extraction folder is not followed: the entries
/// below it are reported, the others written, the link's target untouched.
#[cfg(unix)]
#[test]
fn extraction_does_not_follow_links_inside_its_folder() {
    let dir = tempdir("extract-link");
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(dir.join("x")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, dir.join("x/data")).unwrap();
    let o = WriteOptions::default();
    let grf = write_grf(
        GrfVersion::V200,
        &[(b"data\\a.txt", b"a", o), (b"other\\b.txt", b"b", o)],
    );
    std::fs::write(dir.join("l.grf"), grf).unwrap();
    let out = kiln(&["extract", "l.grf", "-o", "x"], &dir);
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains("x/data: is a symbolic link"), "{e}");
    assert!(std::fs::read_dir(&elsewhere).unwrap().next().is_none());
    assert_eq!(
        std::fs::read_to_string(dir.join("x/other/b.txt")).unwrap(),
        "b"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
