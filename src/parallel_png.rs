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
                let filtered = crate::raster::png_filter::filter_rows(
                    crate::raster::Level::detect(),
                    &b.rows,
                    b.prior,
                    row_len,
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
