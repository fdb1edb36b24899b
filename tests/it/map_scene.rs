//! Ragnarok map scenes: instance placement, the ground they stand on, the
//! sun, placeholders, and rendered map images.

use crate::common;

use glam::{Mat4, Vec3};
use image::RgbaImage;
use kiln::internals::formats::gnd::{Cube, Gnd, Lightmap, Lightmaps, Surface};
use kiln::internals::formats::rsw::{self, FixedName, ModelInstance, Object, Rsw};
use kiln::internals::map::{self, MapScene, Region};
use kiln::internals::raster::RenderOptions;
use kiln::internals::samples::map::{height_at_tiles, INSTANCES};
use std::path::{Path, PathBuf};

fn sample_map() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/kiln_village.rsw")
}

fn opts(cam: &map::MapCamera, aa: u32) -> RenderOptions {
    RenderOptions {
        width: cam.width,
        height: cam.height,
        supersample: aa,
        background: [0, 0, 0, 0],
    }
}

fn close(a: Vec3, b: Vec3, eps: f32) -> bool {
    (a - b).abs().max_element() <= eps
}

#[test]
fn sample_map_instances_stand_on_the_ground_where_the_rsw_puts_them() {
    let scene = MapScene::open(sample_map(), &[]).unwrap();
    assert_eq!(scene.version, "1.9");
    assert_eq!((scene.ground.width, scene.ground.height), (24, 24));
    assert_eq!(scene.instances.len(), INSTANCES.len());
    assert_eq!(
        scene.models.len(),
        4,
        "windmill, beacon, hut, well: each loaded once"
    );
    assert_eq!(
        scene.missing_models,
        vec!["kiln\\hut.rsm", "kiln\\well.rsm"]
    );
    assert!(
        scene.missing_textures.is_empty(),
        "{:?}",
        scene.missing_textures
    );
    for (inst, &(name, file, tx, ty, _, _)) in scene.instances.iter().zip(INSTANCES.iter()) {
        assert_eq!(scene.models[inst.model].file, file, "{name}");
        let want = Vec3::new(tx * 10.0, height_at_tiles(tx, ty), -ty * 10.0);
        assert!(
            close(inst.origin, want, 1e-3),
            "{name}: {} vs {want}",
            inst.origin
        );
        let ground = scene
            .ground
            .height_at(inst.origin.x, inst.origin.z)
            .unwrap();
        assert!(
            (ground - inst.origin.y).abs() < 1e-3,
            "{name}: ground {ground}, origin {}",
            inst.origin.y
        );
        assert_eq!(
            inst.missing,
            file.contains("hut") || file.contains("well"),
            "{name}"
        );
        // Placeholders and RSM1 models (centred by the client on their
        // bounding box) stand with their lowest point on the origin.
        if !file.ends_with(".rsm2") {
            let posed = kiln::internals::scene::pose(scene.model_of(inst), 0.0);
            let bottom = kiln::internals::render::posed_points(&posed)
                .map(|p| inst.world.transform_point3(p).y)
                .fold(f32::INFINITY, f32::min);
            assert!(
                (bottom - inst.origin.y).abs() < 1e-3,
                "{name}: bottom {bottom} vs {}",
                inst.origin.y
            );
        }
    }
    // The scaled, turned beacon: T(origin) · Ry(−45°) · S(1.5) in kiln's
    // frame (the client's Ry(45°) under the half turn about X), applied to
    // the model as kiln displays it standalone.
    let middle = &scene.instances[2];
    let want = Mat4::from_translation(middle.origin)
        * Mat4::from_rotation_y(-45f32.to_radians())
        * Mat4::from_scale(Vec3::splat(1.5));
    for (a, b) in middle
        .world
        .to_cols_array()
        .iter()
        .zip(want.to_cols_array())
    {
        assert!((a - b).abs() < 1e-4, "{}\nvs\n{want}", middle.world);
    }
    let (west, mid) = (&scene.instances[1], middle);
    let hw = west.bounds.1.y - west.bounds.0.y;
    let hm = mid.bounds.1.y - mid.bounds.0.y;
    assert!((hm / hw - 1.5).abs() < 0.02, "heights {hw} and {hm}");
}

#[test]
fn the_rsw_sun_comes_from_longitude_and_latitude() {
    // The client turns (0, 1, 0) by the latitude about X, then by the
    // longitude about Y, and uses the negation (RO is Y down).
    let scene = MapScene::open(sample_map(), &[]).unwrap();
    let (lon, lat) = (225f32.to_radians(), 50f32.to_radians());
    let ro = Vec3::new(lat.sin() * lon.sin(), lat.cos(), lat.sin() * lon.cos());
    let kiln = Vec3::new(-ro.x, ro.y, ro.z);
    assert!(
        close(scene.light.direction, kiln, 1e-5),
        "{}",
        scene.light.direction
    );
    // Up is toward the sun at 50° latitude: cos 50° of full light on flat ground.
    assert!((scene.light.direction.y - 50f32.to_radians().cos()).abs() < 1e-6);
    assert_eq!(scene.light.color, Vec3::new(1.0, 0.96, 0.9));
    assert_eq!(scene.light.ambient, Vec3::new(0.35, 0.35, 0.4));
}

#[test]
fn sample_map_renders_the_same_on_any_thread_count() {
    let scene = MapScene::open(sample_map(), &[]).unwrap();
    // 40 px per tile: 960², two blocks a side, so block seams are covered.
    let cam = map::camera::top_down(&scene, Region::whole(24, 24), 40.0).unwrap();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| map::render(&scene, &cam.camera, 0.5, &opts(&cam, 1)));
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .install(|| map::render(&scene, &cam.camera, 0.5, &opts(&cam, 1)));
    assert!(one == two, "renders differ between 1 and 2 threads");
    // A region rendered on its own equals the same part of the whole map.
    let region = Region {
        x0: 3,
        y0: 2,
        x1: 15,
        y1: 14,
    };
    let rcam = map::camera::top_down(&scene, region, 40.0).unwrap();
    let part = map::render(&scene, &rcam.camera, 0.5, &opts(&rcam, 1));
    assert_eq!(part.dimensions(), (480, 480));
    let crop = image::imageops::crop_imm(&one, 3 * 40, (24 - 14) * 40, 480, 480).to_image();
    let (differ, worst) = diff(&part, &crop);
    assert!(
        differ <= part.len() / 4 / 500 && worst <= 64,
        "{differ} pixels differ, worst {worst}"
    );
}

/// (pixels differing by more than 2 in some channel, largest difference).
fn diff(a: &RgbaImage, b: &RgbaImage) -> (usize, u8) {
    let mut n = 0;
    let mut worst = 0;
    for (p, q) in a.pixels().zip(b.pixels()) {
        let d =
            p.0.iter()
                .zip(q.0)
                .map(|(x, y)| x.abs_diff(y))
                .max()
                .unwrap();
        worst = worst.max(d);
        if d > 2 {
            n += 1;
        }
    }
    (n, worst)
}

#[test]
fn sample_map_golden_views() {
    let scene = MapScene::open(sample_map(), &[]).unwrap();
    let over = map::camera::top_down(&scene, Region::whole(24, 24), 8.0).unwrap();
    common::assert_golden(
        "maps/kiln_village_overview",
        &map::render(&scene, &over.camera, 0.0, &opts(&over, 2)),
    );
    let ang = map::camera::angled(
        &scene,
        Region::whole(24, 24),
        135.0,
        35.0,
        320,
        240,
        kiln::internals::camera::Projection::Orthographic,
    );
    common::assert_golden(
        "maps/kiln_village_angled",
        &map::render(&scene, &ang.camera, 0.0, &opts(&ang, 2)),
    );
}

#[test]
fn animated_props_move_and_static_ground_does_not() {
    let scene = MapScene::open(sample_map(), &[]).unwrap();
    assert!(scene.duration > 0.0);
    let region = Region {
        x0: 2,
        y0: 13,
        x1: 12,
        y1: 22,
    };
    let cam = map::camera::top_down(&scene, region, 16.0).unwrap();
    let a = map::render(&scene, &cam.camera, 0.0, &opts(&cam, 1));
    // An eighth of the 2 s loops: the four sails and the square gem would
    // look the same after a quarter turn.
    let b = map::render(&scene, &cam.camera, 0.25, &opts(&cam, 1));
    let (differ, _) = diff(&a, &b);
    assert!(
        differ > 20,
        "the windmill's sails and the beacon's gem turn: {differ} pixels changed"
    );
    // Only pixels near the animated models change.
    let near = |x: u32, y: u32| {
        scene.instances.iter().filter(|i| !i.missing).any(|i| {
            let px = (i.origin.x / 10.0 - 2.0) * 16.0;
            let py = (22.0 + i.origin.z / 10.0) * 16.0;
            (x as f32 - px).abs() < 40.0 && (y as f32 - py).abs() < 40.0
        })
    };
    for (x, y, p) in a.enumerate_pixels() {
        if p != b.get_pixel(x, y) {
            assert!(
                near(x, y),
                "pixel ({x}, {y}) changed away from the animated models"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// A scene of the corpus' planet and goomba, built with kiln's writers.
// ---------------------------------------------------------------------------

const SIDE: i32 = 24;

fn flat_gnd() -> Gnd {
    let name = "kiln_test\\flat.bmp".to_string();
    let mut raw = name.as_bytes().to_vec();
    raw.resize(80, 0);
    Gnd {
        major: 1,
        minor: 7,
        width: SIDE,
        height: SIDE,
        scale: 10.0,
        textures: vec![name],
        texture_raw: vec![raw],
        texture_name_len: 80,
        lightmaps: Lightmaps {
            per_cell: (8, 8, 1),
            data: vec![Lightmap {
                shadow: [255; 64],
                color: [[0; 3]; 64],
            }],
        },
        surfaces: vec![Surface {
            u: [0.0, 1.0, 0.0, 1.0],
            v: [1.0, 1.0, 0.0, 0.0],
            texture: 0,
            lightmap: 0,
            bgra: [255; 4],
        }],
        cubes: vec![
            Cube {
                heights: [0.0; 4],
                top: 0,
                front: -1,
                side: -1,
            };
            (SIDE * SIDE) as usize
        ],
        water: None,
        warnings: Vec::new(),
    }
}

/// (file, tile x, tile y, yaw degrees, scale)
const PLACED: [(&str, f32, f32, f32, f32); 4] = [
    ("goomba\\goomba_1.rsm", 5.0, 5.0, 0.0, 1.0),
    ("goomba\\goomba_1.rsm", 17.0, 5.0, 90.0, 1.0),
    ("goomba\\goomba_1.rsm", 6.0, 16.0, 0.0, 1.5),
    ("planets\\pl_earth.rsm", 17.0, 17.0, 0.0, 0.5),
];

fn planet_goomba_rsw() -> Rsw {
    let mut rsw = kiln::internals::samples::map::village_rsw();
    rsw.gnd = FixedName::new("planets.gnd", 40);
    // Ambient only: shading cannot depend on which way a model faces, so a
    // turned copy must look like the turned image.
    if let Some(l) = rsw.light.as_mut() {
        l.diffuse = [0.0; 3];
        l.ambient = [1.0; 3];
    }
    rsw.objects = PLACED
        .iter()
        .map(|&(file, tx, ty, yaw, s)| {
            Object::Model(ModelInstance {
                name: Some(FixedName::new(file, 40)),
                anim_type: 0,
                anim_speed: 1.0,
                block_type: 0,
                flag: None,
                extra: None,
                file: FixedName::new(file, 80),
                node: FixedName::new("", 80),
                position: [tx * 10.0 - 120.0, 0.0, ty * 10.0 - 120.0],
                rotation: [0.0, yaw, 0.0],
                scale: [s; 3],
            })
        })
        .collect();
    rsw
}

fn planet_goomba_scene(tag: &str) -> Option<MapScene> {
    let data = common::corpus("ro/hurtsky+RO-Clientresources/data")?;
    let dir = common::tempdir(tag);
    std::fs::write(dir.join("planets.rsw"), rsw::write(&planet_goomba_rsw())).unwrap();
    std::fs::write(
        dir.join("planets.gnd"),
        kiln::internals::formats::gnd::write(&flat_gnd()),
    )
    .unwrap();
    Some(MapScene::open(dir.join("planets.rsw"), &[data]).unwrap())
}

/// Bounding box (x0, y0, x1, y1 exclusive) of the pixels inside `window`
/// that differ from the ground colour `bg`.
fn footprint(img: &RgbaImage, bg: [u8; 4], window: (u32, u32, u32, u32)) -> (u32, u32, u32, u32) {
    let (wx0, wy0, wx1, wy1) = window;
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for y in wy0..wy1 {
        for x in wx0..wx1 {
            let p = img.get_pixel(x, y).0;
            if p.iter().zip(bg).any(|(a, b)| a.abs_diff(b) > 6) {
                x0 = x0.min(x);
                y0 = y0.min(y);
                x1 = x1.max(x + 1);
                y1 = y1.max(y + 1);
            }
        }
    }
    (x0, y0, x1, y1)
}

#[test]
fn planet_and_goomba_render_where_their_instances_place_them() {
    let Some(scene) = planet_goomba_scene("planets") else {
        return;
    };
    assert!(
        scene.missing_models.is_empty(),
        "{:?}",
        scene.missing_models
    );
    assert_eq!(
        scene.models.len(),
        2,
        "goomba parsed once for three instances"
    );
    let ppt = 8.0;
    let cam = map::camera::top_down(&scene, Region::whole(24, 24), ppt).unwrap();
    let img = map::render(&scene, &cam.camera, 0.0, &opts(&cam, 2));
    common::assert_golden("maps/planet_goomba_top", &img);
    // The flat ground's colour, from a corner far from every model.
    let bg = img.get_pixel(1, 1).0;

    // Model extents as kiln displays them (x, z half sizes; corpus files).
    let goomba = (19.27f32, 20.84f32);
    let planet = 28.28f32;
    // Window of 6 tiles around each instance.
    let window = |tx: f32, ty: f32| {
        let (cx, cy) = (tx * ppt, (24.0 - ty) * ppt);
        let clamp = |v: f32| v.clamp(0.0, 192.0) as u32;
        (
            clamp(cx - 48.0),
            clamp(cy - 48.0),
            clamp(cx + 48.0),
            clamp(cy + 48.0),
        )
    };
    let mut boxes = Vec::new();
    for &(file, tx, ty, yaw, s) in &PLACED {
        let (x0, y0, x1, y1) = footprint(&img, bg, window(tx, ty));
        let centre = ((x0 + x1) as f32 / 2.0, (y0 + y1) as f32 / 2.0);
        let want = (tx * ppt, (24.0 - ty) * ppt);
        assert!(
            (centre.0 - want.0).abs() <= 1.5 && (centre.1 - want.1).abs() <= 1.5,
            "{file} at tile ({tx}, {ty}): drawn around {centre:?}, expected {want:?}"
        );
        let (hx, hz) = if file.contains("planet") {
            (planet, planet)
        } else {
            goomba
        };
        // A quarter turn swaps the footprint's width and depth.
        let (hx, hz) = if yaw == 90.0 { (hz, hx) } else { (hx, hz) };
        let size = ((x1 - x0) as f32, (y1 - y0) as f32);
        let want_size = (2.0 * hx * s * ppt / 10.0, 2.0 * hz * s * ppt / 10.0);
        assert!(
            (size.0 - want_size.0).abs() <= 2.5 && (size.1 - want_size.1).abs() <= 2.5,
            "{file} scale {s} yaw {yaw}: footprint {size:?}, expected {want_size:?}"
        );
        boxes.push((x0, y0, x1, y1));
    }

    // The turned goomba is the first one turned a quarter clockwise as seen
    // from above: the client's positive Y rotation, in its Y-down frame.
    let crop = |tx: f32, ty: f32| {
        let (cx, cy) = ((tx * ppt) as u32, ((24.0 - ty) * ppt) as u32);
        image::imageops::crop_imm(&img, cx - 24, cy - 24, 48, 48).to_image()
    };
    let turned = image::imageops::rotate90(&crop(5.0, 5.0));
    let (differ, _) = diff(&turned, &crop(17.0, 5.0));
    assert!(
        differ <= 48 * 48 / 20,
        "quarter turn: {differ} of 2304 pixels differ"
    );
    let wrong_way = image::imageops::rotate270(&crop(5.0, 5.0));
    let (differ_wrong, _) = diff(&wrong_way, &crop(17.0, 5.0));
    assert!(
        differ_wrong > 4 * differ.max(1),
        "the other way round must not match ({differ_wrong} vs {differ})"
    );
}

// ---------------------------------------------------------------------------
// The corpus' client maps.
// ---------------------------------------------------------------------------

const CORPUS_MAPS: [(&str, usize, usize); 4] = [
    // (map, instances, distinct model files)
    ("desert", 10, 4),
    ("sm_pri", 24, 9),
    ("poring_c01", 248, 9),
    ("fishingboat", 22, 6),
];

fn corpus_scene(name: &str) -> Option<MapScene> {
    let data = common::corpus("ro/hurtsky+RO-Clientresources/data")?;
    Some(
        MapScene::open(
            data.join(format!("{name}.rsw")),
            std::slice::from_ref(&data),
        )
        .unwrap(),
    )
}

#[test]
fn corpus_maps_place_every_instance_and_list_missing_models_once() {
    for (name, instances, files) in CORPUS_MAPS {
        let Some(scene) = corpus_scene(name) else {
            return;
        };
        assert_eq!(scene.instances.len(), instances, "{name}");
        assert_eq!(scene.models.len(), files, "{name}");
        // None of these models is in the corpus: all placeholders, each
        // missing file listed once.
        assert_eq!(scene.missing_models.len(), files, "{name}");
        let mut sorted = scene.missing_models.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), files, "{name}: a file listed twice");
        assert!(scene.instances.iter().all(|i| i.missing), "{name}");
        // Placeholders stand on the ground under their instance: the
        // missing model's own height offset is unknown (these maps sink
        // foundations 30 units and stack props on other models).
        let mut on_ground = 0;
        for i in &scene.instances {
            if let Some(g) = scene.ground.height_at(i.origin.x, i.origin.z) {
                assert!(
                    (i.bounds.0.y - g).abs() < 1e-3,
                    "{name}: box base {} over ground {g}",
                    i.bounds.0.y
                );
                on_ground += 1;
            }
        }
        assert!(
            on_ground * 10 >= instances * 9,
            "{name}: {on_ground} of {instances} over drawn ground"
        );
        // Trees are planted where the RSW says: their origins follow the
        // ground's relief within a few units, which only holds when x and z
        // land on the right tiles.
        let trees: Vec<f32> = scene
            .instances
            .iter()
            .filter(|i| {
                let f = &scene.models[i.model].file;
                f.contains("야자수") || f.contains("선인장")
            })
            .map(|i| (i.origin.y - scene.ground.height_at(i.origin.x, i.origin.z).unwrap()).abs())
            .collect();
        println!(
            "{name}: {} trees, |origin − ground| {trees:.1?}",
            trees.len()
        );
        assert!(trees.iter().all(|d| *d < 9.0), "{name}: {trees:?}");
    }
}

#[test]
fn corpus_map_overviews_match_reviewed_goldens() {
    for (name, ppt) in [
        ("desert", 4.0),
        ("sm_pri", 16.0),
        ("poring_c01", 3.0),
        ("fishingboat", 4.0),
    ] {
        let Some(scene) = corpus_scene(name) else {
            return;
        };
        let (w, h) = (scene.ground.width, scene.ground.height);
        let cam = map::camera::top_down(&scene, Region::whole(w, h), ppt).unwrap();
        let img = map::render(&scene, &cam.camera, 0.0, &opts(&cam, 2));
        common::assert_golden(&format!("maps/{name}_overview"), &img);
    }
}

#[test]
fn a_missing_ground_file_is_a_clear_error() {
    let dir = common::tempdir("noground");
    let mut rsw = kiln::internals::samples::map::village_rsw();
    rsw.gnd = FixedName::new("nowhere.gnd", 40);
    std::fs::write(dir.join("lost.rsw"), rsw::write(&rsw)).unwrap();
    let e = MapScene::open(dir.join("lost.rsw"), &[])
        .unwrap_err()
        .to_string();
    // Beside the map, then the data folder of its tree (a map outside any
    // `data/` is its own tree's root).
    assert_eq!(
        e,
        format!(
            "{}: ground file \"nowhere.gnd\" not found (looked in {}, {})",
            dir.join("lost.rsw").display(),
            dir.display(),
            dir.join("data").display()
        )
    );
    // A map inside a client's `data/`: that folder is both, named once,
    // after the caller's folders.
    let extra = dir.join("extra");
    std::fs::create_dir_all(dir.join("client/data")).unwrap();
    std::fs::write(dir.join("client/data/lost.rsw"), rsw::write(&rsw)).unwrap();
    let e = MapScene::open(
        dir.join("client/data/lost.rsw"),
        std::slice::from_ref(&extra),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.ends_with(&format!(
            "(looked in {}, {})",
            extra.display(),
            dir.join("client/data").display()
        )),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------
// Water, and models that cannot be read.
// ---------------------------------------------------------------------------

#[test]
fn water_covers_the_tiles_below_each_planes_level() {
    use kiln::internals::formats::gnd::{WaterPlane, WaterSetup};
    // A flat ground at height 0 with two water zones (GND 1.9 split 2×1):
    // the west plane 5 units up (RO −5) floods its half, the east plane 5
    // units down stays under the ground.
    let plane = |level: f32| WaterPlane {
        level,
        kind: 0,
        wave_height: 1.0,
        wave_speed: 2.0,
        wave_pitch: 50.0,
        texture_cycling: 3,
    };
    let mut g = flat_gnd();
    g.minor = 9;
    g.water = Some(WaterSetup {
        default: plane(0.0),
        split_u: 2,
        split_v: 1,
        planes: vec![plane(-5.0), plane(5.0)],
    });
    // Parse the written file so the planes are what a reader gets.
    let g = kiln::internals::formats::gnd::parse(
        &kiln::internals::formats::gnd::write(&g),
        Path::new("split.gnd"),
    )
    .unwrap();
    let water = map::water::build(&g, Some(100.0));
    let tiles: usize = water.iter().map(|c| c.triangles.len() / 2).sum();
    assert_eq!(
        tiles,
        (SIDE * SIDE / 2) as usize,
        "the west half, every tile"
    );
    for c in &water {
        for p in &c.positions {
            assert_eq!(p.y, 5.0);
            assert!(p.x <= 120.0, "east of the split: {p}");
        }
    }
    // No GND planes: the RSW's level decides. 100 deep: nothing floods.
    let mut g = flat_gnd();
    g.water = None;
    assert!(map::water::build(&g, Some(100.0)).is_empty());
    assert_eq!(
        map::water::build(&g, Some(-1.0))
            .iter()
            .map(|c| c.triangles.len())
            .sum::<usize>(),
        (2 * SIDE * SIDE) as usize
    );
}

#[test]
fn fishingboat_sea_is_at_the_rsw_water_level() {
    let Some(scene) = corpus_scene("fishingboat") else {
        return;
    };
    // RSW 2.1 water level −53 (RO, Y down): the sea surface 53 units up.
    assert!(!scene.water.is_empty());
    assert!(scene
        .water
        .iter()
        .flat_map(|c| &c.positions)
        .all(|p| p.y == 53.0));
}

#[test]
fn an_unreadable_model_is_named_once_and_drawn_as_a_placeholder() {
    let dir = common::tempdir("badmodel");
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data");
    let beacon = std::fs::read(data.join("model/kiln/beacon.rsm")).unwrap();
    std::fs::create_dir_all(dir.join("data/model/kiln")).unwrap();
    // A client folder whose beacon is cut short overrides the samples.
    std::fs::write(dir.join("data/model/kiln/beacon.rsm"), &beacon[..200]).unwrap();
    let scene = MapScene::open(
        data.join("kiln_village.rsw"),
        &[dir.join("data"), data.clone()],
    )
    .unwrap();
    let notes = scene.notes().join("\n");
    assert_eq!(notes.matches("could not be read").count(), 1, "{notes}");
    assert!(
        notes.contains("kiln\\beacon.rsm") && notes.contains("byte"),
        "{notes}"
    );
    let beacons: Vec<_> = scene
        .instances
        .iter()
        .filter(|i| scene.models[i.model].file == "kiln\\beacon.rsm")
        .collect();
    assert_eq!(beacons.len(), 3);
    assert!(beacons.iter().all(|b| b.missing));
    // The windmill still comes from the samples (second folder).
    assert!(!scene.instances[0].missing);
    let cam = map::camera::top_down(&scene, Region::whole(24, 24), 4.0).unwrap();
    let img = map::render(&scene, &cam.camera, 0.0, &opts(&cam, 1));
    assert_eq!(img.dimensions(), (96, 96));
}

#[test]
fn blocks_split_under_a_triangle_budget_draw_the_same_map() {
    let scene = MapScene::open(sample_map(), &[]).unwrap();
    let cam = map::camera::top_down(&scene, Region::whole(24, 24), 16.0).unwrap();
    let o = opts(&cam, 2);
    let whole = map::render(&scene, &cam.camera, 0.25, &o);
    // A budget of one triangle splits every block down to 32 px.
    let tiny = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| map::draw::render_with_budget(&scene, &cam.camera, 0.25, &o, 1))
    };
    let split = tiny(1);
    assert!(
        split == tiny(2),
        "split blocks differ between 1 and 2 threads"
    );
    // Sub-blocks only change float rounding of the projection: a handful of
    // edge pixels may differ, none by much.
    let (differ, worst) = diff(&whole, &split);
    assert!(
        differ <= whole.len() / 4 / 1000,
        "{differ} pixels differ (worst {worst})"
    );
}
