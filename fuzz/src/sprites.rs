//! Ragnarok client sprites: SPR images and ACT animations.

use kiln::internals::formats::sprite::{act, spr};
use std::path::Path;

pub fn spr(data: &[u8]) {
    let file = Path::new("fuzz.spr");
    if let Ok(s) = spr::parse(data, file) {
        // What kiln writes from a file it read, it must read back.
        if let Ok(bytes) = spr::write(&s) {
            if let Err(e) = spr::parse(&bytes, file) {
                panic!("spr: a written copy of a parsed file does not parse: {e}");
            }
        }
    }
}

pub fn act(data: &[u8]) {
    let file = Path::new("fuzz.act");
    if let Ok(a) = act::parse(data, file) {
        if let Ok(bytes) = act::write(&a) {
            if let Err(e) = act::parse(&bytes, file) {
                panic!("act: a written copy of a parsed file does not parse: {e}");
            }
        }
    }
}
