//! `recipes/looks.yaml`, as the README's tour runs it: the pixel-art
//! windmill keeps to its palette with a normal map beside it, and the packed
//! tentacle sheet is described alike by every engine's metadata.

use crate::common::{copy_tree, kiln, tempdir};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled recipe baked from a copy of `recipes/` (its outputs go to
/// `../out`, beside the copy).
fn baked() -> PathBuf {
    let dir = tempdir("bundled-looks");
    copy_tree(
        &repo().join("recipes/samples"),
        &dir.join("recipes/samples"),
    );
    std::fs::copy(
        repo().join("recipes/looks.yaml"),
        dir.join("recipes/looks.yaml"),
    )
    .unwrap();
    let o = kiln(&["bake", "-q", "recipes/looks.yaml"], &dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    dir.join("out")
}

/// The GIMP palette's colours, read the way the format is written: a
/// header, then `r g b name` lines.
fn gpl(path: &Path) -> BTreeSet<[u8; 3]> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.contains(':') && l != &"GIMP Palette")
        .filter_map(|l| {
            let v: Vec<u8> = l
                .split_whitespace()
                .take(3)
                .filter_map(|n| n.parse().ok())
                .collect();
            (v.len() == 3).then(|| [v[0], v[1], v[2]])
        })
        .collect()
}

#[test]
fn the_looks_recipe_bakes_pixel_art_a_normal_map_and_every_engines_sheet() {
    let out = baked();

    // Pixel art: binary alpha, every opaque pixel one of the palette's
    // sixteen colours, the outline's ink among them.
    let palette = gpl(&repo().join("recipes/samples/palettes/kiln16.gpl"));
    assert_eq!(palette.len(), 16);
    let sheet = image::open(out.join("looks/windmill_pixel.png"))
        .unwrap()
        .to_rgba8();
    let mut used = BTreeSet::new();
    for p in sheet.pixels() {
        assert!(p[3] == 0 || p[3] == 255, "alpha {} in a palette look", p[3]);
        if p[3] == 255 {
            assert!(
                palette.contains(&[p[0], p[1], p[2]]),
                "{p:?} is not in kiln16"
            );
            used.insert([p[0], p[1], p[2]]);
        }
    }
    assert!(used.contains(&[30, 16, 40]), "no outline ink in {used:?}");
    assert!(used.len() >= 6, "only {} colours used", used.len());

    // The normal map: the colour sheet's size, unit normals facing the
    // viewer where the model covers the pixel.
    let normal = image::open(out.join("looks/windmill_pixel_normal.png"))
        .unwrap()
        .to_rgba8();
    assert_eq!(normal.dimensions(), sheet.dimensions());
    let mut covered = 0;
    for p in normal.pixels().filter(|p| p[3] == 255) {
        let n: Vec<f32> = (0..3).map(|i| p[i] as f32 / 255.0 * 2.0 - 1.0).collect();
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        assert!((len - 1.0).abs() < 0.06, "normal {n:?} of length {len}");
        assert!(n[2] > -0.02, "a normal facing away: {n:?}");
        covered += 1;
    }
    assert!(covered > 1000, "{covered} covered pixels in the normal map");

    // Every engine's file lists the same frames and the same 16 clip ×
    // direction animations of the one packed page.
    let json = |name: &str| -> serde_json::Value {
        let p = out.join("engines").join(name);
        serde_json::from_slice(&std::fs::read(&p).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    let page = image::open(out.join("engines/tentacle_engines.png"))
        .unwrap()
        .to_rgba8();
    let rect = |f: &serde_json::Value| -> [u64; 4] {
        let r = &f["frame"];
        let v = [&r["x"], &r["y"], &r["w"], &r["h"]].map(|v| v.as_u64().unwrap());
        assert!(
            v[0] + v[2] <= page.width() as u64 && v[1] + v[3] <= page.height() as u64,
            "{v:?} outside the page"
        );
        v
    };
    let hash = json("tentacle_engines.json");
    let hash_frames: BTreeSet<(String, [u64; 4])> = hash["frames"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, f)| (k.clone(), rect(f)))
        .collect();
    assert_eq!(
        hash_frames.len(),
        8 * 16,
        "8 directions × (15 wave + 1 rest)"
    );
    assert_eq!(hash["meta"]["frameTags"].as_array().unwrap().len(), 16);

    let array = json("tentacle_engines.array.json");
    let array_frames: BTreeSet<(String, [u64; 4])> = array["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["filename"].as_str().unwrap().to_string(), rect(f)))
        .collect();
    assert_eq!(array_frames, hash_frames);

    let pixi = json("tentacle_engines.pixi.json");
    let pixi_frames: BTreeSet<(String, [u64; 4])> = pixi["frames"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, f)| (k.clone(), rect(f)))
        .collect();
    assert_eq!(pixi_frames, hash_frames);
    assert_eq!(pixi["animations"].as_object().unwrap().len(), 16);

    let aseprite = json("tentacle_engines.aseprite.json");
    let ase_rects: BTreeSet<[u64; 4]> = aseprite["frames"]
        .as_object()
        .unwrap()
        .values()
        .map(rect)
        .collect();
    let hash_rects: BTreeSet<[u64; 4]> = hash_frames.iter().map(|(_, r)| *r).collect();
    assert_eq!(ase_rects, hash_rects);
    assert_eq!(aseprite["meta"]["frameTags"].as_array().unwrap().len(), 16);

    let tres = std::fs::read_to_string(out.join("engines/tentacle_engines.tres")).unwrap();
    assert!(
        tres.starts_with("[gd_resource type=\"SpriteFrames\""),
        "{tres:.80}"
    );
    let animations: BTreeSet<&str> = tres
        .lines()
        .filter_map(|l| l.trim().strip_prefix("\"name\": &\""))
        .map(|l| l.trim_end_matches("\","))
        .collect();
    assert_eq!(animations.len(), 16, "{animations:?}");
    assert!(animations.contains("wave_d0") && animations.contains("rest_d7"));

    for clip in ["wave", "rest"] {
        for d in 0..8 {
            let p = out.join(format!("engines/tentacle_engines_{clip}_{d}.png"));
            assert!(p.is_file(), "{} missing", p.display());
        }
    }
}
