//! Ragnarok RSW map scene files: the file names of the map's ground, the
//! water and sun settings and the placed objects (model instances, lights,
//! sounds, effects), then the quad tree the client culls with.
//!
//! Versions 1.0–2.7 are read, each by structure: where the public readers
//! disagree on a field (the `.gat` name before 1.5, sound cycles in 1.9 and
//! 2.0, the 2.4 "release" number, the 2.6 model byte, the 2.7 list after the
//! bounds) every reading is tried and the one whose objects parse to their
//! count with sane values and end exactly at the quad tree or the end of
//! the file is taken ([`layout`], `parse`). Parsing keeps every
//! fixed-width name's raw bytes and the reading it took, so that [`write()`]
//! reproduces each file byte for byte.

mod details;
/// Small synthetic files built in code, for kiln's own tests only (the
/// source is `tests/fixtures/rsw.rs`, shared with the integration tests).
#[cfg(test)]
pub mod fixture {
    use super::*;
    include!("../../../tests/fixtures/rsw.rs");
}
pub mod layout;
mod parse;
mod summary;
mod write;

pub use details::{bytes_after_nul, details, names, NameBytes};
pub use layout::{Field, Layout};
pub use parse::{parse, parse_file};
pub use summary::{summary, RswSummary};
pub use write::write;

use crate::text::{decode_cp949, until_nul};
use serde::{Serialize, Serializer};

/// 1365 nodes (a quad tree of depth 5: 1 + 4 + … + 4⁵) of 12 floats each.
pub const QUAD_TREE_NODES: usize = 1365;
/// Size of the quad tree that ends the file: 65,520 bytes.
pub const QUAD_TREE_BYTES: usize = QUAD_TREE_NODES * 48;

/// The newest version whose layout kiln knows; later ones are tried with it.
pub const NEWEST: (u8, u8) = (2, 7);

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
    /// The bytes after the first NUL when any of them is not zero (stale
    /// memory the exporter wrote out), else nothing.
    pub fn after_nul(&self) -> Option<&[u8]> {
        let tail = self.raw.get(self.bytes().len()..).unwrap_or(&[]);
        tail.iter().any(|&b| b != 0).then_some(tail)
    }
    pub(crate) fn from_raw(raw: Vec<u8>) -> Self {
        FixedName {
            text: decode_cp949(until_nul(&raw)),
            raw,
        }
    }
}

/// Names appear as their decoded text; the bytes after a NUL are listed
/// apart ([`bytes_after_nul`]).
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
    /// The byte after the block type ([`Layout::model_flag`]: 2.6 with a
    /// late build, 2.7); 0 on nearly every instance.
    pub flag: Option<u8>,
    /// The four bytes after it in 2.7 ([`Layout::model_extra`]); −1 on every
    /// map but the markets.
    pub extra: Option<i32>,
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
    /// Seconds between plays ([`Layout::sound_cycle`]: from 2.0).
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

/// One node of the quad tree, as stored: an axis-aligned box.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct QuadNode {
    /// The box's largest corner.
    pub max: [f32; 3],
    /// The box's smallest corner.
    pub min: [f32; 3],
    /// Half the box's size per axis.
    pub half_size: [f32; 3],
    /// The box's centre.
    pub center: [f32; 3],
}

impl QuadNode {
    /// The 48 bytes of a node, as the file stores them.
    pub fn to_bytes(&self) -> [u8; 48] {
        let mut out = [0u8; 48];
        let floats = self
            .max
            .iter()
            .chain(&self.min)
            .chain(&self.half_size)
            .chain(&self.center);
        for (chunk, f) in out.chunks_exact_mut(4).zip(floats) {
            chunk.copy_from_slice(&f.to_le_bytes());
        }
        out
    }
    fn from_bytes(b: &[u8]) -> Self {
        let f = |i: usize| {
            let at = i * 4;
            b.get(at..at + 4)
                .map_or(0.0, |x| f32::from_le_bytes([x[0], x[1], x[2], x[3]]))
        };
        let v = |i: usize| [f(i), f(i + 1), f(i + 2)];
        QuadNode {
            max: v(0),
            min: v(3),
            half_size: v(6),
            center: v(9),
        }
    }
}

/// One RSW scene file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rsw {
    /// Major version (1 or 2).
    pub major: u8,
    /// Minor version.
    pub minor: u8,
    /// u8 in 2.2–2.4, u32 from 2.5.
    pub build: Option<u32>,
    /// The byte after the u32 build from 2.5 (a "render flag"; meaning
    /// unknown).
    pub render_flag: Option<u8>,
    /// The four bytes after a 2.4 build number ([`Layout::release`]).
    pub release: Option<i32>,
    /// The `.ini` file name (40 bytes).
    pub ini: FixedName,
    /// The ground (`.gnd`) file name (40 bytes).
    pub gnd: FixedName,
    /// The altitude (`.gat`) file name (40 bytes; [`Layout::gat_name`]).
    pub gat: Option<FixedName>,
    /// The source file name (40 bytes).
    pub src: FixedName,
    /// Before 2.6 (it moved into the GND), and from 1.3.
    pub water: Option<Water>,
    /// From 1.5.
    pub light: Option<Light>,
    /// From 1.6: top, bottom, left, right.
    pub bounds: Option<[i32; 4]>,
    /// 2.7: the counted list of 4-byte values after the bounds
    /// ([`Layout::extra_list`]); meaning unknown, empty in practice.
    pub extra_list: Option<Vec<i32>>,
    /// Placed objects in file order.
    pub objects: Vec<Object>,
    /// The 1365-node quad tree when exactly 65,520 bytes follow the objects
    /// (whatever the version), kept raw; [`Rsw::quad_tree_nodes`] decodes it.
    #[serde(rename = "quad_tree", serialize_with = "details::quad_tree")]
    pub quad_tree: Option<Vec<u8>>,
    /// Bytes after the objects (and quad tree) that are neither; kept so
    /// the file round-trips, with a warning.
    #[serde(serialize_with = "crate::formats::json::hex")]
    pub trailing: Vec<u8>,
    /// The reading the file was parsed with; [`write()`] follows it.
    pub layout: Layout,
    /// Non-fatal findings: the reading taken when it is not the expected
    /// one or when another also fits, a missing quad tree, trailing bytes.
    pub warnings: Vec<String>,
}

impl Rsw {
    /// An empty map of the given version in its expected layout, with the
    /// header fields a parse of such a file produces.
    pub fn new(major: u8, minor: u8, build: Option<u32>) -> Self {
        let v = (major, minor);
        let layout = Layout::expected(major, minor, build);
        let name = |n: &str| FixedName::new(n, 40);
        Rsw {
            major,
            minor,
            build: if v >= (2, 2) { build.or(Some(0)) } else { None },
            render_flag: (v >= (2, 5)).then_some(0),
            release: layout.release.then_some(0),
            ini: name(""),
            gnd: name(""),
            gat: layout.gat_name.then(|| name("")),
            src: name(""),
            water: ((1, 3)..(2, 6)).contains(&v).then(|| Water {
                level: 0.0,
                water_type: (v >= (1, 8)).then_some(0),
                wave_height: (v >= (1, 8)).then_some(0.0),
                wave_speed: (v >= (1, 8)).then_some(0.0),
                wave_pitch: (v >= (1, 8)).then_some(0.0),
                anim_speed: (v >= (1, 9)).then_some(0),
            }),
            light: (v >= (1, 5)).then(|| Light {
                longitude: 0,
                latitude: 0,
                diffuse: [0.0; 3],
                ambient: [0.0; 3],
                shadow_opacity: (v >= (1, 7)).then_some(0.0),
            }),
            bounds: (v >= (1, 6)).then_some([0; 4]),
            extra_list: layout.extra_list.then(Vec::new),
            objects: Vec::new(),
            quad_tree: None,
            trailing: Vec::new(),
            layout,
            warnings: Vec::new(),
        }
    }
    /// True when `(major, minor) >= (maj, min)`.
    pub fn at_least(&self, maj: u8, min: u8) -> bool {
        (self.major, self.minor) >= (maj, min)
    }
    /// "1.9", "2.6".
    pub fn version_string(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }
    /// "2.1", "2.6 build 197".
    pub fn version_label(&self) -> String {
        layout::version_label(self.major, self.minor, self.build)
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
    /// The quad tree's nodes in file order (depth first: each node is
    /// followed by its four children's subtrees), if the file has one.
    pub fn quad_tree_nodes(&self) -> Option<Vec<QuadNode>> {
        self.quad_tree
            .as_ref()
            .map(|q| q.chunks(48).map(QuadNode::from_bytes).collect())
    }
}
