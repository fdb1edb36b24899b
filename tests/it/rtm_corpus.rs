//! Every real RTM in the corpus parses to the exact end of the file, with
//! the values a hex reading of the files gives; plain files write back byte
//! for byte and BMTR round-trips through every version.

use crate::common;

use glam::{Quat, Vec3};
use kiln::internals::formats::arma::rtm::{self, Bmtr, PlainRtm, Rtm};
use std::path::{Path, PathBuf};

const ARMAIO: &str = "MrClock8163+armaio/tests/data";
const DAYZ: &str = "earlbalai+DayZ-Source";

/// The corpus folder this file reads, or `None` after the skip line.
fn corpus() -> Option<PathBuf> {
    common::corpus("arma")
}

fn load(root: &Path, rel: &str) -> (Vec<u8>, Rtm) {
    let path = root.join(rel);
    let data = std::fs::read(&path).unwrap();
    let rtm = rtm::parse(&data, &path).unwrap_or_else(|e| panic!("{e}"));
    (data, rtm)
}

fn plain(root: &Path, rel: &str) -> (Vec<u8>, PlainRtm) {
    match load(root, rel) {
        (d, Rtm::Plain(p)) => (d, p),
        _ => panic!("{rel} is not plain"),
    }
}

fn bmtr(root: &Path, rel: &str) -> (Vec<u8>, Bmtr) {
    match load(root, rel) {
        (d, Rtm::Binarised(b)) => (d, b),
        _ => panic!("{rel} is not BMTR"),
    }
}

fn q(x: i16, y: i16, z: i16, w: i16) -> Quat {
    let k = 1.0 / 16384.0;
    Quat::from_xyzw(x as f32 * k, y as f32 * k, z as f32 * k, w as f32 * k)
}

fn lzo_frames(b: &Bmtr) -> Vec<bool> {
    b.compressed_arrays.iter().map(|a| a.lzo).collect()
}

/// AGM's exporter left stale bytes after the NUL of every 32-byte name, which
/// kiln does not keep: the rewrite differs there only, and reads back the same.
fn rewrites_except_name_padding(data: &[u8], p: &PlainRtm) {
    let rewritten = rtm::write_plain(p);
    assert_eq!(rewritten.len(), data.len());
    assert_ne!(rewritten, data);
    // Zero every name's padding in the original: then the bytes agree.
    let mut cleaned = data.to_vec();
    let mut clean = |at: usize| {
        let nul = cleaned[at..at + 32].iter().position(|&b| b == 0).unwrap();
        cleaned[at + nul..at + 32].fill(0);
    };
    let header = 8 + 12 + 8;
    for b in 0..p.bones.len() {
        clean(header + 32 * b);
    }
    let frames = header + 32 * p.bones.len();
    for f in 0..p.frames.len() {
        for b in 0..p.bones.len() {
            clean(frames + f * (4 + 80 * p.bones.len()) + 4 + 80 * b);
        }
    }
    assert_eq!(rewritten, cleaned);
}

#[test]
fn armaio_plain_with_metadata() {
    let Some(root) = corpus() else { return };
    let (data, p) = plain(&root, &format!("{ARMAIO}/animation.rtm"));
    assert_eq!(p.step, Vec3::new(1.0, 3.0, 2.0));
    assert_eq!(p.bones, ["Pelvis", "Torso", "RightArm", "LeftArm"]);
    assert_eq!(p.metadata.len(), 2);
    assert_eq!(
        p.metadata[0].phase,
        f32::from_le_bytes([0x36, 0x94, 0x57, 0x3e])
    );
    assert_eq!(
        (p.metadata[0].name.as_str(), p.metadata[0].value.as_str()),
        ("Step", "Sound")
    );
    assert_eq!(
        (p.metadata[1].name.as_str(), p.metadata[1].value.as_str()),
        ("Test", "Prop")
    );
    assert_eq!(p.frames.len(), 2);
    assert_eq!(p.frames[0].phase, 0.0);
    assert_eq!(p.frames[1].phase, 1.0);
    let identity = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
    assert_eq!(p.frames[0].transforms[0], ("Pelvis".to_string(), identity));
    assert_eq!(rtm::write_plain(&p), data);
}

#[test]
fn armaio_bmtr_v5_raw() {
    let Some(root) = corpus() else { return };
    let (data, b) = bmtr(&root, &format!("{ARMAIO}/animation_bmtr.rtm"));
    assert_eq!((b.version, b.flag_byte, b.unknown), (5, 1, 1));
    assert_eq!(b.step, Vec3::new(1.0, 3.0, 2.0));
    assert_eq!(b.bones, ["pelvis", "torso", "rightarm", "leftarm"]);
    assert_eq!(b.metadata.len(), 2);
    assert_eq!(
        (b.metadata[1].name.as_str(), b.metadata[1].value.as_str()),
        ("Test", "Prop")
    );
    assert_eq!(
        b.metadata[1].phase,
        f32::from_le_bytes([0xbd, 0x86, 0xf2, 0x3e])
    );
    assert_eq!(b.times, [0.0, 1.0]);
    assert_eq!(lzo_frames(&b), [false; 3]);
    assert_eq!(b.frames[0][0].rotation, Quat::IDENTITY);
    // Nothing is large enough to compress, so kiln's writer reproduces the file.
    assert_eq!(rtm::write_bmtr(&b, 5), data);
}

#[test]
fn armaio_bmtr_v5_lzo() {
    let Some(root) = corpus() else { return };
    let (data, b) = bmtr(&root, &format!("{ARMAIO}/animation_bmtr_lzo.rtm"));
    assert_eq!(data.len(), 149767);
    let from_file = rtm::parse_file(&root.join(ARMAIO).join("animation_bmtr_lzo.rtm")).unwrap();
    assert_eq!(from_file, Rtm::Binarised(b.clone()));
    let missing = rtm::parse_file(&root.join(ARMAIO).join("missing.rtm")).unwrap_err();
    assert!(matches!(missing, kiln::Error::Io { .. }), "{missing}");
    assert_eq!(b.version, 5);
    assert_eq!((b.frames.len(), b.bones.len()), (165, 66));
    assert!(b.frames.iter().all(|f| f.len() == 66));
    assert_eq!(b.bones[1], "spine1");
    assert_eq!(b.frames[0][1].rotation, q(342, 173, 247, 16378));
    assert_eq!(b.times[1], 1.0 / 165.0);
    assert_eq!(b.times[164], 164.0 / 165.0);
    assert_eq!(b.compressed_arrays.len(), 166);
    assert_eq!(b.compressed_arrays.iter().filter(|a| a.lzo).count(), 124);
    assert_eq!(b.metadata, []);
    let again = rtm::parse(&rtm::write_bmtr(&b, 5), Path::new("w.rtm")).unwrap();
    match again {
        Rtm::Binarised(c) => {
            assert_eq!((c.bones, c.times, c.frames), (b.bones, b.times, b.frames))
        }
        _ => panic!("not BMTR"),
    }
}

#[test]
fn dayz_bmtr_v3() {
    let Some(root) = corpus() else { return };
    let (data, walk) = bmtr(&root, &format!("{DAYZ}/SQF/dayz_anim/zmb/zombie2_walk.rtm"));
    assert_eq!(walk.version, 3);
    assert_eq!((walk.frames.len(), walk.bones.len()), (225, 68));
    assert_eq!(walk.step, Vec3::new(0.00016025477, 0.0, -3.7625346));
    assert_eq!(walk.bones[0], "spine");
    assert_eq!(walk.frames[0][0].rotation, q(-924, 112, 121, 16357));
    assert_eq!(walk.times[224], 1.0);
    // 68 × 14 and 225 × 4 are both under 1024 bytes: every array is raw.
    assert_eq!(lzo_frames(&walk), vec![false; 226]);
    assert_eq!(rtm::write_bmtr(&walk, 3), data);

    let (_, death) = bmtr(
        &root,
        &format!("{DAYZ}/SQF/dayz_anim/zmb/zmbStandDeath2.rtm"),
    );
    assert_eq!((death.frames.len(), death.bones.len()), (139, 127));
    let mut expect = vec![true; 140];
    expect[0] = false;
    assert_eq!(lzo_frames(&death), expect);
    assert_eq!(death.bones[0], "weapon");
    assert_eq!(death.times[138], 1.0);

    let (_, idle) = bmtr(
        &root,
        &format!("{DAYZ}/SQF/dayz_anim/zmb/zombie_idle_4_loop.rtm"),
    );
    assert_eq!((idle.frames.len(), idle.bones.len()), (21, 67));
    assert_eq!(idle.bones[0], "head");
    assert_eq!(idle.times[1], 0.05);
    assert_eq!(idle.frames[0][0].translation.y, -0.0036621094);
}

#[test]
fn plain_sources_round_trip() {
    let Some(root) = corpus() else { return };
    let (data, walk) = plain(
        &root,
        &format!("{DAYZ}/Legacy/dayz_anim/zmb/zombie2_walk.rtm"),
    );
    assert_eq!((walk.frames.len(), walk.bones.len()), (225, 73));
    assert_eq!(walk.step, Vec3::new(0.00016025477, 0.0, -3.7625346));
    assert_eq!(walk.bones[0], "Hips");
    assert_eq!(walk.frames[0].transforms[0].1[10], 0.97246397);
    assert_eq!(rtm::write_plain(&walk), data);

    let (data, rope) = plain(
        &root,
        "KoffeinFlummi+AGM/AGM_FastRoping/data/agm_fastroping.rtm",
    );
    assert_eq!((rope.frames.len(), rope.bones.len()), (2, 66));
    assert_eq!((rope.frames[0].phase, rope.frames[1].phase), (0.5, 1.0));
    assert_eq!(rope.frames[0].transforms[1].0, "RightUpLeg");
    assert_eq!(
        rope.frames[0].transforms[0].1[9..],
        [0.009028532, 0.8873534, 0.22961739]
    );
    rewrites_except_name_padding(&data, &rope);

    let (data, wipe) = plain(&root, "KoffeinFlummi+AGM/AGM_Goggles/anim/WipeGlasses.rtm");
    assert_eq!((wipe.frames.len(), wipe.bones.len()), (30, 65));
    assert_eq!(wipe.step, Vec3::ZERO);
    rewrites_except_name_padding(&data, &wipe);
}

#[test]
fn summary_reports_lzo_arrays() {
    let Some(root) = corpus() else { return };
    let (_, r) = load(&root, &format!("{ARMAIO}/animation_bmtr_lzo.rtm"));
    let s = rtm::summary(&r);
    assert_eq!(
        (s.kind.as_str(), s.version, s.frames),
        ("binarised", Some(5), 165)
    );
    assert_eq!(s.phases, Some([0.0, 164.0 / 165.0]));
    assert_eq!(s.lzo_arrays, 124);
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["bones"][1], "spine1");
    assert_eq!(json["arrays"][0]["offset"], 885);
}
