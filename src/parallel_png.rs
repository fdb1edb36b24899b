//! PNG encoding of large images on every core. A big sprite sheet is one
//! PNG whose deflate stream the png crate writes on one thread, after every
//! frame is drawn — the longest serial step of a bake. Here the image is cut
//! into bands of rows; each band is filtered and deflated on its own (a
//! fresh compressor, ended by a sync flush so its output is whole bytes and
//! the bands concatenate into one valid stream, the last band carrying the
//! final block), its Adler-32 is taken, and the bands are joined with the
//! checksums combined. pigz makes gzip files the same way.
//!
//! The bands are fixed by the image's size, never by the thread count, so
//! the bytes are the same on any number of cores. Each band starts its
//! dictionary afresh, which costs a little size (under 1 % on kiln's sheets).
//! Rows are filtered as the png crate's default does: each row takes the
//! filter (none, sub, up, average, Paeth) whose output has the least sum of
//! absolute values as signed bytes.

use crate::error::{Error, Result};
use crate::raster::simd::Simd;
use flate2::{Compress, Compression, FlushCompress, Status};
use image::RgbaImage;
use rayon::prelude::*;

/// Raw image bytes from which [`crate::output::encode_png_with`] encodes in
/// bands; smaller images (every frame of a usual bake) are one band anyway
/// and keep the png crate's bytes.
pub const PARALLEL_FROM: usize = 4 << 20;

/// Whether kiln encodes a `width × height` RGBA image in bands here
/// ([`PARALLEL_FROM`] bytes or more) rather than with the png crate.
pub fn in_bands(width: u32, height: u32) -> bool {
    width as u64 * height as u64 * 4 >= PARALLEL_FROM as u64
}

/// Filtered bytes per band, about.
pub const BAND: usize = 1 << 20;

/// The zlib level of kiln's default PNG compression (`png: { compression:
/// default }`): a sink that encodes as kiln does streams its sheets with
/// `RowStream::for_image(width, height, DEFAULT_LEVEL)`.
pub const DEFAULT_LEVEL: u32 = kiln_recipe_yaml::keys::PngCompression::Default.zlib_level() as u32;

/// `img` as a PNG (8-bit RGBA) deflated at zlib `level` (1..=9), band by band
/// in parallel.
pub fn encode_rgba(img: &RgbaImage, level: u32) -> Result<Vec<u8>> {
    let (w, h) = img.dimensions();
    let mut stream = RowStream::new(w, h, level)?;
    stream.push(img.as_raw())?;
    stream.finish()
}

/// An RGBA PNG encoded as its rows arrive, so a sheet can be written in
/// strips as they are drawn instead of whole: each band of rows is filtered
/// and deflated (the bands in parallel) as soon as all its rows are in, and
/// only the rows of an unfinished band wait. The bands are those
/// [`encode_rgba`] cuts, so the bytes are the same however the rows arrive.
pub struct RowStream {
    width: u32,
    height: u32,
    /// Bytes a row.
    row: usize,
    rows_per_band: usize,
    level: u32,
    /// Rows received so far.
    received: usize,
    /// First row of the first band not yet deflated.
    band_start: usize,
    /// Rows `band_start..received`, waiting for the rest of their band.
    carry: Vec<u8>,
    /// Row `band_start - 1`, the filters' prior for the next band.
    prior: Option<Vec<u8>>,
    /// The zlib stream so far, and the Adler-32 of what it holds.
    zlib: Vec<u8>,
    adler: u32,
}

/// One band to filter and deflate: its rows, the row before them (none
/// above the image), and whether it ends the image.
struct Band<'a> {
    rows: std::borrow::Cow<'a, [u8]>,
    prior: Option<&'a [u8]>,
    last: bool,
}

impl RowStream {
    /// A `width × height` image at zlib `level` (1..=9).
    pub fn new(width: u32, height: u32, level: u32) -> Result<RowStream> {
        if width == 0 || height == 0 {
            return Err(Error::Other(format!(
                "PNG encoding of a {width}x{height} image: PNG needs at least one pixel"
            )));
        }
        let row = width as usize * 4;
        Ok(RowStream {
            width,
            height,
            row,
            rows_per_band: (BAND / (row + 1)).max(1),
            level,
            received: 0,
            band_start: 0,
            carry: Vec::new(),
            prior: None,
            zlib: vec![0x78, zlib_flags(level)],
            adler: 1,
        })
    }

    /// A stream giving the bytes kiln's PNG encoding gives a `width ×
    /// height` image at zlib `level`: `None` when the image is
    /// under [`PARALLEL_FROM`] bytes, which the png crate encodes whole
    /// instead ([`DEFAULT_LEVEL`] is kiln's default compression).
    pub fn for_image(width: u32, height: u32, level: u32) -> Option<RowStream> {
        if !in_bands(width, height) {
            return None;
        }
        RowStream::new(width, height, level).ok()
    }

    /// Bytes a row (four a pixel).
    pub fn row_bytes(&self) -> usize {
        self.row
    }

    /// Takes the next whole rows of the image, top to bottom, and deflates
    /// every band they complete.
    pub fn push(&mut self, rows: &[u8]) -> Result<()> {
        let (row, h) = (self.row, self.height as usize);
        let n = rows.len() / row;
        if !rows.len().is_multiple_of(row) || self.received + n > h {
            return Err(Error::Other(format!(
                "PNG encoding of a {}x{} image: {} bytes of rows after row {} do not fit it",
                self.width,
                self.height,
                rows.len(),
                self.received
            )));
        }
        let from = self.received;
        let end = from + n;
        // Rows `from..end` are `rows`; the carry holds `band_start..from`.
        let local = |y: usize| &rows[(y - from) * row..(y - from + 1) * row];
        let mut bands: Vec<Band> = Vec::new();
        let mut start = self.band_start;
        loop {
            let stop = (start + self.rows_per_band).min(h);
            if stop > end || start == stop {
                break;
            }
            let (data, prior) = if start < from {
                let mut joined = Vec::with_capacity((stop - start) * row);
                joined.extend_from_slice(&self.carry);
                joined.extend_from_slice(&rows[..(stop - from) * row]);
                (std::borrow::Cow::Owned(joined), self.prior.as_deref())
            } else {
                let prior = if start == 0 {
                    None
                } else if start == from {
                    self.prior.as_deref()
                } else {
                    Some(local(start - 1))
                };
                let data = &rows[(start - from) * row..(stop - from) * row];
                (std::borrow::Cow::Borrowed(data), prior)
            };
            bands.push(Band {
                rows: data,
                prior,
                last: stop == h,
            });
            start = stop;
        }
        let (row_len, level) = (self.row, self.level);
        let done: Vec<Result<(Vec<u8>, u32, usize)>> = bands
            .par_iter()
            .map(|b| {
                let filtered = crate::raster::simd::dispatch(
                    crate::raster::Level::detect(),
                    FilterRows {
                        rows: &b.rows,
                        prior: b.prior,
                        row: row_len,
                    },
                );
                let adler = adler32(&filtered);
                let deflated = deflate(&filtered, level, b.last)?;
                Ok((deflated, adler, filtered.len()))
            })
            .collect();
        for band in done {
            let (bytes, a, len) = band?;
            self.zlib.extend_from_slice(&bytes);
            self.adler = adler32_combine(self.adler, a, len);
        }
        // What the next band needs: the rows after the last deflated band,
        // and the row before them. A band that completed here ended past
        // `from`, so that row is in `rows`.
        if start > self.band_start {
            self.prior = Some(local(start - 1).to_vec());
        }
        if start < from {
            self.carry.extend_from_slice(rows);
        } else {
            self.carry.clear();
            self.carry.extend_from_slice(&rows[(start - from) * row..]);
        }
        self.band_start = start;
        self.received = end;
        Ok(())
    }

    /// The PNG file, once every row has been pushed.
    pub fn finish(mut self) -> Result<Vec<u8>> {
        if self.received != self.height as usize || self.band_start != self.received {
            return Err(Error::Other(format!(
                "PNG encoding of a {}x{} image: only {} rows were given",
                self.width, self.height, self.received
            )));
        }
        self.zlib.extend_from_slice(&self.adler.to_be_bytes());
        let mut out = Vec::with_capacity(self.zlib.len() + 64);
        out.extend_from_slice(b"\x89PNG\r\n\x1a\n");
        let mut ihdr = Vec::with_capacity(13);
        ihdr.extend_from_slice(&self.width.to_be_bytes());
        ihdr.extend_from_slice(&self.height.to_be_bytes());
        // 8 bits a channel, RGBA, deflate, adaptive filtering, no interlace.
        ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
        chunk(&mut out, b"IHDR", &ihdr);
        for part in self.zlib.chunks(1 << 20) {
            chunk(&mut out, b"IDAT", part);
        }
        chunk(&mut out, b"IEND", &[]);
        Ok(out)
    }
}

/// The zlib header's FLG byte: the level hint, with the check bits that
/// make `0x78 · 256 + FLG` a multiple of 31.
fn zlib_flags(level: u32) -> u8 {
    let hint: u8 = match level {
        0..=1 => 0,
        2..=5 => 1,
        6 => 2,
        _ => 3,
    };
    let f = hint << 6;
    let check = (31 - ((0x78u32 * 256 + f as u32) % 31)) % 31;
    f | check as u8
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = flate2::Crc::new();
    crc.update(kind);
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_be_bytes());
}

/// [`filter_rows`] as a kernel of the rasterizer's instruction-set
/// dispatch: the same integer code compiled for AVX2 where the CPU has it
/// (twice the lanes for the filters and their cost sums; the bytes are the
/// same at every level).
struct FilterRows<'a> {
    rows: &'a [u8],
    prior: Option<&'a [u8]>,
    row: usize,
}

impl crate::raster::simd::Kernel for FilterRows<'_> {
    type Output = Vec<u8>;

    #[inline(always)]
    fn run<S: crate::raster::simd::Simd>(self, s: S) -> Vec<u8> {
        filter_rows(s, self.rows, self.prior, self.row)
    }
}

/// `rows` (whole rows of `row` bytes), each led by its filter type byte;
/// `prior` is the image row above them (none: the top, filtered over
/// zeros).
#[inline(always)]
fn filter_rows<S: Simd>(s: S, rows: &[u8], prior: Option<&[u8]>, row: usize) -> Vec<u8> {
    let zero = vec![0u8; row];
    let n = rows.len() / row;
    let mut out = Vec::with_capacity(n * (row + 1));
    let mut trial = vec![0u8; row];
    let mut best = vec![0u8; row];
    for y in 0..n {
        let cur = &rows[y * row..(y + 1) * row];
        let prev = if y > 0 {
            &rows[(y - 1) * row..y * row]
        } else {
            prior.unwrap_or(&zero)
        };
        // A row repeating the one above: Up makes it all zeros, which no
        // filter beats, and only None ties it, on an all-zero row (ties go
        // to the earlier filter). The search below would choose the same.
        if cur == prev {
            if s.abs_sum_i8(cur) == 0 {
                out.push(0);
                out.extend_from_slice(cur);
            } else {
                out.push(2);
                out.resize(out.len() + row, 0);
            }
            continue;
        }
        // The usual heuristic: the filter whose bytes, read as signed,
        // have the least absolute sum.
        let mut pick = (u64::MAX, 0u8);
        for kind in 0..5u8 {
            // Filter 0 is the row itself: costed in place, not copied (a
            // background row costs nothing and stops the search there).
            let bytes: &[u8] = if kind == 0 {
                cur
            } else {
                apply_filter(kind, cur, prev, &mut trial);
                &trial
            };
            let cost = s.abs_sum_i8(bytes);
            if cost < pick.0 {
                pick = (cost, kind);
                if kind > 0 {
                    std::mem::swap(&mut best, &mut trial);
                }
                // Ties go to the earlier filter, so nothing beats a zero.
                if cost == 0 {
                    break;
                }
            }
        }
        out.push(pick.1);
        out.extend_from_slice(if pick.1 == 0 { cur } else { &best });
    }
    out
}

/// PNG filter `kind` of row `cur` over `prev`, four bytes a pixel.
#[inline(always)]
fn apply_filter(kind: u8, cur: &[u8], prev: &[u8], out: &mut [u8]) {
    const BPP: usize = 4;
    match kind {
        0 => out.copy_from_slice(cur),
        1 => {
            out[..BPP].copy_from_slice(&cur[..BPP]);
            for i in BPP..cur.len() {
                out[i] = cur[i].wrapping_sub(cur[i - BPP]);
            }
        }
        2 => {
            for i in 0..cur.len() {
                out[i] = cur[i].wrapping_sub(prev[i]);
            }
        }
        3 => {
            // The first pixel has no left neighbour; the rest go without a
            // test per byte.
            for i in 0..BPP {
                out[i] = cur[i].wrapping_sub(prev[i] / 2);
            }
            let rest = out[BPP..].iter_mut().zip(&cur[BPP..]);
            for ((o, &x), (&left, &up)) in rest.zip(cur.iter().zip(&prev[BPP..])) {
                *o = x.wrapping_sub(((left as u16 + up as u16) / 2) as u8);
            }
        }
        _ => {
            for i in 0..BPP {
                // No left neighbour: Paeth picks the byte above.
                out[i] = cur[i].wrapping_sub(prev[i]);
            }
            let rest = out[BPP..]
                .iter_mut()
                .zip(&cur[BPP..])
                .zip(cur.iter().zip(&prev[BPP..]).zip(prev.iter()));
            for ((o, &x), ((&a, &b), &c)) in rest {
                *o = x.wrapping_sub(paeth(a, b, c));
            }
        }
    }
}

/// The Paeth predictor, without branches so the loop above vectorises:
/// `|p − a| = |b − c|`, `|p − b| = |a − c|`, `|p − c| = |a + b − 2c|`.
#[inline(always)]
fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let (a16, b16, c16) = (a as i16, b as i16, c as i16);
    let pa = (b16 - c16).abs();
    let pb = (a16 - c16).abs();
    let pc = (a16 + b16 - 2 * c16).abs();
    let b_or_c = if pb <= pc { b } else { c };
    if pa <= pb && pa <= pc {
        a
    } else {
        b_or_c
    }
}

/// Raw deflate of one band: ended by a sync flush (whole bytes, no final
/// block) unless it is the last band, which finishes the stream.
fn deflate(data: &[u8], level: u32, last: bool) -> Result<Vec<u8>> {
    let mut c = Compress::new(Compression::new(level.clamp(1, 9)), false);
    let flush = if last {
        FlushCompress::Finish
    } else {
        FlushCompress::Sync
    };
    let mut out: Vec<u8> = Vec::with_capacity(data.len() / 4 + 1024);
    loop {
        if out.capacity() - out.len() < 1024 {
            out.reserve(out.capacity().max(1 << 16));
        }
        let taken = c.total_in() as usize;
        let status = c
            .compress_vec(&data[taken..], &mut out, flush)
            .map_err(|e| Error::Other(format!("PNG deflate: {e}")))?;
        let all_in = c.total_in() as usize == data.len();
        let room_left = out.len() < out.capacity();
        match status {
            Status::StreamEnd => break,
            _ if !last && all_in && room_left => break,
            _ => {}
        }
    }
    out.shrink_to_fit();
    Ok(out)
}

/// Adler-32 of `data`: zlib-rs's, vectorised for the CPU it runs on (a
/// sheet's filtered rows are hundreds of MB; a byte-at-a-time loop was 4 %
/// of a 1024² bake).
fn adler32(data: &[u8]) -> u32 {
    zlib_rs::adler32::adler32(1, data)
}

/// The Adler-32 of two pieces joined, from each piece's and the second's
/// length.
fn adler32_combine(first: u32, second: u32, len2: usize) -> u32 {
    zlib_rs::adler32::adler32_combine(first, second, len2 as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_combine_as_one_pass_over_the_whole() {
        let data: Vec<u8> = (0..100_000u32)
            .map(|i| ((i * 7) ^ (i >> 3)) as u8)
            .collect();
        for cut in [0, 1, 5551, 5552, 5553, 65_521, 99_999, 100_000] {
            let (x, y) = data.split_at(cut);
            assert_eq!(
                adler32_combine(adler32(x), adler32(y), y.len()),
                adler32(&data),
                "cut at {cut}"
            );
        }
        // The checksum zlib's documentation gives.
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        assert_eq!(adler32(&[]), 1);
        for level in 1..=9 {
            assert_eq!((0x78u32 * 256 + zlib_flags(level) as u32) % 31, 0);
        }
    }

    #[test]
    fn every_instruction_set_level_filters_to_the_same_bytes() {
        let (w, h) = (333usize, 40usize);
        let raw: Vec<u8> = (0..w * h * 4)
            .map(|i| match (i / (w * 4)) % 4 {
                0 => 0,
                1 => (i % 7) as u8 * 40,
                2 => ((i * 31) ^ (i >> 5)) as u8,
                _ => (i / 4 % 256) as u8,
            })
            .collect();
        let run = |level| {
            crate::raster::simd::dispatch(
                level,
                FilterRows {
                    rows: &raw,
                    prior: None,
                    row: w * 4,
                },
            )
        };
        let portable = run(crate::raster::Level::Portable);
        assert_eq!(portable.len(), h * (w * 4 + 1));
        // Rows of zeros, stripes, noise and ramps pick different filters.
        let mut kinds: Vec<u8> = portable.chunks(w * 4 + 1).map(|r| r[0]).collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert!(kinds.len() >= 3, "{kinds:?}");
        for level in crate::raster::Level::ALL
            .into_iter()
            .filter(|l| l.available())
        {
            assert_eq!(run(level), portable, "{level:?}");
        }
    }

    /// The textbook choice, with no short cut: every filter costed, the
    /// cheapest kept, ties to the earlier one.
    fn filter_rows_reference(rows: &[u8], row: usize) -> Vec<u8> {
        let zero = vec![0u8; row];
        let mut out = Vec::new();
        for y in 0..rows.len() / row {
            let cur = &rows[y * row..(y + 1) * row];
            let prev = if y > 0 {
                &rows[(y - 1) * row..y * row]
            } else {
                &zero[..]
            };
            let mut best: Option<(u64, u8, Vec<u8>)> = None;
            for kind in 0..5u8 {
                let mut f = vec![0u8; row];
                apply_filter(kind, cur, prev, &mut f);
                let c: u64 = f.iter().map(|&b| (b as i8).unsigned_abs() as u64).sum();
                if best.as_ref().is_none_or(|b| c < b.0) {
                    best = Some((c, kind, f));
                }
            }
            let (_, kind, f) = best.unwrap();
            out.push(kind);
            out.extend_from_slice(&f);
        }
        out
    }

    #[test]
    fn filters_are_chosen_as_the_full_search_chooses() {
        // Repeated rows (zero and not), a first pixel that differs from the
        // rest, noise, ramps: the short cut for repeats and the plain search
        // give the textbook choice, at every level.
        let (w, h) = (97usize, 24usize);
        let mut raw = Vec::with_capacity(w * h * 4);
        for y in 0..h {
            for i in 0..w * 4 {
                raw.push(match y {
                    0..=2 => 0,
                    3..=5 => [0, 0, 0, 255][i % 4],
                    6 | 7 => (i % 4 * 60) as u8,
                    8 => (i == 3) as u8,
                    9 => 0,
                    10..=12 => (i / 4 % 256) as u8 ^ 0x55,
                    13 | 14 => ((i * 31) ^ (i >> 3)) as u8,
                    _ => ((i * 7 + y * 13) ^ (i * y / 5)) as u8,
                });
            }
        }
        let reference = filter_rows_reference(&raw, w * 4);
        for level in crate::raster::Level::ALL
            .into_iter()
            .filter(|l| l.available())
        {
            let got = crate::raster::simd::dispatch(
                level,
                FilterRows {
                    rows: &raw,
                    prior: None,
                    row: w * 4,
                },
            );
            assert_eq!(got, reference, "{level:?}");
        }
        let kinds: Vec<u8> = reference.chunks(w * 4 + 1).map(|r| r[0]).collect();
        // Zero rows take None, a repeated non-zero row Up.
        assert_eq!(kinds[..6], [0, 0, 0, 1, 2, 2]);
    }

    #[test]
    fn rows_pushed_in_any_pieces_encode_to_the_same_bytes() {
        // Several bands (1 MB each at this width) and a short last one.
        let (w, h) = (700u32, 1100u32);
        let img = RgbaImage::from_fn(w, h, |x, y| {
            let v = (x * 7 + y * 13) ^ (x * y / 5);
            image::Rgba([v as u8, (v >> 3) as u8, (y % 17) as u8 * 15, 255])
        });
        let whole = encode_rgba(&img, 6).unwrap();
        let row = w as usize * 4;
        let rows_per_band = BAND / (row + 1);
        // Cuts inside bands, on band edges, one row at a time at the
        // start, pieces longer than a band, and an empty piece.
        for cuts in [
            vec![1, 2, 3, 500],
            vec![rows_per_band, 2 * rows_per_band],
            vec![rows_per_band - 1, rows_per_band + 1, 1099],
            vec![0, 0, 377, 377, 1000],
            (1..h as usize).step_by(97).collect(),
        ] {
            let mut stream = RowStream::new(w, h, 6).unwrap();
            let mut at = 0;
            for &c in cuts.iter().chain([h as usize].iter()) {
                stream.push(&img.as_raw()[at * row..c * row]).unwrap();
                at = c;
            }
            assert_eq!(stream.finish().unwrap(), whole, "cuts {cuts:?}");
        }
        // Too few rows, too many, or a piece that is not whole rows: errors.
        let mut short = RowStream::new(w, h, 6).unwrap();
        short.push(&img.as_raw()[..row * 10]).unwrap();
        assert!(short.finish().is_err());
        let mut long = RowStream::new(w, h, 6).unwrap();
        long.push(img.as_raw()).unwrap();
        assert!(long.push(&img.as_raw()[..row]).is_err());
        assert!(RowStream::new(w, h, 6).unwrap().push(&[0; 5]).is_err());
    }

    #[test]
    fn band_encoded_pngs_decode_to_the_image_on_any_thread_count() {
        // Odd width and enough rows for several bands; noise, flat runs and
        // gradients so every filter gets picked somewhere.
        let (w, h) = (1031u32, 900u32);
        let img = RgbaImage::from_fn(w, h, |x, y| {
            let n = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)) >> 7;
            match (y / 100) % 3 {
                0 => image::Rgba([n as u8, (n >> 8) as u8, (n >> 16) as u8, 255]),
                1 => image::Rgba([0, 0, 0, 0]),
                _ => image::Rgba([x as u8, y as u8, (x + y) as u8, 200]),
            }
        });
        let pool = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        };
        let one = pool(1).install(|| encode_rgba(&img, 6)).unwrap();
        let three = pool(3).install(|| encode_rgba(&img, 6)).unwrap();
        assert_eq!(one, three);
        let back = image::load_from_memory(&one).unwrap().to_rgba8();
        assert_eq!(back, img);
        for level in [1, 9] {
            let bytes = encode_rgba(&img, level).unwrap();
            assert_eq!(image::load_from_memory(&bytes).unwrap().to_rgba8(), img);
        }
        assert!(encode_rgba(&RgbaImage::new(0, 4), 6).is_err());
    }
}
