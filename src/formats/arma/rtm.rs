//! Arma RTM animations: plain `RTM_0101` (with optional `RTM_MDAT`) and
//! binarised `BMTR` v3/v4/v5. Values are kept exactly as stored; the BMTR
//! axis flip and parent chaining belong to lowering, not here.

use crate::error::ParseError;
use crate::formats::reader::{Reader, Writer};
use glam::{Mat4, Quat, Vec3};
use serde::Serialize;
use std::path::Path;

/// One `RTM_MDAT` / BMTR property: an event at a phase (e.g. `Step`/`Sound`).
#[derive(Debug, Clone, PartialEq)]
pub struct MetaEntry {
    /// Phase (0..1 of the cycle) at which the event fires.
    pub phase: f32,
    /// Property name (1-byte length in plain RTM, NUL-terminated in BMTR).
    pub name: String,
    /// Property value, stored like the name.
    pub value: String,
}

/// One frame of a plain RTM.
#[derive(Debug, Clone, PartialEq)]
pub struct PlainFrame {
    /// The frame's phase, 0..1 of the cycle.
    pub phase: f32,
    /// Bone name as written in the frame, and the row-vector 4×3 matrix
    /// `r0 r1 r2 r3` (see [`matrix`]): an absolute model-space deformation of
    /// rest-pose vertices (identity = rest pose), not parent-relative.
    pub transforms: Vec<(String, [f32; 12])>,
}

/// A plain `RTM_0101` animation.
#[derive(Debug, Clone, PartialEq)]
pub struct PlainRtm {
    /// The optional `RTM_MDAT` block's entries (empty without the block).
    pub metadata: Vec<MetaEntry>,
    /// Root displacement per cycle (forward is -Z); in-place renders ignore it.
    pub step: Vec3,
    /// The header's bone names (32-byte NUL-padded fields).
    pub bones: Vec<String>,
    /// The frames in file order, one transform per bone each.
    pub frames: Vec<PlainFrame>,
}

/// One bone's key in a BMTR frame, raw as stored (no axis flip).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneKey {
    /// `(x, y, z, w)` each `i16 / 16384`.
    pub rotation: Quat,
    /// Three IEEE half floats widened to f32.
    pub translation: Vec3,
}

/// How one BMTR array (the times, or one frame) was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ArrayInfo {
    /// Byte offset of the array's `u32 count`.
    pub offset: u64,
    /// Elements in the array (frame times, or bone keys).
    pub count: u32,
    /// Whether the data was LZO1X-compressed.
    pub lzo: bool,
    /// Bytes the array's data occupied in the file (compressed size if LZO).
    pub stored_bytes: u64,
}

/// A binarised `BMTR` animation (v3, v4 or v5).
#[derive(Debug, Clone, PartialEq)]
pub struct Bmtr {
    /// 3, 4 or 5; decides how compression is signalled and whether metadata
    /// is present (v4+).
    pub version: u32,
    /// The byte after the version (1 in every known file; meaning unknown).
    pub flag_byte: u8,
    /// Root displacement per cycle, as stored (no axis flip).
    pub step: Vec3,
    /// The u32 after the frame count (1 in armaio's files; meaning unknown).
    pub unknown: u32,
    /// Bone names (NUL-terminated in the file); only bones of the skeleton
    /// survive binarisation.
    pub bones: Vec<String>,
    /// v4+ only; empty for v3.
    pub metadata: Vec<MetaEntry>,
    /// Frame phases, 0..1 of the cycle, one per frame.
    pub times: Vec<f32>,
    /// `frames[f][b]` is bone `bones[b]` at time `times[f]`.
    /// Keys are parent-relative, in a space rotated 180° about Y from plain RTM.
    pub frames: Vec<Vec<BoneKey>>,
    /// Per array in file order: `[0]` is the times, `[1 + f]` frame `f`.
    pub compressed_arrays: Vec<ArrayInfo>,
}

/// Either RTM flavour.
#[derive(Debug, Clone, PartialEq)]
pub enum Rtm {
    /// `RTM_0101`, with or without an `RTM_MDAT` block.
    Plain(PlainRtm),
    /// `BMTR`.
    Binarised(Bmtr),
}

/// The column-vector matrix equal to the row-vector 4×3 `m`
/// (`v' = x·r0 + y·r1 + z·r2 + r3`), so `matrix(m).transform_point3(v)` poses `v`.
pub fn matrix(m: &[f32; 12]) -> Mat4 {
    Mat4::from_cols(
        glam::Vec4::new(m[0], m[1], m[2], 0.0),
        glam::Vec4::new(m[3], m[4], m[5], 0.0),
        glam::Vec4::new(m[6], m[7], m[8], 0.0),
        glam::Vec4::new(m[9], m[10], m[11], 1.0),
    )
}

const MDAT: &[u8; 8] = b"RTM_MDAT";
const RTM0101: &[u8; 8] = b"RTM_0101";
const BMTR: &[u8; 4] = b"BMTR";
const NAME_LEN: usize = 32;
const KEY_SIZE: usize = 14;
const LZO_THRESHOLD: usize = 1024;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Parses either RTM flavour, told apart by the magic.
pub fn parse(data: &[u8], file: &Path) -> Result<Rtm, ParseError> {
    if data.starts_with(BMTR) {
        parse_bmtr(data, file).map(Rtm::Binarised)
    } else if data.starts_with(MDAT) || data.starts_with(RTM0101) {
        parse_plain(data, file).map(Rtm::Plain)
    } else {
        let shown = &data[..data.len().min(8)];
        Err(Reader::new(data, file).error(
            "magic",
            format!("not an RTM (expected RTM_MDAT, RTM_0101 or BMTR, found {shown:02x?})"),
        ))
    }
}

/// Reads and parses an RTM file of either flavour.
pub fn parse_file(path: &Path) -> crate::Result<Rtm> {
    let data = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    Ok(parse(&data, path)?)
}

fn u8_str(r: &mut Reader, field: &str) -> Result<String, ParseError> {
    let n = r.u8(field)? as usize;
    Ok(text(r.bytes(n, field)?))
}

/// Parses a plain RTM (optional `RTM_MDAT`, then `RTM_0101`); bytes after
/// the last frame are an error.
pub fn parse_plain(data: &[u8], file: &Path) -> Result<PlainRtm, ParseError> {
    let mut r = Reader::new(data, file);
    let mut metadata = Vec::new();
    if data.starts_with(MDAT) {
        r.skip(8, "mdat.magic")?;
        let start = r.pos();
        let zero = r.u32("mdat.reserved")?;
        if zero != 0 {
            return Err(r.error_at(start, "mdat.reserved", format!("expected 0, found {zero}")));
        }
        // Smallest entry: phase + two empty strings.
        let n = r.count_u32("mdat.count", 6)?;
        for i in 0..n {
            let phase = r.f32(&format!("mdat[{i}].phase"))?;
            let name = u8_str(&mut r, &format!("mdat[{i}].name"))?;
            let value = u8_str(&mut r, &format!("mdat[{i}].value"))?;
            metadata.push(MetaEntry { phase, name, value });
        }
    }
    let at = r.pos();
    let magic = r.bytes(8, "magic")?;
    if magic != RTM0101 {
        return Err(r.error_at(
            at,
            "magic",
            format!("expected RTM_0101, found {magic:02x?}"),
        ));
    }
    let step = r.vec3("step")?;
    let frames_at = r.pos();
    let frame_count = r.u32("frames")? as u64;
    let bone_count = r.count_u32("bones", NAME_LEN)?;
    let mut bones = Vec::with_capacity(bone_count);
    for i in 0..bone_count {
        bones.push(text(&r.fixed_name(NAME_LEN, &format!("bones[{i}]"))?));
    }
    let frame_size = 4 + bone_count * (NAME_LEN + 48);
    let frame_count = r.check_count(frames_at, "frames", frame_count, frame_size)?;
    let mut frames = Vec::with_capacity(frame_count);
    for f in 0..frame_count {
        let phase = r.f32(&format!("frame[{f}].phase"))?;
        let mut transforms = Vec::with_capacity(bone_count);
        for b in 0..bone_count {
            let name = text(&r.fixed_name(NAME_LEN, &format!("frame[{f}].bone[{b}].name"))?);
            let m = r.f32s::<12>(&format!("frame[{f}].bone[{b}].matrix"))?;
            transforms.push((name, m));
        }
        frames.push(PlainFrame { phase, transforms });
    }
    if !r.at_end() {
        return Err(r.error(
            "end",
            format!("{} unexpected bytes after the last frame", r.remaining()),
        ));
    }
    Ok(PlainRtm {
        metadata,
        step,
        bones,
        frames,
    })
}

/// Writes a plain RTM; the `RTM_MDAT` block only when there is metadata.
/// Metadata strings are cut to 255 bytes, bone names to 31.
pub fn write_plain(rtm: &PlainRtm) -> Vec<u8> {
    let mut w = Writer::new();
    if !rtm.metadata.is_empty() {
        w.bytes(MDAT).u32(0).u32(rtm.metadata.len() as u32);
        for m in &rtm.metadata {
            w.f32(m.phase);
            for s in [&m.name, &m.value] {
                // A 1-byte length cannot say more; longer strings are cut.
                let b = &s.as_bytes()[..s.len().min(255)];
                w.u8(b.len() as u8).bytes(b);
            }
        }
    }
    w.bytes(RTM0101)
        .vec3(rtm.step)
        .u32(rtm.frames.len() as u32)
        .u32(rtm.bones.len() as u32);
    for b in &rtm.bones {
        w.fixed_name(b.as_bytes(), NAME_LEN);
    }
    for f in &rtm.frames {
        w.f32(f.phase);
        for (name, m) in &f.transforms {
            w.fixed_name(name.as_bytes(), NAME_LEN);
            for v in m {
                w.f32(*v);
            }
        }
    }
    w.into_bytes()
}

/// IEEE 754 binary16 → f32, exact for every half value.
pub fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let frac = (h & 0x3ff) as f32;
    match exp {
        0 => sign * frac * 2f32.powi(-24),
        31 if frac == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        _ => sign * (1.0 + frac / 1024.0) * 2f32.powi(exp - 15),
    }
}

/// f32 → binary16, rounding to nearest even; exact for values that came from halves.
pub fn f32_to_half(v: f32) -> u16 {
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let mid = 1 << (shift - 1);
        let round = rem > mid || (rem == mid && half & 1 == 1);
        return sign | (half + round as u32) as u16;
    }
    let half = ((e as u32) << 10) | (mant >> 13);
    let rem = mant & 0x1fff;
    let round = rem > 0x1000 || (rem == 0x1000 && half & 1 == 1);
    sign | (half + round as u32) as u16
}

/// Which rule decides whether an array is LZO-compressed.
#[derive(Clone, Copy, PartialEq, Debug)]
enum ArrayRule {
    /// v3: compressed exactly when the data is at least 1024 bytes.
    BySize,
    /// v5: a flag byte after the count.
    FlagByte,
}

/// Reads one BMTR array's data (after its `u32 count`), decompressing if needed.
fn read_array<'a>(
    r: &mut Reader<'a>,
    count_at: usize,
    count: usize,
    elem: usize,
    rule: ArrayRule,
    field: &str,
) -> Result<(std::borrow::Cow<'a, [u8]>, ArrayInfo), ParseError> {
    let size = count * elem;
    let lzo = match rule {
        ArrayRule::BySize => size >= LZO_THRESHOLD,
        ArrayRule::FlagByte => {
            let at = r.pos();
            match r.u8(&format!("{field}.compression"))? {
                0 => false,
                2 => true,
                f => {
                    return Err(r.error_at(
                        at,
                        &format!("{field}.compression"),
                        format!("unknown compression flag {f} (0 raw, 2 LZO1X)"),
                    ))
                }
            }
        }
    };
    let data_at = r.pos();
    let (data, stored) = if lzo {
        let rest = r.bytes(r.remaining(), field)?;
        let (out, used) = crate::formats::lzo::decompress(rest, size)
            .map_err(|e| r.error_at(data_at + e.offset, field, format!("LZO1X: {}", e.message)))?;
        r.seek(data_at + used, field)?;
        (std::borrow::Cow::Owned(out), used)
    } else {
        (std::borrow::Cow::Borrowed(r.bytes(size, field)?), size)
    };
    Ok((
        data,
        ArrayInfo {
            offset: count_at as u64,
            count: count as u32,
            lzo,
            stored_bytes: stored as u64,
        },
    ))
}

/// Parses a `BMTR` file. v3 arrays are LZO1X-compressed exactly when their
/// data is at least 1024 bytes, v5 arrays carry a flag byte (0 raw, 2 LZO1X);
/// v4 (no real file known) is read with the v3 rule, then the v5 rule, and
/// reports the v3 error when neither fits. Bytes after the last frame are
/// an error.
pub fn parse_bmtr(data: &[u8], file: &Path) -> Result<Bmtr, ParseError> {
    let mut r = Reader::new(data, file);
    r.skip(4, "magic")?;
    let at = r.pos();
    let version = r.u32("version")?;
    match version {
        3 | 5 => parse_bmtr_with(
            data,
            file,
            if version == 3 {
                ArrayRule::BySize
            } else {
                ArrayRule::FlagByte
            },
        ),
        // No real v4 file is known and sources disagree: try the v3 rule first.
        4 => parse_bmtr_with(data, file, ArrayRule::BySize)
            .or_else(|first| parse_bmtr_with(data, file, ArrayRule::FlagByte).map_err(|_| first)),
        v => Err(r.error_at(
            at,
            "version",
            format!("unsupported BMTR version {v} (3, 4 or 5)"),
        )),
    }
}

fn parse_bmtr_with(data: &[u8], file: &Path, rule: ArrayRule) -> Result<Bmtr, ParseError> {
    let mut r = Reader::new(data, file);
    r.skip(4, "magic")?;
    let version = r.u32("version")?;
    let flag_byte = r.u8("flag_byte")?;
    let step = r.vec3("step")?;
    // Every frame is at least its array's u32 count.
    let frame_count = r.count_u32("frames", 4)?;
    let unknown = r.u32("unknown")?;
    let bones_at = r.pos();
    let bone_field = r.u32("bones")?;
    let names_at = r.pos();
    let name_count = r.count_u32("bone_names.count", 1)?;
    if bone_field as usize != name_count {
        return Err(r.error_at(
            bones_at,
            "bones",
            format!("bone count {bone_field} differs from the name count {name_count} at byte {names_at}"),
        ));
    }
    let mut bones = Vec::with_capacity(name_count);
    for i in 0..name_count {
        bones.push(text(&r.asciiz(&format!("bone_names[{i}]"))?));
    }
    let mut metadata = Vec::new();
    if version >= 4 {
        let at = r.pos();
        let zero = r.u32("metadata.reserved")?;
        if zero != 0 {
            return Err(r.error_at(at, "metadata.reserved", format!("expected 0, found {zero}")));
        }
        // Smallest entry: u32 marker, empty name, phase, empty value.
        let n = r.count_u32("metadata.count", 10)?;
        for i in 0..n {
            let at = r.pos();
            let marker = r.u32(&format!("metadata[{i}].marker"))?;
            if marker != u32::MAX {
                return Err(r.error_at(
                    at,
                    &format!("metadata[{i}].marker"),
                    format!("expected 0xffffffff, found 0x{marker:x}"),
                ));
            }
            let name = text(&r.asciiz(&format!("metadata[{i}].name"))?);
            let phase = r.f32(&format!("metadata[{i}].phase"))?;
            let value = text(&r.asciiz(&format!("metadata[{i}].value"))?);
            metadata.push(MetaEntry { phase, name, value });
        }
    }
    let mut compressed_arrays = Vec::with_capacity(frame_count + 1);
    let at = r.pos();
    let n = r.u32("times.count")? as usize;
    if n != frame_count {
        return Err(r.error_at(
            at,
            "times.count",
            format!("{n} times for {frame_count} frames"),
        ));
    }
    let (bytes, info) = read_array(&mut r, at, n, 4, rule, "times")?;
    compressed_arrays.push(info);
    let times: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut frames = Vec::with_capacity(frame_count);
    for f in 0..frame_count {
        let field = format!("frame[{f}]");
        let at = r.pos();
        let n = r.u32(&format!("{field}.count"))? as usize;
        if n != name_count {
            return Err(r.error_at(
                at,
                &format!("{field}.count"),
                format!("{n} keys for {name_count} bones"),
            ));
        }
        let (bytes, info) = read_array(&mut r, at, n, KEY_SIZE, rule, &field)?;
        compressed_arrays.push(info);
        let i16_at = |c: &[u8], i: usize| i16::from_le_bytes([c[i], c[i + 1]]) as f32 / 16384.0;
        let half_at = |c: &[u8], i: usize| half_to_f32(u16::from_le_bytes([c[i], c[i + 1]]));
        frames.push(
            bytes
                .chunks_exact(KEY_SIZE)
                .map(|c| BoneKey {
                    rotation: Quat::from_xyzw(
                        i16_at(c, 0),
                        i16_at(c, 2),
                        i16_at(c, 4),
                        i16_at(c, 6),
                    ),
                    translation: Vec3::new(half_at(c, 8), half_at(c, 10), half_at(c, 12)),
                })
                .collect(),
        );
    }
    if !r.at_end() {
        return Err(r.error(
            "end",
            format!("{} unexpected bytes after the last frame", r.remaining()),
        ));
    }
    Ok(Bmtr {
        version,
        flag_byte,
        step,
        unknown,
        bones,
        metadata,
        times,
        frames,
        compressed_arrays,
    })
}

fn write_array(w: &mut Writer, count: usize, data: &[u8], version: u32) {
    w.u32(count as u32);
    let lzo = if version >= 5 {
        // kiln compresses by the v3 size rule in every version, so files stay comparable.
        let lzo = data.len() >= LZO_THRESHOLD;
        w.u8(if lzo { 2 } else { 0 });
        lzo
    } else {
        data.len() >= LZO_THRESHOLD
    };
    if lzo {
        w.bytes(&crate::formats::lzo::compress_literal(data));
    } else {
        w.bytes(data);
    }
}

/// Writes `bmtr` as BMTR `version` (3, 4 or 5; v4 uses the v3 size rule).
/// Values are quantised as the format stores them: quaternions to i16/16384,
/// translations to halves.
pub fn write_bmtr(bmtr: &Bmtr, version: u32) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(BMTR)
        .u32(version)
        .u8(bmtr.flag_byte)
        .vec3(bmtr.step)
        .u32(bmtr.frames.len() as u32)
        .u32(bmtr.unknown)
        .u32(bmtr.bones.len() as u32)
        .u32(bmtr.bones.len() as u32);
    for b in &bmtr.bones {
        w.asciiz(b.as_bytes());
    }
    if version >= 4 {
        w.u32(0).u32(bmtr.metadata.len() as u32);
        for m in &bmtr.metadata {
            w.u32(u32::MAX)
                .asciiz(m.name.as_bytes())
                .f32(m.phase)
                .asciiz(m.value.as_bytes());
        }
    }
    let times: Vec<u8> = (0..bmtr.frames.len())
        .flat_map(|f| bmtr.times.get(f).copied().unwrap_or(0.0).to_le_bytes())
        .collect();
    write_array(&mut w, bmtr.frames.len(), &times, version);
    let q = |v: f32| ((v * 16384.0).round().clamp(-32768.0, 32767.0) as i16).to_le_bytes();
    for keys in &bmtr.frames {
        let mut data = Vec::with_capacity(keys.len() * KEY_SIZE);
        for k in keys {
            for v in k.rotation.to_array() {
                data.extend_from_slice(&q(v));
            }
            for v in k.translation.to_array() {
                data.extend_from_slice(&f32_to_half(v).to_le_bytes());
            }
        }
        write_array(&mut w, keys.len(), &data, version);
    }
    w.into_bytes()
}

/// One metadata entry, for `kiln inspect`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetaSummary {
    /// Phase, 0..1 of the cycle.
    pub phase: f32,
    /// Property name.
    pub name: String,
    /// Property value.
    pub value: String,
}

/// What `kiln inspect` prints for an RTM.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RtmSummary {
    /// `plain` or `binarised`.
    pub kind: String,
    /// BMTR version; `None` for plain RTM.
    pub version: Option<u32>,
    /// Root displacement per cycle, as stored.
    pub step: [f32; 3],
    /// Number of frames.
    pub frames: usize,
    /// Smallest and largest frame phase (`None` without frames).
    pub phases: Option<[f32; 2]>,
    /// Bone names from the header.
    pub bones: Vec<String>,
    /// `RTM_MDAT` or BMTR metadata entries.
    pub metadata: Vec<MetaSummary>,
    /// BMTR arrays in file order (times first); empty for plain RTM.
    pub arrays: Vec<ArrayInfo>,
    /// How many of those arrays were LZO1X-compressed.
    pub lzo_arrays: usize,
}

/// Summarises `rtm`: kind, version, frame and phase range, bones, metadata
/// and how BMTR arrays were stored.
pub fn summary(rtm: &Rtm) -> RtmSummary {
    let range = |it: &mut dyn Iterator<Item = f32>| {
        it.fold(None, |acc: Option<[f32; 2]>, p| match acc {
            None => Some([p, p]),
            Some([lo, hi]) => Some([lo.min(p), hi.max(p)]),
        })
    };
    let meta = |m: &[MetaEntry]| {
        m.iter()
            .map(|e| MetaSummary {
                phase: e.phase,
                name: e.name.clone(),
                value: e.value.clone(),
            })
            .collect()
    };
    match rtm {
        Rtm::Plain(p) => RtmSummary {
            kind: "plain".into(),
            version: None,
            step: p.step.to_array(),
            frames: p.frames.len(),
            phases: range(&mut p.frames.iter().map(|f| f.phase)),
            bones: p.bones.clone(),
            metadata: meta(&p.metadata),
            arrays: Vec::new(),
            lzo_arrays: 0,
        },
        Rtm::Binarised(b) => RtmSummary {
            kind: "binarised".into(),
            version: Some(b.version),
            step: b.step.to_array(),
            frames: b.frames.len(),
            phases: range(&mut b.times.iter().copied()),
            bones: b.bones.clone(),
            metadata: meta(&b.metadata),
            arrays: b.compressed_arrays.clone(),
            lzo_arrays: b.compressed_arrays.iter().filter(|a| a.lzo).count(),
        },
    }
}
