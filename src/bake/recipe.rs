//! Recipes: a YAML file holding several bake jobs, turned into fully resolved
//! [`Job`]s the run loop can use without further checks.
//!
//! Parsing is two-layered. serde (through serde-saphyr) does the typing and
//! rejects unknown keys; every value we still have to check is wrapped in
//! [`Spanned`] so a range error can point at its own line and column. Because a
//! serde error does not know which job it happened in, a second, lenient parse
//! of the same text finds where each job starts so the message can still name
//! the job.

use crate::camera::{yaw_pitch_vector, Framing, LightSpace, LightSpec, Projection};
use crate::color::parse_color;
use crate::paths::normalize;
use crate::scene::clip::{Clip, Step, MAX_FRAMES};
use glam::Vec3;
use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use serde_saphyr::{Location, MessageFormatter, Spanned};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Defaults applied when neither the job nor `defaults:` sets a key.
/// The README's recipe reference quotes these values; keep them in step.
pub mod default {
    pub const SIZE: (u32, u32) = (128, 128);
    pub const DIRECTIONS: u32 = 8;
    pub const PITCH: f32 = 30.0;
    pub const FPS: f32 = 12.0;
    pub const ANTIALIAS: u32 = 2;
    pub const PADDING: f32 = 0.05;
    pub const ZOOM: f32 = 1.0;
    pub const FOV: f32 = 35.0;
    pub const LIGHT_YAW: f32 = -45.0;
    pub const LIGHT_PITCH: f32 = 45.0;
    pub const LIGHT_COLOR: [f32; 3] = [1.0, 1.0, 1.0];
    pub const AMBIENT: [f32; 3] = [0.45, 0.45, 0.45];
    pub const OUTPUT_DIR: &str = "out/{name}";
    pub const SHEET: &str = "{name}.png";
}

/// Largest frame side, in pixels.
pub const MAX_SIZE: u32 = 8192;
/// Most directions a job may render.
pub const MAX_DIRECTIONS: usize = 360;
/// Most clips one job may list.
pub const MAX_CLIPS: usize = 256;
/// Highest LOD index a job may ask for.
pub const MAX_LOD_INDEX: u32 = 255;
/// Longest `duration`, seconds (a day: anything longer is a typo).
pub const MAX_DURATION: f32 = 86400.0;
/// The name of the one clip of a job given `clip:` (or no clip at all).
pub const DEFAULT_CLIP_NAME: &str = "default";

// ---------------------------------------------------------------------------
// Resolved types
// ---------------------------------------------------------------------------

/// One bake job, fully resolved: paths made relative to the recipe's folder,
/// defaults applied, values validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub name: String,
    /// The recipe file and the job's line there, for messages.
    pub recipe: PathBuf,
    pub line: u64,
    pub model: PathBuf,
    /// Extra texture search folders, in the order given.
    pub data: Vec<PathBuf>,
    /// The clips baked into this job's sheet, in order; never empty, names
    /// unique. Sheet rows are clip-major: clip 0 × every direction, then
    /// clip 1 × every direction, ...
    pub clips: Vec<ClipSpec>,
    /// True when the recipe listed `clips:`. A job given `clip:` (or no clip)
    /// has one clip named [`DEFAULT_CLIP_NAME`] and keeps the output names
    /// without a clip part, so older recipes bake to the same files.
    pub named_clips: bool,
    /// Which pose a skinned model's rest frame uses (Grimrock).
    pub pose: PoseMode,
    /// Material name → texture file, in recipe order; overrides the model's
    /// own texture lookup for those materials.
    pub materials: Vec<(String, PathBuf)>,
    /// Skeleton definition for formats that keep it outside the model (Arma).
    pub skeleton: Option<SkeletonSpec>,
    /// Seconds, for animations whose file has no length of its own (Arma RTM
    /// phases run 0..1); used when the model's duration is 0.
    pub duration: Option<f32>,
    /// Arma: move the model by the RTM's `step` (its displacement per cycle)
    /// instead of animating in place.
    pub travel: bool,
    /// Which level of detail to bake, for formats that have several (Arma).
    pub lod: Option<LodSpec>,
    /// Camera yaws, in order; row `i` of the sheet is `directions[i]`.
    pub directions: Vec<Direction>,
    /// Camera elevation above the horizon, degrees, −90..=90.
    pub pitch: f32,
    pub width: u32,
    pub height: u32,
    /// How the model is fitted in the frame, and the projection.
    pub camera: Framing,
    pub light: LightSpec,
    /// Straight RGBA; alpha 0 is a transparent background.
    pub background: [u8; 4],
    /// Supersampling factor per axis, 1..=4 (`raster::RenderOptions::supersample`).
    pub antialias: u32,
    pub output: Outputs,
}

/// One clip of a job: where its animation comes from and which moments of
/// it become frames.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipSpec {
    /// Unique within the job; used in frame names, tags and file names.
    pub name: String,
    /// An animation file applied to the model (relative paths already joined
    /// to the recipe's folder); `None` uses the model's own animation, or its
    /// rest pose when it has none.
    pub animation: Option<PathBuf>,
    pub clip: Clip,
    /// The recipe line the clip is written on, for messages.
    pub line: u64,
}

/// Which pose a skinned model starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PoseMode {
    /// The node matrices stored in the file.
    #[default]
    Rest,
    /// The skin's bind pose (inverse bind matrices).
    Bind,
}

/// A skeleton kept outside the model (Arma): a config file and the class in
/// it, or the (bone, parent) pairs written out in the recipe.
#[derive(Debug, Clone, PartialEq)]
pub enum SkeletonSpec {
    Config {
        /// Relative to the recipe's folder.
        config: PathBuf,
        class: String,
    },
    /// `(bone, parent)`; an empty parent marks a root.
    Bones(Vec<(String, String)>),
}

/// A level of detail, by position in the file or by its resolution value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LodSpec {
    Index(u32),
    Resolution(f32),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Direction {
    pub index: usize,
    /// Degrees; 0 looks at the model's front (+Z) and angles grow toward +X.
    pub yaw: f32,
}

/// Where a job writes. Templates may use `{name}`, `{clip}` (clip name),
/// `{dir}` (direction index), `{yaw}` (whole degrees) and `{frame}` (frame
/// index within its clip).
#[derive(Debug, Clone, PartialEq)]
pub struct Outputs {
    pub dir: PathBuf,
    pub frames: Option<Template>,
    pub sheet: Option<PathBuf>,
    /// JSON metadata; only written with a sheet.
    pub meta: Option<PathBuf>,
    pub gif: Option<Template>,
}

impl Job {
    /// The per-frame PNG path of clip `clip`, direction `dir`, frame
    /// `frame`, when per-frame output is on.
    pub fn frame_path(&self, clip: usize, dir: usize, frame: usize) -> Option<PathBuf> {
        let t = self.output.frames.as_ref()?;
        let c = self.clips.get(clip)?;
        let d = self.directions.get(dir)?;
        Some(
            self.output
                .dir
                .join(t.render(&self.name, Some(&c.name), Some(d), Some(frame))),
        )
    }

    /// The GIF path for one clip and direction, when GIF output is on.
    pub fn gif_path(&self, clip: usize, dir: usize) -> Option<PathBuf> {
        let t = self.output.gif.as_ref()?;
        let c = self.clips.get(clip)?;
        let d = self.directions.get(dir)?;
        Some(
            self.output
                .dir
                .join(t.render(&self.name, Some(&c.name), Some(d), None)),
        )
    }
}

/// A file-name pattern with `{name}`, `{clip}`, `{dir}`, `{yaw}`, `{frame}` holes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Name,
    Clip,
    Dir,
    Yaw,
    Frame,
}

impl Template {
    /// Parses `text`; `allowed` lists the placeholders this output may use.
    pub fn parse(text: &str, allowed: &[&str]) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut rest = text;
        while let Some(i) = rest.find(['{', '}']) {
            lit.push_str(&rest[..i]);
            if rest[i..].starts_with('}') {
                return Err(format!("unmatched `}}` in `{text}`"));
            }
            let close = rest[i..]
                .find('}')
                .ok_or_else(|| format!("unclosed `{{` in `{text}`"))?;
            let key = &rest[i + 1..i + close];
            let part = match key {
                "name" => Part::Name,
                "clip" => Part::Clip,
                "dir" => Part::Dir,
                "yaw" => Part::Yaw,
                "frame" => Part::Frame,
                _ => {
                    return Err(format!(
                        "unknown placeholder `{{{key}}}` in `{text}`, expected one of {}",
                        allowed
                            .iter()
                            .map(|a| format!("`{{{a}}}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }
            };
            if !allowed.contains(&key) {
                return Err(format!(
                    "placeholder `{{{key}}}` cannot be used in `{text}`, expected only {}",
                    allowed
                        .iter()
                        .map(|a| format!("`{{{a}}}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if !lit.is_empty() {
                parts.push(Part::Text(std::mem::take(&mut lit)));
            }
            parts.push(part);
            rest = &rest[i + close + 1..];
        }
        lit.push_str(rest);
        if !lit.is_empty() {
            parts.push(Part::Text(lit));
        }
        if parts.is_empty() {
            return Err("empty file name".into());
        }
        Ok(Template { parts })
    }

    fn uses(&self, p: &Part) -> bool {
        self.parts.contains(p)
    }

    /// Fills the holes; a hole whose value is not given is left as written,
    /// which is how two jobs' patterns are compared.
    pub fn render(
        &self,
        name: &str,
        clip: Option<&str>,
        dir: Option<&Direction>,
        frame: Option<usize>,
    ) -> String {
        let mut s = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => s.push_str(t),
                Part::Name => s.push_str(name),
                Part::Clip => s.push_str(clip.unwrap_or("{clip}")),
                Part::Dir => match dir {
                    Some(d) => s.push_str(&d.index.to_string()),
                    None => s.push_str("{dir}"),
                },
                Part::Yaw => match dir {
                    Some(d) => s.push_str(&format!("{}", d.yaw.round() as i64)),
                    None => s.push_str("{yaw}"),
                },
                Part::Frame => match frame {
                    Some(f) => s.push_str(&f.to_string()),
                    None => s.push_str("{frame}"),
                },
            }
        }
        s
    }
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// A recipe that cannot be used. `line`/`column` are 1-based; 0 when unknown
/// (e.g. the file cannot be read).
#[derive(Debug, Clone, PartialEq)]
pub struct RecipeError {
    pub file: PathBuf,
    pub line: u64,
    pub column: u64,
    /// `job 'name'`, `job #3` or `defaults`, when the error lies inside one.
    pub context: Option<String>,
    pub message: String,
}

impl fmt::Display for RecipeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        write!(f, ": ")?;
        if let Some(c) = &self.context {
            write!(f, "{c}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for RecipeError {}

impl From<RecipeError> for crate::Error {
    fn from(e: RecipeError) -> Self {
        crate::Error::Usage(e.to_string())
    }
}

impl RecipeError {
    /// The offending source line with a caret under the column, for a
    /// terminal; empty when the position is unknown.
    pub fn snippet(&self, text: &str) -> String {
        if self.line == 0 {
            return String::new();
        }
        let Some(src) = text.lines().nth(self.line as usize - 1) else {
            return String::new();
        };
        let pad: String = src
            .chars()
            .take(self.column.saturating_sub(1) as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        format!("{:>5} | {src}\n      | {pad}^", self.line)
    }
}

// ---------------------------------------------------------------------------
// Raw (deserialized) shape
// ---------------------------------------------------------------------------

pub(super) type S<T> = Spanned<T>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRecipe {
    #[serde(default)]
    defaults: Option<S<RawJob>>,
    #[serde(default)]
    jobs: Option<S<Vec<S<RawJob>>>>,
    #[serde(default)]
    maps: Option<S<Vec<S<super::map_recipe::RawMap>>>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawJob {
    name: Option<S<String>>,
    model: Option<S<String>>,
    data: Option<S<OneOrMany>>,
    clip: Option<S<RawClip>>,
    clips: Option<S<Vec<S<RawClipEntry>>>>,
    pose: Option<S<PoseMode>>,
    materials: Option<S<Materials>>,
    skeleton: Option<S<RawSkeleton>>,
    duration: Option<S<Num>>,
    travel: Option<S<bool>>,
    lod: Option<S<Lod>>,
    directions: Option<S<Directions>>,
    pitch: Option<S<Num>>,
    size: Option<S<Size>>,
    camera: Option<RawCamera>,
    light: Option<S<RawLight>>,
    background: Option<S<Background>>,
    antialias: Option<S<Int>>,
    output: Option<RawOutput>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RawClip {
    start: Option<S<Num>>,
    end: Option<S<Num>>,
    fps: Option<S<Num>>,
    frames: Option<S<Int>>,
    time: Option<S<Num>>,
}

/// One entry of `clips:`: a `clip:` plus its name and animation file.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RawClipEntry {
    name: Option<S<String>>,
    animation: Option<S<String>>,
    start: Option<S<Num>>,
    end: Option<S<Num>>,
    fps: Option<S<Num>>,
    frames: Option<S<Int>>,
    time: Option<S<Num>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RawSkeleton {
    config: Option<S<String>>,
    class: Option<S<String>>,
    bones: Option<S<Vec<Vec<String>>>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawCamera {
    projection: Option<S<ProjectionKind>>,
    padding: Option<S<Num>>,
    zoom: Option<S<Num>>,
    fov: Option<S<Num>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawLight {
    yaw: Option<S<Num>>,
    pitch: Option<S<Num>>,
    direction: Option<S<[Num; 3]>>,
    space: Option<S<LightSpace>>,
    color: Option<S<[Num; 3]>>,
    ambient: Option<S<[Num; 3]>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawOutput {
    dir: Option<S<String>>,
    frames: Option<S<OutName>>,
    sheet: Option<S<OutName>>,
    meta: Option<S<OutName>>,
    gif: Option<S<OutName>>,
}

/// `projection: orthographic` or `perspective`: the keyword alone, since the
/// field of view is its own key (`fov`); resolution turns the pair into a
/// [`crate::camera::Projection`]. Serde names it `Projection` in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename = "Projection", rename_all = "lowercase")]
pub(super) enum ProjectionKind {
    Orthographic,
    Perspective,
}

/// A number; a custom type only so that `pitch: high` says "expected a
/// number" instead of the parser's bare "invalid floating point".
#[derive(Clone, Copy)]
pub(super) struct Num(pub(super) f32);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num(v as f32))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num(v as f32))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num(v as f32))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Num, E> {
                Err(E::custom(format!("expected a number, got `{v}`")))
            }
        }
        d.deserialize_any(V)
    }
}

/// A whole number; custom so that `antialias: 2.5` says what was wrong.
#[derive(Clone, Copy)]
pub(super) struct Int(pub(super) i64);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Int;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a whole number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Int, E> {
                Ok(Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Int, E> {
                Ok(Int(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Int, E> {
                Err(E::custom(format!("expected a whole number, got {v}")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Int, E> {
                Err(E::custom(format!("expected a whole number, got `{v}`")))
            }
        }
        d.deserialize_any(V)
    }
}

/// `data: ../data` or `data: [a, b]`.
#[derive(Clone)]
pub(super) struct OneOrMany(pub(super) Vec<String>);

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OneOrMany;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a folder or a list of folders")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<OneOrMany, E> {
                Ok(OneOrMany(vec![v.to_owned()]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<OneOrMany, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = a.next_element::<String>()? {
                    v.push(s);
                }
                Ok(OneOrMany(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// `directions: 8` or `directions: [0, 90, 180, 270]`.
#[derive(Clone)]
enum Directions {
    Count(i64),
    Yaws(Vec<f64>),
}

impl<'de> Deserialize<'de> for Directions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Directions;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a count of directions or a list of yaw angles in degrees")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Directions, E> {
                Ok(Directions::Count(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Directions, E> {
                Ok(Directions::Count(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Directions, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = a.next_element::<f64>()? {
                    if v.len() >= MAX_DIRECTIONS {
                        return Err(de::Error::custom(format!(
                            "more than {MAX_DIRECTIONS} directions"
                        )));
                    }
                    v.push(s);
                }
                Ok(Directions::Yaws(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// `size: 128x128`, `size: [128, 96]` or `size: 128` (square).
#[derive(Clone, Copy)]
pub(super) struct Size(pub(super) i64, pub(super) i64, pub(super) bool);

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Size;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a size like 128x96, [128, 96] or 128")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Size, E> {
                Ok(Size(v, v, true))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Size, E> {
                let v = i64::try_from(v).unwrap_or(i64::MAX);
                Ok(Size(v, v, true))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Size, E> {
                let bad = || E::custom(format!("expected a size like 128x96, got `{v}`"));
                let (w, h) = v.split_once(['x', 'X']).ok_or_else(bad)?;
                let w = w.trim().parse::<i64>().map_err(|_| bad())?;
                let h = h.trim().parse::<i64>().map_err(|_| bad())?;
                Ok(Size(w, h, false))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Size, A::Error> {
                let w = a.next_element::<i64>()?;
                let h = a.next_element::<i64>()?;
                match (w, h) {
                    (Some(w), Some(h)) => {
                        if a.next_element::<IgnoredAny>()?.is_some() {
                            return Err(de::Error::custom(
                                "expected a size as [width, height], got more than two numbers",
                            ));
                        }
                        Ok(Size(w, h, false))
                    }
                    _ => Err(de::Error::custom(
                        "expected a size as [width, height], got fewer than two numbers",
                    )),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// `background: transparent`, `"#rrggbb"` or `"#rrggbbaa"`.
#[derive(Clone, Copy)]
pub(super) struct Background(pub(super) [u8; 4]);

impl<'de> Deserialize<'de> for Background {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_color(&s).map(Background).map_err(|_| {
            de::Error::custom(format!(
                "expected `transparent`, \"#rrggbb\" or \"#rrggbbaa\" (quoted: # starts a YAML comment), got `{s}`"
            ))
        })
    }
}

/// An output file name, or `false` to switch that output off.
#[derive(Clone)]
enum OutName {
    Off,
    Name(String),
}

impl<'de> Deserialize<'de> for OutName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OutName;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a file name, or false to turn this output off")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<OutName, E> {
                if v {
                    Err(E::custom(
                        "expected a file name, or false to turn this output off, got true",
                    ))
                } else {
                    Ok(OutName::Off)
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<OutName, E> {
                Ok(OutName::Name(v.to_owned()))
            }
        }
        d.deserialize_any(V)
    }
}

/// `materials: {name: file, ...}`, kept in the order written (a map type
/// would sort it, and the order is what the user reads in messages).
#[derive(Clone)]
struct Materials(Vec<(S<String>, S<String>)>);

impl<'de> Deserialize<'de> for Materials {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Materials;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping of material names to texture files")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut a: A) -> Result<Materials, A::Error> {
                let mut v = Vec::new();
                while let Some(k) = a.next_key::<S<String>>()? {
                    let f = a.next_value::<S<String>>()?;
                    v.push((k, f));
                }
                Ok(Materials(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// `lod: 2` (an index) or `lod: {resolution: 1.5}`.
#[derive(Clone, Copy)]
enum Lod {
    Index(i64),
    Resolution(f32),
}

impl<'de> Deserialize<'de> for Lod {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        const EXPECTED: &str = "a LOD index (a whole number) or `{resolution: R}`";
        impl<'de> Visitor<'de> for V {
            type Value = Lod;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Lod, E> {
                Ok(Lod::Index(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Lod, E> {
                Ok(Lod::Index(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Lod, E> {
                Err(E::custom(format!("expected {EXPECTED}, got {v}")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Lod, E> {
                Err(E::custom(format!("expected {EXPECTED}, got `{v}`")))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut a: A) -> Result<Lod, A::Error> {
                let mut res = None;
                while let Some(k) = a.next_key::<String>()? {
                    if k != "resolution" {
                        return Err(de::Error::custom(format!(
                            "unknown key `{k}`, expected resolution"
                        )));
                    }
                    if res.is_some() {
                        return Err(de::Error::custom("duplicate key `resolution`"));
                    }
                    res = Some(a.next_value::<Num>()?.0);
                }
                res.map(Lod::Resolution)
                    .ok_or_else(|| de::Error::custom("missing key `resolution`"))
            }
        }
        d.deserialize_any(V)
    }
}

// The lenient reading used only to name the job an error lies in.
#[derive(Deserialize)]
struct LenientRecipe {
    #[serde(default)]
    defaults: Option<S<IgnoredAny>>,
    #[serde(default)]
    jobs: Option<Vec<S<LenientJob>>>,
    #[serde(default)]
    maps: Option<Vec<S<LenientJob>>>,
}

#[derive(Deserialize)]
struct LenientJob {
    #[serde(default)]
    name: Option<AnyName>,
}

struct AnyName(Option<String>);

impl<'de> Deserialize<'de> for AnyName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AnyName;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<AnyName, E> {
                Ok(AnyName(Some(v.to_owned())))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<AnyName, E> {
                Ok(AnyName(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<AnyName, E> {
                Ok(AnyName(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<AnyName, E> {
                Ok(AnyName(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<AnyName, E> {
                Ok(AnyName(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<AnyName, E> {
                Ok(AnyName(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<AnyName, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(AnyName(None))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut a: A) -> Result<AnyName, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(AnyName(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// Where each job (and the defaults) starts, to label a bare location.
struct Regions(Vec<(Location, String)>);

impl Regions {
    fn find(text: &str) -> Regions {
        let mut v = Vec::new();
        // Duplicate keys are an error in the real parse; here they must not
        // stop us from finding the job the duplicate sits in.
        let opts = serde_saphyr::options! {
            non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
            duplicate_keys: serde_saphyr::DuplicateKeyPolicy::LastWins,
        };
        if let Ok(l) = serde_saphyr::from_str_with_options::<LenientRecipe>(text, opts) {
            if let Some(d) = l.defaults {
                v.push((d.referenced, "defaults".to_string()));
            }
            for (i, j) in l.jobs.unwrap_or_default().into_iter().enumerate() {
                let label = job_label(j.value.name.and_then(|n| n.0).as_deref(), i);
                v.push((j.referenced, label));
            }
            for (i, m) in l.maps.unwrap_or_default().into_iter().enumerate() {
                let label = match m.value.name.and_then(|n| n.0) {
                    Some(n) => format!("map '{n}'"),
                    None => format!("map #{}", i + 1),
                };
                v.push((m.referenced, label));
            }
        }
        v.sort_by_key(|(l, _)| (l.line(), l.column()));
        Regions(v)
    }

    fn label(&self, line: u64, column: u64) -> Option<String> {
        // The last region starting at or before the position; a position
        // left of the region's own column on a later line has left it (a
        // top-level key after the job list).
        let (start, label) = self
            .0
            .iter()
            .rev()
            .find(|(l, _)| (l.line(), l.column()) <= (line, column))?;
        if line > start.line() && column < start.column() {
            return None;
        }
        Some(label.clone())
    }
}

/// `.inf`/`.nan` reach our number types, which reject them with the key's
/// name; the library's default would reject them with a generic message.
fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
    }
}

fn job_label(name: Option<&str>, index: usize) -> String {
    match name {
        Some(n) => format!("job '{n}'"),
        None => format!("job #{}", index + 1),
    }
}

// ---------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------

/// A parsed, validated recipe.
#[derive(Debug, Clone)]
pub struct Recipe {
    path: PathBuf,
    jobs: Vec<Job>,
    maps: Vec<super::map_recipe::MapJob>,
}

pub(super) struct Ctx<'a> {
    text: &'a str,
    pub(super) file: &'a Path,
    pub(super) base: &'a Path,
}

impl Ctx<'_> {
    pub(super) fn err(
        &self,
        at: &Location,
        context: &str,
        message: impl Into<String>,
    ) -> RecipeError {
        RecipeError {
            file: self.file.to_path_buf(),
            line: at.line(),
            column: at.column(),
            context: Some(context.to_string()),
            message: message.into(),
        }
    }
}

impl Recipe {
    /// Reads and validates a recipe file.
    pub fn load(path: &Path) -> Result<Recipe, RecipeError> {
        let text = std::fs::read_to_string(path).map_err(|e| RecipeError {
            file: path.to_path_buf(),
            line: 0,
            column: 0,
            context: None,
            message: format!("cannot read recipe: {e}"),
        })?;
        Recipe::from_str(&text, path)
    }

    /// Parses and validates recipe `text`; `path` names the file in messages
    /// and its folder is the base for every relative path in the recipe.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str, path: &Path) -> Result<Recipe, RecipeError> {
        let raw: RawRecipe =
            serde_saphyr::from_str_with_options(text, yaml_options()).map_err(|e| {
                let inner = e.without_snippet();
                let (line, column) = inner
                    .location()
                    .map(|l| (l.line(), l.column()))
                    .unwrap_or((0, 0));
                let msg = serde_saphyr::DefaultMessageFormatter
                    .format_message(inner)
                    .replace("unknown field", "unknown key")
                    .replace("missing field", "missing key")
                    .replace(", set DuplicateKeyPolicy in Options if acceptable", "");
                let context = if line > 0 {
                    Regions::find(text).label(line, column)
                } else {
                    None
                };
                RecipeError {
                    file: path.to_path_buf(),
                    line,
                    column,
                    context,
                    message: msg,
                }
            })?;
        let base = path.parent().unwrap_or(Path::new(""));
        let ctx = Ctx {
            text,
            file: path,
            base,
        };
        let defaults = match &raw.defaults {
            Some(d) => {
                if let Some(n) = &d.value.name {
                    return Err(ctx.err(
                        &n.referenced,
                        "defaults",
                        "`name` cannot have a default; every job needs its own",
                    ));
                }
                d.value.clone()
            }
            None => RawJob::default(),
        };
        let no_jobs = raw.jobs.as_ref().is_none_or(|j| j.value.is_empty());
        let no_maps = raw.maps.as_ref().is_none_or(|m| m.value.is_empty());
        if no_jobs && no_maps {
            let at = raw
                .jobs
                .as_ref()
                .map(|j| (j.referenced, "jobs"))
                .or(raw.maps.as_ref().map(|m| (m.referenced, "maps")));
            return Err(match at {
                Some((at, key)) if raw.maps.is_some() => {
                    ctx.err(&at, key, "the recipe has no jobs and no maps")
                }
                Some((at, key)) => ctx.err(&at, key, "the recipe has no jobs"),
                None => RecipeError {
                    file: path.to_path_buf(),
                    line: 0,
                    column: 0,
                    context: None,
                    message: "the recipe has no `jobs:` and no `maps:`".into(),
                },
            });
        }
        let raw_jobs: &[S<RawJob>] = raw.jobs.as_ref().map_or(&[], |j| j.value.as_slice());
        let mut jobs = Vec::with_capacity(raw_jobs.len());
        // Output pattern → (job name) that claimed it, for the uniqueness check.
        let mut claimed: BTreeMap<PathBuf, String> = BTreeMap::new();
        let mut names: BTreeMap<String, u64> = BTreeMap::new();
        for (i, sj) in raw_jobs.iter().enumerate() {
            let at = &sj.referenced;
            let j = &sj.value;
            let name = match &j.name {
                Some(n) => n,
                None => return Err(ctx.err(at, &job_label(None, i), "missing key `name`")),
            };
            let label = job_label(Some(&name.value), i);
            check_name(&name.value).map_err(|m| ctx.err(&name.referenced, &label, m))?;
            if let Some(first) = names.get(&name.value) {
                return Err(ctx.err(
                    &name.referenced,
                    &label,
                    format!("duplicate job name; line {first} already uses it"),
                ));
            }
            names.insert(name.value.clone(), name.referenced.line());
            let job = resolve(&ctx, &label, &name.value, at, j, &defaults)?;
            for (pattern, loc) in output_patterns(&job) {
                let key = normalize(&pattern);
                if let Some(other) = claimed.get(&key) {
                    let loc = loc.unwrap_or(*at);
                    return Err(ctx.err(
                        &loc,
                        &label,
                        format!("output `{}` is also written by {other}", pattern.display()),
                    ));
                }
                claimed.insert(key, label.clone());
            }
            jobs.push(job);
        }
        let raw_maps = raw.maps.as_ref().map_or(&[][..], |m| m.value.as_slice());
        let maps = super::map_recipe::resolve_maps(&ctx, raw_maps, &mut names)?;
        for m in &maps {
            for v in &m.views {
                let key = normalize(&v.file);
                if let Some(other) = claimed.get(&key) {
                    return Err(RecipeError {
                        file: path.to_path_buf(),
                        line: v.line,
                        column: v.column,
                        context: Some(format!("map '{}' view '{}'", m.name, v.name)),
                        message: format!(
                            "output `{}` is also written by {other}",
                            v.file.display()
                        ),
                    });
                }
                claimed.insert(key, format!("map '{}'", m.name));
            }
        }
        Ok(Recipe {
            path: path.to_path_buf(),
            jobs,
            maps,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The resolved jobs, in file order.
    pub fn jobs(&self) -> Vec<Job> {
        self.jobs.clone()
    }

    /// The resolved map previews, in file order.
    pub fn maps(&self) -> Vec<super::map_recipe::MapJob> {
        self.maps.clone()
    }
}

pub(super) fn check_name(n: &str) -> Result<(), String> {
    if n.trim().is_empty() {
        return Err("job name is empty".into());
    }
    if n == "." || n == ".." || n.chars().any(|c| "/\\{}".contains(c) || c.is_control()) {
        return Err(format!(
            "job name `{n}` is used in file names, so it cannot contain /, \\, {{, }} or control characters"
        ));
    }
    Ok(())
}

/// Every file pattern a job writes, with `{name}` filled and the other holes
/// kept, so equal patterns mean two jobs would overwrite each other.
fn output_patterns(job: &Job) -> Vec<(PathBuf, Option<Location>)> {
    let mut v = Vec::new();
    let o = &job.output;
    if let Some(s) = &o.sheet {
        v.push((s.clone(), None));
    }
    if let Some(m) = &o.meta {
        v.push((m.clone(), None));
    }
    if let Some(t) = &o.frames {
        v.push((o.dir.join(t.render(&job.name, None, None, None)), None));
    }
    if let Some(t) = &o.gif {
        v.push((o.dir.join(t.render(&job.name, None, None, None)), None));
    }
    v
}

fn pick<'a, T>(job: &'a Option<T>, def: &'a Option<T>) -> Option<&'a T> {
    job.as_ref().or(def.as_ref())
}

pub(super) fn finite(ctx: &Ctx, label: &str, key: &str, v: &S<Num>) -> Result<f32, RecipeError> {
    if v.value.0.is_finite() {
        Ok(v.value.0)
    } else {
        Err(ctx.err(
            &v.referenced,
            label,
            format!("`{key}` must be a finite number, got {}", v.value.0),
        ))
    }
}

pub(super) fn in_range(
    ctx: &Ctx,
    label: &str,
    key: &str,
    v: &S<Num>,
    lo: f32,
    hi: f32,
    lo_open: bool,
) -> Result<f32, RecipeError> {
    let x = finite(ctx, label, key, v)?;
    let ok = if lo_open { x > lo } else { x >= lo } && x <= hi;
    if ok {
        Ok(x)
    } else {
        let open = if lo_open { "(" } else { "[" };
        Err(ctx.err(
            &v.referenced,
            label,
            format!("`{key}` must be in {open}{lo}, {hi}], got {x}"),
        ))
    }
}

fn non_negative(ctx: &Ctx, label: &str, key: &str, v: &S<Num>) -> Result<f32, RecipeError> {
    let x = finite(ctx, label, key, v)?;
    if x >= 0.0 {
        Ok(x)
    } else {
        Err(ctx.err(
            &v.referenced,
            label,
            format!("`{key}` must be at least 0 seconds, got {x}"),
        ))
    }
}

pub(super) fn int_range(
    ctx: &Ctx,
    label: &str,
    key: &str,
    v: &S<Int>,
    lo: i64,
    hi: i64,
) -> Result<u32, RecipeError> {
    if (lo..=hi).contains(&v.value.0) {
        Ok(v.value.0 as u32)
    } else {
        Err(ctx.err(
            &v.referenced,
            label,
            format!("`{key}` must be in {lo}..={hi}, got {}", v.value.0),
        ))
    }
}

fn color3(ctx: &Ctx, label: &str, key: &str, v: &S<[Num; 3]>) -> Result<Vec3, RecipeError> {
    let c = v.value.map(|n| n.0);
    if c.iter().all(|c| c.is_finite() && (0.0..=4.0).contains(c)) {
        Ok(Vec3::from_array(c))
    } else {
        Err(ctx.err(
            &v.referenced,
            label,
            format!("`{key}` components must be in [0, 4], got {c:?}"),
        ))
    }
}

fn resolve(
    ctx: &Ctx,
    label: &str,
    name: &str,
    at: &Location,
    j: &RawJob,
    d: &RawJob,
) -> Result<Job, RecipeError> {
    // A value taken from `defaults:` is reported against the defaults block
    // (its own position), labelled so the user knows which job pulled it in.
    let lab = |from_job: bool| -> String {
        if from_job {
            label.to_string()
        } else {
            format!("defaults (used by {label})")
        }
    };

    let model = match pick(&j.model, &d.model) {
        Some(m) => {
            if m.value.trim().is_empty() {
                return Err(ctx.err(&m.referenced, &lab(j.model.is_some()), "`model` is empty"));
            }
            ctx.base.join(&m.value)
        }
        None => return Err(ctx.err(at, label, "missing key `model`")),
    };

    let data = pick(&j.data, &d.data)
        .map(|v| v.value.0.iter().map(|p| ctx.base.join(p)).collect())
        .unwrap_or_default();

    let (clips, named_clips) = resolve_clips(ctx, &lab, at, j, d)?;

    let pose = pick(&j.pose, &d.pose).map(|p| p.value).unwrap_or_default();

    let materials = match pick(&j.materials, &d.materials) {
        Some(m) => {
            let l = lab(j.materials.is_some());
            let mut out: Vec<(String, PathBuf)> = Vec::with_capacity(m.value.0.len());
            for (k, f) in &m.value.0 {
                if k.value.trim().is_empty() {
                    return Err(ctx.err(
                        &k.referenced,
                        &l,
                        "`materials` has an empty material name",
                    ));
                }
                if out.iter().any(|(n, _)| n == &k.value) {
                    return Err(ctx.err(
                        &k.referenced,
                        &l,
                        format!("`materials` names `{}` twice", k.value),
                    ));
                }
                if f.value.trim().is_empty() {
                    return Err(ctx.err(
                        &f.referenced,
                        &l,
                        format!("`materials.{}` is empty; give a texture file", k.value),
                    ));
                }
                out.push((k.value.clone(), ctx.base.join(&f.value)));
            }
            out
        }
        None => Vec::new(),
    };

    let skeleton = match pick(&j.skeleton, &d.skeleton) {
        Some(sk) => {
            let l = lab(j.skeleton.is_some());
            let r = &sk.value;
            match (&r.config, &r.class, &r.bones) {
                (None, None, Some(b)) => {
                    let mut pairs = Vec::with_capacity(b.value.len());
                    for p in &b.value {
                        match p.as_slice() {
                            [bone, parent] if !bone.trim().is_empty() => pairs.push((bone.clone(), parent.clone())),
                            _ => {
                                return Err(ctx.err(
                                    &b.referenced,
                                    &l,
                                    "`skeleton.bones` entries are [bone, parent] pairs (parent \"\" for a root)",
                                ))
                            }
                        }
                    }
                    if pairs.is_empty() {
                        return Err(ctx.err(&b.referenced, &l, "`skeleton.bones` is empty"));
                    }
                    Some(SkeletonSpec::Bones(pairs))
                }
                (Some(config), Some(class), None) => {
                    if config.value.trim().is_empty() {
                        return Err(ctx.err(&config.referenced, &l, "`skeleton.config` is empty"));
                    }
                    if class.value.trim().is_empty() {
                        return Err(ctx.err(&class.referenced, &l, "`skeleton.class` is empty"));
                    }
                    Some(SkeletonSpec::Config { config: ctx.base.join(&config.value), class: class.value.clone() })
                }
                (Some(_), None, None) => {
                    return Err(ctx.err(
                        &sk.referenced,
                        &l,
                        "`skeleton` has `config` but no `class` (the skeleton's class name in it)",
                    ))
                }
                (None, Some(_), None) => {
                    return Err(ctx.err(
                        &sk.referenced,
                        &l,
                        "`skeleton` has `class` but no `config` (the model.cfg that defines it)",
                    ))
                }
                _ => {
                    return Err(ctx.err(
                        &sk.referenced,
                        &l,
                        "`skeleton` takes either `config` and `class`, or `bones: [[bone, parent], ...]`",
                    ))
                }
            }
        }
        None => None,
    };

    let duration = match pick(&j.duration, &d.duration) {
        Some(x) => Some(in_range(
            ctx,
            &lab(j.duration.is_some()),
            "duration",
            x,
            0.0,
            MAX_DURATION,
            true,
        )?),
        None => None,
    };

    let travel = pick(&j.travel, &d.travel).is_some_and(|t| t.value);

    let lod = match pick(&j.lod, &d.lod) {
        Some(x) => {
            let l = lab(j.lod.is_some());
            Some(match x.value {
                Lod::Index(i) => {
                    if !(0..=MAX_LOD_INDEX as i64).contains(&i) {
                        return Err(ctx.err(
                            &x.referenced,
                            &l,
                            format!("`lod` index must be in 0..={MAX_LOD_INDEX}, got {i}"),
                        ));
                    }
                    LodSpec::Index(i as u32)
                }
                Lod::Resolution(r) => {
                    if !r.is_finite() || r < 0.0 {
                        return Err(ctx.err(
                            &x.referenced,
                            &l,
                            format!("`lod.resolution` must be a finite number at least 0, got {r}"),
                        ));
                    }
                    LodSpec::Resolution(r)
                }
            })
        }
        None => None,
    };

    let directions = match pick(&j.directions, &d.directions) {
        None => evenly(default::DIRECTIONS as usize),
        Some(s) => {
            let l = lab(j.directions.is_some());
            match &s.value {
                Directions::Count(n) => {
                    if !(1..=MAX_DIRECTIONS as i64).contains(n) {
                        return Err(ctx.err(
                            &s.referenced,
                            &l,
                            format!("`directions` must be in 1..={MAX_DIRECTIONS}, got {n}"),
                        ));
                    }
                    evenly(*n as usize)
                }
                Directions::Yaws(list) => {
                    if list.is_empty() {
                        return Err(ctx.err(
                            &s.referenced,
                            &l,
                            "`directions` needs at least one yaw angle",
                        ));
                    }
                    let mut out = Vec::with_capacity(list.len());
                    for (index, &y) in list.iter().enumerate() {
                        if !y.is_finite() || y.abs() > 3600.0 {
                            return Err(ctx.err(
                                &s.referenced,
                                &l,
                                format!("`directions[{index}]` must be a finite angle in degrees, got {y}"),
                            ));
                        }
                        let yaw = y as f32;
                        if let Some(p) = out.iter().position(|o: &Direction| o.yaw == yaw) {
                            return Err(ctx.err(
                                &s.referenced,
                                &l,
                                format!(
                                    "`directions[{index}]` repeats yaw {yaw} of directions[{p}]"
                                ),
                            ));
                        }
                        out.push(Direction { index, yaw });
                    }
                    out
                }
            }
        }
    };

    let pitch = match pick(&j.pitch, &d.pitch) {
        Some(p) => in_range(ctx, &lab(j.pitch.is_some()), "pitch", p, -90.0, 90.0, false)?,
        None => default::PITCH,
    };

    let (width, height) = match pick(&j.size, &d.size) {
        Some(s) => {
            let Size(w, h, from_int) = s.value;
            // YAML reads `0x40` as the hex number 64; a plain-number size must
            // be spelled in decimal digits or it was meant as WxH.
            if from_int
                && !source_of(ctx.text, &s.defined)
                    .bytes()
                    .all(|b| b.is_ascii_digit())
            {
                return Err(ctx.err(
                    &s.referenced,
                    &lab(j.size.is_some()),
                    format!(
                        "`size` `{}` reads as a number; write sizes as WIDTHxHEIGHT with both sides at least 1",
                        source_of(ctx.text, &s.defined)
                    ),
                ));
            }
            let r = 1..=MAX_SIZE as i64;
            if !r.contains(&w) || !r.contains(&h) {
                return Err(ctx.err(
                    &s.referenced,
                    &lab(j.size.is_some()),
                    format!("`size` sides must be in 1..={MAX_SIZE}, got {w}x{h}"),
                ));
            }
            (w as u32, h as u32)
        }
        None => default::SIZE,
    };

    let camera = {
        let jc = j.camera.clone().unwrap_or_default();
        let dc = d.camera.clone().unwrap_or_default();
        let kind = pick(&jc.projection, &dc.projection)
            .map(|p| p.value)
            .unwrap_or(ProjectionKind::Orthographic);
        let padding = match pick(&jc.padding, &dc.padding) {
            Some(p) => {
                let x = finite(ctx, &lab(jc.padding.is_some()), "camera.padding", p)?;
                if !(0.0..0.5).contains(&x) {
                    return Err(ctx.err(
                        &p.referenced,
                        &lab(jc.padding.is_some()),
                        format!("`camera.padding` must be in [0, 0.5), got {x}"),
                    ));
                }
                x
            }
            None => default::PADDING,
        };
        let zoom = match pick(&jc.zoom, &dc.zoom) {
            Some(z) => in_range(
                ctx,
                &lab(jc.zoom.is_some()),
                "camera.zoom",
                z,
                0.0,
                100.0,
                true,
            )?,
            None => default::ZOOM,
        };
        let fov = match pick(&jc.fov, &dc.fov) {
            Some(f) => in_range(
                ctx,
                &lab(jc.fov.is_some()),
                "camera.fov",
                f,
                1.0,
                170.0,
                false,
            )?,
            None => default::FOV,
        };
        // `fov` is checked above even for an orthographic camera.
        let projection = match kind {
            ProjectionKind::Orthographic => Projection::Orthographic,
            ProjectionKind::Perspective => Projection::Perspective { fov_deg: fov },
        };
        Framing {
            projection,
            padding,
            zoom,
        }
    };

    let light = resolve_light(ctx, &lab, j.light.as_ref(), d.light.as_ref())?;

    let background = pick(&j.background, &d.background)
        .map(|b| b.value.0)
        .unwrap_or([0, 0, 0, 0]);

    let antialias = match pick(&j.antialias, &d.antialias) {
        Some(a) => int_range(ctx, &lab(j.antialias.is_some()), "antialias", a, 1, 4)?,
        None => default::ANTIALIAS,
    };

    let output = resolve_output(ctx, &lab, name, at, j, d, &clips, &directions)?;

    Ok(Job {
        name: name.to_string(),
        recipe: ctx.file.to_path_buf(),
        line: at.line(),
        model,
        data,
        clips,
        named_clips,
        pose,
        materials,
        skeleton,
        duration,
        travel,
        lod,
        directions,
        pitch,
        width,
        height,
        camera,
        light,
        background,
        antialias,
        output,
    })
}

/// The source text of a scalar, or "" when the span is unknown.
fn source_of<'t>(text: &'t str, at: &Location) -> &'t str {
    let span = at.span();
    match (span.byte_offset(), span.byte_len()) {
        (Some(o), Some(l)) => text.get(o as usize..(o + l) as usize).unwrap_or(""),
        _ => "",
    }
}

fn evenly(n: usize) -> Vec<Direction> {
    (0..n)
        .map(|index| Direction {
            index,
            yaw: (index as f64 * 360.0 / n as f64) as f32,
        })
        .collect()
}

fn resolve_clip(ctx: &Ctx, label: &str, key: &str, r: &RawClip) -> Result<Clip, RecipeError> {
    if let Some(t) = &r.time {
        let clash = [
            ("start", r.start.as_ref().map(|s| s.referenced)),
            ("end", r.end.as_ref().map(|s| s.referenced)),
            ("fps", r.fps.as_ref().map(|s| s.referenced)),
            ("frames", r.frames.as_ref().map(|s| s.referenced)),
        ];
        if let Some((k, Some(loc))) = clash.iter().find(|(_, l)| l.is_some()) {
            return Err(ctx.err(
                loc,
                label,
                format!("`{key}.time` takes a single frame; `{key}.{k}` cannot be used with it"),
            ));
        }
        let time = non_negative(ctx, label, &format!("{key}.time"), t)?;
        return Ok(Clip::Still { time });
    }
    let start = match &r.start {
        Some(s) => non_negative(ctx, label, &format!("{key}.start"), s)?,
        None => 0.0,
    };
    let end = match &r.end {
        Some(e) => {
            let x = finite(ctx, label, &format!("{key}.end"), e)?;
            if x <= start {
                return Err(ctx.err(
                    &e.referenced,
                    label,
                    format!("`{key}.end` ({x}) must be after `{key}.start` ({start})"),
                ));
            }
            Some(x)
        }
        None => None,
    };
    let step = match (&r.fps, &r.frames) {
        (Some(_), Some(n)) => {
            return Err(ctx.err(
                &n.referenced,
                label,
                format!("give either `{key}.fps` or `{key}.frames`, not both"),
            ))
        }
        (Some(f), None) => Step::Fps(in_range(
            ctx,
            label,
            &format!("{key}.fps"),
            f,
            0.0,
            1000.0,
            true,
        )?),
        (None, Some(n)) => Step::Frames(int_range(
            ctx,
            label,
            &format!("{key}.frames"),
            n,
            1,
            MAX_FRAMES as i64,
        )?),
        (None, None) => Step::Fps(default::FPS),
    };
    Ok(Clip::Range { start, end, step })
}

/// The job's clips: from `clip:` (one clip, old output names), from
/// `clips:`, or the default clip. The job's own choice replaces the defaults'
/// as a whole, whichever of the two keys each uses.
fn resolve_clips(
    ctx: &Ctx,
    lab: &dyn Fn(bool) -> String,
    at: &Location,
    j: &RawJob,
    d: &RawJob,
) -> Result<(Vec<ClipSpec>, bool), RecipeError> {
    let from_job = j.clip.is_some() || j.clips.is_some();
    let src = if from_job { j } else { d };
    let l = lab(from_job);
    match (&src.clip, &src.clips) {
        (Some(_), Some(cs)) => Err(ctx.err(
            &cs.referenced,
            &l,
            "give either `clip` or `clips`, not both",
        )),
        (Some(c), None) => Ok((
            vec![ClipSpec {
                name: DEFAULT_CLIP_NAME.to_string(),
                animation: None,
                clip: resolve_clip(ctx, &l, "clip", &c.value)?,
                line: c.referenced.line(),
            }],
            false,
        )),
        (None, None) => Ok((
            vec![ClipSpec {
                name: DEFAULT_CLIP_NAME.to_string(),
                animation: None,
                clip: Clip::Range {
                    start: 0.0,
                    end: None,
                    step: Step::Fps(default::FPS),
                },
                line: at.line(),
            }],
            false,
        )),
        (None, Some(cs)) => {
            if cs.value.is_empty() {
                return Err(ctx.err(&cs.referenced, &l, "`clips` needs at least one clip"));
            }
            if cs.value.len() > MAX_CLIPS {
                return Err(ctx.err(
                    &cs.referenced,
                    &l,
                    format!(
                        "`clips` lists {} clips, more than {MAX_CLIPS}",
                        cs.value.len()
                    ),
                ));
            }
            let mut out: Vec<ClipSpec> = Vec::with_capacity(cs.value.len());
            for (i, e) in cs.value.iter().enumerate() {
                let key = format!("clips[{i}]");
                let r = &e.value;
                let animation = match &r.animation {
                    Some(a) => {
                        if a.value.trim().is_empty() {
                            return Err(ctx.err(
                                &a.referenced,
                                &l,
                                format!("`{key}.animation` is empty"),
                            ));
                        }
                        Some(ctx.base.join(&a.value))
                    }
                    None => None,
                };
                // Unnamed clips are named after their animation file, else
                // after their position, so names never depend on anything
                // but the recipe text.
                let (name, name_at) = match &r.name {
                    Some(n) => (n.value.clone(), n.referenced),
                    None => match (&r.animation, &animation) {
                        (Some(a), Some(p)) => (
                            p.file_stem()
                                .map(|s| s.to_string_lossy().into_owned())
                                .unwrap_or_default(),
                            a.referenced,
                        ),
                        _ => (format!("clip{i}"), e.referenced),
                    },
                };
                check_clip_name(&name)
                    .map_err(|m| ctx.err(&name_at, &l, format!("`{key}.name`: {m}")))?;
                if let Some(p) = out.iter().position(|c| c.name == name) {
                    return Err(ctx.err(
                        &name_at,
                        &l,
                        format!("`{key}` is named `{name}` like `clips[{p}]`; clip names must be unique"),
                    ));
                }
                let raw = RawClip {
                    start: r.start.clone(),
                    end: r.end.clone(),
                    fps: r.fps.clone(),
                    frames: r.frames.clone(),
                    time: r.time.clone(),
                };
                out.push(ClipSpec {
                    name,
                    animation,
                    clip: resolve_clip(ctx, &l, &key, &raw)?,
                    line: e.referenced.line(),
                });
            }
            Ok((out, true))
        }
    }
}

fn check_clip_name(n: &str) -> Result<(), String> {
    if n.trim().is_empty() {
        return Err("clip name is empty".into());
    }
    if n == "." || n == ".." || n.chars().any(|c| "/\\{}".contains(c) || c.is_control()) {
        return Err(format!(
            "clip name `{n}` is used in file names, so it cannot contain /, \\, {{, }} or control characters"
        ));
    }
    Ok(())
}

fn resolve_light(
    ctx: &Ctx,
    lab: &dyn Fn(bool) -> String,
    j: Option<&S<RawLight>>,
    d: Option<&S<RawLight>>,
) -> Result<LightSpec, RecipeError> {
    let jl = j.map(|s| s.value.clone()).unwrap_or_default();
    let dl = d.map(|s| s.value.clone()).unwrap_or_default();
    for (l, from_job) in [(&jl, true), (&dl, false)] {
        if let (Some(dir), true) = (&l.direction, l.yaw.is_some() || l.pitch.is_some()) {
            return Err(ctx.err(
                &dir.referenced,
                &lab(from_job),
                "give the light either as `direction` or as `yaw`/`pitch`, not both",
            ));
        }
    }
    // The orientation is one unit: a job that sets any of it does not
    // inherit half of it from the defaults.
    let job_orients = jl.direction.is_some() || jl.yaw.is_some() || jl.pitch.is_some();
    let (o, from_job) = if job_orients {
        (&jl, true)
    } else {
        (&dl, false)
    };
    let direction = if let Some(v) = &o.direction {
        let x = Vec3::from_array(v.value.map(|n| n.0));
        if !x.is_finite() || x.length() < 1e-6 {
            return Err(ctx.err(
                &v.referenced,
                &lab(from_job),
                format!(
                    "`light.direction` must be a non-zero vector, got {:?}",
                    x.to_array()
                ),
            ));
        }
        x.normalize()
    } else {
        let yaw = match &o.yaw {
            Some(y) => finite(ctx, &lab(from_job), "light.yaw", y)?,
            None => default::LIGHT_YAW,
        };
        let pitch = match &o.pitch {
            Some(p) => in_range(ctx, &lab(from_job), "light.pitch", p, -90.0, 90.0, false)?,
            None => default::LIGHT_PITCH,
        };
        yaw_pitch_vector(yaw, pitch)
    };
    let space = pick(&jl.space, &dl.space)
        .map(|s| s.value)
        .unwrap_or(LightSpace::Camera);
    let color = match pick(&jl.color, &dl.color) {
        Some(c) => color3(ctx, &lab(jl.color.is_some()), "light.color", c)?,
        None => Vec3::from_array(default::LIGHT_COLOR),
    };
    let ambient = match pick(&jl.ambient, &dl.ambient) {
        Some(c) => color3(ctx, &lab(jl.ambient.is_some()), "light.ambient", c)?,
        None => Vec3::from_array(default::AMBIENT),
    };
    Ok(LightSpec {
        direction,
        space,
        color,
        ambient,
    })
}

#[allow(clippy::too_many_arguments)]
fn resolve_output(
    ctx: &Ctx,
    lab: &dyn Fn(bool) -> String,
    name: &str,
    at: &Location,
    j: &RawJob,
    d: &RawJob,
    clips: &[ClipSpec],
    dirs: &[Direction],
) -> Result<Outputs, RecipeError> {
    let n_dirs = dirs.len();
    let jo = j.output.clone().unwrap_or_default();
    let do_ = d.output.clone().unwrap_or_default();
    let dir = match pick(&jo.dir, &do_.dir) {
        Some(s) => {
            let t = Template::parse(&s.value, &["name"]).map_err(|m| {
                ctx.err(
                    &s.referenced,
                    &lab(jo.dir.is_some()),
                    format!("`output.dir`: {m}"),
                )
            })?;
            ctx.base.join(t.render(name, None, None, None))
        }
        None => ctx.base.join(default::OUTPUT_DIR.replace("{name}", name)),
    };
    // Returns the template (None when switched off) and where it was written.
    let get = |key: &str,
               jv: &Option<S<OutName>>,
               dv: &Option<S<OutName>>,
               allowed: &[&str],
               fallback: Option<&str>|
     -> Result<Option<(Template, Option<Location>)>, RecipeError> {
        match pick(jv, dv) {
            Some(s) => match &s.value {
                OutName::Off => Ok(None),
                OutName::Name(n) => {
                    let t = Template::parse(n, allowed).map_err(|m| {
                        ctx.err(
                            &s.referenced,
                            &lab(jv.is_some()),
                            format!("`output.{key}`: {m}"),
                        )
                    })?;
                    Ok(Some((t, Some(s.referenced))))
                }
            },
            // Built-in defaults are constants that always parse.
            None => Ok(fallback.map(|f| {
                (
                    Template::parse(f, allowed).unwrap_or(Template { parts: vec![] }),
                    None,
                )
            })),
        }
    };
    let need = |key: &str,
                t: &Option<(Template, Option<Location>)>,
                part: &[Part],
                why: &str|
     -> Result<(), RecipeError> {
        if let Some((t, loc)) = t {
            if !part.iter().any(|p| t.uses(p)) {
                return Err(ctx.err(
                    &loc.unwrap_or(*at),
                    &lab(loc.is_some()),
                    format!("`output.{key}` must contain {why}, or its files overwrite each other"),
                ));
            }
        }
        Ok(())
    };

    let frames = get(
        "frames",
        &jo.frames,
        &do_.frames,
        &["name", "clip", "dir", "yaw", "frame"],
        None,
    )?;
    if clips.iter().any(|c| !c.clip.is_single()) {
        need("frames", &frames, &[Part::Frame], "`{frame}`")?;
    }
    if clips.len() > 1 {
        need("frames", &frames, &[Part::Clip], "`{clip}`")?;
    }
    if n_dirs > 1 {
        need(
            "frames",
            &frames,
            &[Part::Dir, Part::Yaw],
            "`{dir}` or `{yaw}`",
        )?;
    }
    let gif = get(
        "gif",
        &jo.gif,
        &do_.gif,
        &["name", "clip", "dir", "yaw"],
        None,
    )?;
    if clips.len() > 1 {
        need("gif", &gif, &[Part::Clip], "`{clip}`")?;
    }
    if n_dirs > 1 {
        need("gif", &gif, &[Part::Dir, Part::Yaw], "`{dir}` or `{yaw}`")?;
    }
    // `{yaw}` is written in whole degrees, so 10.2 and 10.4 would share files.
    for (key, t) in [("frames", &frames), ("gif", &gif)] {
        if let Some((t, loc)) = t {
            if t.uses(&Part::Yaw) && !t.uses(&Part::Dir) {
                let mut seen: BTreeMap<i64, f32> = BTreeMap::new();
                for d in dirs {
                    let r = d.yaw.round() as i64;
                    if let Some(first) = seen.insert(r, d.yaw) {
                        return Err(ctx.err(
                            &loc.unwrap_or(*at),
                            &lab(loc.is_some()),
                            format!(
                                "`output.{key}` names files by `{{yaw}}` in whole degrees, but yaws {first} and {} both give {r}; use `{{dir}}`",
                                d.yaw
                            ),
                        ));
                    }
                }
            }
        }
    }
    let sheet = get(
        "sheet",
        &jo.sheet,
        &do_.sheet,
        &["name"],
        Some(default::SHEET),
    )?
    .map(|(t, _)| dir.join(t.render(name, None, None, None)));
    let meta = match pick(&jo.meta, &do_.meta) {
        Some(s) => match &s.value {
            OutName::Off => None,
            OutName::Name(n) => {
                let t = Template::parse(n, &["name"]).map_err(|m| {
                    ctx.err(
                        &s.referenced,
                        &lab(jo.meta.is_some()),
                        format!("`output.meta`: {m}"),
                    )
                })?;
                Some(dir.join(t.render(name, None, None, None)))
            }
        },
        None => sheet.as_ref().map(|s| s.with_extension("json")),
    };
    if let (Some(s), Some(m)) = (&sheet, &meta) {
        if normalize(s) == normalize(m) {
            return Err(ctx.err(
                at,
                &lab(true),
                format!(
                    "`output.sheet` and `output.meta` are the same file `{}`",
                    s.display()
                ),
            ));
        }
    }
    if frames.is_none() && sheet.is_none() && gif.is_none() {
        return Err(ctx.err(
            at,
            &lab(true),
            "every output is switched off; nothing to write",
        ));
    }
    Ok(Outputs {
        dir,
        frames: frames.map(|(t, _)| t),
        sheet,
        meta,
        gif: gif.map(|(t, _)| t),
    })
}
