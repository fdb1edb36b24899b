//! Mistakes that used to pass silently, each now an error or a warning
//! that says where and what to do: an unquoted colour, a mistyped key, a
//! `data:` folder that is not there, a missing model, a dry run that did
//! not say what it would write, and two messages that named the wrong thing;
//! and `--verbose`, which says everything.

use crate::common::{kiln, stderr, tempdir};
use std::path::{Path, PathBuf};

fn beacon() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("recipes/samples/data/model/kiln/beacon.rsm")
        .display()
        .to_string()
}

/// A one-job recipe in `dir` with `defaults` lines and `job` lines added.
fn recipe(dir: &Path, defaults: &str, job: &str) -> String {
    let text = format!(
        "defaults:\n  size: 32x32\n  directions: 1\n{defaults}jobs:\n  - name: b\n    model: {}\n    clip: {{ frames: 2 }}\n{job}",
        beacon()
    );
    std::fs::write(dir.join("r.yaml"), text).unwrap();
    "r.yaml".to_string()
}

#[test]
fn an_unquoted_colour_is_an_error_naming_the_fix() {
    let dir = tempdir("mistake-colour");
    let r = recipe(&dir, "  background: #123456\n", "");
    let o = kiln(&["bake", &r], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).lines().next().unwrap(),
        "kiln: error: r.yaml:4:15: `#123456` is a YAML comment here, so `background` has no value; \
         quote the colour: background: \"#123456\""
    );
    assert!(!dir.join("out").exists(), "nothing is baked");
}

#[test]
fn an_unknown_key_suggests_the_near_one() {
    let dir = tempdir("mistake-key");
    let r = recipe(&dir, "  pitchh: 30\n", "");
    let o = kiln(&["bake", &r], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).lines().next().unwrap(),
        "kiln: error: r.yaml:4:3: defaults: unknown key `pitchh`; did you mean `pitch`?"
    );
    // Nothing near: every key is listed, as before.
    let r = recipe(&dir, "  qqqqqqqq: 30\n", "");
    let err = stderr(&kiln(&["bake", &r], &dir));
    assert!(
        err.contains("unknown key `qqqqqqqq`, expected one of name, model,"),
        "{err}"
    );
}

#[test]
fn a_missing_data_folder_is_a_warning_and_names_itself_beside_a_missing_model() {
    let dir = tempdir("mistake-data");
    let r = recipe(&dir, "", "    data: [no/such/folder]\n");
    let o = kiln(&["bake", &r], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("kiln: warning: job 'b': data folder no/such/folder does not exist"),
        "{}",
        stderr(&o)
    );

    let text = std::fs::read_to_string(dir.join("r.yaml"))
        .unwrap()
        .replace(&beacon(), "models/gone.rsm");
    std::fs::write(dir.join("r.yaml"), text).unwrap();
    let o = kiln(&["bake", "r.yaml"], &dir);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(
            "kiln: error: job 'b': r.yaml:5: the model models/gone.rsm does not exist (No such file or directory"
        ) && err.contains("(data folder no/such/folder does not exist)"),
        "{err}"
    );
}

#[test]
fn a_dry_run_names_every_file_it_would_write_and_says_would_bake() {
    let dir = tempdir("mistake-dry");
    recipe(&dir, "", "");
    // Named through a folder and back: every path the bake gives is
    // normalised.
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let r = "sub/../r.yaml".to_string();
    let o = kiln(&["bake", "--dry-run", &r], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("kiln: would write out/b/b.png\nkiln: would write out/b/b.json\n"),
        "{err}"
    );
    assert!(!dir.join("out").exists(), "a dry run writes nothing");

    let o = kiln(&["bake", "--dry-run", "--json", &r], &dir);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["dry_run"], true);
    assert_eq!(json["jobs"][0]["status"], "would-bake");
    assert_eq!(json["jobs"][0]["dir"], "out/b");
    assert_eq!(
        json["jobs"][0]["outputs"],
        serde_json::json!(["out/b/b.png", "out/b/b.json"])
    );

    let o = kiln(&["bake", "--json", &r], &dir);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["dry_run"], false);
    assert_eq!(json["jobs"][0]["status"], "baked");
    assert!(dir.join("out/b/b.png").is_file());
}

#[test]
fn a_dry_run_names_every_file_a_prune_would_remove() {
    let dir = tempdir("mistake-dry-prune");
    let gif = "    output: { gif: \"{name}_{dir}.gif\" }\n";
    let r = recipe(&dir, "", &format!("    directions: 2\n{gif}"));
    let o = kiln(&["bake", &r], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(dir.join("out/b/b_1.gif").is_file());
    // One direction now: `b_1.gif` is stale.
    recipe(&dir, "", &format!("    directions: 1\n{gif}"));
    let o = kiln(&["bake", "--dry-run", "--prune", &r], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "kiln: would write out/b/b.png\nkiln: would write out/b/b.json\nkiln: would write out/b/b_0.gif\nkiln: would remove out/b/b_1.gif\n"
        ),
        "{err}"
    );
    // Without --prune nothing would be removed.
    let o = kiln(&["bake", "--dry-run", &r], &dir);
    assert!(!stderr(&o).contains("would remove"), "{}", stderr(&o));

    let o = kiln(&["bake", "--dry-run", "--prune", "--json", &r], &dir);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        json["jobs"][0]["removals"],
        serde_json::json!([{ "path": "out/b/b_1.gif", "status": "would-remove" }])
    );
    assert!(
        dir.join("out/b/b_1.gif").is_file(),
        "a dry run removes nothing"
    );

    let o = kiln(&["bake", "--prune", "--json", &r], &dir);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        json["jobs"][0]["removals"],
        serde_json::json!([{ "path": "out/b/b_1.gif", "status": "removed" }])
    );
    assert!(!dir.join("out/b/b_1.gif").exists());
}

#[test]
fn messages_name_what_the_command_takes() {
    let dir = tempdir("mistake-messages");
    std::fs::write(dir.join("x.tga"), b"not a real tga").unwrap();
    let o = kiln(&["convert", "x.tga", "--mip", "1", "-o", "x.png"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim_end(),
        "kiln: error: x.tga: a TGA file holds one image: there is no mip level 1 (only 0)"
    );

    std::fs::write(dir.join("x.lua"), b"x = { a = 1 }\n").unwrap();
    let err = stderr(&kiln(&["inspect", "x.lua"], &dir));
    assert!(
        err.contains("inspect also reads textures (BMP, TGA, PNG, DDS, PAA/PAC), archives (GRF, PBO, Grimrock .dat) and Arma model.cfg"),
        "{err}"
    );

    let help = String::from_utf8_lossy(&kiln(&["render", "--help"], &dir).stdout).into_owned();
    assert!(help.contains("client sprite (.act"), "{help}");
    let help = String::from_utf8_lossy(&kiln(&["export", "--help"], &dir).stdout).into_owned();
    assert!(!help.contains("map"), "{help}");
}

#[test]
fn verbose_lists_each_jobs_files_and_inputs() {
    let dir = tempdir("verbose");
    let r = recipe(&dir, "", "");
    let o = kiln(&["bake", "--verbose", &r], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("kiln: b: 2 images, 2 files in out/b\nkiln:   "),
        "{err}"
    );
    assert!(err.contains(", content key "), "{err}");
    assert!(
        err.contains("kiln:   baked out/b/b.png\nkiln:   baked out/b/b.json\n"),
        "{err}"
    );
    assert!(
        err.contains(&format!("kiln:   read {}\n", beacon())),
        "{err}"
    );
    // A second bake keeps the files and says so.
    let err = stderr(&kiln(&["bake", "-v", &r], &dir));
    assert!(err.contains("kiln:   skipped out/b/b.png\n"), "{err}");
    let o = kiln(&["bake", "-v", "-q", &r], &dir);
    assert_eq!(o.status.code(), Some(2), "--verbose and --quiet conflict");
}
