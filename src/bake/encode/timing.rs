//! How long each frame shows, in the units each output can hold.
//!
//! A GIF counts in centiseconds, so 12 fps (83.3 ms a frame) cannot be held
//! frame by frame. Rounding each frame alone (8 cs) makes a 12-frame second
//! last 0.96 s; here the clip's time is rounded once per frame boundary and
//! each delay is the difference, so frames take 8 or 9 cs and every
//! 12 frames last exactly 100 cs. The metadata gives the same durations
//! (80 or 90 ms), so an engine and the GIF play the clip alike.

/// Shortest GIF delay browsers honour; 0 and 1 are played as about 10.
pub const MIN_GIF_DELAY: u16 = 2;

/// The delay of each of `frames` frames shown `frame_seconds` each, in
/// centiseconds: accumulated so the total is the clip's length rounded
/// once. Each is at least [`MIN_GIF_DELAY`] — a clip above 50 fps plays
/// slower as a GIF — and a still (0 s) gets the minimum.
pub fn gif_delays(frames: usize, frame_seconds: f32) -> Vec<u16> {
    boundaries(frames, frame_seconds, 100.0)
        .into_iter()
        .map(|d| d.clamp(MIN_GIF_DELAY as u64, u16::MAX as u64) as u16)
        .collect()
}

/// Milliseconds each of `frames` frames shows in the metadata: what the
/// GIF holds whenever it can hold the clip (every delay at least
/// [`MIN_GIF_DELAY`]), else accumulated whole milliseconds. 0 for a still.
pub fn durations_ms(frames: usize, frame_seconds: f32) -> Vec<u32> {
    if frame_seconds.is_nan() || frame_seconds <= 0.0 {
        return vec![0; frames];
    }
    let cs = boundaries(frames, frame_seconds, 100.0);
    if cs.iter().all(|&d| d >= MIN_GIF_DELAY as u64) {
        cs.into_iter()
            .map(|d| (d * 10).min(u32::MAX as u64) as u32)
            .collect()
    } else {
        boundaries(frames, frame_seconds, 1000.0)
            .into_iter()
            .map(|d| d.min(u32::MAX as u64) as u32)
            .collect()
    }
}

/// Differences between rounded frame boundaries, in `1/per_second` units.
fn boundaries(frames: usize, frame_seconds: f32, per_second: f64) -> Vec<u64> {
    let step = frame_seconds.max(0.0) as f64 * per_second;
    let at = |i: usize| (i as f64 * step).round().clamp(0.0, u64::MAX as f64) as u64;
    (0..frames)
        .map(|i| at(i + 1).saturating_sub(at(i)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twelve_fps_lasts_exactly_a_second() {
        let d = gif_delays(12, 1.0 / 12.0);
        assert_eq!(d, [8, 9, 8, 8, 9, 8, 8, 9, 8, 8, 9, 8]);
        assert_eq!(d.iter().map(|&c| c as u32).sum::<u32>(), 100);
        let ms = durations_ms(12, 1.0 / 12.0);
        assert_eq!(ms.iter().sum::<u32>(), 1000);
        assert_eq!(ms, d.iter().map(|&c| c as u32 * 10).collect::<Vec<_>>());
    }

    #[test]
    fn whole_centiseconds_stay_even_and_fast_clips_fall_back_to_ms() {
        assert_eq!(gif_delays(3, 0.1), [10, 10, 10]);
        assert_eq!(durations_ms(3, 0.1), [100, 100, 100]);
        assert_eq!(durations_ms(2, 0.0), [0, 0]);
        assert_eq!(gif_delays(1, 0.0), [MIN_GIF_DELAY]);
        // 60 fps: a GIF cannot go below 2 cs, so it plays at 50 fps; the
        // metadata keeps the true 16/17 ms.
        assert_eq!(gif_delays(3, 1.0 / 60.0), [2, 2, 2]);
        assert_eq!(durations_ms(3, 1.0 / 60.0), [17, 16, 17]);
        assert_eq!(durations_ms(60, 1.0 / 60.0).iter().sum::<u32>(), 1000);
    }
}
