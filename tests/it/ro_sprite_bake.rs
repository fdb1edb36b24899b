//! Models baked into Ragnarok client sprites (`output.ro_sprite`), read
//! back by a reader of the test's own (not kiln's): 8 directions per
//! motion, every layer names an image the SPR holds, each frame drawn from
//! its layer equals kiln's own rendered frame after palette mapping, and
//! the model's origin sits on the entity position.

use crate::common::{corpus, kiln, tempdir};
use image::RgbaImage;
use std::path::{Path, PathBuf};

// --- A minimal SPR 2.1 / ACT 2.5 reader, independent of kiln's. ---

struct Sprite {
    images: Vec<RgbaImage>,
    actions: Vec<Vec<Vec<TestLayer>>>,
    events: Vec<String>,
    frame_events: Vec<Vec<i32>>,
    intervals: Vec<f32>,
}

#[derive(Clone, Copy)]
struct TestLayer {
    x: i32,
    y: i32,
    image: i32,
    mirror: bool,
}

fn u16_at(b: &[u8], o: usize) -> usize {
    u16::from_le_bytes([b[o], b[o + 1]]) as usize
}
fn i32_at(b: &[u8], o: usize) -> i32 {
    i32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}

fn read_sprite(spr: &[u8], act: &[u8]) -> Sprite {
    assert_eq!(&spr[..4], b"SP\x01\x02", "SPR 2.1");
    let n = u16_at(spr, 4);
    assert_eq!(u16_at(spr, 6), 0, "no RGBA images in a palette sprite");
    let pal = &spr[spr.len() - 1024..];
    let mut o = 8;
    let mut images = Vec::new();
    for _ in 0..n {
        let (w, h, size) = (u16_at(spr, o), u16_at(spr, o + 2), u16_at(spr, o + 4));
        let code = &spr[o + 6..o + 6 + size];
        o += 6 + size;
        let mut idx = Vec::new();
        let mut i = 0;
        while i < code.len() {
            if code[i] == 0 {
                idx.extend(std::iter::repeat_n(0u8, code[i + 1] as usize));
                i += 2;
            } else {
                idx.push(code[i]);
                i += 1;
            }
        }
        assert_eq!(idx.len(), w * h);
        let img = RgbaImage::from_fn(w as u32, h as u32, |x, y| {
            let p = idx[y as usize * w + x as usize] as usize;
            if p == 0 {
                image::Rgba([0, 0, 0, 0])
            } else {
                image::Rgba([pal[p * 4], pal[p * 4 + 1], pal[p * 4 + 2], 255])
            }
        });
        images.push(img);
    }
    assert_eq!(o, spr.len() - 1024, "the palette follows the images");

    assert_eq!(&act[..4], b"AC\x05\x02", "ACT 2.5");
    let count = u16_at(act, 4);
    let mut o = 16;
    let mut actions = Vec::new();
    let mut frame_events = Vec::new();
    for _ in 0..count {
        let frames = i32_at(act, o) as usize;
        o += 4;
        let mut fs = Vec::new();
        let mut evs = Vec::new();
        for _ in 0..frames {
            o += 32;
            let layers = i32_at(act, o) as usize;
            o += 4;
            let mut ls = Vec::new();
            for _ in 0..layers {
                ls.push(TestLayer {
                    x: i32_at(act, o),
                    y: i32_at(act, o + 4),
                    image: i32_at(act, o + 8),
                    mirror: i32_at(act, o + 12) != 0,
                });
                // 2.5: tint 4, scale 8, rotation 4, kind 4, size 8
                assert_eq!(&act[o + 16..o + 20], &[255; 4], "white tint");
                assert_eq!(i32_at(act, o + 32), 0, "palette image");
                o += 44;
            }
            evs.push(i32_at(act, o));
            let anchors = i32_at(act, o + 4);
            assert_eq!(anchors, 0);
            o += 8;
            fs.push(ls);
        }
        actions.push(fs);
        frame_events.push(evs);
    }
    let n_events = i32_at(act, o) as usize;
    o += 4;
    let mut events = Vec::new();
    for _ in 0..n_events {
        let raw = &act[o..o + 40];
        let end = raw.iter().position(|&b| b == 0).unwrap_or(40);
        events.push(String::from_utf8_lossy(&raw[..end]).into_owned());
        o += 40;
    }
    let intervals = (0..count)
        .map(|a| f32::from_le_bytes(act[o + 4 * a..o + 4 * a + 4].try_into().unwrap()))
        .collect();
    assert_eq!(o + 4 * count, act.len(), "the ACT ends after its intervals");
    Sprite {
        images,
        actions,
        events,
        frame_events,
        intervals,
    }
}

/// A frame drawn from its layers onto a `w × h` canvas whose entity
/// position is `entity`: each image centred on its offset (an odd size
/// half a pixel toward the top-left), mirrored about its centre.
fn draw(s: &Sprite, layers: &[TestLayer], w: u32, h: u32, entity: [i32; 2]) -> RgbaImage {
    let mut out = RgbaImage::new(w, h);
    for l in layers {
        let img = &s.images[l.image as usize];
        let (iw, ih) = (img.width() as i32, img.height() as i32);
        let left = if l.mirror {
            l.x - iw / 2
        } else {
            l.x - (iw + 1) / 2
        };
        let top = l.y - (ih + 1) / 2;
        for y in 0..ih {
            for x in 0..iw {
                let sx = if l.mirror { iw - 1 - x } else { x };
                let p = *img.get_pixel(sx as u32, y as u32);
                if p.0[3] == 0 {
                    continue;
                }
                let (cx, cy) = (entity[0] + left + x, entity[1] + top + y);
                assert!(cx >= 0 && cy >= 0 && cx < w as i32 && cy < h as i32);
                out.put_pixel(cx as u32, cy as u32, p);
            }
        }
    }
    out
}

// --- The bakes. ---

fn bake(recipe: &str, tag: &str) -> PathBuf {
    let dir = tempdir(tag);
    std::fs::write(dir.join("r.yaml"), recipe).unwrap();
    let o = kiln(&["bake", "r.yaml", "--quiet"], &dir);
    assert!(o.status.success(), "{}", crate::common::stderr(&o));
    dir.join("out")
}

fn pivot(out: &Path, name: &str) -> [f32; 2] {
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join(format!("{name}.json"))).unwrap()).unwrap();
    let p = &meta["meta"]["pivot"];
    [
        p["x"].as_f64().unwrap() as f32,
        p["y"].as_f64().unwrap() as f32,
    ]
}

/// Checks a baked sprite against kiln's rendered frames; returns the mean
/// and largest colour difference over opaque pixels.
fn check(out: &Path, name: &str, clips: &[(&str, usize)], size: u32) -> (f64, u8) {
    let spr = std::fs::read(out.join(format!("{name}.spr"))).unwrap();
    let act = std::fs::read(out.join(format!("{name}.act"))).unwrap();
    let s = read_sprite(&spr, &act);
    assert_eq!(s.actions.len(), clips.len() * 8, "8 directions per motion");
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join(format!("{name}.json"))).unwrap()).unwrap();
    // The model's origin (the pivot kiln framed in that direction) rounded
    // to a pixel: the entity position is within half a pixel of it.
    let entity_of = |clip: &str, d: usize| {
        let p = &meta["frames"][format!("{name}_{clip}_d{d}_f0")]["pivot"];
        let p = [
            p["x"].as_f64().unwrap() as f32,
            p["y"].as_f64().unwrap() as f32,
        ];
        let entity = [
            (p[0] * size as f32).round() as i32,
            (p[1] * size as f32).round() as i32,
        ];
        assert!((entity[0] as f32 - p[0] * size as f32).abs() <= 0.5);
        assert!((entity[1] as f32 - p[1] * size as f32).abs() <= 0.5);
        entity
    };
    let (mut sum, mut n, mut max) = (0u64, 0u64, 0u8);
    for (c, (clip, frames)) in clips.iter().enumerate() {
        for d in 0..8 {
            let entity = entity_of(clip, d);
            let action = &s.actions[c * 8 + d];
            assert_eq!(action.len(), *frames, "{clip} {d}");
            for (f, layers) in action.iter().enumerate() {
                for l in layers {
                    assert!((l.image as usize) < s.images.len(), "{clip} {d} {f}");
                }
                let drawn = draw(&s, layers, size, size, entity);
                let rendered = image::open(out.join(format!("{name}_{clip}_{d}_{f}.png")))
                    .unwrap()
                    .to_rgba8();
                for (a, b) in drawn.pixels().zip(rendered.pixels()) {
                    // Exactly the pixels with alpha ≥ 128 are drawn.
                    assert_eq!(a.0[3] == 255, b.0[3] >= 128, "{clip} {d} {f}");
                    if a.0[3] == 255 {
                        for ch in 0..3 {
                            let e = a.0[ch].abs_diff(b.0[ch]);
                            sum += e as u64;
                            max = max.max(e);
                        }
                        n += 3;
                    }
                }
            }
        }
    }
    (sum as f64 / n.max(1) as f64, max)
}

const SKEL: &str = "grimrock/grimrock+eob1-waterdeep/mod_assets/plugins/skeleton_warrior_axe";

#[test]
fn the_skeleton_warrior_bakes_into_a_sprite_the_client_plays() {
    let Some(root) = corpus(SKEL) else {
        return;
    };
    let anim = |n: &str| root.join(format!("animations/skeleton_warrior_axe_{n}.animation"));
    let recipe = format!(
        "defaults:\n  camera: {{ preset: ragnarok }}\n  size: 96x96\n  antialias: 1\n\
         jobs:\n  - name: skel\n    model: '{}'\n    clips:\n\
         \x20     - {{ name: idle, animation: '{}', frames: 3 }}\n\
         \x20     - {{ name: walk, animation: '{}', frames: 4 }}\n\
         \x20     - {{ name: attack, animation: '{}', fps: 5 }}\n\
         \x20     - {{ name: hurt, animation: '{}', frames: 2 }}\n\
         \x20   client_sprite: {{ hit: {{ attack: 2 }} }}\n\
         \x20   output: {{ dir: out, gif: false, frames: '{{name}}_{{clip}}_{{dir}}_{{frame}}.png', ro_sprite: '{{name}}' }}\n",
        root.join("models/skeleton_warrior_axe.model").display(),
        anim("idle").display(),
        anim("walk").display(),
        anim("attack").display(),
        anim("hit_back").display(),
    );
    let out = bake(&recipe, "ro-skel");
    let attack_frames = std::fs::read_dir(&out)
        .unwrap()
        .filter(|e| {
            let n = e.as_ref().unwrap().file_name();
            n.to_string_lossy().starts_with("skel_attack_0_")
        })
        .count();
    let clips = [
        ("idle", 3),
        ("walk", 4),
        ("attack", attack_frames),
        ("hurt", 2),
    ];
    let (mean, max) = check(&out, "skel", &clips, 96);
    // Its lit frames hold more than 255 colours, so the median cut merges
    // some: measured mean 0.12 and largest 15 per channel over the opaque
    // pixels; the bound leaves room for nothing more than that.
    assert!(mean < 0.25 && max <= 16, "mean {mean} max {max}");
    let s = read_sprite(
        &std::fs::read(out.join("skel.spr")).unwrap(),
        &std::fs::read(out.join("skel.act")).unwrap(),
    );
    // `atk` on the attack's frame 2 in each of its 8 directions, nowhere else.
    assert_eq!(s.events, ["atk"]);
    for (a, evs) in s.frame_events.iter().enumerate() {
        for (f, &e) in evs.iter().enumerate() {
            let want = if a / 8 == 2 && f == 2 { 0 } else { -1 };
            assert_eq!(e, want, "action {a} frame {f}");
        }
    }
    // 5 fps = 200 ms a frame = 8 1/3 ticks of 24 ms; 3 frames over the
    // idle's length are its own spacing.
    assert_eq!(s.intervals[16], 200.0 / 24.0);
}

#[test]
fn mirror_reuses_flipped_images_for_the_eastern_directions() {
    let Some(root) = corpus(SKEL) else {
        return;
    };
    let recipe = format!(
        "jobs:\n  - name: m\n    model: '{}'\n    size: 64x64\n    antialias: 1\n    clip: {{ time: 0 }}\n\
         \x20   camera: {{ preset: ragnarok }}\n    client_sprite: {{ mirror: true }}\n\
         \x20   output: {{ dir: out, gif: false, ro_sprite: '{{name}}' }}\n",
        root.join("models/skeleton_warrior_axe.model").display(),
    );
    let out = bake(&recipe, "ro-mirror");
    let s = read_sprite(
        &std::fs::read(out.join("m.spr")).unwrap(),
        &std::fs::read(out.join("m.act")).unwrap(),
    );
    assert_eq!(s.actions.len(), 8);
    // Directions 0–4 drawn, 5–7 the mirrored layers of 3–1.
    assert_eq!(s.images.len(), 5);
    for d in 5..8 {
        let (l, r) = (s.actions[d][0][0], s.actions[8 - d][0][0]);
        assert_eq!(l.image, r.image);
        assert!(l.mirror && !r.mirror);
        // Mirrored about the entity position.
        let w = s.images[l.image as usize].width() as i32;
        assert_eq!(l.x - w / 2, -(r.x - (w + 1) / 2) - w);
    }
}

#[test]
fn the_arma_zombie_walks_in_eight_directions() {
    let (Some(p3d), Some(cfg), Some(rtm)) = (
        corpus("arma/KoffeinFlummi+AGM/AGM_FastRoping/animbase/agm_fastroping.p3d"),
        corpus("arma/earlbalai+DayZ-Source/Legacy/dayz_anim/zmb/model.cfg"),
        corpus("arma/earlbalai+DayZ-Source/SQF/dayz_anim/zmb/zombie2_walk.rtm"),
    ) else {
        return;
    };
    let recipe = format!(
        "jobs:\n  - name: z\n    model: '{}'\n    skeleton: {{ config: '{}', class: OFP2_ManSkeleton }}\n\
         \x20   duration: 1.5\n    size: 96x96\n    antialias: 1\n    camera: {{ preset: ragnarok }}\n\
         \x20   clips:\n      - {{ name: walk, animation: '{}', frames: 3 }}\n\
         \x20   output: {{ dir: out, gif: false, frames: '{{name}}_{{clip}}_{{dir}}_{{frame}}.png', ro_sprite: '{{name}}' }}\n",
        p3d.display(),
        cfg.display(),
        rtm.display()
    );
    let out = bake(&recipe, "ro-zombie");
    let (mean, max) = check(&out, "z", &[("walk", 3)], 96);
    assert_eq!((mean, max), (0.0, 0), "mean {mean} max {max}");
}

const BEACON: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/recipes/samples/data/model/kiln/beacon.rsm"
);

#[test]
fn rgba_images_keep_every_pixel_and_dithering_stays_deterministic() {
    let recipe = |tag: &str, sprite: &str| {
        bake(
            &format!(
                "jobs:\n  - name: b\n    model: '{BEACON}'\n    size: 48x64\n    clip: {{ frames: 2 }}\n\
                 \x20   camera: {{ preset: ragnarok }}\n    client_sprite: {sprite}\n\
                 \x20   output: {{ dir: out, gif: false, frames: '{{name}}_{{dir}}_{{frame}}.png', ro_sprite: '{{name}}' }}\n"
            ),
            tag,
        )
    };
    let out = recipe("ro-rgba", "{ images: rgba }");
    let sprite = kiln::ClientSprite::load(out.join("b.act").as_path(), &[]).unwrap();
    assert_eq!(sprite.spr().indexed.len(), 0);
    assert!(!sprite.spr().rgba.is_empty());
    let p = pivot(&out, "b");
    let entity = [(p[0] * 48.0).round() as i32, (p[1] * 64.0).round() as i32];
    let canvas = kiln::SpriteBounds {
        min: [-entity[0], -entity[1]],
        max: [48 - entity[0], 64 - entity[1]],
    };
    for d in 0..8 {
        for f in 0..2 {
            let rendered = image::open(out.join(format!("b_{d}_{f}.png")))
                .unwrap()
                .to_rgba8();
            assert_eq!(sprite.draw(d, f, canvas), rendered, "{d}/{f}");
        }
    }
    // Dithering: the same bytes twice, and different from plain mapping.
    let a = recipe("ro-dither-a", "{ dither: true }");
    let b = recipe("ro-dither-b", "{ dither: true }");
    let plain = recipe("ro-plain", "{ dither: false }");
    let spr = |o: &Path| std::fs::read(o.join("b.spr")).unwrap();
    assert_eq!(spr(&a), spr(&b));
    assert_eq!(
        std::fs::read(a.join("b.act")).unwrap().len(),
        std::fs::read(plain.join("b.act")).unwrap().len()
    );
}

#[test]
fn a_sprite_needs_the_clients_directions_and_hits_name_clips() {
    let dir = tempdir("ro-errors");
    for (extra, says) in [
        (
            "    directions: 4\n",
            "the client draws 8 directions at yaws 0, 45, … 315",
        ),
        (
            "    client_sprite: { hit: { attack: 1 } }\n",
            "`client_sprite.hit` names clip 'attack', which the job does not have (default)",
        ),
        (
            "    client_sprite: { hit: { default: 5 } }\n",
            "`client_sprite.hit.default` is frame 5, but clip 'default' has 2 frame(s)",
        ),
    ] {
        let recipe = format!(
            "jobs:\n  - name: b\n    model: '{BEACON}'\n    size: 32x32\n    clip: {{ frames: 2 }}\n{extra}\
             \x20   output: {{ dir: out, gif: false, ro_sprite: '{{name}}' }}\n"
        );
        std::fs::write(dir.join("r.yaml"), recipe).unwrap();
        let o = kiln(&["bake", "r.yaml", "--quiet"], &dir);
        assert!(!o.status.success());
        let e = crate::common::stderr(&o);
        assert!(e.contains(says), "{e}");
    }
}

#[test]
fn each_direction_shows_the_model_facing_as_the_client_does() {
    // An asymmetric sample: the model's front (+Z, where kiln's yaw 0
    // looks from) and its left hand (+X). Seen through the camera of
    // client direction d (yaw d × 45°, the ragnarok preset's pitch), the
    // front must point where an entity facing d points on the client's
    // screen: 0 south → toward the viewer (down the screen), 2 west →
    // left, 4 north → away (up), 6 east → right; and at 2 (west) the
    // model shows its left side, its left hand nearer the camera.
    use glam::{Vec3, Vec4Swizzles};
    let framing = kiln::Framing {
        projection: kiln::Projection::Perspective { fov_deg: 15.0 },
        ..kiln::Framing::default()
    };
    let points = [Vec3::ZERO, Vec3::Z, Vec3::X, Vec3::Y];
    let views: Vec<(f32, f32)> = (0..8).map(|d| (d as f32 * 45.0, 45.0)).collect();
    let cams = kiln::internals::camera::fit_cameras(&points, &views, 1.0, &framing);
    let screen = |d: usize, p: Vec3| {
        let c = cams[d].proj * cams[d].view * p.extend(1.0);
        c.xy() / c.w
    };
    let depth = |d: usize, p: Vec3| (cams[d].view * p.extend(1.0)).z;
    for (d, want) in [
        (0, [0.0, -1.0]),
        (2, [-1.0, 0.0]),
        (4, [0.0, 1.0]),
        (6, [1.0, 0.0]),
    ] {
        let v = (screen(d, Vec3::Z) - screen(d, Vec3::ZERO)).normalize();
        assert!(
            v.dot(glam::Vec2::from(want)) > 0.9,
            "direction {d}: front points {v}"
        );
    }
    // West shows the left side; east the right.
    assert!(depth(2, Vec3::X) > depth(2, -Vec3::X));
    assert!(depth(6, -Vec3::X) > depth(6, Vec3::X));
    // South-west lies between south and west.
    let sw = (screen(1, Vec3::Z) - screen(1, Vec3::ZERO)).normalize();
    assert!(sw.x < -0.3 && sw.y < -0.1, "{sw}");
}
