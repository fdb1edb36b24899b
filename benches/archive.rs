//! Opening and reading a large GRF: kiln's own writer makes a ≥ 1 GiB
//! archive of 4 MiB entries (stored, mixed-DES and zlib ones) once under
//! `target/bench-grf/`, then the benchmark times opening it (header and
//! table only) and reading single entries, which never touches the rest.
//! Peak memory: run `/usr/bin/time -v cargo bench --bench archive` and see
//! `docs/benchmarks.md`, "Archives". Not part of `cargo test`: the archive takes a minute to
//! write and a gigabyte of disk.

mod harness;

use kiln::archives::{Grf, GrfVersion, GrfWriter, WriteOptions};
use kiln::{Archive, DataSource, GamePath};
use std::path::PathBuf;

const ENTRIES: usize = 260;
const ENTRY_BYTES: usize = 4 << 20;

fn archive() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-grf");
    let path = dir.join("big.grf");
    if std::fs::metadata(&path).is_ok_and(|m| m.len() >= 1 << 30) {
        return path;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut w = GrfWriter::new(file, GrfVersion::V200).unwrap();
    // Noise does not compress, so the archive really is that large.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut noise = vec![0u8; ENTRY_BYTES];
    for i in 0..ENTRIES {
        for b in noise.iter_mut() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *b = state as u8;
        }
        let options = match i % 3 {
            0 => WriteOptions::STORED,
            1 => WriteOptions {
                compress: false,
                encryption: kiln::archives::FLAG_MIXED,
            },
            _ => WriteOptions::default(),
        };
        w.add(
            format!("data\\texture\\big\\{i:04}.bin").as_bytes(),
            &noise,
            options,
        )
        .unwrap();
    }
    w.add(
        b"data\\model\\small.rsm",
        b"GRSM small entry",
        WriteOptions::MIXED,
    )
    .unwrap();
    w.finish().unwrap();
    path
}

fn main() {
    let mut c = harness::Bench::from_args();
    c.samples(10);
    let path = archive();
    let size = std::fs::metadata(&path).unwrap().len();
    eprintln!(
        "archive: {} ({:.2} GiB)",
        path.display(),
        size as f64 / (1u64 << 30) as f64
    );
    c.run("grf_open_1gib", || Grf::open_path(&path).unwrap());
    let grf = Grf::open_path(&path).unwrap();
    assert_eq!(grf.items().len(), ENTRIES + 1);
    let small = grf.find(&GamePath::new("data/model/small.rsm")).unwrap();
    c.run("grf_read_small_entry", || grf.read(&small).unwrap());
    let big = grf
        .find(&GamePath::new("data/texture/big/0001.bin"))
        .unwrap();
    c.run("grf_read_4mib_mixed_des_entry", || grf.read(&big).unwrap());
}
