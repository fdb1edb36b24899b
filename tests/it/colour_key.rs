//! The Ragnarok colour key on textures whose cut-outs an artist softened
//! against magenta: no pink may be drawn, at any size or antialiasing, and
//! a texture whose only near-magenta texels are pure magenta decodes as
//! the plain key decodes it.

use crate::common;

use glam::Vec3;
use image::RgbaImage;
use kiln::internals::formats::rsm::{self, Face, Rsm, RsmNode, TexCoord};
use kiln::internals::formats::texture::{self, encode_bmp24};
use kiln::{Model, ModelSpec, ViewSpec};
use std::path::Path;

const SIDE: u32 = 64;
const LEAF: [u8; 3] = [40, 120, 30];
const KEY: [u8; 3] = [255, 0, 255];
/// Texels a held-out client tree holds along its leaves' edges, and a
/// 15 % blend of the leaf over the key: all outside r ≥ 224, g < 32,
/// b ≥ 224, so the three-bits rule leaves them opaque.
const SOFT: [[u8; 3]; 4] = [
    [225, 5, 222],
    [237, 28, 216],
    [238, 32, 228],
    [223, 18, 221],
];

/// A leaf disc on magenta: solid inside, a half blend with the key, then a
/// ring of soft texels one texel wide, then the key.
fn leaf_texels() -> Vec<[u8; 3]> {
    let c = (SIDE as f32 - 1.0) / 2.0;
    (0..SIDE * SIDE)
        .map(|i| {
            let (x, y) = ((i % SIDE) as f32, (i / SIDE) as f32);
            let r = ((x - c).powi(2) + (y - c).powi(2)).sqrt();
            if r < 18.0 {
                LEAF
            } else if r < 19.0 {
                [148, 60, 143]
            } else if r < 20.0 {
                SOFT[(i as usize * 7) % SOFT.len()]
            } else {
                KEY
            }
        })
        .collect()
}

/// A one-node RSM 1.4, unlit, one quad facing the camera holding the
/// texture end to end.
fn quad_model() -> Rsm {
    let mut n = RsmNode::new(b"leaf", b"");
    n.vertices = vec![
        Vec3::new(-1.0, -1.0, 0.0),
        Vec3::new(1.0, -1.0, 0.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(-1.0, 1.0, 0.0),
    ];
    let tc = |u: f32, v: f32| TexCoord {
        color: 0xFFFF_FFFF,
        u,
        v,
    };
    n.tex_coords = vec![tc(0.0, 0.0), tc(1.0, 0.0), tc(1.0, 1.0), tc(0.0, 1.0)];
    let face = |v: [u16; 3]| Face {
        vertex_ids: v,
        tex_coord_ids: v,
        texture_id: 0,
        padding: 0,
        two_side: 1,
        smooth_groups: vec![0],
    };
    n.faces = vec![face([0, 1, 2]), face([0, 2, 3])];
    n.texture_ids = vec![0];
    Rsm {
        shade_type: 0,
        textures: vec![b"soft_leaf.bmp".to_vec()],
        nodes: vec![n],
        ..Rsm::new(1, 4)
    }
}

fn near_magenta(img: &RgbaImage) -> usize {
    img.pixels()
        .filter(|p| p[3] > 0 && p[0] >= 200 && p[1] <= 60 && p[2] >= 200)
        .count()
}

/// Writes the model and its texture as a client's data folder holds them
/// (kept after the test, to measure other builds against).
fn write_files(dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("data/model")).unwrap();
    std::fs::create_dir_all(dir.join("data/texture")).unwrap();
    std::fs::write(
        dir.join("data/texture/soft_leaf.bmp"),
        encode_bmp24(SIDE, SIDE, &leaf_texels()),
    )
    .unwrap();
    let model = dir.join("data/model/soft_leaf.rsm");
    std::fs::write(&model, rsm::write(&quad_model())).unwrap();
    model
}

#[test]
fn soft_magenta_edges_draw_no_pink_at_any_size_or_antialiasing() {
    let dir = common::tempdir("soft-colour-key");
    let model = Model::load(&ModelSpec::new(write_files(&dir))).unwrap();
    assert!(
        model.warnings().is_empty(),
        "texture not found: {:?}",
        model.warnings()
    );
    for (size, aa) in [(1024, 1), (1024, 2), (1024, 4), (256, 1)] {
        let view = ViewSpec {
            width: size,
            height: size,
            pitch: 0.0,
            antialias: aa,
            ..ViewSpec::default()
        };
        let img = model.render(0.0, 0.0, &view).unwrap().image;
        assert_eq!(near_magenta(&img), 0, "{size}² at antialias {aa}");
        // The leaf's opaque texels keep their colour, unlit.
        let mid = img.get_pixel(size / 2, size / 2).0;
        assert!(
            mid[3] == 255 && (0..3).all(|c| mid[c].abs_diff(LEAF[c]) <= 2),
            "centre {mid:?} at {size}² antialias {aa}"
        );
        let leafy = img
            .pixels()
            .filter(|p| p[3] == 255 && (0..3).all(|c| p[c].abs_diff(LEAF[c]) <= 2))
            .count();
        // A disc of radius 18 of 64 texels across the frame's fitted quad.
        assert!(
            leafy as f32 > 0.15 * (size * size) as f32,
            "{leafy} leaf pixels at {size}² antialias {aa}"
        );
    }
}

/// An evaluator of the plain three-bits key, sharing nothing with kiln's:
/// transparent black inside r ≥ 224, g < 32, b ≥ 224, opaque elsewhere.
fn plain_key(rgb: [u8; 3]) -> [u8; 4] {
    if rgb[0] >= 224 && rgb[1] < 32 && rgb[2] >= 224 {
        [0, 0, 0, 0]
    } else {
        [rgb[0], rgb[1], rgb[2], 255]
    }
}

/// Decodes a 24-bit or 8-bit BMP's texels, top row first, as straight RGB.
fn bmp_rgb(data: &[u8]) -> Option<(u32, u32, Vec<[u8; 3]>)> {
    let u32_at = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().unwrap());
    let offset = u32_at(10) as usize;
    let w = u32_at(18);
    let h = i32::from_le_bytes(data[22..26].try_into().unwrap());
    let bits = u16::from_le_bytes([data[28], data[29]]);
    let compression = u32_at(30);
    if compression != 0 || !(bits == 8 || bits == 24) {
        return None;
    }
    let header = u32_at(14) as usize;
    let colours = match u32_at(46) {
        0 if bits == 8 => 256,
        n => n as usize,
    };
    let palette: Vec<[u8; 3]> = (0..colours)
        .map(|i| {
            let p = 14 + header + 4 * i;
            [data[p + 2], data[p + 1], data[p]]
        })
        .collect();
    let stride = (w as usize * bits as usize).div_ceil(32) * 4;
    let rows = h.unsigned_abs();
    let mut out = Vec::with_capacity((w * rows) as usize);
    for y in 0..rows {
        let stored = if h > 0 { rows - 1 - y } else { y } as usize;
        let row = &data[offset + stored * stride..];
        for x in 0..w as usize {
            out.push(if bits == 8 {
                palette[row[x] as usize]
            } else {
                [row[3 * x + 2], row[3 * x + 1], row[3 * x]]
            });
        }
    }
    Some((w, rows, out))
}

/// Every corpus BMP whose only texels near the key are pure magenta
/// decodes exactly as the plain key decodes it; the others are listed.
#[test]
fn corpus_bmps_keyed_only_with_pure_magenta_do_not_change() {
    let Some(ro) = common::corpus("ro") else {
        return;
    };
    let mut files = Vec::new();
    let mut stack = vec![ro];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("bmp")) {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut checked = 0;
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let Some((w, h, rgb)) = bmp_rgb(&data) else {
            eprintln!(
                "{}: not an uncompressed 8/24-bit BMP, not compared",
                f.display()
            );
            continue;
        };
        let t = texture::decode(&data, f).unwrap();
        assert_eq!((t.width, t.height), (w, h), "{}", f.display());
        let distance = |c: [u8; 3]| (255 - c[0]).max(c[1]).max(255 - c[2]);
        let only_pure = rgb.iter().all(|&c| c == KEY || distance(c) >= 96);
        let expected: Vec<[u8; 4]> = rgb.iter().map(|&c| plain_key(c)).collect();
        if only_pure {
            assert!(t.texels == expected, "{} changed", f.display());
            checked += 1;
        } else {
            eprintln!("{}: holds soft-edge texels", f.display());
        }
    }
    assert!(checked >= 3, "{checked} of {} BMPs compared", files.len());
}
