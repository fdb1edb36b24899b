//! Ragnarok maps through the binary: `inspect`, `bake` with `maps:`, `render MAP.rsw`.

use crate::common::{self, kiln, stderr, tempdir};

#[test]
fn inspect_rsw_and_gnd() {
    let Some(data) = common::corpus("ro/hurtsky+RO-Clientresources/data") else {
        return;
    };
    let tmp = tempdir("map");
    let o = kiln(
        &[
            "inspect",
            data.join("fishingboat.rsw").to_str().unwrap(),
            "--json",
            "--summary",
        ],
        &tmp,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["version"], "2.1");
    let d = &j["details"];
    assert_eq!(
        (
            d["models"].as_u64(),
            d["lights"].as_u64(),
            d["sounds"].as_u64(),
            d["effects"].as_u64()
        ),
        (Some(22), Some(5), Some(6), Some(0))
    );
    assert_eq!(d["instances"].as_array().unwrap().len(), 22);
    // Without --summary, `details` holds every object and the quad tree.
    let o = kiln(
        &[
            "inspect",
            data.join("fishingboat.rsw").to_str().unwrap(),
            "--json",
        ],
        &tmp,
    );
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = &j["details"];
    assert_eq!(d["objects"].as_array().unwrap().len(), 22 + 5 + 6);
    assert_eq!(d["objects"][0]["type"], "Model");
    assert_eq!(d["objects"][0]["file"], "아요타야\\나룻배.rsm");
    assert_eq!(d["quad_tree"].as_array().unwrap().len(), 1365);
    let text = String::from_utf8_lossy(
        &kiln(
            &["inspect", data.join("sm_pri.rsw").to_str().unwrap()],
            &tmp,
        )
        .stdout,
    )
    .into_owned();
    assert!(
        text.contains("24 models, 3 lights, 0 sounds, 2 effects")
            && text.contains("(file not found)"),
        "{text}"
    );

    let poring = data.join("poring_c01.gnd");
    let gnd = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["inspect", poring.to_str().unwrap(), "--json"];
        args.extend_from_slice(extra);
        let o = kiln(&args, &tmp);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let short = gnd(&["--summary"]);
    assert_eq!(
        (
            short["details"]["width"].as_i64(),
            short["details"]["height"].as_i64()
        ),
        (Some(100), Some(100))
    );
    assert_eq!(short["details"]["surfaces"], 3020);
    let full = gnd(&[]);
    assert_eq!(full["details"]["width"], 100);
    assert_eq!(full["details"]["surfaces"].as_array().unwrap().len(), 3020);
    assert_eq!(
        full["details"]["cubes"].as_array().unwrap().len(),
        100 * 100
    );
    // --summary is a form of --json.
    let o = kiln(&["inspect", poring.to_str().unwrap(), "--summary"], &tmp);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    let Some(bad) = common::corpus("ro/asteanya+Aste-Grf/data/mhisle01.rsw") else {
        return;
    };
    let o = kiln(&["inspect", bad.to_str().unwrap()], &tmp);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("mhisle01.rsw")
            && stderr(&o).contains("at byte 0")
            && stderr(&o).contains("GRSW"),
        "{}",
        stderr(&o)
    );
}

// ---------------------------------------------------------------------------
// `kiln bake` with `maps:`
// ---------------------------------------------------------------------------

use std::path::{Path, PathBuf};

fn sample_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data")
}

/// `recipes/map.yaml` with its paths pointing at the repo's samples and its
/// output at `<dir>/<out>`, written into `dir` as `<out>.yaml`; the lines stay
/// where they are so messages can be checked against the shipped recipe.
fn sample_recipe(dir: &Path, out: &str) -> PathBuf {
    let shipped =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/map.yaml"))
            .unwrap();
    let data = sample_data();
    let text = shipped
        .replace(
            "map: samples/data/kiln_village.rsw",
            &format!("map: {}", data.join("kiln_village.rsw").display()),
        )
        .replace("data: samples/data", &format!("data: {}", data.display()))
        .replace("output: ../out/maps", &format!("output: {out}"));
    assert_eq!(text.matches(&*data.to_string_lossy()).count(), 2, "{text}");
    let p = dir.join(format!("{out}.yaml"));
    std::fs::write(&p, text).unwrap();
    p
}

fn png_size(p: &Path) -> (u32, u32) {
    image::image_dimensions(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn gif_frames(p: &Path) -> Vec<image::RgbaImage> {
    use image::AnimationDecoder;
    let f = std::io::BufReader::new(std::fs::File::open(p).unwrap());
    image::codecs::gif::GifDecoder::new(f)
        .unwrap()
        .into_frames()
        .collect_frames()
        .unwrap()
        .into_iter()
        .map(|f| f.into_buffer())
        .collect()
}

fn sorted_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name() != kiln::STATE_FILE)
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn bake_sample_map_writes_every_view_identically_on_one_and_two_threads() {
    let dir = tempdir("mapbake");
    let r1 = sample_recipe(&dir, "one");
    let o = kiln(&["bake", r1.to_str().unwrap(), "--jobs", "1"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    // The two absent models are listed once, in one warning.
    assert_eq!(err.matches("kiln\\hut.rsm").count(), 1, "{err}");
    assert_eq!(err.matches("kiln\\well.rsm").count(), 1, "{err}");
    assert!(
        err.contains("kiln: warning: map 'kiln_village': 2 of 4 model files not found; 2 instance(s) drawn as red placeholder boxes: kiln\\hut.rsm, kiln\\well.rsm\n"),
        "{err}"
    );
    // 4 stills + 24 GIF frames.
    assert!(
        err.contains("kiln: baked 1 of 1 job(s): 28 images, 5 files in "),
        "{err}"
    );

    let out = dir.join("one");
    let files = sorted_files(&out);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "kiln_village_angled.png",
            "kiln_village_angled_ne.png",
            "kiln_village_overview.png",
            "kiln_village_props.gif",
            "kiln_village_windmill.png"
        ]
    );
    // 24×24 tiles at 16 px; the windmill region is 10×9 tiles at 32 px.
    assert_eq!(png_size(&out.join("kiln_village_overview.png")), (384, 384));
    assert_eq!(png_size(&out.join("kiln_village_windmill.png")), (320, 288));
    assert_eq!(png_size(&out.join("kiln_village_angled.png")), (800, 600));
    assert_eq!(
        png_size(&out.join("kiln_village_angled_ne.png")),
        (640, 480)
    );
    // 12 fps × 2 s over the 12×10-tile props region at 16 px.
    let frames = gif_frames(&out.join("kiln_village_props.gif"));
    assert_eq!(frames.len(), 24);
    assert_eq!(frames[0].dimensions(), (192, 160));
    // The sails and gems turn, so no two neighbouring frames are equal.
    for k in 1..frames.len() {
        assert!(
            frames[k] != frames[k - 1],
            "frames {} and {k} are equal",
            k - 1
        );
    }

    let r2 = sample_recipe(&dir, "two");
    let o = kiln(&["bake", r2.to_str().unwrap(), "--jobs", "2"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let again = sorted_files(&dir.join("two"));
    assert_eq!(again.len(), 5);
    for ((na, a), (nb, b)) in files.iter().zip(&again) {
        assert_eq!(na, nb);
        assert!(a == b, "{na} differs between --jobs 1 and --jobs 2");
    }
}

/// A recipe of small views of the sample map, so the failure tests run fast.
fn small_map(name: &str, map: &Path, extra_view: &str) -> String {
    format!(
        "  - name: {name}\n    map: {}\n    data: {}\n    output: out\n    views:\n      - {{ name: top, pixels_per_tile: 2 }}\n      - {{ name: anim, region: [2, 12, 14, 22], pixels_per_tile: 2, gif: {{ fps: 4, frames: 3 }} }}\n{extra_view}",
        map.display(),
        sample_data().display()
    )
}

#[test]
fn a_truncated_map_fails_alone() {
    let dir = tempdir("mapbroken");
    let whole = std::fs::read(sample_data().join("kiln_village.rsw")).unwrap();
    std::fs::write(dir.join("broken.rsw"), &whole[..300]).unwrap();
    let text = format!(
        "maps:\n{}{}",
        small_map("broken", &dir.join("broken.rsw"), ""),
        small_map("good", &sample_data().join("kiln_village.rsw"), "")
    );
    std::fs::write(dir.join("two.yaml"), text).unwrap();
    let o = kiln(&["bake", "two.yaml"], &dir);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    // The instance table claims 6 objects; the first needs 672 bytes.
    assert!(
        err.contains(&format!(
            "kiln: error: map 'broken': {}: object_count at byte 242 (0xf2): count 6 needs at least 672 bytes but only 54 are left\n",
            dir.join("broken.rsw").display()
        )),
        "{err}"
    );
    assert!(
        err.contains("kiln: baked 1 of 2 job(s): 4 images, 2 files in ")
            && err.contains(", 1 FAILED"),
        "{err}"
    );
    let out = dir.join("out");
    let names: Vec<String> = sorted_files(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["good_anim.gif", "good_top.png"]);
    assert_eq!(png_size(&out.join("good_top.png")), (48, 48));
    let frames = gif_frames(&out.join("good_anim.gif"));
    assert_eq!(frames.len(), 3);
    assert_eq!(frames[2].dimensions(), (24, 20));
}

#[test]
fn a_region_off_the_map_names_the_recipe_line() {
    let dir = tempdir("mapregion");
    let map = sample_data().join("kiln_village.rsw");
    let text = format!(
        "maps:\n{}{}",
        small_map(
            "edge",
            &map,
            "      - { name: off, region: [20, 20, 30, 30], pixels_per_tile: 2 }\n"
        ),
        small_map("fine", &map, "")
    );
    std::fs::write(dir.join("maps.yaml"), text).unwrap();
    let o = kiln(&["bake", "maps.yaml", "--quiet"], &dir);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    // Line 9: the third view of the first map.
    assert!(
        err.contains("kiln: error: map 'edge': maps.yaml:9: view 'off': region [20, 20, 30, 30] leaves the 24×24-tile ground\n"),
        "{err}"
    );
    // The whole map is refused before rendering; the other map is written.
    let names: Vec<String> = sorted_files(&dir.join("out"))
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["fine_anim.gif", "fine_top.png"]);
}

#[test]
fn only_selects_a_map_by_name() {
    let dir = tempdir("maponly");
    let map = sample_data().join("kiln_village.rsw");
    let text = format!(
        "maps:\n{}{}",
        small_map("first", &map, ""),
        small_map("second", &map, "")
    );
    std::fs::write(dir.join("maps.yaml"), text).unwrap();
    let o = kiln(&["bake", "maps.yaml", "--only", "second"], &dir);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("kiln: baked 1 of 1 job(s): 4 images, 2 files in "),
        "{err}"
    );
    let names: Vec<String> = sorted_files(&dir.join("out"))
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["second_anim.gif", "second_top.png"]);

    let o = kiln(&["bake", "maps.yaml", "--only", "third"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "kiln: error: --only third: no job of that name in the recipe(s)\n"
    );
}

#[test]
fn corpus_maps_recipe_bakes_all_four_maps() {
    let Some(corpus) = common::corpus("ro/hurtsky+RO-Clientresources/data") else {
        return;
    };
    // `corpus` is `<shared corpus>/ro/<repo>/data`.
    let shared = corpus.join("../../..");
    let dir = tempdir("mapcorpus");
    let shipped = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/corpus/maps.yaml"),
    )
    .unwrap();
    // Same recipe, with the corpus found from the temp folder and the
    // images kept out of the repo.
    let text = shipped
        .replace("../../../shared/corpus", &shared.to_string_lossy())
        .replace("output: ../../out/maps", "output: out");
    assert_eq!(text.matches("output: out\n").count(), 4, "{text}");
    std::fs::write(dir.join("maps.yaml"), text).unwrap();
    let o = kiln(&["bake", "maps.yaml", "--quiet"], &dir);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("kiln: baked 4 of 4 job(s): 7 images, 7 files in "),
        "{err}"
    );
    // Every map's absent models are named, once.
    assert!(
        err.contains("kiln: warning: map 'poring_c01': 9 of 9 model files not found; 248 instance(s) drawn as red placeholder boxes: "),
        "{err}"
    );
    let out = dir.join("out");
    let sizes: Vec<(String, (u32, u32))> = sorted_files(&out)
        .into_iter()
        .map(|(n, _)| {
            let s = png_size(&out.join(&n));
            (n, s)
        })
        .collect();
    let want: Vec<(String, (u32, u32))> = [
        ("desert_angled.png", (1024, 768)),
        // 50×66 tiles at 8 px.
        ("desert_overview.png", (400, 528)),
        ("fishingboat_deck.png", (1024, 768)),
        ("fishingboat_overview.png", (400, 528)),
        // The 30×30-tile centre at 16 px of a 100×100 map at 8 px.
        ("poring_c01_centre.png", (480, 480)),
        ("poring_c01_overview.png", (800, 800)),
        // 8×8 tiles at 32 px.
        ("sm_pri_overview.png", (256, 256)),
    ]
    .into_iter()
    .map(|(n, s)| (n.to_string(), s))
    .collect();
    assert_eq!(sizes, want);
}

#[test]
fn render_draws_a_map_from_above_or_at_an_angle() {
    let tmp = tempdir("render-map");
    let rsw = sample_data().join("kiln_village.rsw");
    let rsw = rsw.to_str().unwrap();
    let top = tmp.join("top.png");
    let o = kiln(
        &[
            "render",
            rsw,
            "-o",
            top.to_str().unwrap(),
            "--pixels-per-tile",
            "10",
            "--region",
            "10,0,24,12",
        ],
        &tmp,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // 14 × 12 tiles at 10 pixels each.
    assert_eq!(png_size(&top), (140, 120));
    let err = stderr(&o);
    assert_eq!(err.matches("kiln\\hut.rsm").count(), 1, "{err}");
    let ang = tmp.join("angled.png");
    let o = kiln(
        &[
            "render",
            rsw,
            "-o",
            ang.to_str().unwrap(),
            "--angled",
            "--yaw",
            "200",
            "--pitch",
            "30",
            "--size",
            "200x150",
            "--time",
            "0.3",
        ],
        &tmp,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(png_size(&ang), (200, 150));
    // A top-down render of the whole map equals the library's.
    let whole = tmp.join("whole.png");
    let o = kiln(
        &["render", rsw, "-o", whole.to_str().unwrap(), "--aa", "2"],
        &tmp,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let scene = kiln::internals::map::MapScene::open(Path::new(rsw), &[]).unwrap();
    let cam = kiln::internals::map::camera::top_down(
        &scene,
        kiln::internals::map::Region::whole(24, 24),
        4.0,
    )
    .unwrap();
    let lib = kiln::internals::map::render(
        &scene,
        &cam.camera,
        0.0,
        &kiln::internals::raster::RenderOptions {
            width: 96,
            height: 96,
            supersample: 2,
            background: [0, 0, 0, 0],
        },
    );
    assert!(image::open(&whole).unwrap().to_rgba8() == lib);
    // What a map cannot take, and its ground alone, exit 2 with a reason.
    for (args, want) in [
        (vec!["--frame", "3"], "give --time SECONDS"),
        (
            vec!["--region", "20,20,30,30"],
            "leaves the 24×24-tile ground",
        ),
        (
            vec!["--pixels-per-tile", "0"],
            "--pixels-per-tile must be in (0, 256]",
        ),
    ] {
        let mut a = vec!["render", rsw, "-o", "x.png"];
        a.extend(args);
        let o = kiln(&a, &tmp);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
    }
    let gnd = sample_data().join("kiln_village.gnd");
    let o = kiln(&["render", gnd.to_str().unwrap(), "-o", "x.png"], &tmp);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("render the map's .rsw"),
        "{}",
        stderr(&o)
    );
}
