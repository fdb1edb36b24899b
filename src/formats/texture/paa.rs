//! Arma PAA/PAC textures: DXT1–5 (mipmaps LZO1X-compressed when the width's
//! top bit is set), ARGB4444, ARGB1555, ARGB8888 and AI88 (BI's LZSS with a
//! checksum), any size (sides need not be powers of two).
//!
//! After the u16 type come `GGAT` tags (`GGAT`, a reversed 4-letter name,
//! u32 length, data): `CGVA` average colour, `CXAM` maximum colour, `GALF`
//! alpha flag (1 = interpolated alpha, 2 = alpha tested), `ZIWS` the
//! channel swizzle TexConvert applied, `SFFO` 16 mipmap offsets. Then a u16
//! palette count (0 in practice, its colours skipped), then the mipmaps
//! (u16 width, u16 height, u24 size, data) until a zero size.
//!
//! Decoding applies the swizzle back (a `_nohq` normal map stored with
//! A = 1 − R, R = 1 − A reads as the artist's image) and uses the alpha
//! flag: alpha-tested textures come out with alpha 0 or 255 only, so they
//! are drawn alpha-tested like a colour key.

use super::dxt::{self, Dxt};
use super::{check_dimensions, parse_error, texel_buffer, working_buffer};
use crate::error::ParseError;
use crate::formats::lzo;
use crate::memory::Allowance;
use crate::source::lzss;
use crate::texture::{finish, Texture};
use serde::Serialize;
use std::path::Path;

/// The pixel formats of PAA mipmaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PaaFormat {
    /// `FF01`.
    Dxt1,
    /// `FF02` (premultiplied DXT3).
    Dxt2,
    /// `FF03`.
    Dxt3,
    /// `FF04` (premultiplied DXT5).
    Dxt4,
    /// `FF05`.
    Dxt5,
    /// `4444`.
    Argb4444,
    /// `1555`.
    Argb1555,
    /// `8888`.
    Argb8888,
    /// `8080`: grey and alpha.
    Ai88,
}

impl PaaFormat {
    /// The format of a type number.
    pub fn from_type(t: u16) -> Option<PaaFormat> {
        Some(match t {
            0xff01 => PaaFormat::Dxt1,
            0xff02 => PaaFormat::Dxt2,
            0xff03 => PaaFormat::Dxt3,
            0xff04 => PaaFormat::Dxt4,
            0xff05 => PaaFormat::Dxt5,
            0x4444 => PaaFormat::Argb4444,
            0x1555 => PaaFormat::Argb1555,
            0x8888 => PaaFormat::Argb8888,
            0x8080 => PaaFormat::Ai88,
            _ => return None,
        })
    }

    /// The type number.
    pub fn type_number(self) -> u16 {
        match self {
            PaaFormat::Dxt1 => 0xff01,
            PaaFormat::Dxt2 => 0xff02,
            PaaFormat::Dxt3 => 0xff03,
            PaaFormat::Dxt4 => 0xff04,
            PaaFormat::Dxt5 => 0xff05,
            PaaFormat::Argb4444 => 0x4444,
            PaaFormat::Argb1555 => 0x1555,
            PaaFormat::Argb8888 => 0x8888,
            PaaFormat::Ai88 => 0x8080,
        }
    }

    fn dxt(self) -> Option<Dxt> {
        match self {
            PaaFormat::Dxt1 => Some(Dxt::Bc1),
            PaaFormat::Dxt2 | PaaFormat::Dxt3 => Some(Dxt::Bc2),
            PaaFormat::Dxt4 | PaaFormat::Dxt5 => Some(Dxt::Bc3),
            _ => None,
        }
    }

    fn bytes_per_texel(self) -> u64 {
        match self {
            PaaFormat::Argb8888 => 4,
            _ => 2,
        }
    }

    /// Bytes of an uncompressed `width` × `height` mipmap.
    pub fn image_bytes(self, width: u32, height: u32) -> u64 {
        match self.dxt() {
            Some(d) => d.image_bytes(width, height),
            None => width as u64 * height as u64 * self.bytes_per_texel(),
        }
    }
}

/// One mipmap as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Mip {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Where its data starts in the file.
    pub offset: usize,
    /// Its stored size in bytes.
    pub size: usize,
    /// LZO1X (DXT) or LZSS (others) compressed.
    pub compressed: bool,
}

/// A PAA's header, tags and mipmap table.
#[derive(Debug, Clone, Serialize)]
pub struct Paa {
    /// Pixel format.
    pub format: PaaFormat,
    /// `GALF`: 1 interpolated alpha, 2 alpha-tested.
    pub alpha_flag: Option<u32>,
    /// `ZIWS`: the source channel of stored A, R, G, B (0–3 = A R G B,
    /// 4–7 the same inverted, 8 = one, 9 = zero).
    pub swizzle: Option<[u8; 4]>,
    /// `CGVA`: the average colour, RGBA.
    pub average: Option<[u8; 4]>,
    /// `CXAM`: the maximum colour, RGBA.
    pub max: Option<[u8; 4]>,
    /// Every tag by name (as read, e.g. `AVGC`) and length.
    pub tags: Vec<(String, u32)>,
    /// The mipmaps, largest first.
    pub mips: Vec<Mip>,
}

/// Whether `data` starts like a PAA: a known type, then a tag (or, for
/// tagless files, a name ending in `.paa`/`.pac`).
pub fn looks_like_paa(data: &[u8], name: &Path) -> bool {
    let Some(t) = data.get(..2).map(|b| u16::from_le_bytes([b[0], b[1]])) else {
        return false;
    };
    if PaaFormat::from_type(t).is_none() {
        return false;
    }
    let ext = name
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    data.get(2..6) == Some(b"GGAT") || matches!(ext.as_deref(), Some("paa" | "pac"))
}

/// BGRA bytes of a colour tag → RGBA.
fn colour(data: &[u8]) -> Option<[u8; 4]> {
    match data {
        [b, g, r, a, ..] => Some([*r, *g, *b, *a]),
        _ => None,
    }
}

/// Reads the header, tags and mipmap table.
pub fn parse(data: &[u8], file: &Path) -> Result<Paa, ParseError> {
    let mut r = crate::formats::reader::Reader::new(data, file);
    let t = r.u16("type")?;
    let format = PaaFormat::from_type(t)
        .ok_or_else(|| r.error_at(0, "type", format!("unknown PAA type 0x{t:04x}")))?;
    let mut paa = Paa {
        format,
        alpha_flag: None,
        swizzle: None,
        average: None,
        max: None,
        tags: Vec::new(),
        mips: Vec::new(),
    };
    while r.remaining() >= 4 && data[r.pos()..].starts_with(b"GGAT") {
        let at = r.pos();
        r.skip(4, "tag")?;
        let name: Vec<u8> = r.bytes(4, "tag.name")?.iter().rev().copied().collect();
        let name = String::from_utf8_lossy(&name).into_owned();
        let len = r.u32("tag.length")?;
        if len as usize > r.remaining() {
            return Err(r.error_at(
                at,
                "tag.length",
                format!("tag {name} of {len} bytes runs past the end of the file"),
            ));
        }
        let body = r.bytes(len as usize, "tag.data")?;
        match name.as_str() {
            "FLAG" => {
                paa.alpha_flag = body
                    .get(..4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            "SWIZ" => paa.swizzle = body.get(..4).map(|b| [b[0], b[1], b[2], b[3]]),
            "AVGC" => paa.average = colour(body),
            "MAXC" => paa.max = colour(body),
            _ => {}
        }
        paa.tags.push((name, len));
    }
    let palette = r.u16("palette.count")? as usize;
    r.skip(palette * 3, "palette")?;
    loop {
        if r.remaining() < 4 {
            // Some writers end right after the last mipmap.
            break;
        }
        let at = r.pos();
        let raw_w = r.u16("mip.width")?;
        let h = r.u16("mip.height")?;
        if raw_w == 0 && h == 0 {
            break;
        }
        let lzo_bit = format.dxt().is_some() && raw_w & 0x8000 != 0;
        let w = if format.dxt().is_some() {
            raw_w & 0x7fff
        } else {
            raw_w
        };
        check_dimensions(file, at, w as u64, h as u64)?;
        let size_bytes = r.bytes(3, "mip.size")?;
        let size =
            size_bytes[0] as usize | (size_bytes[1] as usize) << 8 | (size_bytes[2] as usize) << 16;
        if size == 0 {
            break;
        }
        let offset = r.pos();
        r.skip(size, "mip.data")?;
        let raw = format.image_bytes(w as u32, h as u32) as usize;
        paa.mips.push(Mip {
            width: w as u32,
            height: h as u32,
            offset,
            size,
            compressed: lzo_bit || (format.dxt().is_none() && size != raw),
        });
    }
    if paa.mips.is_empty() {
        return Err(r.error("mip", "the texture holds no mipmap"));
    }
    Ok(paa)
}

/// Decodes mipmap `index` (0 = the largest).
pub fn decode_mip(data: &[u8], file: &Path, index: usize) -> Result<Texture, ParseError> {
    decode_mip_in(data, file, index, &Allowance::default())
}

/// [`decode_mip`], its texels and the expanded pixels of a compressed mip
/// charged to `memory`.
pub(crate) fn decode_mip_in(
    data: &[u8],
    file: &Path,
    index: usize,
    memory: &Allowance,
) -> Result<Texture, ParseError> {
    let paa = parse(data, file)?;
    let mip = *paa.mips.get(index).ok_or_else(|| {
        parse_error(
            file,
            "mip",
            0,
            format!("no mipmap {index}: the texture has {}", paa.mips.len()),
        )
    })?;
    let stored = &data[mip.offset..mip.offset + mip.size];
    let need = paa.format.image_bytes(mip.width, mip.height) as usize;
    // The mip's width, height (2 bytes each) and size (3) come before its data.
    let (dims_at, size_at) = (mip.offset - 7, mip.offset - 3);
    let mut expanded = None;
    let body: std::borrow::Cow<[u8]> = if !mip.compressed {
        if stored.len() < need {
            return Err(parse_error(
                file,
                "mip.data",
                mip.offset,
                format!(
                    "{}×{} needs {need} bytes, {} stored",
                    mip.width,
                    mip.height,
                    stored.len()
                ),
            ));
        }
        stored[..need].into()
    } else {
        expanded = Some(working_buffer(
            file,
            "mip.size",
            size_at,
            need as u64,
            memory,
        )?);
        let (out, _) = if paa.format.dxt().is_some() {
            lzo::decompress(stored, need)
                .map_err(|e| parse_error(file, "mip.lzo", mip.offset + e.offset, e.message))?
        } else {
            lzss::decompress(stored, need)
                .map_err(|e| parse_error(file, "mip.lzss", mip.offset + e.offset, e.message))?
        };
        out.into()
    };
    let (mut texels, held) = texel_buffer(file, dims_at, mip.width, mip.height, memory)?;
    match paa.format.dxt() {
        Some(d) => dxt::decode_into(d, mip.width, mip.height, &body, &mut texels),
        None => texels.extend(
            body.chunks_exact(paa.format.bytes_per_texel() as usize)
                .map(|p| texel(paa.format, p)),
        ),
    }
    drop(body);
    drop(expanded);
    if let Some(s) = paa.swizzle {
        for t in &mut texels {
            *t = unswizzle(*t, s);
        }
    }
    if paa.alpha_flag == Some(2) {
        for t in &mut texels {
            t[3] = if t[3] >= 128 { 255 } else { 0 };
        }
    }
    held.keep();
    Ok(finish(file, mip.width, mip.height, texels))
}

/// One uncompressed texel → straight RGBA.
fn texel(format: PaaFormat, p: &[u8]) -> [u8; 4] {
    let v = u16::from_le_bytes([p[0], p[1]]) as u32;
    let five = |x: u32| ((x << 3) | (x >> 2)) as u8;
    match format {
        PaaFormat::Argb4444 => {
            let n = |s: u32| ((v >> s) & 15) as u8 * 17;
            [n(8), n(4), n(0), n(12)]
        }
        PaaFormat::Argb1555 => [
            five((v >> 10) & 31),
            five((v >> 5) & 31),
            five(v & 31),
            if v >> 15 == 1 { 255 } else { 0 },
        ],
        PaaFormat::Argb8888 => [p[2], p[1], p[0], p[3]],
        // Grey in the low byte, alpha in the high.
        _ => [p[0], p[0], p[0], p[1]],
    }
}

/// Undoes TexConvert's swizzle: stored channel `c` (A, R, G, B) holds the
/// source channel its code names, maybe inverted; codes 8 and up (fills)
/// carry nothing back.
fn unswizzle([r, g, b, a]: [u8; 4], swizzle: [u8; 4]) -> [u8; 4] {
    let stored = [a, r, g, b];
    let mut out = stored;
    for (c, &code) in swizzle.iter().enumerate() {
        if code < 8 {
            let v = stored[c];
            out[(code % 4) as usize] = if code >= 4 { 255 - v } else { v };
        }
    }
    [out[1], out[2], out[3], out[0]]
}

/// kiln's PAA writer: straight RGBA texels as `format`, with a mipmap
/// chain (halved by 2×2 averages down to 4 texels a side for DXT, 1 for
/// the others), `CGVA`/`CXAM`/`GALF`/`SFFO` tags, DXT mipmaps of 128 bytes
/// or more LZO-compressed and the others LZSS-compressed as Arma's tools
/// write them.
pub fn encode_paa(format: PaaFormat, width: u32, height: u32, texels: &[[u8; 4]]) -> Vec<u8> {
    let mut levels = vec![(width, height, texels.to_vec())];
    let min_side = if format.dxt().is_some() { 4 } else { 1 };
    while let Some((w, h, t)) = levels.last() {
        if *w <= min_side || *h <= min_side || levels.len() >= 16 {
            break;
        }
        let (nw, nh) = (w / 2, h / 2);
        let next: Vec<[u8; 4]> = (0..nw * nh)
            .map(|i| {
                let (x, y) = ((i % nw) * 2, (i / nw) * 2);
                let at = |dx: u32, dy: u32| t[((y + dy) * w + x + dx) as usize];
                let q = [at(0, 0), at(1, 0), at(0, 1), at(1, 1)];
                std::array::from_fn(|c| {
                    ((q.iter().map(|p| p[c] as u32).sum::<u32>() + 2) / 4) as u8
                })
            })
            .collect();
        levels.push((nw, nh, next));
    }
    let n = texels.len().max(1) as u64;
    let avg: [u8; 4] =
        std::array::from_fn(|c| (texels.iter().map(|t| t[c] as u64).sum::<u64>() / n) as u8);
    let max: [u8; 4] = std::array::from_fn(|c| texels.iter().map(|t| t[c]).max().unwrap_or(0));
    let flag = if texels.iter().all(|t| t[3] == 255) {
        None
    } else if texels.iter().all(|t| t[3] == 0 || t[3] == 255) {
        Some(2u32)
    } else {
        Some(1)
    };
    let mut out = format.type_number().to_le_bytes().to_vec();
    let tag = |out: &mut Vec<u8>, name: &[u8; 4], body: &[u8]| {
        out.extend_from_slice(b"GGAT");
        out.extend(name.iter().rev());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(body);
    };
    let bgra = |c: [u8; 4]| [c[2], c[1], c[0], c[3]];
    tag(&mut out, b"AVGC", &bgra(avg));
    tag(&mut out, b"MAXC", &bgra(max));
    if let Some(f) = flag {
        tag(&mut out, b"FLAG", &f.to_le_bytes());
    }
    let offsets_at = out.len() + 12;
    tag(&mut out, b"OFFS", &[0u8; 64]);
    out.extend_from_slice(&0u16.to_le_bytes());
    let mut offsets = Vec::new();
    for (w, h, t) in &levels {
        offsets.push(out.len() as u32);
        let (raw_w, body) = match format.dxt() {
            Some(d) => {
                let blocks = dxt::encode(d, *w, *h, t);
                if blocks.len() >= 128 {
                    (*w as u16 | 0x8000, lzo::compress(&blocks))
                } else {
                    (*w as u16, blocks)
                }
            }
            None => {
                let raw: Vec<u8> = t.iter().flat_map(|p| store(format, *p)).collect();
                (*w as u16, lzss::compress(&raw, true))
            }
        };
        out.extend_from_slice(&raw_w.to_le_bytes());
        out.extend_from_slice(&(*h as u16).to_le_bytes());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes()[..3]);
        out.extend_from_slice(&body);
    }
    out.extend_from_slice(&[0u8; 6]);
    for (i, o) in offsets.iter().enumerate() {
        out[offsets_at + 4 * i..offsets_at + 4 * i + 4].copy_from_slice(&o.to_le_bytes());
    }
    out
}

/// One straight RGBA texel in an uncompressed format's bytes.
fn store(format: PaaFormat, [r, g, b, a]: [u8; 4]) -> Vec<u8> {
    let n4 = |c: u8| (c as u16 + 8) / 17;
    let n5 = |c: u8| (c as u16 * 31 + 127) / 255;
    match format {
        PaaFormat::Argb4444 => (n4(a) << 12 | n4(r) << 8 | n4(g) << 4 | n4(b))
            .to_le_bytes()
            .to_vec(),
        PaaFormat::Argb1555 => (u16::from(a >= 128) << 15 | n5(r) << 10 | n5(g) << 5 | n5(b))
            .to_le_bytes()
            .to_vec(),
        PaaFormat::Argb8888 => vec![b, g, r, a],
        _ => {
            let grey = ((r as u32 * 299 + g as u32 * 587 + b as u32 * 114 + 500) / 1000) as u8;
            vec![grey, a]
        }
    }
}
