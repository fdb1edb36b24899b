//! Reading an RSW file: every reading of the version's disputed fields is
//! tried ([`Layout::candidates`]) and the file's structure picks one.
//!
//! A reading fits when its objects parse to their count and end exactly
//! where the quad tree (65,520 bytes) or the file ends; it is sane when
//! every position, colour and range is finite and every name is printable.
//! The first exact, sane reading in research order is taken; when no
//! reading fits exactly, the best one that parses is taken with a warning
//! (garbage values, or bytes after the objects that are not a quad tree).
//! Taking any reading but the expected one, or a second reading fitting
//! with other values, is a warning naming the alternative. A version newer
//! than [`NEWEST`] is read only when the newest layout fits it exactly and
//! sanely, and refused otherwise, saying what did not fit.

use super::layout::{version_label, Layout};
use super::*;
use crate::error::{Error, ParseError};
use crate::formats::reader::Reader;
use std::path::Path;

/// Issues listed in a warning before "and N more".
const ISSUES_SHOWN: usize = 3;

/// Parses an RSW file held in memory; `file` names it in errors.
pub fn parse(data: &[u8], file: &Path) -> Result<Rsw, ParseError> {
    let (major, minor, build) = header(&mut Reader::new(data, file))?;
    let known = (major, minor) <= NEWEST;
    let mut attempts: Vec<Attempt> = Layout::candidates(major, minor, build)
        .into_iter()
        .map(|layout| Attempt {
            layout,
            result: read(data, file, layout),
        })
        .collect();
    let label = version_label(major, minor, build);
    let newest = format!("{}.{}", NEWEST.0, NEWEST.1);
    let newer = || format!("RSW {label} is newer than the versions kiln reads (up to {newest})");
    // The best rank wins; among equals the earlier reading (research order).
    let best = attempts
        .iter()
        .enumerate()
        .filter_map(|(i, a)| a.result.as_ref().ok().map(|r| (r.rank(), i)))
        .min();
    let Some((rank, chosen)) = best else {
        let e = furthest_error(&attempts);
        if known {
            return Err(e);
        }
        let message = format!(
            "{}, and the {newest} layout does not fit it: {}",
            newer(),
            e.message
        );
        return Err(ParseError { message, ..e });
    };
    if !known && rank != Rank::Exact {
        return Err(ParseError {
            file: file.to_path_buf(),
            field: "header.version".into(),
            offset: 4,
            message: format!(
                "{}, and the {newest} layout does not fit it: {}",
                newer(),
                attempts[chosen].shortfall()
            ),
        });
    }
    let mut warnings = Vec::new();
    if !known {
        warnings.push(format!(
            "{}; read with the {newest} layout, which fits it exactly",
            newer()
        ));
    }
    warnings.extend(layout_warnings(&label, &attempts, chosen));
    let reading = attempts.swap_remove(chosen).result?;
    warnings.extend(reading.findings());
    let mut rsw = reading.rsw;
    rsw.warnings = warnings;
    Ok(rsw)
}

/// The warnings that name the readings: the one taken when it is not the
/// expected one, and every other that fits exactly with other values.
fn layout_warnings(label: &str, attempts: &[Attempt], chosen: usize) -> Vec<String> {
    let mut out = Vec::new();
    let picked = &attempts[chosen];
    let expected = &attempts[0];
    if chosen != 0 {
        out.push(format!(
            "RSW {label} read {}; the expected reading ({}) does not fit: {}",
            picked.layout.describe_against(&expected.layout),
            expected.layout.describe_against(&picked.layout),
            expected.shortfall()
        ));
    }
    let Ok(p) = &picked.result else { return out };
    for (i, other) in attempts.iter().enumerate() {
        let Ok(o) = &other.result else { continue };
        if i != chosen && o.rank() == Rank::Exact && !same_values(&o.rsw, &p.rsw) {
            out.push(format!(
                "RSW {label} also reads {} with other values: the layout is ambiguous, \
                 and kiln takes the reading {}",
                other.layout.describe_against(&picked.layout),
                picked.layout.describe_against(&other.layout)
            ));
        }
    }
    out
}

/// Reads and parses an RSW file.
pub fn parse_file(path: &Path) -> Result<Rsw, Error> {
    let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    Ok(parse(&data, path)?)
}

/// One reading tried.
struct Attempt {
    layout: Layout,
    result: Result<Reading, ParseError>,
}

impl Attempt {
    /// Why this reading was not good enough, in words.
    fn shortfall(&self) -> String {
        match &self.result {
            Err(e) => format!("{} at byte {}: {}", e.field, e.offset, e.message),
            Ok(r) => r.shortfall(),
        }
    }
}

/// A reading that parsed.
struct Reading {
    rsw: Rsw,
    /// Where the objects end.
    objects_end: usize,
    /// Implausible values found.
    issues: Vec<String>,
}

/// How well a reading fits, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    /// Ends at the quad tree or the end of the file, every value plausible.
    Exact,
    /// Ends there, with implausible values.
    ExactImplausible,
    /// Leaves bytes that are not a quad tree.
    Loose,
    /// Leaves such bytes and has implausible values.
    LooseImplausible,
}

impl Reading {
    /// What the reading found that the user should know: implausible
    /// values, bytes that are not a quad tree, a missing quad tree.
    fn findings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let rsw = &self.rsw;
        if !self.issues.is_empty() {
            out.push(format!("implausible values: {}", list(&self.issues)));
        }
        if rsw.quad_tree.is_some() && !rsw.trailing.is_empty() {
            out.push(format!(
                "{} bytes after the quad tree (at byte {}) are not part of the file's \
                 structure; kept as trailing bytes",
                rsw.trailing.len(),
                self.objects_end + QUAD_TREE_BYTES
            ));
        } else if !rsw.trailing.is_empty() {
            out.push(format!(
                "{} bytes after the objects (at byte {}) are neither a {QUAD_TREE_BYTES}-byte \
                 quad tree nor the end of the file; kept as trailing bytes",
                rsw.trailing.len(),
                self.objects_end
            ));
        } else if rsw.quad_tree.is_none() && rsw.at_least(2, 1) {
            out.push("version 2.1+ file without a quad tree".to_string());
        }
        out
    }

    fn rank(&self) -> Rank {
        match (self.rsw.trailing.is_empty(), self.issues.is_empty()) {
            (true, true) => Rank::Exact,
            (true, false) => Rank::ExactImplausible,
            (false, true) => Rank::Loose,
            (false, false) => Rank::LooseImplausible,
        }
    }
    fn shortfall(&self) -> String {
        let mut why = Vec::new();
        if !self.rsw.trailing.is_empty() {
            why.push(format!(
                "its objects end at byte {}, leaving {} bytes that are not a quad tree",
                self.objects_end,
                self.rsw.trailing.len()
                    + if self.rsw.quad_tree.is_some() {
                        QUAD_TREE_BYTES
                    } else {
                        0
                    }
            ));
        }
        if !self.issues.is_empty() {
            why.push(format!("implausible values: {}", list(&self.issues)));
        }
        why.join("; ")
    }
}

/// The error of the reading that got furthest into the file (the earlier
/// reading on a tie).
fn furthest_error(attempts: &[Attempt]) -> ParseError {
    let mut best: Option<&ParseError> = None;
    for a in attempts {
        if let Err(e) = &a.result {
            if best.is_none_or(|b| e.offset > b.offset) {
                best = Some(e);
            }
        }
    }
    best.cloned().unwrap_or_else(|| ParseError {
        file: Default::default(),
        field: "header".into(),
        offset: 0,
        message: "no reading of the file was tried".into(),
    })
}

/// True when two readings hold the same values (their layouts aside).
fn same_values(a: &Rsw, b: &Rsw) -> bool {
    let strip = |r: &Rsw| {
        let mut c = r.clone();
        c.layout = Layout::expected(r.major, r.minor, r.build);
        c.warnings.clear();
        for o in &mut c.objects {
            match o {
                Object::Model(m) => {
                    m.flag = None;
                    m.extra = None;
                }
                Object::Sound(s) => s.cycle = None,
                _ => {}
            }
        }
        c
    };
    strip(a) == strip(b)
}

fn list(issues: &[String]) -> String {
    let shown = issues[..issues.len().min(ISSUES_SHOWN)].join("; ");
    if issues.len() > ISSUES_SHOWN {
        format!("{shown}; and {} more", issues.len() - ISSUES_SHOWN)
    } else {
        shown
    }
}

/// Magic and version: `(major, minor, build)`.
fn header(r: &mut Reader) -> Result<(u8, u8, Option<u32>), ParseError> {
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
    if !(major == 1 && minor <= 9 || major == 2) {
        return Err(r.error_at(
            4,
            "header.version",
            format!(
                "unsupported RSW version {major}.{minor} (kiln reads 1.0 to {}.{}, and tries \
                 later 2.x versions with the {0}.{1} layout)",
                NEWEST.0, NEWEST.1
            ),
        ));
    }
    let build = if (major, minor) >= (2, 5) {
        Some(r.u32("header.build")?)
    } else if (major, minor) >= (2, 2) {
        Some(u32::from(r.u8("header.build")?))
    } else {
        None
    };
    Ok((major, minor, build))
}

fn arr(v: glam::Vec3) -> [f32; 3] {
    v.to_array()
}

fn name(r: &mut Reader, n: usize, field: &str) -> Result<FixedName, ParseError> {
    Ok(FixedName::from_raw(r.bytes(n, field)?.to_vec()))
}

/// Reads the whole file in one layout.
fn read(data: &[u8], file: &Path, layout: Layout) -> Result<Reading, ParseError> {
    let mut r = Reader::new(data, file);
    let (major, minor, build) = header(&mut r)?;
    let v = (major, minor);
    let render_flag = if v >= (2, 5) {
        Some(r.u8("header.render_flag")?)
    } else {
        None
    };
    let release = if layout.release {
        Some(r.i32("header.release")?)
    } else {
        None
    };
    let ini = name(&mut r, 40, "ini_file")?;
    let gnd = name(&mut r, 40, "gnd_file")?;
    let gat = if layout.gat_name {
        Some(name(&mut r, 40, "gat_file")?)
    } else {
        None
    };
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
    let extra_list = if layout.extra_list {
        let n = r.count_i32("extra_list.count", 4)?;
        let mut list = Vec::with_capacity(n);
        for i in 0..n {
            list.push(r.i32(&format!("extra_list[{i}]"))?);
        }
        Some(list)
    } else {
        None
    };
    // The smallest object is a light: type, name[80], two vec3, range.
    let count = r.count_i32("object_count", 4 + 80 + 24 + 4)?;
    let mut objects = Vec::with_capacity(count);
    for i in 0..count {
        objects.push(object(&mut r, v, layout, i)?);
    }
    let objects_end = r.pos();
    let quad_tree = if r.remaining() >= QUAD_TREE_BYTES {
        Some(r.bytes(QUAD_TREE_BYTES, "quad_tree")?.to_vec())
    } else {
        None
    };
    let trailing = r.bytes(r.remaining(), "trailing")?.to_vec();
    let rsw = Rsw {
        major,
        minor,
        build,
        render_flag,
        release,
        ini,
        gnd,
        gat,
        src,
        water,
        light,
        bounds,
        extra_list,
        objects,
        quad_tree,
        trailing,
        layout,
        warnings: Vec::new(),
    };
    let issues = implausible(&rsw);
    Ok(Reading {
        rsw,
        objects_end,
        issues,
    })
}

fn object(r: &mut Reader, v: (u8, u8), layout: Layout, i: usize) -> Result<Object, ParseError> {
    let at = r.pos();
    let kind = r.i32(&format!("object[{i}].type"))?;
    let f = |s: &str| format!("object[{i}].{s}");
    Ok(match kind {
        1 => {
            let (inst_name, anim_type, anim_speed, block_type) = if v >= (1, 3) {
                (
                    Some(name(r, 40, &f("name"))?),
                    r.i32(&f("anim_type"))?,
                    r.f32(&f("anim_speed"))?,
                    r.i32(&f("block_type"))?,
                )
            } else {
                (None, 0, 1.0, 0)
            };
            let flag = if layout.model_flag {
                Some(r.u8(&f("flag"))?)
            } else {
                None
            };
            let extra = if layout.model_extra {
                Some(r.i32(&f("extra"))?)
            } else {
                None
            };
            Object::Model(ModelInstance {
                name: inst_name,
                anim_type,
                anim_speed,
                block_type,
                flag,
                extra,
                file: name(r, 80, &f("file"))?,
                node: name(r, 80, &f("node"))?,
                position: arr(r.vec3(&f("position"))?),
                rotation: arr(r.vec3(&f("rotation"))?),
                scale: arr(r.vec3(&f("scale"))?),
            })
        }
        2 => Object::Light(LightSource {
            name: name(r, 80, &f("name"))?,
            position: arr(r.vec3(&f("position"))?),
            color: arr(r.vec3(&f("color"))?),
            range: r.f32(&f("range"))?,
        }),
        3 => Object::Sound(Sound {
            name: name(r, 80, &f("name"))?,
            file: name(r, 80, &f("file"))?,
            position: arr(r.vec3(&f("position"))?),
            volume: r.f32(&f("volume"))?,
            width: r.i32(&f("width"))?,
            height: r.i32(&f("height"))?,
            range: r.f32(&f("range"))?,
            cycle: if layout.sound_cycle {
                Some(r.f32(&f("cycle"))?)
            } else {
                None
            },
        }),
        4 => Object::Effect(Effect {
            name: name(r, 80, &f("name"))?,
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
    })
}

/// Values no map holds, each named by its field: a misaligned reading
/// turns names into control bytes and floats into NaNs or infinities.
fn implausible(rsw: &Rsw) -> Vec<String> {
    let mut out = Vec::new();
    let mut name = |field: String, n: &FixedName| {
        if n.bytes().iter().any(|&b| b < 0x20 || b == 0x7f) {
            out.push(format!("{field} holds control bytes"));
        }
    };
    name("ini_file".into(), &rsw.ini);
    name("gnd_file".into(), &rsw.gnd);
    if let Some(g) = &rsw.gat {
        name("gat_file".into(), g);
    }
    name("src_file".into(), &rsw.src);
    for (i, o) in rsw.objects.iter().enumerate() {
        match o {
            Object::Model(m) => name(format!("object[{i}].file"), &m.file),
            Object::Light(l) => name(format!("object[{i}].name"), &l.name),
            Object::Sound(s) => name(format!("object[{i}].file"), &s.file),
            Object::Effect(e) => name(format!("object[{i}].name"), &e.name),
        }
    }
    let mut finite = |field: String, v: &[f32]| {
        if v.iter().any(|x| !x.is_finite()) {
            out.push(format!("{field} is not finite"));
        }
    };
    if let Some(w) = &rsw.water {
        finite("water.level".into(), &[w.level]);
    }
    if let Some(l) = &rsw.light {
        finite("light.diffuse".into(), &l.diffuse);
        finite("light.ambient".into(), &l.ambient);
    }
    for (i, o) in rsw.objects.iter().enumerate() {
        let f = |s: &str| format!("object[{i}].{s}");
        match o {
            Object::Model(m) => {
                finite(f("position"), &m.position);
                finite(f("rotation"), &m.rotation);
                finite(f("scale"), &m.scale);
            }
            Object::Light(l) => {
                finite(f("position"), &l.position);
                finite(f("color"), &l.color);
                finite(f("range"), &[l.range]);
            }
            Object::Sound(s) => {
                finite(f("position"), &s.position);
                finite(f("volume"), &[s.volume]);
                finite(f("range"), &[s.range]);
                finite(f("cycle"), &s.cycle.map_or(vec![], |c| vec![c]));
            }
            Object::Effect(e) => {
                finite(f("position"), &e.position);
                finite(f("delay"), &[e.delay]);
                finite(f("param"), &e.param);
            }
        }
    }
    out
}
