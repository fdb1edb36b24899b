//! The sample buffer of one screen tile: premultiplied colour planes and depth.
//!
//! Planar f32 storage lets a block of eight samples load and store as whole
//! lanes; one tile (32×32 samples, 20 KiB) stays in L1 while it is drawn.

/// Tile edge in samples (the row stride); a multiple of the lane width.
pub const TILE: usize = 32;
const _: () = assert!(TILE <= 32, "dirty rows are a u32 bitmask");
pub const TILE_AREA: usize = TILE * TILE;

pub struct TileBuffer {
    /// Premultiplied r, g, b, a in 0..1. Fixed-size planes, so an index
    /// masked to the tile needs no bounds check.
    pub color: Box<[[f32; TILE_AREA]; 4]>,
    pub depth: Box<[f32; TILE_AREA]>,
    /// Bit y set when sample row y was written since the last clear; clean
    /// rows resolve to the background without reading the planes.
    pub dirty: u32,
}

impl TileBuffer {
    pub fn new() -> Self {
        TileBuffer {
            color: Box::new([[0.0; TILE_AREA]; 4]),
            depth: Box::new([f32::INFINITY; TILE_AREA]),
            dirty: 0,
        }
    }

    #[inline(always)]
    pub fn clear(&mut self, background: [f32; 4]) {
        for (plane, v) in self.color.iter_mut().zip(background) {
            plane.fill(v);
        }
        self.depth.fill(f32::INFINITY);
        self.dirty = 0;
    }
}
