//! RSM/RSM2 lowering and posing on the real corpus.

use crate::common;

use glam::{Mat3, Mat4, Vec3};
use kiln::internals::formats::ragnarok::model_texture;
use kiln::internals::formats::rsm;
use kiln::internals::scene;
use kiln::internals::source::{Layout, Lookup, Tree};
use std::path::Path;

const GOLDBERG: &str = "ro/Tokeiburu+RSM2/Rsm2/bin/Debug/data/goldberg_s_01.rsm2";

fn max_abs_diff(a: Mat4, b: Mat4) -> f32 {
    a.to_cols_array()
        .iter()
        .zip(b.to_cols_array())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Lowers a parsed RSM as loading does, its textures looked up in the
/// model's own tree.
fn lower(parsed: &kiln::internals::formats::rsm::Rsm, path: &Path) -> scene::Model {
    let tree = Tree::of_disk_file(path, Layout::RAGNAROK_MODEL);
    kiln::internals::formats::rsm::lower::lower(parsed, path, &mut |raw| {
        model_texture(&Lookup::default(), &tree, path, raw)
    })
}

#[test]
fn goldberg_frame0_world_is_offset_times_m3() {
    let Some(path) = common::corpus(GOLDBERG) else {
        return;
    };
    let parsed = rsm::parse_file(&path).unwrap();
    let model = lower(&parsed, &path);
    assert_eq!(model.nodes.len(), 32);
    let worlds = scene::pose::node_worlds(&model, 0.0);
    let mut worst = 0.0f32;
    for node in &parsed.nodes {
        let name = kiln::internals::text::decode_cp949(&node.name);
        let i = model.nodes.iter().position(|n| n.name == name).unwrap();
        let m = &node.matrix;
        let m3 = Mat3::from_cols(
            Vec3::new(m[0], m[1], m[2]),
            Vec3::new(m[3], m[4], m[5]),
            Vec3::new(m[6], m[7], m[8]),
        );
        let expected = Mat4::from_translation(node.offset) * Mat4::from_mat3(m3);
        let d = max_abs_diff(worlds[i], expected);
        assert!(
            d <= 0.02,
            "mesh {name}: world differs from T(offset)·M3 by {d}"
        );
        worst = worst.max(d);
    }
    println!("goldberg frame 0: worst |world - T(offset)·M3| = {worst}");
}

#[test]
fn goldberg_animation_moves_meshes_at_frame_300() {
    let Some(path) = common::corpus(GOLDBERG) else {
        return;
    };
    let parsed = rsm::parse_file(&path).unwrap();
    let model = lower(&parsed, &path);
    assert!((model.frame_rate - 30.0).abs() < 1e-6);
    assert!((model.duration - parsed.anim_len as f32 / 30.0).abs() < 1e-4);
    let w0 = scene::pose::node_worlds(&model, 0.0);
    let w300 = scene::pose::node_worlds(&model, 300.0 / 30.0);
    let moved = w0
        .iter()
        .zip(&w300)
        .filter(|(a, b)| max_abs_diff(**a, **b) > 0.1)
        .count();
    assert!(
        moved >= 3,
        "only {moved} meshes moved between frame 0 and 300"
    );
    // Posing is periodic: one loop later gives the same matrices.
    let w300_loop = scene::pose::node_worlds(&model, 300.0 / 30.0 + model.duration);
    for (a, b) in w300.iter().zip(&w300_loop) {
        assert!(max_abs_diff(*a, *b) < 1e-3);
    }
}

/// Every RSM/RSM2 in the corpus loads, poses over its loop and renders
/// something visible from two directions (RagLite's fixtures: renders at all).
#[test]
fn every_corpus_model_renders() {
    let Some(root) = common::corpus("ro") else {
        return;
    };
    let mut stack = vec![root];
    let mut models = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_lowercase();
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with(".rsm")
                || name.ends_with(".rsm2")
                || name.ends_with(".rsm.bin")
            {
                models.push(p);
            }
        }
    }
    models.sort();
    assert_eq!(models.len(), 13, "{models:?}");
    let opts = kiln::internals::raster::RenderOptions {
        width: 48,
        height: 48,
        supersample: 1,
        background: [0, 0, 0, 0],
    };
    for path in &models {
        let model = common::load(path);
        for t in [0.0, model.duration * 0.5] {
            let posed = scene::pose(&model, t);
            let points: Vec<_> = kiln::internals::render::posed_points(&posed).collect();
            let framing = kiln::internals::camera::Framing::default();
            for cam in kiln::internals::camera::fit_cameras(
                &points,
                &[(30.0, 30.0), (210.0, 30.0)],
                1.0,
                &framing,
            ) {
                let light = kiln::internals::raster::Light {
                    direction: Vec3::Y,
                    color: Vec3::splat(0.6),
                    ambient: Vec3::splat(0.4),
                };
                let img =
                    kiln::internals::render::render_posed(&model, &posed, &cam, &light, &opts);
                let covered = img.pixels().filter(|p| p[3] > 0).count();
                // RagLite's synthetic fixtures test layouts; their faces are
                // degenerate or index past their vertices, so they only need
                // to render without failing.
                if !path.to_string_lossy().contains("RagLite") {
                    assert!(
                        covered > 20,
                        "{}: only {covered} pixels drawn",
                        path.display()
                    );
                }
            }
        }
    }
}

/// RSM1's node chain: children inherit `T(pos)·R·S` but never the parent's
/// own `T(offset)·M3`; rotation keys are milliseconds and slerped.
#[test]
fn rsm1_chain_offsets_and_millisecond_keys() {
    use kiln::internals::formats::rsm::{Face, RotKey, Rsm, RsmNode, TexCoord};
    let tri = |n: &mut RsmNode| {
        n.vertices = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
        n.tex_coords = vec![TexCoord {
            color: 0xFFFF_FFFF,
            u: 0.0,
            v: 0.0,
        }];
        n.faces = vec![Face {
            vertex_ids: [0, 1, 2],
            tex_coord_ids: [0, 0, 0],
            texture_id: 0,
            padding: 0,
            two_side: 0,
            smooth_groups: vec![0],
        }];
    };
    let mut p = RsmNode::new(b"parent", b"");
    tri(&mut p);
    p.position = Vec3::new(1.0, 0.0, 0.0);
    p.rot_angle = std::f32::consts::FRAC_PI_2;
    p.rot_axis = Vec3::Y;
    p.scale = Vec3::splat(2.0);
    p.offset = Vec3::new(0.0, 5.0, 0.0);
    p.matrix = [3.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 3.0];
    let mut c = RsmNode::new(b"child", b"parent");
    tri(&mut c);
    c.position = Vec3::new(0.0, 0.0, 1.0);
    c.rot_keys = vec![
        RotKey {
            frame: 0,
            rotation: glam::Quat::IDENTITY,
        },
        RotKey {
            frame: 1000,
            rotation: glam::Quat::from_rotation_z(1.0),
        },
    ];
    let rsm = Rsm {
        anim_len: 1000,
        shade_type: 1,
        nodes: vec![p, c],
        ..Rsm::new(1, 4)
    };
    let bytes = rsm::write(&rsm);
    let parsed = rsm::parse(&bytes, Path::new("chain.rsm")).unwrap();
    let model = lower(&parsed, Path::new("chain.rsm"));
    assert!((model.duration - 1.0).abs() < 1e-6, "animLen 1000 ms = 1 s");

    let chain_p = Mat4::from_translation(Vec3::X)
        * Mat4::from_rotation_y(std::f32::consts::FRAC_PI_2)
        * Mat4::from_scale(Vec3::splat(2.0));
    let at = |t: f32| scene::pose::node_worlds(&model, t);
    let w = at(0.5);
    assert!(max_abs_diff(w[0], chain_p) < 1e-5);
    let expected_child = chain_p * Mat4::from_translation(Vec3::Z) * Mat4::from_rotation_z(0.5);
    assert!(
        max_abs_diff(w[1], expected_child) < 1e-5,
        "child world {:?}",
        w[1]
    );
    // Geometry: the parent's mesh gets T(offset)·M3, the child's does not.
    let geo_p = scene::pose::mesh_matrix(&model, &w, &model.meshes[0]);
    let geo_c = scene::pose::mesh_matrix(&model, &w, &model.meshes[1]);
    let expected_p = model.display
        * chain_p
        * Mat4::from_translation(Vec3::new(0.0, 5.0, 0.0))
        * Mat4::from_scale(Vec3::splat(3.0));
    assert!(max_abs_diff(geo_p, expected_p) < 1e-4);
    assert!(max_abs_diff(geo_c, model.display * expected_child) < 1e-4);
    // The loop wraps on animLen.
    assert!(max_abs_diff(at(1.25)[1], at(0.25)[1]) < 1e-5);
}

/// RSM2 key-edge rules: before the first key, interpolate from the default
/// (identity rotation) at frame 0; after the last key, hold it.
#[test]
fn rsm2_keys_interpolate_from_default_and_hold() {
    use kiln::internals::formats::rsm::{RotKey, Rsm, RsmNode};
    let mut n = RsmNode::new(b"root", b"");
    n.rot_keys = vec![
        RotKey {
            frame: 10,
            rotation: glam::Quat::from_rotation_y(1.0),
        },
        RotKey {
            frame: 20,
            rotation: glam::Quat::from_rotation_y(2.0),
        },
    ];
    let rsm = Rsm {
        anim_len: 40,
        fps: Some(10.0),
        nodes: vec![n],
        ..Rsm::new(2, 3)
    };
    let parsed = rsm::parse(&rsm::write(&rsm), Path::new("k.rsm2")).unwrap();
    let model = lower(&parsed, Path::new("k.rsm2"));
    assert!((model.duration - 4.0).abs() < 1e-6, "40 frames at 10 fps");
    let angle = |t: f32| {
        let w = scene::pose::node_worlds(&model, t)[0];
        let x = w.transform_vector3(Vec3::X);
        (-x.z).atan2(x.x)
    };
    assert!(angle(0.0).abs() < 1e-5);
    assert!(
        (angle(0.5) - 0.5).abs() < 1e-4,
        "half-way to the first key (frame 5)"
    );
    assert!((angle(1.5) - 1.5).abs() < 1e-4);
    assert!((angle(3.0) - 2.0).abs() < 1e-4, "held after the last key");
}

/// A frame posed exactly like the one before it shares that one's vertices
/// (a still model's frames hold one copy), and the cameras are fitted to
/// each run of them once; frames that move keep their own.
#[test]
fn repeated_poses_share_their_vertices_and_count_once_for_framing() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/model/kiln/windmill.rsm2");
    let parsed = rsm::parse_file(&path).unwrap();
    let model = lower(&parsed, &path);
    let times = [0.0, 0.0, 0.4, 0.4, 0.4, 0.8];
    let posed = kiln::internals::render::pose_frames(&model, &times);
    for (k, &t) in times.iter().enumerate() {
        let fresh = scene::pose::pose(&model, t);
        assert!(scene::pose::same_pose(&posed[k], &fresh), "frame {k}");
    }
    let shares = |a: usize, b: usize| {
        posed[a].meshes.iter().zip(&posed[b].meshes).all(|(m, n)| {
            std::sync::Arc::ptr_eq(&m.positions, &n.positions)
                && std::sync::Arc::ptr_eq(&m.normals, &n.normals)
        })
    };
    assert!(shares(0, 1) && shares(2, 3) && shares(3, 4));
    // The windmill turns: poses at other times are their own.
    assert!(!scene::pose::same_pose(&posed[1], &posed[2]));
    assert!(!shares(1, 2) && !shares(4, 5));
    let per_pose: usize = posed[0].meshes.iter().map(|m| m.positions.len()).sum();
    assert_eq!(
        kiln::internals::render::fit_points(&[&posed]).len(),
        3 * per_pose
    );

    // Stopped, the windmill poses alike at every time: one pose, shared
    // by all of them, to the bit the one each time would make on its own.
    let mut still = model.clone();
    for node in &mut still.nodes {
        node.anim = Default::default();
    }
    for mesh in &mut still.meshes {
        for prim in &mut mesh.primitives {
            prim.uv_anims.clear();
        }
    }
    let times = [0.0, 0.3, 0.7, 1.9];
    let posed = kiln::internals::render::pose_frames(&still, &times);
    assert_eq!(posed.len(), times.len());
    for (k, &t) in times.iter().enumerate() {
        assert!(
            scene::pose::same_pose(&posed[k], &scene::pose::pose(&still, t)),
            "still frame {k}"
        );
    }
    assert!(
        (1..times.len()).all(
            |k| posed[k].meshes.iter().zip(&posed[0].meshes).all(|(m, n)| {
                std::sync::Arc::ptr_eq(&m.positions, &n.positions)
                    && std::sync::Arc::ptr_eq(&m.normals, &n.normals)
            })
        )
    );
    // The turning model's poses at those times all differ.
    let turning = kiln::internals::render::pose_frames(&model, &times);
    assert!((1..times.len()).all(|k| !scene::pose::same_pose(&turning[k - 1], &turning[k])));
}
