//! Every corpus GND parses to the end, with exact sizes, and writes back byte for byte.

use std::path::{Path, PathBuf};

use kiln::internals::formats::gnd;

fn corpus() -> Option<PathBuf> {
    crate::common::corpus("")
}

fn fixture(root: &Path, name: &str) -> PathBuf {
    root.join("ro/RagnarokResearchLab+RagLite/Tests/Fixtures")
        .join(name)
}

fn client(root: &Path, name: &str) -> PathBuf {
    root.join("ro/hurtsky+RO-Clientresources/data").join(name)
}

#[test]
fn every_corpus_gnd_dumps() {
    let Some(root) = corpus() else { return };
    let files = [
        client(&root, "desert.gnd"),
        client(&root, "sm_pri.gnd"),
        client(&root, "poring_c01.gnd"),
        client(&root, "fishingboat.gnd"),
        fixture(&root, "no-water-plane.gnd"),
        fixture(&root, "single-water-plane.gnd"),
        fixture(&root, "multiple-water-planes.gnd"),
    ];
    // (version, width, height, textures, lightmaps, surfaces, water planes)
    let expect = [
        ("1.7", 50, 66, 30, 1090, 1090, 0),
        ("1.7", 8, 8, 6, 64, 65, 0),
        ("1.7", 100, 100, 19, 299, 3020, 0),
        ("1.7", 50, 66, 28, 905, 1187, 0),
        ("1.7", 1, 2, 2, 4, 2, 0),
        ("1.8", 1, 2, 2, 4, 2, 1),
        ("1.9", 1, 2, 2, 4, 2, 2),
    ];
    for (f, e) in files.into_iter().zip(expect) {
        let g = gnd::parse_file(&f).unwrap();
        let s = gnd::summary(&g);
        println!(
            "{} {} {}x{} tex={} lm={} surf={} cubes={} water={}",
            f.display(),
            s.version,
            s.width,
            s.height,
            s.textures.len(),
            s.lightmaps,
            s.surfaces,
            s.cubes,
            s.water_planes
        );
        let got = (
            s.version.as_str(),
            s.width,
            s.height,
            s.textures.len(),
            s.lightmaps,
            s.surfaces,
            s.water_planes,
        );
        assert_eq!(got, e, "{}", f.display());
        assert_eq!(s.cubes, (e.1 * e.2) as usize);
        assert_eq!(g.scale, 10.0);
        assert!(g.warnings.is_empty(), "{:?}", g.warnings);
        assert_eq!(
            gnd::write(&g),
            std::fs::read(&f).unwrap(),
            "{}",
            f.display()
        );
    }
}

#[test]
fn water_planes_exact() {
    let Some(root) = corpus() else { return };
    let g = gnd::parse_file(&fixture(&root, "single-water-plane.gnd")).unwrap();
    let w = g.water.unwrap();
    let d = gnd::WaterPlane {
        level: 50.0,
        kind: 0,
        wave_height: 1.0,
        wave_speed: 2.0,
        wave_pitch: 50.0,
        texture_cycling: 3,
    };
    assert_eq!(w.default, d);
    assert_eq!((w.split_u, w.split_v), (1, 1));
    assert_eq!(w.planes, vec![gnd::WaterPlane { level: 42.0, ..d }]);

    let g = gnd::parse_file(&fixture(&root, "multiple-water-planes.gnd")).unwrap();
    let w = g.water.unwrap();
    let p = gnd::WaterPlane {
        level: 20.0,
        kind: 10,
        wave_height: 1.0,
        wave_speed: 1.0,
        wave_pitch: 50.0,
        texture_cycling: 3,
    };
    assert_eq!(w.default, p);
    assert_eq!((w.split_u, w.split_v), (1, 2));
    assert_eq!(w.planes, vec![p, p]);
}
