//! The Ragnarok GND ground as a drawable mesh, built the way the game client
//! draws it.
//!
//! Geometry (facts from roBrowser's ground loader, re-derived here):
//! - Cube (x, y) covers RO `[scale·x, scale·(x+1)] × [scale·y, scale·(y+1)]`
//!   in x and z. Its heights go to the corners `h[0]` (x, y), `h[1]` (x+1, y),
//!   `h[2]` (x, y+1), `h[3]` (x+1, y+1); RO heights grow downwards.
//! - The top surface is the quad over those four corners, split along the
//!   `h[0]`–`h[3]` diagonal. Surface UV `k` belongs to corner `h[k]`.
//! - The front surface is the wall at `y+1` between this cube's `h[2]`, `h[3]`
//!   and the next row's `h[0]`, `h[1]`; the side surface is the wall at `x+1`
//!   between this cube's `h[1]`, `h[3]` and the next column's `h[0]`, `h[2]`.
//!   Walls on the last row / column have no neighbour and are not drawn (as
//!   roBrowser does).
//! - A wall's normal is flat and faces its lower neighbour, and its triangles
//!   are counter-clockwise seen from there, so a back-face-culling renderer
//!   shows the wall from the side where it is visible. (roBrowser gives every
//!   wall one fixed normal, RO +Z or +X, and draws both faces.)
//! - Top normals are smooth: each grid corner averages the face normals of
//!   the (up to) four tiles that share it; tiles without a top add nothing.
//!
//! kiln world = `D · RO`, `D = diag(1, -1, -1)`: kiln x = RO x, kiln y =
//! −height, kiln z = −RO z, so tile rows advance towards −Z.
//!
//! Shading, done by the rasterizer's [`LightmapLayer`](crate::raster::LightmapLayer).
//! roBrowser's fragment shader
//! computes `tex · clamp(ambient + diffuse·max(n·l, 0)) · lm.a + lm.rgb`,
//! after raising `lm.rgb` to the power 1.3 in its "smooth light" mode. kiln
//! follows the combination but not the 1.3 curve: the curve is a roBrowser
//! display preference (its other mode posterises instead), not something
//! the GND data or the original client asks for, so the atlas keeps the
//! colour map bytes exactly as stored.
//!
//! Tile colours (`Surface::bgra`) are not applied. roBrowser multiplies the
//! texture by a per-tile colour image filtered across tile centres; kiln's
//! batches carry no vertex colours, so it cannot be folded in cheaply. The
//! corpus also argues against trusting the field: desert and fishingboat
//! are white on all but one surface, while poring_c01 (written by a map
//! editor) holds zero bytes on 1060 of 3020 surfaces and float bit patterns
//! (0.25, 0.5, 0.75) on most others — applied, they would paint it black.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Vec2, Vec3};

use crate::formats::gnd::{Gnd, Surface};
use crate::scene::geometry::top_height;
use crate::scene::TextureSlot;
use crate::texture::{Texture, TextureAlpha};

/// Tiles per chunk side.
pub const CHUNK_TILES: u32 = 16;
/// Side of one lightmap cell in the atlas, in texels.
const CELL: u32 = 8;
/// Side of the flat placeholder texture for missing ground textures.
const FLAT_SIZE: u32 = 4;

/// A map's ground ready to draw: its mesh in chunks, textures and lightmap atlas.
#[derive(Debug, Clone)]
pub struct Ground {
    /// Tiles along x.
    pub width: u32,
    /// Tiles along y.
    pub height: u32,
    /// World units a tile (the GND's zoom, 10 in the client's maps).
    pub scale: f32,
    /// One per GND texture, in GND order. Missing → a flat opaque texture of
    /// a muted colour derived from the name (FNV-1a), so different ground
    /// materials stay distinguishable.
    pub textures: Vec<TextureSlot>,
    /// Lightmap atlas, straight RGBA8 (rgb = colour map as stored, a =
    /// shadow), row 0 = top. Cell `i` sits at column `i % cols`, row
    /// `i / cols` with `cols = ceil(sqrt(n))`; when some surface names a
    /// lightmap that does not exist, one neutral cell (shadow 255, colour 0)
    /// follows the GND's cells and stands in for it.
    pub lightmap_width: u32,
    /// The lightmap atlas's height, texels.
    pub lightmap_height: u32,
    /// The lightmap atlas's texels, row by row.
    pub lightmap: Vec<[u8; 4]>,
    /// 16×16-tile pieces, row-major (`chunk_x + chunk_y · ceil(width/16)`),
    /// so a renderer can cull and bound memory. Walls belong to the chunk of
    /// the cube that owns them.
    pub chunks: Vec<GroundChunk>,
    /// Texture names not found, once each, in GND order.
    pub missing: Vec<String>,
    /// What the user should know (missing textures, clamped indices).
    pub warnings: Vec<String>,
    /// Kiln y of each drawn top's corners, per tile (row-major); `None` where
    /// no top is drawn. Used by `height_at`.
    tops: Vec<Option<[f32; 4]>>,
}

/// A square of ground tiles drawn as one mesh.
#[derive(Debug, Clone, Default)]
pub struct GroundChunk {
    /// The chunk's bounds, lower corner.
    pub min: Vec3,
    /// The chunk's bounds, upper corner.
    pub max: Vec3,
    /// Vertex positions, kiln world.
    pub positions: Vec<Vec3>,
    /// Vertex normals.
    pub normals: Vec<Vec3>,
    /// Texture coordinates.
    pub uvs: Vec<Vec2>,
    /// Coordinates into the lightmap atlas.
    pub lightmap_uvs: Vec<Vec2>,
    /// (index into `textures`, triangles counter-clockwise seen from the
    /// front = from above for tops), sorted by texture index.
    pub parts: Vec<(usize, Vec<[u32; 3]>)>,
}

impl GroundChunk {
    /// Triangles of the chunk.
    pub fn triangle_count(&self) -> usize {
        self.parts.iter().map(|(_, t)| t.len()).sum()
    }
}

/// Which wall of a cube, for messages.
#[derive(Clone, Copy)]
enum Kind {
    Top,
    Front,
    Side,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Top => "top",
            Kind::Front => "front",
            Kind::Side => "side",
        }
    }
}

/// One warning per kind of defect, counted, so a broken map does not flood
/// the report.
#[derive(Default)]
struct Defects {
    bad_surface: (usize, Option<String>),
    bad_texture: (usize, Option<String>),
    bad_lightmap: (usize, Option<String>),
}

fn note(slot: &mut (usize, Option<String>), msg: impl FnOnce() -> String) {
    if slot.0 == 0 {
        slot.1 = Some(msg());
    }
    slot.0 += 1;
}

/// Byte offsets of records in the file the `Gnd` was parsed from, so that
/// warnings can point into it.
struct Offsets {
    surfaces: u64,
    cubes: u64,
}

impl Offsets {
    fn of(g: &Gnd) -> Offsets {
        // magic, version, width, height, scale, texture count, name length
        let header = 4 + 2 + 4 * 5;
        let names = g.textures.len() as u64 * g.texture_name_len.max(0) as u64;
        let lightmaps = 16 + 256 * g.lightmaps.data.len() as u64;
        let surfaces = header + names + lightmaps + 4;
        Offsets {
            surfaces,
            cubes: surfaces + 56 * g.surfaces.len() as u64,
        }
    }

    fn surface(&self, i: usize) -> u64 {
        self.surfaces + 56 * i as u64
    }

    fn cube_field(&self, i: usize, kind: Kind) -> u64 {
        let field = match kind {
            Kind::Top => 16,
            Kind::Front => 20,
            Kind::Side => 24,
        };
        self.cubes + 28 * i as u64 + field
    }
}

/// The lightmap cell layout shared by the atlas and the UVs.
struct Atlas {
    cols: u32,
    width: u32,
    height: u32,
    /// GND cells; a larger index means the neutral cell.
    cells: usize,
}

impl Atlas {
    /// Corner UVs `(u1, v1, u2, v2)` of cell `i`: its inner 6×6 texels, from
    /// texel edge 1 to texel edge 7, so bilinear filtering at a tile's edge
    /// blends half into the 1-texel border that the neighbouring tile's
    /// cell repeats.
    fn uv(&self, i: usize) -> (f32, f32, f32, f32) {
        let (cx, cy) = (i as u32 % self.cols, i as u32 / self.cols);
        let (w, h) = (self.width as f32, self.height as f32);
        (
            (cx * CELL + 1) as f32 / w,
            (cy * CELL + 1) as f32 / h,
            (cx * CELL + 7) as f32 / w,
            (cy * CELL + 7) as f32 / h,
        )
    }
}

/// FNV-1a, 32 bit: a stable colour seed for a texture name.
fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h ^= *b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Each channel in 72..=167: never black, white or saturated, so a missing
/// ground texture reads as a placeholder and not as real grass or snow.
pub fn placeholder_colour(name: &str) -> [u8; 4] {
    let h = fnv1a(name.to_ascii_lowercase().as_bytes());
    let c = |shift: u32| 72 + ((h >> shift) & 0xff) as u8 % 96;
    [c(0), c(8), c(16), 255]
}

fn flat_texture(name: &str) -> Texture {
    Texture {
        name: name.to_string(),
        width: FLAT_SIZE,
        height: FLAT_SIZE,
        texels: vec![placeholder_colour(name); (FLAT_SIZE * FLAT_SIZE) as usize],
        alpha: TextureAlpha::Opaque,
    }
}

/// Vertices and triangles of one chunk while it is being built.
#[derive(Default)]
struct ChunkBuilder {
    chunk: GroundChunk,
    parts: BTreeMap<usize, Vec<[u32; 3]>>,
}

impl ChunkBuilder {
    /// Adds a quad `q[0] q[1] q[2] q[3]` (counter-clockwise from the front)
    /// as triangles `(0, 1, 2)` and `(0, 2, 3)`.
    fn quad(&mut self, texture: usize, q: [(Vec3, Vec3, Vec2, Vec2); 4]) {
        let base = self.chunk.positions.len() as u32;
        for (p, n, uv, lm) in q {
            self.chunk.positions.push(p);
            self.chunk.normals.push(n);
            self.chunk.uvs.push(uv);
            self.chunk.lightmap_uvs.push(lm);
        }
        let tris = self.parts.entry(texture).or_default();
        tris.push([base, base + 1, base + 2]);
        tris.push([base, base + 2, base + 3]);
    }

    fn finish(mut self, footprint_min: Vec3) -> GroundChunk {
        self.chunk.parts = self.parts.into_iter().collect();
        if self.chunk.positions.is_empty() {
            self.chunk.min = footprint_min;
            self.chunk.max = footprint_min;
        } else {
            let mut min = Vec3::splat(f32::INFINITY);
            let mut max = Vec3::splat(f32::NEG_INFINITY);
            for p in &self.chunk.positions {
                min = min.min(*p);
                max = max.max(*p);
            }
            self.chunk.min = min;
            self.chunk.max = max;
        }
        self.chunk
    }
}

/// Finds a ground texture by its GND name: the location it was read from
/// and the texture decoded (or the error reading or decoding it).
pub type FindTexture<'a> = dyn Fn(&str) -> Option<(PathBuf, crate::Result<Texture>)> + 'a;

impl Ground {
    /// Builds the chunked ground mesh, textures and lightmap atlas of `gnd`
    /// (read from `gnd_path`, named in warnings). `find_texture` finds a GND
    /// texture by name: where it was read from, and the decoded texture or
    /// why it could not be read.
    pub fn build(gnd: &Gnd, gnd_path: &Path, find_texture: &FindTexture<'_>) -> Ground {
        let file = gnd_path.display().to_string();
        let mut warnings: Vec<String> = gnd.warnings.clone();
        let width = gnd.width.max(0) as u32;
        let height = gnd.height.max(0) as u32;
        let scale = gnd.scale;
        // The parser guarantees cubes.len() == width·height; a hand-built Gnd
        // might not, so only whole rows that exist are used.
        let rows = if width == 0 {
            height
        } else {
            height.min((gnd.cubes.len() / width as usize).min(u32::MAX as usize) as u32)
        };
        if rows != height {
            warnings.push(format!(
                "{file}: cubes: {} cube(s) for a {}×{} map; using {} row(s)",
                gnd.cubes.len(),
                gnd.width,
                gnd.height,
                rows
            ));
        }
        let height = rows;

        let (textures, missing) = load_textures(gnd, &file, find_texture, &mut warnings);

        let mut defects = Defects::default();
        let lm_count = gnd.lightmaps.data.len();
        let at = Offsets::of(gnd);
        let surface = |index: i32,
                       x: u32,
                       y: u32,
                       kind: Kind,
                       defects: &mut Defects|
         -> Option<(&Surface, usize)> {
            if index < 0 {
                return None;
            }
            let i = y as usize * width as usize + x as usize;
            let Some(s) = gnd.surfaces.get(index as usize) else {
                note(&mut defects.bad_surface, || {
                    format!(
                        "{file}: cubes[{i}].{} at byte {}: surface {index} does not exist ({} surfaces); not drawn",
                        kind.name(),
                        at.cube_field(i, kind),
                        gnd.surfaces.len()
                    )
                });
                return None;
            };
            if s.texture < 0 || s.texture as usize >= textures.len() {
                note(&mut defects.bad_texture, || {
                    format!(
                        "{file}: surfaces[{index}].texture at byte {}: {} is not one of the {} texture(s); not drawn",
                        at.surface(index as usize) + 32,
                        s.texture,
                        textures.len()
                    )
                });
                return None;
            }
            if s.lightmap as usize >= lm_count {
                note(&mut defects.bad_lightmap, || {
                    format!(
                        "{file}: surfaces[{index}].lightmap at byte {}: {} is not one of the {lm_count} lightmap(s); drawn with a neutral lightmap",
                        at.surface(index as usize) + 34,
                        s.lightmap
                    )
                });
            }
            Some((s, s.texture as usize))
        };

        // Resolve every cube's surfaces once: the normals need to know which
        // tops are drawn before any vertex is emitted.
        let w = width as usize;
        // A 0-wide map has no rows to visit, however tall its header says it is.
        let h = if w == 0 { 0 } else { height as usize };
        let cube = |x: usize, y: usize| &gnd.cubes[y * w + x];
        let mut resolved: Vec<[Option<(&Surface, usize)>; 3]> = Vec::with_capacity(w * h);
        for y in 0..h {
            for x in 0..w {
                let c = cube(x, y);
                let top = surface(c.top, x as u32, y as u32, Kind::Top, &mut defects);
                let front = if y + 1 < h {
                    surface(c.front, x as u32, y as u32, Kind::Front, &mut defects)
                } else {
                    None
                };
                let side = if x + 1 < w {
                    surface(c.side, x as u32, y as u32, Kind::Side, &mut defects)
                } else {
                    None
                };
                resolved.push([top, front, side]);
            }
        }
        let needs_neutral = defects.bad_lightmap.0 > 0;
        for (count, msg) in [
            defects.bad_surface,
            defects.bad_texture,
            defects.bad_lightmap,
        ] {
            if let Some(msg) = msg {
                if count > 1 {
                    warnings.push(format!("{msg} (and {} more like it)", count - 1));
                } else {
                    warnings.push(msg);
                }
            }
        }

        let (atlas, lightmap) = build_atlas(gnd, needs_neutral);

        // Corner position in kiln space.
        let corner = |gx: usize, gy: usize, height: f32| {
            Vec3::new(scale * gx as f32, -height, -(scale * gy as f32))
        };
        let top_corners = |x: usize, y: usize| {
            let hs = cube(x, y).heights;
            [
                corner(x, y, hs[0]),
                corner(x + 1, y, hs[1]),
                corner(x, y + 1, hs[2]),
                corner(x + 1, y + 1, hs[3]),
            ]
        };

        // Face normals of drawn tops, then smooth corner normals on the
        // (w+1)×(h+1) grid.
        // Only a map with cubes gets a corner grid: a hostile 2³¹×0 header
        // has no cubes to justify one.
        let grid = if w * h == 0 { 0 } else { (w + 1) * (h + 1) };
        let mut corner_normals = vec![Vec3::ZERO; grid];
        let mut tops = vec![None; w * h];
        for y in 0..h {
            for x in 0..w {
                if resolved[y * w + x][0].is_none() {
                    continue;
                }
                let p = top_corners(x, y);
                tops[y * w + x] = Some([p[0].y, p[1].y, p[2].y, p[3].y]);
                let n = (p[3] - p[0]).cross(p[2] - p[1]).normalize_or_zero();
                for (gx, gy) in [(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)] {
                    corner_normals[gy * (w + 1) + gx] += n;
                }
            }
        }
        for n in &mut corner_normals {
            *n = n.normalize_or(Vec3::Y);
        }

        let lm_uv = |s: &Surface| {
            let i = if (s.lightmap as usize) < lm_count {
                s.lightmap as usize
            } else {
                atlas.cells
            };
            atlas.uv(i)
        };
        let uv = |s: &Surface, k: usize| Vec2::new(s.u[k], s.v[k]);

        let chunks_x = width.div_ceil(CHUNK_TILES) as usize;
        let chunks_y = height.div_ceil(CHUNK_TILES) as usize;
        let ct = CHUNK_TILES as usize;
        let mut chunks = Vec::with_capacity(chunks_x * chunks_y);
        for cy in 0..chunks_y {
            for cx in 0..chunks_x {
                let mut b = ChunkBuilder::default();
                for y in cy * ct..((cy + 1) * ct).min(h) {
                    for x in cx * ct..((cx + 1) * ct).min(w) {
                        let [top, front, side] = resolved[y * w + x];
                        let ha = cube(x, y).heights;
                        if let Some((s, t)) = top {
                            let p = top_corners(x, y);
                            let n = |gx: usize, gy: usize| corner_normals[gy * (w + 1) + gx];
                            let (u1, v1, u2, v2) = lm_uv(s);
                            b.quad(
                                t,
                                [
                                    (p[0], n(x, y), uv(s, 0), Vec2::new(u1, v1)),
                                    (p[1], n(x + 1, y), uv(s, 1), Vec2::new(u2, v1)),
                                    (p[3], n(x + 1, y + 1), uv(s, 3), Vec2::new(u2, v2)),
                                    (p[2], n(x, y + 1), uv(s, 2), Vec2::new(u1, v2)),
                                ],
                            );
                        }
                        if let Some((s, t)) = front {
                            let hb = cube(x, y + 1).heights;
                            let a2 = corner(x, y + 1, ha[2]);
                            let a3 = corner(x + 1, y + 1, ha[3]);
                            let b0 = corner(x, y + 1, hb[0]);
                            let b1 = corner(x + 1, y + 1, hb[1]);
                            // Seen from the lower side: −Z (towards row y+1)
                            // when this cube stands higher. The order a2 a3
                            // b1 b0 is counter-clockwise from exactly that
                            // side, whichever cube is higher.
                            let up_a = -(ha[2] + ha[3]);
                            let up_b = -(hb[0] + hb[1]);
                            let n = if up_a >= up_b { Vec3::NEG_Z } else { Vec3::Z };
                            let (u1, v1, u2, v2) = lm_uv(s);
                            b.quad(
                                t,
                                [
                                    (a2, n, uv(s, 0), Vec2::new(u1, v1)),
                                    (a3, n, uv(s, 1), Vec2::new(u2, v1)),
                                    (b1, n, uv(s, 3), Vec2::new(u2, v2)),
                                    (b0, n, uv(s, 2), Vec2::new(u1, v2)),
                                ],
                            );
                        }
                        if let Some((s, t)) = side {
                            let hb = cube(x + 1, y).heights;
                            let a1 = corner(x + 1, y, ha[1]);
                            let a3 = corner(x + 1, y + 1, ha[3]);
                            let b0 = corner(x + 1, y, hb[0]);
                            let b2 = corner(x + 1, y + 1, hb[2]);
                            let up_a = -(ha[1] + ha[3]);
                            let up_b = -(hb[0] + hb[2]);
                            let n = if up_a >= up_b { Vec3::X } else { Vec3::NEG_X };
                            let (u1, v1, u2, v2) = lm_uv(s);
                            // The side's UV 0 sits at the far row (y+1), as
                            // in the client.
                            b.quad(
                                t,
                                [
                                    (a3, n, uv(s, 0), Vec2::new(u1, v1)),
                                    (a1, n, uv(s, 1), Vec2::new(u2, v1)),
                                    (b0, n, uv(s, 3), Vec2::new(u2, v2)),
                                    (b2, n, uv(s, 2), Vec2::new(u1, v2)),
                                ],
                            );
                        }
                    }
                }
                let foot = Vec3::new(scale * (cx * ct) as f32, 0.0, -(scale * (cy * ct) as f32));
                chunks.push(b.finish(foot));
            }
        }

        Ground {
            width,
            height,
            scale,
            textures,
            lightmap_width: atlas.width,
            lightmap_height: atlas.height,
            lightmap,
            chunks,
            missing,
            warnings,
            tops,
        }
    }

    /// Ground surface height (kiln y) at kiln (x, z), on the drawn top
    /// triangles; None outside the map or over a tile without a top surface.
    pub fn height_at(&self, x: f32, z: f32) -> Option<f32> {
        if self.scale.is_nan() || self.scale <= 0.0 || !x.is_finite() || !z.is_finite() {
            return None;
        }
        let gx = x / self.scale;
        let gy = -z / self.scale;
        let (w, h) = (self.width as f32, self.height as f32);
        if !(0.0..=w).contains(&gx) || !(0.0..=h).contains(&gy) || w == 0.0 || h == 0.0 {
            return None;
        }
        // The far edges belong to the last tile.
        let tx = (gx.floor() as u32).min(self.width - 1);
        let ty = (gy.floor() as u32).min(self.height - 1);
        let (fx, fy) = (gx - tx as f32, gy - ty as f32);
        let c = self.tops[(ty * self.width + tx) as usize]?;
        Some(top_height(c, fx, fy))
    }

    /// kiln-world bounds of the whole ground; the flat footprint at y = 0
    /// when nothing is drawn.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        let mut min = Vec3::splat(f32::INFINITY);
        let mut max = Vec3::splat(f32::NEG_INFINITY);
        for c in self.chunks.iter().filter(|c| !c.positions.is_empty()) {
            min = min.min(c.min);
            max = max.max(c.max);
        }
        if min.x > max.x {
            let far = Vec3::new(
                self.scale * self.width as f32,
                0.0,
                -(self.scale * self.height as f32),
            );
            return (Vec3::ZERO.min(far), Vec3::ZERO.max(far));
        }
        (min, max)
    }

    /// Triangles of every chunk (for kiln's own tests).
    pub fn triangle_count(&self) -> usize {
        self.chunks.iter().map(GroundChunk::triangle_count).sum()
    }

    /// The atlas texel at column `x`, row `y` (for kiln's own tests).
    pub fn lightmap_texel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.lightmap_width || y >= self.lightmap_height {
            return None;
        }
        self.lightmap
            .get(y as usize * self.lightmap_width as usize + x as usize)
            .copied()
    }
}

/// One slot per GND texture; each distinct name is looked up and decoded once.
fn load_textures(
    gnd: &Gnd,
    file: &str,
    find_texture: &FindTexture<'_>,
    warnings: &mut Vec<String>,
) -> (Vec<TextureSlot>, Vec<String>) {
    let mut cache: BTreeMap<&str, TextureSlot> = BTreeMap::new();
    let mut missing = Vec::new();
    let mut slots = Vec::with_capacity(gnd.textures.len());
    for name in &gnd.textures {
        if let Some(slot) = cache.get(name.as_str()) {
            slots.push(slot.clone());
            continue;
        }
        let found = find_texture(name);
        let path = found.as_ref().map(|(p, _)| p.clone());
        let image = match found {
            None => {
                missing.push(name.clone());
                flat_texture(name)
            }
            Some((p, texture)) => match texture {
                Ok(t) => t,
                Err(e) => {
                    warnings.push(format!(
                        "{file}: texture {name:?} ({}) could not be read: {e}; drawn flat",
                        p.display()
                    ));
                    flat_texture(name)
                }
            },
        };
        let slot = TextureSlot {
            name: name.clone(),
            path,
            sampler: crate::scene::Sampler::default(),
            image: Arc::new(image),
        };
        cache.insert(name.as_str(), slot.clone());
        slots.push(slot);
    }
    (slots, missing)
}

/// Lays the GND's 8×8 lightmaps out in a grid of `ceil(sqrt(n))` columns,
/// texels straight from the file (rgb = colour map, a = shadow).
fn build_atlas(gnd: &Gnd, needs_neutral: bool) -> (Atlas, Vec<[u8; 4]>) {
    let cells = gnd.lightmaps.data.len();
    let total = (cells + needs_neutral as usize).max(1);
    let cols = (total as f64).sqrt().ceil() as u32;
    let rows = (total as u32).div_ceil(cols);
    let atlas = Atlas {
        cols,
        width: cols * CELL,
        height: rows * CELL,
        cells,
    };
    let aw = atlas.width as usize;
    // Unused cells (and the neutral one) read as "no shadow, no colour".
    let mut texels = vec![[0, 0, 0, 255]; aw * atlas.height as usize];
    for (i, lm) in gnd.lightmaps.data.iter().enumerate() {
        let (cx, cy) = ((i as u32 % cols) * CELL, (i as u32 / cols) * CELL);
        for k in 0..64u32 {
            let (px, py) = (cx + k % CELL, cy + k / CELL);
            let c = lm.color[k as usize];
            texels[py as usize * aw + px as usize] = [c[0], c[1], c[2], lm.shadow[k as usize]];
        }
    }
    (atlas, texels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_vectors() {
        assert_eq!(fnv1a(b""), 0x811c_9dc5);
        assert_eq!(fnv1a(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a(b"foobar"), 0xbf9c_f968);
    }

    #[test]
    fn placeholder_colour_ignores_ascii_case() {
        assert_eq!(
            placeholder_colour("BLACK.BMP"),
            placeholder_colour("black.bmp")
        );
        assert_ne!(placeholder_colour("a.bmp"), placeholder_colour("b.bmp"));
    }

    #[test]
    fn atlas_uvs_span_texel_edges_1_to_7_of_each_cell() {
        let a = Atlas {
            cols: 3,
            width: 24,
            height: 16,
            cells: 5,
        };
        assert_eq!(a.uv(0), (1.0 / 24.0, 1.0 / 16.0, 7.0 / 24.0, 7.0 / 16.0));
        assert_eq!(a.uv(4), (9.0 / 24.0, 9.0 / 16.0, 15.0 / 24.0, 15.0 / 16.0));
    }
}
