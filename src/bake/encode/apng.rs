//! Animated PNGs, one per clip × direction: full 8-bit alpha, which a GIF
//! cannot hold, and exact timing.
//!
//! Every frame is a whole image replacing the last (`BlendOp::Source`,
//! `DisposeOp::None`), so transparent pixels never keep an earlier frame's
//! colour. A delay is a fraction of a second: `1/fps` when the clip's rate
//! is a whole number, else whole milliseconds accumulated like the GIF's
//! centiseconds, so the total is the clip's length either way.

use image::RgbaImage;

/// How long each frame shows, as APNG's `delay_num / delay_den` seconds.
pub fn delays(frames: usize, frame_seconds: f32, fps: f32) -> Vec<(u16, u16)> {
    let whole = fps.round();
    if frame_seconds > 0.0 && fps > 0.0 && fps == whole && whole <= u16::MAX as f32 {
        return vec![(1, whole as u16); frames];
    }
    crate::bake::encode::timing::durations_ms(frames, frame_seconds)
        .into_iter()
        .map(|ms| (ms.min(u16::MAX as u32) as u16, 1000))
        .collect()
}

/// Encodes `frames` (all the same size) as an APNG with the given delays;
/// `looping` plays it forever, else once.
pub fn encode(
    frames: &[&RgbaImage],
    delays: &[(u16, u16)],
    looping: bool,
) -> Result<Vec<u8>, String> {
    let first = frames.first().ok_or("an APNG needs at least one frame")?;
    let (w, h) = first.dimensions();
    if let Some(f) = frames.iter().find(|f| f.dimensions() != (w, h)) {
        return Err(format!(
            "APNG frames differ in size: {}x{} and {w}x{h}",
            f.width(),
            f.height()
        ));
    }
    if delays.len() != frames.len() {
        return Err(format!(
            "{} delays for {} APNG frames",
            delays.len(),
            frames.len()
        ));
    }
    let fail = |e: png::EncodingError| format!("APNG encoding of {w}x{h} frames: {e}");
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Balanced);
        let count = u32::try_from(frames.len()).map_err(|_| "too many APNG frames".to_string())?;
        enc.set_animated(count, if looping { 0 } else { 1 })
            .map_err(fail)?;
        enc.set_blend_op(png::BlendOp::Source).map_err(fail)?;
        enc.set_dispose_op(png::DisposeOp::None).map_err(fail)?;
        let mut writer = enc.write_header().map_err(fail)?;
        for (f, &(num, den)) in frames.iter().zip(delays) {
            writer.set_frame_delay(num, den).map_err(fail)?;
            writer.write_image_data(f.as_raw()).map_err(fail)?;
        }
        writer.finish().map_err(fail)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_rates_are_exact_fractions() {
        assert_eq!(delays(2, 1.0 / 12.0, 12.0), [(1, 12), (1, 12)]);
        // 7.5 fps: 133.3 ms, accumulated in whole milliseconds.
        let d = delays(3, 1.0 / 7.5, 7.5);
        assert_eq!(
            d.iter().map(|x| x.1).collect::<Vec<_>>(),
            [1000, 1000, 1000]
        );
        assert_eq!(d.iter().map(|x| x.0 as u32).sum::<u32>(), 400);
        assert_eq!(delays(1, 0.0, 0.0), [(0, 1000)]);
    }
}
