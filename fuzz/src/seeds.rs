//! Seed inputs for every target, made by kiln's own writers: the sample
//! models, textures and maps, the test fixtures of every version, archives
//! written with kiln's archive writers, and codec streams from kiln's
//! compressors. (`src/bin/seeds.rs` adds the files of a corpus folder.)

use kiln::archives::{
    lzss, write_dat, write_grf, write_pbo, DatVersion, GrfVersion, WriteOptions, FLAG_HEADER,
    FLAG_MIXED,
};
use kiln::internals::formats::arma::{p3d, rtm};
use kiln::internals::formats::sprite::{
    act, spr, Act, Action, Anchor, Frame, IndexedImage, Layer, RgbaImage, Spr,
};
use kiln::internals::formats::texture::{dxt, encode_bmp24, encode_bmp8, encode_tga32, paa};
use kiln::internals::formats::{gnd, grimrock, lzo, rsm, rsw};
use kiln::internals::samples;

/// kiln's synthetic files of every version (the test fixtures, shared).
mod fixtures {
    pub mod rsm {
        use kiln::internals::formats::rsm::*;
        include!("../../tests/fixtures/rsm.rs");
    }
    pub mod rsw {
        use kiln::internals::formats::rsw::*;
        include!("../../tests/fixtures/rsw.rs");
    }
    pub mod grimrock {
        use kiln::internals::formats::grimrock::*;
        include!("../../tests/fixtures/grimrock.rs");
    }
}

/// One seed: the target it is for, a file name, its bytes.
pub type Seed = (&'static str, String, Vec<u8>);

/// Every kiln-made seed.
pub fn kiln_seeds() -> Vec<Seed> {
    let mut out: Vec<Seed> = Vec::new();
    let mut add = |target: &'static str, name: &str, bytes: Vec<u8>| {
        out.push((target, format!("kiln-{name}"), bytes));
    };

    // The shipped samples, by what they are.
    for f in samples::all() {
        let name = f.path.rsplit('/').next().unwrap_or(f.path).to_string();
        let ext = name.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
        let target = match ext.as_str() {
            "rsm" | "rsm2" => "rsm",
            "rsw" => "rsw",
            "gnd" => "gnd",
            "model" => "grimrock_model",
            "animation" => "grimrock_anim",
            "lua" => "lua",
            "p3d" => "p3d",
            "rtm" => "rtm",
            "cfg" => "cfg",
            "bmp" => "bmp",
            "tga" => "tga",
            _ => continue,
        };
        // The village ground is 190 KB: the small grounds below cover it.
        if f.bytes.len() <= 64 << 10 {
            add(target, &name, f.bytes.clone());
            add("inspect", &name, f.bytes);
        }
    }

    for (major, minor) in fixtures::rsm::VERSIONS {
        add(
            "rsm",
            &format!("fixture-{major}.{minor}.rsm"),
            rsm::write(&fixtures::rsm::model(major, minor)),
        );
    }
    for (major, minor, build) in fixtures::rsw::VERSIONS {
        let layout = rsw::Layout::expected(major, minor, build);
        let bytes = rsw::write(&fixtures::rsw::map(major, minor, build, layout));
        let name = format!("fixture-{major}.{minor}-{}.rsw", build.unwrap_or(0));
        add("rsw", &name, bytes);
    }
    let (small_rsw, small_gnd) = samples::map::big_map(3, 2, 2);
    add("rsw", "small.rsw", rsw::write(&small_rsw));
    add("inspect", "small.rsw", rsw::write(&small_rsw));
    for minor in [7u8, 8, 9] {
        let mut g = small_gnd.clone();
        g.minor = minor;
        add("gnd", &format!("small-1.{minor}.gnd"), gnd::write(&g));
    }
    add("inspect", "small.gnd", gnd::write(&small_gnd));

    add(
        "grimrock_model",
        "fixture.model",
        grimrock::write_model(&fixtures::grimrock::model()),
    );
    for v in [1, 2] {
        add(
            "grimrock_anim",
            &format!("fixture-v{v}.animation"),
            grimrock::write_animation(&fixtures::grimrock::animation(v)),
        );
    }
    add("lua", "small.lua", SMALL_LUA.as_bytes().to_vec());

    add("p3d", "lever.p3d", p3d::write(&samples::arma::lever()));
    let plain = samples::arma::swing_plain();
    add("rtm", "swing-plain.rtm", rtm::write_plain(&plain));
    for v in [3, 4, 5] {
        add(
            "rtm",
            &format!("swing-bmtr-v{v}.rtm"),
            rtm::write_bmtr(&samples::arma::swing_bmtr(), v),
        );
        add(
            "rtm",
            &format!("wide-bmtr-v{v}-lzo.rtm"),
            rtm::write_bmtr(&wide_bmtr(), v),
        );
    }
    add(
        "inspect",
        "wide-bmtr-lzo.rtm",
        rtm::write_bmtr(&wide_bmtr(), 4),
    );

    for (major, minor) in [(1, 0), (1, 1), (2, 0), (2, 1)] {
        let bytes = spr::write(&spr_of(major, minor)).unwrap_or_default();
        add("spr", &format!("v{major}.{minor}.spr"), bytes.clone());
        add("inspect", &format!("v{major}.{minor}.spr"), bytes);
    }
    for minor in 0..=5u8 {
        if let Ok(bytes) = act::write(&act_of(2, minor)) {
            add("act", &format!("v2.{minor}.act"), bytes.clone());
            add("inspect", &format!("v2.{minor}.act"), bytes);
        }
    }

    textures(&mut add);
    codecs(&mut add);
    archives(&mut add);
    loads(&mut add);
    out
}

const SMALL_LUA: &str = r#"-- materials, with the forms modders use
local root = "mod_assets/textures/"
defineMaterial{
    name = "kiln_small",
    diffuseMap = root .. "small_dif.tga",
    specularMap = "mod_assets/textures/small_spec.tga",
    doubleSided = true, lighting = false, alphaTest = true,
    blendMode = "Translucent", textureAddressMode = "Wrap",
    glossiness = 20.5, depthBias = 0,
    onUpdate = function(self, time) self:setParam("x", time) end,
}
defineMaterial({ name = 'quoted\'name', diffuseMap = [[mod_assets/x.dds]], list = { 1, 2, 0x1f, -3e2, { nested = nil } } })
if false then defineMaterial{ name = "never" } end
defineObject{ name = "thing", components = { { class = "Model", model = "mod_assets/models/x.model" } } }
--[[ a long
comment ]] defineMaterial{ name = "after_comment" }
"#;

/// A BMTR whose key arrays pass LZO's 1,024-byte threshold: 80 bones.
fn wide_bmtr() -> rtm::Bmtr {
    let mut b = samples::arma::swing_bmtr();
    let key = b.frames[0][1];
    b.bones = (0..80).map(|i| format!("bone{i}")).collect();
    for f in &mut b.frames {
        *f = vec![key; 80];
    }
    b
}

fn spr_of(major: u8, minor: u8) -> Spr {
    let indexed = vec![
        IndexedImage {
            width: 3,
            height: 2,
            pixels: vec![0, 5, 0, 0, 0, 9],
        },
        IndexedImage {
            width: 20,
            height: 14,
            pixels: (0..280).map(|i| if i % 97 == 0 { 7 } else { 0 }).collect(),
        },
    ];
    let rgba = if major >= 2 {
        vec![RgbaImage {
            width: 2,
            height: 2,
            pixels: vec![255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 10, 20, 30, 40],
        }]
    } else {
        Vec::new()
    };
    Spr {
        major,
        minor,
        indexed,
        rgba,
        palette: ((major, minor) >= (1, 1))
            .then(|| (0..=255u8).map(|i| [i, 255 - i, i / 2, 0]).collect()),
        gap: Vec::new(),
    }
}

fn act_of(major: u8, minor: u8) -> Act {
    let v = (major, minor);
    let layer = |i: i32| Layer {
        x: i * 3 - 4,
        y: -i,
        image: i % 2,
        mirror: i % 2,
        tint: if v >= (2, 0) {
            [255, 200, 100, 255]
        } else {
            [255; 4]
        },
        scale: if v >= (2, 4) {
            [1.5, 0.5]
        } else if v >= (2, 0) {
            [1.5, 1.5]
        } else {
            [1.0, 1.0]
        },
        rotation: if v >= (2, 0) { 90 } else { 0 },
        kind: 0,
        size: (v >= (2, 5)).then_some([12, 34]),
    };
    let frames = (0..3)
        .map(|f| Frame {
            unknown: [0; 32],
            layers: vec![layer(f), layer(f + 1)],
            event: if v >= (2, 1) && f == 1 { 0 } else { -1 },
            anchors: if v >= (2, 3) {
                vec![Anchor {
                    unknown: [0; 4],
                    x: 5,
                    y: -30,
                    attribute: f,
                }]
            } else {
                Vec::new()
            },
        })
        .collect();
    let mut atk = [0u8; 40];
    atk[..3].copy_from_slice(b"atk");
    Act {
        major,
        minor,
        reserved: [0; 10],
        actions: vec![Action { frames }, Action { frames: Vec::new() }],
        events: if v >= (2, 1) { vec![atk] } else { Vec::new() },
        intervals: if v >= (2, 2) {
            vec![4.0, 2.5]
        } else {
            Vec::new()
        },
    }
}

/// A small picture with transparent, magenta and opaque texels.
fn texels(w: u32, h: u32) -> Vec<[u8; 4]> {
    (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            match (x + y) % 4 {
                0 => [255, 0, 255, 255],
                1 => [x as u8 * 30, y as u8 * 30, 90, 255],
                2 => [10, 200, 30, 128],
                _ => [0, 0, 0, 0],
            }
        })
        .collect()
}

fn textures(add: &mut impl FnMut(&'static str, &str, Vec<u8>)) {
    let (w, h) = (7, 5);
    let px = texels(w, h);
    let palette: Vec<[u8; 3]> = (0..=255u8).map(|i| [i, 255 - i, i ^ 0x5a]).collect();
    let indices: Vec<u8> = (0..w * h).map(|i| (i * 37 % 256) as u8).collect();
    let rgb: Vec<[u8; 3]> = px.iter().map(|p| [p[0], p[1], p[2]]).collect();
    add(
        "bmp",
        "small-8bit.bmp",
        encode_bmp8(w, h, &palette, &indices),
    );
    add("bmp", "small-24bit.bmp", encode_bmp24(w, h, &rgb));
    add("tga", "small-32bit.tga", encode_tga32(w, h, &px, false));
    add("tga", "small-32bit-rle.tga", encode_tga32(w, h, &px, true));
    add("inspect", "small-rle.tga", encode_tga32(w, h, &px, true));

    for format in [
        paa::PaaFormat::Dxt1,
        paa::PaaFormat::Dxt2,
        paa::PaaFormat::Dxt3,
        paa::PaaFormat::Dxt4,
        paa::PaaFormat::Dxt5,
        paa::PaaFormat::Argb4444,
        paa::PaaFormat::Argb1555,
        paa::PaaFormat::Argb8888,
        paa::PaaFormat::Ai88,
    ] {
        let bytes = paa::encode_paa(format, 8, 8, &texels(8, 8));
        add("paa", &format!("{format:?}.paa"), bytes.clone());
        add("inspect", &format!("{format:?}.paa"), bytes);
    }

    for (fourcc, format) in [
        (*b"DXT1", dxt::Dxt::Bc1),
        (*b"DXT3", dxt::Dxt::Bc2),
        (*b"DXT5", dxt::Dxt::Bc3),
    ] {
        let name = String::from_utf8_lossy(&fourcc).into_owned();
        add(
            "dds",
            &format!("{name}-mips.dds"),
            dds_blocks(fourcc, format, 8, 4),
        );
        add(
            "dds",
            &format!("{name}-odd.dds"),
            dds_blocks(fourcc, format, 6, 3),
        );
    }
    add("dds", "rgba32-mips.dds", dds_rgba(8, 4));
    add("dds", "dx10-bc3.dds", dds_dx10(77, dxt::Dxt::Bc3, 4, 4));
    add(
        "inspect",
        "DXT5-mips.dds",
        dds_blocks(*b"DXT5", dxt::Dxt::Bc3, 8, 4),
    );

    for (name, bytes) in pngs() {
        add("png", &name, bytes.clone());
        add("inspect", &name, bytes);
    }
}

const DDPF_ALPHAPIXELS: u32 = 0x1;
const DDPF_FOURCC: u32 = 0x4;
const DDPF_RGB: u32 = 0x40;

/// A DDS header (magic included) for a `w`×`h` top level and `mips` levels.
fn dds_header(
    w: u32,
    h: u32,
    mips: u32,
    pf_flags: u32,
    fourcc: [u8; 4],
    bits: u32,
    masks: [u32; 4],
) -> Vec<u8> {
    let mut v = b"DDS ".to_vec();
    for x in [124u32, 0x2_1007, h, w, 0, 0, mips] {
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.extend_from_slice(&[0; 44]);
    v.extend_from_slice(&32u32.to_le_bytes());
    v.extend_from_slice(&pf_flags.to_le_bytes());
    v.extend_from_slice(&fourcc);
    v.extend_from_slice(&bits.to_le_bytes());
    for m in masks {
        v.extend_from_slice(&m.to_le_bytes());
    }
    v.extend_from_slice(&0x40_1008u32.to_le_bytes());
    v.extend_from_slice(&[0; 16]);
    v
}

/// The sides of every level down to 1×1.
fn chain(w: u32, h: u32) -> Vec<(u32, u32)> {
    let mut out = vec![(w, h)];
    let (mut w, mut h) = (w, h);
    while w > 1 || h > 1 {
        w = (w / 2).max(1);
        h = (h / 2).max(1);
        out.push((w, h));
    }
    out
}

fn dds_blocks(fourcc: [u8; 4], format: dxt::Dxt, w: u32, h: u32) -> Vec<u8> {
    let levels = chain(w, h);
    let mut v = dds_header(w, h, levels.len() as u32, DDPF_FOURCC, fourcc, 0, [0; 4]);
    for (lw, lh) in levels {
        v.extend(dxt::encode(format, lw, lh, &texels(lw, lh)));
    }
    v
}

fn dds_dx10(dxgi: u32, format: dxt::Dxt, w: u32, h: u32) -> Vec<u8> {
    let mut v = dds_header(w, h, 1, DDPF_FOURCC, *b"DX10", 0, [0; 4]);
    for x in [dxgi, 3, 0, 1, 0] {
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.extend(dxt::encode(format, w, h, &texels(w, h)));
    v
}

fn dds_rgba(w: u32, h: u32) -> Vec<u8> {
    let levels = chain(w, h);
    let masks = [0x00ff_0000, 0x0000_ff00, 0x0000_00ff, 0xff00_0000];
    let mut v = dds_header(
        w,
        h,
        levels.len() as u32,
        DDPF_RGB | DDPF_ALPHAPIXELS,
        [0; 4],
        32,
        masks,
    );
    for (lw, lh) in levels {
        for p in texels(lw, lh) {
            v.extend_from_slice(&[p[2], p[1], p[0], p[3]]);
        }
    }
    v
}

/// PNGs of every colour type and several depths the decoder meets.
fn pngs() -> Vec<(String, Vec<u8>)> {
    use png::{BitDepth, ColorType};
    let (w, h) = (5u32, 3u32);
    let mut out = Vec::new();
    // Colour type, depth, bits per pixel.
    let kinds: [(ColorType, BitDepth, u32); 7] = [
        (ColorType::Rgba, BitDepth::Eight, 32),
        (ColorType::Rgb, BitDepth::Eight, 24),
        (ColorType::Grayscale, BitDepth::Eight, 8),
        (ColorType::GrayscaleAlpha, BitDepth::Eight, 16),
        (ColorType::Indexed, BitDepth::Eight, 8),
        (ColorType::Rgba, BitDepth::Sixteen, 64),
        (ColorType::Grayscale, BitDepth::Four, 4),
    ];
    for (color, depth, bits) in kinds {
        let mut bytes = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut bytes, w, h);
            enc.set_color(color);
            enc.set_depth(depth);
            if color == ColorType::Indexed {
                enc.set_palette(
                    (0..=255u8)
                        .flat_map(|i| [i, 255 - i, i / 3])
                        .collect::<Vec<_>>(),
                );
                enc.set_trns(vec![0u8, 128]);
            }
            let row = (w * bits).div_ceil(8) as usize;
            let data: Vec<u8> = (0..row * h as usize)
                .map(|i| (i * 29 % 251) as u8)
                .collect();
            let Ok(mut writer) = enc.write_header() else {
                continue;
            };
            if writer.write_image_data(&data).is_err() {
                continue;
            }
        }
        out.push((format!("{color:?}-{}.png", depth as u8), bytes));
    }
    out
}

/// Bytes the codecs see: a texture, a model, runs, and noise.
fn payloads() -> Vec<(&'static str, Vec<u8>)> {
    let noise: Vec<u8> = (0..600u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    vec![
        ("empty", Vec::new()),
        ("byte", vec![42]),
        ("run", vec![b'a'; 700]),
        ("text", SMALL_LUA.as_bytes().to_vec()),
        (
            "model",
            grimrock::write_animation(&fixtures::grimrock::animation(1)),
        ),
        ("noise", noise),
    ]
}

fn with_size(n: usize, stream: Vec<u8>) -> Vec<u8> {
    let mut v = (n as u32).to_le_bytes().to_vec();
    v.extend(stream);
    v
}

fn codecs(add: &mut impl FnMut(&'static str, &str, Vec<u8>)) {
    for (name, data) in payloads() {
        add(
            "lzo",
            &format!("{name}.lzo"),
            with_size(data.len(), lzo::compress(&data)),
        );
        add(
            "lzo",
            &format!("{name}-literal.lzo"),
            with_size(data.len(), lzo::compress_literal(&data)),
        );
        for signed in [false, true] {
            add(
                "lzss",
                &format!("{name}-{}.lzss", if signed { "signed" } else { "unsigned" }),
                with_size(data.len(), lzss::compress(&data, signed)),
            );
        }
        // DES: the entry size picks the cycle; whole blocks only.
        let mut body = data.clone();
        body.truncate(data.len() / 8 * 8);
        add(
            "des",
            &format!("{name}.des"),
            with_size(body.len(), body.clone()),
        );
        add("des", &format!("{name}-big.des"), with_size(123_456, body));
    }
}

fn archives(add: &mut impl FnMut(&'static str, &str, Vec<u8>)) {
    let wood = samples::rsm::wood_texture();
    let model = rsm::write(&samples::rsm::beacon());
    let lua = SMALL_LUA.as_bytes();
    let plain = WriteOptions {
        compress: false,
        encryption: 0,
    };
    let zlib = WriteOptions::default();
    let mixed = WriteOptions {
        compress: true,
        encryption: FLAG_MIXED,
    };
    let header = WriteOptions {
        compress: true,
        encryption: FLAG_HEADER,
    };
    for version in [
        GrfVersion::V102,
        GrfVersion::V103,
        GrfVersion::V200,
        GrfVersion::V300,
    ] {
        let bytes = write_grf(
            version,
            &[
                (
                    b"data\\model\\kiln\\beacon.rsm".as_slice(),
                    model.as_slice(),
                    zlib,
                ),
                (b"data\\texture\\kiln\\wood.bmp", wood.as_slice(), mixed),
                (b"data\\readme.txt", lua, plain),
                (b"data\\sub\\header.gnd", lua, header),
                (b"data\\\xb1\xe2\xba\xbb.txt", b"cp949", plain),
            ],
        );
        let name = format!("v{:x}.grf", version.number());
        add("grf", &name, bytes.clone());
        add("inspect", &name, bytes);
    }
    let pbo = write_pbo(
        &[("prefix", "kiln\\fuzz"), ("version", "1")],
        &[
            (
                b"model.cfg".as_slice(),
                samples::arma::MODEL_CFG.as_bytes(),
                false,
            ),
            (
                b"data\\lever_co.tga",
                samples::arma::lever_texture().as_slice(),
                true,
            ),
            (b"anim\\swing.rtm", lua, true),
        ],
    );
    add("pbo", "addon.pbo", pbo.clone());
    add("inspect", "addon.pbo", pbo);
    add(
        "pbo",
        "mission.pbo",
        write_pbo(
            &[],
            &[(
                b"mission.sqm".as_slice(),
                b"class Mission {};".as_slice(),
                false,
            )],
        ),
    );
    for version in [DatVersion::Grar, DatVersion::Gra2] {
        let bytes = write_dat(
            version,
            &[
                ("mod_assets/scripts/materials.lua", lua, true),
                ("mod_assets/textures/wood.bmp", wood.as_slice(), false),
                ("mod_assets/models/beacon.rsm", model.as_slice(), true),
            ],
        );
        let name = format!("{version:?}.dat");
        add("dat", &name, bytes.clone());
        add("inspect", &name, bytes);
    }
}

/// `load` inputs: a model, its animation, and the files it looks for.
fn loads(add: &mut impl FnMut(&'static str, &str, Vec<u8>)) {
    let sep = crate::load::SEPARATOR;
    let bundle = |model: Vec<u8>, anim: Vec<u8>, files: &[(&str, Vec<u8>)]| {
        let mut v = model;
        v.extend_from_slice(sep);
        v.extend(anim);
        for (path, bytes) in files {
            v.extend_from_slice(sep);
            v.extend_from_slice(path.as_bytes());
            v.push(0);
            v.extend_from_slice(bytes);
        }
        v
    };
    add(
        "load",
        "beacon",
        bundle(
            rsm::write(&samples::rsm::beacon()),
            Vec::new(),
            &[
                ("data/texture/kiln/wood.bmp", samples::rsm::wood_texture()),
                (
                    "data/texture/kiln/banner.tga",
                    samples::rsm::banner_texture(),
                ),
            ],
        ),
    );
    let (rsw_map, gnd_map) = samples::map::big_map(4, 3, 3);
    add(
        "map",
        "small-map",
        bundle(
            rsw::write(&rsw_map),
            gnd::write(&gnd_map),
            &[
                (
                    "data/model/kiln/beacon.rsm",
                    rsm::write(&samples::rsm::beacon()),
                ),
                ("data/texture/kiln/wood.bmp", samples::rsm::wood_texture()),
            ],
        ),
    );
    let (mut rsw_v, gnd_v) = samples::map::big_map(2, 2, 1);
    rsw_v.water = None;
    add(
        "map",
        "tiny-map",
        bundle(rsw::write(&rsw_v), gnd::write(&gnd_v), &[]),
    );
    add(
        "load",
        "rsm2-fixture",
        bundle(rsm::write(&fixtures::rsm::model(2, 3)), Vec::new(), &[]),
    );
    add(
        "load",
        "rsm14-fixture",
        bundle(rsm::write(&fixtures::rsm::model(1, 4)), Vec::new(), &[]),
    );
    add(
        "load",
        "tentacle",
        bundle(
            grimrock::write_model(&samples::grimrock::tentacle()),
            grimrock::write_animation(&samples::grimrock::tentacle_wave()),
            &[
                (
                    "mod_assets/models/kiln_materials.lua",
                    samples::grimrock::MATERIALS_LUA.as_bytes().to_vec(),
                ),
                (
                    "mod_assets/textures/kiln_tentacle.tga",
                    samples::grimrock::tentacle_texture(),
                ),
            ],
        ),
    );
    add(
        "load",
        "grimrock-fixture",
        bundle(
            grimrock::write_model(&fixtures::grimrock::model()),
            grimrock::write_animation(&fixtures::grimrock::animation(2)),
            &[],
        ),
    );
    for (name, anim) in [
        (
            "lever-plain",
            rtm::write_plain(&samples::arma::swing_plain()),
        ),
        (
            "lever-bmtr",
            rtm::write_bmtr(&samples::arma::swing_bmtr(), 4),
        ),
    ] {
        add(
            "load",
            name,
            bundle(
                p3d::write(&samples::arma::lever()),
                anim,
                &[
                    (
                        "kiln_lever/model.cfg",
                        samples::arma::MODEL_CFG.as_bytes().to_vec(),
                    ),
                    (
                        "kiln/lever_co.paa",
                        paa::encode_paa(paa::PaaFormat::Dxt1, 4, 4, &texels(4, 4)),
                    ),
                ],
            ),
        );
    }
}
