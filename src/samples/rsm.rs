//! The Ragnarok samples, written with kiln's own RSM writer: an RSM2 2.3
//! windmill and an RSM 1.4 beacon, and the BMP/TGA textures they use.
//!
//! Both are authored in kiln's world and converted to each RSM generation's
//! axes by the inverse of the display transform kiln applies when loading.

use crate::formats::rsm::{
    Face, PosKey, RotKey, Rsm, RsmNode, ScaleKey, TexAnimChannel, TexAnimKey, TexCoord,
    TextureAnim, VolumeBox,
};
use crate::scene::geometry::box_faces;
use glam::{Quat, Vec3};

/// Mesh under construction: vertices, texture coordinates, faces.
#[derive(Default)]
struct MeshBuilder {
    vertices: Vec<Vec3>,
    tex_coords: Vec<TexCoord>,
    faces: Vec<Face>,
}

impl MeshBuilder {
    /// A quad `a b c d` (counter-clockwise seen from its front) with the
    /// texture's `uv` rectangle (u0, v0, u1, v1) mapped a→(u0,v1) b→(u1,v1)
    /// c→(u1,v0) d→(u0,v0), so the image reads upright from the front.
    fn quad(&mut self, p: [Vec3; 4], uv: [f32; 4], texture: u16, two_side: bool, group: i32) {
        let base = self.vertices.len() as u16;
        let tbase = self.tex_coords.len() as u16;
        self.vertices.extend_from_slice(&p);
        let [u0, v0, u1, v1] = uv;
        for (u, v) in [(u0, v1), (u1, v1), (u1, v0), (u0, v0)] {
            self.tex_coords.push(TexCoord {
                color: 0xFFFF_FFFF,
                u,
                v,
            });
        }
        for [i, j, k] in [[0u16, 1, 2], [0, 2, 3]] {
            self.faces.push(Face {
                vertex_ids: [base + i, base + j, base + k],
                tex_coord_ids: [tbase + i, tbase + j, tbase + k],
                texture_id: texture,
                padding: 0,
                two_side: two_side as i32,
                smooth_groups: vec![group],
            });
        }
    }

    /// An axis-aligned box, faces counter-clockwise seen from outside.
    fn cuboid(&mut self, min: Vec3, max: Vec3, texture: u16, first_group: i32) {
        let full = [0.0, 0.0, 1.0, 1.0];
        let sides = box_faces(min, max).map(|(_, quad)| quad);
        for (i, s) in sides.into_iter().enumerate() {
            self.quad(s, full, texture, false, first_group + i as i32);
        }
    }
}

/// The axes a Ragnarok model is stored in. Samples are authored in kiln's
/// world (right-handed, Y up, front +Z) and converted into the file's axes,
/// the inverse of the display transform kiln applies when loading: RSM2 is
/// stored mirrored in Z, RSM1 turned 180° about X (Y down).
#[derive(Clone, Copy)]
enum Space {
    Rsm1,
    Rsm2,
}

impl Space {
    fn point(self, v: Vec3) -> Vec3 {
        match self {
            Space::Rsm1 => Vec3::new(v.x, -v.y, -v.z),
            Space::Rsm2 => Vec3::new(v.x, v.y, -v.z),
        }
    }

    /// The same rotation expressed in the file's axes (conjugated by the
    /// axis change).
    fn rotation(self, q: Quat) -> Quat {
        match self {
            Space::Rsm1 => Quat::from_xyzw(q.x, -q.y, -q.z, q.w),
            Space::Rsm2 => Quat::from_xyzw(-q.x, -q.y, q.z, q.w),
        }
    }

    /// A mirror reverses which side of a triangle is its front.
    fn mirrors(self) -> bool {
        matches!(self, Space::Rsm2)
    }
}

fn node(space: Space, name: &str, parent: &str, mesh: MeshBuilder) -> RsmNode {
    let mut faces = mesh.faces;
    if space.mirrors() {
        for f in &mut faces {
            f.vertex_ids.swap(1, 2);
            f.tex_coord_ids.swap(1, 2);
        }
    }
    RsmNode {
        vertices: mesh.vertices.into_iter().map(|v| space.point(v)).collect(),
        tex_coords: mesh.tex_coords,
        faces,
        ..RsmNode::new(name.as_bytes(), parent.as_bytes())
    }
}

fn spin_keys(space: Space, axis: Vec3, steps: i32, frame_step: i32) -> Vec<RotKey> {
    (0..=steps)
        .map(|i| RotKey {
            frame: i * frame_step,
            rotation: space.rotation(Quat::from_axis_angle(
                axis,
                std::f32::consts::TAU * i as f32 / steps as f32,
            )),
        })
        .collect()
}

/// An RSM2 2.3 windmill: a tower, a hub spinning on its front (rotation
/// keys), sails that follow the hub (hierarchy), a banner whose stripes
/// scroll (texture animation) and that bobs on position keys, and a
/// weather vane that stretches through scale keys. 60 frames at 30 fps.
pub fn windmill() -> Rsm {
    let sp = Space::Rsm2;
    let mut tower = MeshBuilder::default();
    tower.cuboid(Vec3::new(-3.0, 0.0, -3.0), Vec3::new(3.0, 14.0, 3.0), 0, 1);
    tower.cuboid(
        Vec3::new(-4.0, 14.0, -4.0),
        Vec3::new(4.0, 16.0, 4.0),
        0,
        10,
    );
    let mut tower = node(sp, "tower", "", tower);
    tower.texture_names = vec![b"kiln\\wood.bmp".to_vec()];

    let hub_at = Vec3::new(0.0, 12.0, 3.0);
    let mut hub = MeshBuilder::default();
    hub.cuboid(Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, 1.0, 1.5), 0, 1);
    let mut hub = node(sp, "hub", "tower", hub);
    hub.texture_names = vec![b"KILN\\Wood.BMP".to_vec()]; // deduplicated case-insensitively
    hub.offset = sp.point(hub_at);
    hub.rot_keys = spin_keys(sp, Vec3::Z, 4, 15);

    let mut sails = MeshBuilder::default();
    for i in 0..4 {
        let r = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2 * i as f32);
        let p = |x: f32, y: f32| r * Vec3::new(x, y, 1.6);
        sails.quad(
            [p(-1.2, 1.0), p(1.2, 1.0), p(1.2, 10.0), p(-1.2, 10.0)],
            [0.0, 0.0, 1.0, 1.0],
            0,
            true,
            20,
        );
    }
    let mut sails = node(sp, "sails", "hub", sails);
    sails.texture_names = vec![b"kiln\\sail.bmp".to_vec()];
    sails.offset = hub.offset;

    let banner_at = Vec3::new(0.0, 8.0, 3.2);
    let mut banner = MeshBuilder::default();
    banner.quad(
        [
            Vec3::new(-2.5, -4.0, 0.0),
            Vec3::new(2.5, -4.0, 0.0),
            Vec3::new(2.5, 0.0, 0.0),
            Vec3::new(-2.5, 0.0, 0.0),
        ],
        [0.0, 0.0, 1.0, 1.0],
        0,
        true,
        30,
    );
    let mut banner = node(sp, "banner", "tower", banner);
    banner.texture_names = vec![b"kiln\\banner.tga".to_vec()];
    banner.offset = sp.point(banner_at);
    banner.pos_keys = [(0, 0.0), (30, -1.0), (60, 0.0)]
        .iter()
        .map(|&(frame, dy)| PosKey {
            frame,
            position: sp.point(banner_at + Vec3::new(0.0, dy, 0.0)),
            data: 0,
        })
        .collect();
    banner.tex_anims = vec![TextureAnim {
        texture: 0,
        channels: vec![TexAnimChannel {
            kind: 0,
            keys: vec![
                TexAnimKey {
                    frame: 0,
                    value: 0.0,
                },
                TexAnimKey {
                    frame: 60,
                    value: 1.0,
                },
            ],
        }],
    }];

    let mut vane = MeshBuilder::default();
    vane.cuboid(Vec3::new(-0.3, 0.0, -0.3), Vec3::new(0.3, 3.0, 0.3), 0, 40);
    vane.cuboid(Vec3::new(-0.2, 2.4, -2.0), Vec3::new(0.2, 2.8, 2.0), 0, 50);
    let mut vane = node(sp, "vane", "tower", vane);
    vane.texture_names = vec![b"kiln\\wood.bmp".to_vec()];
    vane.offset = sp.point(Vec3::new(0.0, 16.0, 0.0));
    vane.scale_keys = vec![
        ScaleKey {
            frame: 0,
            scale: Vec3::ONE,
            data: 0.0,
        },
        ScaleKey {
            frame: 30,
            scale: Vec3::new(1.0, 1.4, 1.0),
            data: 0.0,
        },
        ScaleKey {
            frame: 60,
            scale: Vec3::ONE,
            data: 0.0,
        },
    ];

    Rsm {
        anim_len: 60,
        shade_type: 1,
        fps: Some(30.0),
        root_names: vec![b"tower".to_vec()],
        nodes: vec![tower, hub, sails, banner, vane],
        ..Rsm::new(2, 3)
    }
}

/// An RSM 1.4 beacon: a stone pedestal with a gem spinning above it on
/// rotation keys (milliseconds), smooth shading by smoothing groups.
pub fn beacon() -> Rsm {
    let sp = Space::Rsm1;
    let mut base = MeshBuilder::default();
    base.cuboid(Vec3::new(-4.0, 0.0, -4.0), Vec3::new(4.0, 3.0, 4.0), 0, 1);
    base.cuboid(Vec3::new(-2.5, 3.0, -2.5), Vec3::new(2.5, 6.0, 2.5), 0, 7);
    let mut base = node(sp, "pedestal", "", base);
    base.texture_ids = vec![0];

    // An octahedron in one smoothing group, so it shades smoothly.
    let mut gem = MeshBuilder::default();
    let (r, h) = (2.0, 3.0);
    let ring = [
        Vec3::new(r, 0.0, 0.0),
        Vec3::new(0.0, 0.0, -r),
        Vec3::new(-r, 0.0, 0.0),
        Vec3::new(0.0, 0.0, r),
    ];
    let (top, bottom) = (Vec3::new(0.0, h, 0.0), Vec3::new(0.0, -h, 0.0));
    for i in 0..4 {
        let (a, b) = (ring[i], ring[(i + 1) % 4]);
        for (tri, uv) in [([a, b, top], [0.5, 0.0]), ([b, a, bottom], [0.5, 1.0])] {
            let base_v = gem.vertices.len() as u16;
            let base_t = gem.tex_coords.len() as u16;
            gem.vertices.extend_from_slice(&tri);
            for (u, v) in [(0.0, 0.5), (1.0, 0.5), (uv[0], uv[1])] {
                gem.tex_coords.push(TexCoord {
                    color: 0xFFFF_FFFF,
                    u,
                    v,
                });
            }
            gem.faces.push(Face {
                vertex_ids: [base_v, base_v + 1, base_v + 2],
                tex_coord_ids: [base_t, base_t + 1, base_t + 2],
                texture_id: 1,
                padding: 0,
                two_side: 0,
                smooth_groups: vec![100],
            });
        }
    }
    let mut gem = node(sp, "gem", "pedestal", gem);
    gem.texture_ids = vec![0, 1];
    gem.position = sp.point(Vec3::new(0.0, 10.0, 0.0));
    gem.rot_keys = spin_keys(sp, Vec3::Y, 4, 500);

    Rsm {
        anim_len: 2000,
        shade_type: 2,
        textures: vec![b"kiln\\stone.bmp".to_vec(), b"kiln\\sail.bmp".to_vec()],
        root_names: vec![b"pedestal".to_vec()],
        nodes: vec![base, gem],
        volume_boxes: vec![VolumeBox {
            size: Vec3::new(8.0, 3.0, 8.0),
            position: sp.point(Vec3::new(0.0, 1.5, 0.0)),
            rotation: Vec3::ZERO,
            flag: 0,
        }],
        ..Rsm::new(1, 4)
    }
}

/// 8-bit wood planks with an "F" burnt in (an asymmetric mark that shows
/// any mirroring).
pub fn wood_texture() -> Vec<u8> {
    let (w, h) = (32usize, 32usize);
    let palette = [[150u8, 100, 55], [120, 78, 40], [60, 35, 20], [255, 0, 255]];
    let mut idx = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            let plank = (x / 8) % 2;
            let mut c = plank as u8;
            let in_f = (8..24).contains(&y) && (10..13).contains(&x)
                || (8..11).contains(&y) && (10..22).contains(&x)
                || (14..17).contains(&y) && (10..19).contains(&x);
            if in_f {
                c = 2;
            }
            idx[y * w + x] = c;
        }
    }
    crate::formats::texture::encode_bmp8(w as u32, h as u32, &palette, &idx)
}

/// 8-bit sail cloth with magenta (colour-keyed) holes along its edge.
pub fn sail_texture() -> Vec<u8> {
    let (w, h) = (32usize, 64usize);
    let palette = [[235u8, 228, 210], [200, 60, 50], [255, 0, 255]];
    let mut idx = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            idx[y * w + x] = if (y / 8) % 4 == 0 {
                1
            } else if x >= 28 && (y / 4) % 2 == 0 {
                2
            } else {
                0
            };
        }
    }
    crate::formats::texture::encode_bmp8(w as u32, h as u32, &palette, &idx)
}

/// A translucent striped banner (32-bit TGA, real alpha → blended).
pub fn banner_texture() -> Vec<u8> {
    let (w, h) = (32usize, 32usize);
    let mut px = vec![[0u8; 4]; w * h];
    for y in 0..h {
        for x in 0..w {
            px[y * w + x] = if (x / 4) % 2 == 0 {
                [40, 90, 200, 220]
            } else {
                [250, 210, 60, 160]
            };
        }
    }
    crate::formats::texture::encode_tga32(w as u32, h as u32, &px, true)
}

/// 24-bit stone blocks.
pub fn stone_texture() -> Vec<u8> {
    let (w, h) = (32usize, 32usize);
    let mut px = vec![[0u8; 3]; w * h];
    for y in 0..h {
        for x in 0..w {
            let mortar = y % 8 == 0 || (x + if (y / 8) % 2 == 0 { 0 } else { 8 }) % 16 == 0;
            let n = ((x * 7 + y * 13) % 5) as u8 * 6;
            px[y * w + x] = if mortar {
                [90, 88, 84]
            } else {
                [150 + n, 146 + n, 140 + n]
            };
        }
    }
    crate::formats::texture::encode_bmp24(w as u32, h as u32, &px)
}
