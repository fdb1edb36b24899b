//! kiln's Grimrock samples, written with kiln's own MDL1/ANIM writers:
//! a three-bone tentacle skinned to one mesh with a waving animation, and a
//! static asymmetric "F" sign that shows any mirroring.
//!
//! Both are authored in kiln's world (right-handed, Y up, front +Z) and
//! converted to Grimrock's left-handed axes (front +Z too) by mirroring X —
//! the inverse of what kiln's loader does — with triangle order reversed, as
//! the game wants its fronts clockwise.

use crate::formats::grimrock::{
    self as gr, Bone, Entity, Mat4x3, MeshData, MeshEntity, Segment, VertexArray,
};
use crate::scene::geometry::box_faces;
use glam::{Mat4, Quat, Vec3};

/// World → Grimrock: mirror X.
fn point(v: Vec3) -> Vec3 {
    Vec3::new(-v.x, v.y, v.z)
}

fn matrix(m: Mat4) -> Mat4x3 {
    let s = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
    Mat4x3::from_mat4(&(s * m * s))
}

/// The same rotation seen through the X mirror.
fn rotation(q: Quat) -> Quat {
    Quat::from_xyzw(q.x, -q.y, -q.z, q.w)
}

/// Mesh data from world-space triangles (counter-clockwise fronts).
struct Geometry {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<[f32; 2]>,
    triangles: Vec<[u32; 3]>,
    bones: Vec<[i32; 4]>,
    weights: Vec<[f32; 4]>,
}

fn mesh_data(g: &Geometry, material: &str) -> MeshData {
    let mut m = MeshData::new();
    m.vertex_count = g.positions.len();
    let flat3 = |v: &[Vec3]| {
        v.iter()
            .flat_map(|p| point(*p).to_array())
            .collect::<Vec<f32>>()
    };
    m.arrays[gr::POSITION] = VertexArray::from_f32(3, &flat3(&g.positions));
    m.arrays[gr::NORMAL] = VertexArray::from_f32(3, &flat3(&g.normals));
    m.arrays[gr::TEXCOORD0] =
        VertexArray::from_f32(2, &g.uvs.iter().flatten().copied().collect::<Vec<f32>>());
    if !g.bones.is_empty() {
        m.arrays[gr::BONE_INDEX] =
            VertexArray::from_i32(4, &g.bones.iter().flatten().copied().collect::<Vec<i32>>());
        m.arrays[gr::BONE_WEIGHT] = VertexArray::from_f32(
            4,
            &g.weights.iter().flatten().copied().collect::<Vec<f32>>(),
        );
    }
    // The mirror turns counter-clockwise fronts clockwise, as Grimrock wants.
    m.indices = g
        .triangles
        .iter()
        .flat_map(|&[a, b, c]| [a, c, b])
        .collect();
    m.segments = vec![Segment {
        material: material.as_bytes().to_vec(),
        primitive_type: 2,
        first_index: 0,
        triangle_count: g.triangles.len() as i32,
    }];
    let (lo, hi) = g.positions.iter().map(|p| point(*p)).fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(a, b), p| (a.min(p), b.max(p)),
    );
    m.bbox_min = lo;
    m.bbox_max = hi;
    m.bound_center = (lo + hi) * 0.5;
    m.bound_radius = (hi - lo).length() * 0.5;
    m
}

fn node(name: &str, parent: i32, local: Mat4, entity: Entity) -> gr::Node {
    gr::Node {
        name: name.as_bytes().to_vec(),
        local: matrix(local),
        parent,
        entity,
    }
}

const SEGMENT: f32 = 1.0;
const RINGS: usize = 13;
const SIDES: usize = 8;

/// The tentacle: node 0 "root", 1–3 "bone1".."bone3" (a chain 1 unit
/// apart, up +Y), 4 "tentacle" (the skinned mesh, a tapered tube).
pub fn tentacle() -> gr::Model {
    let mut g = Geometry {
        positions: vec![],
        normals: vec![],
        uvs: vec![],
        triangles: vec![],
        bones: vec![],
        weights: vec![],
    };
    for r in 0..RINGS {
        let y = r as f32 * 3.0 * SEGMENT / (RINGS - 1) as f32;
        let radius = 0.45 - 0.12 * y;
        // Weights blend linearly across each joint.
        let f = (y / SEGMENT - 0.5).clamp(0.0, 2.0);
        let (b0, t) = ((f.floor() as i32).min(1), f - f.floor().min(1.0));
        for s in 0..=SIDES {
            let a = std::f32::consts::TAU * s as f32 / SIDES as f32;
            let n = Vec3::new(a.sin(), 0.0, a.cos());
            g.positions.push(n * radius + Vec3::Y * y);
            g.normals.push(n);
            g.uvs
                .push([s as f32 / SIDES as f32, 1.0 - y / (3.0 * SEGMENT)]);
            g.bones.push([b0, b0 + 1, 0, 0]);
            g.weights.push([1.0 - t, t, 0.0, 0.0]);
        }
    }
    for r in 0..RINGS - 1 {
        for s in 0..SIDES {
            let i = (r * (SIDES + 1) + s) as u32;
            let j = i + SIDES as u32 + 1;
            g.triangles.push([i, i + 1, j + 1]);
            g.triangles.push([i, j + 1, j]);
        }
    }
    let rest: Vec<Mat4> = (0..3)
        .map(|b| Mat4::from_translation(Vec3::Y * SEGMENT * b as f32))
        .collect();
    let bones = (0..3)
        .map(|b| Bone {
            node: b + 1,
            inv_rest: matrix(rest[b as usize].inverse()),
        })
        .collect();
    let mesh = MeshEntity {
        mesh: mesh_data(&g, "kiln_tentacle"),
        bones,
        emissive: Vec3::ZERO,
        cast_shadow: 1,
    };
    gr::Model {
        nodes: vec![
            node("root", -1, Mat4::IDENTITY, Entity::None),
            node("bone1", 0, Mat4::IDENTITY, Entity::None),
            node(
                "bone2",
                1,
                Mat4::from_translation(Vec3::Y * SEGMENT),
                Entity::None,
            ),
            node(
                "bone3",
                2,
                Mat4::from_translation(Vec3::Y * SEGMENT),
                Entity::None,
            ),
            node("tentacle", 0, Mat4::IDENTITY, Entity::Mesh(mesh)),
        ],
        ..gr::Model::new()
    }
}

/// One second of waving at 30 fps: each bone swings about Z, the tip more
/// and later than the base (ANIM version 1, one key per frame).
pub fn tentacle_wave() -> gr::Animation {
    let frames = 30;
    let mut a = gr::Animation::new(1, 30.0, frames);
    for (b, (amp, lag)) in [(0.35f32, 0.0f32), (0.5, 0.6), (0.6, 1.2)]
        .iter()
        .enumerate()
    {
        let mut t = gr::Track::new(format!("bone{}", b + 1).as_bytes());
        for f in 0..frames {
            let phase = std::f32::consts::TAU * f as f32 / frames as f32 - lag;
            let q = Quat::from_rotation_z(amp * phase.sin());
            t.positions
                .push(point(Vec3::Y * if b == 0 { 0.0 } else { SEGMENT }));
            t.rotations.push(rotation(q));
            t.scales.push(Vec3::ONE);
        }
        a.tracks.push(t);
    }
    a
}

/// A flat "F" of boxes facing +Z in kiln's world (the viewer at yaw 0),
/// bars pointing +X: seen from the front it must read as an F.
pub fn sign() -> gr::Model {
    let mut g = Geometry {
        positions: vec![],
        normals: vec![],
        uvs: vec![],
        triangles: vec![],
        bones: vec![],
        weights: vec![],
    };
    let boxes = [
        (Vec3::new(-0.5, 0.0, -0.1), Vec3::new(-0.2, 2.0, 0.1)), // stem
        (Vec3::new(-0.2, 1.7, -0.1), Vec3::new(0.8, 2.0, 0.1)),  // top bar
        (Vec3::new(-0.2, 0.9, -0.1), Vec3::new(0.5, 1.2, 0.1)),  // middle bar
    ];
    for (lo, hi) in boxes {
        add_box(&mut g, lo, hi);
    }
    let mesh = MeshEntity {
        mesh: mesh_data(&g, "kiln_sign"),
        bones: vec![],
        emissive: Vec3::ZERO,
        cast_shadow: 1,
    };
    gr::Model {
        nodes: vec![node("sign", -1, Mat4::IDENTITY, Entity::Mesh(mesh))],
        ..gr::Model::new()
    }
}

fn add_box(g: &mut Geometry, a: Vec3, b: Vec3) {
    let faces = box_faces(a, b);
    for (n, quad) in faces {
        let base = g.positions.len() as u32;
        for (k, p) in quad.iter().enumerate() {
            g.positions.push(*p);
            g.normals.push(n);
            g.uvs
                .push([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]][k]);
        }
        g.triangles.push([base, base + 1, base + 2]);
        g.triangles.push([base, base + 2, base + 3]);
    }
}

/// The Lua material definitions shipped beside the models.
pub const MATERIALS_LUA: &str = r#"-- Materials of kiln's Grimrock samples (written by `cargo run --example make-samples`).
defineMaterial{
	name = "kiln_tentacle",
	diffuseMap = "mod_assets/textures/kiln_tentacle.tga",
	doubleSided = false,
	lighting = true,
	alphaTest = false,
	blendMode = "Opaque",
}

defineMaterial{
	name = "kiln_sign",
	diffuseMap = "mod_assets/textures/kiln_sign.tga",
	doubleSided = false,
	lighting = true,
	blendMode = "Opaque",
}
"#;

/// Suckers on a purple skin.
pub fn tentacle_texture() -> Vec<u8> {
    let (w, h) = (32usize, 32usize);
    let mut px = vec![[0u8; 4]; w * h];
    for y in 0..h {
        for x in 0..w {
            let dx = (x % 8) as i32 - 4;
            let dy = (y % 8) as i32 - 4;
            px[y * w + x] = if dx * dx + dy * dy < 5 {
                [230, 170, 200, 255]
            } else {
                [120, 50, 140, 255]
            };
        }
    }
    crate::formats::texture::encode_tga32(w as u32, h as u32, &px, false)
}

/// Plain painted wood with a lighter top edge, so orientation shows.
pub fn sign_texture() -> Vec<u8> {
    let (w, h) = (16usize, 16usize);
    let mut px = vec![[0u8; 4]; w * h];
    for y in 0..h {
        for x in 0..w {
            px[y * w + x] = if y < 3 {
                [240, 200, 90, 255]
            } else {
                [60, 130, 200, 255]
            };
        }
    }
    crate::formats::texture::encode_tga32(w as u32, h as u32, &px, false)
}
