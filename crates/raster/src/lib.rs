//! kiln's own CPU rasterizer, and the decoded texture it samples.
//!
//! A crate of its own so that it is compiled optimised wherever kiln is
//! built: kiln's tests build kiln itself unoptimised, and the rasterizer's
//! lane code is nearly all the time they spend (docs/testing.md).
//!
//! Conventions: clip = `camera.proj · camera.view · world`; NDC x right, y up,
//! z in [0, 1] (glam's `*_rh` projections), depth test "less". A triangle whose
//! projected vertices run counter-clockwise on screen (y up) is front-facing;
//! back faces are culled unless the batch is two-sided, and two-sided back
//! faces are lit with the flipped normal.
//!
//! Pipeline: vertices are transformed once per batch, triangles clipped in
//! homogeneous space (`clip`), snapped to 8-bit sub-sample fixed point and
//! set up as integer edge functions plus attribute planes (`setup`), binned
//! to 32×32-sample tiles (`bin`). Each tile is then drawn on its own
//! supersampled buffer (`tile`, `shade`, `texel`) and box-filtered
//! straight into the output (`resolve`), so memory stays at one output
//! image plus one tile of samples however large the supersampling.
//!
//! Opaque and masked triangles draw first in submission order; blended ones
//! follow, back to front by the view depth of their centroid.
//!
//! Shading: the texel (premultiplied; bilinear or nearest, repeat, clamp
//! or mirror as the batch's [`Sampler`] says) times the base colour, times
//! the batch's per-vertex colour when it has one; `Opaque` and surviving
//! `Mask` fragments are un-premultiplied and written with alpha 1 (the mask
//! tests that product's alpha against the cutoff); lit batches multiply by
//! `min(1, ambient + colour · max(0, n·l))` per channel, the clamp a
//! fixed-function pipeline applies to the light term, then add their
//! [`Emission`] (clamped to 1).
//! A batch with a [`LightmapLayer`] then gets `rgb · lm.a + lm.rgb` (clamped
//! to 1, alpha kept) from a second, straight, clamp-to-edge texture with its
//! own perspective-correct UVs. A *layered* batch — a lightmap, vertex
//! colours or emission — has its extra planes (`setup::Layer`) set up and
//! shaded by a separate instance of the tile loop, so plain batches run the
//! loop they ran before layers existed.
// Lane code indexes several same-length arrays in one loop on purpose: that
// is the shape LLVM vectorises.
#![allow(clippy::needless_range_loop)]
// One module, `simd::avx2`, allows `unsafe` (to call code compiled for the
// CPU's instruction set after checking the CPU has it); nothing else may.
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod bin;
mod clip;
mod framebuffer;
pub mod material;
pub mod png_filter;
mod prepare;
mod resolve;
mod setup;
mod shade;
pub mod simd;
mod texel;
pub mod texture;
mod tile;

pub use simd::Level;

/// The environment variable that picks the raster's instruction level.
pub const SIMD_VARIABLE: &str = "KILN_SIMD";

use crate::material::{AlphaMode, Sampler};
use crate::texture::Texture;
use glam::{Affine2, Mat4, Vec2, Vec3, Vec4};

/// How the world is seen: world → camera, camera → clip space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// World → camera space.
    pub view: Mat4,
    /// Camera → clip space.
    pub proj: Mat4,
}

/// A directional light with an ambient term.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Light {
    /// Unit vector from the surface toward the light, world space.
    pub direction: Vec3,
    /// Diffuse colour (linear 0..1 per channel).
    pub color: Vec3,
    /// Ambient colour (linear 0..1 per channel), added everywhere.
    pub ambient: Vec3,
}

/// Triangles sharing one material, in world space.
#[derive(Clone, Copy)]
pub struct Batch<'a> {
    /// Vertex positions, world space.
    pub positions: &'a [Vec3],
    /// Vertex normals, world space.
    pub normals: &'a [Vec3],
    /// Texture coordinates, one per vertex.
    pub uvs: &'a [Vec2],
    /// Triangles, counter-clockwise = front.
    pub triangles: &'a [[u32; 3]],
    /// Applied to every texture coordinate (UV animation).
    pub uv_transform: Affine2,
    /// The material's texture, if any.
    pub texture: Option<&'a Texture>,
    /// How `texture` is sampled.
    pub sampler: Sampler,
    /// Straight RGBA per vertex (same indexing as positions), multiplying
    /// the texel and base colour; empty for none. A vertex past the list
    /// is white.
    pub colors: &'a [Vec4],
    /// Light the surface gives off, added after lighting.
    pub emission: Option<Emission<'a>>,
    /// Straight RGBA multiplier (or the colour when there is no texture).
    pub base_color: [f32; 4],
    /// How alpha is drawn.
    pub alpha: AlphaMode,
    /// Back faces drawn too.
    pub two_sided: bool,
    /// Drawn without lighting.
    pub unlit: bool,
    /// Ground lightmap: the lit colour is multiplied by the layer's alpha, then its rgb is added.
    pub lightmap: Option<LightmapLayer<'a>>,
}

/// What a lit batch gives off whatever the light: `color` (linear RGB),
/// times `texture` sampled at the batch's texture coordinates when there
/// is one, added to the lit colour (clamped to 1). Unlit batches and the
/// pass images ignore it.
#[derive(Clone, Copy)]
pub struct Emission<'a> {
    /// Linear RGB, 0 and up.
    pub color: [f32; 3],
    /// Multiplies `color`, with how it is sampled.
    pub texture: Option<(&'a Texture, Sampler)>,
}

/// A second, independent texture layer: straight (not premultiplied) RGBA8, row 0 = top,
/// sampled bilinearly with clamp-to-edge at `uvs` (one per vertex, same indexing as positions).
#[derive(Clone, Copy)]
pub struct LightmapLayer<'a> {
    /// Width, texels.
    pub width: u32,
    /// Height, texels.
    pub height: u32,
    /// The texels, row by row.
    pub texels: &'a [[u8; 4]],
    /// Lightmap coordinates, one per vertex.
    pub uvs: &'a [Vec2],
}

/// The image a render makes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenderOptions {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// Supersampling factor per axis (1 = none, 2 = 4 samples per pixel, …, max 4).
    pub supersample: u32,
    /// Straight RGBA background; alpha 0 gives a transparent image.
    pub background: [u8; 4],
}

/// How lit batches are shaded (unlit batches keep their colour in every
/// mode).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Shading {
    /// `min(1, ambient + colour · max(0, n·l))` over interpolated normals.
    #[default]
    Lambert,
    /// Lambert over each triangle's own face normal: faceted.
    Flat,
    /// The texture and base colour alone.
    Unlit,
    /// Lambert with `n·l` snapped to `bands` (2..=8) flat levels, plus
    /// `rim` (0..=1, 0 = none) of light where the surface turns away from
    /// the viewer.
    Cel {
        /// Light levels, 2..=8.
        bands: u32,
        /// Rim light strength, 0..=1.
        rim: f32,
    },
}

/// Data images drawn with a frame's camera instead of its colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Camera-space normals as `0.5 + 0.5·n` (x right, y up, z toward
    /// the viewer).
    Normal,
    /// Each batch's normals hold `(depth, 1, 0)` per vertex, depth in
    /// 0..=1; red and green get its 16-bit value's high and low bytes.
    Depth,
    /// Each batch's straight base colour; its texture only decides
    /// coverage.
    Id,
}

/// Largest supported target edge in samples; the supersampling factor is
/// lowered until the target fits, and the guard band in `clip` is sized so
/// fixed-point coordinates of such a target cannot overflow.
pub const MAX_SAMPLES: u32 = 16384;

/// Renders the batches into a straight-alpha RGBA image, with the best
/// instruction set this CPU has (see [`Level::detect`]).
///
/// Images wider or taller than [`MAX_SAMPLES`] pixels are not rasterized and
/// come back filled with the background.
pub fn render(
    batches: &[Batch<'_>],
    camera: &Camera,
    light: &Light,
    opts: &RenderOptions,
) -> Image {
    render_at(batches, camera, light, opts, Level::detect())
}

/// [`render`] with the hot loops run at `level` (the baseline when the CPU
/// lacks it). Every level gives the same bytes.
pub fn render_at(
    batches: &[Batch<'_>],
    camera: &Camera,
    light: &Light,
    opts: &RenderOptions,
    level: Level,
) -> Image {
    render_lit(batches, camera, &shade::Lighting::new(light), opts, level)
}

/// Images with at least this many samples have their rows of tiles drawn
/// in parallel; smaller ones are drawn by the calling thread, as one frame
/// of many in a bake is.
const PARALLEL_SAMPLES: u64 = 1 << 22;

/// As [`render`], shaded the way `shading` says.
pub fn render_shaded(
    batches: &[Batch<'_>],
    camera: &Camera,
    light: &Light,
    opts: &RenderOptions,
    shading: Shading,
) -> Image {
    let mode = match shading {
        Shading::Lambert | Shading::Flat => shade::LightMode::Lambert,
        Shading::Unlit => shade::LightMode::Unlit,
        Shading::Cel { bands, rim } => {
            // The camera's backward axis in world space: row z of the view
            // rotation.
            let v = camera.view;
            let view = Vec3::new(v.x_axis.z, v.y_axis.z, v.z_axis.z).normalize_or_zero();
            shade::LightMode::Cel {
                bands: bands.clamp(2, 8),
                rim: if rim.is_finite() {
                    rim.clamp(0.0, 1.0)
                } else {
                    0.0
                },
                view: view.to_array(),
            }
        }
    };
    let lighting = shade::Lighting::with_mode(light, mode);
    if shading == Shading::Flat {
        // Without vertex normals setup lights each triangle by its face.
        let flat: Vec<Batch> = batches
            .iter()
            .map(|b| Batch { normals: &[], ..*b })
            .collect();
        return render_lit(&flat, camera, &lighting, opts, Level::detect());
    }
    render_lit(batches, camera, &lighting, opts, Level::detect())
}

/// Renders `pass` of the batches. Depth and ID values cannot be averaged,
/// so give those `supersample: 1`.
pub fn render_pass(
    batches: &[Batch<'_>],
    camera: &Camera,
    opts: &RenderOptions,
    pass: Pass,
) -> Image {
    let mode = match pass {
        Pass::Normal => {
            let v = camera.view;
            shade::LightMode::Normal {
                rows: [
                    [v.x_axis.x, v.y_axis.x, v.z_axis.x],
                    [v.x_axis.y, v.y_axis.y, v.z_axis.y],
                    [v.x_axis.z, v.y_axis.z, v.z_axis.z],
                ],
            }
        }
        Pass::Depth => shade::LightMode::Depth,
        Pass::Id => shade::LightMode::Id,
    };
    let none = Light {
        direction: Vec3::Z,
        color: Vec3::ZERO,
        ambient: Vec3::ONE,
    };
    render_lit(
        batches,
        camera,
        &shade::Lighting::with_mode(&none, mode),
        opts,
        Level::detect(),
    )
}

fn render_lit(
    batches: &[Batch<'_>],
    camera: &Camera,
    lighting: &shade::Lighting,
    opts: &RenderOptions,
    level: Level,
) -> Image {
    let mut img = Image {
        width: opts.width,
        height: opts.height,
        pixels: vec![0; opts.width as usize * opts.height as usize * 4],
    };
    if opts.width > 0 {
        let mut rows: Vec<&mut [u8]> = img
            .pixels
            .chunks_exact_mut(opts.width as usize * 4)
            .collect();
        draw_lit(batches, camera, lighting, opts, level, &mut rows);
    }
    img
}

/// A rendered frame: straight-alpha RGBA, 8 bits a channel, rows from the
/// top, `4 × width` bytes each. The crate's own type rather than `image`'s,
/// so that it compiles without waiting for `image` (kiln wraps it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `4 × width × height` bytes.
    pub pixels: Vec<u8>,
}

/// [`render_at`] straight into `rows`, one slice per image row from the
/// top, each at least `4 × opts.width` bytes: a cell of a larger image,
/// say, drawn without a copy. The pixels are the ones [`render_at`]
/// returns; bytes past `4 × opts.width` in a row are left alone.
///
/// # Panics
///
/// When `rows` holds fewer than `opts.height` rows or one of them is
/// shorter than `4 × opts.width` bytes.
pub fn render_into(
    batches: &[Batch<'_>],
    camera: &Camera,
    light: &Light,
    opts: &RenderOptions,
    level: Level,
    rows: &mut [&mut [u8]],
) {
    let (w, h) = (opts.width as usize, opts.height as usize);
    assert!(
        rows.len() >= h && rows[..h].iter().all(|r| r.len() >= 4 * w),
        "render_into: {} rows for a {w}x{h} image",
        rows.len()
    );
    let lighting = shade::Lighting::new(light);
    draw_lit(batches, camera, &lighting, opts, level, &mut rows[..h]);
}

/// Draws every pixel of the image into `rows` (exactly `opts.height` of
/// them, each at least `4 × opts.width` bytes).
fn draw_lit(
    batches: &[Batch<'_>],
    camera: &Camera,
    lighting: &shade::Lighting,
    opts: &RenderOptions,
    level: Level,
    rows: &mut [&mut [u8]],
) {
    let (w, h) = (opts.width, opts.height);
    let bg = opts.background;
    if w == 0 || h == 0 || w > MAX_SAMPLES || h > MAX_SAMPLES {
        for row in rows.iter_mut() {
            for px in row[..w as usize * 4].chunks_exact_mut(4) {
                px.copy_from_slice(&bg);
            }
        }
        return;
    }
    let mut ss = opts.supersample.clamp(1, 4);
    while ss > 1 && (w * ss > MAX_SAMPLES || h * ss > MAX_SAMPLES) {
        ss -= 1;
    }
    let vp = setup::Viewport {
        width: w * ss,
        height: h * ss,
    };
    let materials: Vec<shade::Material> = batches.iter().map(shade::Material::new).collect();
    let (tris, layers) = simd::dispatch(
        level,
        prepare::SetUp {
            batches,
            materials: &materials,
            camera,
            vp: &vp,
        },
    );

    let tile_px = framebuffer::TILE as u32 / ss;
    let grid = bin::Grid {
        tile: (tile_px * ss) as i32,
        tiles_x: w.div_ceil(tile_px) as usize,
        tiles_y: h.div_ceil(tile_px) as usize,
        width: vp.width as i32,
        height: vp.height as i32,
    };
    let bins = bin::Bins::build(&tris, &grid);

    let a = bg[3] as f32 / 255.0;
    let bg_premul = [
        bg[0] as f32 / 255.0 * a,
        bg[1] as f32 / 255.0 * a,
        bg[2] as f32 / 255.0 * a,
        a,
    ];
    // What resolve makes of a sample left at the background, so skipped
    // tiles match drawn ones exactly.
    use simd::Simd;
    let s = simd::Portable;
    let lane = resolve::to_straight_u8_lanes(s, bg_premul.map(|v| s.splat(v)));
    let bg_row: Vec<u8> = lane[..4].repeat(tile_px as usize);
    let frame = Frame {
        tris: &tris,
        layers: &layers,
        materials: &materials,
        lighting: *lighting,
        grid: &grid,
        bins: &bins,
        ss: ss as usize,
        tile_px: tile_px as usize,
        width: w as usize,
        bg_premul,
        bg_row: &bg_row,
    };
    // Every pixel belongs to one tile and every tile to one band, so the
    // bytes do not depend on how bands are shared out.
    let samples = vp.width as u64 * vp.height as u64;
    if samples >= PARALLEL_SAMPLES && rayon::current_num_threads() > 1 {
        use rayon::prelude::*;
        rows.par_chunks_mut(tile_px as usize)
            .enumerate()
            .for_each_init(framebuffer::TileBuffer::new, |buf, (ty, band)| {
                let bands = Bands {
                    frame: &frame,
                    first: ty,
                    rows: band,
                    buf,
                };
                simd::dispatch(level, bands)
            });
    } else {
        let bands = Bands {
            frame: &frame,
            first: 0,
            rows,
            buf: &mut framebuffer::TileBuffer::new(),
        };
        simd::dispatch(level, bands);
    }
}

/// One image's set-up triangles and bins, ready to draw band by band.
struct Frame<'a> {
    tris: &'a [setup::Tri],
    /// The layer planes of layered materials' triangles ([`setup::Tri::layer`]).
    layers: &'a [setup::Layer],
    materials: &'a [shade::Material<'a>],
    lighting: shade::Lighting,
    grid: &'a bin::Grid,
    bins: &'a bin::Bins,
    ss: usize,
    /// Tile edge in output pixels.
    tile_px: usize,
    /// Image width in pixels.
    width: usize,
    bg_premul: [f32; 4],
    /// At least a tile's width of resolved background pixels.
    bg_row: &'a [u8],
}

/// Rows of tiles from `first` on, drawn into `rows` (the image rows they
/// cover): the work [`simd::dispatch`] runs at a level.
struct Bands<'a, 'f, 'r> {
    frame: &'a Frame<'f>,
    first: usize,
    rows: &'a mut [&'r mut [u8]],
    buf: &'a mut framebuffer::TileBuffer,
}

impl simd::Kernel for Bands<'_, '_, '_> {
    type Output = ();

    #[inline(always)]
    fn run<S: simd::Simd>(self, s: S) {
        let f = self.frame;
        for (k, band) in self.rows.chunks_mut(f.tile_px).enumerate() {
            f.draw_band(s, self.first + k, band, self.buf);
        }
    }
}

impl Frame<'_> {
    /// Draws the row of tiles `ty` into `band`, the image rows it covers.
    #[inline(always)]
    fn draw_band<S: simd::Simd>(
        &self,
        s: S,
        ty: usize,
        band: &mut [&mut [u8]],
        buf: &mut framebuffer::TileBuffer,
    ) {
        let th = band.len();
        let mut queue = tile::Queue::new();
        for tx in 0..self.grid.tiles_x {
            let px = tx * self.tile_px;
            let tw = self.tile_px.min(self.width - px);
            let list = self.bins.tile(ty * self.grid.tiles_x + tx);
            if list.is_empty() {
                for row in band.iter_mut() {
                    resolve::copy_pixels(&mut row[px * 4..(px + tw) * 4], self.bg_row);
                }
                continue;
            }
            let rect = self.grid.rect(tx, ty);
            buf.clear(self.bg_premul);
            for &t in list {
                let tri = &self.tris[t as usize];
                tile::draw(
                    s,
                    tri,
                    self.layers,
                    self.materials,
                    &self.lighting,
                    &rect,
                    buf,
                    &mut queue,
                );
            }
            tile::finish(s, self.materials, &self.lighting, buf, &mut queue);
            s.apart(resolve::Resolve {
                buf,
                ss: self.ss,
                target: resolve::Target {
                    rows: band,
                    x: px,
                    w: tw,
                    h: th,
                    background: self.bg_row,
                },
            });
        }
    }
}
