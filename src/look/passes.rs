//! Extra passes: the same frames drawn as data instead of colour — a
//! sprite normal map, a depth map and an ID mask — written as sheets with
//! exactly the colour sheet's layout and metadata (the same cameras, the
//! same atlas).
//!
//! - Normal: camera-space normals, `rgb = 0.5 + 0.5·n`, x right (red), y up
//!   (green), z toward the viewer (blue): the convention Godot's
//!   CanvasTexture and Unity's 2D lights read (both Y up; an engine that
//!   wants Y down inverts green). Anti-aliased like the colour frames.
//! - Depth: distance from the camera along its axis, normalised over the
//!   whole job (every clip, frame and direction) so 1 (white) is the nearest
//!   point the job ever shows and 0 the farthest; 16-bit grey PNG, or 8-bit.
//! - ID: one flat colour per material or per node ([`id_color`]), with a
//!   legend naming each.
//!
//! Depth and ID values cannot be averaged, so those two are drawn with one
//! sample a pixel; translucent surfaces count in them where at least half
//! opaque.

use crate::raster::{self, Batch, Camera, Pass, RenderOptions};
use crate::render::ClipPlan;
use crate::scene::{AlphaMode, Model, PosedModel};
use glam::Vec3;
use image::RgbaImage;

/// Which passes a job writes; the default writes none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Passes {
    /// The sprite normal map.
    pub normal: bool,
    /// The depth map and its bits (8 or 16).
    pub depth: Option<DepthBits>,
    /// The ID mask, by material or by node.
    pub id: Option<IdBy>,
}

/// Bits a depth sample keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepthBits {
    /// 8-bit grey with alpha.
    Eight,
    /// 16-bit grey with alpha.
    Sixteen,
}

/// What an ID colour stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdBy {
    /// One colour per material.
    Material,
    /// One colour per node (a mesh's part of the model's tree).
    Node,
}

/// One kind of pass, with what it needs to draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PassKind {
    /// Camera-space normals as colours.
    Normal,
    /// `near`/`far`: the job's depth range along the camera axis.
    Depth {
        /// Nearest depth, along the camera axis.
        near: f32,
        /// Farthest depth, along the camera axis.
        far: f32,
    },
    /// One flat colour per material or node.
    Id(IdBy),
}

impl Passes {
    /// Whether any pass is on.
    pub fn any(&self) -> bool {
        self.normal || self.depth.is_some() || self.id.is_some()
    }
}

/// The colour standing for ID `index`: hues a golden angle apart, so
/// neighbouring indices differ clearly and colours repeat only after
/// hundreds of IDs; exact in 8 bits.
pub fn id_color(index: usize) -> [u8; 3] {
    let h = (index as f64 * 0.618_033_988_749_895).fract() * 6.0;
    let (s, v) = (0.75, if index.is_multiple_of(2) { 0.95 } else { 0.7 });
    let c = v * s;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r, g, b].map(|t| ((t + m) * 255.0).round() as u8)
}

/// Nearest and farthest distance along each camera's axis over every posed
/// frame of every set.
pub fn depth_range(posed: &[&[PosedModel]], cameras: &[Camera]) -> (f32, f32) {
    let mut near = f32::INFINITY;
    let mut far = f32::NEG_INFINITY;
    for cam in cameras {
        for p in posed.iter().flat_map(|s| s.iter()) {
            for v in crate::render::posed_points(p) {
                let d = -cam.view.transform_point3(v).z;
                if d.is_finite() {
                    near = near.min(d);
                    far = far.max(d);
                }
            }
        }
    }
    if near.is_finite() && far.is_finite() {
        (near, far)
    } else {
        (0.0, 1.0)
    }
}

/// Renders `kind` of `posed` from every camera: `[direction][frame]`, on
/// a transparent background.
pub fn render_frames(
    model: &Model,
    posed: &[PosedModel],
    cameras: &[Camera],
    plan: &ClipPlan,
    kind: PassKind,
) -> Vec<Vec<RgbaImage>> {
    let opts = pass_options(plan, kind);
    crate::render::every_view(cameras.len(), posed.len(), |d, f| {
        render_one(model, &posed[f], &cameras[d], &opts, kind)
    })
}

/// The raster options of `plan`'s frames in pass `kind`: transparent, and
/// one sample a pixel except for normals (depth and IDs cannot be
/// averaged).
pub fn pass_options(plan: &ClipPlan, kind: PassKind) -> RenderOptions {
    let v = &plan.view;
    RenderOptions {
        width: v.width,
        height: v.height,
        supersample: if kind == PassKind::Normal {
            v.antialias
        } else {
            1
        },
        background: [0, 0, 0, 0],
    }
}

/// One pass image of one frame.
pub fn render_one(
    model: &Model,
    posed: &PosedModel,
    camera: &Camera,
    opts: &RenderOptions,
    kind: PassKind,
) -> RgbaImage {
    match kind {
        PassKind::Normal => raster::render_pass(
            &crate::render::batches(model, posed),
            camera,
            opts,
            Pass::Normal,
        ),
        PassKind::Depth { near, far } => {
            let span = (far - near).max(1e-6);
            let carried: Vec<Vec<Vec3>> = posed
                .meshes
                .iter()
                .map(|m| {
                    m.positions
                        .iter()
                        .map(|&p| {
                            let d = -camera.view.transform_point3(p).z;
                            Vec3::new(1.0 - ((d - near) / span).clamp(0.0, 1.0), 1.0, 0.0)
                        })
                        .collect()
                })
                .collect();
            let batches: Vec<Batch> = posed
                .primitives
                .iter()
                .filter_map(|p| {
                    let pm = posed.meshes.get(p.mesh)?;
                    let n = carried.get(p.mesh)?;
                    let b =
                        crate::render::primitive_batch(model, p, &pm.positions, n, &p.triangles)?;
                    Some(solid(b))
                })
                .collect();
            raster::render_pass(&batches, camera, opts, Pass::Depth)
        }
        PassKind::Id(by) => {
            let batches: Vec<Batch> = posed
                .primitives
                .iter()
                .filter_map(|p| {
                    let pm = posed.meshes.get(p.mesh)?;
                    let b = crate::render::primitive_batch(
                        model,
                        p,
                        &pm.positions,
                        &pm.normals,
                        &p.triangles,
                    )?;
                    let index = match by {
                        IdBy::Material => p.material,
                        IdBy::Node => model.meshes.get(p.mesh)?.node,
                    };
                    let c = id_color(index).map(|v| v as f32 / 255.0);
                    Some(Batch {
                        base_color: [c[0], c[1], c[2], b.base_color[3]],
                        ..solid(b)
                    })
                })
                .collect();
            raster::render_pass(&batches, camera, opts, Pass::Id)
        }
    }
}

/// A batch for a pass that cannot blend: translucent surfaces count where
/// at least half opaque.
fn solid(b: Batch) -> Batch {
    Batch {
        alpha: match b.alpha {
            AlphaMode::Blend => AlphaMode::Mask(0.5),
            other => other,
        },
        ..b
    }
}

/// The names behind the ID colours of `model`, in index order.
pub fn id_names(model: &Model, by: IdBy) -> Vec<String> {
    match by {
        IdBy::Material => model.materials.iter().map(|m| m.name.clone()).collect(),
        IdBy::Node => model.nodes.iter().map(|n| n.name.clone()).collect(),
    }
}

/// The ID legend as JSON: `{"by": "material", "ids": [{"index", "name",
/// "color"}]}`.
pub fn id_legend(model: &Model, by: IdBy) -> String {
    let ids: Vec<serde_json::Value> = id_names(model, by)
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let [r, g, b] = id_color(i);
            serde_json::json!({
                "index": i,
                "name": name,
                "color": format!("#{r:02x}{g:02x}{b:02x}"),
            })
        })
        .collect();
    let by = match by {
        IdBy::Material => "material",
        IdBy::Node => "node",
    };
    let v = serde_json::json!({ "by": by, "ids": ids });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

/// A composed depth sheet (16-bit value in red and green) as a grey PNG
/// with alpha, 16 or 8 bits a channel.
pub fn encode_depth_png(img: &RgbaImage, bits: DepthBits) -> crate::Result<Vec<u8>> {
    let (w, h) = img.dimensions();
    let mut out = Vec::new();
    let err = |e: image::ImageError| crate::Error::Other(format!("depth PNG: {e}"));
    match bits {
        DepthBits::Sixteen => {
            let mut buf: image::ImageBuffer<image::LumaA<u16>, Vec<u16>> =
                image::ImageBuffer::new(w, h);
            for (o, p) in buf.pixels_mut().zip(img.pixels()) {
                let v = (p[0] as u16) << 8 | p[1] as u16;
                o.0 = if p[3] == 0 { [0, 0] } else { [v, u16::MAX] };
            }
            image::DynamicImage::ImageLumaA16(buf)
                .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
                .map_err(err)?;
        }
        DepthBits::Eight => {
            let mut buf: image::ImageBuffer<image::LumaA<u8>, Vec<u8>> =
                image::ImageBuffer::new(w, h);
            for (o, p) in buf.pixels_mut().zip(img.pixels()) {
                // The high byte, rounded by the low one.
                let v = ((((p[0] as u32) << 8 | p[1] as u32) + 128) / 257).min(255) as u8;
                o.0 = if p[3] == 0 { [0, 0] } else { [v, 255] };
            }
            image::DynamicImage::ImageLumaA8(buf)
                .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
                .map_err(err)?;
        }
    }
    Ok(out)
}
