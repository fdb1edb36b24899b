//! Ragnarok RSW map scene files: the file names of the map's ground, the
//! water and sun settings and the placed objects (model instances, lights,
//! sounds, effects). Parsing keeps every fixed-width name's raw bytes so that
//! `write` reproduces each file byte for byte.

use crate::error::{Error, ParseError};
use crate::formats::reader::{Reader, Writer};
use crate::text::{decode_cp949, until_nul};
use glam::Vec3;
use serde::{Serialize, Serializer};
use std::path::Path;

/// 1365 nodes (a 6-level quad tree) of 12 floats each.
pub const QUAD_TREE_NODES: usize = 1365;
/// Size of the quad tree that ends 2.1+ files: 65,520 bytes.
pub const QUAD_TREE_BYTES: usize = QUAD_TREE_NODES * 48;

/// A fixed-width name: the decoded text up to the first NUL plus the raw
/// bytes, because real files keep stale bytes after the NUL.
#[derive(Debug, Clone, PartialEq)]
pub struct FixedName {
    /// The bytes up to the first NUL, decoded from CP949.
    pub text: String,
    /// The whole field as stored, including any bytes after the NUL.
    pub raw: Vec<u8>,
}

impl FixedName {
    /// A `width`-byte field holding `text` padded with NULs. A longer text
    /// is cut to `width` bytes in `raw`.
    pub fn new(text: &str, width: usize) -> Self {
        let mut raw = text.as_bytes().to_vec();
        raw.resize(width, 0);
        FixedName {
            text: text.to_string(),
            raw,
        }
    }
    /// The stored bytes up to the first NUL (CP949), for file lookups.
    pub fn bytes(&self) -> &[u8] {
        until_nul(&self.raw)
    }
    fn from_raw(raw: Vec<u8>) -> Self {
        FixedName {
            text: decode_cp949(until_nul(&raw)),
            raw,
        }
    }
}

impl Serialize for FixedName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

/// The map's water block (1.3 up to 2.5; from 2.6 it lives in the GND).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Water {
    /// Water height in RO units (Y down).
    pub level: f32,
    /// From 1.8.
    pub water_type: Option<i32>,
    /// From 1.8.
    pub wave_height: Option<f32>,
    /// From 1.8.
    pub wave_speed: Option<f32>,
    /// From 1.8.
    pub wave_pitch: Option<f32>,
    /// From 1.9.
    pub anim_speed: Option<i32>,
}

/// The map's sun (1.5+).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Light {
    /// Degrees; turns the sun about Y after `latitude`.
    pub longitude: i32,
    /// Degrees; turns the sun about X.
    pub latitude: i32,
    /// Sun colour, RGB floats.
    pub diffuse: [f32; 3],
    /// Ambient colour, RGB floats.
    pub ambient: [f32; 3],
    /// From 1.7.
    pub shadow_opacity: Option<f32>,
}

/// A placed model (object type 1).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelInstance {
    /// Instance name (40 bytes); before 1.3 the instance has no
    /// name/anim/block fields.
    pub name: Option<FixedName>,
    /// Animation type as stored (0 before 1.3).
    pub anim_type: i32,
    /// Playback speed factor of the model's animation (1.0 before 1.3).
    pub anim_speed: f32,
    /// Block type as stored (0 before 1.3).
    pub block_type: i32,
    /// 2.6 with a late enough build only (≥ 186, or ≥ 162 as RagLite writes).
    pub flag: Option<u8>,
    /// Model file path (80 bytes, CP949, backslashes), relative to the
    /// client's `data\model\` folder.
    pub file: FixedName,
    /// Node name (80 bytes), as stored.
    pub node: FixedName,
    /// Position relative to the map centre, RO units (Y down).
    pub position: [f32; 3],
    /// Degrees about X, Y, Z; composed as `Rz · Rx · Ry` (column vectors).
    pub rotation: [f32; 3],
    /// Scale per axis.
    pub scale: [f32; 3],
}

/// A point light (object type 2).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LightSource {
    /// Light name (80 bytes).
    pub name: FixedName,
    /// Position, as stored.
    pub position: [f32; 3],
    /// Colour, RGB floats.
    pub color: [f32; 3],
    /// Range, as stored.
    pub range: f32,
}

/// A sound source (object type 3).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sound {
    /// Sound name (80 bytes).
    pub name: FixedName,
    /// Sound file name (80 bytes).
    pub file: FixedName,
    /// Position, as stored.
    pub position: [f32; 3],
    /// Volume, as stored.
    pub volume: f32,
    /// Width, as stored.
    pub width: i32,
    /// Height, as stored.
    pub height: i32,
    /// Range, as stored.
    pub range: f32,
    /// From 2.0.
    pub cycle: Option<f32>,
}

/// An effect emitter (object type 4).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Effect {
    /// Effect name (80 bytes).
    pub name: FixedName,
    /// Position, as stored.
    pub position: [f32; 3],
    /// Effect id, as stored.
    pub id: i32,
    /// Delay, as stored.
    pub delay: f32,
    /// Four effect parameters, as stored.
    pub param: [f32; 4],
}

/// One placed object in file order; the order is kept so `write` can
/// reproduce interleaved object types.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum Object {
    /// Type 1.
    Model(ModelInstance),
    /// Type 2.
    Light(LightSource),
    /// Type 3.
    Sound(Sound),
    /// Type 4.
    Effect(Effect),
}

/// One RSW scene file.
#[derive(Debug, Clone, PartialEq)]
pub struct Rsw {
    /// Major version (1 or 2).
    pub major: u8,
    /// Minor version (0–9).
    pub minor: u8,
    /// u8 in 2.2–2.4, u32 from 2.5.
    pub build: Option<u32>,
    /// The byte after the u32 build from 2.5; meaning unknown.
    pub unknown_flag: Option<u8>,
    /// The `.ini` file name (40 bytes).
    pub ini: FixedName,
    /// The ground (`.gnd`) file name (40 bytes).
    pub gnd: FixedName,
    /// The altitude (`.gat`) file name (40 bytes); read in every version.
    pub gat: FixedName,
    /// The source file name (40 bytes); read in every version.
    pub src: FixedName,
    /// Before 2.6 (it moved into the GND), and from 1.3.
    pub water: Option<Water>,
    /// From 1.5.
    pub light: Option<Light>,
    /// From 1.6: top, bottom, left, right.
    pub bounds: Option<[i32; 4]>,
    /// Placed objects in file order.
    pub objects: Vec<Object>,
    /// From 2.1: 1365 nodes of 12 floats (max xyz, min xyz, half-size xyz,
    /// centre xyz), kept raw. None when a 2.1+ file ends after its objects
    /// (with a warning); before 2.1 any trailing bytes are an error.
    pub quad_tree: Option<Vec<u8>>,
    /// Non-fatal findings: a missing quad tree, the RagLite model-flag rule.
    pub warnings: Vec<String>,
}

impl Rsw {
    /// True when `(major, minor) >= (maj, min)`.
    pub fn at_least(&self, maj: u8, min: u8) -> bool {
        (self.major, self.minor) >= (maj, min)
    }
    /// "1.9", "2.6".
    pub fn version_string(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }
    /// The model instances, in file order.
    pub fn models(&self) -> impl Iterator<Item = &ModelInstance> {
        self.objects.iter().filter_map(|o| match o {
            Object::Model(m) => Some(m),
            _ => None,
        })
    }
    /// The point lights, in file order.
    pub fn lights(&self) -> impl Iterator<Item = &LightSource> {
        self.objects.iter().filter_map(|o| match o {
            Object::Light(m) => Some(m),
            _ => None,
        })
    }
    /// The sound sources, in file order.
    pub fn sounds(&self) -> impl Iterator<Item = &Sound> {
        self.objects.iter().filter_map(|o| match o {
            Object::Sound(m) => Some(m),
            _ => None,
        })
    }
    /// The effect emitters, in file order.
    pub fn effects(&self) -> impl Iterator<Item = &Effect> {
        self.objects.iter().filter_map(|o| match o {
            Object::Effect(m) => Some(m),
            _ => None,
        })
    }
    /// Counts of models, lights, sounds, effects.
    pub fn counts(&self) -> [usize; 4] {
        [
            self.models().count(),
            self.lights().count(),
            self.sounds().count(),
            self.effects().count(),
        ]
    }
}

fn arr(v: Vec3) -> [f32; 3] {
    v.to_array()
}

fn name(r: &mut Reader, n: usize, field: &str) -> Result<FixedName, ParseError> {
    Ok(FixedName::from_raw(r.bytes(n, field)?.to_vec()))
}

/// Which build threshold adds the 2.6 model flag byte. 186 is what most
/// readers use; RagLite (and its fixture) use 162.
fn has_flag(major: u8, minor: u8, build: Option<u32>, threshold: u32) -> bool {
    (major, minor) >= (2, 6) && build.unwrap_or(0) >= threshold
}

/// Parses an RSW file held in memory; `file` names it in errors. A 2.6 file
/// with build 162–185 that fails without the model flag byte is read again
/// with it (RagLite's rule), with a warning.
pub fn parse(data: &[u8], file: &Path) -> Result<Rsw, ParseError> {
    match parse_with(data, file, 186) {
        Ok(rsw) => Ok(rsw),
        Err(first) => {
            let mut r = Reader::new(data, file);
            let ver = header_version(&mut r).ok();
            match ver {
                Some((2, 6, Some(b))) if (162..186).contains(&b) => {
                    let mut rsw = parse_with(data, file, 162).map_err(|_| first)?;
                    rsw.warnings.push(format!(
                        "build {b} < 186 carries the 2.6 model flag byte (RagLite's >= 162 rule)"
                    ));
                    Ok(rsw)
                }
                _ => Err(first),
            }
        }
    }
}

fn header_version(r: &mut Reader) -> Result<(u8, u8, Option<u32>), ParseError> {
    let magic = r.bytes(4, "header.magic")?;
    if magic != b"GRSW" {
        return Err(r.error_at(
            0,
            "header.magic",
            format!(
                "not an RSW file: expected magic \"GRSW\", found {:02x?}",
                magic
            ),
        ));
    }
    let major = r.u8("header.major")?;
    let minor = r.u8("header.minor")?;
    if !(1..=2).contains(&major) || minor > 9 {
        return Err(r.error_at(
            4,
            "header.version",
            format!("unsupported RSW version {major}.{minor}"),
        ));
    }
    let build = if (major, minor) >= (2, 5) {
        Some(r.u32("header.build")?)
    } else if (major, minor) >= (2, 2) {
        Some(r.u8("header.build")? as u32)
    } else {
        None
    };
    Ok((major, minor, build))
}

fn parse_with(data: &[u8], file: &Path, flag_threshold: u32) -> Result<Rsw, ParseError> {
    let mut r = Reader::new(data, file);
    let (major, minor, build) = header_version(&mut r)?;
    let v = (major, minor);
    let unknown_flag = if v >= (2, 5) {
        Some(r.u8("header.unknown_flag")?)
    } else {
        None
    };
    let ini = name(&mut r, 40, "ini_file")?;
    let gnd = name(&mut r, 40, "gnd_file")?;
    // The RagLite 1.9 fixture stores both names; no pre-1.5 file is known,
    // so every version reads both.
    let gat = name(&mut r, 40, "gat_file")?;
    let src = name(&mut r, 40, "src_file")?;
    let water = if ((1, 3)..(2, 6)).contains(&v) {
        let level = r.f32("water.level")?;
        let (mut water_type, mut wave_height, mut wave_speed, mut wave_pitch, mut anim_speed) =
            (None, None, None, None, None);
        if v >= (1, 8) {
            water_type = Some(r.i32("water.type")?);
            wave_height = Some(r.f32("water.wave_height")?);
            wave_speed = Some(r.f32("water.wave_speed")?);
            wave_pitch = Some(r.f32("water.wave_pitch")?);
        }
        if v >= (1, 9) {
            anim_speed = Some(r.i32("water.anim_speed")?);
        }
        Some(Water {
            level,
            water_type,
            wave_height,
            wave_speed,
            wave_pitch,
            anim_speed,
        })
    } else {
        None
    };
    let light = if v >= (1, 5) {
        let longitude = r.i32("light.longitude")?;
        let latitude = r.i32("light.latitude")?;
        let diffuse = arr(r.vec3("light.diffuse")?);
        let ambient = arr(r.vec3("light.ambient")?);
        let shadow_opacity = if v >= (1, 7) {
            Some(r.f32("light.shadow_opacity")?)
        } else {
            None
        };
        Some(Light {
            longitude,
            latitude,
            diffuse,
            ambient,
            shadow_opacity,
        })
    } else {
        None
    };
    let bounds = if v >= (1, 6) {
        Some([
            r.i32("bounds.top")?,
            r.i32("bounds.bottom")?,
            r.i32("bounds.left")?,
            r.i32("bounds.right")?,
        ])
    } else {
        None
    };
    // The smallest object is a light: type, name[80], two vec3, range.
    let count = r.count_i32("object_count", 4 + 80 + 24 + 4)?;
    let flag = has_flag(major, minor, build, flag_threshold);
    let mut objects = Vec::with_capacity(count);
    for i in 0..count {
        let at = r.pos();
        let kind = r.i32(&format!("object[{i}].type"))?;
        let f = |s: &str| format!("object[{i}].{s}");
        let obj = match kind {
            1 => {
                let (inst_name, anim_type, anim_speed, block_type) = if v >= (1, 3) {
                    (
                        Some(name(&mut r, 40, &f("name"))?),
                        r.i32(&f("anim_type"))?,
                        r.f32(&f("anim_speed"))?,
                        r.i32(&f("block_type"))?,
                    )
                } else {
                    (None, 0, 1.0, 0)
                };
                let flag = if flag { Some(r.u8(&f("flag"))?) } else { None };
                Object::Model(ModelInstance {
                    name: inst_name,
                    anim_type,
                    anim_speed,
                    block_type,
                    flag,
                    file: name(&mut r, 80, &f("file"))?,
                    node: name(&mut r, 80, &f("node"))?,
                    position: arr(r.vec3(&f("position"))?),
                    rotation: arr(r.vec3(&f("rotation"))?),
                    scale: arr(r.vec3(&f("scale"))?),
                })
            }
            2 => Object::Light(LightSource {
                name: name(&mut r, 80, &f("name"))?,
                position: arr(r.vec3(&f("position"))?),
                color: arr(r.vec3(&f("color"))?),
                range: r.f32(&f("range"))?,
            }),
            3 => Object::Sound(Sound {
                name: name(&mut r, 80, &f("name"))?,
                file: name(&mut r, 80, &f("file"))?,
                position: arr(r.vec3(&f("position"))?),
                volume: r.f32(&f("volume"))?,
                width: r.i32(&f("width"))?,
                height: r.i32(&f("height"))?,
                range: r.f32(&f("range"))?,
                cycle: if v >= (2, 0) {
                    Some(r.f32(&f("cycle"))?)
                } else {
                    None
                },
            }),
            4 => Object::Effect(Effect {
                name: name(&mut r, 80, &f("name"))?,
                position: arr(r.vec3(&f("position"))?),
                id: r.i32(&f("id"))?,
                delay: r.f32(&f("delay"))?,
                param: r.f32s::<4>(&f("param"))?,
            }),
            k => {
                return Err(r.error_at(
                    at,
                    &format!("object[{i}].type"),
                    format!("unknown object type {k} (expected 1..=4)"),
                ))
            }
        };
        objects.push(obj);
    }
    let mut warnings = Vec::new();
    let quad_tree = if v >= (2, 1) {
        if r.remaining() == 0 {
            warnings.push("version 2.1+ file without a quad tree".to_string());
            None
        } else {
            Some(r.bytes(QUAD_TREE_BYTES, "quad_tree")?.to_vec())
        }
    } else {
        None
    };
    if !r.at_end() {
        return Err(r.error(
            "end_of_file",
            format!("{} unexpected trailing bytes", r.remaining()),
        ));
    }
    Ok(Rsw {
        major,
        minor,
        build,
        unknown_flag,
        ini,
        gnd,
        gat,
        src,
        water,
        light,
        bounds,
        objects,
        quad_tree,
        warnings,
    })
}

/// Reads and parses an RSW file.
pub fn parse_file(path: &Path) -> Result<Rsw, Error> {
    let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    Ok(parse(&data, path)?)
}

fn v3(w: &mut Writer, a: [f32; 3]) {
    w.vec3(Vec3::from_array(a));
}

fn fixed(w: &mut Writer, n: &FixedName, width: usize) {
    if n.raw.len() == width {
        w.bytes(&n.raw);
    } else {
        w.fixed_name(n.text.as_bytes(), width);
    }
}

/// Serialises in the layout of `rsw.major/minor`; optional fields that the
/// version requires but are absent are written as zeros.
pub fn write(rsw: &Rsw) -> Vec<u8> {
    let v = (rsw.major, rsw.minor);
    let mut w = Writer::new();
    w.bytes(b"GRSW").u8(rsw.major).u8(rsw.minor);
    if v >= (2, 5) {
        w.u32(rsw.build.unwrap_or(0));
        w.u8(rsw.unknown_flag.unwrap_or(0));
    } else if v >= (2, 2) {
        w.u8(rsw.build.unwrap_or(0) as u8);
    }
    for n in [&rsw.ini, &rsw.gnd, &rsw.gat, &rsw.src] {
        fixed(&mut w, n, 40);
    }
    if ((1, 3)..(2, 6)).contains(&v) {
        let wt = rsw.water.clone().unwrap_or(Water {
            level: 0.0,
            water_type: None,
            wave_height: None,
            wave_speed: None,
            wave_pitch: None,
            anim_speed: None,
        });
        w.f32(wt.level);
        if v >= (1, 8) {
            w.i32(wt.water_type.unwrap_or(0))
                .f32(wt.wave_height.unwrap_or(0.0))
                .f32(wt.wave_speed.unwrap_or(0.0))
                .f32(wt.wave_pitch.unwrap_or(0.0));
        }
        if v >= (1, 9) {
            w.i32(wt.anim_speed.unwrap_or(0));
        }
    }
    if v >= (1, 5) {
        let l = rsw.light.clone().unwrap_or(Light {
            longitude: 0,
            latitude: 0,
            diffuse: [0.0; 3],
            ambient: [0.0; 3],
            shadow_opacity: None,
        });
        w.i32(l.longitude).i32(l.latitude);
        v3(&mut w, l.diffuse);
        v3(&mut w, l.ambient);
        if v >= (1, 7) {
            w.f32(l.shadow_opacity.unwrap_or(0.0));
        }
    }
    if v >= (1, 6) {
        for b in rsw.bounds.unwrap_or([0; 4]) {
            w.i32(b);
        }
    }
    w.i32(rsw.objects.len() as i32);
    for o in &rsw.objects {
        match o {
            Object::Model(m) => {
                w.i32(1);
                if v >= (1, 3) {
                    match &m.name {
                        Some(n) => fixed(&mut w, n, 40),
                        None => {
                            w.fixed_name(b"", 40);
                        }
                    }
                    w.i32(m.anim_type).f32(m.anim_speed).i32(m.block_type);
                }
                if let Some(f) = m.flag {
                    w.u8(f);
                }
                fixed(&mut w, &m.file, 80);
                fixed(&mut w, &m.node, 80);
                v3(&mut w, m.position);
                v3(&mut w, m.rotation);
                v3(&mut w, m.scale);
            }
            Object::Light(l) => {
                w.i32(2);
                fixed(&mut w, &l.name, 80);
                v3(&mut w, l.position);
                v3(&mut w, l.color);
                w.f32(l.range);
            }
            Object::Sound(s) => {
                w.i32(3);
                fixed(&mut w, &s.name, 80);
                fixed(&mut w, &s.file, 80);
                v3(&mut w, s.position);
                w.f32(s.volume).i32(s.width).i32(s.height).f32(s.range);
                if v >= (2, 0) {
                    w.f32(s.cycle.unwrap_or(0.0));
                }
            }
            Object::Effect(e) => {
                w.i32(4);
                fixed(&mut w, &e.name, 80);
                v3(&mut w, e.position);
                w.i32(e.id).f32(e.delay);
                for p in e.param {
                    w.f32(p);
                }
            }
        }
    }
    if let Some(q) = &rsw.quad_tree {
        w.bytes(q);
    }
    w.into_bytes()
}

/// A plain, serialisable description of an RSW for `kiln inspect`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RswSummary {
    /// "1.9", "2.6".
    pub version: String,
    /// Build number (2.2+).
    pub build: Option<u32>,
    /// The `.ini` file name, decoded.
    pub ini: String,
    /// The `.gnd` file name, decoded.
    pub gnd: String,
    /// The `.gat` file name, decoded.
    pub gat: String,
    /// The source file name, decoded.
    pub src: String,
    /// The water block (1.3 up to 2.5).
    pub water: Option<Water>,
    /// The sun (1.5+).
    pub light: Option<Light>,
    /// Top, bottom, left, right (1.6+).
    pub bounds: Option<[i32; 4]>,
    /// Model instances.
    pub models: usize,
    /// Point lights.
    pub lights: usize,
    /// Sound sources.
    pub sounds: usize,
    /// Effect emitters.
    pub effects: usize,
    /// Quad-tree nodes (1365 when present, else 0).
    pub quad_tree_nodes: usize,
    /// Every model instance, in file order.
    pub instances: Vec<ModelInstance>,
    /// The parser's warnings.
    pub warnings: Vec<String>,
}

/// Summarises `rsw`: header names, water, sun, object counts and instances.
pub fn summary(rsw: &Rsw) -> RswSummary {
    let [models, lights, sounds, effects] = rsw.counts();
    RswSummary {
        version: rsw.version_string(),
        build: rsw.build,
        ini: rsw.ini.text.clone(),
        gnd: rsw.gnd.text.clone(),
        gat: rsw.gat.text.clone(),
        src: rsw.src.text.clone(),
        water: rsw.water.clone(),
        light: rsw.light.clone(),
        bounds: rsw.bounds,
        models,
        lights,
        sounds,
        effects,
        quad_tree_nodes: rsw.quad_tree.as_ref().map_or(0, |q| q.len() / 48),
        instances: rsw.models().cloned().collect(),
        warnings: rsw.warnings.clone(),
    }
}
