//! The water surface: a flat quad at the water level over every ground tile
//! that dips below it, as the client builds it, in the same 16×16-tile
//! chunks as the ground so the renderer can cull it.
//!
//! The level comes from the RSW before 2.6 and from the GND's planes from
//! GND 1.8 (one plane per `split_u × split_v` zone). Water textures are
//! animated sequences kiln does not draw; the surface is a translucent
//! blue, blended over the ground.

use crate::formats::gnd::Gnd;
use crate::map::ground::CHUNK_TILES;
use glam::{Vec2, Vec3};

/// Straight RGBA of the surface: the colour of open sea in the client's
/// water textures, with the ground showing through the shallows.
pub const WATER_COLOR: [f32; 4] = [0.16, 0.38, 0.62, 0.6];

/// A square of water surface drawn as one mesh.
#[derive(Debug, Clone, Default)]
pub struct WaterChunk {
    /// Bounds, lower corner.
    pub min: Vec3,
    /// Bounds, upper corner.
    pub max: Vec3,
    /// Vertex positions, kiln world.
    pub positions: Vec<Vec3>,
    /// Vertex normals (straight up).
    pub normals: Vec<Vec3>,
    /// Texture coordinates.
    pub uvs: Vec<Vec2>,
    /// Triangles, counter-clockwise seen from above.
    pub triangles: Vec<[u32; 3]>,
}

/// Water over `gnd`. `rsw_level` is the RSW's level (RO units, Y down), used
/// when the GND carries no planes.
pub fn build(gnd: &Gnd, rsw_level: Option<f32>) -> Vec<WaterChunk> {
    let (w, h) = (gnd.width.max(0) as usize, gnd.height.max(0) as usize);
    if w == 0 || h == 0 || gnd.cubes.len() < w * h || !gnd.scale.is_finite() || gnd.scale <= 0.0 {
        return Vec::new();
    }
    let level_at = |x: usize, y: usize| -> Option<f32> {
        match &gnd.water {
            Some(setup) => {
                let (su, sv) = (setup.split_u.max(1) as usize, setup.split_v.max(1) as usize);
                let zone = (x * su / w).min(su - 1) + (y * sv / h).min(sv - 1) * su;
                Some(
                    setup
                        .planes
                        .get(zone)
                        .map_or(setup.default.level, |p| p.level),
                )
            }
            None => rsw_level,
        }
        .filter(|l| l.is_finite())
    };
    let s = gnd.scale;
    let cols = w.div_ceil(CHUNK_TILES as usize);
    let rows = h.div_ceil(CHUNK_TILES as usize);
    let mut chunks = vec![WaterChunk::default(); cols * rows];
    for y in 0..h {
        for x in 0..w {
            let cube = &gnd.cubes[y * w + x];
            let Some(level) = level_at(x, y) else {
                continue;
            };
            // RO heights grow downward: a corner deeper than the level is
            // under water.
            if cube.top < 0 || !cube.heights.iter().any(|&c| c > level) {
                continue;
            }
            let c = &mut chunks[(y / CHUNK_TILES as usize) * cols + x / CHUNK_TILES as usize];
            let base = c.positions.len() as u32;
            let yy = -level;
            let (x0, x1) = (x as f32 * s, (x + 1) as f32 * s);
            let (z0, z1) = (-(y as f32) * s, -((y + 1) as f32) * s);
            for (px, pz, u, v) in [
                (x0, z0, 0.0, 1.0),
                (x1, z0, 1.0, 1.0),
                (x0, z1, 0.0, 0.0),
                (x1, z1, 1.0, 0.0),
            ] {
                c.positions.push(Vec3::new(px, yy, pz));
                c.normals.push(Vec3::Y);
                c.uvs.push(Vec2::new(u, v));
            }
            // Counter-clockwise seen from above (+Y): rows grow toward −Z.
            c.triangles.push([base, base + 1, base + 3]);
            c.triangles.push([base, base + 3, base + 2]);
        }
    }
    chunks.retain(|c| !c.triangles.is_empty());
    for c in &mut chunks {
        let (lo, hi) = c.positions.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), &p| (lo.min(p), hi.max(p)),
        );
        c.min = lo;
        c.max = hi;
    }
    chunks
}
