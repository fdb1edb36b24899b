//! kiln's palettes: one [`Palette`] type (an ordered list of distinct
//! colours with an exact nearest-colour search) and one median-cut
//! quantizer ([`cut`]) choosing one palette over many frames, serving the
//! indexed images of GIFs and RO sprites ([`Indexed`], index 0 transparent)
//! and the pixel-art look (a palette file's colours or `colors: N`).

pub mod cut;
mod files;
pub mod indexed;
pub mod search;

pub use indexed::{Indexed, MAX_INDEXED, TRANSPARENT};
pub use search::Nearest;

use std::sync::OnceLock;

/// Most colours a palette may hold (the GIF limit, and plenty for pixel art).
pub const MAX_COLORS: usize = 256;

/// An ordered list of distinct RGB colours, never empty when read from a
/// file or made by [`Palette::new`] (an indexed palette over frames without
/// an opaque pixel is empty).
#[derive(Clone)]
pub struct Palette {
    colors: Vec<[u8; 3]>,
    /// The search for a colour's nearest entry, made on first use: mapping
    /// indexed frames to the palette built from them never asks, and making
    /// it costs as much as mapping a dozen 128² frames.
    near: OnceLock<Nearest>,
}

/// Equal palettes have the same colours; whether the search (made from the
/// colours) exists yet does not matter.
impl PartialEq for Palette {
    fn eq(&self, other: &Palette) -> bool {
        self.colors == other.colors
    }
}

impl Eq for Palette {}

impl std::fmt::Debug for Palette {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Palette")
            .field("colors", &self.colors)
            .finish()
    }
}

impl Palette {
    /// The palette of `colors`, repeats dropped; `None` when empty or when
    /// more than [`MAX_COLORS`] remain.
    pub fn new(colors: &[[u8; 3]]) -> Option<Palette> {
        let mut out: Vec<[u8; 3]> = Vec::with_capacity(colors.len().min(MAX_COLORS));
        for c in colors {
            if !out.contains(c) {
                if out.len() == MAX_COLORS {
                    return None;
                }
                out.push(*c);
            }
        }
        (!out.is_empty()).then(|| Palette::distinct(out))
    }

    /// The palette of colours a median cut chose, distinct by construction
    /// (its boxes never overlap), possibly empty.
    fn distinct(colors: Vec<[u8; 3]>) -> Palette {
        Palette {
            colors,
            near: OnceLock::new(),
        }
    }

    /// The colours, in order.
    pub fn colors(&self) -> &[[u8; 3]] {
        &self.colors
    }

    /// The exact nearest-colour search over the colours.
    pub fn search(&self) -> &Nearest {
        self.near.get_or_init(|| Nearest::new(&self.colors))
    }

    /// Index of the colour nearest `c` (squared RGB distance, ties to the
    /// lower index; 0 when empty).
    pub fn nearest(&self, c: [u8; 3]) -> usize {
        self.search().index(c)
    }

    /// At most `n` colours (1..=[`MAX_COLORS`]) chosen over every pixel of
    /// `frames` with alpha ≥ `alpha_cutoff`, sorted; black when none is.
    pub fn over_frames(frames: &[&image::RgbaImage], n: usize, alpha_cutoff: u8) -> Palette {
        let mut hist = cut::cell_histogram(frames, alpha_cutoff);
        let n = n.clamp(1, MAX_COLORS);
        let colors: Vec<[u8; 3]> = cut::median_cut(&mut hist, n, cut::Rule::Look)
            .into_iter()
            .map(|c| c.color)
            .collect();
        Palette::new(&colors).unwrap_or_else(|| Palette::distinct(vec![[0, 0, 0]]))
    }
}
