use kiln::internals::formats::rsw;
use std::path::Path;

const FIX: &str = "ro/RagnarokResearchLab+RagLite/Tests/Fixtures";

#[test]
fn truncation_at_every_length_is_an_error() {
    let Some(fix) = crate::common::corpus(FIX) else {
        return;
    };
    for n in ["v0109.rsw", "v0205.rsw", "v0206-with-rsm2-flag.rsw"] {
        let p = fix.join(n);
        let bytes = std::fs::read(&p).unwrap();
        for len in 0..bytes.len() {
            let e = rsw::parse(&bytes[..len], &p).unwrap_err();
            assert!(e.offset as usize <= len, "{n} len {len}: {e}");
            assert!(!e.field.is_empty());
        }
    }
}

#[test]
fn hostile_count_and_byte_flips_never_panic() {
    let Some(fix) = crate::common::corpus(FIX) else {
        return;
    };
    let p = fix.join("v0109.rsw");
    let bytes = std::fs::read(&p).unwrap();
    // The object count of the 1.9 fixture sits at byte 242.
    let mut bad = bytes.clone();
    bad[242..246].copy_from_slice(&i32::MAX.to_le_bytes());
    let e = rsw::parse(&bad, &p).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("object_count", 242));
    bad[242..246].copy_from_slice(&(-1i32).to_le_bytes());
    assert_eq!(rsw::parse(&bad, &p).unwrap_err().field, "object_count");
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0xff;
        let _ = rsw::parse(&b, &p);
    }
}

#[test]
fn bad_magic_and_version_are_named() {
    let p = Path::new("x.rsw");
    let e = rsw::parse(b"GRSX\x02\x01", p).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("header.magic", 0));
    let e = rsw::parse(b"GRSW\x07\x01", p).unwrap_err();
    assert_eq!(e.field, "header.version");
}
