//! Archive readers, which open a path: the input is written to a temporary
//! file first (kiln has no in-memory archive reader; its archives are read
//! an entry at a time from the file).

use kiln::archives::{Grf, GrimrockDat, Pbo};
use kiln::{Archive, GamePath};

/// Entries read per input: enough for every seed, bounded so one input
/// with a large table stays fast.
const MAX_ENTRIES: usize = 256;

fn walk(archive: &dyn Archive) {
    let _ = (archive.format(), archive.properties(), archive.warnings());
    let _ = archive.list(&GamePath::root());
    for (i, item) in archive.items().iter().enumerate().take(MAX_ENTRIES) {
        if let Some(entry) = archive.find(&GamePath::new(&item.raw_name)) {
            let _ = archive.read(&entry);
        }
        let _ = archive.read_item(i);
        if let Some(at) = item.raw_name.iter().rposition(|&b| b == b'/' || b == b'\\') {
            let _ = archive.list(&GamePath::new(&item.raw_name[..at]));
        }
    }
}

pub fn grf(data: &[u8]) {
    let file = crate::TempFile::new("grf", data);
    if let Ok(a) = Grf::open_path(file.path()) {
        walk(&a);
    }
}

pub fn pbo(data: &[u8]) {
    let file = crate::TempFile::new("pbo", data);
    if let Ok(a) = Pbo::open_path(file.path()) {
        walk(&a);
    }
}

pub fn dat(data: &[u8]) {
    let file = crate::TempFile::new("dat", data);
    if let Ok(a) = GrimrockDat::open_path(file.path()) {
        walk(&a);
    }
}
