//! A small skinned Grimrock model and its animation, built in code: kiln's
//! own fixtures for the parser and writer (no game data involved).

use super::*;

/// A hinged two-bone strip, one unit wide and two tall, standing on the
/// ground (y up). Nodes: `RootNode`; `bone_base` (at the origin) and its child
/// `bone_arm` (one unit up); `hinge` carrying the mesh. The bottom row of
/// vertices follows `bone_base`, the top row `bone_arm`, the middle row both
/// half and half. Two segments (`kiln_base`, `kiln_arm`) each hold both
/// windings of their half so the strip shows from either side.
pub fn model() -> Model {
    let mut m = Model::new();
    m.nodes.push(Node::new(b"RootNode", -1));
    m.nodes.push(Node::new(b"bone_base", 0));
    let mut arm = Node::new(b"bone_arm", 1);
    arm.local.translation = Vec3::Y;
    m.nodes.push(arm);
    let mut hinge = Node::new(b"hinge", 0);

    let mut mesh = MeshData::new();
    let rows = [0.0f32, 1.0, 2.0];
    let mut pos = Vec::new();
    let mut uv = Vec::new();
    for (k, y) in rows.iter().enumerate() {
        for x in [-0.5f32, 0.5] {
            pos.extend_from_slice(&[x, *y, 0.0]);
            uv.extend_from_slice(&[x + 0.5, 1.0 - k as f32 / 2.0]);
        }
    }
    mesh.vertex_count = 6;
    mesh.arrays[POSITION] = VertexArray::from_f32(3, &pos);
    mesh.arrays[NORMAL] = VertexArray::from_f32(3, &[0.0, 0.0, -1.0].repeat(6));
    mesh.arrays[COLOR] = VertexArray::from_u8(4, &[255, 255, 255, 255].repeat(6));
    mesh.arrays[TEXCOORD0] = VertexArray::from_f32(2, &uv);
    mesh.arrays[BONE_INDEX] = VertexArray::from_i32(
        4,
        &[
            0, 0, 0, 0, 0, 0, 0, 0, //
            0, 1, 0, 0, 0, 1, 0, 0, //
            1, 0, 0, 0, 1, 0, 0, 0,
        ],
    );
    mesh.arrays[BONE_WEIGHT] = VertexArray::from_f32(
        4,
        &[
            1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, //
            0.5, 0.5, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, //
            1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0,
        ],
    );
    // Vertex 2r is the left of row r, 2r+1 the right.
    for r in 0..2u32 {
        let (a, b, c, d) = (2 * r, 2 * r + 1, 2 * r + 3, 2 * r + 2);
        mesh.indices
            .extend_from_slice(&[a, d, c, a, c, b, a, b, c, a, c, d]);
    }
    mesh.segments = vec![
        Segment {
            material: b"kiln_base".to_vec(),
            primitive_type: 2,
            first_index: 0,
            triangle_count: 4,
        },
        Segment {
            material: b"kiln_arm".to_vec(),
            primitive_type: 2,
            first_index: 12,
            triangle_count: 4,
        },
    ];
    mesh.bound_center = Vec3::new(0.0, 1.0, 0.0);
    mesh.bound_radius = Vec3::new(0.5, 1.0, 0.0).length();
    mesh.bbox_min = Vec3::new(-0.5, 0.0, 0.0);
    mesh.bbox_max = Vec3::new(0.5, 2.0, 0.0);

    let mut arm_inv = Mat4x3::IDENTITY;
    arm_inv.translation = -Vec3::Y;
    hinge.entity = Entity::Mesh(MeshEntity {
        mesh,
        bones: vec![
            Bone {
                node: 1,
                inv_rest: Mat4x3::IDENTITY,
            },
            Bone {
                node: 2,
                inv_rest: arm_inv,
            },
        ],
        emissive: Vec3::ZERO,
        cast_shadow: 1,
    });
    m.nodes.push(hinge);
    m
}

/// `bend`: over 10 frames at 20 fps the arm swings 90° about Z on its hinge
/// while the base stays put. Version 1 stores a key per frame for both
/// tracks; version 2 stores the base as single constant keys.
pub fn animation(version: i32) -> Animation {
    let frames = 10;
    let mut a = Animation::new(version, 20.0, frames);
    let mut base = Track::new(b"bone_base");
    let mut arm = Track::new(b"bone_arm");
    let base_keys = if version == 1 { frames as usize } else { 1 };
    for _ in 0..base_keys {
        base.positions.push(Vec3::ZERO);
        base.rotations.push(Quat::IDENTITY);
        base.scales.push(Vec3::ONE);
    }
    for k in 0..frames {
        let t = k as f32 / (frames - 1) as f32;
        arm.positions.push(Vec3::Y);
        arm.rotations
            .push(Quat::from_rotation_z(t * std::f32::consts::FRAC_PI_2));
        arm.scales.push(Vec3::ONE);
    }
    a.tracks = vec![base, arm];
    a
}
