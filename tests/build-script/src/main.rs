//! Embeds the sheets its build script baked into OUT_DIR and checks them:
//! PNG files of exactly the size the recipe's grid makes (one row per
//! direction, one 96×96 cell per frame). Prints OUT_DIR for `.ci/run`,
//! which compares the bytes with an optimised bake of the same recipe.

static BEACON: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/beacon/beacon.png"));
static WINDMILL: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/sprites/windmill/windmill.png"));

/// Width and height from a PNG's IHDR chunk.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    let signature = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];
    if png.len() < 24 || png[..8] != signature || &png[12..16] != b"IHDR" {
        return None;
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Some((be(&png[16..20]), be(&png[20..24])))
}

fn main() {
    let mut ok = true;
    for (name, png, frames) in [("beacon", BEACON, 8), ("windmill", WINDMILL, 6)] {
        let want = (96 * frames, 96 * 4);
        match png_size(png) {
            Some(size) if size == want => {
                println!("{name}: {} bytes, {}x{}", png.len(), size.0, size.1)
            }
            got => {
                eprintln!("{name}: {got:?}, not a {}x{} PNG", want.0, want.1);
                ok = false;
            }
        }
    }
    println!("out_dir: {}", env!("OUT_DIR"));
    std::process::exit(if ok { 0 } else { 1 });
}
