//! The decoded image every texture becomes, whatever its file format:
//! premultiplied RGBA8 with row 0 at the top (UV v = 0), so bilinear
//! filtering never bleeds colour out of transparent texels (no pink fringes
//! from colour-keyed magenta). The decoders live with the other file
//! formats (`formats::texture`); where a texture is found is each model
//! format's business, through the data sources.

use std::path::Path;

/// Largest width or height any decoder accepts. Ragnarok textures are at most
/// 1024²; the cap keeps a corrupt header from asking for gigabytes.
pub const MAX_DIMENSION: u32 = 16384;

/// How a texture uses alpha; decides the material's alpha mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureAlpha {
    /// Every texel opaque.
    Opaque,
    /// Only fully opaque or fully transparent texels (BMP magenta colour key).
    ColorKey,
    /// Real alpha (TGA/PNG with an alpha channel in use): drawn blended.
    Translucent,
}

/// A decoded texture, whatever file it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    /// The file name it was decoded from (its last path component).
    pub name: String,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Premultiplied RGBA8, `width * height` texels, row 0 = top.
    pub texels: Vec<[u8; 4]>,
    /// How it uses alpha.
    pub alpha: TextureAlpha,
}

/// Side of one checker cell in texels.
const CHECKER_CELL: u32 = 8;
const CHECKER_SIZE: u32 = 64;
/// Orange and dark grey: loud enough to spot a missing texture, and never
/// magenta, which the colour key reserves for "transparent".
pub const CHECKER_LIGHT: [u8; 4] = [255, 140, 0, 255];
/// The checker's dark cells.
pub const CHECKER_DARK: [u8; 4] = [48, 48, 48, 255];

impl Texture {
    /// The visible checker drawn where a texture is missing: 64×64 texels in
    /// 8×8 cells, orange in the top-left cell, opaque.
    pub fn checker() -> Texture {
        let n = CHECKER_SIZE;
        let texels = (0..n * n)
            .map(|i| {
                let (x, y) = (i % n, i / n);
                if (x / CHECKER_CELL + y / CHECKER_CELL).is_multiple_of(2) {
                    CHECKER_LIGHT
                } else {
                    CHECKER_DARK
                }
            })
            .collect();
        Texture {
            name: "checker".to_string(),
            width: n,
            height: n,
            texels,
            alpha: TextureAlpha::Opaque,
        }
    }

    /// The texel at column `x`, row `y` (row 0 = top), if inside the image.
    pub fn texel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        self.texels
            .get(y as usize * self.width as usize + x as usize)
            .copied()
    }
}

/// Builds the texture from straight-alpha texels: premultiplies and classifies.
pub fn finish(name: &Path, width: u32, height: u32, mut texels: Vec<[u8; 4]>) -> Texture {
    for t in &mut texels {
        *t = premultiply(*t);
    }
    let alpha = classify(&texels);
    Texture {
        name: display_name(name),
        width,
        height,
        texels,
        alpha,
    }
}

fn display_name(name: &Path) -> String {
    name.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.to_string_lossy().into_owned())
}

/// Straight → premultiplied, rounding to nearest.
pub fn premultiply([r, g, b, a]: [u8; 4]) -> [u8; 4] {
    let m = |c: u8| ((c as u32 * a as u32 + 127) / 255) as u8;
    [m(r), m(g), m(b), a]
}

/// Premultiplied → straight, rounding to nearest: what a PNG keeps. A
/// fully transparent texel becomes transparent black (its colour is gone
/// once premultiplied); an opaque one is unchanged.
#[inline]
pub fn unpremultiply([r, g, b, a]: [u8; 4]) -> [u8; 4] {
    match a {
        255 => [r, g, b, a],
        0 => [0, 0, 0, 0],
        _ => {
            let a32 = u32::from(a);
            let un = |c: u8| ((u32::from(c) * 255 + a32 / 2) / a32).min(255) as u8;
            [un(r), un(g), un(b), a]
        }
    }
}

/// [`unpremultiply`] of every texel, in place (here, so that it runs
/// optimised in every build: a texture can be 16384² texels).
pub fn unpremultiply_all(texels: &mut [[u8; 4]]) {
    for t in texels {
        *t = unpremultiply(*t);
    }
}

/// Every alpha 255 → Opaque; only 0 and 255 → ColorKey; else Translucent.
pub fn classify(texels: &[[u8; 4]]) -> TextureAlpha {
    let mut alpha = TextureAlpha::Opaque;
    for t in texels {
        match t[3] {
            255 => {}
            0 => alpha = TextureAlpha::ColorKey,
            _ => return TextureAlpha::Translucent,
        }
    }
    alpha
}

/// Beyond this distance from the key ([`key_distance`]) a texel is art,
/// whatever it borders.
pub const SOFT_EDGE: u8 = 96;
/// How many texels out from a keyed texel a soft edge may reach.
pub const SOFT_EDGE_REACH: usize = 2;

/// How far a colour is from the key, magenta (255, 0, 255), channel by
/// channel at worst: `max(255 - r, g, 255 - b)`. It is also, over 255, the
/// least alpha with which the colour can be magenta blended over another
/// colour (colour-to-alpha). [`is_color_key`] is a distance below 32.
pub fn key_distance(r: u8, g: u8, b: u8) -> u8 {
    (255 - r).max(g).max(255 - b)
}

/// Applies the colour key to straight-alpha texels, `width` a row: texels
/// within the key ([`is_color_key`]) become transparent black; texels
/// bordering them — at most [`SOFT_EDGE_REACH`] texels out — that are
/// still near magenta (distance below [`SOFT_EDGE`]) are an artist's soft
/// edge, the cut-out's colour blended with the key, and are un-blended:
/// given an alpha that grows with their distance (never below the least
/// one that can explain them, so the colour stays in range) and the colour
/// that, blended over magenta with that alpha, gives the texel. Filtering
/// then draws them as the cut-out's own colour fading out, never pink. A
/// texture whose only near-magenta texels are keyed is left exactly as the
/// plain key leaves it. Returns whether any texel was keyed.
pub fn apply_color_key(texels: &mut [[u8; 4]], width: usize) -> bool {
    let height = texels.len().checked_div(width).unwrap_or(0);
    let keyed: Vec<bool> = texels
        .iter()
        .map(|t| is_color_key(t[0], t[1], t[2]))
        .collect();
    if !keyed.contains(&true) {
        return false;
    }
    // Distance in texels (chessboard) to the nearest keyed texel, up to the reach.
    let mut near = vec![false; texels.len()];
    for (i, _) in keyed.iter().enumerate().filter(|(_, &k)| k) {
        let (x, y) = (i % width, i / width);
        let (x0, x1) = (
            x.saturating_sub(SOFT_EDGE_REACH),
            (x + SOFT_EDGE_REACH).min(width - 1),
        );
        let (y0, y1) = (
            y.saturating_sub(SOFT_EDGE_REACH),
            (y + SOFT_EDGE_REACH).min(height.max(1) - 1),
        );
        for yy in y0..=y1 {
            for xx in x0..=x1 {
                near[yy * width + xx] = true;
            }
        }
    }
    for (i, t) in texels.iter_mut().enumerate() {
        if keyed[i] {
            *t = [0, 0, 0, 0];
        } else if near[i] {
            if let Some(u) = unblend(*t) {
                *t = u;
            }
        }
    }
    true
}

/// A soft-edge texel as the colour the artist blended against magenta and
/// how much of it there is; `None` for a texel that is not near the key.
fn unblend([r, g, b, a]: [u8; 4]) -> Option<[u8; 4]> {
    let d = key_distance(r, g, b);
    if is_color_key(r, g, b) || d >= SOFT_EDGE {
        return None;
    }
    let floor = KEY_DISTANCE as f32;
    let least = d as f32 / 255.0;
    let ramp = (d as f32 - floor) / (SOFT_EDGE as f32 - floor);
    let alpha = least.max(ramp).clamp(least, 1.0);
    let key = [255.0f32, 0.0, 255.0];
    let mut out = [0u8; 4];
    for (c, (&v, k)) in [r, g, b].iter().zip(key).enumerate() {
        let f = k + (v as f32 - k) / alpha;
        out[c] = f.round().clamp(0.0, 255.0) as u8;
    }
    out[3] = (alpha * a as f32).round().clamp(1.0, 255.0) as u8;
    Some(out)
}

/// Distances below this are the key itself.
const KEY_DISTANCE: u8 = 32;

/// The Ragnarok colour key: a texel that is magenta at three bits per
/// channel (r ≥ 224, g < 32, b ≥ 224) becomes transparent black, so
/// filtering leaves no pink fringe. BrowEdit and GRF Editor key only
/// r > 247, g < 8, b > 247 and roBrowser r > 230, g < 20, b > 230; real
/// textures hold texels that an editor's resampling or compression pushed
/// off pure magenta around their cut-outs — (248, 1, 247), (233, 2, 232),
/// (225, 5, 224) on a client's tree — which those rules leave as a pink
/// fringe. Nothing drawn on purpose is that saturated a magenta: every
/// client keys the colour, so artists keep away from it.
pub fn is_color_key(r: u8, g: u8, b: u8) -> bool {
    key_distance(r, g, b) < KEY_DISTANCE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpremultiplying_undoes_premultiplying_every_texel() {
        // Every premultiplied value a texel can hold (colour at most its
        // alpha) comes back to itself through the straight colour, so a
        // converted texture loses nothing a premultiplied one had; opaque
        // texels are untouched and transparent ones become black.
        for a in 0..=255u8 {
            for c in 0..=a {
                let straight = unpremultiply([c, c / 2, a - c, a]);
                assert_eq!(premultiply(straight), [c, c / 2, a - c, a], "c {c} a {a}");
                if a == 255 {
                    assert_eq!(straight, [c, c / 2, a - c, a]);
                }
            }
        }
        assert_eq!(unpremultiply([9, 9, 9, 0]), [0, 0, 0, 0]);
        let mut all = vec![[128, 64, 0, 128], [3, 0, 0, 1], [10, 20, 30, 255]];
        unpremultiply_all(&mut all);
        assert_eq!(all, [[255, 128, 0, 128], [255, 0, 0, 1], [10, 20, 30, 255]]);
    }

    #[test]
    fn checker_is_64_square_orange_and_grey_cells_of_8() {
        let c = Texture::checker();
        assert_eq!((c.width, c.height, c.texels.len()), (64, 64, 4096));
        assert_eq!(c.alpha, TextureAlpha::Opaque);
        assert_eq!(c.texel(0, 0), Some(CHECKER_LIGHT));
        assert_eq!(c.texel(7, 7), Some(CHECKER_LIGHT));
        assert_eq!(c.texel(8, 0), Some(CHECKER_DARK));
        assert_eq!(c.texel(0, 8), Some(CHECKER_DARK));
        assert_eq!(c.texel(8, 8), Some(CHECKER_LIGHT));
        assert_eq!(c.texel(63, 63), Some(CHECKER_LIGHT));
        assert_eq!(c.texel(64, 0), None);
        // No texel may look like the colour key.
        assert!(c.texels.iter().all(|t| !is_color_key(t[0], t[1], t[2])));
    }

    #[test]
    fn premultiply_rounds_to_nearest() {
        assert_eq!(premultiply([255, 128, 1, 128]), [128, 64, 1, 128]);
        assert_eq!(premultiply([200, 100, 50, 0]), [0, 0, 0, 0]);
        assert_eq!(premultiply([200, 100, 50, 255]), [200, 100, 50, 255]);
    }

    #[test]
    fn classify_by_alpha_values() {
        assert_eq!(classify(&[[1, 2, 3, 255]]), TextureAlpha::Opaque);
        assert_eq!(
            classify(&[[1, 2, 3, 255], [0, 0, 0, 0]]),
            TextureAlpha::ColorKey
        );
        assert_eq!(
            classify(&[[0, 0, 0, 0], [1, 1, 1, 1], [1, 2, 3, 255]]),
            TextureAlpha::Translucent
        );
    }

    #[test]
    fn colour_key_thresholds() {
        assert!(is_color_key(255, 0, 255));
        assert!(is_color_key(248, 7, 248));
        // Texels a real tree texture holds around its leaves.
        assert!(is_color_key(248, 1, 247));
        assert!(is_color_key(233, 2, 232));
        assert!(is_color_key(225, 5, 224));
        assert!(is_color_key(224, 31, 224));
        assert!(!is_color_key(223, 0, 255));
        assert!(!is_color_key(255, 32, 255));
        assert!(!is_color_key(255, 0, 223));
        // Pinks and purples art does use.
        assert!(!is_color_key(255, 105, 180));
        assert!(!is_color_key(200, 0, 200));
    }
}
