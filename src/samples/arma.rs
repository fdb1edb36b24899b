//! kiln's Arma sample, written with kiln's own MLOD and RTM writers: a
//! lever (a "base" block and an "arm" bone) with a swing animation as plain
//! RTM and as binarised BMTR v4, and the `model.cfg` skeleton the BMTR needs.
//!
//! Authored in kiln's world (right-handed, Y up, front +Z) and converted to
//! Arma's left-handed axes (front +Z too) by mirroring X, the inverse of what
//! kiln's loader does.

use crate::formats::arma::p3d::{Face, FaceVertex, Lod, Mlod, Point, Selection};
use crate::formats::arma::rtm::{Bmtr, BoneKey, PlainFrame, PlainRtm};
use glam::{Mat4, Quat, Vec3};

fn point(v: Vec3) -> Vec3 {
    Vec3::new(-v.x, v.y, v.z)
}

/// A world-space matrix seen in Arma's mirrored axes.
fn mirrored(m: Mat4) -> Mat4 {
    let s = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
    s * m * s
}

const PIVOT: Vec3 = Vec3::new(0.0, 1.0, 0.0);
/// Frames of the lever's swing animation (phases 0..1).
pub const FRAMES: usize = 16;

/// The arm's deformation at phase `p` in kiln's world: a swing of ±50°
/// about Z around the pivot on top of the base.
fn swing(p: f32) -> Mat4 {
    let angle = 50f32.to_radians() * (std::f32::consts::TAU * p).sin();
    Mat4::from_translation(PIVOT) * Mat4::from_rotation_z(angle) * Mat4::from_translation(-PIVOT)
}

fn add_box(lod: &mut Lod, lo: Vec3, hi: Vec3, first_point: u32) {
    let v = Vec3::new;
    let corners = [
        v(lo.x, lo.y, lo.z),
        v(hi.x, lo.y, lo.z),
        v(hi.x, hi.y, lo.z),
        v(lo.x, hi.y, lo.z),
        v(lo.x, lo.y, hi.z),
        v(hi.x, lo.y, hi.z),
        v(hi.x, hi.y, hi.z),
        v(lo.x, hi.y, hi.z),
    ];
    for c in corners {
        lod.points.push(Point {
            pos: point(c),
            flags: 0,
        });
    }
    // Counter-clockwise seen from outside in kiln's world.
    let quads: [([u32; 4], Vec3); 6] = [
        ([4, 5, 6, 7], Vec3::Z),
        ([1, 0, 3, 2], Vec3::NEG_Z),
        ([5, 1, 2, 6], Vec3::X),
        ([0, 4, 7, 3], Vec3::NEG_X),
        ([7, 6, 2, 3], Vec3::Y),
        ([0, 1, 5, 4], Vec3::NEG_Y),
    ];
    let uv = [(0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)];
    for (q, n) in quads {
        // Object Builder stores normals pointing inward, and its faces in
        // the order that, seen through the X mirror, runs the other way
        // round: kiln's counter-clockwise order is kept as it is.
        lod.normals.push(-point(n));
        let normal = (lod.normals.len() - 1) as u32;
        let order = q;
        let uvs = uv;
        let mut vertices = [FaceVertex {
            point: 0,
            normal: 0,
            u: 0.0,
            v: 0.0,
        }; 4];
        for k in 0..4 {
            vertices[k] = FaceVertex {
                point: first_point + order[k],
                normal,
                u: uvs[k].0,
                v: uvs[k].1,
            };
        }
        lod.faces.push(Face {
            sides: 4,
            vertices,
            flags: 0,
            texture: "kiln\\lever_co.paa".into(),
            material: String::new(),
        });
    }
}

/// The lever model: one visual LOD (resolution 1) with the two selections.
pub fn lever() -> Mlod {
    let mut lod = Lod {
        resolution: 1.0,
        version_major: 0x1C,
        version_minor: 0x100,
        flags: 0,
        points: Vec::new(),
        normals: Vec::new(),
        faces: Vec::new(),
        selections: Vec::new(),
        animations: Vec::new(),
        other_tags: Vec::new(),
        tag_order: Vec::new(),
    };
    add_box(
        &mut lod,
        Vec3::new(-0.4, 0.0, -0.4),
        Vec3::new(0.4, 1.0, 0.4),
        0,
    );
    add_box(
        &mut lod,
        Vec3::new(-0.1, 1.0, -0.1),
        Vec3::new(0.1, 2.4, 0.1),
        8,
    );
    let n = lod.points.len();
    let sel = |name: &str, range: std::ops::Range<usize>| Selection {
        name: name.into(),
        active: true,
        point_weights: (0..n)
            .map(|i| if range.contains(&i) { 1.0 } else { 0.0 })
            .collect(),
        face_selected: (0..12).map(|f| range.contains(&(f / 6 * 8))).collect(),
    };
    lod.selections = vec![sel("base", 0..8), sel("arm", 8..16)];
    Mlod { lods: vec![lod] }
}

fn phases() -> Vec<f32> {
    (0..FRAMES)
        .map(|i| i as f32 / (FRAMES - 1) as f32)
        .collect()
}

/// The swing as a plain RTM: absolute deformations, row-vector 4×3.
pub fn swing_plain() -> PlainRtm {
    let cols = |m: Mat4| {
        let m = mirrored(m);
        let mut a = [0f32; 12];
        for (k, c) in [m.x_axis, m.y_axis, m.z_axis, m.w_axis].iter().enumerate() {
            a[k * 3..k * 3 + 3].copy_from_slice(&c.truncate().to_array());
        }
        a
    };
    PlainRtm {
        metadata: Vec::new(),
        step: Vec3::ZERO,
        bones: vec!["base".into(), "arm".into()],
        frames: phases()
            .into_iter()
            .map(|p| PlainFrame {
                phase: p,
                transforms: vec![
                    ("base".into(), cols(Mat4::IDENTITY)),
                    ("arm".into(), cols(swing(p))),
                ],
            })
            .collect(),
    }
}

/// The same swing binarised: parent-relative keys (the arm's parent, the
/// base, never moves) stored in BMTR's flipped space.
pub fn swing_bmtr() -> Bmtr {
    let key = |m: Mat4| {
        let (_, q, t) = mirrored(m).to_scale_rotation_translation();
        BoneKey {
            rotation: Quat::from_xyzw(q.x, -q.y, q.z, q.w),
            translation: Vec3::new(-t.x, t.y, -t.z),
        }
    };
    Bmtr {
        version: 4,
        flag_byte: 0,
        step: Vec3::ZERO,
        unknown: 0,
        bones: vec!["base".into(), "arm".into()],
        metadata: Vec::new(),
        times: phases(),
        frames: phases()
            .into_iter()
            .map(|p| vec![key(Mat4::IDENTITY), key(swing(p))])
            .collect(),
        compressed_arrays: Vec::new(),
    }
}

/// The skeleton the BMTR is composed through.
pub const MODEL_CFG: &str = r#"// Skeleton of kiln's lever sample (written by `cargo run --example make-samples`).
class CfgSkeletons
{
	class Default
	{
		isDiscrete = 1;
		skeletonInherit = "";
		skeletonBones[] = {};
	};
	class KilnLeverSkeleton: Default
	{
		isDiscrete = 0;
		skeletonBones[] =
		{
			"base", "",
			"arm", "base"
		};
	};
};
"#;

/// Painted metal with a bright band near the top of the texture.
pub fn lever_texture() -> Vec<u8> {
    let (w, h) = (16usize, 16usize);
    let mut px = vec![[0u8; 4]; w * h];
    for y in 0..h {
        for x in 0..w {
            px[y * w + x] = if y < 4 {
                [230, 190, 40, 255]
            } else if (x + y) % 8 < 4 {
                [170, 60, 50, 255]
            } else {
                [150, 50, 45, 255]
            };
        }
    }
    crate::formats::texture::encode_tga32(w as u32, h as u32, &px, false)
}
