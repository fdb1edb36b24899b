//! Every SPR and ACT of the corpus: read to its last byte, written back
//! byte for byte, with the values the files are known to hold.

use kiln::internals::formats::sprite::{act, spr};
use std::path::{Path, PathBuf};

/// Every `.spr` and `.act` below the corpus' Ragnarok folder, sorted.
fn corpus_files(ext: &str) -> Option<Vec<PathBuf>> {
    fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, ext, out);
            } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case(ext)) {
                out.push(p);
            }
        }
    }
    let ro = crate::common::corpus("ro")?;
    let mut out = Vec::new();
    walk(&ro, ext, &mut out);
    out.sort();
    Some(out)
}

fn read(rel: &str) -> Option<Vec<u8>> {
    crate::common::corpus_bytes(&format!("ro/{rel}"))
}

const NPC: &str = "hurtsky+RO-Clientresources/data/sprite/npc";
const FIX: &str = "RagnarokResearchLab+RagLite/Tests/Fixtures";

#[test]
fn every_corpus_spr_reads_whole_and_writes_back_byte_for_byte() {
    let Some(files) = corpus_files("spr") else {
        return;
    };
    assert_eq!(files.len(), 8, "{files:?}");
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let s = spr::parse(&bytes, f).unwrap_or_else(|e| panic!("{e}"));
        assert!(s.gap.is_empty(), "{}", f.display());
        assert_eq!(spr::write(&s).unwrap(), bytes, "{}", f.display());
    }
}

#[test]
fn every_corpus_act_reads_whole_and_writes_back_byte_for_byte() {
    let Some(files) = corpus_files("act") else {
        return;
    };
    assert_eq!(files.len(), 10, "{files:?}");
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let a = act::parse(&bytes, f).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(act::write(&a).unwrap(), bytes, "{}", f.display());
    }
}

#[test]
fn tamadora_holds_seven_motions_in_eight_directions_with_palette_and_rgba_images() {
    let (Some(a), Some(s)) = (
        read(&format!("{NPC}/4_pd_tamadora.act")),
        read(&format!("{NPC}/4_pd_tamadora.spr")),
    ) else {
        return;
    };
    let a = act::parse(&a, Path::new("4_pd_tamadora.act")).unwrap();
    let s = spr::parse(&s, Path::new("4_pd_tamadora.spr")).unwrap();
    assert_eq!((a.major, a.minor, a.actions.len()), (2, 5, 56));
    assert_eq!(a.intervals.len(), 56);
    assert_eq!((s.major, s.minor), (2, 1));
    assert_eq!((s.indexed.len(), s.rgba.len()), (56, 2));
    assert_eq!((s.indexed[0].width, s.indexed[0].height), (46, 41));
    assert_eq!(s.palette.as_ref().map(Vec::len), Some(256));
    // Every layer names an image the SPR holds.
    assert!(kiln::internals::formats::sprite::missing_images(&a, &s).is_empty());
}

#[test]
fn raglite_fixtures_hold_their_documented_values() {
    let Some(d) = read(&format!("{FIX}/v0205.act")) else {
        return;
    };
    let a = act::parse(&d, Path::new("v0205.act")).unwrap();
    assert_eq!((a.major, a.minor, a.actions.len()), (2, 5, 1));
    assert_eq!(
        a.reserved,
        [0x12, 0x34, 0x56, 0x78, 0x90, 0x13, 0x14, 0x15, 0x16, 0x18]
    );
    let l = a.actions[0].frames[0].layers[0];
    assert!(l.size.is_some());
    for (name, minor) in [("v0200", 0), ("v0201", 1), ("v0203", 3), ("v0204", 4)] {
        let d = read(&format!("{FIX}/{name}.act")).unwrap();
        let a = act::parse(&d, Path::new(name)).unwrap();
        assert_eq!((a.major, a.minor), (2, minor), "{name}");
        assert_eq!(a.has_events(), minor >= 1, "{name}");
        assert_eq!(a.intervals.len(), usize::from(minor >= 2), "{name}");
    }
    // The three SPR variants: 1.1 palette only, 2.0 with RGBA, 2.1 coded.
    for (name, version, counts) in [
        ("bmp-paletted.spr", (1, 1), (2, 0)),
        ("bmp-tga-paletted.spr", (2, 0), (2, 1)),
        ("rle-bmp-tga-paletted.spr", (2, 1), (2, 1)),
    ] {
        let d = read(&format!("{FIX}/{name}")).unwrap();
        let s = spr::parse(&d, Path::new(name)).unwrap();
        assert_eq!((s.major, s.minor), version, "{name}");
        assert_eq!((s.indexed.len(), s.rgba.len()), counts, "{name}");
    }
    // The coded fixture's second image holds a run of two index-0 pixels.
    let coded = spr::parse(
        &read(&format!("{FIX}/rle-bmp-tga-paletted.spr")).unwrap(),
        Path::new("b"),
    )
    .unwrap();
    assert_eq!(coded.indexed[0].pixels, [1, 2, 3, 4, 5, 6]);
    assert_eq!((coded.indexed[1].width, coded.indexed[1].height), (3, 2));
    assert_eq!(coded.indexed[1].pixels, [6, 0, 0, 3, 2, 1]);
}

#[test]
fn every_truncation_of_a_real_pair_is_a_located_error() {
    let (Some(a), Some(s)) = (
        read(&format!("{NPC}/4_m_ardha.act")),
        read(&format!("{NPC}/4_m_ardha.spr")),
    ) else {
        return;
    };
    for len in 0..a.len() {
        let e = act::parse(&a[..len], Path::new("a.act")).unwrap_err();
        assert!(e.offset <= len as u64 && !e.field.is_empty(), "{len}: {e}");
    }
    for len in 0..s.len() {
        let e = spr::parse(&s[..len], Path::new("a.spr")).unwrap_err();
        assert!(e.offset <= len as u64 && !e.field.is_empty(), "{len}: {e}");
    }
}

#[test]
fn inspect_tells_versions_images_motions_intervals_and_the_companion_spr() {
    let Some(dir) = crate::common::corpus(&format!("ro/{NPC}")) else {
        return;
    };
    let r = kiln::inspect(&dir.join("4_pd_tamadora.act").into(), &[], None).unwrap();
    assert_eq!(
        (r.format.as_str(), r.version.as_str()),
        ("Ragnarok sprite animation (ACT)", "2.5")
    );
    let text = r.to_text();
    for line in [
        "actions: 56 (7 × 8 directions), frames: 368, layers: 880, anchors: 0",
        "  motion 0 (actions 0–7): 6 frames, interval 8 (192 ms a frame)",
        "  action 50: 8 frames, interval 4 (96 ms a frame)",
        "4_pd_tamadora.spr (SPR 2.1: 56 palette, 2 RGBA)",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(r.details["intervals"][50], serde_json::json!(4.0));
    assert_eq!(r.details["action_frames"][0][0]["layers"][0]["image"], 0);
    let r = kiln::inspect(&dir.join("4_pd_tamadora.spr").into(), &[], None).unwrap();
    let text = r.to_text();
    assert!(
        text.contains("images: 56 palette (run-length coded), 2 RGBA"),
        "{text}"
    );
    assert!(text.contains("RGBA images: 50×50 32×32"), "{text}");
    assert_eq!(r.details["palette"].as_array().map(Vec::len), Some(256));
}

/// The canvas bound leaves the client's own sprites far inside it: every
/// corpus sprite with its SPR loads, and no layer reaches a quarter of
/// `MAX_REACH` from the entity position.
#[test]
fn corpus_sprites_reach_far_less_than_the_canvas_bound() {
    use kiln::internals::client_sprite::compose::{layer_bounds, MAX_REACH};
    let Some(acts) = corpus_files("act") else {
        return;
    };
    let mut farthest = (0, PathBuf::new());
    let mut loaded = 0;
    for a in &acts {
        if !a.with_extension("spr").is_file() {
            continue;
        }
        let sprite = kiln::ClientSprite::load(a.as_path(), &[]).unwrap();
        loaded += 1;
        let s = sprite.spr();
        for action in &sprite.act().actions {
            for layer in action.frames.iter().flat_map(|f| &f.layers) {
                let size = match layer.image {
                    i if i < 0 => None,
                    i if layer.kind == 1 => s.rgba.get(i as usize).map(|m| (m.width, m.height)),
                    i => s.indexed.get(i as usize).map(|m| (m.width, m.height)),
                };
                let Some((w, h)) = size else { continue };
                let b = layer_bounds(layer, w as u32, h as u32);
                let reach = [b.min[0], b.min[1], b.max[0], b.max[1]]
                    .into_iter()
                    .map(i32::abs)
                    .max()
                    .unwrap_or(0);
                if reach > farthest.0 {
                    farthest = (reach, a.clone());
                }
            }
        }
    }
    assert_eq!(loaded, 5, "the corpus' sprites with their SPRs");
    eprintln!(
        "farthest corpus layer: {} px ({})",
        farthest.0,
        farthest.1.display()
    );
    assert!(farthest.0 > 0 && farthest.0 < MAX_REACH / 4, "{farthest:?}");
}
