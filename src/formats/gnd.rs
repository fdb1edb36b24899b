//! Ragnarok GND map ground files (versions 1.7, 1.8, 1.9).
//!
//! Layout follows RagnarokResearchLab's published GND notes, checked field by
//! field against the corpus. One finding the notes leave vague: in 1.8 the
//! split water planes store only a level each (4 bytes), while 1.9 stores the
//! full six-field water description per plane (24 bytes).

use std::path::Path;

use serde::Serialize;

use crate::error::ParseError;
use crate::formats::json;
use crate::formats::reader::{Reader, Writer};
use crate::text::decode_cp949;

/// The four bytes every GND file starts with.
pub const MAGIC: &[u8; 4] = b"GRGN";
const SURFACE_SIZE: usize = 56;
const CUBE_SIZE: usize = 28;
const LIGHTMAP_SIZE: usize = 256;
/// A texture name field can never sensibly exceed this; larger means a hostile file.
const MAX_NAME_LEN: i32 = 4096;

/// One GND ground file. It serialises (for `kiln inspect --json`) field by
/// field, lightmap texels and raw name fields as hex strings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gnd {
    /// Major version (1).
    pub major: u8,
    /// Minor version (7–9).
    pub minor: u8,
    /// In tiles (cubes) along x; never negative.
    pub width: i32,
    /// In tiles (cubes) along y; never negative.
    pub height: i32,
    /// Side of one tile in RO units (10 in every corpus map).
    pub scale: f32,
    /// Decoded from CP949.
    pub textures: Vec<String>,
    /// Each name field exactly as stored (bytes after the NUL are kept so
    /// that `write` reproduces the file byte for byte).
    #[serde(serialize_with = "json::hexes")]
    pub texture_raw: Vec<Vec<u8>>,
    /// Width of every texture name field in bytes (80 in every corpus map), 1..=4096.
    pub texture_name_len: i32,
    /// The lightmap cells that surfaces index.
    pub lightmaps: Lightmaps,
    /// Textured faces that cubes index.
    pub surfaces: Vec<Surface>,
    /// `width × height` cubes, row-major (`x + y · width`).
    pub cubes: Vec<Cube>,
    /// Water planes (1.8+); before that the water lives in the RSW.
    pub water: Option<WaterSetup>,
    /// Non-fatal findings: trailing bytes (which `write` does not reproduce).
    pub warnings: Vec<String>,
}

/// The lightmap block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lightmaps {
    /// (width, height, grid cells) of one lightmap; 8, 8, 1 in every known
    /// file, and any other value is refused.
    pub per_cell: (i32, i32, i32),
    /// The cells in file order.
    pub data: Vec<Lightmap>,
}

/// One 8×8 lightmap cell (256 bytes), texels row-major.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lightmap {
    /// Shadow (brightness) per texel; 255 = unshadowed.
    #[serde(serialize_with = "json::hex")]
    pub shadow: [u8; 64],
    /// Light colour per texel, RGB, added after shading.
    #[serde(serialize_with = "color_hex")]
    pub color: [[u8; 3]; 64],
}

/// The 64 RGB texels as one hex string of 192 bytes, in file order.
fn color_hex<S: serde::Serializer>(c: &[[u8; 3]; 64], s: S) -> Result<S::Ok, S::Error> {
    json::hex(c.as_flattened(), s)
}

/// One textured face of a cube (56 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Surface {
    /// Texture u of the four corners (for a top, corner `k` is the cube's `heights[k]`).
    pub u: [f32; 4],
    /// Texture v of the four corners.
    pub v: [f32; 4],
    /// Index into [`Gnd::textures`]; out-of-range surfaces are not drawn.
    pub texture: i16,
    /// Index into [`Lightmaps::data`]; out of range draws with a neutral lightmap.
    pub lightmap: u16,
    /// Tile colour, stored B, G, R, A; kept but not applied by kiln.
    pub bgra: [u8; 4],
}

/// One tile of the ground grid (28 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cube {
    /// Bottom-left, bottom-right, top-left, top-right, i.e. the corners
    /// (x, y), (x+1, y), (x, y+1), (x+1, y+1); Y points down.
    pub heights: [f32; 4],
    /// Surface indices; −1 means none. `top`: the quad over the four corners.
    pub top: i32,
    /// The wall at y+1, towards the next row's cube.
    pub front: i32,
    /// The wall at x+1, towards the next column's cube.
    pub side: i32,
}

/// One water description: the default, or one plane of a split water grid.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WaterPlane {
    /// Water height in RO units (Y down).
    pub level: f32,
    /// Water type, as stored.
    pub kind: i32,
    /// Wave height, as stored.
    pub wave_height: f32,
    /// Wave speed, as stored.
    pub wave_speed: f32,
    /// Wave pitch, as stored.
    pub wave_pitch: f32,
    /// Texture cycling, as stored.
    pub texture_cycling: i32,
}

/// The water block (1.8+).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WaterSetup {
    /// The default description, also the fallback for missing planes.
    pub default: WaterPlane,
    /// Planes across the map's width; never negative.
    pub split_u: i32,
    /// Planes across the map's height; never negative.
    pub split_v: i32,
    /// split_u × split_v planes. In 1.8 only `level` is stored per plane; the
    /// other fields are copied from `default`.
    pub planes: Vec<WaterPlane>,
}

/// A plain, serialisable description of a GND for `kiln inspect`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GndSummary {
    /// "1.7" to "1.9".
    pub version: String,
    /// Width in tiles.
    pub width: i32,
    /// Height in tiles.
    pub height: i32,
    /// Tile side in RO units.
    pub scale: f32,
    /// Texture names, decoded.
    pub textures: Vec<String>,
    /// Lightmap cells.
    pub lightmaps: usize,
    /// Surfaces.
    pub surfaces: usize,
    /// Cubes (`width × height`).
    pub cubes: usize,
    /// Split water planes (0 before 1.8).
    pub water_planes: usize,
    /// The water block (1.8+).
    pub water: Option<WaterSetup>,
    /// The parser's warnings.
    pub warnings: Vec<String>,
}

fn water_plane(r: &mut Reader, f: &str) -> Result<WaterPlane, ParseError> {
    Ok(WaterPlane {
        level: r.f32(&format!("{f}.level"))?,
        kind: r.i32(&format!("{f}.type"))?,
        wave_height: r.f32(&format!("{f}.wave_height"))?,
        wave_speed: r.f32(&format!("{f}.wave_speed"))?,
        wave_pitch: r.f32(&format!("{f}.wave_pitch"))?,
        texture_cycling: r.i32(&format!("{f}.texture_cycling"))?,
    })
}

/// Parses a GND file held in memory; `file` names it in errors. Trailing
/// bytes are tolerated with a warning.
pub fn parse(data: &[u8], file: &Path) -> Result<Gnd, ParseError> {
    let mut r = Reader::new(data, file);
    let magic = r.bytes(4, "magic")?;
    if magic != MAGIC {
        return Err(r.error_at(0, "magic", format!("expected GRGN, found {magic:02x?}")));
    }
    let major = r.u8("version.major")?;
    let minor = r.u8("version.minor")?;
    if major != 1 || !(7..=9).contains(&minor) {
        return Err(r.error_at(
            4,
            "version",
            format!("unsupported GND version {major}.{minor} (1.7 to 1.9 are known)"),
        ));
    }
    let width = r.i32("width")?;
    let height = r.i32("height")?;
    if width < 0 || height < 0 {
        return Err(r.error_at(6, "width", format!("negative map size {width}×{height}")));
    }
    let scale = r.f32("scale")?;
    let count_at = r.pos();
    let tex_count = r.i32("texture_count")?;
    let len_at = r.pos();
    let name_len = r.i32("texture_name_length")?;
    if !(1..=MAX_NAME_LEN).contains(&name_len) {
        return Err(r.error_at(
            len_at,
            "texture_name_length",
            format!("texture name length {name_len} is outside 1..={MAX_NAME_LEN}"),
        ));
    }
    if tex_count < 0 {
        return Err(r.error_at(
            count_at,
            "texture_count",
            format!("negative count {tex_count}"),
        ));
    }
    let n = r.check_count(
        count_at,
        "texture_count",
        tex_count as u64,
        name_len as usize,
    )?;
    let mut textures = Vec::with_capacity(n);
    let mut texture_raw = Vec::with_capacity(n);
    for i in 0..n {
        let raw = r.bytes(name_len as usize, &format!("textures[{i}]"))?;
        textures.push(decode_cp949(crate::text::until_nul(raw)));
        texture_raw.push(raw.to_vec());
    }

    let lm_count_at = r.pos();
    let lm_count = r.i32("lightmap_count")?;
    let pw = r.i32("lightmap.width")?;
    let ph = r.i32("lightmap.height")?;
    let pc = r.i32("lightmap.grid_cells")?;
    if (pw, ph, pc) != (8, 8, 1) {
        // Every known client hard-codes 8×8×1; other values would change the
        // record size, which this reader cannot know.
        return Err(r.error_at(
            lm_count_at + 4,
            "lightmap.per_cell",
            format!("lightmap format {pw}×{ph}×{pc} is not the known 8×8×1"),
        ));
    }
    if lm_count < 0 {
        return Err(r.error_at(
            lm_count_at,
            "lightmap_count",
            format!("negative count {lm_count}"),
        ));
    }
    let n = r.check_count(
        lm_count_at,
        "lightmap_count",
        lm_count as u64,
        LIGHTMAP_SIZE,
    )?;
    let mut lms = Vec::with_capacity(n);
    for i in 0..n {
        let b = r.bytes(LIGHTMAP_SIZE, &format!("lightmaps[{i}]"))?;
        let mut shadow = [0u8; 64];
        shadow.copy_from_slice(&b[..64]);
        let mut color = [[0u8; 3]; 64];
        for (k, c) in color.iter_mut().enumerate() {
            c.copy_from_slice(&b[64 + k * 3..64 + k * 3 + 3]);
        }
        lms.push(Lightmap { shadow, color });
    }

    let n = r.count_i32("surface_count", SURFACE_SIZE)?;
    let mut surfaces = Vec::with_capacity(n);
    for i in 0..n {
        let f = format!("surfaces[{i}]");
        let u = r.f32s::<4>(&format!("{f}.u"))?;
        let v = r.f32s::<4>(&format!("{f}.v"))?;
        let texture = r.i16(&format!("{f}.texture"))?;
        let lightmap = r.u16(&format!("{f}.lightmap"))?;
        let b = r.bytes(4, &format!("{f}.color"))?;
        surfaces.push(Surface {
            u,
            v,
            texture,
            lightmap,
            bgra: [b[0], b[1], b[2], b[3]],
        });
    }

    let cells = (width as u64) * (height as u64);
    let n = r.check_count(6, "width×height", cells, CUBE_SIZE)?;
    let mut cubes = Vec::with_capacity(n);
    for i in 0..n {
        let f = format!("cubes[{i}]");
        cubes.push(Cube {
            heights: r.f32s::<4>(&format!("{f}.heights"))?,
            top: r.i32(&format!("{f}.top"))?,
            front: r.i32(&format!("{f}.front"))?,
            side: r.i32(&format!("{f}.side"))?,
        });
    }

    let water = if minor >= 8 {
        let default = water_plane(&mut r, "water")?;
        let su_at = r.pos();
        let split_u = r.i32("water.split_u")?;
        let split_v = r.i32("water.split_v")?;
        if split_u < 0 || split_v < 0 {
            return Err(r.error_at(
                su_at,
                "water.split_u",
                format!("negative water split {split_u}×{split_v}"),
            ));
        }
        let per = if minor >= 9 { 24 } else { 4 };
        let n = r.check_count(
            su_at,
            "water.split_u×split_v",
            split_u as u64 * split_v as u64,
            per,
        )?;
        let mut planes = Vec::with_capacity(n);
        for i in 0..n {
            let f = format!("water.planes[{i}]");
            if minor >= 9 {
                planes.push(water_plane(&mut r, &f)?);
            } else {
                let level = r.f32(&format!("{f}.level"))?;
                planes.push(WaterPlane { level, ..default });
            }
        }
        Some(WaterSetup {
            default,
            split_u,
            split_v,
            planes,
        })
    } else {
        None
    };

    let mut warnings = Vec::new();
    if !r.at_end() {
        // Tolerated, as clients do, but reported: `write` will not reproduce them.
        warnings.push(format!(
            "{}: {} trailing byte(s) after the last structure at byte {}",
            file.display(),
            r.remaining(),
            r.pos()
        ));
    }
    Ok(Gnd {
        major,
        minor,
        width,
        height,
        scale,
        textures,
        texture_raw,
        texture_name_len: name_len,
        lightmaps: Lightmaps {
            per_cell: (pw, ph, pc),
            data: lms,
        },
        surfaces,
        cubes,
        water,
        warnings,
    })
}

/// Reads and parses a GND file.
pub fn parse_file(path: &Path) -> crate::Result<Gnd> {
    let data = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    Ok(parse(&data, path)?)
}

fn write_plane(w: &mut Writer, p: &WaterPlane) {
    w.f32(p.level)
        .i32(p.kind)
        .f32(p.wave_height)
        .f32(p.wave_speed)
        .f32(p.wave_pitch)
        .i32(p.texture_cycling);
}

/// Serialises a GND; `write(parse(x)) == x` for every well-formed file.
pub fn write(g: &Gnd) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(MAGIC).u8(g.major).u8(g.minor);
    w.i32(g.width).i32(g.height).f32(g.scale);
    w.i32(g.textures.len() as i32).i32(g.texture_name_len);
    let n = g.texture_name_len.max(0) as usize;
    for (i, name) in g.textures.iter().enumerate() {
        match g.texture_raw.get(i) {
            Some(raw) if raw.len() == n => {
                w.bytes(raw);
            }
            _ => {
                w.fixed_name(name.as_bytes(), n);
            }
        }
    }
    let (pw, ph, pc) = g.lightmaps.per_cell;
    w.i32(g.lightmaps.data.len() as i32).i32(pw).i32(ph).i32(pc);
    for lm in &g.lightmaps.data {
        w.bytes(&lm.shadow);
        for c in &lm.color {
            w.bytes(c);
        }
    }
    w.i32(g.surfaces.len() as i32);
    for s in &g.surfaces {
        for x in s.u.iter().chain(s.v.iter()) {
            w.f32(*x);
        }
        w.i16(s.texture).u16(s.lightmap).bytes(&s.bgra);
    }
    for c in &g.cubes {
        for h in c.heights {
            w.f32(h);
        }
        w.i32(c.top).i32(c.front).i32(c.side);
    }
    if let Some(wa) = &g.water {
        write_plane(&mut w, &wa.default);
        w.i32(wa.split_u).i32(wa.split_v);
        for p in &wa.planes {
            if g.minor >= 9 {
                write_plane(&mut w, p);
            } else {
                w.f32(p.level);
            }
        }
    }
    w.into_bytes()
}

/// Summarises `g`: header, texture names, block counts and water.
pub fn summary(g: &Gnd) -> GndSummary {
    GndSummary {
        version: format!("{}.{}", g.major, g.minor),
        width: g.width,
        height: g.height,
        scale: g.scale,
        textures: g.textures.clone(),
        lightmaps: g.lightmaps.data.len(),
        surfaces: g.surfaces.len(),
        cubes: g.cubes.len(),
        water_planes: g.water.as_ref().map_or(0, |w| w.planes.len()),
        water: g.water.clone(),
        warnings: g.warnings.clone(),
    }
}
