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
use std::borrow::Cow;

/// Palette index used for transparent pixels.
pub const TRANSPARENT: u8 = 0;
/// Most opaque colours in a palette (index 0 is transparency).
pub const MAX_COLORS: usize = 255;
/// Alpha below this is transparent in a GIF (which has only on/off alpha).
pub const ALPHA_CUTOFF: u8 = 128;

/// GIF frame delay in centiseconds for frames shown `frame_seconds` each:
/// rounded, and at least 2 because most viewers slow delays of 0 or 1 to
/// about 10.
pub fn delay_cs(frame_seconds: f32) -> u16 {
    let cs = (frame_seconds as f64 * 100.0).round();
    cs.clamp(2.0, u16::MAX as f64) as u16
}

/// A palette with index 0 transparent and `colors[i]` at index `i + 1`, plus
/// the exact mapping from every opaque colour seen to its index.
#[derive(Debug, Clone, PartialEq)]
pub struct Palette {
    pub colors: Vec<[u8; 3]>,
    /// `(0xRRGGBB, index)`, sorted by colour, for binary search.
    lookup: Vec<(u32, u8)>,
}

impl Palette {
    /// The index for a pixel of any alpha.
    pub fn index_of(&self, px: [u8; 4]) -> u8 {
        if px[3] < ALPHA_CUTOFF {
            return TRANSPARENT;
        }
        let key = pack(px);
        match self.lookup.binary_search_by_key(&key, |e| e.0) {
            Ok(i) => self.lookup[i].1,
            // Only colours seen while building are looked up by `encode`;
            // anything else still gets its nearest entry.
            Err(_) => nearest(&self.colors, key),
        }
    }

    /// The GIF colour table: transparent slot (black) then the colours.
    pub fn table(&self) -> Vec<u8> {
        let mut t = Vec::with_capacity((self.colors.len() + 1) * 3);
        t.extend_from_slice(&[0, 0, 0]);
        for c in &self.colors {
            t.extend_from_slice(c);
        }
        t
    }
}

fn pack(px: [u8; 4]) -> u32 {
    (px[0] as u32) << 16 | (px[1] as u32) << 8 | px[2] as u32
}

fn unpack(c: u32) -> [u8; 3] {
    [(c >> 16) as u8, (c >> 8) as u8, c as u8]
}

/// Index (1-based, as in the GIF) of the palette colour nearest to `c`;
/// ties go to the lower index.
fn nearest(colors: &[[u8; 3]], c: u32) -> u8 {
    let [r, g, b] = unpack(c);
    let mut best = (u32::MAX, 0usize);
    for (i, p) in colors.iter().enumerate() {
        let d = |a: u8, b: u8| (a as i32 - b as i32).pow(2) as u32;
        let dist = d(r, p[0]) + d(g, p[1]) + d(b, p[2]);
        if dist < best.0 {
            best = (dist, i);
        }
    }
    (best.1 + 1) as u8
}

/// Builds one palette over every opaque pixel of `frames`.
pub fn build_palette(frames: &[&RgbaImage]) -> Palette {
    let mut all: Vec<u32> = Vec::new();
    for f in frames {
        all.extend(
            f.pixels()
                .filter(|p| p.0[3] >= ALPHA_CUTOFF)
                .map(|p| pack(p.0)),
        );
    }
    all.sort_unstable();
    // Histogram of distinct colours, ascending.
    let mut hist: Vec<(u32, u64)> = Vec::new();
    for c in all {
        match hist.last_mut() {
            Some((last, n)) if *last == c => *n += 1,
            _ => hist.push((c, 1)),
        }
    }
    let (colors, mut lookup) = if hist.len() <= MAX_COLORS {
        let colors = hist.iter().map(|&(c, _)| unpack(c)).collect();
        let lookup = hist
            .iter()
            .enumerate()
            .map(|(i, &(c, _))| (c, (i + 1) as u8))
            .collect();
        (colors, lookup)
    } else {
        median_cut(&mut hist, MAX_COLORS)
    };
    lookup.sort_unstable_by_key(|e| e.0);
    Palette { colors, lookup }
}

/// Splits the colour histogram into at most `k` boxes. Returns each box's
/// pixel-weighted mean and, for every histogram colour, the palette index
/// (1-based) of the box it fell in. Reorders `hist`.
///
/// Each colour maps to its own box rather than to the globally nearest
/// entry: a nearest search costs 255 distance tests per distinct colour,
/// which for noisy textures (a million distinct colours) took most of the
/// time, and the box mean is what the cut chose to represent it anyway.
#[allow(clippy::type_complexity)]
fn median_cut(hist: &mut [(u32, u64)], k: usize) -> (Vec<[u8; 3]>, Vec<(u32, u8)>) {
    #[derive(Clone, Copy)]
    struct Box {
        start: usize,
        end: usize,
        channel: usize,
        score: u128,
    }
    let channel = |c: u32, ch: usize| ((c >> (16 - 8 * ch)) & 0xff) as u8;
    // Measured once per box: its widest channel and split priority
    // (range × pixels, so large, spread boxes are cut first).
    let make = |h: &[(u32, u64)], start: usize, end: usize| -> Box {
        let mut lo = [255u8; 3];
        let mut hi = [0u8; 3];
        let mut n = 0u64;
        for &(c, w) in &h[start..end] {
            for ch in 0..3 {
                let v = channel(c, ch);
                lo[ch] = lo[ch].min(v);
                hi[ch] = hi[ch].max(v);
            }
            n += w;
        }
        let ranges = [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]];
        // Ties go to the first channel (R, G, B) so the cut is reproducible.
        let mut best = 0;
        for ch in 1..3 {
            if ranges[ch] > ranges[best] {
                best = ch;
            }
        }
        let splittable = end - start >= 2 && ranges[best] > 0;
        Box {
            start,
            end,
            channel: best,
            score: if splittable {
                ranges[best] as u128 * n as u128
            } else {
                0
            },
        }
    };
    let mut boxes = vec![make(hist, 0, hist.len())];
    while boxes.len() < k {
        let mut pick: Option<usize> = None;
        for (i, b) in boxes.iter().enumerate() {
            if b.score > 0 && pick.is_none_or(|p| b.score > boxes[p].score) {
                pick = Some(i);
            }
        }
        let Some(i) = pick else { break };
        let Box {
            start,
            end,
            channel: ch,
            ..
        } = boxes[i];
        // Weighted median of the widest channel from a 256-bin histogram,
        // then a stable partition around it: linear per cut, where sorting
        // the box each time dominated the run on noisy textures.
        let slice = &mut hist[start..end];
        let mut bins = [0u64; 256];
        for &(c, w) in slice.iter() {
            bins[channel(c, ch) as usize] += w;
        }
        let total: u64 = bins.iter().sum();
        let mut acc = 0u64;
        let mut median = 0usize;
        for (v, &n) in bins.iter().enumerate() {
            acc += n;
            if acc * 2 >= total {
                median = v;
                break;
            }
        }
        let max = slice
            .iter()
            .map(|&(c, _)| channel(c, ch))
            .max()
            .unwrap_or(0) as usize;
        // Values ≤ median go left, unless that is every value (median at the
        // top), in which case values < median do; the box's range > 0 makes
        // both sides non-empty either way.
        let pivot = if median >= max { median - 1 } else { median };
        let mut left = Vec::with_capacity(slice.len());
        let mut right = Vec::with_capacity(slice.len());
        for &e in slice.iter() {
            if channel(e.0, ch) as usize <= pivot {
                left.push(e);
            } else {
                right.push(e);
            }
        }
        let cut = left.len();
        slice[..cut].copy_from_slice(&left);
        slice[cut..].copy_from_slice(&right);
        boxes[i] = make(hist, start, start + cut);
        boxes.insert(i + 1, make(hist, start + cut, end));
    }
    let mut colors = Vec::with_capacity(boxes.len());
    let mut lookup = Vec::with_capacity(hist.len());
    for (bi, b) in boxes.iter().enumerate() {
        let mut sum = [0u64; 3];
        let mut n = 0u64;
        for &(c, w) in &hist[b.start..b.end] {
            for (ch, s) in sum.iter_mut().enumerate() {
                *s += channel(c, ch) as u64 * w;
            }
            n += w;
            lookup.push((c, (bi + 1) as u8));
        }
        let n = n.max(1);
        colors.push(sum.map(|s| ((s + n / 2) / n) as u8));
    }
    (colors, lookup)
}

/// Encodes `frames` (all the same size) as a looping GIF with one shared
/// palette, `delay` centiseconds per frame, and "restore to background"
/// disposal so transparent areas do not keep the previous frame's pixels.
pub fn encode(frames: &[&RgbaImage], delay: u16) -> Result<Vec<u8>, String> {
    encode_timed(frames, &vec![delay; frames.len()], true)
}

/// As [`encode`], with each frame's own delay (centiseconds, see
/// [`super::timing::gif_delays`]). A GIF that does not loop plays once:
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
    let fail = |e: gif::EncodingError| format!("GIF encoding: {e}");
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, gw, gh, &palette.table()).map_err(fail)?;
        if looping {
            enc.set_repeat(gif::Repeat::Infinite).map_err(fail)?;
        }
        for (f, &delay) in frames.iter().zip(delays) {
            let indices: Vec<u8> = f.pixels().map(|p| palette.index_of(p.0)).collect();
            let frame = gif::Frame {
                delay,
                dispose: gif::DisposalMethod::Background,
                transparent: Some(TRANSPARENT),
                width: gw,
                height: gh,
                buffer: Cow::Owned(indices),
                ..gif::Frame::default()
            };
            enc.write_frame(&frame).map_err(fail)?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_round_and_clamp() {
        assert_eq!(delay_cs(1.0 / 12.0), 8);
        assert_eq!(delay_cs(0.125), 13);
        assert_eq!(delay_cs(0.0), 2);
        assert_eq!(delay_cs(1.0 / 60.0), 2);
        assert_eq!(delay_cs(1e9), u16::MAX);
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
        assert_eq!(p.colors, vec![[10, 20, 30], [200, 0, 0]]);
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
        assert_eq!(p.colors.len(), MAX_COLORS);
        let mut worst = 0i32;
        for px in img.pixels() {
            let c = p.colors[p.index_of(px.0) as usize - 1];
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
