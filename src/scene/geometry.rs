//! Small geometry shared by generated meshes: the map's placeholder box and
//! kiln's sample models.

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
