//! kiln's shipped sample models: the committed files are exactly what the
//! generator writes, they load, animate as designed, and render as their
//! reviewed golden images.

use crate::common;

use glam::Vec3;
use kiln::internals::camera::{Framing, LightSpace, LightSpec, Projection};
use kiln::internals::render::ViewSpec;
use kiln::internals::render::{render_clip, ClipPlan};
use kiln::internals::scene;
use std::path::{Path, PathBuf};

fn samples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples")
}

fn load(rel: &str) -> scene::Model {
    let path = samples_dir().join(rel);
    common::load(&path)
}

const WINDMILL: &str = "data/model/kiln/windmill.rsm2";
const BEACON: &str = "data/model/kiln/beacon.rsm";

#[test]
fn committed_samples_equal_the_generator_output() {
    for f in kiln::internals::samples::all() {
        let on_disk = std::fs::read(samples_dir().join(f.path))
            .unwrap_or_else(|e| panic!("{}: {e} (run cargo run --example make-samples)", f.path));
        assert!(
            on_disk == f.bytes,
            "{} differs from the generator (run cargo run --example make-samples)",
            f.path
        );
    }
}

#[test]
fn samples_load_with_all_textures_and_no_warnings() {
    let w = load(WINDMILL);
    assert_eq!(w.warnings, Vec::<String>::new());
    assert_eq!(w.nodes.len(), 5);
    // "kiln\wood.bmp" and "KILN\Wood.BMP" are one texture.
    assert_eq!(w.textures.len(), 3);
    assert!(w.textures.iter().all(|t| t.path.is_some()));
    assert!((w.duration - 2.0).abs() < 1e-6);
    assert_eq!(w.frame_rate, 30.0);

    let b = load(BEACON);
    assert_eq!(b.warnings, Vec::<String>::new());
    assert_eq!(b.nodes.len(), 2);
    assert!(
        (b.duration - 2.0).abs() < 1e-6,
        "RSM1 animLen 2000 ms = 2 s"
    );
}

#[test]
fn windmill_hierarchy_and_keys_animate() {
    let m = load(WINDMILL);
    let idx = |n: &str| m.nodes.iter().position(|x| x.name == n).unwrap();
    let (hub, sails, banner, vane) = (idx("hub"), idx("sails"), idx("banner"), idx("vane"));
    assert_eq!(m.nodes[sails].parent, Some(hub));
    // A quarter of the loop turns the hub (and the sails with it) by 90°.
    // Node world matrices as drawn (the display matrix applied).
    let worlds = |t: f32| -> Vec<glam::Mat4> {
        scene::pose::node_worlds(&m, t)
            .into_iter()
            .map(|w| m.display * w)
            .collect()
    };
    let w0 = worlds(0.0);
    let wq = worlds(0.5);
    let x0 = w0[sails].transform_vector3(Vec3::X);
    let xq = wq[sails].transform_vector3(Vec3::X);
    assert!(x0.dot(xq).abs() < 1e-4, "sails turned 90°: {x0} → {xq}");
    assert!(
        (w0[hub].w_axis - wq[hub].w_axis).length() < 1e-4,
        "the hub turns in place"
    );
    // Position keys: the banner is 1 unit lower at mid-loop.
    let wh = worlds(1.0);
    let dy = wh[banner].w_axis.y - w0[banner].w_axis.y;
    assert!((dy + 1.0).abs() < 1e-4, "banner moved by {dy}");
    // Scale keys: the vane is 1.4× taller at mid-loop.
    let sy = wh[vane].transform_vector3(Vec3::Y).length();
    assert!((sy - 1.4).abs() < 1e-4, "vane scale {sy}");
    // Texture animation: the banner's stripes scroll by half the texture at mid-loop.
    let posed = scene::pose(&m, 1.0);
    let prim = posed
        .primitives
        .iter()
        .find(|p| posed.meshes.len() > p.mesh && m.meshes[p.mesh].node == banner)
        .unwrap();
    let shift = prim.uv_transform.transform_point2(glam::Vec2::ZERO);
    assert!(
        (shift.x - 0.5).abs() < 1e-5 && shift.y.abs() < 1e-6,
        "uv shift {shift}"
    );
}

#[test]
fn samples_stand_on_the_ground_centred() {
    for rel in [WINDMILL, BEACON] {
        let m = load(rel);
        let posed = scene::pose(&m, 0.0);
        let pts: Vec<Vec3> = kiln::internals::render::posed_points(&posed).collect();
        let min_y = pts.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
        assert!(min_y.abs() < 1e-4, "{rel}: lowest point at y = {min_y}");
    }
}

fn plan(times: Vec<f32>, yaws: &[f32], size: u32) -> ClipPlan {
    ClipPlan {
        times,
        yaws: yaws.to_vec(),
        view: ViewSpec {
            pitch: 30.0,
            width: size,
            height: size,
            framing: Framing {
                projection: Projection::Orthographic,
                padding: 0.06,
                zoom: 1.0,
                pixels_per_unit: None,
            },
            light: LightSpec {
                direction: kiln::internals::camera::yaw_pitch_vector(-35.0, 40.0),
                space: LightSpace::Camera,
                color: Vec3::splat(0.65),
                ambient: Vec3::splat(0.45),
            },
            antialias: 2,
            background: [0, 0, 0, 0],
        },
    }
}

/// Golden images: reviewed by eye when blessed (KILN_BLESS=1).
#[test]
fn windmill_golden_frames() {
    let m = load(WINDMILL);
    let clip = render_clip(&m, &plan(vec![0.0, 0.25], &[0.0, 90.0, 225.0], 96), &|| {});
    for (d, yaw) in [0, 90, 225].iter().enumerate() {
        for (f, frame) in ["f0", "f7"].iter().enumerate() {
            common::assert_golden(
                &format!("samples/windmill_y{yaw}_{frame}"),
                &clip.images[d][f],
            );
        }
    }
}

#[test]
fn beacon_golden_frames() {
    let m = load(BEACON);
    let clip = render_clip(&m, &plan(vec![0.0, 0.25], &[0.0, 135.0], 96), &|| {});
    for (d, yaw) in [0, 135].iter().enumerate() {
        for (f, frame) in ["f0", "f7"].iter().enumerate() {
            common::assert_golden(
                &format!("samples/beacon_y{yaw}_{frame}"),
                &clip.images[d][f],
            );
        }
    }
}

#[test]
fn framing_is_the_same_for_every_frame_and_direction() {
    // The model's origin (the pivot) sits at the same pixel in every frame:
    // rendering a lone frame of a clip gives a different framing than the
    // clip, but inside a clip all images share one camera scale.
    let m = load(WINDMILL);
    let p = plan(vec![0.0, 0.5, 1.0, 1.5], &[0.0, 45.0, 90.0], 64);
    let clip = render_clip(&m, &p, &|| {});
    assert!(
        clip.pivot[0] > 0.4 && clip.pivot[0] < 0.6,
        "pivot {:?}",
        clip.pivot
    );
    // The tower's base (lowest opaque row) stays put from frame to frame in
    // each direction, though the sails and banner move above it.
    let base_row = |img: &image::RgbaImage| {
        (0..img.height())
            .rev()
            .find(|&y| (0..img.width()).any(|x| img.get_pixel(x, y)[3] > 128))
    };
    for (d, row) in clip.images.iter().enumerate() {
        let rows: Vec<_> = row.iter().map(base_row).collect();
        assert!(
            rows.iter().all(|r| r.is_some() && *r == rows[0]),
            "direction {d}: base rows {rows:?}"
        );
        assert_ne!(
            row[0], row[1],
            "direction {d}: the animation changes the image"
        );
    }
}
