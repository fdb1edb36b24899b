//! kiln's shared quantizer: one palette over many frames, index 0
//! transparent, exact for up to 255 colours; the GIF writer's palette.

use image::{Rgba, RgbaImage};
use kiln::internals::palette::{Indexed, TRANSPARENT};

fn noise(seed: u64, w: u32, h: u32) -> RgbaImage {
    let mut rng = crate::common::Rng(seed);
    RgbaImage::from_fn(w, h, |_, _| {
        let v = rng.next();
        Rgba([
            v as u8,
            (v >> 8) as u8,
            (v >> 16) as u8,
            if v >> 40 & 7 == 0 { 0 } else { 255 },
        ])
    })
}

#[test]
fn few_colours_are_kept_exactly_and_index_0_is_transparent() {
    let a = RgbaImage::from_fn(4, 2, |x, _| {
        Rgba([x as u8 * 10, 0, 0, if x == 0 { 0 } else { 255 }])
    });
    let b = RgbaImage::from_fn(4, 2, |x, _| Rgba([0, x as u8 * 10, 0, 255]));
    let p = Indexed::build(&[&a, &b], 128);
    assert_eq!(p.colors().len(), 7);
    assert_eq!(p.map(&a, false)[0], TRANSPARENT);
    for img in [&a, &b] {
        for (i, px) in p.map(img, false).iter().zip(img.pixels()) {
            if px.0[3] >= 128 {
                assert_eq!(p.color(*i), Some([px.0[0], px.0[1], px.0[2]]));
            }
        }
    }
}

#[test]
fn many_colours_are_cut_once_and_the_gif_writer_shows_exactly_them() {
    use image::AnimationDecoder;
    let frames: Vec<RgbaImage> = (0..3).map(|s| noise(s + 1, 40, 30)).collect();
    let refs: Vec<&RgbaImage> = frames.iter().collect();
    let p = Indexed::build(&refs, kiln::internals::bake::encode::gif::ALPHA_CUTOFF);
    assert_eq!(p.colors().len(), 255);
    // The GIF of these frames shows every opaque pixel as its palette
    // colour, in every frame.
    let gif = kiln::internals::bake::encode::gif::encode(&refs, 10).unwrap();
    let decoded = image::codecs::gif::GifDecoder::new(std::io::Cursor::new(gif))
        .unwrap()
        .into_frames()
        .collect_frames()
        .unwrap();
    assert_eq!(decoded.len(), frames.len());
    for (f, d) in frames.iter().zip(&decoded) {
        for (px, got) in f.pixels().zip(d.buffer().pixels()) {
            if px.0[3] >= 128 {
                let want = p.color(p.index_of(px.0)).unwrap();
                assert_eq!(
                    [got.0[0], got.0[1], got.0[2], got.0[3]],
                    [want[0], want[1], want[2], 255]
                );
            } else {
                assert_eq!(got.0[3], 0);
            }
        }
    }
    // Deterministic, dithered or not; dithering moves some pixels.
    assert_eq!(Indexed::build(&refs, 128), p);
    let (d1, d2) = (p.map(&frames[0], true), p.map(&frames[0], true));
    assert_eq!(d1, d2);
    assert_ne!(d1, p.map(&frames[0], false));
    // Transparent pixels stay 0 when dithered.
    for (i, px) in d1.iter().zip(frames[0].pixels()) {
        assert_eq!(*i == TRANSPARENT, px.0[3] < 128);
    }
}
