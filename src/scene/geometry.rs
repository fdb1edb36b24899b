//! Small geometry shared by generated meshes and the map: the map's
//! placeholder box and kiln's sample models, and the height over a ground
//! tile that the map's ground and the sample map both follow.

use glam::Vec3;

/// The six faces of the box `a..b` as (outward normal, quad), in the order
/// +Z, −Z, +X, −X, +Y, −Y, each quad counter-clockwise seen from outside.
pub(crate) fn box_faces(a: Vec3, b: Vec3) -> [(Vec3, [Vec3; 4]); 6] {
    let v = Vec3::new;
    [
        (
            Vec3::Z,
            [
                v(a.x, a.y, b.z),
                v(b.x, a.y, b.z),
                v(b.x, b.y, b.z),
                v(a.x, b.y, b.z),
            ],
        ),
        (
            Vec3::NEG_Z,
            [
                v(b.x, a.y, a.z),
                v(a.x, a.y, a.z),
                v(a.x, b.y, a.z),
                v(b.x, b.y, a.z),
            ],
        ),
        (
            Vec3::X,
            [
                v(b.x, a.y, b.z),
                v(b.x, a.y, a.z),
                v(b.x, b.y, a.z),
                v(b.x, b.y, b.z),
            ],
        ),
        (
            Vec3::NEG_X,
            [
                v(a.x, a.y, a.z),
                v(a.x, a.y, b.z),
                v(a.x, b.y, b.z),
                v(a.x, b.y, a.z),
            ],
        ),
        (
            Vec3::Y,
            [
                v(a.x, b.y, b.z),
                v(b.x, b.y, b.z),
                v(b.x, b.y, a.z),
                v(a.x, b.y, a.z),
            ],
        ),
        (
            Vec3::NEG_Y,
            [
                v(a.x, a.y, a.z),
                v(b.x, a.y, a.z),
                v(b.x, a.y, b.z),
                v(a.x, a.y, b.z),
            ],
        ),
    ]
}

/// Height over a tile top whose corners (h0 bottom-left, h1 bottom-right,
/// h2 top-left, h3 top-right) have heights `c`, at fractions `fx`, `fy` of
/// the tile: on triangles (h0, h1, h3) and (h0, h3, h2), split on the h0–h3
/// diagonal as the map's ground draws it.
pub(crate) fn top_height(c: [f32; 4], fx: f32, fy: f32) -> f32 {
    if fx >= fy {
        c[0] + fx * (c[1] - c[0]) + fy * (c[3] - c[1])
    } else {
        c[0] + fy * (c[2] - c[0]) + fx * (c[3] - c[2])
    }
}
