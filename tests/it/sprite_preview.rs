//! Client sprites previewed as models: the corpus NPCs rendered frame by
//! frame and baked by a recipe into sheets and GIFs at the client's timing
//! (reviewed goldens), and the client's direction order read from them.

use crate::common::{assert_golden, corpus, kiln, tempdir};
use image::RgbaImage;
use kiln::ClientSprite;
use std::path::{Path, PathBuf};

const NPC: &str = "ro/hurtsky+RO-Clientresources/data/sprite/npc";

fn npc(name: &str) -> Option<PathBuf> {
    corpus(&format!("{NPC}/{name}"))
}

/// Bakes one ACT with a recipe (sheet, JSON, a GIF per clip × direction)
/// into a fresh folder; returns the folder.
fn bake(act: &Path, tag: &str) -> PathBuf {
    let dir = tempdir(tag);
    let recipe = format!(
        "jobs:\n  - name: s\n    model: '{}'\n    output: {{ dir: out, gif: '{{name}}_{{clip}}_{{dir}}.gif' }}\n",
        act.display()
    );
    std::fs::write(dir.join("r.yaml"), recipe).unwrap();
    let o = kiln(&["bake", "r.yaml", "--quiet"], &dir);
    assert!(o.status.success(), "{}", crate::common::stderr(&o));
    dir.join("out")
}

fn crop(img: &RgbaImage, x: u32, y: u32, w: u32, h: u32) -> RgbaImage {
    image::imageops::crop_imm(img, x, y, w, h).to_image()
}

#[test]
fn ardha_bakes_to_its_reviewed_sheet_with_client_timing() {
    let Some(act) = npc("4_m_ardha.act") else {
        return;
    };
    let out = bake(&act, "sprite-ardha");
    let sheet = image::open(out.join("s.png")).unwrap().to_rgba8();
    // One motion × 8 directions × 6 frames on a 52×100 canvas.
    assert_eq!(sheet.dimensions(), (6 * 52, 8 * 100));
    assert_golden("corpus/ro_4_m_ardha_sheet", &sheet);
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("s.json")).unwrap()).unwrap();
    // Interval 4 → 4 × 24 ms = 96 ms a frame; the JSON gives each frame
    // what the GIF holds, 96 ms accumulated in centiseconds (boundaries at
    // round(9.6 k) cs: 0, 10, 19, 29, 38, 48, 58).
    let durations: Vec<u64> = (0..6)
        .map(|f| {
            meta["frames"][format!("s_action0_d0_f{f}")]["duration"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(durations, [100, 90, 100, 90, 100, 100]);
    // The pivot is the entity position: the feet.
    let pivot = &meta["meta"]["pivot"];
    let sprite = ClientSprite::load(act.as_path(), &[]).unwrap();
    let all: Vec<usize> = (0..8).collect();
    let b = sprite.bounds(&all);
    assert_eq!((b.min, b.max), ([-26, -89], [26, 11]));
    assert_eq!(pivot["x"].as_f64().unwrap(), 0.5);
    assert_eq!(pivot["y"].as_f64().unwrap() as f32, 0.89);
    // Eight GIFs, 6 frames each holding the JSON's durations (96 ms
    // accumulated in centiseconds).
    for d in 0..8 {
        let f = std::fs::File::open(out.join(format!("s_action0_{d}.gif"))).unwrap();
        let mut dec = gif::DecodeOptions::new().read_info(f).unwrap();
        let mut delays = Vec::new();
        while let Some(frame) = dec.read_next_frame().unwrap() {
            delays.push(frame.delay as u64 * 10);
        }
        assert_eq!(delays, durations, "direction {d}");
    }
}

#[test]
fn tamadora_layers_composite_to_the_reviewed_frames_and_gifs() {
    let Some(act) = npc("4_pd_tamadora.act") else {
        return;
    };
    let out = bake(&act, "sprite-tamadora");
    let sheet = image::open(out.join("s.png")).unwrap().to_rgba8();
    let sprite = ClientSprite::load(act.as_path(), &[]).unwrap();
    let all: Vec<usize> = (0..sprite.actions()).collect();
    let (w, h) = sprite.bounds(&all).size();
    // Motion 6's directions differ in interval (8 and 4 ticks), so every
    // action is a clip of its own: 56 rows, as long as the longest.
    assert_eq!(sheet.dimensions(), (8 * w, 56 * h));
    // The first motion, 8 directions × 6 frames: palette layers with the
    // tinted, scaled, mirrored RGBA sparkles laid over them.
    let motion0 = crop(&sheet, 0, 0, 6 * w, 8 * h);
    assert_golden("corpus/ro_4_pd_tamadora_motion0", &motion0);
    // The same frames through the library, one by one.
    for a in 0..8 {
        for f in 0..6 {
            let img = sprite.draw(a, f, sprite.bounds(&all));
            assert_eq!(
                img,
                crop(&sheet, f as u32 * w, a as u32 * h, w, h),
                "{a}/{f}"
            );
        }
    }
    // Action 50 plays at 4 ticks (96 ms a frame), action 48 at 8 (192 ms):
    // GIF delays accumulate in centiseconds so the GIF lasts n × the
    // frame time (192 ms: 19, 19, 20, 19, 19, …).
    for (a, ms) in [(48, 192u32), (50, 96)] {
        let mut delays: Vec<u16> = Vec::new();
        let f = std::fs::File::open(out.join(format!("s_action{a}_0.gif"))).unwrap();
        let mut opts = gif::DecodeOptions::new();
        opts.set_color_output(gif::ColorOutput::RGBA);
        let mut dec = opts.read_info(f).unwrap();
        let mut n = 0;
        while let Some(frame) = dec.read_next_frame().unwrap() {
            delays.push(frame.delay);
            // Where the frame is opaque enough for a GIF, its colour.
            let cell = crop(&sheet, n * w, a as u32 * h, w, h);
            for (p, q) in cell.pixels().zip(frame.buffer.chunks_exact(4)) {
                if p.0[3] >= 128 {
                    assert_eq!(q[3], 255);
                } else {
                    assert_eq!(q[3], 0);
                }
            }
            n += 1;
        }
        assert_eq!(n, 8, "action {a}");
        // Each delay is the frame time's centiseconds rounded down or up,
        // and together they hold the clip exactly.
        let lo = (ms / 10) as u16;
        assert!(
            delays.iter().all(|&d| d == lo || d == lo + 1),
            "action {a}: {delays:?}"
        );
        let total: u32 = delays.iter().map(|&d| d as u32).sum();
        assert_eq!(total, (8 * ms + 5) / 10, "action {a}: {delays:?}");
    }
}

#[test]
fn render_draws_one_frame_of_a_motion_and_direction() {
    let Some(act) = npc("4_m_ardha.act") else {
        return;
    };
    let dir = tempdir("sprite-render");
    let png = dir.join("x.png");
    let o = kiln(
        &[
            "render",
            act.to_str().unwrap(),
            "--action",
            "0",
            "--direction",
            "2",
            "--frame",
            "3",
            "-o",
            png.to_str().unwrap(),
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", crate::common::stderr(&o));
    let img = image::open(&png).unwrap().to_rgba8();
    let sprite = ClientSprite::load(act.as_path(), &[]).unwrap();
    let r = sprite.render(2, 3).unwrap();
    assert_eq!(img, r.image);
    // The same pixels as the baked sheet's cell, shifted by the framings.
    let sheet_bounds = sprite.bounds(&(0..8).collect::<Vec<_>>());
    let own = sprite.bounds(&[2]);
    let cell = sprite.draw(2, 3, sheet_bounds);
    let (dx, dy) = (
        (own.min[0] - sheet_bounds.min[0]) as u32,
        (own.min[1] - sheet_bounds.min[1]) as u32,
    );
    assert_eq!(crop(&cell, dx, dy, img.width(), img.height()), img);
    // Out of range asks are usage errors naming the limit.
    let e = sprite.action_index(1, 0).unwrap_err().to_string();
    assert!(
        e.contains("action 1 out of range; it has 1 action(s)"),
        "{e}"
    );
    assert!(sprite.action_index(0, 8).is_err());
    assert!(sprite
        .render(2, 6)
        .unwrap_err()
        .to_string()
        .contains("has 6 frame(s)"));
}

#[test]
fn the_real_npcs_show_four_views_in_the_clients_direction_order() {
    // The client's order turns clockwise from south: 0 S, 1 SW, 2 W,
    // 3 NW, 4 N, 5 NE, 6 E, 7 SE. NPCs drawn in four views pair the
    // directions ({S, SW} facing the camera and the screen's left, {W, NW}
    // facing away to the left, {N, NE} and {E, SE} their mirror images),
    // so action 8m + 2k + 1 repeats 8m + 2k, and 7 − d is d mirrored.
    for name in ["4_m_ardha.act", "4_pd_tamadora.act"] {
        let Some(act) = npc(name) else {
            return;
        };
        let sprite = ClientSprite::load(act.as_path(), &[]).unwrap();
        let a = sprite.act();
        let key = |f: &kiln::internals::formats::sprite::Frame, flip: bool| {
            let mut v: Vec<(i32, i32, bool)> = f
                .layers
                .iter()
                .filter(|l| l.image >= 0)
                .map(|l| (l.kind, l.image, (l.mirror != 0) != flip))
                .collect();
            v.sort();
            v
        };
        let mut pairs = 0;
        for m in 0..a.actions.len() / 8 {
            for d in 0..4 {
                let (l, r) = (&a.actions[m * 8 + d], &a.actions[m * 8 + 7 - d]);
                assert_eq!(l.frames.len(), r.frames.len(), "{name} {m}/{d}");
                for (fl, fr) in l.frames.iter().zip(&r.frames) {
                    assert_eq!(key(fl, false), key(fr, true), "{name} motion {m} dir {d}");
                    pairs += 1;
                }
            }
            for k in 0..4 {
                let (l, r) = (&a.actions[m * 8 + 2 * k], &a.actions[m * 8 + 2 * k + 1]);
                let lk: Vec<_> = l.frames.iter().map(|f| key(f, false)).collect();
                let rk: Vec<_> = r.frames.iter().map(|f| key(f, false)).collect();
                assert_eq!(lk, rk, "{name} motion {m} view {k}");
            }
        }
        assert!(pairs > 0, "{name}");
    }
}

#[test]
fn a_sprite_is_no_3d_model_for_export() {
    let Some(act) = npc("4_m_ardha.act") else {
        return;
    };
    let dir = tempdir("sprite-export");
    let o = kiln(&["export", act.to_str().unwrap(), "-o", "x.glb"], &dir);
    assert_eq!(o.status.code(), Some(2));
    let e = crate::common::stderr(&o);
    assert!(
        e.contains("a Ragnarok client sprite (SPR/ACT), 2D images rather than a 3D model"),
        "{e}"
    );
}
