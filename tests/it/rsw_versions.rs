//! The RSW versions live servers ship (2.0, 2.4, 2.5 build 227, 2.6 build
//! 197, 2.7 builds 248 and 251) and the older 1.x ones, on kiln's own
//! synthetic maps (no such file is public): each map holds three model
//! instances, two lights, two sounds and two effects and a quad tree, is
//! read by structure with every value exact, and writes back byte for byte.
//! A map built in the other reading of a disputed field is still read
//! right, with a warning naming both readings; a version newer than 2.7 is
//! read only when the 2.7 layout fits it exactly.

use crate::common;

use crate::fixtures::rsw as fixture;
use kiln::internals::formats::rsw::{self, Field, Layout, Object, Rsw};
use kiln::internals::map::{self, MapScene, Region};
use kiln::internals::raster::RenderOptions;
use std::path::{Path, PathBuf};

fn parse(bytes: &[u8]) -> Rsw {
    rsw::parse(bytes, Path::new("fixture.rsw")).unwrap_or_else(|e| panic!("{e}"))
}

/// Writes `m`, parses it back and checks every value and the bytes.
fn read_back(m: &Rsw) -> Rsw {
    let bytes = rsw::write(m);
    let got = parse(&bytes);
    let mut values = got.clone();
    values.warnings.clear();
    assert_eq!(values, *m, "{}", m.version_label());
    assert_eq!(rsw::write(&got), bytes, "{} round trip", m.version_label());
    got
}

/// The fixture map of a version in the reading `layout` gives it.
fn map_in(major: u8, minor: u8, build: Option<u32>, layout: Layout) -> Rsw {
    fixture::map(major, minor, build, layout)
}

fn expected(major: u8, minor: u8, build: Option<u32>) -> Layout {
    Layout::expected(major, minor, build)
}

#[test]
fn every_version_reads_back_in_its_expected_layout() {
    for (maj, min, build) in fixture::VERSIONS {
        let m = map_in(maj, min, build, expected(maj, min, build));
        let got = read_back(&m);
        assert!(got.warnings.is_empty(), "{maj}.{min}: {:?}", got.warnings);
        assert_eq!(got.counts(), [3, 2, 2, 2], "{maj}.{min}");
        assert_eq!(got.quad_tree_nodes().map(|q| q.len()), Some(1365));
    }
}

#[test]
fn layouts_differ_by_exactly_their_fields() {
    // Hand-counted: every version step adds only its own fields.
    let size =
        |maj, min, build| rsw::write(&map_in(maj, min, build, expected(maj, min, build))).len();
    let quad = rsw::QUAD_TREE_BYTES;
    // 1.9 in full: header 6, names 4 × 40, water 24, light 36, bounds 16,
    // count 4, models 3 × 252, lights 2 × 112, sounds 2 × 192, effects
    // 2 × 120.
    assert_eq!(
        size(1, 9, None),
        6 + 160 + 24 + 36 + 16 + 4 + 3 * 252 + 2 * 112 + 2 * 192 + 2 * 120 + quad
    );
    // 2.0 adds a cycle per sound; 2.2 the u8 build; 2.5 a u32 build and the
    // render flag; 2.6 drops the water and (build ≥ 186) adds a byte per
    // model; 2.7 adds the list after the bounds (count + 2) and four bytes
    // per model.
    assert_eq!(size(2, 0, None) - size(1, 9, None), 2 * 4);
    assert_eq!(size(2, 2, Some(1)) - size(2, 1, None), 1);
    assert_eq!(size(2, 5, Some(227)) - size(2, 4, Some(1)), 4);
    assert_eq!(
        size(2, 6, Some(161)) as i64 - size(2, 5, Some(227)) as i64,
        -24
    );
    assert_eq!(size(2, 6, Some(197)) - size(2, 6, Some(161)), 3);
    assert_eq!(
        size(2, 7, Some(248)) - size(2, 6, Some(197)),
        4 + 2 * 4 + 3 * 4
    );
    // Before 1.4 there is no .gat name.
    assert_eq!(size(1, 4, None) - size(1, 3, None), 40);
}

/// A map of `major.minor` built in the reading with `field` flipped reads
/// back exactly, and says which reading it took and why the expected one
/// does not fit.
fn other_reading_is_read_and_named(major: u8, minor: u8, build: Option<u32>, field: Field) -> Rsw {
    let e = expected(major, minor, build);
    let other = e.flipped(field);
    let got = read_back(&map_in(major, minor, build, other));
    assert_eq!(got.layout, other);
    let label = got.version_label();
    let took = kiln::internals::formats::rsw::layout::describe(field, other.get(field));
    let not = kiln::internals::formats::rsw::layout::describe(field, e.get(field));
    assert_eq!(got.warnings.len(), 1, "{label}: {:?}", got.warnings);
    let w = &got.warnings[0];
    assert!(
        w.starts_with(&format!(
            "RSW {label} read {took}; the expected reading ({not}) does not fit: "
        )),
        "{w}"
    );
    got
}

#[test]
fn rsw_2_0_reads_sound_cycles_and_without_them() {
    // izlude_in ships as 2.0: the cycle per sound most readers give 2.0.
    let got = read_back(&map_in(2, 0, None, expected(2, 0, None)));
    let cycles: Vec<Option<f32>> = got.sounds().map(|s| s.cycle).collect();
    assert_eq!(cycles, [Some(6.0), Some(9.0)]);
    assert!(got.quad_tree.is_some() && got.warnings.is_empty());
    // RagLite reads cycles from 2.1 only.
    let got = other_reading_is_read_and_named(2, 0, None, Field::SoundCycle);
    assert!(got.sounds().all(|s| s.cycle.is_none()));
    assert_eq!(
        got.sounds().map(|s| s.range).collect::<Vec<_>>(),
        [102.0, 105.0]
    );
}

#[test]
fn rsw_2_4_in_both_readings_of_the_release_number() {
    let got = read_back(&map_in(2, 4, Some(1), expected(2, 4, Some(1))));
    assert_eq!((got.build, got.release), (Some(1), None));
    assert!(got.warnings.is_empty(), "{:?}", got.warnings);
    // tra_fild, nif_dun01: four bytes (0 or 1) after the build number.
    let got = other_reading_is_read_and_named(2, 4, Some(1), Field::Release);
    assert_eq!((got.build, got.release), (Some(1), Some(1)));
    assert_eq!(got.gnd.text, "fixture.gnd");
}

#[test]
fn rsw_2_5_build_227() {
    let got = read_back(&map_in(2, 5, Some(227), expected(2, 5, Some(227))));
    assert_eq!((got.build, got.render_flag), (Some(227), Some(1)));
    let w = got.water.as_ref().unwrap();
    assert_eq!(
        (
            w.level,
            w.water_type,
            w.wave_height,
            w.wave_speed,
            w.wave_pitch,
            w.anim_speed
        ),
        (12.5, Some(3), Some(1.25), Some(2.5), Some(50.0), Some(4))
    );
    assert!(got.models().all(|m| m.flag.is_none() && m.extra.is_none()));
}

#[test]
fn rsw_2_6_build_197_with_and_without_the_model_byte() {
    let got = read_back(&map_in(2, 6, Some(197), expected(2, 6, Some(197))));
    assert!(got.water.is_none() && got.warnings.is_empty());
    let flags: Vec<Option<u8>> = got.models().map(|m| m.flag).collect();
    assert_eq!(flags, [Some(0), Some(1), Some(0)]);
    let got = other_reading_is_read_and_named(2, 6, Some(197), Field::ModelFlag);
    assert!(got.models().all(|m| m.flag.is_none()));
    assert_eq!(
        got.models()
            .map(|m| m.file.text.as_str())
            .collect::<Vec<_>>(),
        [
            "fixture\\model0.rsm",
            "fixture\\model4.rsm",
            "fixture\\model8.rsm"
        ]
    );
    // RagLite's rule puts the byte in from build 162, the others from 186.
    let got = other_reading_is_read_and_named(2, 6, Some(162), Field::ModelFlag);
    assert_eq!(got.models().nth(1).unwrap().flag, Some(1));
}

#[test]
fn rsw_2_7_builds_248_and_251() {
    for build in [248, 251] {
        let got = read_back(&map_in(2, 7, Some(build), expected(2, 7, Some(build))));
        assert!(got.warnings.is_empty(), "{:?}", got.warnings);
        assert_eq!(got.extra_list, Some(vec![7, -1]));
        let m: Vec<(Option<u8>, Option<i32>, [f32; 3])> = got
            .models()
            .map(|m| (m.flag, m.extra, m.position))
            .collect();
        assert_eq!(
            m,
            [
                (Some(0), Some(-1), [-40.0, -0.0, 35.0]),
                (Some(1), Some(12), [0.0, -10.0, 15.0]),
                (Some(0), Some(-1), [40.0, -20.0, -5.0]),
            ]
        );
        let effects: Vec<(i32, f32, [f32; 4])> =
            got.effects().map(|e| (e.id, e.delay, e.param)).collect();
        assert_eq!(
            effects,
            [
                (43, 63.0, [1.0, 2.0, 3.0, 3.0]),
                (47, 67.0, [1.0, 2.0, 3.0, 7.0])
            ]
        );
        let lights: Vec<(&str, [f32; 3], f32)> = got
            .lights()
            .map(|l| (l.name.text.as_str(), l.color, l.range))
            .collect();
        assert_eq!(
            lights,
            [
                ("light 1", [1.0, 0.5625, 0.25], 41.0),
                ("light 6", [1.0, 0.875, 0.25], 46.0)
            ]
        );
    }
    // The 2.7 decoder the issue thread describes has no list after the
    // bounds, only the four bytes per model.
    let got = other_reading_is_read_and_named(2, 7, Some(248), Field::ExtraList);
    assert_eq!(got.extra_list, None);
    assert_eq!(got.models().nth(1).unwrap().extra, Some(12));
}

#[test]
fn older_versions_read_without_a_gat_name_and_with_one() {
    for minor in 0..=3 {
        let got = read_back(&map_in(1, minor, None, expected(1, minor, None)));
        assert!(got.gat.is_none(), "1.{minor}");
        other_reading_is_read_and_named(1, minor, None, Field::GatName);
    }
    // BrowEdit reads the .gat name from 1.5 only.
    let got = other_reading_is_read_and_named(1, 4, None, Field::GatName);
    assert!(got.gat.is_none());
    // 1.9 maps with a cycle per sound (GRF Editor looks for one).
    other_reading_is_read_and_named(1, 9, None, Field::SoundCycle);
}

#[test]
fn readings_that_agree_on_every_value_are_not_ambiguous() {
    // Without model instances the 2.6 model byte changes nothing: both
    // readings fit, hold the same values, and no warning is given.
    for build in [170, 197] {
        let mut m = map_in(2, 6, Some(build), expected(2, 6, Some(build)));
        m.objects.retain(|o| !matches!(o, Object::Model(_)));
        let got = read_back(&m);
        assert!(got.warnings.is_empty(), "{build}: {:?}", got.warnings);
    }
}

#[test]
fn versions_after_2_7_are_read_only_when_the_2_7_layout_fits() {
    let m = map_in(2, 8, Some(300), expected(2, 8, Some(300)));
    let got = read_back(&m);
    assert_eq!(
        got.warnings,
        [
            "RSW 2.8 build 300 is newer than the versions kiln reads (up to 2.7); read with the \
          2.7 layout, which fits it exactly"
        ]
    );
    // A 2.8 whose sounds lost their cycle does not fit the 2.7 layout.
    let other = expected(2, 8, Some(300)).flipped(Field::SoundCycle);
    let bytes = rsw::write(&map_in(2, 8, Some(300), other));
    let e = rsw::parse(&bytes, Path::new("future.rsw")).unwrap_err();
    assert_eq!(e.field, "object[3].type");
    let text = e.to_string();
    assert!(
        text.starts_with("future.rsw: object[3].type at byte ")
            && text.contains(
                "RSW 2.8 build 300 is newer than the versions kiln reads (up to 2.7), and the \
                 2.7 layout does not fit it: unknown object type"
            ),
        "{text}"
    );
    // Versions of another major number are refused at once.
    let e = rsw::parse(b"GRSW\x03\x00\0\0\0\0", Path::new("x.rsw")).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("header.version", 4));
    assert!(e.message.contains("unsupported RSW version 3.0"), "{e}");
}

#[test]
fn a_quad_tree_ends_the_file_in_any_version_and_anything_else_is_kept_with_a_warning() {
    let mut m = map_in(1, 9, None, expected(1, 9, None));
    let full = rsw::write(&m);
    let objects_end = full.len() - rsw::QUAD_TREE_BYTES;
    // Without a quad tree a 1.9 map ends at its objects, silently.
    m.quad_tree = None;
    assert!(read_back(&m).warnings.is_empty());
    // Bytes that are not a whole quad tree are kept, with a warning.
    for len in [objects_end + 1, objects_end + 48, full.len() - 1] {
        let got = parse(&full[..len]);
        assert!(got.quad_tree.is_none());
        assert_eq!(got.trailing.len(), len - objects_end);
        assert_eq!(got.counts(), [3, 2, 2, 2]);
        assert_eq!(got.warnings.len(), 1, "{:?}", got.warnings);
        assert!(
            got.warnings[0].contains(&format!(
                "{} bytes after the objects (at byte {objects_end})",
                len - objects_end
            )),
            "{:?}",
            got.warnings
        );
        assert_eq!(rsw::write(&got), &full[..len]);
    }
    let mut more = full.clone();
    more.extend_from_slice(&[1, 2, 3]);
    let got = parse(&more);
    assert!(got.quad_tree.is_some());
    assert_eq!(got.trailing, [1, 2, 3]);
    assert!(
        got.warnings[0].contains("after the quad tree"),
        "{:?}",
        got.warnings
    );
    assert_eq!(rsw::write(&got), more);
}

#[test]
fn truncations_and_byte_flips_of_a_2_7_map() {
    let m = map_in(2, 7, Some(251), expected(2, 7, Some(251)));
    let bytes = rsw::write(&m);
    let file = Path::new("cut.rsw");
    let objects_end = bytes.len() - rsw::QUAD_TREE_BYTES;
    for len in 0..bytes.len() {
        match rsw::parse(&bytes[..len], file) {
            Ok(got) => {
                // Only a cut inside the quad tree leaves a whole object list.
                assert!(len >= objects_end, "cut at {len} parsed");
                assert_eq!(got.counts(), [3, 2, 2, 2]);
                assert_eq!(got.trailing.len(), len - objects_end);
            }
            Err(e) => {
                assert!(len < objects_end, "cut at {len}: {e}");
                assert!(e.offset as usize <= len, "cut at {len}: {e}");
                assert!(e.to_string().starts_with("cut.rsw:"), "{e}");
            }
        }
    }
    // A hostile list count is caught at the count.
    let at = 6 + 5 + 160 + 36 + 16;
    let mut bad = bytes.clone();
    bad[at..at + 4].copy_from_slice(&i32::MAX.to_le_bytes());
    let e = rsw::parse(&bad, file).unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.offset as usize),
        ("extra_list.count", at)
    );
    let mut rng = common::Rng(0x2707);
    for _ in 0..3000 {
        let mut b = bytes[..objects_end].to_vec();
        let i = rng.below(b.len());
        b[i] ^= 1 << rng.below(8);
        let _ = rsw::parse(&b, file);
    }
}

fn sample_map() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/kiln_village.rsw")
}

#[test]
fn a_1_9_map_with_a_quad_tree_parses_and_renders_as_without() {
    // A real 1.9 map ended in 65,520 bytes of quad tree and was refused.
    let mut rsw = kiln::internals::samples::map::village_rsw();
    let [top, bottom, left, right] = rsw.bounds.unwrap();
    rsw.quad_tree = Some(fixture::quad_tree(
        [left as f32, -60.0, top as f32],
        [right as f32, 20.0, bottom as f32],
    ));
    let dir = common::tempdir("rsw-quadtree");
    let path = dir.join("kiln_village.rsw");
    std::fs::write(&path, rsw::write(&rsw)).unwrap();
    let parsed = rsw::parse_file(&path).unwrap();
    assert_eq!(parsed.version_string(), "1.9");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert_eq!(
        parsed.quad_tree_nodes().unwrap()[0].max,
        [120.0, 20.0, 120.0]
    );

    let data = sample_map().parent().unwrap().to_path_buf();
    let with = MapScene::open(path.clone(), &[data]).unwrap();
    let without = MapScene::open(sample_map(), &[]).unwrap();
    assert_eq!(with.instances.len(), without.instances.len());
    assert_eq!(with.missing_models, without.missing_models);
    assert_eq!(with.missing_textures, without.missing_textures);
    let draw = |scene: &MapScene| {
        let cam = map::camera::top_down(scene, Region::whole(24, 24), 8.0).unwrap();
        let opts = RenderOptions {
            width: cam.width,
            height: cam.height,
            supersample: 1,
            background: [0, 0, 0, 0],
        };
        map::render(scene, &cam.camera, 0.0, &opts)
    };
    let image = draw(&with);
    assert_eq!(image.dimensions(), (192, 192));
    assert!(image == draw(&without), "the quad tree changed the picture");
}
