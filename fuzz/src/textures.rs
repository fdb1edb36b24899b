//! Texture decoders, each target named for the format its seeds hold (the
//! decoder is chosen by content, as kiln chooses it; PAA also by name).

use kiln::internals::formats::texture::{self, paa};
use kiln::DecodeOptions;
use std::path::Path;

fn decode(data: &[u8], name: &str, mips: u32) {
    let file = Path::new(name);
    for mip in 0..mips {
        for colour_key in [true, false] {
            let _ = texture::decode_with(
                data,
                file,
                DecodeOptions {
                    colour_key,
                    mip,
                    ..DecodeOptions::default()
                },
            );
        }
    }
    let _ = texture::summarize(data, file);
    let _ = texture::looks_like_texture(data, file);
}

pub fn bmp(data: &[u8]) {
    decode(data, "fuzz.bmp", 1);
}

pub fn tga(data: &[u8]) {
    decode(data, "fuzz.tga", 1);
}

pub fn png(data: &[u8]) {
    decode(data, "fuzz.png", 1);
}

pub fn dds(data: &[u8]) {
    decode(data, "fuzz.dds", 2);
}

pub fn paa(data: &[u8]) {
    decode(data, "fuzz.paa", 2);
    let file = Path::new("fuzz.paa");
    if let Ok(p) = paa::parse(data, file) {
        // Every level the file lists (a tiny level decodes fast; the count
        // is bounded by the file's size).
        for index in 2..p.mips.len().min(16) {
            let _ = paa::decode_mip(data, file, index);
        }
    }
}
