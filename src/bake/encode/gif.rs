//! Animated GIFs, one per clip × direction.
//!
//! One palette per animation, kiln's own quantizer: it serves the whole GIF
//! (its global table) and is computed
//! over every frame so a colour keeps the same index from frame to frame and
//! nothing flickers. Index 0 is reserved for transparency; up to 255 colours
//! follow. A sprite with at most 255 distinct opaque colours keeps them
//! exactly; otherwise a median cut over the colour histogram picks them.
//! No dithering: the same pixel maps to the same index in every frame, which
//! keeps still parts still. Every step is deterministic (sorted histograms,
//! ties broken by position), so the same frames give the same bytes.

use image::RgbaImage;
use rayon::prelude::*;
use std::borrow::Cow;

pub use crate::palette::{Indexed, TRANSPARENT};

/// Alpha below this is transparent in a GIF (which has only on/off alpha).
pub const ALPHA_CUTOFF: u8 = 128;

/// GIF frame delay in centiseconds for frames shown `frame_seconds` each:
/// rounded, and at least 2 because most viewers slow delays of 0 or 1 to
/// about 10.
pub fn delay_cs(frame_seconds: f32) -> u16 {
    let cs = (frame_seconds as f64 * 100.0).round();
    cs.clamp(2.0, u16::MAX as f64) as u16
}

/// Builds one palette over every opaque pixel of `frames` (kiln's
/// quantizer, `crate::palette`).
pub fn build_palette(frames: &[&RgbaImage]) -> Indexed {
    Indexed::build(frames, ALPHA_CUTOFF)
}

/// The GIF colour table: the transparent slot (black), then the colours.
fn table(palette: &Indexed) -> Vec<u8> {
    let mut t = Vec::with_capacity((palette.colors().len() + 1) * 3);
    t.extend_from_slice(&[0, 0, 0]);
    for c in palette.colors() {
        t.extend_from_slice(c);
    }
    t
}

/// Encodes `frames` (all the same size) as a looping GIF with one shared
/// palette, `delay` centiseconds per frame, and "restore to background"
/// disposal so transparent areas do not keep the previous frame's pixels.
pub fn encode(frames: &[&RgbaImage], delay: u16) -> Result<Vec<u8>, String> {
    encode_timed(frames, &vec![delay; frames.len()], true)
}

/// As [`encode`], with each frame's own delay (centiseconds, see
/// [`crate::bake::encode::timing::gif_delays`]). A GIF that does not loop plays once:
/// it has no NETSCAPE loop extension, which is how browsers tell.
pub fn encode_timed(
    frames: &[&RgbaImage],
    delays: &[u16],
    looping: bool,
) -> Result<Vec<u8>, String> {
    let first = frames.first().ok_or("a GIF needs at least one frame")?;
    if delays.len() != frames.len() {
        return Err(format!(
            "{} delays for {} GIF frames",
            delays.len(),
            frames.len()
        ));
    }
    let (w, h) = (first.width(), first.height());
    if let Some(f) = frames.iter().find(|f| f.dimensions() != (w, h)) {
        return Err(format!(
            "GIF frames differ in size: {}x{} and {w}x{h}",
            f.width(),
            f.height()
        ));
    }
    let (gw, gh) = match (u16::try_from(w), u16::try_from(h)) {
        (Ok(a), Ok(b)) => (a, b),
        _ => return Err(format!("{w}x{h} is larger than a GIF can hold (65535)")),
    };
    let palette = build_palette(frames);
    // Each frame is mapped and LZW-compressed on its own, in parallel (the
    // same compressor `write_frame` runs, so the same bytes): a GIF's
    // frames are independent once the palette is chosen, and the last
    // GIFs of a bake no longer leave threads idle while one encodes.
    let encoded: Vec<gif::Frame<'static>> = frames
        .par_iter()
        .zip(delays)
        .map(|(f, &delay)| {
            let mut frame = gif::Frame {
                delay,
                dispose: gif::DisposalMethod::Background,
                transparent: Some(TRANSPARENT),
                width: gw,
                height: gh,
                buffer: Cow::Owned(palette.map(f, false)),
                ..gif::Frame::default()
            };
            frame.make_lzw_pre_encoded();
            frame
        })
        .collect();
    let fail = |e: gif::EncodingError| format!("GIF encoding: {e}");
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, gw, gh, &table(&palette)).map_err(fail)?;
        if looping {
            enc.set_repeat(gif::Repeat::Infinite).map_err(fail)?;
        }
        for frame in &encoded {
            enc.write_lzw_pre_encoded_frame(frame).map_err(fail)?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::palette::MAX_INDEXED;

    #[test]
    fn delays_round_and_clamp() {
        assert_eq!(delay_cs(1.0 / 12.0), 8);
        assert_eq!(delay_cs(0.125), 13);
        assert_eq!(delay_cs(0.0), 2);
        assert_eq!(delay_cs(1.0 / 60.0), 2);
        assert_eq!(delay_cs(1e9), u16::MAX);
    }

    #[test]
    fn frames_compressed_apart_give_the_bytes_of_one_encoder() {
        // Runs of one colour, a clear background, more colours than a
        // palette holds, and frames that differ.
        let frames: Vec<RgbaImage> = (0..5u32)
            .map(|k| {
                RgbaImage::from_fn(37, 23, |x, y| {
                    if (x + k) % 9 == 0 {
                        image::Rgba([0, 0, 0, 0])
                    } else if y < 5 {
                        image::Rgba([200, 10, 10, 255])
                    } else {
                        image::Rgba([(x * 7 + k) as u8, (y * 11) as u8, (x * y) as u8, 255])
                    }
                })
            })
            .collect();
        let refs: Vec<&RgbaImage> = frames.iter().collect();
        let delays = [8, 9, 8, 8, 9];
        let got = encode_timed(&refs, &delays, true).unwrap();
        // The plain way: one encoder maps and compresses frame by frame.
        let palette = build_palette(&refs);
        let mut want = Vec::new();
        {
            let mut enc = gif::Encoder::new(&mut want, 37, 23, &table(&palette)).unwrap();
            enc.set_repeat(gif::Repeat::Infinite).unwrap();
            for (f, &delay) in refs.iter().zip(&delays) {
                let px: Vec<u8> = f.pixels().map(|p| palette.index_of(p.0)).collect();
                let frame = gif::Frame {
                    delay,
                    dispose: gif::DisposalMethod::Background,
                    transparent: Some(TRANSPARENT),
                    width: 37,
                    height: 23,
                    buffer: Cow::Owned(px),
                    ..gif::Frame::default()
                };
                enc.write_frame(&frame).unwrap();
            }
        }
        assert!(got == want, "parallel frames changed the GIF's bytes");
    }

    #[test]
    fn few_colours_are_kept_exactly() {
        let img = RgbaImage::from_fn(4, 1, |x, _| match x {
            0 => image::Rgba([10, 20, 30, 255]),
            1 => image::Rgba([200, 0, 0, 255]),
            2 => image::Rgba([10, 20, 30, 200]),
            _ => image::Rgba([99, 99, 99, 127]),
        });
        let p = build_palette(&[&img]);
        assert_eq!(p.colors(), &[[10, 20, 30], [200, 0, 0]]);
        assert_eq!(p.index_of([10, 20, 30, 255]), 1);
        assert_eq!(p.index_of([200, 0, 0, 128]), 2);
        assert_eq!(p.index_of([99, 99, 99, 127]), TRANSPARENT);
    }

    #[test]
    fn many_colours_cut_to_255_and_map_near() {
        // 4096 distinct colours on a 64x64 gradient.
        let img = RgbaImage::from_fn(64, 64, |x, y| {
            image::Rgba([(x * 4) as u8, (y * 4) as u8, ((x + y) * 2) as u8, 255])
        });
        let p = build_palette(&[&img]);
        assert_eq!(p.colors().len(), MAX_INDEXED);
        let mut worst = 0i32;
        for px in img.pixels() {
            let c = p.colors()[p.index_of(px.0) as usize - 1];
            for (a, b) in c.iter().zip(&px.0[..3]) {
                worst = worst.max((*a as i32 - *b as i32).abs());
            }
        }
        // 4096 colours into 255 boxes: each box spans about 16 values per
        // axis, so no channel should be off by more than about that.
        assert!(worst <= 16, "worst channel error {worst}");
        assert_eq!(build_palette(&[&img]), p);
    }
}
