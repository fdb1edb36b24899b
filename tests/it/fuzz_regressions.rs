//! Every input a fuzz target (`fuzz/`) crashed on, minimised and kept under
//! `tests/fuzz/TARGET/`, read again through the public entry points that
//! target calls: each must return, and where kiln refuses the input the
//! error names the file, the field and the byte offset. The cases below
//! also check what each input must now give.

use kiln::internals::formats::grimrock;
use kiln::RestPose;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz")
}

/// `(target, file)` for every kept input, sorted.
fn inputs() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(root()).expect("tests/fuzz") {
        let dir = dir.unwrap().path();
        let target = dir.file_name().unwrap().to_string_lossy().into_owned();
        for f in std::fs::read_dir(&dir).unwrap() {
            out.push((target.clone(), f.unwrap().path()));
        }
    }
    out.sort();
    out
}

/// A refusal names the file it was given and a byte offset.
fn located(e: &kiln::ParseError, file: &Path) {
    assert_eq!(e.file, file, "{e}");
    assert!(!e.field.is_empty(), "{e}");
    assert!(e.to_string().contains(" at byte "), "{e}");
}

/// What the target of that name does with the bytes, asserting on the way.
fn replay(target: &str, file: &Path, data: &[u8]) {
    match target {
        "grimrock_model" => match grimrock::parse_model(data, file) {
            Ok(m) => {
                for pose in [RestPose::Nodes, RestPose::Bind] {
                    let _ = grimrock::lower::lower(&m, file, &[], pose);
                }
            }
            Err(e) => located(&e, file),
        },
        "dds" => {
            let options = |mip| kiln::DecodeOptions {
                mip,
                ..kiln::DecodeOptions::default()
            };
            for mip in [0, 1] {
                if let Err(e) =
                    kiln::internals::formats::texture::decode_with(data, file, options(mip))
                {
                    assert!(e.to_string().contains(&file.display().to_string()), "{e}");
                }
            }
            let _ = kiln::internals::formats::texture::summarize(data, file);
        }
        other => panic!(
            "tests/fuzz/{other}/: no such fuzz target here; add its replay to {}",
            file!()
        ),
    }
}

#[test]
fn every_kept_fuzz_input_returns() {
    let inputs = inputs();
    assert!(!inputs.is_empty(), "no inputs under {}", root().display());
    for (target, file) in &inputs {
        let data = std::fs::read(file).unwrap();
        replay(target, file, &data);
    }
}

/// A DDS whose header claims 2³²−1 mip levels: `summarize` listed one by
/// one (a 34 GB allocation, and a shift past 31 bits with overflow checks
/// on). It lists the full chain an 8×4 image has, and says what the header
/// claimed.
#[test]
fn dds_mip_count_is_not_trusted() {
    let file = root().join("dds/mip-count.dds");
    let s = kiln::internals::formats::texture::summarize(&std::fs::read(&file).unwrap(), &file)
        .unwrap();
    assert_eq!((s.width, s.height), (8, 4));
    assert_eq!(s.mips, [[8, 4], [4, 2], [2, 1], [1, 1]]);
    assert_eq!(
        s.notes,
        ["header.mip_map_count at byte 28 declares 4294967295 levels; a 8×4 image has at most 4 and the file holds 4 whole: 4 listed"]
    );
}

/// A segment claiming 2³¹−1 triangles over a 6-index buffer: the lowering
/// reserved room for the claimed count (25.8 GB) and aborted. It keeps the
/// triangles there are and says the segment was cut.
#[test]
fn grimrock_segment_count_is_not_trusted() {
    let file = root().join("grimrock_model/segment-triangle-count.model");
    let m = grimrock::parse_model(&std::fs::read(&file).unwrap(), &file).unwrap();
    let seg = &m.nodes.iter().find_map(|n| n.mesh()).unwrap().mesh.segments[0];
    assert_eq!(
        (seg.material_str(), seg.triangle_count),
        ("kiln_base".into(), i32::MAX)
    );
    let scene = grimrock::lower::lower(&m, &file, &[], RestPose::Nodes);
    let mesh = &scene.meshes[0];
    let indices = m
        .nodes
        .iter()
        .find_map(|n| n.mesh())
        .unwrap()
        .mesh
        .indices
        .len();
    assert_eq!(mesh.primitives[0].triangles.len(), indices / 3);
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("segment 'kiln_base' runs past the index buffer; cut")),
        "{:?}",
        scene.warnings
    );
}
