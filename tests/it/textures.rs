//! Texture decoding, writing and lookup against the real corpus and
//! synthetic edge cases.

use crate::common;

use kiln::internals::formats::ragnarok::{model_texture, LoadedTexture};
use kiln::internals::formats::texture::{self, encode_bmp24, encode_bmp8, encode_tga32};
use kiln::internals::source::{Layout, Lookup, Tree};
use kiln::internals::texture::{Texture, TextureAlpha};
use std::path::{Path, PathBuf};

/// The corpus folder this file reads, or `None` after the skip line.
fn corpus() -> Option<PathBuf> {
    common::corpus("")
}

fn load(rel: &str) -> Option<Texture> {
    let path = corpus()?.join(rel);
    let bytes = std::fs::read(&path).unwrap();
    Some(texture::decode(&bytes, &path).unwrap_or_else(|e| panic!("{e}")))
}

fn at(t: &Texture, x: u32, y: u32) -> [u8; 4] {
    t.texel(x, y).expect("inside")
}

// ---------------------------------------------------------------- corpus
//
// Every BMP and TGA here was also decoded with Pillow (then colour-keyed and
// premultiplied the same way): all texels agree exactly.

#[test]
fn browedit_error_01_is_opaque_24_bit() {
    let Some(t) = load("ro/Borf+BrowEdit3/data/texture/la_scifi/error_01.bmp") else {
        return;
    };
    assert_eq!((t.width, t.height, t.texels.len()), (128, 128, 16384));
    assert_eq!(t.alpha, TextureAlpha::Opaque);
    assert_eq!(t.name, "error_01.bmp");
    // Row 0 is the top: the file stores it last (bottom-up).
    assert_eq!(at(&t, 0, 0), [124, 114, 123, 255]);
    assert_eq!(at(&t, 0, 127), [91, 91, 91, 255]);
    assert_eq!(at(&t, 64, 64), [254, 106, 17, 255]);
    assert_eq!(at(&t, 5, 3), [145, 95, 61, 255]);
}

#[test]
fn goomba_magenta_is_keyed_to_transparent_black() {
    let Some(t) = load("ro/hurtsky+RO-Clientresources/data/texture/goomba/goomba_1.bmp") else {
        return;
    };
    assert_eq!((t.width, t.height), (1024, 1024));
    assert_eq!(t.alpha, TextureAlpha::ColorKey);
    assert_eq!(at(&t, 0, 0), [160, 72, 0, 255]);
    assert_eq!(at(&t, 0, 1023), [0, 0, 0, 0]);
    assert_eq!(at(&t, 1023, 1023), [0, 0, 0, 0]);
    let keyed = t.texels.iter().filter(|p| **p == [0, 0, 0, 0]).count();
    assert_eq!(keyed, 274_033);
    // No pink survives anywhere.
    assert!(t
        .texels
        .iter()
        .all(|p| !(p[0] > 247 && p[1] < 8 && p[2] > 247)));

    let Some(t2) = load("ro/hurtsky+RO-Clientresources/data/texture/goomba/goomba_2.bmp") else {
        return;
    };
    assert_eq!((t2.width, t2.height), (256, 256));
    assert_eq!(t2.alpha, TextureAlpha::Opaque);
    assert_eq!(at(&t2, 128, 128), [160, 72, 0, 255]);
}

#[test]
fn korangar_missing_bmp_32_bit_bitfields_alpha_is_honoured() {
    let Some(t) = load("ro/vE5li+korangar/korangar/archive/data/texture/model/missing.bmp") else {
        return;
    };
    assert_eq!((t.width, t.height), (128, 128));
    // V5 header, BI_BITFIELDS, alpha mask 0xff000000: white texels carry
    // alpha 0, everything else 255.
    assert_eq!(t.alpha, TextureAlpha::ColorKey);
    assert_eq!(at(&t, 0, 0), [0, 0, 0, 0]);
    assert_eq!(at(&t, 0, 127), [0, 157, 176, 255]);
    assert_eq!(at(&t, 5, 3), [0, 157, 176, 255]);
    assert_eq!(at(&t, 64, 64), [0, 0, 0, 255]);
    let clear = t.texels.iter().filter(|p| p[3] == 0).count();
    assert_eq!(clear, 4540);
}

#[test]
fn robrowser_tga_fixtures() {
    let Some(t) = load("ro/MrAntares+roBrowserLegacy/tests/fixtures/_test.24b.tga.bin") else {
        return;
    };
    assert_eq!((t.width, t.height), (32, 32));
    assert_eq!(t.alpha, TextureAlpha::Opaque);
    // Bottom-left origin: these two texels swap if the flip is wrong.
    assert_eq!(at(&t, 25, 4), [255, 253, 241, 255]);
    assert_eq!(at(&t, 25, 27), [48, 32, 78, 255]);
    assert_eq!(at(&t, 0, 0), [104, 122, 217, 255]);

    let Some(t) = load("ro/MrAntares+roBrowserLegacy/tests/fixtures/_test.32b.tga.bin") else {
        return;
    };
    assert_eq!((t.width, t.height), (32, 32));
    assert_eq!(t.alpha, TextureAlpha::Translucent);
    // Premultiplied: straight (234, 57, 214, 206) → (189, 46, 173, 206).
    assert_eq!(at(&t, 0, 0), [189, 46, 173, 206]);
    assert_eq!(at(&t, 27, 7), [237, 234, 222, 237]);
    assert_eq!(at(&t, 27, 24), [13, 2, 5, 35]);
}

#[test]
fn aste_trap_tgas_are_translucent() {
    type Texels = [((u32, u32), [u8; 4]); 3];
    let cases: [(&str, Texels); 3] = [
        (
            "aste_thorntrap.tga",
            [
                ((54, 73), [178, 243, 126, 255]),
                ((54, 54), [1, 1, 0, 21]),
                ((18, 8), [127, 210, 101, 255]),
            ],
        ),
        (
            "aste_anklesnare.tga",
            [
                ((57, 52), [255, 211, 91, 255]),
                ((57, 75), [1, 1, 0, 13]),
                ((64, 64), [1, 1, 0, 15]),
            ],
        ),
        (
            "aste_clusterbomb.tga",
            [
                ((76, 56), [94, 168, 231, 255]),
                ((76, 71), [0, 0, 0, 0]),
                ((64, 64), [7, 15, 27, 89]),
            ],
        ),
    ];
    for (file, texels) in cases {
        let Some(t) = load(&format!("ro/asteanya+Aste-Grf/data/texture/aste/{file}")) else {
            return;
        };
        assert_eq!((t.width, t.height), (128, 128), "{file}");
        assert_eq!(t.alpha, TextureAlpha::Translucent, "{file}");
        assert_eq!(at(&t, 0, 0), [0, 0, 0, 0], "{file}");
        for ((x, y), want) in texels {
            assert_eq!(at(&t, x, y), want, "{file} at {x},{y}");
        }
    }
}

#[test]
fn grimrock_dxt1_dds_top_mip() {
    let Some(t) = load(
        "grimrock/grimrock+eob1-waterdeep/mod_assets/plugins/skeleton_warrior_axe/textures/corrupt_great_axe_dif.dds",
    ) else {
        return;
    };
    // 128×128 DXT1 with 8 mips; only the top level is decoded. Pillow
    // decodes the same texels within 1 per channel (it truncates the 1/3,
    // 2/3 interpolation where kiln rounds).
    assert_eq!((t.width, t.height), (128, 128));
    assert_eq!(t.alpha, TextureAlpha::Opaque);
    assert_eq!(at(&t, 0, 0), [57, 60, 74, 255]);
    assert_eq!(at(&t, 64, 64), [8, 12, 16, 255]);
    assert_eq!(at(&t, 127, 127), [33, 36, 41, 255]);
    assert_eq!(at(&t, 10, 100), [8, 4, 0, 255]);
    assert_eq!(at(&t, 100, 10), [44, 25, 11, 255]);
}

// ---------------------------------------------------------------- lookup

/// The first texture name of an RSM 1.x file: 40-byte NUL-padded names
/// follow the 35-byte header and the i32 count.
fn rsm1_texture_name(model: &Path, index: usize) -> Vec<u8> {
    let data = std::fs::read(model).unwrap();
    let at = 4 + 2 + 4 + 4 + 1 + 16 + 4 + index * 40;
    let raw = &data[at..at + 40];
    raw[..raw.iter().position(|&b| b == 0).unwrap_or(40)].to_vec()
}

/// A model's texture as loading finds it: the folders `dirs` first, then
/// the model's own tree.
fn load_or_checker(dirs: &[PathBuf], model: &Path, raw: &[u8]) -> LoadedTexture {
    let lookup = Lookup::with_folders(dirs, &[]).unwrap();
    let tree = Tree::of_disk_file(model, Layout::RAGNAROK_MODEL);
    model_texture(&lookup, &tree, model, raw)
}

/// Where [`load_or_checker`] finds a texture.
fn resolve(dirs: &[PathBuf], model: &Path, raw: &[u8]) -> Option<PathBuf> {
    load_or_checker(dirs, model, raw).path
}

#[test]
fn resolves_the_corpus_models_own_textures() {
    let Some(c) = corpus() else { return };
    let ro = c.join("ro");
    let cases = [
        (
            "Borf+BrowEdit3/data/model/box_error_01.rsm",
            0,
            &b"la_scifi\\error_01.bmp"[..],
            "Borf+BrowEdit3/data/texture/la_scifi/error_01.bmp",
        ),
        (
            "hurtsky+RO-Clientresources/data/model/goomba/goomba_1.rsm",
            0,
            b"goomba\\goomba_1.bmp",
            "hurtsky+RO-Clientresources/data/texture/goomba/goomba_1.bmp",
        ),
        (
            "hurtsky+RO-Clientresources/data/model/goomba/goomba_1.rsm",
            1,
            b"goomba\\goomba_2.bmp",
            "hurtsky+RO-Clientresources/data/texture/goomba/goomba_2.bmp",
        ),
        (
            "vE5li+korangar/korangar/archive/data/model/missing.rsm",
            0,
            b"model\\missing.bmp",
            "vE5li+korangar/korangar/archive/data/texture/model/missing.bmp",
        ),
        // Korean model paths, stored on disk as Latin-1 mojibake of CP949.
        (
            "asteanya+Aste-Grf/data/model/event/3Â÷Æ®·¦_°¡½Ã01.rsm",
            0,
            b"aste\\aste_thorntrap.tga",
            "asteanya+Aste-Grf/data/texture/aste/aste_thorntrap.tga",
        ),
        (
            "asteanya+Aste-Grf/data/model/event/3Â÷Æ®·¦_Áö01.rsm",
            0,
            b"aste\\aste_clusterbomb.tga",
            "asteanya+Aste-Grf/data/texture/aste/aste_clusterbomb.tga",
        ),
        (
            "asteanya+Aste-Grf/data/model/¿ÜºÎ¼ÒÇ°/Æ®·¦01.rsm",
            0,
            b"aste\\aste_anklesnare.tga",
            "asteanya+Aste-Grf/data/texture/aste/aste_anklesnare.tga",
        ),
    ];
    for (model, index, want_name, want_path) in cases {
        let model = ro.join(model);
        let name = rsm1_texture_name(&model, index);
        assert_eq!(name, want_name, "{}", model.display());
        assert_eq!(
            resolve(&[], &model, &name),
            Some(ro.join(want_path)),
            "{}",
            model.display()
        );
        let loaded = load_or_checker(&[], &model, &name);
        assert_eq!(loaded.warning, None);
        assert_eq!(loaded.path, Some(ro.join(want_path)));
        assert_ne!(*loaded.image, Texture::checker());
    }

    // Any case, either slash.
    let model = ro.join("Borf+BrowEdit3/data/model/box_error_01.rsm");
    assert_eq!(
        resolve(&[], &model, b"LA_SciFi/ERROR_01.Bmp"),
        Some(ro.join("Borf+BrowEdit3/data/texture/la_scifi/error_01.bmp"))
    );
}

#[test]
fn missing_corpus_texture_gives_checker_and_warning() {
    let Some(c) = corpus() else { return };
    let model = c.join("ro/MrAntares+roBrowserLegacy/tests/fixtures/_test.rsm.bin");
    let name = rsm1_texture_name(&model, 0);
    assert_eq!(name, b"abyss\\abyss_j_07.bmp");
    assert_eq!(resolve(&[], &model, &name), None);
    let loaded = load_or_checker(&[], &model, &name);
    assert_eq!(loaded.path, None);
    assert_eq!(*loaded.image, Texture::checker());
    let w = loaded.warning.expect("warning");
    assert!(w.contains("abyss\\abyss_j_07.bmp"), "{w}");
    assert!(w.contains("not found"), "{w}");
    let slot = load_or_checker(&[], &model, &name).into_slot();
    assert_eq!(slot.name, "abyss\\abyss_j_07.bmp");
}

/// A scratch folder removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!("kiln-textures-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
    fn file(&self, rel: &Path, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tiny_bmp(v: u8) -> Vec<u8> {
    encode_bmp24(1, 1, &[[v, v, v]])
}

#[test]
fn search_dirs_come_first_then_the_models_data_folder_in_any_case() {
    let s = Scratch::new("order");
    let model = s.file(Path::new("Game/DATA/Model/sub/m.rsm"), b"");
    let in_data = s.file(Path::new("Game/DATA/TEXTURE/Walls/Brick.BMP"), &tiny_bmp(1));
    let extra = s.file(Path::new("extra/walls/brick.bmp"), &tiny_bmp(2));
    let extra_tex = s.file(
        Path::new("extra2/Texture/walls/only_here.bmp"),
        &tiny_bmp(3),
    );
    let extra_data = s.file(
        Path::new("extra3/data/texture/walls/deep.bmp"),
        &tiny_bmp(4),
    );
    let dirs = [s.0.join("extra"), s.0.join("extra2"), s.0.join("extra3")];
    // The search dirs answer first (a recipe's `data:` overrides the
    // model's own files), each as a texture folder, a data folder or a
    // client folder.
    assert_eq!(
        resolve(&dirs, &model, b"walls\\brick.bmp"),
        Some(extra.clone())
    );
    assert_eq!(
        resolve(&dirs, &model, b"walls\\only_here.bmp"),
        Some(extra_tex)
    );
    assert_eq!(resolve(&dirs, &model, b"WALLS\\DEEP.BMP"), Some(extra_data));
    // Then the model's own data/ folder, found in any case.
    assert_eq!(resolve(&[], &model, b"walls\\brick.bmp"), Some(in_data));
    // A model with no data/model/ above it only sees the search dirs and
    // its own folder.
    let loose = s.file(Path::new("loose/m.rsm"), b"");
    assert_eq!(resolve(&dirs, &loose, b"walls\\brick.bmp"), Some(extra));
    assert_eq!(resolve(&[], &loose, b"walls\\brick.bmp"), None);
    assert_eq!(resolve(&dirs, &loose, b"walls\\nowhere.bmp"), None);
    assert_eq!(resolve(&dirs, &loose, b""), None);
    // A directory is not a texture.
    assert_eq!(resolve(&dirs, &loose, b"walls"), None);
}

#[test]
fn several_case_variants_pick_the_bytewise_first_that_leads_to_a_file() {
    let s = Scratch::new("variants");
    let model = s.file(Path::new("data/model/m.rsm"), b"");
    s.file(Path::new("data/texture/b/X.bmp"), &tiny_bmp(1));
    let lower = s.file(Path::new("data/texture/b/x.bmp"), &tiny_bmp(2));
    let r = |raw: &[u8]| resolve(&[], &model, raw);
    // "X" (0x58) sorts before "x" (0x78).
    assert_eq!(r(b"b\\x.bmp"), Some(s.0.join("data/texture/b/X.bmp")));
    // "B" sorts first but holds no match, so the search backtracks into "b".
    s.file(Path::new("data/texture/B/other.bmp"), &tiny_bmp(3));
    assert_eq!(r(b"b\\X.BMP"), Some(s.0.join("data/texture/b/X.bmp")));
    std::fs::remove_file(s.0.join("data/texture/b/X.bmp")).unwrap();
    assert_eq!(r(b"B\\X.bmp"), Some(lower));
}

#[cfg(unix)]
#[test]
fn korean_names_match_raw_cp949_utf8_and_mojibake_spellings() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    // "트랩\몬스터.bmp" ("trap\monster.bmp") in CP949.
    let cp949_dir: &[u8] = &[0xc6, 0xae, 0xb7, 0xa6];
    let cp949_file: &[u8] = &[0xb8, 0xf3, 0xbd, 0xba, 0xc5, 0xcd, b'.', b'b', b'm', b'p'];
    assert_eq!(
        kiln::internals::text::decode_cp949(cp949_file),
        "몬스터.bmp"
    );
    let mut raw_name = cp949_dir.to_vec();
    raw_name.push(b'\\');
    raw_name.extend_from_slice(cp949_file);
    // The model names it in upper case; only ASCII folds.
    let raw_upper: Vec<u8> = raw_name.to_ascii_uppercase();

    for (tag, dir, file) in [
        (
            "raw",
            OsStr::from_bytes(cp949_dir),
            OsStr::from_bytes(cp949_file),
        ),
        ("utf8", OsStr::new("트랩"), OsStr::new("몬스터.bmp")),
        ("latin1", OsStr::new("Æ®·¦"), OsStr::new("¸ó½ºÅÍ.bmp")),
    ] {
        let s = Scratch::new(tag);
        let model = s.file(Path::new("data/model/m.rsm"), b"");
        let rel = Path::new("data/texture").join(dir).join(file);
        let want = s.file(&rel, &tiny_bmp(9));
        assert_eq!(resolve(&[], &model, &raw_name), Some(want.clone()), "{tag}");
        assert_eq!(
            resolve(&[], &model, &raw_upper),
            Some(want.clone()),
            "{tag}"
        );
        let loaded = load_or_checker(&[], &model, &raw_name);
        assert_eq!(loaded.name, "트랩\\몬스터.bmp");
        assert_eq!(loaded.image.texels, vec![[9, 9, 9, 255]], "{tag}");
    }
}

#[test]
fn unreadable_texture_gives_checker_with_path_and_warning() {
    let s = Scratch::new("broken");
    let model = s.file(Path::new("data/model/m.rsm"), b"");
    let bad = s.file(Path::new("data/texture/bad.bmp"), b"BM\x00\x00");
    let loaded = load_or_checker(&[], &model, b"bad.bmp");
    assert_eq!(loaded.path, Some(bad));
    assert_eq!(*loaded.image, Texture::checker());
    let w = loaded.warning.unwrap();
    assert!(w.contains("file_header.size"), "{w}");
}

// ---------------------------------------------------------------- writers

fn premul(p: [u8; 4]) -> [u8; 4] {
    let m = |c: u8| ((c as u32 * p[3] as u32 + 127) / 255) as u8;
    [m(p[0]), m(p[1]), m(p[2]), p[3]]
}

fn rle_mix_rgba(w: u32, h: u32) -> Vec<[u8; 4]> {
    // Runs, singles and a translucent column, so RLE uses both packet kinds.
    (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            match x % 7 {
                0..=3 => [200, 10, 10, 255],
                4 => [x as u8, y as u8, 77, 255],
                5 => [30, 60, 90, 128],
                _ => [255, 0, 255, 0],
            }
        })
        .collect()
}

#[test]
fn tga32_round_trips_raw_and_rle() {
    for (w, h) in [(1, 1), (7, 3), (300, 2), (131, 5)] {
        let rgba = rle_mix_rgba(w, h);
        let want: Vec<[u8; 4]> = rgba.iter().map(|&p| premul(p)).collect();
        let raw = encode_tga32(w, h, &rgba, false);
        let rle = encode_tga32(w, h, &rgba, true);
        assert_eq!(raw.len(), 18 + 4 * (w * h) as usize);
        assert_eq!(raw[2], 2);
        assert_eq!(rle[2], 10);
        for (kind, bytes) in [("raw", &raw), ("rle", &rle)] {
            let t = texture::decode(bytes, Path::new("t.tga")).unwrap();
            assert_eq!((t.width, t.height), (w, h), "{kind}");
            assert_eq!(t.texels, want, "{kind} {w}×{h}");
            let expect_alpha = if w * h == 1 {
                TextureAlpha::Opaque
            } else {
                TextureAlpha::Translucent
            };
            assert_eq!(t.alpha, expect_alpha, "{kind} {w}×{h}");
        }
    }
    // A flat image compresses to one run packet per row (≤128 texels).
    let flat = vec![[1, 2, 3, 255]; 100 * 4];
    assert_eq!(encode_tga32(100, 4, &flat, true).len(), 18 + 4 * 5);
}

#[test]
fn bmp_writers_round_trip() {
    let pal: Vec<[u8; 3]> = (0..=255u8).map(|i| [i, 255 - i, i / 2]).collect();
    let idx: Vec<u8> = (0..5 * 7).map(|i| (i * 37 % 256) as u8).collect();
    let t = texture::decode(&encode_bmp8(5, 7, &pal, &idx), Path::new("p.bmp")).unwrap();
    let want: Vec<[u8; 4]> = idx
        .iter()
        .map(|&i| {
            let [r, g, b] = pal[i as usize];
            [r, g, b, 255]
        })
        .collect();
    assert_eq!(t.texels, want);
    assert_eq!(t.alpha, TextureAlpha::Opaque);

    let rgb: Vec<[u8; 3]> = (0..6 * 5).map(|i| [i as u8, 3 * i as u8, 250]).collect();
    let t = texture::decode(&encode_bmp24(6, 5, &rgb), Path::new("p.bmp")).unwrap();
    let want: Vec<[u8; 4]> = rgb.iter().map(|&[r, g, b]| [r, g, b, 255]).collect();
    assert_eq!(t.texels, want);
}

// ------------------------------------------------------- hand-built TGAs

#[allow(clippy::too_many_arguments)]
fn tga(
    image_type: u8,
    cmap: Option<(u16, u8, &[u8])>,
    w: u16,
    h: u16,
    bpp: u8,
    descriptor: u8,
    body: &[u8],
) -> Vec<u8> {
    let mut v = vec![3u8, cmap.is_some() as u8, image_type];
    let (first, bits, entries) = cmap.unwrap_or((0, 0, &[]));
    let entry = (bits as usize).div_ceil(8).max(1);
    v.extend_from_slice(&first.to_le_bytes());
    v.extend_from_slice(&((entries.len() / entry) as u16).to_le_bytes());
    v.push(bits);
    v.extend_from_slice(&[0, 0, 0, 0]);
    v.extend_from_slice(&w.to_le_bytes());
    v.extend_from_slice(&h.to_le_bytes());
    v.push(bpp);
    v.push(descriptor);
    v.extend_from_slice(b"id!");
    v.extend_from_slice(entries);
    v.extend_from_slice(body);
    v
}

fn decode(bytes: &[u8]) -> kiln::Result<Texture> {
    texture::decode(bytes, Path::new("h.tga"))
}

#[test]
fn tga_origins_and_depths() {
    // 2×2, 24-bit BGR, bottom-left origin: stored rows are bottom then top.
    let body = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    let t = decode(&tga(2, None, 2, 2, 24, 0x00, &body)).unwrap();
    assert_eq!(
        t.texels,
        vec![
            [9, 8, 7, 255],
            [12, 11, 10, 255],
            [3, 2, 1, 255],
            [6, 5, 4, 255]
        ]
    );
    // Top-left origin keeps the stored order; right-to-left mirrors rows.
    let t = decode(&tga(2, None, 2, 2, 24, 0x20, &body)).unwrap();
    assert_eq!(t.texels[0], [3, 2, 1, 255]);
    let t = decode(&tga(2, None, 2, 2, 24, 0x30, &body)).unwrap();
    assert_eq!(t.texels[0], [6, 5, 4, 255]);

    // Grayscale, raw and RLE (a run of 3 then a raw packet of 1).
    let t = decode(&tga(3, None, 2, 2, 8, 0x20, &[0, 85, 170, 255])).unwrap();
    assert_eq!(t.texels[1], [85, 85, 85, 255]);
    let t = decode(&tga(11, None, 2, 2, 8, 0x20, &[0x82, 40, 0x00, 90])).unwrap();
    assert_eq!(
        t.texels,
        vec![
            [40, 40, 40, 255],
            [40, 40, 40, 255],
            [40, 40, 40, 255],
            [90, 90, 90, 255]
        ]
    );

    // Colour-mapped with a first-entry offset of 10 and 24-bit entries.
    let map = [0, 0, 255, 0, 255, 0];
    let t = decode(&tga(1, Some((10, 24, &map)), 2, 1, 8, 0x20, &[11, 10])).unwrap();
    assert_eq!(t.texels, vec![[0, 255, 0, 255], [255, 0, 0, 255]]);
    let t = decode(&tga(9, Some((10, 24, &map)), 2, 1, 8, 0x20, &[0x81, 11])).unwrap();
    assert_eq!(t.texels, vec![[0, 255, 0, 255], [0, 255, 0, 255]]);

    // 16-bit ARGB1555 with one attribute bit: the clear texel is keyed out.
    let t = decode(&tga(2, None, 2, 1, 16, 0x21, &[0x00, 0xfc, 0x1f, 0x00])).unwrap();
    assert_eq!(t.texels, vec![[255, 0, 0, 255], [0, 0, 0, 0]]);
    assert_eq!(t.alpha, TextureAlpha::ColorKey);

    // 32-bit with alpha 0 everywhere: treated as having no alpha.
    let t = decode(&tga(2, None, 1, 1, 32, 0x28, &[1, 2, 3, 0])).unwrap();
    assert_eq!(t.texels, vec![[3, 2, 1, 255]]);
    assert_eq!(t.alpha, TextureAlpha::Opaque);
}

#[test]
fn tga_runs_that_cross_rows_land_in_every_origin() {
    // 3×2 grey, RLE: a run of 4 (wrapping onto the second stored row),
    // then a raw packet of 2. Stored order is A A A A B C whatever the
    // origin; bit 4 mirrors columns, bit 5 puts stored row 0 on top.
    let (a, b, c) = ([40u8, 40, 40, 255], [90, 90, 90, 255], [200, 200, 200, 255]);
    let stored = [a, a, a, a, b, c];
    for descriptor in [0x00, 0x10, 0x20, 0x30] {
        let t = decode(&tga(
            11,
            None,
            3,
            2,
            8,
            descriptor,
            &[0x83, 40, 0x01, 90, 200],
        ))
        .unwrap();
        let mut want = vec![[0u8; 4]; 6];
        for (i, texel) in stored.iter().enumerate() {
            let (col, row) = (i % 3, i / 3);
            let x = if descriptor & 0x10 != 0 { 2 - col } else { col };
            let y = if descriptor & 0x20 != 0 { row } else { 1 - row };
            want[y * 3 + x] = *texel;
        }
        assert_eq!(t.texels, want, "descriptor {descriptor:#x}");
    }
}

fn parse_error(r: kiln::Result<Texture>) -> kiln::ParseError {
    match r {
        Err(kiln::Error::Parse(p)) => p,
        Err(e) => panic!("not a parse error: {e}"),
        Ok(_) => panic!("decoded a broken file"),
    }
}

#[test]
fn tga_errors_name_field_and_offset() {
    // Colour index outside the map.
    let map = [0, 0, 255];
    let e = parse_error(decode(&tga(1, Some((0, 24, &map)), 2, 1, 8, 0x20, &[0, 7])));
    // 18-byte header + 3-byte id + 3-byte map, second pixel.
    assert_eq!((e.field.as_str(), e.offset), ("pixels[1]", 18 + 3 + 3 + 1));
    assert_eq!(e.file, Path::new("h.tga"));

    // A colour map with an odd entry size, and one longer than the file.
    let e = parse_error(decode(&tga(
        1,
        Some((0, 12, &[1, 2, 3])),
        1,
        1,
        8,
        0x20,
        &[0],
    )));
    assert_eq!(
        (e.field.as_str(), e.offset),
        ("header.color_map_entry_size", 5)
    );
    let mut long_map = tga(1, Some((0, 24, &map)), 1, 1, 8, 0x20, &[0]);
    long_map[5..7].copy_from_slice(&1000u16.to_le_bytes());
    let e = parse_error(decode(&long_map));
    assert_eq!((e.field.as_str(), e.offset), ("color_map", 21));

    // An RLE packet running past the image.
    let e = parse_error(decode(&tga(10, None, 2, 1, 24, 0x20, &[0x82, 1, 2, 3])));
    assert_eq!((e.field.as_str(), e.offset), ("pixels.packet", 21));

    // Huge dimensions with almost no data: refused before allocating.
    let e = parse_error(decode(&tga(2, None, 65535, 65535, 32, 0x20, &[0; 16])));
    assert_eq!((e.field.as_str(), e.offset), ("dimensions", 12));
    let e = parse_error(decode(&tga(2, None, 16384, 16384, 32, 0x20, &[0; 16])));
    assert_eq!((e.field.as_str(), e.offset), ("pixels", 21));
    let e = parse_error(decode(&tga(10, None, 16384, 16384, 32, 0x20, &[0; 16])));
    assert_eq!((e.field.as_str(), e.offset), ("pixels", 21));

    // Unsupported depth for the type.
    let e = parse_error(decode(&tga(3, None, 1, 1, 24, 0x20, &[0; 3])));
    assert_eq!((e.field.as_str(), e.offset), ("header.pixel_depth", 16));
}

#[test]
fn every_truncation_of_small_files_is_an_error_never_a_panic() {
    let rgba = rle_mix_rgba(9, 3);
    let map = [0u8, 0, 255, 0, 255, 0, 255, 0, 0];
    let files = [
        ("tga raw", encode_tga32(9, 3, &rgba, false)),
        ("tga rle", encode_tga32(9, 3, &rgba, true)),
        (
            "tga cmap",
            tga(9, Some((0, 24, &map)), 3, 1, 8, 0x20, &[0x81, 2, 0x00, 1]),
        ),
        (
            "bmp8",
            encode_bmp8(3, 3, &[[1, 2, 3], [4, 5, 6]], &[0, 1, 0, 1, 0, 1, 0, 1, 1]),
        ),
        ("bmp24", encode_bmp24(5, 2, &[[7, 7, 7]; 10])),
    ];
    for (kind, bytes) in files {
        // BMPs may lack the last row's padding (bmp8 3 wide: 1 byte, bmp24
        // 5 wide: 1 byte); everything shorter must fail.
        let slack = if kind.starts_with("bmp") { 1 } else { 0 };
        for len in 0..bytes.len() - slack {
            assert!(
                decode(&bytes[..len]).is_err(),
                "{kind}: {len} of {} bytes decoded",
                bytes.len()
            );
        }
        assert!(decode(&bytes).is_ok(), "{kind}");
    }
}

#[test]
fn garbage_headers_never_panic() {
    // Deterministic pseudo-random bytes behind each magic.
    let mut state = 0x2545_f491_u32;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    for round in 0..2000 {
        let len = (next() % 96) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        match round % 3 {
            0 if len >= 2 => bytes[..2].copy_from_slice(b"BM"),
            1 if len >= 3 => {
                bytes[1] = 0;
                bytes[2] = [2, 10, 3, 11][(next() % 4) as usize];
            }
            _ => {}
        }
        let _ = decode(&bytes);
    }
}
