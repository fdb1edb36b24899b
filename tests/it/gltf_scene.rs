//! Animated glTF from a hand-built scene that exercises every path of the
//! writer at once: a mirroring, translated display; a rest matrix with
//! shear under animated translation and scale (two TRS nodes); a stepped
//! track; Grimrock-style nlerp with the last key wrapping to the first; an
//! RSM1-style geometry matrix that mirrors; a skin with a repeated joint,
//! a missing joint node and vertices no bone holds; a rotating, scrolling
//! texture; clips that start late, loop past the end, or hold one pose.

use crate::gltf_eval::{Gltf, Instance};
use glam::{Mat3, Mat4, Quat, Vec2, Vec3};
use kiln::internals::export::gltf::{animated_glb_bytes, glb_bytes, ClipInput, GltfReport};
use kiln::internals::scene::{
    pose, AlphaMode, Interp, Material, Mesh, Model, Node, NodeAnim, Primitive, Skin, TextureSlot,
    Track, UvAnim, UvAnimKind,
};
use kiln::internals::texture::{Texture, TextureAlpha};
use std::path::PathBuf;
use std::sync::Arc;

fn track<T: kiln::internals::scene::Interpolate>(
    times: &[f32],
    values: Vec<T>,
    interp: Interp,
) -> Track<T> {
    Track::new(times.to_vec(), values, interp)
}

fn node(name: &str, parent: Option<usize>) -> Node {
    Node::identity(name, parent)
}

fn triangle(name: &str, node: usize, material: usize) -> Mesh {
    Mesh {
        name: name.into(),
        node,
        positions: vec![
            Vec3::ZERO,
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.2),
        ],
        normals: vec![Vec3::Z; 3],
        uvs: vec![Vec2::ZERO, Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0)],
        colors: Vec::new(),
        skin: None,
        primitives: vec![Primitive {
            material,
            triangles: vec![[0, 1, 2]],
            two_sided: false,
            uv_anims: Vec::new(),
        }],
        groups: Vec::new(),
    }
}

fn fixture() -> Model {
    let mut nodes = vec![
        node("sheared", None),
        node("spin", Some(0)),
        node("nlerped", Some(1)),
        node("mirrored", Some(0)),
    ];
    // A rest matrix no single TRS node holds, under keyed translation and
    // scale.
    nodes[0].linear = Mat3::from_cols(
        Vec3::new(1.0, 0.3, 0.0),
        Vec3::new(0.0, 0.8, 0.1),
        Vec3::new(0.2, 0.0, 1.2),
    );
    nodes[0].translation = Vec3::new(0.0, 1.0, 0.0);
    nodes[0].anim.translation = Some(track(
        &[0.0, 1.0, 1.5],
        vec![
            Vec3::ZERO,
            Vec3::new(0.5, 0.0, 0.0),
            Vec3::new(0.5, 0.5, 0.0),
        ],
        Interp::Linear,
    ));
    nodes[0].anim.scale = Some(track(
        &[0.25, 1.75],
        vec![Vec3::ONE, Vec3::new(1.5, 0.5, 1.0)],
        Interp::Linear,
    ));
    // RSM2's rule: before the first key, from identity at 0; a stepped
    // translation.
    let mut spin = track(
        &[0.5, 1.0],
        vec![Quat::from_rotation_y(1.0), Quat::from_rotation_x(-0.5)],
        Interp::Linear,
    );
    spin.before_first = Some(Quat::IDENTITY);
    nodes[1].anim.rotation = Some(spin);
    nodes[1].anim.translation = Some(track(
        &[0.0, 0.7, 1.3],
        vec![Vec3::ZERO, Vec3::Y, Vec3::X],
        Interp::Step,
    ));
    // Grimrock's: nlerp the short way, big steps, the last key wrapping
    // into the first over the final stretch.
    let mut nl = track(
        &[0.0, 0.5, 1.0],
        vec![
            Quat::from_rotation_z(0.0),
            Quat::from_rotation_z(2.0),
            Quat::from_rotation_x(2.5),
        ],
        Interp::Nlerp,
    );
    nl.wrap_to_first = Some(2.0);
    nodes[2].anim.rotation = Some(nl);
    nodes[2].translation = Vec3::new(0.0, 0.5, 0.0);
    // RSM1's geometry matrix, which mirrors.
    nodes[3].geometry = Mat4::from_translation(Vec3::new(0.1, 0.2, 0.3))
        * Mat4::from_scale(Vec3::new(-1.0, 2.0, 1.0));
    nodes[3].scale = Vec3::new(1.0, 1.0, 0.5);

    let mut scroll = triangle("scroll", 0, 0);
    scroll.primitives[0].uv_anims = vec![
        UvAnim {
            kind: UvAnimKind::TranslateU,
            track: track(&[0.0, 2.0], vec![0.0, 1.0], Interp::Linear),
        },
        UvAnim {
            kind: UvAnimKind::Rotate,
            track: track(&[0.5, 1.5], vec![0.0, 1.2], Interp::Linear),
        },
        UvAnim {
            kind: UvAnimKind::ScaleV,
            track: track(&[0.0, 1.0], vec![0.0, 0.5], Interp::Linear),
        },
    ];
    let mut skinned = Mesh {
        name: "skinned".into(),
        node: 1,
        positions: (0..6)
            .map(|i| Vec3::new(i as f32 * 0.2, 0.5, 0.1))
            .collect(),
        normals: vec![Vec3::Y; 6],
        uvs: Vec::new(),
        colors: Vec::new(),
        skin: None,
        primitives: vec![Primitive {
            material: 0,
            triangles: vec![[0, 1, 2], [3, 4, 5]],
            two_sided: true,
            uv_anims: Vec::new(),
        }],
        groups: Vec::new(),
    };
    skinned.skin = Some(Skin {
        joints: vec![1, 2, 2, usize::MAX],
        inverse_bind: vec![
            Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0)),
            Mat4::from_rotation_z(0.3),
            Mat4::IDENTITY,
            Mat4::from_scale(Vec3::splat(1.1)),
        ],
        vertex_joints: vec![
            [0, 1, 0, 0],
            [1, 2, 0, 0],
            [2, 3, 0, 0],
            [0, 0, 0, 0],
            [1, 1, 0, 0],
            [3, 0, 0, 0],
        ],
        vertex_weights: vec![
            [0.5, 0.25, 0.0, 0.0],
            [0.3, 0.7, 0.0, 0.0],
            [1.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0],
            [0.2, 0.2, 0.0, 0.0],
            [f32::NAN, 0.0, 0.0, 0.0],
        ],
    });
    Model {
        extras: Default::default(),
        name: "fixture".into(),
        source: PathBuf::from("fixture"),
        nodes,
        meshes: vec![
            triangle("on sheared", 0, 1),
            triangle("on nlerped", 2, 1),
            triangle("on mirrored", 3, 1),
            scroll,
            skinned,
        ],
        materials: vec![
            Material {
                name: "textured".into(),
                texture: Some(0),
                alpha: AlphaMode::Opaque,
                unlit: false,
                emissive: [0.0; 3],
                emissive_texture: None,
                base_color: [1.0; 4],
            },
            Material {
                name: "plain".into(),
                texture: None,
                alpha: AlphaMode::Opaque,
                unlit: true,
                emissive: [0.0; 3],
                emissive_texture: None,
                base_color: [0.5, 0.6, 0.7, 1.0],
            },
        ],
        textures: vec![TextureSlot {
            name: "t".into(),
            path: None,
            sampler: kiln::internals::scene::Sampler::default(),
            image: Arc::new(Texture {
                name: "t".into(),
                width: 1,
                height: 1,
                texels: vec![[10, 20, 30, 255]],
                alpha: TextureAlpha::Opaque,
            }),
        }],
        duration: 2.0,
        frame_rate: 10.0,
        looping: true,
        travel: Vec3::ZERO,
        display: Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0))
            * Mat4::from_scale(Vec3::new(1.0, 1.0, -1.0)),
        warnings: Vec::new(),
    }
}

fn clip<'a>(name: &str, model: &'a Model, start: f32, length: f32) -> ClipInput<'a> {
    ClipInput {
        name: name.into(),
        model,
        start,
        length,
        source: None,
        root_motion: None,
    }
}

/// kiln's own instant at model time `t`, read back.
fn kiln_at(model: &Model, t: f32) -> Vec<Instance> {
    Gltf::parse(&glb_bytes(model, &pose(model, t)).unwrap()).draw(None, 0.0)
}

fn worst(a: &[Instance], b: &[Instance]) -> (f64, f64) {
    assert_eq!(a.len(), b.len());
    let (mut pos, mut uv) = (0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.name, y.name);
        for (p, q) in x.positions.iter().zip(&y.positions) {
            pos = pos.max(p.distance(*q));
        }
        for (u, v) in x.uvs.iter().zip(&y.uvs) {
            if let (Some(u), Some(v)) = (u, v) {
                for (s, t) in u.iter().zip(v) {
                    uv = uv.max(s.distance(*t));
                }
            }
        }
    }
    (pos, uv)
}

fn export(clips: &[ClipInput]) -> (Gltf, GltfReport) {
    let (bytes, report) = animated_glb_bytes(clips).unwrap();
    (Gltf::parse(&bytes), report)
}

#[test]
fn every_path_of_the_writer_matches_kiln_over_time() {
    let model = fixture();
    let clips = [
        clip("whole", &model, 0.0, 2.0),
        clip("late and looping", &model, 0.5, 4.0),
        clip("held", &model, 1.25, 0.0),
    ];
    let (glb, report) = export(&clips);
    assert_eq!(glb.animation_names(), ["whole", "late and looping", "held"]);
    for (c, n) in [("whole", 41), ("late and looping", 53), ("held", 1)] {
        let a = glb.animation(c).unwrap();
        let start = clips[a].start;
        let length = glb.animation_length(a);
        assert!(
            (length - f64::from(clips[a].length)).abs() < 1e-6,
            "{c}: {length}"
        );
        for k in 0..n {
            // Off the loop's seams, which take 0.1 ms in glTF.
            let t = if n == 1 {
                0.0
            } else {
                length * (k as f64 + 0.31) / n as f64
            };
            let (d, uv) = worst(&glb.draw(Some(a), t), &kiln_at(&model, start + t as f32));
            assert!(d < 1e-4, "{c} at {t}: {d}");
            assert!(uv < 1e-4, "{c} at {t}: uv {uv}");
        }
    }
    // At rest the file shows the first clip's start.
    let (d, _) = worst(&glb.draw(None, 0.0), &kiln_at(&model, 0.0));
    assert!(d < 1e-5);

    // Said so: nlerp and the rotating texture's offset were resampled, and
    // the looping clip's seams.
    let said = |clip: &str, what: &str| {
        report
            .notes
            .iter()
            .any(|n| n.starts_with(&format!("clip '{clip}'")) && n.contains(what))
    };
    assert!(
        said("whole", "rotations nlerped by the format"),
        "{:?}",
        report.notes
    );
    assert!(
        said("whole", "texture offsets of rotating textures"),
        "{:?}",
        report.notes
    );
    assert!(
        said("late and looping", "runs past the end of the loop"),
        "{:?}",
        report.notes
    );
    assert!(
        !report.notes.iter().any(|n| n.contains("'held'")),
        "{:?}",
        report.notes
    );
}

#[test]
fn the_node_tree_skin_and_materials_as_written() {
    let model = fixture();
    let (glb, _) = export(&[clip("whole", &model, 0.0, 2.0)]);
    let j = &glb.json;
    let nodes = j["nodes"].as_array().unwrap();
    let named = |n: &str| nodes.iter().position(|x| x["name"] == n).unwrap();
    // The root holds the display's translation; the mirror is conjugated
    // into the nodes, so no node scales negatively.
    assert_eq!(nodes[0]["name"], "fixture");
    assert_eq!(nodes[0]["translation"], serde_json::json!([1.0, 2.0, 3.0]));
    for n in nodes {
        if let Some(s) = n["scale"].as_array() {
            assert!(s.iter().all(|x| x.as_f64().unwrap() > 0.0), "{n}");
        }
    }
    // The sheared rest matrix is a head and a shape node; its keyed scale
    // sits on the shape.
    let sheared = named("sheared");
    let shape = named("sheared (shape)");
    assert_eq!(nodes[sheared]["children"][0], shape);
    let anim = &j["animations"][0];
    let targets: Vec<(u64, &str)> = anim["channels"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| Some((c["target"]["node"].as_u64()?, c["target"]["path"].as_str()?)))
        .collect();
    assert!(targets.contains(&(shape as u64, "scale")));
    assert!(targets.contains(&(sheared as u64, "translation")));
    assert!(!targets.contains(&(sheared as u64, "rotation")));
    // The skinned mesh sits at the scene's root; its four kiln joints are
    // four distinct glTF joints (the repeated one and the missing one get
    // nodes of their own), and the root joint holds the vertices no bone
    // holds.
    let roots = j["scenes"][0]["nodes"].as_array().unwrap();
    assert_eq!(roots.len(), 2);
    let skinned = &nodes[roots[1].as_u64().unwrap() as usize];
    assert_eq!(skinned["name"], "skinned");
    let joints: Vec<u64> = j["skins"][0]["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(joints.len(), 5);
    assert_eq!(joints[4], 0);
    let mut unique = joints.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 5);
    let weights = glb.accessor(
        j["meshes"][4]["primitives"][0]["attributes"]["WEIGHTS_0"]
            .as_u64()
            .unwrap() as usize,
    );
    for w in &weights {
        let sum: f64 = w.iter().sum();
        assert!((sum - 1.0).abs() < 1e-6, "{w:?}");
    }
    // The scrolling primitive has a material of its own with the
    // transform; the others share theirs.
    let mats = j["materials"].as_array().unwrap();
    assert_eq!(mats.len(), 3);
    let with_transform: Vec<&serde_json::Value> = mats
        .iter()
        .filter(|m| {
            m["pbrMetallicRoughness"]["baseColorTexture"]["extensions"]["KHR_texture_transform"]
                .is_object()
        })
        .collect();
    assert_eq!(with_transform.len(), 1);
    assert_eq!(
        j["extensionsUsed"],
        serde_json::json!([
            "KHR_materials_unlit",
            "KHR_texture_transform",
            "KHR_animation_pointer"
        ])
    );
}

#[test]
fn clips_that_do_not_share_a_node_tree_are_refused() {
    let a = fixture();
    let mut b = fixture();
    b.nodes.push(Node::identity("extra", None));
    let e = animated_glb_bytes(&[clip("a", &a, 0.0, 1.0), clip("b", &b, 0.0, 1.0)]).unwrap_err();
    assert!(
        e.to_string().contains("does not share the node tree"),
        "{e}"
    );
    assert!(animated_glb_bytes(&[]).is_err());
}

#[test]
fn a_model_that_never_moves_is_written_without_animations() {
    let mut model = fixture();
    for n in &mut model.nodes {
        n.anim = NodeAnim::default();
    }
    for m in &mut model.meshes {
        for p in &mut m.primitives {
            p.uv_anims.clear();
        }
    }
    model.duration = 0.0;
    let (glb, report) = export(&[clip("still", &model, 0.0, 1.0)]);
    assert!(glb.json.get("animations").is_none());
    assert!(report.notes.iter().any(|n| n.contains("nothing moves")));
    let (d, _) = worst(&glb.draw(None, 0.0), &kiln_at(&model, 0.0));
    assert!(d < 1e-5);
}
