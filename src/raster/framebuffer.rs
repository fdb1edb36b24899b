//! The sample buffer of one screen tile: premultiplied colour planes and depth.
//!
//! Planar f32 storage lets a block of eight samples load and store as whole
//! lanes; one tile (32×32 samples, 20 KiB) stays in L1 while it is drawn.

/// Tile edge in samples (the row stride); a multiple of the lane width.
pub const TILE: usize = 32;
const _: () = assert!(TILE <= 32, "dirty rows are a u32 bitmask");
pub const TILE_AREA: usize = TILE * TILE;

pub struct TileBuffer {
    /// Premultiplied r, g, b, a in 0..1.
    pub color: [Vec<f32>; 4],
    pub depth: Vec<f32>,
    /// Bit y set when sample row y was written since the last clear; clean
    /// rows resolve to the background without reading the planes.
    pub dirty: u32,
}

impl TileBuffer {
    pub fn new() -> Self {
        TileBuffer {
            color: std::array::from_fn(|_| vec![0.0; TILE_AREA]),
            depth: vec![f32::INFINITY; TILE_AREA],
            dirty: 0,
        }
    }

    pub fn clear(&mut self, background: [f32; 4]) {
        for (plane, v) in self.color.iter_mut().zip(background) {
            plane.fill(v);
        }
        self.depth.fill(f32::INFINITY);
        self.dirty = 0;
    }
}
