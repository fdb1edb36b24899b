//! PBO and Grimrock `.dat` archives, archives as data sources for models,
//! and the commands around them: `inspect`, `extract`, `convert`; inputs
//! that are pipes or too large; broken pipes.

use crate::common::{corpus, kiln, stderr, tempdir};
use kiln::archives::{
    write_dat, write_grf, write_pbo, DatVersion, GrfVersion, GrimrockDat, Pbo, WriteOptions,
};
use kiln::{Archive, DataSource, GamePath};
use std::path::Path;

#[test]
fn corpus_pbos_list_their_entries_and_their_paa_icons_decode() {
    let Some(p) = corpus("arma/BrettMayson+HEMTT/libs/pbo/tests/ace_weather.pbo_8bd4922f") else {
        return;
    };
    let pbo = Pbo::open_path(&p).unwrap();
    assert_eq!(pbo.format(), "PBO");
    assert_eq!(
        pbo.properties(),
        [
            ("prefix".to_string(), "z\\ace\\addons\\weather".to_string()),
            ("Mikero".into(), "DePbo.dll.7.97".into()),
            ("version".into(), "8bd4922f".into()),
        ]
    );
    assert_eq!(pbo.items().len(), 45);
    assert_eq!(pbo.items()[1].name, "ACE_Settings.hpp");
    assert_eq!(pbo.items()[1].size, 220);
    assert!(pbo.warnings().is_empty(), "{:?}", pbo.warnings());
    // Found by the game's path (prefix + name) and by the path inside.
    let a = pbo
        .find(&GamePath::new("Z\\ACE\\addons\\weather\\ace_settings.hpp"))
        .unwrap();
    let b = pbo.find(&GamePath::new("ACE_Settings.hpp")).unwrap();
    assert_eq!(a, b);
    assert!(String::from_utf8(pbo.read(&a).unwrap())
        .unwrap()
        .contains("class ACE_Settings"));
    let paas: Vec<usize> = (0..pbo.items().len())
        .filter(|&i| pbo.items()[i].name.to_ascii_lowercase().ends_with(".paa"))
        .collect();
    assert!(!paas.is_empty());
    for i in paas {
        let bytes = pbo.read_item(i).unwrap();
        let name = Path::new(&pbo.items()[i].name);
        let t = kiln::internals::formats::texture::decode(&bytes, name).unwrap();
        assert!(t.width >= 16 && t.height >= 16, "{}", pbo.items()[i].name);
    }

    let Some(p) = corpus("arma/BrettMayson+HEMTT/libs/pbo/tests/exported_mission.VR.pbo") else {
        return;
    };
    let pbo = Pbo::open_path(&p).unwrap();
    assert_eq!(pbo.format(), "PBO (no product entry)");
    assert_eq!(pbo.items().len(), 9);
    assert_eq!(pbo.items()[0].name, "description.ext");
    assert_eq!(pbo.items()[0].size, 364);
    assert!(pbo.warnings().is_empty());
    for i in 0..pbo.items().len() {
        assert_eq!(pbo.read_item(i).unwrap().len() as u64, pbo.items()[i].size);
    }
}

#[test]
fn kiln_pbos_round_trip_stored_and_lzss_entries_and_check_their_hash() {
    let text = b"class CfgPatches { class kiln { units[] = {}; }; };\n".repeat(30);
    let bytes = write_pbo(
        &[("prefix", "kiln\\lever"), ("product", "kiln")],
        &[
            (b"config.cpp", &text, true),
            (b"data\\a.txt", b"stored", false),
        ],
    );
    let dir = tempdir("pbo-rt");
    let path = dir.join("kiln.pbo");
    std::fs::write(&path, &bytes).unwrap();
    let pbo = Pbo::open_path(&path).unwrap();
    assert!(pbo.warnings().is_empty(), "{:?}", pbo.warnings());
    assert_eq!(pbo.items()[0].compression, "lzss");
    assert!(pbo.items()[0].stored < text.len() as u64 / 4);
    assert_eq!(pbo.read_item(0).unwrap(), text);
    let e = pbo.find(&GamePath::new("KILN/lever/data/A.TXT")).unwrap();
    assert_eq!(pbo.read(&e).unwrap(), b"stored");
    // A damaged byte in the data: the hash says so.
    let mut bad = bytes.clone();
    let last = bad.len() - 22;
    bad[last] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    let w = Pbo::open_path(&path).unwrap().warnings();
    assert!(w.iter().any(|w| w.contains("SHA-1 trailer")), "{w:?}");
    // An encrypted entry is refused by name.
    let mut enc = bytes.clone();
    let at = enc.windows(11).position(|w| w == b"data\\a.txt\0").unwrap() + 11;
    enc[at..at + 4].copy_from_slice(&0x456e_636fu32.to_le_bytes());
    std::fs::write(&path, &enc).unwrap();
    let e = Pbo::open_path(&path)
        .unwrap()
        .read_item(1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("encrypted (method Enco)"), "{e}");
    // Truncations never panic.
    for len in 0..bytes.len() {
        std::fs::write(&path, &bytes[..len]).unwrap();
        if let Ok(p) = Pbo::open_path(&path) {
            for i in 0..p.items().len() {
                let _ = p.read_item(i);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn grimrock_dats_are_found_by_hashed_paths() {
    let dir = tempdir("dat-rt");
    for version in [DatVersion::Grar, DatVersion::Gra2] {
        let model = b"MDL1 pretend model".repeat(20);
        let bytes = write_dat(
            version,
            &[
                ("mod_assets/models/x.model", &model, true),
                ("mod_assets/textures/x.dds", b"DDS ", false),
            ],
        );
        let path = dir.join("mod.dat");
        std::fs::write(&path, &bytes).unwrap();
        let dat = GrimrockDat::open_path(&path).unwrap();
        assert_eq!(dat.items().len(), 2);
        assert_eq!(
            dat.items()[0].name,
            format!(
                "#{:08x}",
                kiln::archives::fnv1a(b"mod_assets/models/x.model")
            )
        );
        let e = dat
            .find(&GamePath::new("MOD_ASSETS\\models\\X.model"))
            .unwrap();
        assert_eq!(
            e.location,
            Path::new(&format!("{}:/MOD_ASSETS/models/X.model", path.display()))
        );
        assert_eq!(dat.read(&e).unwrap(), model);
        assert_eq!(dat.read_item(1).unwrap(), b"DDS ");
        assert!(dat.find(&GamePath::new("mod_assets/other")).is_none());
        assert!(dat.list(&GamePath::new("mod_assets")).is_none());
        for len in 0..bytes.len() {
            std::fs::write(&path, &bytes[..len]).unwrap();
            if let Ok(d) = GrimrockDat::open_path(&path) {
                for i in 0..d.items().len() {
                    let _ = d.read_item(i);
                }
                let _ = d.list(&GamePath::new("mod_assets"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A model and its textures packed into a GRF bake to the same bytes as
/// the same files loose on disk.
#[test]
fn a_model_baked_from_a_grf_equals_the_loose_bake() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data");
    let mut entries: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for rel in [
        "model/kiln/beacon.rsm",
        "texture/kiln/stone.bmp",
        "texture/kiln/sail.bmp",
    ] {
        let bytes = std::fs::read(samples.join(rel)).unwrap();
        entries.push((
            format!("data\\{}", rel.replace('/', "\\")).into_bytes(),
            bytes,
        ));
    }
    let list: Vec<(&[u8], &[u8], WriteOptions)> = entries
        .iter()
        .map(|(n, d)| (n.as_slice(), d.as_slice(), WriteOptions::MIXED))
        .collect();
    let dir = tempdir("grf-bake");
    std::fs::write(dir.join("data.grf"), write_grf(GrfVersion::V200, &list)).unwrap();
    let model_in = samples.join("model/kiln/beacon.rsm");
    std::fs::write(
        dir.join("loose.yaml"),
        format!(
            "jobs:\n  - name: loose\n    model: '{}'\n    clip: {{frames: 3}}\n    size: 64x64\n",
            model_in.display()
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("grf.yaml"),
        "jobs:\n  - name: grf\n    model: data/model/kiln/beacon.rsm\n    data: [data.grf]\n    clip: {frames: 3}\n    size: 64x64\n",
    )
    .unwrap();
    for recipe in ["loose.yaml", "grf.yaml"] {
        let o = kiln(&["bake", recipe, "--quiet"], &dir);
        assert!(o.status.success(), "{recipe}: {}", stderr(&o));
    }
    let a = std::fs::read(dir.join("out/loose/loose.png")).unwrap();
    let b = std::fs::read(dir.join("out/grf/grf.png")).unwrap();
    assert_eq!(a, b, "the GRF bake differs from the loose one");
    // And inspect finds the textures inside the archive.
    let o = kiln(
        &[
            "inspect",
            "data/model/kiln/beacon.rsm",
            "--data",
            "data.grf",
        ],
        &dir,
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("data.grf:/data/texture/kiln/stone.bmp"),
        "{text}{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_lever_renders_with_a_paa_texture_from_a_pbo() {
    let lever = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("recipes/samples/arma/kiln_lever/kiln_lever.p3d");
    let dir = tempdir("lever-paa");
    // A red-and-yellow stripe texture, written by kiln's PAA writer as
    // DXT1 with LZO-compressed mips, where the model looks for it.
    let texels: Vec<[u8; 4]> = (0..64 * 64)
        .map(|i| {
            if (i % 64) / 8 % 2 == 0 {
                [220, 30, 20, 255]
            } else {
                [240, 220, 40, 255]
            }
        })
        .collect();
    let paa = kiln::internals::formats::texture::paa::encode_paa(
        kiln::internals::formats::texture::paa::PaaFormat::Dxt1,
        64,
        64,
        &texels,
    );
    std::fs::write(
        dir.join("textures.pbo"),
        write_pbo(&[("prefix", "kiln")], &[(b"lever_co.paa", &paa, false)]),
    )
    .unwrap();
    let out = |name: &str, data: bool| {
        let mut args = vec![
            "render",
            lever.to_str().unwrap(),
            "-o",
            name,
            "--size",
            "96x96",
        ];
        if data {
            args.extend(["--data", "textures.pbo"]);
        }
        let o = kiln(&args, &dir);
        assert!(o.status.success(), "{}", stderr(&o));
        (image::open(dir.join(name)).unwrap().to_rgba8(), stderr(&o))
    };
    let (grey, warned) = out("grey.png", false);
    assert!(
        warned.contains("texture 'kiln\\lever_co.paa' not found"),
        "{warned}"
    );
    let (textured, quiet) = out("paa.png", true);
    assert!(!quiet.contains("not found"), "{quiet}");
    let yellow = |img: &image::RgbaImage| {
        img.pixels()
            .filter(|p| p[3] > 0 && p[0] > 120 && p[1] > 100 && p[2] < 80)
            .count()
    };
    assert_eq!(yellow(&grey), 0);
    assert!(yellow(&textured) > 50, "{}", yellow(&textured));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn inspect_extract_and_convert_archives_and_textures() {
    let Some(grf) = corpus("ro/RagnarokResearchLab+RagLite/Tests/Fixtures/test.grf") else {
        return;
    };
    let dir = tempdir("extract");
    let o = kiln(&["inspect", grf.to_str().unwrap()], &dir);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        text.starts_with(&format!("{}: GRF 0x200\n", grf.display())),
        "{text}"
    );
    assert!(
        text.contains("        78         88   0x1  zlib  none        subdirectory/hello.txt"),
        "{text}"
    );
    assert!(!text.contains("nodes:"), "{text}");
    let o = kiln(&["inspect", "--json", grf.to_str().unwrap()], &dir);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["archive"]["entries"].as_array().unwrap().len(), 4);
    assert_eq!(j["archive"]["entries"][0]["compression"], "zlib");

    let o = kiln(
        &[
            "extract",
            grf.to_str().unwrap(),
            "SUBDIRECTORY",
            "-o",
            "out",
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let tea = std::fs::read_to_string(dir.join("out/subdirectory/hello.txt")).unwrap();
    assert!(tea.ends_with("Would you like some tea?"));
    assert!(!dir.join("out/hello-grf.txt").exists());
    let o = kiln(&["extract", grf.to_str().unwrap(), "-o", "all"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.join("all/안녕하세요.txt").exists());
    let o = kiln(
        &["extract", grf.to_str().unwrap(), "*.nothing", "-o", "none"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    // Unsafe names are never written outside the folder.
    let evil = write_grf(
        GrfVersion::V200,
        &[
            (b"..\\..\\evil.txt", b"x", WriteOptions::default()),
            (b"ok.txt", b"y", WriteOptions::default()),
        ],
    );
    std::fs::write(dir.join("evil.grf"), evil).unwrap();
    let o = kiln(&["extract", "evil.grf", "-o", "safe"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("../../evil.txt: unsafe name"),
        "{}",
        stderr(&o)
    );
    assert!(dir.join("safe/ok.txt").exists());
    assert!(!dir.join("evil.txt").exists() && !dir.parent().unwrap().join("evil.txt").exists());

    let Some(paa) = corpus("arma/MrClock8163+armaio/tests/data/texture_ca.paa") else {
        return;
    };
    let o = kiln(&["inspect", paa.to_str().unwrap()], &dir);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("PAA DXT5")
            && text.contains("size: 16x16, alpha: Translucent")
            && text.contains("mips: 3 (16x16, 8x8, 4x4)"),
        "{text}"
    );
    let o = kiln(
        &[
            "convert",
            paa.to_str().unwrap(),
            "-o",
            "ca.png",
            "--mip",
            "1",
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(image::open(dir.join("ca.png")).unwrap().width(), 8);
    // A texture inside an archive, by its game path.
    let Some(bmp) = corpus("ro/hurtsky+RO-Clientresources/data/texture/goomba/goomba_1.bmp") else {
        return;
    };
    let g = write_grf(
        GrfVersion::V200,
        &[(
            b"data\\texture\\goomba_1.bmp",
            &std::fs::read(&bmp).unwrap(),
            WriteOptions::MIXED,
        )],
    );
    std::fs::write(dir.join("g.grf"), g).unwrap();
    for (args, keyed) in [(vec![], true), (vec!["--no-colour-key"], false)] {
        let mut a = vec![
            "convert",
            "data/texture/goomba_1.bmp",
            "--data",
            "g.grf",
            "-o",
            "g.png",
        ];
        a.extend(args);
        let o = kiln(&a, &dir);
        assert!(o.status.success(), "{}", stderr(&o));
        let img = image::open(dir.join("g.png")).unwrap().to_rgba8();
        let clear = img.pixels().filter(|p| p[3] == 0).count();
        assert_eq!(clear > 0, keyed);
    }
    let o = kiln(&["inspect", bmp.to_str().unwrap()], &dir);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("BMP 24-bit") && text.contains("texels keyed"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn inspect_lines_fit_each_kind_of_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples");
    let dir = tempdir("inspect-kinds");
    let text = |f: &Path| {
        let o = kiln(&["inspect", f.to_str().unwrap()], &dir);
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    for f in [
        "data/kiln_village.rsw",
        "data/kiln_village.gnd",
        "arma/kiln_lever/model.cfg",
    ] {
        let t = text(&root.join(f));
        assert!(
            !t.contains("nodes:") && !t.contains("textures:") && !t.contains("animation:"),
            "{f}: {t}"
        );
    }
    let t = text(&root.join("arma/kiln_lever/anim/kiln_lever_swing.rtm"));
    assert!(
        t.lines()
            .next()
            .unwrap()
            .ends_with("Arma RTM plain (RTM_0101)"),
        "{t}"
    );
    assert!(!t.contains("null"), "{t}");
}

#[cfg(unix)]
#[test]
fn pipes_and_oversized_inputs_are_refused_and_broken_pipes_end_quietly() {
    let dir = tempdir("inputs");
    let fifo = dir.join("model.rsm");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let o = kiln(&["inspect", "model.rsm"], &dir);
        assert_eq!(o.status.code(), Some(1));
        assert!(
            stderr(&o).contains("a FIFO (named pipe), not a regular file"),
            "{}",
            stderr(&o)
        );
    }
    std::fs::write(dir.join("big.rsm"), vec![0u8; 4096]).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(["inspect", "big.rsm"])
        .env("KILN_MAX_INPUT", "1K")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("larger than the 1 KiB kiln reads"),
        "{}",
        stderr(&o)
    );
    // A reader that stops after one line: kiln ends quietly with 0.
    let map = Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/kiln_village.rsw");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(["inspect", map.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bare_model_name_finds_its_textures_and_nothing_above_its_tree() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data");
    let dir = tempdir("bare-name");
    // client/data/model/kiln/beacon.rsm with its textures in client/data/texture,
    // and a decoy texture of the same name in a `data` folder above.
    let client = dir.join("outer/client");
    std::fs::create_dir_all(client.join("data/model/kiln")).unwrap();
    std::fs::create_dir_all(client.join("data/texture/kiln")).unwrap();
    std::fs::create_dir_all(dir.join("data/texture/kiln")).unwrap();
    std::fs::copy(
        samples.join("model/kiln/beacon.rsm"),
        client.join("data/model/kiln/beacon.rsm"),
    )
    .unwrap();
    for t in ["stone.bmp", "sail.bmp"] {
        std::fs::copy(
            samples.join("texture/kiln").join(t),
            client.join("data/texture/kiln").join(t),
        )
        .unwrap();
        std::fs::write(dir.join("data/texture/kiln").join(t), b"decoy").unwrap();
    }
    let model_dir = client.join("data/model/kiln");
    std::fs::write(
        model_dir.join("b.yaml"),
        "jobs:\n  - name: b\n    model: beacon.rsm\n    clip: {frames: 1}\n    size: 32x32\n",
    )
    .unwrap();
    for recipe in ["b.yaml", "./b.yaml"] {
        let o = kiln(&["bake", recipe, "--quiet"], &model_dir);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(!stderr(&o).contains("warning"), "{recipe}: {}", stderr(&o));
    }
    // Without its own texture folder, the decoy above is not taken.
    std::fs::remove_dir_all(client.join("data/texture")).unwrap();
    let o = kiln(&["inspect", "beacon.rsm"], &model_dir);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("NOT FOUND") && !text.contains("decoy"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
