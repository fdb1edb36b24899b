//! The `kiln` binary as a user runs it: bake, render, inspect, export, exit
//! codes, determinism across thread counts, and failure isolation.

use crate::common::{self, kiln, stderr, tempdir};

use std::path::{Path, PathBuf};

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/model/kiln")
}

fn recipe(dir: &Path, body: &str) -> PathBuf {
    let p = dir.join("recipe.yaml");
    std::fs::write(&p, body).unwrap();
    p
}

fn small_recipe(out: &str) -> String {
    format!(
        "defaults:\n  size: 48x48\n  directions: 8\n  antialias: 2\n  output:\n    dir: {out}/{{name}}\n    sheet: \"{{name}}.png\"\n    gif: \"{{name}}_{{dir}}.gif\"\n    frames: \"frames/{{name}}_{{dir}}_{{frame}}.png\"\njobs:\n  - name: windmill\n    model: {}\n    clip: {{ frames: 6 }}\n  - name: beacon\n    model: {}\n    clip: {{ fps: 2 }}\n",
        samples().join("windmill.rsm2").display(),
        samples().join("beacon.rsm").display()
    )
}

fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().unwrap() != kiln::STATE_FILE {
                out.push((
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn bake_writes_sheets_metadata_gifs_and_is_identical_across_thread_counts() {
    let dir = tempdir("bake");
    let r = recipe(&dir, &small_recipe("one"));
    let o1 = kiln(&["bake", r.to_str().unwrap(), "--jobs", "1"], &dir);
    assert!(o1.status.success(), "{}", stderr(&o1));
    let r2 = recipe(&dir, &small_recipe("two"));
    let o2 = kiln(&["bake", r2.to_str().unwrap(), "--jobs", "2"], &dir);
    assert!(o2.status.success(), "{}", stderr(&o2));
    assert!(
        stderr(&o2).contains("baked 2 of 2 job(s)"),
        "summary line: {}",
        stderr(&o2)
    );

    let a = files_under(&dir.join("one"));
    let b = files_under(&dir.join("two"));
    // windmill: 6 frames × 8 directions; beacon: 2 s at 2 fps = 4 frames × 8.
    let count = |v: &[(PathBuf, Vec<u8>)], ext: &str| {
        v.iter()
            .filter(|(p, _)| p.extension().is_some_and(|e| e == ext))
            .count()
    };
    assert_eq!(count(&a, "gif"), 16);
    assert_eq!(count(&a, "json"), 2);
    assert_eq!(count(&a, "png"), 2 + 6 * 8 + 4 * 8);
    assert_eq!(a.len(), b.len());
    for ((pa, ba), (pb, bb)) in a.iter().zip(&b) {
        assert_eq!(pa, pb);
        assert!(
            ba == bb,
            "{} differs between --jobs 1 and --jobs 2",
            pa.display()
        );
    }

    let sheet = image::open(dir.join("one/windmill/windmill.png"))
        .unwrap()
        .to_rgba8();
    assert_eq!(
        sheet.dimensions(),
        (48 * 6, 48 * 8),
        "rows = directions, columns = frames"
    );
    // The sheet's cells are the per-frame PNGs.
    let f = image::open(dir.join("one/windmill/frames/windmill_3_2.png"))
        .unwrap()
        .to_rgba8();
    for y in 0..48 {
        for x in 0..48 {
            assert_eq!(f.get_pixel(x, y), sheet.get_pixel(2 * 48 + x, 3 * 48 + y));
        }
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("one/windmill/windmill.json")).unwrap())
            .unwrap();
    assert_eq!(meta["frames"].as_object().unwrap().len(), 48);
    assert_eq!(meta["meta"]["size"]["w"], 288);
    assert_eq!(meta["meta"]["image"], "windmill.png");
    // No temporary files are left behind.
    assert!(a.iter().all(|(p, _)| !p.to_string_lossy().contains(".tmp")));
}

#[test]
fn a_failing_job_does_not_stop_the_others() {
    let dir = tempdir("fail");
    let bad = dir.join("broken.rsm");
    let good = std::fs::read(samples().join("beacon.rsm")).unwrap();
    std::fs::write(&bad, &good[..good.len() / 2]).unwrap();
    let body = format!(
        "defaults:\n  size: 32x32\n  directions: 2\njobs:\n  - name: broken\n    model: broken.rsm\n    output: {{ dir: out/broken }}\n  - name: fine\n    model: {}\n    clip: {{ frames: 2 }}\n    output: {{ dir: out/fine }}\n",
        samples().join("beacon.rsm").display()
    );
    let r = recipe(&dir, &body);
    let o = kiln(&["bake", r.to_str().unwrap()], &dir);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("job 'broken'") && err.contains("broken.rsm") && err.contains("at byte"),
        "{err}"
    );
    assert!(err.contains("1 FAILED"), "{err}");
    assert!(
        dir.join("out/fine/fine.png").is_file(),
        "the good job still wrote its sheet"
    );
    assert!(dir.join("out/fine/fine.json").is_file());
    assert!(
        !dir.join("out/broken").exists(),
        "nothing half-written for the failed job"
    );
}

/// Files are written behind the rendering threads; a file that cannot be
/// written still fails its job, naming the file, before the job's state is
/// saved, and the other job finishes.
#[test]
fn a_file_that_cannot_be_written_fails_its_job_and_no_other() {
    let dir = tempdir("unwritable");
    let body = format!(
        "defaults:\n  size: 32x32\n  directions: 2\n  clip: {{ frames: 2 }}\n  output: {{ sheet: '{{name}}.png', gif: '{{name}}_{{dir}}.gif' }}\njobs:\n  - name: blocked\n    model: {b}\n    output: {{ dir: out/blocked }}\n  - name: fine\n    model: {b}\n    output: {{ dir: out/fine }}\n",
        b = samples().join("beacon.rsm").display()
    );
    let r = recipe(&dir, &body);
    // A folder where the sheet goes: renaming the sheet over it fails.
    std::fs::create_dir_all(dir.join("out/blocked/blocked.png")).unwrap();
    let o = kiln(&["bake", r.to_str().unwrap()], &dir);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("job 'blocked'") && err.contains("blocked.png"),
        "{err}"
    );
    assert!(err.contains("1 FAILED"), "{err}");
    // The sheet comes before the metadata and GIFs: none of them is written,
    // and no state claims the job's files.
    assert!(!dir.join("out/blocked/blocked_0.gif").exists());
    assert!(!dir.join("out/blocked").join(kiln::STATE_FILE).exists());
    for f in [
        "fine.png",
        "fine.json",
        "fine_0.gif",
        "fine_1.gif",
        kiln::STATE_FILE,
    ] {
        assert!(dir.join("out/fine").join(f).is_file(), "{f}");
    }
    // Unblocked, the next bake writes the job and skips the other.
    std::fs::remove_dir(dir.join("out/blocked/blocked.png")).unwrap();
    let o = kiln(&["bake", r.to_str().unwrap()], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.join("out/blocked/blocked_1.gif").is_file());
    assert!(stderr(&o).contains("fine: up to date"), "{}", stderr(&o));
}

#[test]
fn a_job_over_the_memory_limit_fails_before_rendering() {
    let dir = tempdir("memory");
    // 8 directions × 64 frames of 8192² (antialias 4) made into GIFs
    // without a sheet would hold 128 GiB of frames; the small job beside it
    // fits.
    let body = format!(
        "jobs:\n  - name: huge\n    model: {m}\n    size: 8192x8192\n    antialias: 4\n    directions: 8\n    clip: {{ frames: 64 }}\n    output: {{ dir: out/huge, sheet: false, gif: \"g_{{dir}}.gif\" }}\n  - name: small\n    model: {m}\n    size: 32x32\n    directions: 2\n    clip: {{ frames: 2 }}\n    output: {{ dir: out/small }}\n",
        m = samples().join("beacon.rsm").display()
    );
    let r = recipe(&dir, &body);
    let o = kiln(&["bake", r.to_str().unwrap(), "--jobs", "1"], &dir);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    // 128 GiB of frames, and the colours of the 64 frames of the GIF being
    // made.
    assert!(
        err.contains("job 'huge': its 512 images of 8192x8192 (all held until the job's outputs are written) need 144 GiB in memory at once beside the 12 KiB its decoded textures take, more than the memory limit of 4.0 GiB"),
        "{err}"
    );
    assert!(err.contains("--memory-limit"), "{err}");
    assert_eq!(err.matches("job 'huge'").count(), 1, "named once: {err}");
    assert!(
        !dir.join("out/huge").exists(),
        "nothing rendered or written"
    );
    assert!(dir.join("out/small/small.png").is_file());

    // The limit is the user's: the small job's sheet of 2 × 2 frames of 32²
    // takes 16 KiB, the frame one thread draws into it 4 KiB, and the
    // beacon's two textures (32² and 32×64) 12 KiB decoded.
    let run = |limit: &str| {
        kiln(
            &[
                "bake",
                r.to_str().unwrap(),
                "--only",
                "small",
                "--force",
                "--jobs",
                "1",
                "--memory-limit",
                limit,
            ],
            &dir,
        )
    };
    let o = run("31K");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("job 'small': its 4 images of 32x32 (drawn into their sheet) need 20 KiB in memory at once beside the 12 KiB its decoded textures take, more than the memory limit of 31 KiB"),
        "{}",
        stderr(&o)
    );
    let o = run("32K");
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run("lots");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not a size such as 512M or 4G"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn recipe_errors_exit_2_with_line_and_column() {
    let dir = tempdir("usage");
    let r = recipe(
        &dir,
        "jobs:\n  - name: x\n    model: m.rsm\n    sise: 10x10\n",
    );
    let o = kiln(&["bake", r.to_str().unwrap()], &dir);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("recipe.yaml:4:5") && err.contains("sise"),
        "{err}"
    );
    let o = kiln(&["render"], &dir);
    assert_eq!(
        o.status.code(),
        Some(2),
        "missing arguments are usage errors"
    );
}

#[test]
fn render_inspect_and_export_commands() {
    let dir = tempdir("cmds");
    let model = samples().join("windmill.rsm2");
    let m = model.to_str().unwrap();
    let o = kiln(
        &[
            "render", m, "-o", "w.png", "--frame", "15", "--yaw", "45", "--pitch", "20", "--size",
            "80x60",
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let img = image::open(dir.join("w.png")).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (80, 60));
    assert!(img.pixels().any(|p| p[3] == 255) && img.pixels().any(|p| p[3] == 0));

    let o = kiln(&["inspect", m, "--json"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["format"], "RSM2");
    assert_eq!(j["version"], "2.3");
    assert_eq!(j["nodes"].as_array().unwrap().len(), 5);
    assert_eq!(j["animation"]["fps"], 30.0);
    assert_eq!(j["animation"]["frames"], 60);
    assert!(j["textures"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["found"].is_string()));
    let o = kiln(&["inspect", m], &dir);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("RSM2 2.3")
            && text.contains("hub (parent tower)")
            && text.contains("5 rotation"),
        "{text}"
    );

    for out in ["w.glb", "w.obj"] {
        let o = kiln(&["export", m, "--time", "0.5", "-o", out], &dir);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let glb = std::fs::read(dir.join("w.glb")).unwrap();
    assert_eq!(&glb[0..4], b"glTF");
    assert!(std::fs::read_to_string(dir.join("w.obj"))
        .unwrap()
        .contains("usemtl"));
    let o = kiln(&["export", m, "-o", "w.fbx"], &dir);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn bad_model_files_give_an_error_with_file_and_offset() {
    let dir = tempdir("bad");
    std::fs::write(dir.join("garbage.rsm"), b"NOPE\x01\x04garbage").unwrap();
    let o = kiln(&["render", "garbage.rsm", "-o", "x.png"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("garbage.rsm") && stderr(&o).contains("at byte 0"),
        "{}",
        stderr(&o)
    );
    let good = std::fs::read(samples().join("windmill.rsm2")).unwrap();
    std::fs::write(dir.join("cut.rsm2"), &good[..1000]).unwrap();
    let o = kiln(&["inspect", "cut.rsm2"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cut.rsm2") && stderr(&o).contains("at byte"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("x.png").exists());
}

fn is_magenta(p: &image::Rgba<u8>) -> bool {
    // Any visible pixel whose colour leans to the colour key's pink.
    p[3] > 0 && p[0] > 160 && p[2] > 160 && p[1] < 100
}

#[test]
fn error_box_reads_correctly_golden() {
    let Some(model) = common::corpus("ro/Borf+BrowEdit3/data/model/box_error_01.rsm") else {
        return;
    };
    let dir = tempdir("errorbox");
    for yaw in ["0", "90", "180", "270"] {
        let out = format!("box_{yaw}.png");
        let o = kiln(
            &[
                "render",
                model.to_str().unwrap(),
                "-o",
                &out,
                "--yaw",
                yaw,
                "--pitch",
                "15",
                "--size",
                "96x96",
            ],
            &dir,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let img = image::open(dir.join(&out)).unwrap().to_rgba8();
        common::assert_golden(&format!("corpus/box_error_yaw{yaw}"), &img);
    }
}

#[test]
fn colour_keys_leave_no_magenta_in_any_output_pixel() {
    let models = [
        "ro/hurtsky+RO-Clientresources/data/model/goomba/goomba_1.rsm",
        "ro/vE5li+korangar/korangar/archive/data/model/missing.rsm",
    ];
    let dir = tempdir("magenta");
    for rel in models {
        let Some(model) = common::corpus(rel) else {
            return;
        };
        for yaw in ["0", "120", "240"] {
            let o = kiln(
                &[
                    "render",
                    model.to_str().unwrap(),
                    "-o",
                    "m.png",
                    "--yaw",
                    yaw,
                    "--size",
                    "128x128",
                    "--aa",
                    "3",
                ],
                &dir,
            );
            assert!(o.status.success(), "{}", stderr(&o));
            let img = image::open(dir.join("m.png")).unwrap().to_rgba8();
            let pink = img.pixels().filter(|p| is_magenta(p)).count();
            assert_eq!(pink, 0, "{rel} yaw {yaw}: {pink} magenta pixels");
        }
    }
}

/// Files of these games that kiln knows but does not draw are named for
/// what they are: the corpus map's `.gat`, and a sound and a palette
/// beside a model.
#[test]
fn files_kiln_does_not_draw_are_named_for_what_they_are() {
    let tmp = tempdir("cli-known-files");
    let out = tmp.join("x.png");
    let out = out.to_str().unwrap();
    if let Some(gat) = common::corpus("ro/hurtsky+RO-Clientresources/data/desert.gat") {
        let o = kiln(&["render", gat.to_str().unwrap(), "-o", out], &tmp);
        assert!(!o.status.success());
        let e = stderr(&o);
        assert!(
            e.contains(
                "magic at byte 0 (0x0): a Ragnarok GAT (walkability/altitude) file: kiln reads the map through its .rsw"
            ),
            "{e}"
        );
    }
    for (name, bytes, says) in [
        (
            "hit.wav",
            &b"RIFF\x24\0\0\0WAVEfmt "[..],
            "a WAV sound file",
        ),
        ("hair.pal", &[7u8; 1024][..], "a Ragnarok palette (.pal)"),
        (
            "tree.str",
            &b"STRM\x94\0\0\0"[..],
            "a Ragnarok STR (effect animation) file",
        ),
        (
            "world.wrp",
            &b"OPRW\x12\0\0\0"[..],
            "an Arma WRP (terrain) file",
        ),
    ] {
        std::fs::write(tmp.join(name), bytes).unwrap();
        let o = kiln(&["render", name, "-o", out], &tmp);
        assert!(!o.status.success(), "{name}");
        assert!(stderr(&o).contains(says), "{name}: {}", stderr(&o));
        assert!(!tmp.join("x.png").exists());
    }
}
