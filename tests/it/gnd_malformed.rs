//! Broken GND input: every truncation, hostile counts and byte flips give
//! located errors and never panic.

use std::path::Path;

use kiln::internals::formats::gnd;

const FIX: &str = "ro/RagnarokResearchLab+RagLite/Tests/Fixtures";

fn load(name: &str) -> Option<Vec<u8>> {
    crate::common::corpus_bytes(&format!("{FIX}/{name}"))
}

const NAMES: [&str; 3] = [
    "no-water-plane.gnd",
    "single-water-plane.gnd",
    "multiple-water-planes.gnd",
];

#[test]
fn every_truncation_is_a_located_error() {
    for name in NAMES {
        let Some(d) = load(name) else { return };
        for len in 0..d.len() {
            let e = gnd::parse(&d[..len], Path::new("t.gnd")).unwrap_err();
            assert_eq!(e.file, Path::new("t.gnd"));
            assert!(e.offset <= len as u64, "{name} len {len}: {e}");
            assert!(!e.field.is_empty());
        }
    }
}

#[test]
fn hostile_counts_are_refused_before_allocating() {
    let Some(d) = load("no-water-plane.gnd") else {
        return;
    };
    let p = Path::new("h.gnd");
    // width × height huge: cubes would need ~100 GB.
    let mut b = d.clone();
    b[6..10].copy_from_slice(&0x7fff_ffffi32.to_le_bytes());
    b[10..14].copy_from_slice(&2i32.to_le_bytes());
    let e = gnd::parse(&b, p).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("width×height", 6));
    // negative width
    let mut b = d.clone();
    b[6..10].copy_from_slice(&(-1i32).to_le_bytes());
    assert_eq!(gnd::parse(&b, p).unwrap_err().field, "width");
    // texture count huge
    let mut b = d.clone();
    b[18..22].copy_from_slice(&0x4000_0000i32.to_le_bytes());
    let e = gnd::parse(&b, p).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("texture_count", 18));
    // texture name length absurd
    let mut b = d.clone();
    b[22..26].copy_from_slice(&(-5i32).to_le_bytes());
    let e = gnd::parse(&b, p).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("texture_name_length", 22));
    // lightmap count huge: textures are 2 × 80 bytes, so it sits at 26 + 160.
    let mut b = d.clone();
    b[186..190].copy_from_slice(&0x7fff_0000i32.to_le_bytes());
    let e = gnd::parse(&b, p).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("lightmap_count", 186));
    // surface count huge: after 16 bytes of lightmap header and 4 × 256 bytes.
    let at = 186 + 16 + 4 * 256;
    let mut b = d.clone();
    b[at..at + 4].copy_from_slice(&0x1000_0000i32.to_le_bytes());
    let e = gnd::parse(&b, p).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("surface_count", at as u64));
    // 1.9 water split huge
    let Some(m) = load("multiple-water-planes.gnd") else {
        return;
    };
    let at = m.len() - 2 * 24 - 8;
    let mut b = m.clone();
    b[at..at + 4].copy_from_slice(&0x7fff_ffffi32.to_le_bytes());
    let e = gnd::parse(&b, p).unwrap_err();
    assert_eq!(e.offset, at as u64);
}

#[test]
fn bad_magic_and_version() {
    let Some(d) = load("no-water-plane.gnd") else {
        return;
    };
    let mut b = d.clone();
    b[0] = b'X';
    let e = gnd::parse(&b, Path::new("m.gnd")).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("magic", 0));
    let mut b = d.clone();
    b[5] = 6;
    let e = gnd::parse(&b, Path::new("m.gnd")).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("version", 4));
}

#[test]
fn byte_flips_never_panic() {
    for name in NAMES {
        let Some(d) = load(name) else { return };
        let mut errors = 0;
        for i in 0..d.len() {
            for x in [0xffu8, 0x80] {
                let mut b = d.clone();
                b[i] ^= x;
                match gnd::parse(&b, Path::new("f.gnd")) {
                    Ok(g) => {
                        // A flip inside data (not a count) still round-trips.
                        if g.warnings.is_empty() {
                            assert_eq!(gnd::write(&g), b);
                        }
                    }
                    Err(e) => {
                        errors += 1;
                        assert!(e.offset as usize <= b.len());
                    }
                }
            }
        }
        assert!(errors > 0, "{name}: no flip was detected");
    }
}

#[test]
fn trailing_bytes_warn() {
    let Some(mut d) = load("no-water-plane.gnd") else {
        return;
    };
    d.extend_from_slice(&[1, 2, 3]);
    let g = gnd::parse(&d, Path::new("w.gnd")).unwrap();
    assert_eq!(g.warnings.len(), 1);
    assert!(
        g.warnings[0].contains("3 trailing byte(s)"),
        "{}",
        g.warnings[0]
    );
}
