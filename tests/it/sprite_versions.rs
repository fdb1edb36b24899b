//! SPR and ACT of every version, written by kiln's writers and read back;
//! what each version cannot hold is refused by the writer; broken input is
//! a located error, never a panic.

use kiln::internals::formats::sprite::{
    act, spr, Act, Action, Anchor, Frame, IndexedImage, Layer, RgbaImage, Spr,
};
use std::path::Path;

fn palette() -> Vec<[u8; 4]> {
    (0..256u32)
        .map(|i| [i as u8, (255 - i) as u8, (i * 7) as u8, 0])
        .collect()
}

fn spr_of(major: u8, minor: u8) -> Spr {
    let indexed = vec![
        IndexedImage {
            width: 3,
            height: 2,
            pixels: vec![0, 5, 0, 0, 0, 9],
        },
        // A run of index 0 longer than one code (255) and across rows.
        IndexedImage {
            width: 20,
            height: 30,
            pixels: (0..600).map(|i| if i % 299 == 0 { 7 } else { 0 }).collect(),
        },
        IndexedImage {
            width: 0,
            height: 0,
            pixels: vec![],
        },
    ];
    let rgba = if major >= 2 {
        vec![RgbaImage {
            width: 2,
            height: 2,
            pixels: vec![
                255, 0, 0, 255, 0, 255, 0, 128, //
                0, 0, 255, 0, 10, 20, 30, 40,
            ],
        }]
    } else {
        vec![]
    };
    Spr {
        major,
        minor,
        indexed,
        rgba,
        palette: ((major, minor) >= (1, 1)).then(palette),
        gap: vec![],
    }
}

#[test]
fn spr_of_every_version_writes_and_reads_back() {
    for (major, minor, len) in [
        (1, 0, 6 + 4 + 6 + 4 + 600 + 4),
        (1, 1, 0),
        (2, 0, 0),
        (2, 1, 0),
    ] {
        let s = spr_of(major, minor);
        let bytes = spr::write(&s).unwrap();
        assert_eq!(&bytes[..4], &[b'S', b'P', minor, major]);
        if len > 0 {
            assert_eq!(bytes.len(), len, "{major}.{minor}");
        }
        let back = spr::parse(&bytes, Path::new("t.spr")).unwrap();
        assert_eq!(back, s, "{major}.{minor}");
        // The palette is the last 1,024 bytes from 1.1 on.
        if (major, minor) >= (1, 1) {
            assert_eq!(
                &bytes[bytes.len() - 1024..bytes.len() - 1020],
                &[0, 255, 0, 0]
            );
        }
    }
    // 2.0 stores RGBA bottom row first as A, B, G, R.
    let bytes = spr::write(&spr_of(2, 0)).unwrap();
    let rgba_at = 8 + (4 + 6) + (4 + 600) + 4;
    assert_eq!(&bytes[rgba_at..rgba_at + 4], &[2, 0, 2, 0]);
    assert_eq!(
        &bytes[rgba_at + 4..rgba_at + 12],
        &[0, 255, 0, 0, 40, 30, 20, 10]
    );
    // 2.1 codes each run of index 0 as `00 n`, runs split at 255.
    let bytes = spr::write(&spr_of(2, 1)).unwrap();
    assert_eq!(&bytes[8..19], &[3, 0, 2, 0, 6, 0, 0, 1, 5, 0, 3]);
    assert_eq!(bytes[19], 9);
    assert_eq!(
        spr::encode_rle(&spr_of(2, 1).indexed[1].pixels),
        [7, 0, 255, 0, 43, 7, 0, 255, 0, 43, 7, 0, 1]
    );
}

#[test]
fn spr_writer_refuses_what_the_version_cannot_hold() {
    let mut s = spr_of(1, 1);
    s.rgba = spr_of(2, 0).rgba;
    assert!(spr::write(&s)
        .unwrap_err()
        .message
        .contains("cannot hold RGBA"));
    let mut s = spr_of(2, 1);
    s.palette = None;
    assert!(spr::write(&s)
        .unwrap_err()
        .message
        .contains("needs a palette"));
    let mut s = spr_of(2, 1);
    s.indexed[0].pixels.pop();
    assert!(spr::write(&s)
        .unwrap_err()
        .message
        .contains("holds 5 pixels"));
    // Noise does not code below 65,535 bytes in 2.1.
    let mut s = spr_of(2, 1);
    s.indexed = vec![IndexedImage {
        width: 300,
        height: 300,
        pixels: (0..90_000u32).map(|i| (i % 250 + 1) as u8).collect(),
    }];
    assert!(spr::write(&s)
        .unwrap_err()
        .message
        .contains("more than SPR 2.1's 65,535"));
}

fn layer(i: i32) -> Layer {
    Layer {
        x: -3 + i,
        y: 7,
        image: i,
        mirror: i % 2,
        tint: [255, 200, 100, 50],
        scale: [1.5, 1.5],
        rotation: 90,
        kind: 0,
        size: None,
    }
}

fn act_of(major: u8, minor: u8) -> Act {
    let v = (major, minor);
    let styled = v >= (2, 0);
    let mut frames = Vec::new();
    for f in 0..3 {
        let mut layers = vec![layer(f), layer(f + 1)];
        for l in &mut layers {
            if !styled {
                *l = Layer {
                    x: l.x,
                    y: l.y,
                    image: l.image,
                    mirror: l.mirror,
                    ..Layer::default()
                };
            }
            if v >= (2, 4) {
                l.scale[1] = 0.5;
            }
            if v >= (2, 5) {
                l.size = Some([12, 34]);
            }
        }
        let mut unknown = [0u8; 32];
        unknown[f as usize] = 0xaa;
        frames.push(Frame {
            unknown,
            layers,
            event: if v >= (2, 1) && f == 1 { 0 } else { -1 },
            anchors: if v >= (2, 3) {
                vec![Anchor {
                    unknown: [1, 2, 3, 4],
                    x: 5,
                    y: -30,
                    attribute: f,
                }]
            } else {
                vec![]
            },
        });
    }
    let actions = vec![Action { frames }, Action { frames: vec![] }];
    let mut atk = [0u8; 40];
    atk[..3].copy_from_slice(b"atk");
    Act {
        major,
        minor,
        reserved: [9; 10],
        intervals: if v >= (2, 2) { vec![4.0, 2.5] } else { vec![] },
        events: if v >= (2, 1) { vec![atk] } else { vec![] },
        actions,
    }
}

#[test]
fn act_of_every_version_writes_and_reads_back() {
    // Bytes of one layer and of the whole file, by version.
    for (minor, layer_bytes) in [(0, 32), (1, 32), (2, 32), (3, 32), (4, 36), (5, 44)] {
        let a = act_of(2, minor);
        assert_eq!(a.layer_bytes(), layer_bytes);
        let bytes = act::write(&a).unwrap();
        assert_eq!(&bytes[..6], &[b'A', b'C', minor, 2, 2, 0]);
        let frame = 32 + 4 + 2 * layer_bytes + 4 + if minor >= 3 { 4 + 16 } else { 0 };
        let tail = if minor >= 1 { 4 + 40 } else { 0 } + if minor >= 2 { 8 } else { 0 };
        assert_eq!(bytes.len(), 16 + 4 + 3 * frame + 4 + tail, "2.{minor}");
        let back = act::parse(&bytes, Path::new("t.act")).unwrap();
        assert_eq!(back, a, "2.{minor}");
        if minor >= 1 {
            assert_eq!(back.event_name(0).as_deref(), Some("atk"));
        }
    }
    let a = act_of(1, 0);
    assert_eq!(a.layer_bytes(), 16);
    let back = act::parse(&act::write(&a).unwrap(), Path::new("t.act")).unwrap();
    assert_eq!(back, a);
}

#[test]
fn every_layer_offset_is_where_the_layer_is_stored() {
    let i32_at = |b: &[u8], at: usize| i32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    for (major, minor) in [(1, 0), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4), (2, 5)] {
        let mut a = act_of(major, minor);
        // A third action after an empty one, so offsets run past both.
        a.actions.push(a.actions[0].clone());
        // Every layer its own position, so no other layer's bytes match.
        for (k, l) in a
            .actions
            .iter_mut()
            .flat_map(|a| &mut a.frames)
            .flat_map(|f| &mut f.layers)
            .enumerate()
        {
            l.x = 1000 + k as i32;
            l.y = -(k as i32);
        }
        if a.has_intervals() {
            a.intervals.push(1.0);
        }
        let bytes = act::write(&a).unwrap();
        for (ai, action) in a.actions.iter().enumerate() {
            for (fi, frame) in action.frames.iter().enumerate() {
                for (li, layer) in frame.layers.iter().enumerate() {
                    let at = a.layer_offset(ai, fi, li);
                    assert_eq!(
                        (i32_at(&bytes, at), i32_at(&bytes, at + 4)),
                        (layer.x, layer.y),
                        "{major}.{minor} action {ai} frame {fi} layer {li} at {at}"
                    );
                    assert_eq!(i32_at(&bytes, at + 8), layer.image);
                }
            }
        }
    }
}

#[test]
fn act_writer_refuses_what_the_version_cannot_hold() {
    let mut a = act_of(2, 3);
    a.actions[0].frames[0].layers[0].scale[1] = 2.0;
    assert!(act::write(&a).unwrap_err().message.contains("use 2.4"));
    let mut a = act_of(2, 2);
    a.actions[0].frames[0].anchors.push(Anchor::default());
    assert!(act::write(&a).unwrap_err().message.contains("use 2.3"));
    let mut a = act_of(2, 5);
    a.intervals.pop();
    assert!(act::write(&a)
        .unwrap_err()
        .message
        .contains("1 intervals for 2 actions"));
    let mut a = act_of(2, 5);
    a.actions[0].frames[2].layers[1].size = None;
    assert!(act::write(&a)
        .unwrap_err()
        .message
        .contains("stores every layer's size"));
    let mut a = act_of(2, 0);
    a.events.push([0; 40]);
    assert!(act::write(&a).unwrap_err().message.contains("use 2.1"));
}

#[test]
fn every_truncation_is_a_located_error() {
    let files = [
        act::write(&act_of(2, 5)).unwrap(),
        act::write(&act_of(2, 0)).unwrap(),
        spr::write(&spr_of(2, 1)).unwrap(),
        spr::write(&spr_of(2, 0)).unwrap(),
        spr::write(&spr_of(1, 0)).unwrap(),
    ];
    for (n, d) in files.iter().enumerate() {
        let is_act = d.starts_with(b"AC");
        for len in 0..d.len() {
            let e = if is_act {
                act::parse(&d[..len], Path::new("t")).unwrap_err()
            } else {
                match spr::parse(&d[..len], Path::new("t")) {
                    Err(e) => e,
                    // SPR 1.0 has no palette: a cut after a whole image
                    // leaves a shorter but valid file only when the cut
                    // falls on the end.
                    Ok(s) => panic!("file {n} cut at {len} read as {} images", s.indexed.len()),
                }
            };
            assert!(e.offset <= len as u64, "file {n} len {len}: {e}");
            assert!(!e.field.is_empty());
            assert_eq!(e.file, Path::new("t"));
        }
    }
}

#[test]
fn malformed_sprites_say_what_and_where() {
    let t = Path::new("m");
    let e = act::parse(b"AC\x06\x02\x00\x00", t).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("version", 2));
    let e = spr::parse(b"SP\x02\x02\x00\x00", t).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("version", 2));
    // Hostile counts are refused before anything is allocated.
    let mut d = b"AC\x05\x02\xff\xff".to_vec();
    d.extend([0; 10]);
    let e = act::parse(&d, t).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("action_count", 4));
    let mut d = act::write(&act_of(2, 5)).unwrap();
    d[16..20].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = act::parse(&d, t).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("action[0].frame_count", 16));
    let e = spr::parse(b"SP\x01\x02\xff\xff\x00\x00", t).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("indexed_count", 4));
    // Bytes after an ACT's last field.
    let mut d = act::write(&act_of(2, 5)).unwrap();
    let end = d.len();
    d.push(0);
    let e = act::parse(&d, t).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("end", end as u64));
    // A run that overflows the image, and a code that stops short.
    let mut d = spr::write(&spr_of(2, 1)).unwrap();
    d[15] = 4; // `00 01` → `00 04`: 9 pixels for a 3×2 image
    let e = spr::parse(&d, t).unwrap_err();
    assert_eq!(e.field, "indexed[0].pixels");
    assert!(e.message.contains("past the image's 6 pixels"), "{e}");
    assert_eq!(
        spr::decode_rle(&[5, 0], 2).unwrap_err(),
        (1, "a run of index 0 has no length byte".to_string())
    );
    assert!(spr::decode_rle(&[5], 2)
        .unwrap_err()
        .1
        .contains("give 1 of the image's 2"));
    // A palette cut short.
    let d = spr::write(&spr_of(2, 1)).unwrap();
    let e = spr::parse(&d[..d.len() - 1], t).unwrap_err();
    assert_eq!(e.field, "palette");
}

#[test]
fn flipped_bytes_never_panic() {
    let files = [
        act::write(&act_of(2, 5)).unwrap(),
        act::write(&act_of(2, 3)).unwrap(),
        spr::write(&spr_of(2, 1)).unwrap(),
        spr::write(&spr_of(2, 0)).unwrap(),
    ];
    for d in files {
        for i in 0..d.len() {
            for v in [0u8, 0x7f, 0xff] {
                let mut m = d.clone();
                m[i] = v;
                let _ = act::parse(&m, Path::new("f"));
                let _ = spr::parse(&m, Path::new("f"));
            }
        }
    }
}
