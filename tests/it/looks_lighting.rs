//! Looks that change how a model is lit and what is drawn beside it: cel,
//! rim, flat and unlit shading on a sphere, the ground shadow, the normal, depth
//! and ID passes with the colour sheet's layout, inner outline lines at depth
//! jumps, the look flags of `kiln render`, and PNG compression.

use crate::common::{self, tempdir};
use crate::looks::{colours, outline, sample, view, windmill};
use image::RgbaImage;
use kiln::internals::look::{Look, Outline, OutlineSide};
use kiln::{BakeOptions, Model, ModelSpec, NoProgress, ViewSpec};
use std::collections::BTreeSet;
use std::path::Path;

/// A UV sphere of radius 1 at the origin with its own normals: `rings`
/// bands from pole to pole, `segments` around.
struct Sphere {
    positions: Vec<glam::Vec3>,
    uvs: Vec<glam::Vec2>,
    triangles: Vec<[u32; 3]>,
}

fn sphere(rings: u32, segments: u32) -> Sphere {
    let mut positions = Vec::new();
    for r in 0..=rings {
        let theta = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..=segments {
            let phi = std::f32::consts::TAU * s as f32 / segments as f32;
            positions.push(glam::Vec3::new(
                theta.sin() * phi.sin(),
                theta.cos(),
                theta.sin() * phi.cos(),
            ));
        }
    }
    let row = segments + 1;
    let mut triangles = Vec::new();
    for r in 0..rings {
        for s in 0..segments {
            let (a, b) = (r * row + s, (r + 1) * row + s);
            // Counter-clockwise seen from outside.
            triangles.push([a, b, b + 1]);
            triangles.push([a, b + 1, a + 1]);
        }
    }
    let uvs = vec![glam::Vec2::ZERO; positions.len()];
    Sphere {
        positions,
        uvs,
        triangles,
    }
}

fn sphere_image(s: &Sphere, shading: kiln::Shading, light: glam::Vec3) -> RgbaImage {
    use kiln::internals::raster::{render_shaded, Batch, Camera, Light, RenderOptions};
    let b = Batch {
        positions: &s.positions,
        normals: &s.positions,
        uvs: &s.uvs,
        triangles: &s.triangles,
        uv_transform: glam::Affine2::IDENTITY,
        texture: None,
        base_color: [1.0, 1.0, 1.0, 1.0],
        alpha: kiln::internals::scene::AlphaMode::Opaque,
        two_sided: false,
        unlit: false,
        lightmap: None,
        sampler: Default::default(),
        colors: &[],
        emission: None,
    };
    let camera = Camera {
        view: glam::Mat4::look_at_rh(
            glam::Vec3::new(0.0, 0.0, 5.0),
            glam::Vec3::ZERO,
            glam::Vec3::Y,
        ),
        proj: glam::Mat4::orthographic_rh(-1.1, 1.1, -1.1, 1.1, 1.0, 10.0),
    };
    let light = Light {
        direction: light.normalize(),
        color: glam::Vec3::ONE,
        ambient: glam::Vec3::ZERO,
    };
    let opts = RenderOptions {
        width: 88,
        height: 88,
        supersample: 1,
        background: [0, 0, 0, 0],
    };
    render_shaded(&[b], &camera, &light, &opts, shading)
}

/// Distance of pixel `(x, y)`'s centre from the sphere's centre, in radii.
fn radius_at(x: u32, y: u32) -> f32 {
    let scale = 88.0 / 2.2;
    let (dx, dy) = (x as f32 + 0.5 - 44.0, y as f32 + 0.5 - 44.0);
    (dx * dx + dy * dy).sqrt() / scale
}

#[test]
fn cel_shading_uses_exactly_its_bands() {
    let s = sphere(24, 48);
    for bands in [2u32, 3, 5] {
        let img = sphere_image(
            &s,
            kiln::Shading::Cel { bands, rim: 0.0 },
            glam::Vec3::new(-1.0, 1.0, 1.0),
        );
        let levels: BTreeSet<u8> = (0..bands)
            .map(|k| (255.0 * k as f32 / (bands - 1) as f32).round() as u8)
            .collect();
        let mut seen = BTreeSet::new();
        for p in img.pixels().filter(|p| p[3] == 255) {
            assert!(p[0] == p[1] && p[1] == p[2], "{:?}", p.0);
            assert!(
                levels.contains(&p[0]),
                "bands {bands}: {} not a level of {levels:?}",
                p[0]
            );
            seen.insert(p[0]);
        }
        assert_eq!(seen, levels, "bands {bands}: every level shows on a sphere");
    }
}

#[test]
fn a_rim_lights_only_the_silhouette() {
    let s = sphere(24, 48);
    let light = glam::Vec3::new(1.0, 0.2, -1.0);
    let plain = sphere_image(&s, kiln::Shading::Cel { bands: 3, rim: 0.0 }, light);
    let rimmed = sphere_image(&s, kiln::Shading::Cel { bands: 3, rim: 1.0 }, light);
    let mut lit = 0;
    for (x, y, p) in rimmed.enumerate_pixels() {
        let q = plain.get_pixel(x, y);
        if p != q {
            lit += 1;
            // 1 − n·v ≥ 0.6 is |n_xy| ≥ 0.917 on an orthographic sphere;
            // pixel centres and facets widen that a little.
            assert!(radius_at(x, y) > 0.85, "({x}, {y}) at {}", radius_at(x, y));
            assert!(p[0] > q[0]);
        }
    }
    assert!(lit > 40, "{lit} rim pixels");
}

#[test]
fn flat_shading_lights_each_triangle_evenly() {
    let s = sphere(6, 8);
    let light = glam::Vec3::new(-1.0, 1.0, 1.0);
    let distinct = |img: &RgbaImage| {
        img.pixels()
            .filter(|p| p[3] == 255)
            .map(|p| p.0)
            .collect::<BTreeSet<_>>()
            .len()
    };
    let flat = distinct(&sphere_image(&s, kiln::Shading::Flat, light));
    let smooth = distinct(&sphere_image(&s, kiln::Shading::Lambert, light));
    // At most one shade per front-facing triangle (48 of 96 face the camera).
    assert!(flat <= 48, "{flat} shades");
    assert!(smooth > 3 * flat, "lambert {smooth}, flat {flat}");
}

#[test]
fn unlit_is_lambert_with_full_ambient_and_no_light() {
    let m = windmill();
    let v = view(64, 2);
    let dark = ViewSpec {
        light: kiln::LightSpec {
            color: glam::Vec3::ZERO,
            ambient: glam::Vec3::ONE,
            ..v.light
        },
        ..v
    };
    let unlit = Look {
        shading: kiln::Shading::Unlit,
        ..Look::default()
    };
    let a = m.render_with_look(0.3, 20.0, &v, &unlit).unwrap().image;
    let b = m.render(0.3, 20.0, &dark).unwrap().image;
    assert!(a == b, "unlit differs from ambient-only Lambert");
    assert!(a != m.render(0.3, 20.0, &v).unwrap().image);
}

fn ground(from: kiln::ShadowFrom) -> Look {
    Look {
        ground_shadow: Some(kiln::GroundShadow {
            from,
            opacity: 1.0,
            softness: 0,
            color: [0, 0, 0],
        }),
        ..Look::default()
    }
}

/// The pixels a ground shadow added: those that differ from the same
/// frame with an invisible one (opacity 0: the same framing); with their
/// mean position, the pivot, and the lowest row of the model, in pixels.
fn shadow_pixels(m: &Model, v: &ViewSpec, look: &Look) -> (usize, [f32; 2], [f32; 2], u32) {
    let with = m.render_with_look(0.0, 0.0, v, look).unwrap();
    let base = Look {
        ground_shadow: look
            .ground_shadow
            .map(|g| kiln::GroundShadow { opacity: 0.0, ..g }),
        ..look.clone()
    };
    let without = m.render_with_look(0.0, 0.0, v, &base).unwrap();
    assert_eq!(with.pivot, without.pivot, "the same framing");
    let (mut n, mut sx, mut sy) = (0usize, 0f32, 0f32);
    let mut feet = 0;
    for (x, y, p) in with.image.enumerate_pixels() {
        let q = without.image.get_pixel(x, y);
        if q[3] == 255 {
            feet = feet.max(y);
        }
        if p != q {
            assert!(q[3] < 255, "({x}, {y}): the shadow stays under the model");
            n += 1;
            sx += x as f32;
            sy += y as f32;
        }
    }
    let (w, h) = (v.width as f32, v.height as f32);
    (
        n,
        [sx / n.max(1) as f32, sy / n.max(1) as f32],
        [with.pivot[0] * w, with.pivot[1] * h],
        feet,
    )
}

#[test]
fn the_ground_shadow_lies_under_the_feet_and_follows_the_light() {
    let m = Model::load(&ModelSpec::new(sample("beacon.rsm").as_path())).unwrap();
    let v = view(96, 2);
    // Straight down: a contact shadow around the pivot, low in the frame.
    let (n, c, pivot, feet) = shadow_pixels(&m, &v, &ground(kiln::ShadowFrom::Down));
    assert!(n > 20, "{n} shadow pixels");
    assert!(
        (c[0] - pivot[0]).abs() < 4.0,
        "centre {c:?}, pivot {pivot:?}"
    );
    assert!(
        c[1] > pivot[1] - 12.0 && c[1] <= feet as f32 + 2.0,
        "centre {c:?}, feet {feet}"
    );
    // From a light on the left the shadow falls right of the pivot, and
    // from the right, left of it.
    for (yaw, side) in [(-60.0f32, 1.0f32), (60.0, -1.0)] {
        let lit = ViewSpec {
            light: kiln::LightSpec {
                direction: kiln::internals::camera::yaw_pitch_vector(yaw, 35.0),
                ..v.light
            },
            ..v
        };
        let (n, c, pivot, _) = shadow_pixels(&m, &lit, &ground(kiln::ShadowFrom::Light));
        assert!(n > 50, "yaw {yaw}: {n} pixels");
        assert!(
            (c[0] - pivot[0]) * side > 5.0,
            "yaw {yaw}: shadow centre {c:?}, pivot {pivot:?}"
        );
    }
}

fn sphere_pass(
    s: &Sphere,
    normals: &[glam::Vec3],
    pass: kiln::internals::raster::Pass,
) -> RgbaImage {
    use kiln::internals::raster::{render_pass, Batch, Camera, RenderOptions};
    let b = Batch {
        positions: &s.positions,
        normals,
        uvs: &s.uvs,
        triangles: &s.triangles,
        uv_transform: glam::Affine2::IDENTITY,
        texture: None,
        base_color: [1.0, 1.0, 1.0, 1.0],
        alpha: kiln::internals::scene::AlphaMode::Opaque,
        two_sided: false,
        unlit: false,
        lightmap: None,
        sampler: Default::default(),
        colors: &[],
        emission: None,
    };
    // Turned, so camera space differs from world space.
    let eye = glam::Vec3::new(3.0, 2.0, 3.0).normalize() * 5.0;
    let camera = Camera {
        view: glam::Mat4::look_at_rh(eye, glam::Vec3::ZERO, glam::Vec3::Y),
        proj: glam::Mat4::orthographic_rh(-1.1, 1.1, -1.1, 1.1, 1.0, 10.0),
    };
    let opts = RenderOptions {
        width: 88,
        height: 88,
        supersample: 1,
        background: [0, 0, 0, 0],
    };
    render_pass(&[b], &camera, &opts, pass)
}

#[test]
fn the_normal_pass_of_a_sphere_faces_the_camera_at_the_centre_and_sideways_at_the_rim() {
    let s = sphere(48, 96);
    let img = sphere_pass(&s, &s.positions, kiln::internals::raster::Pass::Normal);
    let decode = |p: &image::Rgba<u8>| {
        glam::Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32) / 127.5 - glam::Vec3::ONE
    };
    let mut checked = 0;
    for (x, y, p) in img.enumerate_pixels() {
        let r = radius_at(x, y);
        if r > 0.97 {
            continue;
        }
        assert_eq!(p[3], 255, "({x}, {y}) inside the disc");
        let n = decode(p);
        assert!(
            (n.length() - 1.0).abs() < 0.03,
            "({x}, {y}): |n| = {}",
            n.length()
        );
        // On an orthographic sphere the camera-space normal at screen
        // offset (dx, dy) (y up) is (dx, dy, sqrt(1 − r²)).
        let scale = 88.0 / 2.2;
        let want = glam::Vec3::new(
            (x as f32 + 0.5 - 44.0) / scale,
            (44.0 - y as f32 - 0.5) / scale,
            (1.0 - r * r).max(0.0).sqrt(),
        );
        assert!(n.dot(want) > 0.99, "({x}, {y}): {n} vs {want}");
        checked += 1;
    }
    assert!(checked > 4000);
    let centre = decode(img.get_pixel(44, 44));
    assert!(centre.z > 0.99, "centre {centre}");
    let rim = decode(img.get_pixel(5, 44));
    assert!(rim.x < -0.9 && rim.z.abs() < 0.45, "left rim {rim}");
}

#[test]
fn the_depth_pass_interpolates_and_splits_sixteen_bits() {
    let s = sphere(48, 96);
    // Depth carried as (d, 1, 0): 1 at the point nearest the camera, 0 at
    // the farthest (the camera is 5 from the centre, the radius 1).
    let eye = glam::Vec3::new(3.0, 2.0, 3.0).normalize() * 5.0;
    let carried: Vec<glam::Vec3> = s
        .positions
        .iter()
        .map(|p| {
            glam::Vec3::new(
                1.0 - ((*p - eye).dot(-eye.normalize()) - 4.0) / 2.0,
                1.0,
                0.0,
            )
        })
        .collect();
    let img = sphere_pass(&s, &carried, kiln::internals::raster::Pass::Depth);
    for (x, y, p) in img.enumerate_pixels() {
        let r = radius_at(x, y);
        if r > 0.97 {
            continue;
        }
        assert_eq!((p[2], p[3]), (0, 255));
        let d = ((p[0] as u32) << 8 | p[1] as u32) as f32 / 65535.0;
        let want = (1.0 + (1.0 - r * r).sqrt()) / 2.0;
        assert!((d - want).abs() < 0.004, "({x}, {y}): {d} vs {want}");
    }
}

#[test]
fn passes_have_the_colour_sheets_layout_and_metadata() {
    let dir = tempdir("look-passes");
    let recipe = dir.join("r.yaml");
    std::fs::write(
        &recipe,
        format!(
            "jobs:\n  - name: mill\n    model: '{}'\n    size: 48x56\n    directions: 3\n    clips:\n      - {{name: a, frames: 3}}\n      - {{name: b, time: 1}}\n    look: {{passes: {{normal: true, depth: 16, id: material}}, outline: {{width: 1}}}}\n    output: {{dir: out}}\n",
            sample("windmill.rsm2").display()
        ),
    )
    .unwrap();
    let report = kiln::bake_files(&[&recipe], &BakeOptions::default(), &NoProgress).unwrap();
    assert_eq!(report.failed(), 0, "{:?}", report.jobs);
    let out = dir.join("out");
    let json = |f: &str| -> serde_json::Value {
        let mut v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join(f)).unwrap()).unwrap();
        let image = v["meta"]["image"].take();
        assert!(image.is_string());
        v
    };
    let colour = json("mill.json");
    assert!(colour["frames"].as_object().unwrap().len() == 3 * 4);
    for pass in ["normal", "depth", "id"] {
        assert_eq!(
            json(&format!("mill_{pass}.json")),
            colour,
            "{pass} metadata"
        );
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join(format!("mill_{pass}.json"))).unwrap())
                .unwrap();
        assert_eq!(meta["meta"]["image"], format!("mill_{pass}.png"));
    }
    let sheet = image::open(out.join("mill.png")).unwrap().to_rgba8();
    let normal = image::open(out.join("mill_normal.png")).unwrap().to_rgba8();
    let id = image::open(out.join("mill_id.png")).unwrap().to_rgba8();
    let depth = image::open(out.join("mill_depth.png")).unwrap();
    assert!(
        matches!(depth, image::DynamicImage::ImageLumaA16(_)),
        "16-bit grey"
    );
    let depth = depth.to_luma_alpha16();
    assert_eq!(normal.dimensions(), sheet.dimensions());
    assert_eq!(id.dimensions(), sheet.dimensions());
    assert_eq!(depth.dimensions(), sheet.dimensions());
    // Every ID colour is in the legend, which names the model's materials.
    let legend: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("mill_id_legend.json")).unwrap()).unwrap();
    assert_eq!(legend["by"], "material");
    let colours: BTreeSet<String> = legend["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["color"].as_str().unwrap().to_string())
        .collect();
    assert!(colours.len() >= 2);
    let mut used = BTreeSet::new();
    for p in id.pixels() {
        assert!(p[3] == 0 || p[3] == 255, "IDs are not blended");
        if p[3] == 255 {
            used.insert(format!("#{:02x}{:02x}{:02x}", p[0], p[1], p[2]));
        }
    }
    assert!(used.is_subset(&colours) && used.len() >= 2, "{used:?}");
    // The passes cover the model where the colour sheet does (the outline,
    // a look, is not geometry): a pass pixel is never where the unlined
    // model is absent, and depth spans the job's range.
    let mut nearest = 0u16;
    for (x, y, p) in depth.enumerate_pixels() {
        if p[1] > 0 {
            assert!(
                sheet.get_pixel(x, y)[3] > 0,
                "depth at ({x}, {y}) outside the model"
            );
            assert_eq!(id.get_pixel(x, y)[3], 255, "depth and ID cover alike");
            nearest = nearest.max(p[0]);
        }
    }
    assert!(
        nearest > 60000,
        "the nearest point is near white: {nearest}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kiln_render_takes_the_look_flags() {
    let dir = tempdir("look-cli");
    let model = sample("windmill.rsm2");
    let m = model.to_str().unwrap();
    let out = common::kiln(
        &[
            "render",
            m,
            "-o",
            "a.png",
            "--size",
            "64x64",
            "--outline",
            "1",
            "--outline-hard",
            "--drop-shadow",
            "3,-2",
            "--colors",
            "8",
            "--dither",
            "ordered",
            "--shading",
            "cel",
            "--rim",
            "0.3",
            "--ground-shadow",
            "down",
        ],
        &dir,
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let img = image::open(dir.join("a.png")).unwrap().to_rgba8();
    let used = colours(&[img]);
    assert!(used.len() <= 8 && used.len() >= 4, "{used:?}");
    let bad = common::kiln(&["render", m, "-o", "b.png", "--rim", "0.5"], &dir);
    assert_eq!(bad.status.code(), Some(2));
    assert!(common::stderr(&bad).contains("--rim needs --shading cel"));
    let bad = common::kiln(&["render", m, "-o", "b.png", "--outline", "9"], &dir);
    assert_eq!(bad.status.code(), Some(2));
    assert!(!dir.join("b.png").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A depth pass image as the depth pass encodes it: `z[i]` (nearer =
/// larger, 0..=65535) in red (high byte) and green, `None` uncovered.
fn depth_image(w: u32, h: u32, z: impl Fn(u32, u32) -> Option<u16>) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| match z(x, y) {
        Some(v) => image::Rgba([(v >> 8) as u8, v as u8, 0, 255]),
        None => image::Rgba([0, 0, 0, 0]),
    })
}

#[test]
fn inner_lines_lie_on_the_far_side_of_a_depth_jump_within_their_width() {
    // A far plate (x 4..36) with a near bar over its middle (x 16..24),
    // and a gentle slope on the plate that must not draw a line.
    let (w, h) = (40u32, 20u32);
    let depth = depth_image(w, h, |x, y| match (x, y) {
        (16..=23, 2..=17) => Some(60_000),
        (4..=35, 2..=17) => Some(20_000 + 50 * x as u16),
        _ => None,
    });
    let grey = image::Rgba([128, 128, 128, 255]);
    let colour = RgbaImage::from_fn(w, h, |x, y| {
        if depth.get_pixel(x, y)[3] > 0 {
            grey
        } else {
            image::Rgba([0, 0, 0, 0])
        }
    });
    for width in [1u32, 2, 3] {
        let o = Outline {
            width,
            color: [200, 0, 0, 255],
            side: OutlineSide::Outside,
            hard: true,
            inner: Some(0.25),
        };
        let mut img = colour.clone();
        kiln::internals::look::outline::apply_inner(&mut img, &depth, &o, 0.25);
        for (x, y, p) in img.enumerate_pixels() {
            // Plate pixels within `width` of the bar's two edge columns.
            let on_plate =
                (4..=35).contains(&x) && (2..=17).contains(&y) && !(16..=23).contains(&x);
            let near_edge = (16 - width..16).contains(&x) || (24..24 + width).contains(&x);
            if on_plate && near_edge {
                assert_eq!(
                    p.0,
                    [200, 0, 0, 255],
                    "width {width}: ({x}, {y}) is on the line"
                );
            } else {
                assert_eq!(
                    p,
                    colour.get_pixel(x, y),
                    "width {width}: ({x}, {y}) is off the line"
                );
            }
        }
        // A jump the bar does not reach draws nothing.
        let mut none = colour.clone();
        kiln::internals::look::outline::apply_inner(&mut none, &depth, &o, 0.7);
        assert_eq!(none, colour);
    }
}

#[test]
fn the_windmills_blades_get_inner_lines_over_the_tower_and_nowhere_outside() {
    let m = windmill();
    let v = view(96, 2);
    let mut plain = outline(1, OutlineSide::Outside, true);
    let mut inner = plain.clone();
    if let Some(o) = &mut inner.outline {
        o.inner = Some(0.05);
    }
    // Yaw 0 and a low pitch: the blades turn in front of the tower.
    let a = m.render_with_look(0.3, 0.0, &v, &plain).unwrap().image;
    let b = m.render_with_look(0.3, 0.0, &v, &inner).unwrap().image;
    let mut lined = 0;
    for (p, q) in a.pixels().zip(b.pixels()) {
        if p != q {
            lined += 1;
            // Inside the silhouette, coverage kept, the line's colour.
            assert_eq!(p[3], q[3]);
            assert!(p[3] >= 128, "{p:?}");
            assert_eq!([q[0], q[1], q[2]], [10, 20, 200]);
        }
    }
    assert!(lined >= 20, "{lined} inner-line pixels");
    // A jump larger than anything in the frame draws none.
    if let Some(o) = &mut plain.outline {
        o.inner = Some(1.0);
    }
    assert_eq!(m.render_with_look(0.3, 0.0, &v, &plain).unwrap().image, a);
}

#[test]
fn kiln_render_draws_passes() {
    let dir = tempdir("pass-cli");
    let model = sample("windmill.rsm2");
    let m = model.to_str().unwrap();
    let run = |args: &[&str]| {
        let mut all = vec!["render", m, "--size", "48x48"];
        all.extend_from_slice(args);
        common::kiln(&all, &dir)
    };
    let out = run(&["-o", "n.png", "--pass", "normal"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let n = image::open(dir.join("n.png")).unwrap().to_rgba8();
    // Blue (z toward the viewer) is the largest channel where the model faces the camera.
    let centre = n.get_pixel(24, 24);
    assert_eq!(centre[3], 255);
    assert!(centre[2] > 128, "{centre:?}");

    let out = run(&["-o", "d.png", "--pass", "depth"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let d = image::open(dir.join("d.png")).unwrap();
    assert!(
        matches!(d, image::DynamicImage::ImageLumaA16(_)),
        "{:?}",
        d.color()
    );
    let out = run(&["-o", "d8.png", "--pass", "depth", "--depth-bits", "8"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let d8 = image::open(dir.join("d8.png")).unwrap();
    assert!(matches!(d8, image::DynamicImage::ImageLumaA8(_)));
    // The 8-bit map is the 16-bit one rounded.
    let (d16, d8) = (d.to_luma_alpha16(), d8.to_luma_alpha8());
    for (p, q) in d16.pixels().zip(d8.pixels()) {
        assert_eq!(p[1] > 0, q[1] > 0);
        assert!((p[0] as i32 / 257 - q[0] as i32).abs() <= 1);
    }

    let out = run(&["-o", "i.png", "--pass", "id", "--id-by", "node"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let legend: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("i_legend.json")).unwrap()).unwrap();
    let i = image::open(dir.join("i.png")).unwrap().to_rgba8();
    let drawn = colours(&[i]);
    let listed = legend.to_string();
    assert!(drawn.len() >= 2, "{drawn:?}");
    for c in &drawn {
        let hex = format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2]);
        assert!(listed.contains(&hex), "{hex} not in the legend {listed}");
    }

    let bad = run(&["-o", "x.png", "--pass", "normal", "--outline", "1"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(common::stderr(&bad).contains("--pass draws data"));
    assert!(!dir.join("x.png").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn png_compression_changes_bytes_never_pixels() {
    let dir = tempdir("png-compression");
    let model = sample("windmill.rsm2");
    let mut sizes = Vec::new();
    let mut sheets = Vec::new();
    for level in ["fast", "default", "best"] {
        let recipe = dir.join(format!("{level}.yaml"));
        std::fs::write(
            &recipe,
            format!(
                "jobs:\n  - name: mill\n    model: '{}'\n    size: 64x64\n    directions: 4\n    clip: {{frames: 6}}\n    png: {{compression: {level}}}\n    output: {{dir: {level}, sheet: 'mill.png', gif: false}}\n",
                model.display()
            ),
        )
        .unwrap();
        let report = kiln::bake_files(&[&recipe], &BakeOptions::default(), &NoProgress).unwrap();
        assert_eq!(report.failed(), 0, "{level}: {:?}", report.jobs);
        let bytes = std::fs::read(dir.join(level).join("mill.png")).unwrap();
        sizes.push(bytes.len());
        sheets.push(image::load_from_memory(&bytes).unwrap().to_rgba8());
    }
    assert_eq!(sheets[0], sheets[1]);
    assert_eq!(sheets[1], sheets[2]);
    // Fast is larger than the deflate levels; best is no larger than default.
    assert!(sizes[0] > sizes[1] && sizes[2] <= sizes[1], "{sizes:?}");
    let err = kiln::Recipe::from_str(
        "jobs:\n  - name: a\n    model: a.rsm\n    png: {compression: tiny}\n",
        Path::new("r.yaml"),
    )
    .map(|_| ())
    .unwrap_err()
    .to_string();
    assert!(err.starts_with("r.yaml:4:"), "{err}");
    assert!(err.contains("unknown variant `tiny`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
