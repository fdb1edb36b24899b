//! Binning: which triangles can touch which tile, in draw order.
//!
//! A counting sort over (tile, triangle) pairs keeps each tile's list in
//! submission order, which both the painter's order of blended triangles and
//! determinism rely on.

use super::setup::Tri;
use super::tile::{touches, TileRect};

pub struct Grid {
    /// Tile edge in samples.
    pub tile: i32,
    pub tiles_x: usize,
    pub tiles_y: usize,
    /// Target size in samples.
    pub width: i32,
    pub height: i32,
}

impl Grid {
    pub fn rect(&self, tx: usize, ty: usize) -> TileRect {
        let x = tx as i32 * self.tile;
        let y = ty as i32 * self.tile;
        TileRect {
            x,
            y,
            w: self.tile.min(self.width - x),
            h: self.tile.min(self.height - y),
        }
    }
}

pub struct Bins {
    /// `items[start[t]..start[t + 1]]` are tile t's triangles.
    start: Vec<usize>,
    items: Vec<u32>,
}

impl Bins {
    pub fn build(tris: &[Tri], g: &Grid) -> Bins {
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(tris.len());
        // Tiles are 32 samples (30 at supersampling 3): a shift instead of
        // four divisions a triangle when they are a power of two. Boxes
        // start at sample 0 or more, so both agree.
        let shift = (g.tile > 0 && g.tile.count_ones() == 1).then(|| g.tile.trailing_zeros());
        let tile_of = |v: i32| -> usize {
            match shift {
                Some(sh) => (v >> sh) as usize,
                None => (v / g.tile) as usize,
            }
        };
        for (i, t) in tris.iter().enumerate() {
            let tx0 = tile_of(t.min_x);
            let ty0 = tile_of(t.min_y);
            let tx1 = tile_of(t.max_x).min(g.tiles_x - 1);
            let ty1 = tile_of(t.max_y).min(g.tiles_y - 1);
            let single = tx0 == tx1 && ty0 == ty1;
            for ty in ty0..=ty1 {
                for tx in tx0..=tx1 {
                    // Large triangles skip the tiles their box covers but
                    // their edges do not (long thin diagonals).
                    if single || touches(t, &g.rect(tx, ty)) {
                        pairs.push(((ty * g.tiles_x + tx) as u32, i as u32));
                    }
                }
            }
        }
        let n = g.tiles_x * g.tiles_y;
        let mut start = vec![0usize; n + 1];
        for &(tile, _) in &pairs {
            start[tile as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut items = vec![0u32; pairs.len()];
        for &(tile, tri) in &pairs {
            items[fill[tile as usize]] = tri;
            fill[tile as usize] += 1;
        }
        Bins { start, items }
    }

    pub fn tile(&self, index: usize) -> &[u32] {
        &self.items[self.start[index]..self.start[index + 1]]
    }
}
