//! Comparing a baked file with its reference: images per channel within a
//! tolerance and a count of differing pixels, JSON structurally, GIF and
//! APNG frame by frame, anything else byte for byte.

use image::{Rgba, RgbaImage};
use serde_json::Value;

/// How far an image may stray from its reference and still match.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// A pixel differs when any channel differs by more than this.
    pub channel: u8,
    /// How many pixels may differ.
    pub pixels: PixelBudget,
    /// Ignore a differing pixel when the other image has a pixel within
    /// `channel` of it one step away (edges that moved by anti-aliasing).
    pub antialiasing: bool,
}

impl Default for Tolerance {
    /// Exact: no channel may differ.
    fn default() -> Self {
        Tolerance {
            channel: 0,
            pixels: PixelBudget::Count(0),
            antialiasing: false,
        }
    }
}

/// How many pixels may differ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PixelBudget {
    /// At most this many.
    Count(u64),
    /// At most this percentage of the image.
    Percent(f64),
}

impl PixelBudget {
    fn allows(&self, differing: u64, total: u64) -> bool {
        match *self {
            PixelBudget::Count(n) => differing <= n,
            PixelBudget::Percent(p) => differing as f64 <= p / 100.0 * total as f64,
        }
    }

    /// `N` or `P%`.
    pub fn parse(text: &str) -> Result<PixelBudget, String> {
        let t = text.trim();
        if let Some(p) = t.strip_suffix('%') {
            let v: f64 = p
                .trim()
                .parse()
                .map_err(|_| format!("expected N or P%, got `{text}`"))?;
            if !(0.0..=100.0).contains(&v) {
                return Err(format!("percentage must be in 0..=100, got {v}"));
            }
            return Ok(PixelBudget::Percent(v));
        }
        t.parse()
            .map(PixelBudget::Count)
            .map_err(|_| format!("expected N or P%, got `{text}`"))
    }
}

/// How two images differ.
#[derive(Debug, Clone)]
pub struct ImageDiff {
    /// Pixels that differ beyond the channel tolerance.
    pub differing: u64,
    /// The largest channel difference anywhere.
    pub worst: u8,
    /// Whether the difference is within the tolerance.
    pub matches: bool,
    /// Per pixel, whether it counts as different (row-major).
    pub mask: Vec<bool>,
    /// Width and height (equal in both images, or the diff is not made).
    pub size: (u32, u32),
}

/// Compares two images of one size.
pub fn compare_images(expected: &RgbaImage, actual: &RgbaImage, tol: &Tolerance) -> ImageDiff {
    let (w, h) = expected.dimensions();
    let mut mask = vec![false; (w as usize) * (h as usize)];
    let mut differing = 0u64;
    let mut worst = 0u8;
    let close = |a: &Rgba<u8>, b: &Rgba<u8>| {
        a.0.iter()
            .zip(b.0)
            .all(|(x, y)| x.abs_diff(y) <= tol.channel)
    };
    for y in 0..h {
        for x in 0..w {
            let e = expected.get_pixel(x, y);
            let a = actual.get_pixel(x, y);
            let d =
                e.0.iter()
                    .zip(a.0)
                    .map(|(p, q)| p.abs_diff(q))
                    .max()
                    .unwrap_or(0);
            worst = worst.max(d);
            if d <= tol.channel {
                continue;
            }
            if tol.antialiasing
                && near_match(expected, x, y, a, &close)
                && near_match(actual, x, y, e, &close)
            {
                continue;
            }
            mask[(y * w + x) as usize] = true;
            differing += 1;
        }
    }
    ImageDiff {
        differing,
        worst,
        matches: tol.pixels.allows(differing, w as u64 * h as u64),
        mask,
        size: (w, h),
    }
}

/// Whether `img` holds a pixel close to `p` next to `(x, y)`.
fn near_match(
    img: &RgbaImage,
    x: u32,
    y: u32,
    p: &Rgba<u8>,
    close: &dyn Fn(&Rgba<u8>, &Rgba<u8>) -> bool,
) -> bool {
    let (w, h) = img.dimensions();
    for dy in -1i64..=1 {
        for dx in -1i64..=1 {
            let (nx, ny) = (x as i64 + dx, y as i64 + dy);
            if (dx, dy) == (0, 0) || nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                continue;
            }
            if close(img.get_pixel(nx as u32, ny as u32), p) {
                return true;
            }
        }
    }
    false
}

/// Reference | actual | the actual image greyed with differing pixels in
/// red: the picture a reviewer reads first.
pub fn diff_image(expected: &RgbaImage, actual: &RgbaImage, diff: Option<&ImageDiff>) -> RgbaImage {
    let w = expected.width().max(actual.width());
    let h = expected.height().max(actual.height());
    let mut out = RgbaImage::from_pixel(w * 3, h, Rgba([0, 0, 0, 255]));
    for (x, y, p) in expected.enumerate_pixels() {
        out.put_pixel(x, y, over_checker(p, x, y));
    }
    for (x, y, p) in actual.enumerate_pixels() {
        out.put_pixel(w + x, y, over_checker(p, x, y));
    }
    for (x, y, p) in difference_image(expected, actual, diff).enumerate_pixels() {
        out.put_pixel(2 * w + x, y, *p);
    }
    out
}

/// The actual image greyed, its differing pixels red (every pixel outside
/// the smaller image when the sizes differ): the third panel on its own.
pub fn difference_image(
    expected: &RgbaImage,
    actual: &RgbaImage,
    diff: Option<&ImageDiff>,
) -> RgbaImage {
    let w = expected.width().max(actual.width());
    let h = expected.height().max(actual.height());
    RgbaImage::from_fn(w, h, |x, y| {
        let bad = match diff {
            Some(d) if d.size == (w, h) => d.mask[(y * w + x) as usize],
            _ => {
                x >= expected.width().min(actual.width())
                    || y >= expected.height().min(actual.height())
            }
        };
        if bad {
            return Rgba([255, 0, 0, 255]);
        }
        let base = actual
            .get_pixel_checked(x, y)
            .map(|p| over_checker(p, x, y))
            .unwrap_or(Rgba([0, 0, 0, 255]));
        let grey = ((base[0] as u32 + base[1] as u32 + base[2] as u32) / 3 / 3 + 40) as u8;
        Rgba([grey, grey, grey, 255])
    })
}

/// A pixel over a grey checker, so transparency (and alpha differences)
/// show in an opaque picture.
fn over_checker(p: &Rgba<u8>, x: u32, y: u32) -> Rgba<u8> {
    let bg = if (x / 8 + y / 8).is_multiple_of(2) {
        200u32
    } else {
        160
    };
    let a = p[3] as u32;
    let mix = |c: u8| ((c as u32 * a + bg * (255 - a)) / 255) as u8;
    Rgba([mix(p[0]), mix(p[1]), mix(p[2]), 255])
}

/// One frame of a file beside the same frame of its reference.
#[derive(Debug, Clone)]
pub struct FramePair {
    /// The reference's frame and its delay (ms); `None` past its last.
    pub reference: Option<Frame>,
    /// The baked file's frame and its delay; `None` past its last.
    pub actual: Option<Frame>,
    /// How they differ, when both exist and have one size.
    pub diff: Option<ImageDiff>,
}

impl FramePair {
    /// Whether this frame counts as matching: both present, one size,
    /// one delay, pixels within the tolerance.
    pub fn matches(&self) -> bool {
        match (&self.reference, &self.actual, &self.diff) {
            (Some((_, rd)), Some((_, ad)), Some(d)) => rd == ad && d.matches,
            _ => false,
        }
    }
}

/// Every frame of two images (PNG, APNG or GIF) paired up, for a report
/// to show frame by frame; `None` when either is not an image kiln reads.
pub fn frame_pairs(expected: &[u8], actual: &[u8], tol: &Tolerance) -> Option<Vec<FramePair>> {
    let e = frames_of(expected)?.ok()?;
    let a = frames_of(actual)?.ok()?;
    let n = e.len().max(a.len());
    let mut e = e.into_iter();
    let mut a = a.into_iter();
    Some(
        (0..n)
            .map(|_| {
                let (reference, actual) = (e.next(), a.next());
                let diff = match (&reference, &actual) {
                    (Some((ei, _)), Some((ai, _))) if ei.dimensions() == ai.dimensions() => {
                        Some(compare_images(ei, ai, tol))
                    }
                    _ => None,
                };
                FramePair {
                    reference,
                    actual,
                    diff,
                }
            })
            .collect(),
    )
}

/// The frames of a PNG, APNG or GIF; `None` for anything else.
pub fn frames_of(bytes: &[u8]) -> Option<Result<Vec<Frame>, String>> {
    if is_png(bytes) {
        Some(frames_png(bytes))
    } else if bytes.starts_with(b"GIF8") {
        Some(frames_gif(bytes))
    } else {
        None
    }
}

/// What a comparison found.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// Within tolerance.
    Match,
    /// Images (or animation frames) that differ beyond the tolerance.
    Pixels {
        /// Differing pixels (summed over frames).
        differing: u64,
        /// Largest channel difference.
        worst: u8,
        /// The frame of an animation the diff image shows.
        frame: Option<usize>,
        /// Reference | actual | differences, for the diff image.
        panels: Box<RgbaImage>,
    },
    /// Anything else: sizes, frame counts, JSON values, bytes.
    Other(String),
}

impl Verdict {
    /// Whether the files match.
    pub fn matches(&self) -> bool {
        matches!(self, Verdict::Match)
    }
}

/// Compares a baked file with its reference, choosing the comparison by
/// the file's contents.
pub fn compare_files(expected: &[u8], actual: &[u8], tol: &Tolerance) -> Verdict {
    if expected == actual {
        return Verdict::Match;
    }
    if is_png(expected) && is_png(actual) {
        match (frames_png(expected), frames_png(actual)) {
            (Ok(e), Ok(a)) => return compare_frames(&e, &a, tol),
            (Err(e), _) => return Verdict::Other(format!("reference PNG: {e}")),
            (_, Err(e)) => return Verdict::Other(format!("PNG: {e}")),
        }
    }
    if expected.starts_with(b"GIF8") && actual.starts_with(b"GIF8") {
        match (frames_gif(expected), frames_gif(actual)) {
            (Ok(e), Ok(a)) => return compare_frames(&e, &a, tol),
            (Err(e), _) => return Verdict::Other(format!("reference GIF: {e}")),
            (_, Err(e)) => return Verdict::Other(format!("GIF: {e}")),
        }
    }
    if let (Ok(e), Ok(a)) = (
        serde_json::from_slice::<Value>(expected),
        serde_json::from_slice::<Value>(actual),
    ) {
        return match json_difference(&e, &a, "") {
            None => Verdict::Match,
            Some(d) => Verdict::Other(d),
        };
    }
    let at = expected
        .iter()
        .zip(actual)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    Verdict::Other(format!(
        "bytes differ from byte {at} ({} bytes vs {} in the reference)",
        actual.len(),
        expected.len()
    ))
}

fn is_png(b: &[u8]) -> bool {
    b.starts_with(&[0x89, b'P', b'N', b'G'])
}

/// One frame of an animation: the image and how long it shows (ms).
pub type Frame = (RgbaImage, u32);

fn frames_png(bytes: &[u8]) -> Result<Vec<Frame>, String> {
    use image::codecs::png::PngDecoder;
    use image::AnimationDecoder;
    let dec = PngDecoder::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    if dec.is_apng().map_err(|e| e.to_string())? {
        let frames = dec.apng().map_err(|e| e.to_string())?.into_frames();
        return frames
            .map(|f| {
                f.map(|f| {
                    let (n, d) = f.delay().numer_denom_ms();
                    let ms = n.checked_div(d).unwrap_or(0);
                    (f.into_buffer(), ms)
                })
                .map_err(|e| e.to_string())
            })
            .collect();
    }
    let img = image::load_from_memory(bytes).map_err(|e| e.to_string())?;
    Ok(vec![(img.to_rgba8(), 0)])
}

fn frames_gif(bytes: &[u8]) -> Result<Vec<Frame>, String> {
    use image::codecs::gif::GifDecoder;
    use image::AnimationDecoder;
    let dec = GifDecoder::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    dec.into_frames()
        .map(|f| {
            f.map(|f| {
                let (n, d) = f.delay().numer_denom_ms();
                let ms = n.checked_div(d).unwrap_or(0);
                (f.into_buffer(), ms)
            })
            .map_err(|e| e.to_string())
        })
        .collect()
}

fn compare_frames(e: &[Frame], a: &[Frame], tol: &Tolerance) -> Verdict {
    if e.len() != a.len() {
        return Verdict::Other(format!("{} frames, the reference has {}", a.len(), e.len()));
    }
    let animated = e.len() > 1;
    let mut total = 0u64;
    let mut worst = 0u8;
    let mut shown: Option<(usize, RgbaImage)> = None;
    let mut all_match = true;
    for (i, ((ei, ed), (ai, ad))) in e.iter().zip(a).enumerate() {
        if ei.dimensions() != ai.dimensions() {
            let (aw, ah) = ai.dimensions();
            let (ew, eh) = ei.dimensions();
            let which = if animated {
                format!("frame {i}: ")
            } else {
                String::new()
            };
            return Verdict::Other(format!("{which}{aw}x{ah}, the reference is {ew}x{eh}"));
        }
        if ed != ad {
            return Verdict::Other(format!("frame {i} shows {ad} ms, the reference {ed} ms"));
        }
        let d = compare_images(ei, ai, tol);
        total += d.differing;
        worst = worst.max(d.worst);
        if !d.matches {
            all_match = false;
            if shown.is_none() {
                shown = Some((i, diff_image(ei, ai, Some(&d))));
            }
        }
    }
    match shown {
        None if all_match => Verdict::Match,
        Some((i, panels)) => Verdict::Pixels {
            differing: total,
            worst,
            frame: animated.then_some(i),
            panels: Box::new(panels),
        },
        None => Verdict::Match,
    }
}

/// The first place two JSON values differ (numbers within a relative
/// 1e-6, so a float printed differently is not a difference).
pub fn json_difference(e: &Value, a: &Value, at: &str) -> Option<String> {
    let here = || {
        if at.is_empty() {
            "/".to_string()
        } else {
            at.to_string()
        }
    };
    match (e, a) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys() {
                if !y.contains_key(k) {
                    return Some(format!("{}: key `{k}` missing", here()));
                }
            }
            for k in y.keys() {
                if !x.contains_key(k) {
                    return Some(format!("{}: key `{k}` not in the reference", here()));
                }
            }
            x.iter()
                .find_map(|(k, v)| json_difference(v, &y[k], &format!("{at}/{k}")))
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!(
                    "{}: {} items, the reference has {}",
                    here(),
                    y.len(),
                    x.len()
                ));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| json_difference(p, q, &format!("{at}/{i}")))
        }
        (Value::Number(x), Value::Number(y)) => {
            let (p, q) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            let close = p == q || (p - q).abs() <= 1e-6 * p.abs().max(q.abs()).max(1.0);
            (!close).then(|| format!("{}: {y}, the reference has {x}", here()))
        }
        _ => (e != a).then(|| format!("{}: {a}, the reference has {e}", here())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn img(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> RgbaImage {
        RgbaImage::from_fn(w, h, |x, y| Rgba(f(x, y)))
    }

    #[test]
    fn tolerance_and_pixel_budget_edges() {
        let a = img(10, 10, |_, _| [100, 100, 100, 255]);
        let mut b = a.clone();
        for y in 2..4 {
            for x in 5..8 {
                b.put_pixel(x, y, Rgba([103, 100, 100, 255]));
            }
        }
        let exact = compare_images(&a, &b, &Tolerance::default());
        assert_eq!((exact.differing, exact.worst, exact.matches), (6, 3, false));
        let chan = |c| Tolerance {
            channel: c,
            ..Tolerance::default()
        };
        assert!(compare_images(&a, &b, &chan(3)).matches);
        assert_eq!(compare_images(&a, &b, &chan(2)).differing, 6);
        let budget = |p| Tolerance {
            pixels: p,
            ..Tolerance::default()
        };
        assert!(compare_images(&a, &b, &budget(PixelBudget::Count(6))).matches);
        assert!(!compare_images(&a, &b, &budget(PixelBudget::Count(5))).matches);
        assert!(compare_images(&a, &b, &budget(PixelBudget::Percent(6.0))).matches);
        assert!(!compare_images(&a, &b, &budget(PixelBudget::Percent(5.9))).matches);
        // The mask is exactly the changed block.
        let set: Vec<(u32, u32)> = (0..100)
            .filter(|i| exact.mask[*i as usize])
            .map(|i| (i % 10, i / 10))
            .collect();
        assert_eq!(set, [(5, 2), (6, 2), (7, 2), (5, 3), (6, 3), (7, 3)]);
        assert_eq!(PixelBudget::parse("0.5%"), Ok(PixelBudget::Percent(0.5)));
        assert_eq!(PixelBudget::parse("12"), Ok(PixelBudget::Count(12)));
        assert!(PixelBudget::parse("x").is_err());
        assert!(PixelBudget::parse("101%").is_err());
    }

    #[test]
    fn an_edge_moved_by_one_pixel_passes_only_with_antialiasing() {
        let edge = |at: u32| {
            img(8, 8, move |x, _| {
                if x < at {
                    [0, 0, 0, 255]
                } else {
                    [255, 255, 255, 255]
                }
            })
        };
        let (a, b) = (edge(4), edge(5));
        let strict = compare_images(&a, &b, &Tolerance::default());
        assert_eq!(strict.differing, 8);
        let aa = Tolerance {
            antialiasing: true,
            ..Tolerance::default()
        };
        assert!(compare_images(&a, &b, &aa).matches);
        // A pixel that appears from nowhere is not anti-aliasing.
        let mut c = a.clone();
        c.put_pixel(1, 1, Rgba([255, 0, 0, 255]));
        assert_eq!(compare_images(&a, &c, &aa).differing, 1);
    }

    #[test]
    fn json_is_compared_by_structure() {
        let e: Value =
            serde_json::from_str(r#"{"a": 1, "b": [1.0, {"c": "x"}], "f": 0.1}"#).unwrap();
        let same: Value =
            serde_json::from_str(r#"{"f": 0.10000000001, "b": [1, {"c": "x"}], "a": 1.0}"#)
                .unwrap();
        assert_eq!(json_difference(&e, &same, ""), None);
        let other: Value =
            serde_json::from_str(r#"{"a": 1, "b": [1.0, {"c": "y"}], "f": 0.1}"#).unwrap();
        assert_eq!(
            json_difference(&e, &other, "").as_deref(),
            Some("/b/1/c: \"y\", the reference has \"x\"")
        );
        let fewer: Value = serde_json::from_str(r#"{"a": 1, "f": 0.1}"#).unwrap();
        assert_eq!(
            json_difference(&e, &fewer, "").as_deref(),
            Some("/: key `b` missing")
        );
    }

    #[test]
    fn files_are_compared_by_their_content() {
        let png = |i: &RgbaImage| crate::output::encode_png(i).unwrap();
        let a = img(4, 4, |x, y| [(x * 40) as u8, (y * 40) as u8, 0, 255]);
        let mut b = a.clone();
        b.put_pixel(2, 2, Rgba([0, 0, 255, 255]));
        assert!(compare_files(&png(&a), &png(&a), &Tolerance::default()).matches());
        match compare_files(&png(&a), &png(&b), &Tolerance::default()) {
            Verdict::Pixels {
                differing,
                worst,
                frame,
                panels,
            } => {
                assert_eq!((differing, worst, frame), (1, 255, None));
                assert_eq!(panels.dimensions(), (12, 4));
                assert_eq!(panels.get_pixel(8 + 2, 2).0, [255, 0, 0, 255]);
                assert_ne!(panels.get_pixel(8 + 1, 2).0, [255, 0, 0, 255]);
            }
            v => panic!("{v:?}"),
        }
        let small = img(3, 4, |_, _| [0, 0, 0, 255]);
        assert!(matches!(
            compare_files(&png(&a), &png(&small), &Tolerance::default()),
            Verdict::Other(m) if m == "3x4, the reference is 4x4"
        ));
        assert!(matches!(
            compare_files(b"abcd", b"abXd", &Tolerance::default()),
            Verdict::Other(m) if m.starts_with("bytes differ from byte 2")
        ));
        let gif = |frames: &[&RgbaImage]| crate::bake::encode::gif::encode(frames, 10).unwrap();
        assert!(compare_files(&gif(&[&a, &b]), &gif(&[&a, &b]), &Tolerance::default()).matches());
        match compare_files(&gif(&[&a, &a]), &gif(&[&a, &b]), &Tolerance::default()) {
            Verdict::Pixels {
                frame, differing, ..
            } => assert_eq!((frame, differing), (Some(1), 1)),
            v => panic!("{v:?}"),
        }
        assert!(matches!(
            compare_files(&gif(&[&a]), &gif(&[&a, &b]), &Tolerance::default()),
            Verdict::Other(m) if m == "2 frames, the reference has 1"
        ));
    }
}
