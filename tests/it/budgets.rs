//! Memory a hostile or oversized input may ask for: header counts checked
//! against the bytes and the sizes they imply, a client sprite's canvas
//! bounded, decoded textures charged to `--memory-limit`, and shard counts
//! bounded. Every refusal is an exit code and a message naming the file,
//! field and offset; a process under an address-space cap gets an error,
//! never an abort.

use crate::common::{kiln, stderr, tempdir};
use kiln::internals::formats::sprite::{act, spr, Act, Action, Frame, IndexedImage, Layer, Spr};
use std::path::{Path, PathBuf};

/// A DDS of `w × h` DXT1 whose header declares `mips` levels, holding the
/// bytes of the first `present` levels.
fn dds(w: u32, h: u32, mips: u32, present: u32) -> Vec<u8> {
    let mut v = b"DDS ".to_vec();
    // size, flags (caps, height, width, pixel format, mip count), height,
    // width, pitch, depth, mip count
    for x in [124u32, 0x2_1007, h, w, 0, 0, mips] {
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.extend_from_slice(&[0; 44]);
    // pixel format: size, flags (four CC), "DXT1", bit count, four masks
    for x in [32u32, 4] {
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.extend_from_slice(b"DXT1");
    v.extend_from_slice(&[0; 20]);
    v.extend_from_slice(&[0; 20]);
    assert_eq!(v.len(), 128);
    for m in 0..present {
        let (lw, lh) = ((w >> m).max(1), (h >> m).max(1));
        let blocks = lw.div_ceil(4) as usize * lh.div_ceil(4) as usize;
        // Opaque white blocks: colour 0 = colour 1 = 0xffff, indices 0.
        for _ in 0..blocks {
            v.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
        }
    }
    v
}

#[test]
fn a_dds_lists_only_the_mips_its_size_and_bytes_allow() {
    let dir = tempdir("budget-dds");
    // 11 KB declaring 2³¹ − 1 mip levels: a 64×64 chain has 7, and the file
    // holds the first 3 (2048 + 512 + 128 bytes after the header).
    let path = dir.join("lying.dds");
    std::fs::write(&path, dds(64, 64, i32::MAX as u32, 3)).unwrap();
    let o = kiln(&["inspect", "lying.dds", "--json"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        report["texture"]["mips"],
        serde_json::json!([[64, 64], [32, 32], [16, 16]])
    );
    let notes = report["texture"]["notes"].as_array().unwrap();
    assert!(
        notes.contains(&serde_json::json!(
            "header.mip_map_count at byte 28 declares 2147483647 levels; a 64×64 image has at \
             most 7 and the file holds 3 whole: 3 listed"
        )),
        "{notes:?}"
    );
    // Level 2 is there; level 3 is declared but not held.
    let o = kiln(
        &["convert", "lying.dds", "--mip", "2", "-o", "m2.png"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let m2 = image::open(dir.join("m2.png")).unwrap().to_rgba8();
    assert_eq!(m2.dimensions(), (16, 16));
    assert!(m2.pixels().all(|p| p.0 == [255, 255, 255, 255]));
    let o = kiln(
        &["convert", "lying.dds", "--mip", "3", "-o", "m3.png"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "kiln: error: {}: header.mip_map_count at byte 28 (0x1c): no mip level 3: the file \
             declares 2147483647, a 64×64 image has at most 7 and the file holds 3 whole\n",
            Path::new("lying.dds").display()
        )
    );
    // A level past any chain: refused the same way, not shifted past 32 bits.
    let o = kiln(
        &["convert", "lying.dds", "--mip", "40", "-o", "m.png"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("no mip level 40"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 16384² 32-bit RLE TGA, top-down, of runs of 128 pixels in 128
/// colours a row: 10 MiB that decode to 1 GiB.
fn big_tga() -> Vec<u8> {
    let (w, h) = (16384u16, 16384u16);
    let mut v = vec![0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    v.extend_from_slice(&w.to_le_bytes());
    v.extend_from_slice(&h.to_le_bytes());
    v.extend_from_slice(&[32, 0x28]);
    let mut row = Vec::new();
    for i in 0..(w / 128) as u32 {
        let c = (i * 37) as u8;
        row.extend_from_slice(&[0xff, c, 255 - c, c.wrapping_mul(3), 255]);
    }
    for _ in 0..h {
        v.extend_from_slice(&row);
    }
    v
}

fn prlimit() -> Option<PathBuf> {
    let found = ["/usr/bin/prlimit", "/bin/prlimit"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file());
    if found.is_none() {
        eprintln!("skipped: prlimit (util-linux) not found; address-space limits not tested");
    }
    found
}

/// Runs kiln under an address-space limit of `bytes`.
fn kiln_capped(prlimit: &Path, bytes: u64, args: &[&str], cwd: &Path) -> std::process::Output {
    std::process::Command::new(prlimit)
        .arg(format!("--as={bytes}"))
        .arg(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run prlimit")
}

#[test]
fn a_16384_texture_is_charged_to_the_memory_limit_never_aborts() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempdir("budget-tga");
    std::fs::write(dir.join("big.tga"), big_tga()).unwrap();
    let refused = format!(
        "kiln: error: {}: dimensions at byte 12 (0xc): 16384×16384 texels need 1 GiB in memory, \
         more than the memory limit of 512 MiB (raise it with --memory-limit)\n",
        Path::new("big.tga").display()
    );
    for args in [
        &[
            "convert",
            "big.tga",
            "-o",
            "big.png",
            "--memory-limit",
            "512M",
        ][..],
        &["inspect", "big.tga", "--memory-limit", "512M"][..],
    ] {
        let o = kiln(args, &dir);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), refused, "{args:?}");
    }
    assert!(!dir.join("big.png").exists());

    let Some(prlimit) = prlimit() else {
        let _ = std::fs::remove_dir_all(&dir);
        return;
    };
    // 1 GB of address space cannot hold the 1 GiB of texels that the
    // default 4 GiB limit allows: the allocation fails, and says so.
    for args in [
        &["convert", "big.tga", "-o", "big.png"][..],
        &["inspect", "big.tga"][..],
    ] {
        let o = kiln_capped(&prlimit, 1_000_000_000, args, &dir);
        assert_eq!(o.status.signal(), None, "{args:?}: {}", stderr(&o));
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!(
                "kiln: error: {}: dimensions at byte 12 (0xc): 16384×16384 texels: could not \
                 allocate 1 GiB (the process has less memory than that)\n",
                Path::new("big.tga").display()
            ),
            "{args:?}"
        );
    }
    // 2 GB is enough: one copy of the texels, encoded to PNG from where
    // they were decoded.
    let o = kiln_capped(
        &prlimit,
        2_000_000_000,
        &["convert", "big.tga", "-o", "big.png"],
        &dir,
    );
    assert_eq!(o.status.signal(), None, "{}", stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Read back row by row (a whole decode would hold another GiB here).
    let file = std::io::BufReader::new(std::fs::File::open(dir.join("big.png")).unwrap());
    let mut png = png::Decoder::new(file).read_info().unwrap();
    assert_eq!(
        (png.info().width, png.info().height, png.info().color_type),
        (16384, 16384, png::ColorType::Rgba)
    );
    // Top-down: row 0 of the file is row 0 of the image; run i is stored
    // as B, G, R = 37 i, 255 − 37 i, 111 i.
    let mut y = 0;
    while let Some(row) = png.next_row().unwrap() {
        if [0, 9000, 16383].contains(&y) {
            for x in [0usize, 127, 128, 16383] {
                let c = (x / 128 * 37) as u8;
                assert_eq!(
                    row.data()[x * 4..x * 4 + 4],
                    [c.wrapping_mul(3), 255 - c, c, 255],
                    "({x}, {y})"
                );
            }
        }
        y += 1;
    }
    assert_eq!(y, 16384);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A sprite of one 4×4 palette image and one action whose frames each
/// hold one layer at the given offsets and scale.
fn sprite(dir: &Path, name: &str, layers: &[(i32, i32, f32)]) -> PathBuf {
    let mut palette = vec![[0u8; 4]; 256];
    palette[1] = [200, 10, 10, 0];
    let s = Spr {
        major: 2,
        minor: 1,
        indexed: vec![IndexedImage {
            width: 4,
            height: 4,
            pixels: vec![1; 16],
        }],
        rgba: vec![],
        palette: Some(palette),
        gap: vec![],
    };
    let frames = layers
        .iter()
        .map(|&(x, y, scale)| Frame {
            layers: vec![Layer {
                x,
                y,
                image: 0,
                scale: [scale, scale],
                size: Some([4, 4]),
                ..Layer::default()
            }],
            ..Frame::default()
        })
        .collect();
    let a = Act {
        major: 2,
        minor: 5,
        reserved: [0; 10],
        actions: vec![Action { frames }],
        events: vec![],
        intervals: vec![4.0],
    };
    std::fs::write(dir.join(format!("{name}.spr")), spr::write(&s).unwrap()).unwrap();
    let path = dir.join(format!("{name}.act"));
    std::fs::write(&path, act::write(&a).unwrap()).unwrap();
    path
}

#[test]
fn a_sprite_layer_beyond_the_canvas_bound_is_refused_naming_it() {
    let dir = tempdir("budget-reach");
    // Frame 1's layer sits a million pixels right of the entity: a canvas
    // of 1,000,002 × 4 before; now the layer is named where it is stored.
    sprite(&dir, "far", &[(0, 0, 1.0), (1_000_000, 0, 1.0)]);
    // Header 16, action frame count 4, frame 0 (32 + 4 + 44 layer bytes + 4
    // event + 4 anchor count = 88), then frame 1's 36 bytes before its layer.
    let at = 16 + 4 + 88 + 36;
    let message = format!(
        "kiln: error: {}: action[0].frame[1].layer[0] at byte {at} (0x{at:x}): its 4×4 image at \
         (1000000, 0), scaled 1 and turned 0°, reaches 1000002 px from the entity position; a \
         client sprite's layers stay within 2048 px (its canvas within 4096 px a side)\n",
        Path::new("far.act").display()
    );
    let o = kiln(&["render", "far.act", "-o", "far.png"], &dir);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stderr(&o), message);
    assert!(!dir.join("far.png").exists());
    // A scale does it as surely as an offset.
    sprite(&dir, "huge", &[(0, 0, 2000.0)]);
    let o = kiln(&["render", "huge.act", "-o", "huge.png"], &dir);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("its 4×4 image at (0, 0), scaled 2000 and turned 0°, reaches 4000 px"),
        "{}",
        stderr(&o)
    );
    // A bake of it fails the job, naming the same layer.
    std::fs::write(
        dir.join("r.yaml"),
        "jobs:\n  - name: far\n    model: far.act\n    output: { dir: out }\n",
    )
    .unwrap();
    let o = kiln(&["bake", "r.yaml", "--quiet"], &dir);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("action[0].frame[1].layer[0] at byte 144 (0x90)"),
        "{}",
        stderr(&o)
    );
    // Within the bound it renders, on a canvas covering the one frame.
    sprite(&dir, "near", &[(2046, -2046, 1.0)]);
    let o = kiln(&["render", "near.act", "-o", "near.png"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let img = image::open(dir.join("near.png")).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (4, 4));
    assert!(img.pixels().all(|p| p.0 == [200, 10, 10, 255]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_sprite_bake_counts_its_own_canvas_against_the_memory_limit() {
    let dir = tempdir("budget-canvas");
    // Two frames at opposite corners of the bound: every frame is drawn on
    // one 4004 × 4004 canvas, 61 MiB each, whatever the recipe's size.
    sprite(&dir, "wide", &[(-2000, -2000, 1.0), (2000, 2000, 1.0)]);
    std::fs::write(
        dir.join("r.yaml"),
        "jobs:\n  - name: wide\n    model: wide.act\n    output: { dir: out, sheet: false, frames: \"f{dir}_{frame}.png\" }\n",
    )
    .unwrap();
    let o = kiln(
        &["bake", "r.yaml", "--quiet", "--memory-limit", "100M"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "job 'wide': its 2 images of 4004x4004 need 122 MiB in memory at once beside the \
             80 bytes its SPR's images take, more than the memory limit of 100 MiB"
        ),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("out").exists(), "nothing rendered or written");
    let o = kiln(
        &["bake", "r.yaml", "--quiet", "--memory-limit", "200M"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let f0 = image::open(dir.join("out/f0_0.png")).unwrap().to_rgba8();
    assert_eq!(f0.dimensions(), (4004, 4004));
    assert_eq!(f0.get_pixel(0, 0).0, [200, 10, 10, 255]);
    assert_eq!(f0.get_pixel(4003, 4003).0, [0, 0, 0, 0]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shard_counts_are_bounded_as_plan_shards_is() {
    let dir = tempdir("budget-shard");
    std::fs::write(
        dir.join("r.yaml"),
        "jobs:\n  - name: a\n    model: a.rsm\n    output: { dir: out }\n",
    )
    .unwrap();
    for n in ["18446744073709551615", "4294967296", "100001"] {
        let shard = format!("1/{n}");
        let o = kiln(&["bake", "r.yaml", "--shard", &shard], &dir);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "invalid value '{shard}' for '--shard <K/N|auto>': shard {shard}: at most 100000 \
                 shards (as `kiln plan --shards`)"
            )),
            "{}",
            stderr(&o)
        );
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_kiln"))
            .args(["bake", "r.yaml", "--shard", "auto"])
            .env("KILN_SHARD", &shard)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "KILN_SHARD: shard {shard}: at most 100000 shards (as `kiln plan --shards`)"
            )),
            "{}",
            stderr(&o)
        );
    }
    let o = kiln(&["plan", "r.yaml", "--shards", "100001"], &dir);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("100001 is not in 1..=100000"),
        "{}",
        stderr(&o)
    );
    // The bound itself is a shard count like any other: a recipe of one
    // job puts it in shard 1, and shard 100000 of 100000 is empty.
    let plan = kiln::plan(
        &[kiln::Recipe::load(&dir.join("r.yaml")).unwrap()],
        kiln::MAX_SHARDS,
    )
    .unwrap();
    assert_eq!(plan.len(), 1);
    assert_eq!(plan[0].shard, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_models_textures_share_one_allowance_and_one_over_it_is_the_checker() {
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/model/kiln/beacon.rsm");
    let texture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/texture/kiln/sail.bmp");
    let dir = tempdir("budget-model");
    // stone.bmp (32², 4 KiB decoded) fits in 10 KiB; sail.bmp (32×64,
    // 8 KiB) does not fit beside it, so it is drawn as the checker.
    let o = kiln(
        &["inspect", model.to_str().unwrap(), "--memory-limit", "10K"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(&format!(
            "texture \"kiln\\sail.bmp\" could not be read ({}: dimensions at byte 18 (0x12): \
             32×64 texels need 8 KiB in memory beside the 4 KiB already decoded, more than the \
             memory limit of 10 KiB (raise it with --memory-limit)); drawing a checker",
            texture.display()
        )),
        "{text}"
    );
    assert!(text.contains("kiln\\sail.bmp  found"), "{text}");
    // At 12 KiB both fit.
    let o = kiln(
        &["inspect", model.to_str().unwrap(), "--memory-limit", "12K"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("could not be read"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
