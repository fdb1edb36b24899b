//! GRF archives: every corpus fixture (grf-loader's and RagLite's) listed
//! with exact names and sizes and its entries equal to the fixtures' own
//! expected texts; the broken ones refused with messages; kiln's writer →
//! reader round trip for every version and flag; hostile tables.

use crate::common::{corpus, tempdir};
use kiln::internals::source::grf::{write_grf, Grf, GrfVersion, WriteOptions};
use kiln::internals::source::{Archive, DataSource, GamePath};

const TEST: &str = "test test test test test test test test test test test test test test test";
const LOREM: &str = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. Sed venenatis bibendum venenatis. Aliquam quis velit urna. Suspendisse nec posuere sem. Donec risus quam, vulputate sed augue ultricies, dignissim hendrerit purus. Nulla euismod dolor enim, vel fermentum ex ultricies ac. Donec aliquet vehicula egestas. Sed accumsan velit ac mauris porta, id imperdiet purus aliquam. Phasellus et faucibus erat. Vestibulum ante ipsum primis in faucibus orci luctus et ultrices posuere cubilia curae; Pellentesque vel nisl efficitur, euismod augue eu, consequat dui. Maecenas vestibulum tortor purus, egestas posuere tortor imperdiet eget. Nulla sit amet placerat diam.";

fn read(grf: &Grf, name: &str) -> kiln::Result<Vec<u8>> {
    let e = grf
        .find(&GamePath::new(name))
        .unwrap_or_else(|| panic!("{name} not found"));
    grf.read(&e)
}

#[test]
fn grf_loader_fixture_lists_and_decrypts_every_entry() {
    let Some(p) = corpus("ro/vthibault+grf-loader/data/with-files.grf") else {
        return;
    };
    let grf = Grf::open_path(&p).unwrap();
    assert_eq!(grf.format(), "GRF 0x200");
    let rows: Vec<(&str, u64, u64, u32, u64, &str, &str)> = grf
        .items()
        .iter()
        .map(|i| {
            (
                i.name.as_str(),
                i.size,
                i.stored,
                i.flags,
                i.offset - 46,
                i.compression,
                i.encryption,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("raw", 74, 74, 1, 0, "none", "none"),
            ("corrupted", 20, 123, 3, 34, "zlib", "des-mixed"),
            ("compressed", 74, 16, 1, 74, "zlib", "none"),
            ("compressed-des-header", 74, 16, 5, 90, "zlib", "des-header"),
            ("compressed-des-full", 74, 16, 3, 106, "zlib", "des-mixed"),
            (
                "big-compressed-des-full",
                658,
                368,
                3,
                122,
                "zlib",
                "des-mixed"
            ),
        ]
    );
    // The folder row is not an entry.
    assert!(grf.find(&GamePath::new("folder")).is_none());
    assert_eq!(grf.properties()[1], ("folder rows".into(), "1".into()));
    for name in [
        "raw",
        "compressed",
        "compressed-des-header",
        "COMPRESSED-DES-FULL",
    ] {
        assert_eq!(read(&grf, name).unwrap(), TEST.as_bytes(), "{name}");
    }
    assert_eq!(
        read(&grf, "big-compressed-des-full").unwrap(),
        LOREM.as_bytes()
    );
    let corrupted = read(&grf, "corrupted").unwrap_err().to_string();
    assert!(
        corrupted.ends_with("with-files.grf:/corrupted: corrupt row: compressed size 132 is larger than its aligned size 123"),
        "{corrupted}"
    );
    assert!(grf.items()[1].refused.is_some());
}

#[test]
fn broken_grf_fixtures_are_refused_with_messages() {
    for (file, says) in [
        ("corrupted.grf", "header at byte 0 (0x0): 0 bytes, too short for a GRF header (46 bytes): the file is empty"),
        ("not-grf.grf", "header.magic at byte 0 (0x0): not a GRF archive (no \"Master of Magic\")"),
        ("incorrect-version.grf", "header.table_offset at byte 30 (0x1e): the table at byte 46 lies at or past the end of the 46-byte file: the archive has no file table"),
    ] {
        let Some(p) = corpus(&format!("ro/vthibault+grf-loader/data/{file}")) else {
            return;
        };
        let e = Grf::open_path(&p).unwrap_err().to_string();
        assert!(e.starts_with(&p.display().to_string()), "{e}");
        assert!(e.contains(says), "{file}: {e}");
    }
    // Through the data-source door, a file that is no archive says so.
    let p = corpus("ro/vthibault+grf-loader/data/not-grf.grf").unwrap();
    let e = kiln::internals::source::open_data(&p)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not an archive kiln reads"), "{e}");
}

#[test]
fn raglite_fixtures_list_exact_names_including_korean() {
    let Some(p) = corpus("ro/RagnarokResearchLab+RagLite/Tests/Fixtures/test.grf") else {
        return;
    };
    let grf = Grf::open_path(&p).unwrap();
    let mut rows: Vec<(String, u64, u64, u32, u64)> = grf
        .items()
        .iter()
        .map(|i| (i.name.clone(), i.size, i.stored, i.flags, i.offset - 46))
        .collect();
    rows.sort();
    assert_eq!(
        rows,
        [
            ("UPPERCASE.PNG".to_string(), 189, 192, 1, 160),
            ("hello-grf.txt".into(), 62, 72, 1, 88),
            ("subdirectory/hello.txt".into(), 78, 88, 1, 0),
            ("안녕하세요.txt".into(), rows[3].1, rows[3].2, 1, rows[3].4),
        ]
    );
    // The Korean name is stored as CP949 bytes.
    let korean = grf
        .items()
        .iter()
        .find(|i| i.name.starts_with('안'))
        .unwrap();
    assert_eq!(
        korean.raw_name,
        [0xbe, 0xc8, 0xb3, 0xe7, 0xc7, 0xcf, 0xbc, 0xbc, 0xbf, 0xe4, b'.', b't', b'x', b't']
    );
    let tea = "I'm inside the GRF archive, just minding my business. Would you like some tea?";
    for name in [
        "subdirectory/hello.txt",
        "SUBDIRECTORY\\HELLO.TXT",
        "/subdirectory//hello.txt",
    ] {
        assert_eq!(read(&grf, name).unwrap(), tea.as_bytes(), "{name}");
    }
    // Found by its CP949 bytes and by the name typed in UTF-8.
    let by_bytes = grf.find(&GamePath::new(&korean.raw_name)).unwrap();
    let text = grf.read(&by_bytes).unwrap();
    assert_eq!(read(&grf, "안녕하세요.txt").unwrap(), text);
    assert_eq!(String::from_utf8(text).unwrap(), "안녕하십니까");
    assert!(read(&grf, "uppercase.png").unwrap().starts_with(b"\x89PNG"));
    assert!(String::from_utf8(read(&grf, "hello-grf.txt").unwrap())
        .unwrap()
        .contains("GRF"));
    // Folders are listed from the names.
    let (_, root) = grf.list(&GamePath::root()).unwrap();
    assert_eq!(root.len(), 4);

    let Some(p) = corpus("ro/RagnarokResearchLab+RagLite/Tests/Fixtures/missing-map-files.grf")
    else {
        return;
    };
    let grf = Grf::open_path(&p).unwrap();
    let names: Vec<&str> = grf.items().iter().map(|i| i.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "data/123.gat",
            "data/123.gnd",
            "data/123.rsw",
            "data/456.gat",
            "data/456.gnd",
            "data/456.rsw",
            "data/no-gat.gnd",
            "data/no-gat.rsw",
            "data/no-gnd.gat",
            "data/no-gnd.rsw",
            "data/rsw-only.rsw"
        ]
    );
    for (i, name) in names.iter().enumerate().take(grf.items().len()) {
        assert_eq!(grf.read_item(i).unwrap(), b"", "{name}");
    }
    let (_, data) = grf.list(&GamePath::new("DATA")).unwrap();
    assert_eq!(data.len(), 11);
}

fn sample_entries() -> Vec<(Vec<u8>, Vec<u8>)> {
    let big: Vec<u8> = (0..70_000u32).map(|i| (i * 31 % 253) as u8).collect();
    vec![
        (b"data\\texture\\a.bmp".to_vec(), b"BM tiny".to_vec()),
        (
            b"data\\model\\\xc6\xae\xb7\xa6.rsm".to_vec(),
            TEST.as_bytes().repeat(3),
        ),
        (b"data\\x.gnd".to_vec(), LOREM.as_bytes().to_vec()),
        (b"data\\big.bin".to_vec(), big),
        (b"data\\empty.txt".to_vec(), Vec::new()),
    ]
}

#[test]
fn kiln_writes_every_version_and_flag_and_reads_it_back() {
    let entries = sample_entries();
    for version in [
        GrfVersion::V102,
        GrfVersion::V103,
        GrfVersion::V200,
        GrfVersion::V300,
    ] {
        for options in [
            WriteOptions::default(),
            WriteOptions::STORED,
            WriteOptions::MIXED,
            WriteOptions::HEADER,
        ] {
            let list: Vec<(&[u8], &[u8], WriteOptions)> = entries
                .iter()
                .map(|(n, d)| (n.as_slice(), d.as_slice(), options))
                .collect();
            let bytes = write_grf(version, &list);
            let dir = tempdir(&format!(
                "grf-rt-{:x}-{}-{}",
                version.number(),
                options.compress,
                options.encryption
            ));
            let path = dir.join("kiln.grf");
            std::fs::write(&path, &bytes).unwrap();
            let grf = Grf::open_path(&path).unwrap();
            assert_eq!(grf.version(), version);
            assert_eq!(grf.items().len(), entries.len());
            for (i, (name, data)) in entries.iter().enumerate() {
                let item = &grf.items()[i];
                assert_eq!(item.raw_name, *name);
                assert_eq!(item.size, data.len() as u64);
                let want_enc = if matches!(version, GrfVersion::V102 | GrfVersion::V103) {
                    if name.ends_with(b".gnd") {
                        "des-header"
                    } else {
                        "des-mixed"
                    }
                } else {
                    match options.encryption {
                        2 => "des-mixed",
                        4 => "des-header",
                        _ => "none",
                    }
                };
                assert_eq!(item.encryption, want_enc, "{version:?} {options:?}");
                assert_eq!(
                    grf.read_item(i).unwrap(),
                    *data,
                    "{version:?} {options:?} {}",
                    item.name
                );
                let found = grf.find(&GamePath::new(name)).unwrap();
                assert_eq!(grf.read(&found).unwrap(), *data);
            }
            if options.encryption != 0 && version == GrfVersion::V200 {
                // Encrypted bodies are not plain zlib on disk.
                let raw = &bytes[46..46 + 8];
                assert!(!(raw[0] == 0x78 && raw[1] == 0x9c));
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

#[test]
fn folder_rows_and_grf_editor_extensions() {
    let dir = tempdir("grf-editor");
    let path = dir.join("x.grf");
    let mut w = kiln::internals::source::grf::GrfWriter::new(
        std::fs::File::create(&path).unwrap(),
        GrfVersion::V200,
    )
    .unwrap();
    w.add_folder(b"data");
    w.add(b"data\\a.txt", b"hello", WriteOptions::default())
        .unwrap();
    w.add(b"data\\b.txt", b"world", WriteOptions::default())
        .unwrap();
    w.finish().unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let grf = Grf::open_path(&path).unwrap();
    assert_eq!(grf.items().len(), 2);
    assert_eq!(read(&grf, "data/b.txt").unwrap(), b"world");
    // Set GRF Editor's flag 0x80 on the second row, in the inflated table.
    let off = u32::from_le_bytes(bytes[30..34].try_into().unwrap()) as usize + 46;
    let packed_len = u32::from_le_bytes(bytes[off..off + 4].try_into().unwrap()) as usize;
    let real = u32::from_le_bytes(bytes[off + 4..off + 8].try_into().unwrap()) as usize;
    let mut table = Vec::new();
    use std::io::Read;
    flate2::read::ZlibDecoder::new(&bytes[off + 8..off + 8 + packed_len])
        .read_to_end(&mut table)
        .unwrap();
    assert_eq!(table.len(), real);
    let b_row = table.windows(10).position(|w| w == b"data\\b.txt").unwrap() + 11;
    table[b_row + 12] |= 0x80;
    let a_row = table.windows(10).position(|w| w == b"data\\a.txt").unwrap() + 11;
    table[a_row + 12] |= 0x20;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut z, &table).unwrap();
    let z = z.finish().unwrap();
    bytes.truncate(off);
    bytes.extend_from_slice(&(z.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&(table.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&z);
    std::fs::write(&path, &bytes).unwrap();
    let grf = Grf::open_path(&path).unwrap();
    let e = read(&grf, "data/b.txt").unwrap_err().to_string();
    assert!(
        e.contains("flag 0x81 is a GRF Editor extension kiln does not read"),
        "{e}"
    );
    let e = read(&grf, "data/a.txt").unwrap_err().to_string();
    assert!(e.contains("encrypted with a custom key (flag 0x21"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hostile_headers_and_tables_fail_cleanly() {
    let bytes = write_grf(
        GrfVersion::V200,
        &[(b"data\\a.txt", b"hello hello hello", WriteOptions::MIXED)],
    );
    let dir = tempdir("grf-hostile");
    let path = dir.join("h.grf");
    // Every truncation is an error or a refused entry, never a panic.
    for len in 0..bytes.len() {
        std::fs::write(&path, &bytes[..len]).unwrap();
        if let Ok(grf) = Grf::open_path(&path) {
            for i in 0..grf.items().len() {
                let _ = grf.read_item(i);
            }
        }
    }
    // Byte flips anywhere.
    let mut rng = crate::common::Rng(0x9e37_79b9);
    for _ in 0..400 {
        let mut b = bytes.clone();
        let at = rng.below(b.len());
        b[at] ^= 1 << rng.below(8);
        std::fs::write(&path, &b).unwrap();
        if let Ok(grf) = Grf::open_path(&path) {
            for i in 0..grf.items().len() {
                let _ = grf.read_item(i);
            }
        }
    }
    // A count of 2³¹ files in a tiny table.
    let mut b = bytes.clone();
    b[38..42].copy_from_slice(&0x8000_0000u32.to_le_bytes());
    std::fs::write(&path, &b).unwrap();
    let e = Grf::open_path(&path).unwrap_err().to_string();
    assert!(e.contains("header.file_count at byte 38"), "{e}");
    // An unknown version.
    let mut b = bytes.clone();
    b[42..46].copy_from_slice(&0x400u32.to_le_bytes());
    std::fs::write(&path, &b).unwrap();
    let e = Grf::open_path(&path).unwrap_err().to_string();
    assert!(e.contains("unsupported GRF version 0x400"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
