//! Synthetic BMTR round trips through every version, the helpers' exact
//! arithmetic, and broken inputs: truncations, hostile counts and corrupted
//! LZO streams must fail with file, field and offset, never panic.

use glam::{Quat, Vec3};
use kiln::internals::formats::arma::rtm::{
    self, Bmtr, BoneKey, MetaEntry, PlainFrame, PlainRtm, Rtm,
};
use std::path::Path;

const FILE: &str = "bad.rtm";

fn parse(data: &[u8]) -> Result<Rtm, kiln::internals::error::ParseError> {
    rtm::parse(data, Path::new(FILE))
}

/// Values chosen to be exact in the stored precision (i16/16384, halves).
fn synthetic(frames: usize, bones: usize) -> Bmtr {
    let k = 1.0 / 16384.0;
    Bmtr {
        version: 5,
        flag_byte: 1,
        step: Vec3::new(0.5, 0.0, -2.25),
        unknown: 1,
        bones: (0..bones).map(|b| format!("bone{b}")).collect(),
        metadata: vec![MetaEntry {
            phase: 0.25,
            name: "Step".into(),
            value: "Sound".into(),
        }],
        times: (0..frames).map(|f| f as f32 / frames as f32).collect(),
        frames: (0..frames)
            .map(|f| {
                (0..bones)
                    .map(|b| BoneKey {
                        rotation: Quat::from_xyzw(
                            (f as i16 - 7) as f32 * k,
                            b as f32 * k,
                            -(b as f32) * 3.0 * k,
                            16000.0 * k,
                        ),
                        translation: Vec3::new(f as f32 * 0.125, -(b as f32) * 0.5, 0.0009765625),
                    })
                    .collect()
            })
            .collect(),
        compressed_arrays: Vec::new(),
    }
}

fn read_bmtr(data: &[u8]) -> Bmtr {
    match parse(data).unwrap_or_else(|e| panic!("{e}")) {
        Rtm::Binarised(b) => b,
        _ => panic!("not BMTR"),
    }
}

fn same_content(a: &Bmtr, b: &Bmtr) {
    assert_eq!(a.step, b.step);
    assert_eq!(a.bones, b.bones);
    assert_eq!(a.times, b.times);
    assert_eq!(a.frames, b.frames);
    assert_eq!((a.flag_byte, a.unknown), (b.flag_byte, b.unknown));
}

#[test]
fn bmtr_round_trips_every_version() {
    // 80 bones × 14 = 1120 bytes per frame (compressed); 300 times = 1200 bytes.
    let big = synthetic(300, 80);
    let small = synthetic(3, 2);
    for version in [3, 4, 5] {
        for src in [&big, &small] {
            let bytes = rtm::write_bmtr(src, version);
            let back = read_bmtr(&bytes);
            assert_eq!(back.version, version);
            same_content(&back, src);
            let meta = if version >= 4 {
                src.metadata.clone()
            } else {
                vec![]
            };
            assert_eq!(back.metadata, meta);
            let lzo = back.compressed_arrays.iter().filter(|a| a.lzo).count();
            assert_eq!(lzo, if src.bones.len() == 80 { 301 } else { 0 });
            assert_eq!(rtm::write_bmtr(&back, version), bytes);
        }
    }
}

#[test]
fn bmtr_v4_reads_with_either_array_rule() {
    let src = synthetic(300, 80);
    // A v4 file laid out with v5 flag bytes: the v3 rule cannot land on the end.
    let mut flagged = rtm::write_bmtr(&src, 5);
    flagged[4] = 4;
    let b = read_bmtr(&flagged);
    assert_eq!(b.version, 4);
    same_content(&b, &src);
    assert!(b.compressed_arrays.iter().all(|a| a.lzo));
    let sized = read_bmtr(&rtm::write_bmtr(&src, 4));
    same_content(&sized, &src);
    // Small arrays: flag bytes 0 must not be taken for data either.
    let small = synthetic(3, 2);
    let mut flagged = rtm::write_bmtr(&small, 5);
    flagged[4] = 4;
    same_content(&read_bmtr(&flagged), &small);
}

#[test]
fn plain_round_trip_and_matrix() {
    let m = [
        1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0,
    ];
    let p = PlainRtm {
        metadata: vec![MetaEntry {
            phase: 0.5,
            name: "a".into(),
            value: "".into(),
        }],
        step: Vec3::new(0.0, 0.0, -1.5),
        bones: vec!["Pelvis".into()],
        frames: vec![PlainFrame {
            phase: 0.0,
            transforms: vec![("Pelvis".into(), m)],
        }],
    };
    let bytes = rtm::write_plain(&p);
    assert_eq!(
        bytes.len(),
        8 + 8 + 4 + 1 + 1 + 1 + 8 + 12 + 8 + 32 + 4 + 32 + 48
    );
    match parse(&bytes).unwrap() {
        Rtm::Plain(q) => assert_eq!(q, p),
        _ => panic!("not plain"),
    }
    // v' = x·r0 + y·r1 + z·r2 + r3 for (x, y, z) = (1, 2, 3).
    let v = rtm::matrix(&m).transform_point3(Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(
        v,
        Vec3::new(
            1.0 + 8.0 + 21.0 + 10.0,
            2.0 + 10.0 + 24.0 + 11.0,
            3.0 + 12.0 + 27.0 + 12.0
        )
    );
}

#[test]
fn halves_convert_exactly() {
    assert_eq!(rtm::half_to_f32(0x3c00), 1.0);
    assert_eq!(rtm::half_to_f32(0xc000), -2.0);
    assert_eq!(rtm::half_to_f32(0x0001), 2f32.powi(-24));
    assert_eq!(rtm::half_to_f32(0x7bff), 65504.0);
    for h in 0..=u16::MAX {
        let v = rtm::half_to_f32(h);
        if !v.is_nan() {
            assert_eq!(rtm::f32_to_half(v), h, "half {h:#06x}");
        }
    }
    // Ties round to even.
    assert_eq!(rtm::f32_to_half(1.0 + 2f32.powi(-11)), 0x3c00);
    assert_eq!(rtm::f32_to_half(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
}

fn check_error(data: &[u8], what: &str) {
    match parse(data) {
        Ok(_) => panic!("{what}: accepted"),
        Err(e) => {
            assert_eq!(e.file, Path::new(FILE), "{what}");
            assert!(!e.field.is_empty(), "{what}");
            assert!(
                e.offset <= data.len() as u64,
                "{what}: offset {} past {}",
                e.offset,
                data.len()
            );
        }
    }
}

#[test]
fn every_truncation_fails() {
    let fixtures = [
        // LZO frames (80 × 14 bytes), then LZO times (260 × 4 bytes).
        rtm::write_bmtr(&synthetic(3, 80), 5),
        rtm::write_bmtr(&synthetic(3, 80), 3),
        rtm::write_bmtr(&synthetic(260, 1), 5),
        rtm::write_bmtr(&synthetic(4, 3), 4),
        rtm::write_plain(&PlainRtm {
            metadata: vec![MetaEntry {
                phase: 0.5,
                name: "x".into(),
                value: "y".into(),
            }],
            step: Vec3::ZERO,
            bones: vec!["a".into(), "b".into()],
            frames: vec![PlainFrame {
                phase: 0.0,
                transforms: vec![("a".into(), [0.0; 12]), ("b".into(), [1.0; 12])],
            }],
        }),
    ];
    for (i, data) in fixtures.iter().enumerate() {
        for len in 0..data.len() {
            check_error(&data[..len], &format!("fixture {i} cut at {len}"));
        }
        let mut long = data.clone();
        long.push(0);
        check_error(&long, &format!("fixture {i} with a trailing byte"));
    }
}

#[test]
fn truncated_lzo_names_the_frame() {
    let data = rtm::write_bmtr(&synthetic(300, 80), 3);
    let b = read_bmtr(&data);
    let a = b.compressed_arrays[5];
    let cut = a.offset as usize + 4 + 100;
    let e = parse(&data[..cut]).unwrap_err();
    // v3 has no fallback, so the error is the frame's own, placed inside its
    // stream (where exactly depends on the decoder: at the literal run of the
    // stand-in, 6 bytes in, or where the input ran out).
    assert_eq!(e.field, "frame[4]");
    assert!((a.offset + 4..=cut as u64).contains(&e.offset), "{e}");
    assert!(e.message.starts_with("LZO1X"), "{e}");
}

/// Offsets of the u32 count fields of a BMTR v5 written by kiln.
fn count_fields(b: &Bmtr) -> Vec<(usize, &'static str)> {
    let mut v = vec![(21, "frames"), (29, "bones"), (33, "names")];
    for a in &b.compressed_arrays {
        v.push((a.offset as usize, "array"));
    }
    v
}

#[test]
fn hostile_counts_fail_fast() {
    let data = rtm::write_bmtr(&synthetic(20, 10), 5);
    let b = read_bmtr(&data);
    let mut fields = count_fields(&b);
    let names_end = 37 + b.bones.iter().map(|n| n.len() + 1).sum::<usize>();
    fields.push((names_end + 4, "metadata.count"));
    for (at, what) in fields {
        for v in [u32::MAX, 0x8000_0000, 0x0100_0000, 0] {
            let mut bad = data.clone();
            bad[at..at + 4].copy_from_slice(&v.to_le_bytes());
            check_error(&bad, &format!("{what} at {at} = {v:#x}"));
        }
    }
    let plain = rtm::write_plain(&PlainRtm {
        metadata: vec![MetaEntry {
            phase: 0.5,
            name: "x".into(),
            value: "y".into(),
        }],
        step: Vec3::ZERO,
        bones: vec!["a".into()],
        frames: vec![PlainFrame {
            phase: 0.0,
            transforms: vec![("a".into(), [0.0; 12])],
        }],
    });
    // mdat.count, frames, bones.
    for at in [12, 8 + 8 + 4 + 4 + 8 + 12, 8 + 8 + 4 + 4 + 8 + 12 + 4] {
        for v in [u32::MAX, 0x8000_0000, 0x0100_0000] {
            let mut bad = plain.clone();
            bad[at..at + 4].copy_from_slice(&v.to_le_bytes());
            check_error(&bad, &format!("plain count at {at} = {v:#x}"));
        }
    }
}

#[test]
fn corrupted_lzo_never_panics() {
    let data = rtm::write_bmtr(&synthetic(30, 80), 5);
    let b = read_bmtr(&data);
    let first = b.compressed_arrays[1].offset as usize;
    // Deterministic byte flips over the compressed frames.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut failures = 0;
    for _ in 0..3000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let at = first + (seed as usize % (data.len() - first));
        let mut bad = data.clone();
        bad[at] ^= (seed >> 32) as u8 | 1;
        if let Err(e) = parse(&bad) {
            assert_eq!(e.file, Path::new(FILE));
            assert!(e.offset <= bad.len() as u64);
            failures += 1;
        }
    }
    assert!(failures > 0);
    // A stream whose first instruction matches back before the output start.
    let mut bad = data.clone();
    let start = first + 5;
    // M4 with distance 0x4001 in an empty output.
    bad[start..start + 3].copy_from_slice(&[0x11, 0x04, 0x00]);
    let e = parse(&bad).unwrap_err();
    assert_eq!(e.field, "frame[0]");
    assert!((start as u64..=start as u64 + 3).contains(&e.offset), "{e}");
    assert!(e.message.contains("LZO1X"), "{}", e.message);
}

#[test]
fn not_an_rtm() {
    let e = parse(b"MLOD\x01\x01\0\0").unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("magic", 0));
    let mut v6 = rtm::write_bmtr(&synthetic(2, 2), 5);
    v6[4] = 6;
    let e = parse(&v6).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("version", 4));
}
