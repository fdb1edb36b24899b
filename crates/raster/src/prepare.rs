//! Transforming, clipping and setting up one image's triangles, in draw
//! order: opaque and masked first, then blended back to front.

use super::{clip, setup, shade, simd, Batch, Camera};
use glam::{Mat4, Vec2, Vec3, Vec4};

/// A vertex's clip position, outcode and snapped screen position (the last
/// only meaningful when the outcode is 0).
type PreVertex = (Vec4, u32, (i64, i64));

/// [`PreVertex`]es of `positions`, eight at a time: the snap's f64
/// division and rounding run as lanes ([`setup::Viewport::snap_block`]) for
/// every vertex of a block, and a vertex outside a plane keeps (0, 0)
/// whatever its lane computed.
#[inline(always)]
fn pre_vertices<S: simd::Simd>(
    s: S,
    positions: &[Vec3],
    view_proj: Mat4,
    band: &clip::GuardBand,
    vp: &setup::Viewport,
) -> Vec<PreVertex> {
    let mut out = Vec::with_capacity(positions.len());
    for block in positions.chunks(simd::LANES) {
        let mut c = [Vec4::ZERO; simd::LANES];
        let (mut x, mut y, mut w) = (
            [0f32; simd::LANES],
            [0f32; simd::LANES],
            [1f32; simd::LANES],
        );
        for (k, p) in block.iter().enumerate() {
            c[k] = view_proj * p.extend(1.0);
            (x[k], y[k], w[k]) = (c[k].x, c[k].y, c[k].w);
        }
        let (fx, fy) = vp.snap_block(s, x, y, w);
        for k in 0..block.len() {
            let code = clip::outcode(c[k], band);
            let fixed = if code == 0 { (fx[k], fy[k]) } else { (0, 0) };
            out.push((c[k], code, fixed));
        }
    }
    out
}

/// Transforming, clipping and setting up one image's triangles: work
/// [`simd::dispatch`] runs at a level, so the per-triangle f64 plane
/// arithmetic vectorises as wide as the CPU allows (the same IEEE
/// operations at every level, so the same bits).
pub(super) struct SetUp<'a, 'b> {
    pub(super) batches: &'a [Batch<'b>],
    pub(super) materials: &'a [shade::Material<'b>],
    pub(super) camera: &'a Camera,
    pub(super) vp: &'a setup::Viewport,
}

/// The set-up triangles in draw order, and the layer planes of those
/// whose material is layered.
type Prepared = (Vec<setup::Tri>, Vec<setup::Layer>);

impl simd::Kernel for SetUp<'_, '_> {
    type Output = Prepared;

    #[inline(always)]
    fn run<S: simd::Simd>(self, s: S) -> Prepared {
        set_up(s, self.batches, self.materials, self.camera, self.vp)
    }
}

/// Transforms, clips and sets up every triangle in draw order.
#[inline(always)]
fn set_up<S: simd::Simd>(
    s: S,
    batches: &[Batch<'_>],
    materials: &[shade::Material],
    camera: &Camera,
    vp: &setup::Viewport,
) -> Prepared {
    let view_proj = camera.proj * camera.view;
    let band = clip::GuardBand::new(vp.width, vp.height);
    // Per vertex, once: clip position, outcode and (when inside every plane)
    // the snapped screen position, so most triangles are culled or set up
    // without touching their attributes.
    // A loop, not a closure: a closure does not take on the level's target
    // features, and the snap's intrinsics would become calls.
    let mut pre: Vec<Vec<PreVertex>> = Vec::with_capacity(batches.len());
    for b in batches {
        pre.push(pre_vertices(s, b.positions, view_proj, &band, vp));
    }
    // And once per vertex rather than once per corner (a vertex is the
    // corner of about three triangles): the texture coordinates through
    // the batch's transform, and the normals, made finite.
    let attrs: Vec<VertexAttrs> = batches.iter().map(VertexAttrs::new).collect();

    // Opaque and masked first in submission order, then blended back to
    // front; the stable sort keeps submission order among equal depths.
    let one = |bi: usize| One {
        batch: &batches[bi],
        pre: &pre[bi],
        attrs: &attrs[bi],
        material: &materials[bi],
        index: bi as u32,
        vp,
        band: &band,
    };
    let total: usize = batches.iter().map(|b| b.triangles.len()).sum();
    let mut tris = Vec::with_capacity(total);
    let mut layers = Vec::new();
    let mut blended: Vec<(f32, u32, u32)> = Vec::new();
    for (bi, b) in batches.iter().enumerate() {
        if b.alpha == crate::material::AlphaMode::Blend {
            for (ti, t) in b.triangles.iter().enumerate() {
                let Some(p) = fetch(b.positions, t) else {
                    continue;
                };
                let centroid = (p[0] + p[1] + p[2]) / 3.0;
                let z = camera.view.transform_point3(centroid).z;
                if z.is_finite() {
                    blended.push((z, bi as u32, ti as u32));
                }
            }
            continue;
        }
        let one = one(bi);
        for t in b.triangles {
            one.set_up(t, &mut tris, &mut layers);
        }
    }
    // Right-handed view space looks down -z: the farthest has the lowest z.
    blended.sort_by(|a, b| a.0.total_cmp(&b.0));
    for &(_, bi, ti) in &blended {
        let one = one(bi as usize);
        one.set_up(&one.batch.triangles[ti as usize], &mut tris, &mut layers);
    }
    (tris, layers)
}

/// One batch's share of [`set_up`].
struct One<'a, 'b> {
    batch: &'a Batch<'b>,
    /// The batch's vertices, transformed.
    pre: &'a [PreVertex],
    attrs: &'a VertexAttrs,
    material: &'a shade::Material<'b>,
    index: u32,
    vp: &'a setup::Viewport,
    band: &'a clip::GuardBand,
}

impl One<'_, '_> {
    /// Clips and sets up triangle `t` of the batch onto `tris`; nothing
    /// when an index is out of range, or it is culled or covers no sample.
    #[inline(always)]
    fn set_up(&self, t: &[u32; 3], tris: &mut Vec<setup::Tri>, layers: &mut Vec<setup::Layer>) {
        let b = self.batch;
        // `pre` has one entry per position, so this also checks the indices.
        let (Some(&p0), Some(&p1), Some(&p2)) = (
            self.pre.get(t[0] as usize),
            self.pre.get(t[1] as usize),
            self.pre.get(t[2] as usize),
        ) else {
            return;
        };
        let pv = [p0, p1, p2];
        let class = clip::classify([pv[0].1, pv[1].1, pv[2].1]);
        let fixed = [pv[0].2, pv[1].2, pv[2].2];
        match class {
            clip::Class::Reject => return,
            clip::Class::Inside if setup::culled(&fixed, b.two_sided) => return,
            _ => {}
        }
        // Without per-vertex normals the face is lit flat.
        let needs_face = t.iter().any(|&i| i as usize >= b.normals.len());
        let face_normal = if needs_face {
            let w = |k: usize| b.positions[t[k] as usize];
            (w(1) - w(0)).cross(w(2) - w(0))
        } else {
            Vec3::ZERO
        };
        // A layer the material rejected (empty, too few texels) is ignored
        // here too, so its planes are never set up.
        let layer_uvs = match (&b.lightmap, self.material.lightmap) {
            (Some(l), Some(_)) => Some(l.uvs),
            _ => None,
        };
        let layer = self.material.layered;
        let attrs = self.attrs;
        let vert = |k: usize| {
            let i = t[k] as usize;
            let lm = layer_uvs.map_or(Vec2::ZERO, |uvs| {
                finite2(uvs.get(i).copied().unwrap_or(Vec2::ZERO))
            });
            clip::ClipVertex {
                col: attrs.colors.get(i).copied().unwrap_or(Vec4::ONE),
                pos: pv[k].0,
                // `pre` has an entry per position and `attrs.uvs` as many,
                // so `i` is in range.
                uv: attrs.uvs[i],
                normal: match attrs.normals.get(i) {
                    Some(&n) => n,
                    None => finite3(face_normal),
                },
                lm,
            }
        };
        if class == clip::Class::Inside {
            let v = [vert(0), vert(1), vert(2)];
            let v = [&v[0], &v[1], &v[2]];
            if let Some((tri, l)) =
                setup::setup_snapped(fixed, v, self.vp, self.index, b.two_sided, layer)
            {
                push(tris, layers, tri, l);
            }
            return;
        }
        let poly = clip::clip_triangle([vert(0), vert(1), vert(2)], self.band);
        for k in 1..poly.len.saturating_sub(1) {
            let v = [&poly.verts[0], &poly.verts[k], &poly.verts[k + 1]];
            if let Some((tri, l)) = setup::setup(v, self.vp, self.index, b.two_sided, layer) {
                push(tris, layers, tri, l);
            }
        }
    }
}

/// Appends a set-up triangle, its layer planes (if any) to `layers` with
/// the triangle pointing at them.
#[inline(always)]
fn push(
    tris: &mut Vec<setup::Tri>,
    layers: &mut Vec<setup::Layer>,
    mut tri: setup::Tri,
    layer: Option<setup::Layer>,
) {
    if let Some(l) = layer {
        tri.layer = layers.len() as u32;
        layers.push(l);
    }
    tris.push(tri);
}

fn finite2(v: Vec2) -> Vec2 {
    if v.is_finite() {
        v
    } else {
        Vec2::ZERO
    }
}

fn finite3(v: Vec3) -> Vec3 {
    if v.is_finite() {
        v
    } else {
        Vec3::ZERO
    }
}

/// A batch's per-vertex shading attributes, as set-up hands them to the
/// clipper: texture coordinates (one per position; a position without
/// one has (0, 0)) through the batch's transform, and the normals given
/// (a vertex past them takes its triangle's face normal), non-finite
/// values zeroed, and the colours given, each channel in 0..=1 (a NaN
/// is 0).
struct VertexAttrs {
    uvs: Vec<Vec2>,
    normals: Vec<Vec3>,
    colors: Vec<Vec4>,
}

impl VertexAttrs {
    fn new(b: &Batch) -> Self {
        let uv = |i: usize| b.uvs.get(i).copied().unwrap_or(Vec2::ZERO);
        VertexAttrs {
            uvs: (0..b.positions.len())
                .map(|i| finite2(b.uv_transform.transform_point2(uv(i))))
                .collect(),
            normals: b.normals.iter().map(|&n| finite3(n)).collect(),
            colors: b
                .colors
                .iter()
                .map(|c| Vec4::from_array(c.to_array().map(unit)))
                .collect(),
        }
    }
}

/// `v` in 0..=1; NaN is 0.
fn unit(v: f32) -> f32 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(0.0, 1.0)
    }
}

/// The triangle's world positions; `None` when an index is out of range.
fn fetch(positions: &[Vec3], t: &[u32; 3]) -> Option<[Vec3; 3]> {
    Some([
        *positions.get(t[0] as usize)?,
        *positions.get(t[1] as usize)?,
        *positions.get(t[2] as usize)?,
    ])
}
