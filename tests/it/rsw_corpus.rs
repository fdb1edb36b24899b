use kiln::internals::formats::rsw;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    crate::common::corpus("")
}

fn data(c: &Path, name: &str) -> PathBuf {
    c.join("ro/hurtsky+RO-Clientresources/data").join(name)
}
fn fixture(c: &Path, name: &str) -> PathBuf {
    c.join("ro/RagnarokResearchLab+RagLite/Tests/Fixtures")
        .join(name)
}

#[test]
fn client_maps_parse_to_end_and_round_trip() {
    let Some(c) = corpus() else { return };
    let cases = [
        ("desert.rsw", [10, 2, 0, 0]),
        ("sm_pri.rsw", [24, 3, 0, 2]),
        ("poring_c01.rsw", [248, 0, 0, 0]),
        ("fishingboat.rsw", [22, 5, 6, 0]),
    ];
    for (n, counts) in cases {
        let p = data(&c, n);
        let bytes = std::fs::read(&p).unwrap();
        let r = rsw::parse(&bytes, &p).unwrap();
        assert_eq!(r.version_string(), "2.1", "{n}");
        assert_eq!(r.build, None, "{n}");
        assert_eq!(r.counts(), counts, "{n}");
        assert_eq!(r.quad_tree.as_ref().map(|q| q.len()), Some(65_520), "{n}");
        assert!(r.warnings.is_empty(), "{n}");
        assert_eq!(rsw::write(&r), bytes, "{n} round trip");
    }
    let p = data(&c, "sm_pri.rsw");
    let r = rsw::parse_file(&p).unwrap();
    assert_eq!(r.bounds, Some([-500, 500, -500, 500]));
    let l = r.light.as_ref().unwrap();
    assert_eq!(
        (l.longitude, l.latitude, l.shadow_opacity),
        (45, 45, Some(0.5))
    );
    let m = r.models().next().unwrap();
    assert_eq!(m.file.text, "지하감옥\\지하감옥_문1.rsm");
    assert_eq!(m.position, [-20.0, 0.050922737, -30.5]);
    let r = rsw::parse_file(&data(&c, "fishingboat.rsw")).unwrap();
    let m = r.models().next().unwrap();
    assert_eq!(m.file.text, "아요타야\\나룻배.rsm");
    assert_eq!(m.position, [-18.072624, -53.263683, -121.09445]);
    let s = rsw::summary(&r);
    assert_eq!(
        (s.models, s.lights, s.sounds, s.effects, s.quad_tree_nodes),
        (22, 5, 6, 0, 1365)
    );
}

#[test]
fn mhisle01_garbage_header_is_refused() {
    let Some(c) = corpus() else { return };
    let p = c.join("ro/asteanya+Aste-Grf/data/mhisle01.rsw");
    let e = rsw::parse_file(&p).unwrap_err().to_string();
    assert!(
        e.contains("header.magic") && e.contains("GRSW") && e.contains("mhisle01.rsw"),
        "{e}"
    );
}

#[test]
fn raglite_fixtures_parse_and_round_trip() {
    let Some(c) = corpus() else { return };
    let (mut builds, mut flags) = (Vec::new(), Vec::new());
    for n in [
        "v0109.rsw",
        "v0201.rsw",
        "v0202.rsw",
        "v0205.rsw",
        "v0206-no-rsm2-flag.rsw",
        "v0206-with-rsm2-flag.rsw",
    ] {
        let p = fixture(&c, n);
        let bytes = std::fs::read(&p).unwrap();
        let r = rsw::parse(&bytes, &p).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.counts(), [2, 2, 2, 2], "{n}");
        assert!(r.quad_tree.is_none(), "{n}");
        let m = r.models().next().unwrap();
        assert_eq!(
            (m.file.text.as_str(), m.position),
            ("test\\model1.rsm", [1.0, 2.0, 3.0])
        );
        assert_eq!(r.bounds, Some([12, 777, 512, 1]), "{n}");
        assert_eq!(rsw::write(&r), bytes, "{n} round trip");
        builds.push(r.build);
        flags.push(m.flag);
    }
    assert_eq!(
        builds,
        [None, None, Some(42), Some(160), Some(161), Some(162)]
    );
    // Only the build-162 fixture carries the flag byte (RagLite's rule).
    assert_eq!(
        flags,
        [None, None, None, None, None, Some(flags[5].unwrap())]
    );
}
