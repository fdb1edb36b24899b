//! Catalogue globs over a Grimrock `.dat`, whose table keeps only hashes of
//! its names: a mod's files packed by kiln's writer are listed under the
//! names the mod's own script spells, in the order the same files give
//! from a folder, and bake to the same pixels.

use crate::common::{self, kiln, stderr, tempdir};
use kiln::archives::{write_dat, DatVersion};
use std::path::{Path, PathBuf};

const MOD: &str = "grimrock/grimrock+eob1-waterdeep";

/// Every file below `root`, as `(path relative to root with '/', bytes)`,
/// sorted.
fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_str().unwrap();
                out.push((rel.replace('\\', "/"), std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

fn recipe(dir: &Path, name: &str, glob: &str, data: &Path) -> PathBuf {
    let p = dir.join(format!("{name}.yaml"));
    let text = format!(
        "jobs:\n  - name: m\n    model: \"{glob}\"\n    data: [\"{}\"]\n    size: 32x32\n    directions: 1\n    antialias: 1\n    output: {{ dir: \"{name}/{{path}}\", sheet: \"{{stem}}.png\" }}\n",
        data.display()
    );
    std::fs::write(&p, text).unwrap();
    p
}

fn planned(dir: &Path, recipe: &Path) -> Vec<String> {
    let o = kiln(&["plan", "--json", recipe.to_str().unwrap()], dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_dat_lists_the_files_its_scripts_name_as_the_folder_does() {
    let Some(root) = common::corpus(MOD) else {
        return;
    };
    let dir = tempdir("catalogue-dat");
    let packed = files(&root);
    // Scripts compressed and stored alike: both are found by their bytes.
    let entries: Vec<(&str, &[u8], bool)> = packed
        .iter()
        .enumerate()
        .map(|(i, (n, b))| (n.as_str(), b.as_slice(), i % 2 == 0))
        .collect();
    for version in [DatVersion::Grar, DatVersion::Gra2] {
        let dat = dir.join("mod.dat");
        std::fs::write(&dat, write_dat(version, &entries)).unwrap();
        // The script names its two models (as `.fbx`, exported as `.model`)
        // and not the four others the mod folder holds.
        let from_dat = planned(&dir, &recipe(&dir, "dat", "mod_assets/**/*.model", &dat));
        assert_eq!(
            from_dat,
            [
                "m/plugins/skeleton_warrior_axe/models/rusted_great_axe.model",
                "m/plugins/skeleton_warrior_axe/models/skeleton_warrior_axe.model",
            ]
        );
        let folder = recipe(&dir, "folder", "mod_assets/plugins/**/*.model", &root);
        let in_folder = planned(&dir, &folder);
        let below = |n: &str| n.split_once("/models/").unwrap().1.to_string();
        assert_eq!(
            from_dat.iter().map(|n| below(n)).collect::<Vec<_>>(),
            in_folder.iter().map(|n| below(n)).collect::<Vec<_>>()
        );
        // The texture the script spells as `.tga` is the `.dds` packed, and
        // a glob typed in another case finds the same names.
        let textures = planned(
            &dir,
            &recipe(&dir, "tex", "MOD_ASSETS/Plugins/**/*_DIF.dds", &dat),
        );
        assert_eq!(
            textures,
            ["m/skeleton_warrior_axe/textures/corrupt_great_axe_dif.dds"]
        );
    }
    // Extracted, the named entries land under their names with their bytes;
    // the rest keep their hashes.
    let dat = dir.join("mod.dat");
    let o = kiln(&["extract", dat.to_str().unwrap(), "-o", "extracted"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    for (name, bytes) in &packed {
        let named = dir.join("extracted").join(name);
        let hashed = dir
            .join("extracted")
            .join(format!("#{:08x}", kiln::archives::fnv1a(name.as_bytes())));
        match named.is_file() {
            true => assert_eq!(&std::fs::read(&named).unwrap(), bytes, "{name}"),
            false => assert_eq!(&std::fs::read(&hashed).unwrap(), bytes, "{name}"),
        }
    }
    let named: Vec<&str> = packed
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| dir.join("extracted").join(n).is_file())
        .collect();
    assert_eq!(
        named,
        [
            "mod_assets/plugins/skeleton_warrior_axe/animations/skeleton_warrior_axe_attack.animation",
            "mod_assets/plugins/skeleton_warrior_axe/animations/skeleton_warrior_axe_hit_back.animation",
            "mod_assets/plugins/skeleton_warrior_axe/animations/skeleton_warrior_axe_idle.animation",
            "mod_assets/plugins/skeleton_warrior_axe/animations/skeleton_warrior_axe_walk.animation",
            "mod_assets/plugins/skeleton_warrior_axe/models/rusted_great_axe.model",
            "mod_assets/plugins/skeleton_warrior_axe/models/skeleton_warrior_axe.model",
            "mod_assets/plugins/skeleton_warrior_axe/skeleton_warrior_axe.lua",
            "mod_assets/plugins/skeleton_warrior_axe/textures/corrupt_great_axe_dif.dds",
        ]
    );
    // Baked from the archive, the models draw what they draw from the folder.
    for (name, data, glob) in [
        ("dat", dat.as_path(), "mod_assets/**/*.model"),
        ("folder", root.as_path(), "mod_assets/plugins/**/*.model"),
    ] {
        let r = recipe(&dir, name, glob, data);
        let o = kiln(&["bake", "-q", r.to_str().unwrap()], &dir);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
    }
    for model in ["rusted_great_axe", "skeleton_warrior_axe"] {
        let rel = format!("skeleton_warrior_axe/models/{model}/{model}.png");
        let a = std::fs::read(dir.join("dat/plugins").join(&rel)).unwrap();
        let b = std::fs::read(dir.join("folder").join(&rel)).unwrap();
        assert!(a == b, "{rel} differs between the archive and the folder");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dat_whose_scripts_name_nothing_matches_nothing() {
    let dir = tempdir("catalogue-dat-none");
    let dat = dir.join("mod.dat");
    let model = b"MDL1 not really a model".to_vec();
    std::fs::write(
        &dat,
        write_dat(
            DatVersion::Gra2,
            &[
                ("mod_assets/models/x.model", &model, true),
                (
                    "mod_assets/scripts/init.lua",
                    b"-- nothing named here\n",
                    true,
                ),
            ],
        ),
    )
    .unwrap();
    let r = recipe(&dir, "none", "mod_assets/**/*.model", &dat);
    let o = kiln(&["plan", r.to_str().unwrap()], &dir);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("matches no file in"), "{err}");
    assert!(
        err.contains("mod.dat keeps hashes of its names: it lists only the 0 of its 2 files its own scripts name"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every byte of an archive with scripts, compressed and stored, damaged in
/// turn: opening, listing by recovered names, naming and reading its
/// entries give errors or data, never a panic.
#[test]
fn a_damaged_dat_with_scripts_never_panics() {
    use kiln::archives::GrimrockDat;
    use kiln::{Archive, DataSource, GamePath};
    let dir = tempdir("catalogue-dat-damaged");
    let script = b"defineObject{ model = \"mod_assets/models/x.fbx\", diffuseMap = \"mod_assets/textures/x.tga\" }\n";
    let model = b"MDL1 not really a model".repeat(4);
    let path = dir.join("mod.dat");
    for version in [DatVersion::Grar, DatVersion::Gra2] {
        let good = write_dat(
            version,
            &[
                ("mod_assets/scripts/init.lua", script, true),
                ("mod_assets/scripts/more.lua", script, false),
                ("mod_assets/models/x.model", &model, true),
                ("mod_assets/textures/x.dds", b"DDS ", false),
            ],
        );
        std::fs::write(&path, &good).unwrap();
        let whole = GrimrockDat::open_path(&path).unwrap();
        let listed = whole.list(&GamePath::new("mod_assets/models")).unwrap().1;
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].name, b"x.model");
        for at in 0..good.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = good.clone();
                bad[at] ^= flip;
                std::fs::write(&path, &bad).unwrap();
                let Ok(d) = GrimrockDat::open_path(&path) else {
                    continue;
                };
                let _ = (d.warnings(), d.list(&GamePath::root()));
                let _ = d.list(&GamePath::new("mod_assets/models"));
                for i in 0..d.items().len() {
                    let _ = d.read_item(i);
                    if let Some(e) = d.find(&GamePath::new(&d.items()[i].raw_name)) {
                        let _ = d.read(&e);
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
