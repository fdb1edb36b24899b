//! The sample buffer of one screen tile: premultiplied colour planes and depth.
//!
//! Planar f32 storage lets a block of eight samples load and store as whole
//! lanes; one tile (32×32 samples, 20 KiB) stays in L1 while it is drawn.

/// Tile edge in samples (the row stride); a multiple of the lane width.
pub const TILE: usize = 32;
const _: () = assert!(TILE <= 32, "dirty rows are a u32 bitmask");
pub const TILE_AREA: usize = TILE * TILE;

/// Sample row `y` of a plane.
#[inline(always)]
fn row_of(plane: &mut [f32; TILE_AREA], y: usize) -> &mut [f32; TILE] {
    let at = (y & (TILE - 1)) * TILE;
    (&mut plane[at..at + TILE])
        .try_into()
        .expect("a row is TILE samples")
}

pub struct TileBuffer {
    /// Premultiplied r, g, b, a in 0..1. Fixed-size planes, so an index
    /// masked to the tile needs no bounds check.
    pub color: Box<[[f32; TILE_AREA]; 4]>,
    pub depth: Box<[f32; TILE_AREA]>,
    /// Bit y set when sample row y was written since the last clear; clean
    /// rows resolve to the background without reading the planes.
    pub dirty: u32,
    /// Set when a blended sample was written since the last clear: until
    /// then every sample's alpha is the background's or exactly 1 (opaque
    /// and masked fragments are written with alpha 1).
    pub blended: bool,
    /// The background every clean row holds, once a clear has filled the
    /// planes with it: the next clear then resets only the dirty rows.
    clean: Option<[f32; 4]>,
}

impl TileBuffer {
    pub fn new() -> Self {
        TileBuffer {
            color: Box::new([[0.0; TILE_AREA]; 4]),
            depth: Box::new([f32::INFINITY; TILE_AREA]),
            dirty: 0,
            blended: false,
            clean: None,
        }
    }

    /// Every sample back to `background` and infinite depth.
    #[inline(always)]
    pub fn clear(&mut self, background: [f32; 4]) {
        // Bit patterns, so a NaN background never counts as already there.
        let same = self
            .clean
            .is_some_and(|c| c.map(f32::to_bits) == background.map(f32::to_bits));
        if !same {
            for (plane, v) in self.color.iter_mut().zip(background) {
                plane.fill(v);
            }
            self.depth.fill(f32::INFINITY);
            self.clean = Some(background);
        } else {
            // Only written rows differ from the background.
            let mut rows = self.dirty;
            while rows != 0 {
                let y = rows.trailing_zeros() as usize;
                rows &= rows - 1;
                // Whole fixed-size rows: stores in place, not a `memset`
                // call of a length the compiler cannot see.
                for (plane, v) in self.color.iter_mut().zip(background) {
                    *row_of(plane, y) = [v; TILE];
                }
                *row_of(&mut self.depth, y) = [f32::INFINITY; TILE];
            }
        }
        self.dirty = 0;
        self.blended = false;
    }

    /// Whether every sample's alpha is exactly 0 or 1, so un-premultiplying
    /// is the identity (or masked off): nothing blended since a clear to a
    /// background that is opaque or fully transparent.
    pub fn binary_alpha(&self) -> bool {
        !self.blended && self.clean.is_some_and(|c| c[3] == 0.0 || c[3] == 1.0)
    }
}
