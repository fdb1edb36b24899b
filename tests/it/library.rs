//! kiln as a library, through its public API alone: what a `build.rs`, a
//! golden test or a tool does without the command line.

use crate::common::tempdir;
use kiln::{
    BakeOptions, DataSource, FileKind, FileRef, Map, MapView, MapViewCamera, MemorySource, Model,
    ModelSpec, NoProgress, OutputMode, OutputStatus, Recipe, ViewSpec,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const BUNDLED: [&str; 4] = ["example.yaml", "grimrock.yaml", "arma.yaml", "map.yaml"];

fn recipes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes")
}

/// Every file below `dir`, by path relative to it.
fn files_below(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().unwrap() != kiln::STATE_FILE {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

/// The bundled recipes copied into `dir/recipes/`; `samples` replaces the
/// recipes' `samples/` prefix (e.g. an absolute path to the shipped ones).
fn copy_recipes(dir: &Path, samples: Option<&Path>) -> Vec<PathBuf> {
    let to = dir.join("recipes");
    std::fs::create_dir_all(&to).unwrap();
    BUNDLED
        .iter()
        .map(|name| {
            let mut text = std::fs::read_to_string(recipes_dir().join(name)).unwrap();
            if let Some(s) = samples {
                text = text.replace("samples/", &format!("{}/", s.display()));
            }
            let p = to.join(name);
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect()
}

#[test]
fn a_bake_from_memory_writes_the_bytes_of_the_bake_from_folders() {
    let samples = recipes_dir().join("samples");
    // Every shipped sample file, held in memory under the names the
    // recipes write (`samples/...`), and nowhere on disk beside the copies.
    let mut memory = MemorySource::new("mem");
    for (rel, bytes) in files_below(&samples) {
        memory.insert(format!("samples/{}", rel.display()), bytes);
    }
    assert!(memory.len() >= 20, "{} sample files", memory.len());

    let disk = tempdir("lib-from-disk");
    let folder_report = kiln::bake_files(
        &copy_recipes(&disk, Some(&samples)),
        &BakeOptions::default(),
        &NoProgress,
    )
    .unwrap();
    assert_eq!(folder_report.failed(), 0);

    let mem = tempdir("lib-from-memory");
    let options = BakeOptions {
        sources: vec![Arc::new(memory) as Arc<dyn DataSource>],
        ..BakeOptions::default()
    };
    let memory_report = kiln::bake_files(&copy_recipes(&mem, None), &options, &NoProgress).unwrap();
    for j in &memory_report.jobs {
        assert!(j.result.is_ok(), "{}: {:?}", j.label(), j.result);
    }

    let a = files_below(&disk.join("out"));
    let b = files_below(&mem.join("out"));
    // 20 + 19 + 12 + 5 files, as `kiln bake` reports for the four recipes.
    assert_eq!(a.len(), 56);
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(b[name] == *bytes, "{} differs", name.display());
    }
    // Everything but the recipes themselves came from memory: the models,
    // textures, Lua definitions, animations, the skeleton's model.cfg, the
    // map, its ground and models.
    let inputs = memory_report.inputs();
    let from_memory: Vec<&PathBuf> = inputs.iter().filter(|p| p.starts_with("mem:")).collect();
    let on_disk: Vec<&PathBuf> = inputs.iter().filter(|p| !p.starts_with("mem:")).collect();
    assert_eq!(on_disk.len(), BUNDLED.len(), "{on_disk:?}");
    for kind in [
        "windmill.rsm2",
        "sail.bmp",
        "kiln_tentacle.model",
        "kiln_materials.lua",
        "kiln_tentacle.tga",
        "kiln_tentacle_wave.animation",
        "kiln_lever.p3d",
        "kiln_lever_swing_bin.rtm",
        "model.cfg",
        "lever_co.tga",
        "kiln_village.rsw",
        "kiln_village.gnd",
        "grass.bmp",
    ] {
        assert!(
            from_memory
                .iter()
                .any(|p| p.to_string_lossy().ends_with(kind)),
            "{kind} not read from memory: {from_memory:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&disk);
    let _ = std::fs::remove_dir_all(&mem);
}

#[test]
fn a_build_script_learns_every_input_the_bake_read() {
    let dir = tempdir("lib-inputs");
    let samples = recipes_dir().join("samples");
    let recipe = dir.join("sprites.yaml");
    std::fs::write(
        &recipe,
        format!(
            "jobs:\n  - name: beacon\n    model: '{}'\n    size: 32x32\n    directions: 2\n    clip: {{frames: 2}}\n    output: {{dir: out, gif: false}}\n",
            samples.join("data/model/kiln/beacon.rsm").display()
        ),
    )
    .unwrap();
    let report = kiln::bake_files(&[&recipe], &BakeOptions::default(), &NoProgress).unwrap();
    assert_eq!((report.succeeded(), report.failed()), (1, 0));
    assert_eq!(report.images(), 4);
    let files: Vec<PathBuf> = report.files().iter().map(|p| p.to_path_buf()).collect();
    assert_eq!(
        files,
        [dir.join("out/beacon.png"), dir.join("out/beacon.json")]
    );
    // The recipe, the model and exactly the textures it names.
    let data = samples.join("data");
    assert_eq!(
        report.inputs(),
        [
            recipe.clone(),
            data.join("model/kiln/beacon.rsm"),
            data.join("texture/kiln/sail.bmp"),
            data.join("texture/kiln/stone.bmp"),
        ]
        .into_iter()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verify_and_dry_run_write_nothing_and_say_what_they_found() {
    let dir = tempdir("lib-modes");
    let samples = recipes_dir().join("samples");
    let recipe = dir.join("r.yaml");
    std::fs::write(
        &recipe,
        format!(
            "jobs:\n  - name: mill\n    model: '{}'\n    size: 24x24\n    directions: 1\n    clip: {{frames: 2}}\n    output: {{dir: out, gif: '{{name}}.gif'}}\n",
            samples.join("data/model/kiln/windmill.rsm2").display()
        ),
    )
    .unwrap();
    let recipes = [Recipe::load(&recipe).unwrap()];
    let run = |mode| {
        let options = BakeOptions {
            mode,
            ..BakeOptions::default()
        };
        let report = kiln::bake(&recipes, &options, &NoProgress).unwrap();
        report.jobs[0]
            .records
            .iter()
            .map(|r| (r.path.file_name().unwrap().to_owned(), r.outcome))
            .collect::<Vec<_>>()
    };
    let dry = run(OutputMode::DryRun);
    assert_eq!(dry.len(), 3);
    assert!(dry.iter().all(|(_, o)| *o == OutputStatus::WouldWrite));
    assert!(!dir.join("out").exists(), "a dry run wrote files");
    let missing = run(OutputMode::Verify);
    assert!(missing.iter().all(|(_, o)| *o == OutputStatus::Missing));
    let written = run(OutputMode::Write);
    assert!(written.iter().all(|(_, o)| *o == OutputStatus::Written));
    let same = run(OutputMode::Verify);
    assert!(
        same.iter().all(|(_, o)| *o == OutputStatus::Same),
        "{same:?}"
    );
    std::fs::write(dir.join("out/mill.json"), b"{}").unwrap();
    let changed = run(OutputMode::Verify);
    let json = changed.iter().find(|(n, _)| n == "mill.json").unwrap();
    assert_eq!(json.1, OutputStatus::Different);
    assert_eq!(std::fs::read(dir.join("out/mill.json")).unwrap(), b"{}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_model_renders_like_the_recipe_job_with_the_same_view() {
    let dir = tempdir("lib-render");
    let model = recipes_dir().join("samples/data/model/kiln/windmill.rsm2");
    let recipe = dir.join("r.yaml");
    std::fs::write(
        &recipe,
        format!(
            "jobs:\n  - name: mill\n    model: '{}'\n    size: 40x48\n    directions: [30]\n    clip: {{time: 0.25}}\n    output: {{dir: out, sheet: false, frames: '{{name}}.png'}}\n",
            model.display()
        ),
    )
    .unwrap();
    let report = kiln::bake_files(&[&recipe], &BakeOptions::default(), &NoProgress).unwrap();
    assert_eq!(report.failed(), 0);
    let baked = image::open(dir.join("out/mill.png")).unwrap().to_rgba8();

    let loaded = Model::load(&ModelSpec::new(model.as_path())).unwrap();
    assert_eq!(loaded.warnings(), [] as [String; 0]);
    assert!((loaded.duration() - 2.0).abs() < 1e-6);
    let view = ViewSpec {
        width: 40,
        height: 48,
        ..ViewSpec::default()
    };
    let sprite = loaded.render(0.25, 30.0, &view).unwrap();
    assert!(
        sprite.image == baked,
        "Model::render differs from the job's frame"
    );
    assert!(sprite.image.pixels().filter(|p| p[3] > 0).count() > 200);
    // The windmill stands on its origin: the pivot is at the bottom centre.
    assert!((sprite.pivot[0] - 0.5).abs() < 0.1, "{:?}", sprite.pivot);
    assert!(sprite.pivot[1] > 0.75, "{:?}", sprite.pivot);
    // Out-of-range views are usage errors, not panics.
    let bad = ViewSpec {
        antialias: 9,
        ..view
    };
    assert!(matches!(
        loaded.render(0.0, 0.0, &bad),
        Err(kiln::Error::Usage(_))
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn file_kinds_are_told_by_content() {
    let s = recipes_dir().join("samples");
    for (file, kind) in [
        ("data/model/kiln/beacon.rsm", FileKind::Model),
        ("data/kiln_village.rsw", FileKind::Map),
        ("data/kiln_village.gnd", FileKind::Ground),
        (
            "grimrock/mod_assets/animations/kiln_tentacle_wave.animation",
            FileKind::Animation,
        ),
        ("arma/kiln_lever/model.cfg", FileKind::Config),
    ] {
        assert_eq!(
            kiln::file_kind(&FileRef::from(s.join(file)), &[]).unwrap(),
            kind,
            "{file}"
        );
    }
    let e = kiln::file_kind(&FileRef::from(s.join("data/texture/kiln/sail.bmp")), &[]).unwrap_err();
    assert!(e.to_string().contains("not a file kiln can read"), "{e}");
}

#[test]
fn a_map_renders_like_the_recipe_view() {
    let dir = tempdir("lib-map");
    let data = recipes_dir().join("samples/data");
    let recipe = dir.join("r.yaml");
    std::fs::write(
        &recipe,
        format!(
            "maps:\n  - name: v\n    map: '{}'\n    output: out\n    views:\n      - {{ name: top, region: [2, 13, 12, 22], pixels_per_tile: 4 }}\n",
            data.join("kiln_village.rsw").display()
        ),
    )
    .unwrap();
    let report = kiln::bake_files(&[&recipe], &BakeOptions::default(), &NoProgress).unwrap();
    assert_eq!(report.failed(), 0);
    let baked = image::open(dir.join("out/v_top.png")).unwrap().to_rgba8();
    let map = Map::load(data.join("kiln_village.rsw"), &[]).unwrap();
    assert_eq!(map.size_in_tiles(), (24, 24));
    let view = MapView {
        region: Some(kiln::Region {
            x0: 2,
            y0: 13,
            x1: 12,
            y1: 22,
        }),
        camera: MapViewCamera::TopDown {
            pixels_per_tile: 4.0,
        },
        time: 0.0,
        antialias: 2,
        background: [0, 0, 0, 0],
    };
    assert_eq!(map.version(), "1.9");
    // The windmill's 2 s loop is the longest of the props (the beacon's
    // spin plays at 1.5× in one instance).
    assert!((map.duration() - 2.0).abs() < 1e-4, "{}", map.duration());
    let img = map.render(&view).unwrap();
    assert_eq!(img.dimensions(), (40, 36));
    assert!(img == baked, "Map::render differs from the recipe's view");
    let off = MapView {
        region: Some(kiln::Region {
            x0: 20,
            y0: 0,
            x1: 30,
            y1: 5,
        }),
        ..view
    };
    assert!(matches!(map.render(&off), Err(kiln::Error::Usage(_))));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn views_out_of_range_are_usage_errors() {
    let ok = ViewSpec::default();
    assert!(ok.check().is_ok());
    let bad = |v: ViewSpec, want: &str| match v.check() {
        Err(kiln::Error::Usage(m)) => assert!(m.contains(want), "{m}"),
        other => panic!("expected a usage error naming {want}, got {other:?}"),
    };
    bad(ViewSpec { width: 0, ..ok }, "image size 0x128");
    bad(ViewSpec { height: 8193, ..ok }, "out of range");
    bad(ViewSpec { antialias: 0, ..ok }, "antialias");
    bad(ViewSpec { pitch: 90.5, ..ok }, "pitch");
    bad(
        ViewSpec {
            pitch: f32::NAN,
            ..ok
        },
        "pitch",
    );
    assert!(ViewSpec { pitch: -90.0, ..ok }.check().is_ok());
    let framing = |f: kiln::Framing| ViewSpec { framing: f, ..ok };
    bad(
        framing(kiln::Framing {
            padding: 0.5,
            ..ok.framing
        }),
        "padding",
    );
    bad(
        framing(kiln::Framing {
            zoom: 0.0,
            ..ok.framing
        }),
        "zoom",
    );
    let persp = |fov_deg| kiln::Framing {
        projection: kiln::Projection::Perspective { fov_deg },
        ..ok.framing
    };
    assert!(framing(persp(170.0)).check().is_ok());
    bad(framing(persp(0.5)), "fov");
    let light = |l: kiln::LightSpec| ViewSpec { light: l, ..ok };
    bad(
        light(kiln::LightSpec {
            direction: glam::Vec3::ZERO,
            ..ok.light
        }),
        "light direction",
    );
    bad(
        light(kiln::LightSpec {
            ambient: glam::Vec3::splat(4.5),
            ..ok.light
        }),
        "[0, 4]",
    );
}

#[test]
fn inspect_reports_a_model_through_the_library() {
    let beacon = recipes_dir().join("samples/data/model/kiln/beacon.rsm");
    let r: kiln::InspectReport =
        kiln::inspect(&FileRef::from(beacon.as_path()), &[], None).unwrap();
    assert_eq!((r.format.as_str(), r.version.as_str()), ("RSM", "1.4"));
    assert_eq!(r.textures.len(), 2);
    assert!(r.textures.iter().all(|t| t.found.is_some()));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert!(r.to_text().contains("textures: 2"));
}

/// A recipe of `n` small jobs of the sample beacon, all writing into one
/// folder `out` beside it.
fn many_jobs(dir: &Path, n: usize) -> PathBuf {
    let model = recipes_dir().join("samples/data/model/kiln/beacon.rsm");
    let mut text = String::from("jobs:\n");
    for i in 0..n {
        text.push_str(&format!(
            "  - name: beacon{i}\n    model: '{}'\n    size: 24x24\n    directions: {}\n    \
             clip: {{frames: 2}}\n    output: {{dir: out, sheet: '{{name}}.png', gif: false}}\n",
            model.display(),
            1 + i % 3
        ));
    }
    let recipe = dir.join("many.yaml");
    std::fs::write(&recipe, text).unwrap();
    recipe
}

#[test]
fn jobs_sharing_a_folder_run_side_by_side_and_each_keeps_its_state() {
    let dir = tempdir("lib-side-by-side");
    let (one, four) = (dir.join("one"), dir.join("four"));
    let bake = |at: &Path, threads: usize| {
        std::fs::create_dir_all(at).unwrap();
        let recipe = many_jobs(at, 9);
        let options = BakeOptions {
            threads: Some(threads),
            ..BakeOptions::default()
        };
        kiln::bake_files(&[&recipe], &options, &NoProgress).unwrap()
    };
    let alone = bake(&one, 1);
    let together = bake(&four, 4);
    let names =
        |r: &kiln::BakeReport| -> Vec<String> { r.jobs.iter().map(|j| j.name.clone()).collect() };
    let expected: Vec<String> = (0..9).map(|i| format!("beacon{i}")).collect();
    assert_eq!(names(&alone), expected);
    assert_eq!(names(&together), expected, "the report is in recipe order");
    assert_eq!((together.succeeded(), together.failed()), (9, 0));
    // The same files with the same bytes, and no temporary file left.
    let a = files_below(&one.join("out"));
    let b = files_below(&four.join("out"));
    assert_eq!(a.len(), 18);
    assert!(a == b, "files differ between one thread and four");
    // Every job's state survived its neighbours' saves: a second bake on
    // four threads skips all nine.
    let again = bake(&four, 4);
    assert!(
        again
            .jobs
            .iter()
            .all(|j| j.status == kiln::JobStatus::Skipped),
        "{:?}",
        again
            .jobs
            .iter()
            .map(|j| (&j.name, j.status))
            .collect::<Vec<_>>()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn jobs_that_fit_the_memory_limit_only_one_at_a_time_still_all_run() {
    let dir = tempdir("lib-budget");
    let recipe = many_jobs(&dir, 1);
    // The least limit the job fits: found by halving, since the estimate
    // is the library's to make.
    let fits = |limit: u64| {
        let options = BakeOptions {
            threads: Some(4),
            memory_limit: Some(limit),
            mode: OutputMode::DryRun,
            ..BakeOptions::default()
        };
        let r = kiln::bake_files(&[&recipe], &options, &NoProgress).unwrap();
        r.failed() == 0
    };
    let (mut lo, mut hi) = (0u64, 1 << 30);
    assert!(!fits(lo) && fits(hi));
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    // Eight jobs of one direction each (the same need) on four threads
    // with room for one: each waits for the one before, none fails.
    let model = recipes_dir().join("samples/data/model/kiln/beacon.rsm");
    let mut text = String::from("jobs:\n");
    for i in 0..8 {
        text.push_str(&format!(
            "  - name: b{i}\n    model: '{}'\n    size: 24x24\n    directions: 1\n    \
             clip: {{frames: 2}}\n    output: {{dir: out{i}, sheet: '{{name}}.png', gif: false}}\n",
            model.display()
        ));
    }
    let eight = dir.join("eight.yaml");
    std::fs::write(&eight, text).unwrap();
    let options = BakeOptions {
        threads: Some(4),
        memory_limit: Some(hi),
        ..BakeOptions::default()
    };
    // Starts and drawn images as they happen: one job at a time draws
    // both its images before the next starts.
    struct Events(std::sync::Mutex<String>);
    impl kiln::Progress for Events {
        fn job_started(&self, _: &str, _: usize) {
            self.0.lock().unwrap().push('S');
        }
        fn image_done(&self) {
            self.0.lock().unwrap().push('i');
        }
    }
    let events = Events(Default::default());
    let r = kiln::bake_files(&[&eight], &options, &events).unwrap();
    assert_eq!((r.succeeded(), r.failed()), (8, 0));
    assert_eq!(*events.0.lock().unwrap(), "Sii".repeat(8));
    for i in 0..8 {
        assert!(dir.join(format!("out{i}/b{i}.png")).is_file());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
