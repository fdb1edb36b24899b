//! Small synthetic models of every version, built in code: kiln's own test
//! fixtures (real files of most versions are not public).

use super::*;

/// Every (major, minor) the parser and writer support.
pub const VERSIONS: [(u8, u8); 9] = [
    (1, 1),
    (1, 2),
    (1, 3),
    (1, 4),
    (1, 5),
    (1, 6),
    (1, 7),
    (2, 2),
    (2, 3),
];

/// A two-node model (a root quad and a child triangle) of the given version
/// that uses every field the version stores: textures, colours, smoothing
/// groups, rotation/scale/position keys, model position keys, volume boxes
/// and texture animations. Fields the version cannot store hold exactly the
/// values the parser gives them, so `parse(write(m)) == m`.
pub fn model(major: u8, minor: u8) -> Rsm {
    let mut rsm = Rsm::new(major, minor);
    let v2 = rsm.is_rsm2();
    let v23 = rsm.at_least(2, 3);
    let colored = rsm.at_least(1, 2);
    rsm.anim_len = if v2 { 60 } else { 2000 };
    rsm.shade_type = 2;
    if rsm.at_least(1, 4) {
        rsm.alpha = 200;
    }
    if v2 {
        rsm.fps = Some(30.0);
    } else {
        rsm.reserved[3] = 7;
    }
    if !v23 {
        rsm.textures = vec![b"tex\\a.bmp".to_vec(), b"tex\\b.tga".to_vec()];
    }
    rsm.root_names = vec![b"root".to_vec()];

    let color = |c: u32| if colored { c } else { 0xFFFF_FFFF };
    let groups = |g: &[i32]| {
        if v2 {
            g.to_vec()
        } else if colored {
            g[..1].to_vec()
        } else {
            Vec::new()
        }
    };

    let mut root = RsmNode::new(b"root", b"");
    let mut child = RsmNode::new(b"child", b"root");
    if v23 {
        root.texture_names = vec![b"tex\\a.bmp".to_vec(), b"tex\\b.tga".to_vec()];
        child.texture_names = vec![b"tex\\b.tga".to_vec()];
    } else {
        root.texture_ids = vec![0, 1];
        child.texture_ids = vec![1];
    }
    root.matrix = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -1.0, 0.0];
    root.offset = Vec3::new(0.5, -1.0, 2.0);
    child.matrix = [0.0, 1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    child.offset = Vec3::new(3.0, 0.0, -0.25);
    if !v2 {
        root.position = Vec3::new(1.0, 2.0, 3.0);
        root.rot_angle = std::f32::consts::FRAC_PI_2;
        root.rot_axis = Vec3::X;
        root.scale = Vec3::new(2.0, 2.0, 2.0);
        child.position = Vec3::new(0.0, 4.0, 0.0);
        child.rot_axis = Vec3::Y;
    }
    root.vertices = vec![
        Vec3::new(-1.0, 0.0, -1.0),
        Vec3::new(1.0, 0.0, -1.0),
        Vec3::new(1.0, 0.0, 1.0),
        Vec3::new(-1.0, 0.0, 1.0),
    ];
    root.tex_coords = vec![
        TexCoord {
            color: color(0xFF00_00FF),
            u: 0.0,
            v: 0.0,
        },
        TexCoord {
            color: color(0xFFFF_FFFF),
            u: 1.0,
            v: 0.0,
        },
        TexCoord {
            color: color(0x80FF_8000),
            u: 1.0,
            v: 1.0,
        },
        TexCoord {
            color: color(0xFF12_3456),
            u: 0.0,
            v: 1.0,
        },
    ];
    root.faces = vec![
        Face {
            vertex_ids: [0, 1, 2],
            tex_coord_ids: [0, 1, 2],
            texture_id: 0,
            padding: 0,
            two_side: 0,
            smooth_groups: groups(&[1]),
        },
        Face {
            vertex_ids: [0, 2, 3],
            tex_coord_ids: [0, 2, 3],
            texture_id: 1,
            padding: 0xBEEF,
            two_side: 1,
            smooth_groups: groups(&[2, 40, 7]),
        },
    ];
    child.vertices = vec![
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(0.0, -2.0, 0.0),
        Vec3::new(1.0, -1.0, 0.5),
    ];
    child.tex_coords = vec![
        TexCoord {
            color: color(0xFFFF_FFFF),
            u: 0.25,
            v: 0.75,
        },
        TexCoord {
            color: color(0xFF00_FF00),
            u: 0.5,
            v: 0.125,
        },
    ];
    child.faces = vec![Face {
        vertex_ids: [0, 1, 2],
        tex_coord_ids: [0, 1, 1],
        texture_id: 0,
        padding: 0,
        two_side: 0,
        smooth_groups: groups(&[3, 4]),
    }];
    let key_time = |i: i32| if v2 { i * 30 } else { i * 1000 };
    child.rot_keys = vec![
        RotKey {
            frame: 0,
            rotation: glam::Quat::IDENTITY,
        },
        RotKey {
            frame: key_time(1),
            rotation: glam::Quat::from_xyzw(0.0, 0.70710677, 0.0, 0.70710677),
        },
        RotKey {
            frame: key_time(2),
            rotation: glam::Quat::from_xyzw(0.0, 1.0, 0.0, 0.0),
        },
    ];
    if rsm.at_least(1, 6) {
        root.scale_keys = vec![
            ScaleKey {
                frame: 0,
                scale: Vec3::ONE,
                data: 0.0,
            },
            ScaleKey {
                frame: key_time(1),
                scale: Vec3::new(1.5, 0.5, 1.0),
                data: 0.25,
            },
        ];
    }
    if v2 {
        root.pos_keys = vec![
            PosKey {
                frame: 0,
                position: Vec3::new(0.5, -1.0, 2.0),
                data: 0,
            },
            PosKey {
                frame: key_time(2),
                position: Vec3::new(0.5, -3.0, 2.0),
                data: 15,
            },
        ];
    }
    if v23 {
        child.tex_anims = vec![TextureAnim {
            texture: 0,
            channels: vec![
                TexAnimChannel {
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
                },
                TexAnimChannel {
                    kind: 4,
                    keys: vec![TexAnimKey {
                        frame: 30,
                        value: 3.0,
                    }],
                },
            ],
        }];
    }
    rsm.nodes = vec![root, child];
    if !rsm.at_least(1, 6) {
        rsm.model_pos_keys = vec![PosKey {
            frame: 500,
            position: Vec3::new(0.0, 1.0, 0.0),
            data: 0.5f32.to_bits(),
        }];
    }
    rsm.volume_boxes = vec![VolumeBox {
        size: Vec3::new(4.0, 2.0, 4.0),
        position: Vec3::new(0.0, -1.0, 0.0),
        rotation: Vec3::new(0.0, 0.5, 0.0),
        flag: if rsm.at_least(1, 3) { 1 } else { 0 },
    }];
    rsm.volume_box_block = true;
    rsm
}
