//! glTF shading beyond the base colour: `COLOR_0`, emission and sampler
//! settings, on quads written here (every expected byte worked out from
//! the specification's rules, below) and on the corpus samples made for
//! them (reviewed goldens, and the same bytes at every SIMD level).

use crate::common;
use crate::gltf_read::{base64, sample};
use crate::gltf_read_back::render_golden;
use glam::{Mat4, Vec3};
use image::RgbaImage;
use kiln::internals::raster::{render_at, Camera, Level, Light, RenderOptions};
use kiln::internals::render::{self, ClipPlan, ViewSpec};
use kiln::internals::scene::{self, Model};
use serde_json::{json, Value};
use std::path::Path;

/// The quad's four texels, a grey ramp: each a whole multiple of 80 so
/// the quarter blends below are whole bytes.
const RAMP: [u8; 4] = [0, 80, 160, 240];
const W: u32 = 16;

fn png(w: u32, h: u32, grey: &[u8]) -> Vec<u8> {
    let img = RgbaImage::from_fn(w, h, |x, y| {
        let g = grey[(y * w + x) as usize];
        image::Rgba([g, g, g, 255])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// A unit quad in the z = 0 plane facing +z, with one texture coordinate
/// per corner (bottom-left, bottom-right, top-right, top-left), optional
/// `COLOR_0` as normalised unsigned bytes, and `material` as given (its
/// `"TEX"` texture index, if any, names texture 0).
fn quad(
    dir: &Path,
    uvs: [[f32; 2]; 4],
    colors: Option<[[u8; 4]; 4]>,
    material: Value,
    texture: Option<(Vec<u8>, Value)>,
) -> Model {
    let mut bin = Vec::new();
    let f32s = |bin: &mut Vec<u8>, v: &[f32]| v.iter().for_each(|x| bin.extend(x.to_le_bytes()));
    f32s(&mut bin, &[0., 0., 0., 1., 0., 0., 1., 1., 0., 0., 1., 0.]);
    f32s(&mut bin, &[0., 0., 1., 0., 0., 1., 0., 0., 1., 0., 0., 1.]);
    f32s(&mut bin, &uvs.concat());
    for i in [0u16, 1, 2, 0, 2, 3] {
        bin.extend(i.to_le_bytes());
    }
    let mut attributes = json!({"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2});
    let mut accessors = vec![
        json!({"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]}),
        json!({"bufferView": 0, "byteOffset": 48, "componentType": 5126, "count": 4, "type": "VEC3"}),
        json!({"bufferView": 0, "byteOffset": 96, "componentType": 5126, "count": 4, "type": "VEC2"}),
        json!({"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}),
    ];
    let mut views = vec![
        json!({"buffer": 0, "byteOffset": 0, "byteLength": 128}),
        json!({"buffer": 0, "byteOffset": 128, "byteLength": 12}),
    ];
    if let Some(c) = colors {
        views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": 16}));
        bin.extend(c.concat());
        accessors.push(json!({"bufferView": 2, "componentType": 5121, "normalized": true, "count": 4, "type": "VEC4"}));
        attributes["COLOR_0"] = json!(4);
    }
    let mut doc = json!({
        "asset": {"version": "2.0", "generator": "kiln tests"},
        "extensionsUsed": ["KHR_materials_unlit", "KHR_materials_emissive_strength"],
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": attributes, "indices": 3, "material": 0}]}],
        "materials": [material],
        "buffers": [{"byteLength": bin.len(), "uri": format!("data:application/octet-stream;base64,{}", base64(&bin))}],
        "bufferViews": views, "accessors": accessors,
    });
    if let Some((image, sampler)) = texture {
        doc["images"] = json!([{"uri": format!("data:image/png;base64,{}", base64(&image))}]);
        doc["samplers"] = json!([sampler]);
        doc["textures"] = json!([{"source": 0, "sampler": 0}]);
    }
    let file = dir.join("quad.gltf");
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    common::load(&file)
}

/// The model drawn W × 2 pixels, the quad filling the image, at `level`,
/// supersampling off, over opaque black, lit from the viewer by a light of
/// 0.5 with ambient 0.1.
fn draw(model: &Model, level: Level) -> RgbaImage {
    let posed = scene::pose(model, 0.0);
    let camera = Camera {
        view: Mat4::IDENTITY,
        proj: Mat4::orthographic_rh(0.0, 1.0, 0.0, 1.0, -10.0, 10.0),
    };
    let light = Light {
        direction: Vec3::Z,
        color: Vec3::splat(0.5),
        ambient: Vec3::splat(0.1),
    };
    let opts = RenderOptions {
        width: W,
        height: 2,
        supersample: 1,
        background: [0, 0, 0, 255],
    };
    render_at(
        &render::batches(model, &posed),
        &camera,
        &light,
        &opts,
        level,
    )
}

/// [`draw`] at every level this CPU has, which must agree to the byte.
fn draw_everywhere(model: &Model) -> RgbaImage {
    let reference = draw(model, Level::Portable);
    for level in Level::ALL.into_iter().filter(|l| l.available()) {
        assert_eq!(
            draw(model, level).as_raw(),
            reference.as_raw(),
            "{}",
            level.name()
        );
    }
    reference
}

/// A wrap mode applied to a texel index, as the glTF specification
/// (after OpenGL) defines REPEAT, CLAMP_TO_EDGE and MIRRORED_REPEAT.
fn place(i: i64, n: i64, wrap: u32) -> usize {
    (match wrap {
        10497 => i.rem_euclid(n),
        33071 => i.clamp(0, n - 1),
        _ => {
            let m = i.rem_euclid(2 * n);
            if m < n {
                m
            } else {
                2 * n - 1 - m
            }
        }
    }) as usize
}

#[test]
fn every_wrap_mode_and_nearest_filtering_give_the_specified_texels() {
    // u runs from -0.9375 to 3.0625 across the 16 pixels: pixel x's centre
    // lies at texel coordinate t = x − 3.25 (texel i spans [i, i + 1)),
    // a quarter of a texel past the centre of texel x − 4. NEAREST takes
    // texel floor(t) = x − 4; LINEAR ¾ of texel x − 4 and ¼ of texel
    // x − 3; each index wrapped by the mode. Along v the same, with the
    // texture turned on its side, so wrapT is seen to be honoured too.
    let dir = common::tempdir("gltf-wrap-modes");
    let (u0, u1) = (-0.9375, 3.0625);
    for wrap in [10497u32, 33071, 33648] {
        for (filter, nearest) in [(9728u32, true), (9729, false)] {
            for along_v in [false, true] {
                let (uvs, image, sampler) = if along_v {
                    (
                        [[0.5, u0], [0.5, u1], [0.5, u1], [0.5, u0]],
                        png(1, 4, &RAMP),
                        json!({"magFilter": filter, "minFilter": filter, "wrapT": wrap, "wrapS": 33648}),
                    )
                } else {
                    (
                        [[u0, 0.5], [u1, 0.5], [u1, 0.5], [u0, 0.5]],
                        png(4, 1, &RAMP),
                        json!({"magFilter": filter, "minFilter": filter, "wrapS": wrap, "wrapT": 33648}),
                    )
                };
                let material = json!({
                    "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}},
                    "extensions": {"KHR_materials_unlit": {}},
                });
                let model = quad(&dir, uvs, None, material, Some((image, sampler)));
                let img = draw_everywhere(&model);
                let what = format!("wrap {wrap} filter {filter} along v {along_v}");
                for x in 0..W {
                    let i = x as i64 - 4;
                    let want = if nearest {
                        RAMP[place(i, 4, wrap)]
                    } else {
                        let (a, b) = (
                            RAMP[place(i, 4, wrap)] as u32,
                            RAMP[place(i + 1, 4, wrap)] as u32,
                        );
                        ((3 * a + b) / 4) as u8
                    };
                    for y in 0..2 {
                        assert_eq!(
                            img.get_pixel(x, y).0,
                            [want, want, want, 255],
                            "{what}: pixel {x},{y}"
                        );
                    }
                }
            }
        }
    }
    // No sampler: repeat and bilinear, kiln's filtering before samplers.
    let material = json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}, "extensions": {"KHR_materials_unlit": {}}});
    let mut model = quad(
        &dir,
        [[u0, 0.5], [u1, 0.5], [u1, 0.5], [u0, 0.5]],
        None,
        material,
        Some((png(4, 1, &RAMP), json!({}))),
    );
    assert_eq!(model.textures[0].sampler, Default::default());
    let with_default = draw_everywhere(&model);
    model.textures[0].sampler = scene::Sampler {
        wrap_u: scene::Wrap::Repeat,
        wrap_v: scene::Wrap::Repeat,
        filter: scene::Filter::Bilinear,
    };
    assert_eq!(
        draw(&model, Level::Portable).as_raw(),
        with_default.as_raw()
    );
    assert_eq!(with_default.get_pixel(0, 0).0[0], 20);
    assert_eq!(with_default.get_pixel(3, 0).0[0], 180);
}

#[test]
fn emission_is_added_after_lighting_and_unlit_materials_ignore_it() {
    // Lit: base 0.2 × min(1, 0.1 + 0.5 · n·l = 1) = 0.12, then the
    // emissive factor (0.5, 0.25, 0) × strength 1.5 added: (0.87, 0.495,
    // 0.12), that is bytes (222, 126, 31).
    let dir = common::tempdir("gltf-emission");
    let uvs = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    let glowing = json!({
        "pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.2, 0.2, 1.0]},
        "emissiveFactor": [0.5, 0.25, 0.0],
        "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 1.5}},
    });
    let model = quad(&dir, uvs, None, glowing, None);
    assert_eq!(model.materials[0].emissive, [0.75, 0.375, 0.0]);
    let img = draw_everywhere(&model);
    assert!(
        img.pixels().all(|p| p.0 == [222, 126, 31, 255]),
        "{:?}",
        img.get_pixel(5, 1)
    );
    // Emission saturates at 1 rather than wrapping: (1.12, 0.12, 1.02).
    let hot = json!({"pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.2, 0.2, 1.0]}, "emissiveFactor": [1.0, 0.0, 0.9]});
    let img = draw_everywhere(&quad(&dir, uvs, None, hot, None));
    assert_eq!(img.get_pixel(0, 0).0, [255, 31, 255, 255]);
    // An unlit material is its base colour alone: 0.2 → 51.
    let unlit = json!({
        "pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.2, 0.2, 1.0]},
        "emissiveFactor": [0.5, 0.25, 0.0],
        "extensions": {"KHR_materials_unlit": {}},
    });
    let img = draw_everywhere(&quad(&dir, uvs, None, unlit, None));
    assert!(img.pixels().all(|p| p.0 == [51, 51, 51, 255]));
}

#[test]
fn vertex_colours_multiply_the_base_colour() {
    // COLOR_0 (200, 100, 50) as normalised bytes times the factor (0.5, 1,
    // 1), unlit: (100, 100, 50). A texel multiplies too: 240/255 of that
    // is (94.1, 94.1, 47.1), bytes (94, 94, 47).
    let dir = common::tempdir("gltf-vertex-colours");
    let uvs = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    let material = json!({"pbrMetallicRoughness": {"baseColorFactor": [0.5, 1.0, 1.0, 1.0]}, "extensions": {"KHR_materials_unlit": {}}});
    let model = quad(&dir, uvs, Some([[200, 100, 50, 255]; 4]), material, None);
    assert_eq!(model.meshes[0].colors.len(), 4);
    let img = draw_everywhere(&model);
    assert!(
        img.pixels().all(|p| p.0 == [100, 100, 50, 255]),
        "{:?}",
        img.get_pixel(3, 0)
    );
    let textured = json!({"pbrMetallicRoughness": {"baseColorFactor": [0.5, 1.0, 1.0, 1.0], "baseColorTexture": {"index": 0}}, "extensions": {"KHR_materials_unlit": {}}});
    let one_texel = png(1, 1, &[240]);
    let model = quad(
        &dir,
        uvs,
        Some([[200, 100, 50, 255]; 4]),
        textured,
        Some((one_texel, json!({}))),
    );
    let img = draw_everywhere(&model);
    assert!(
        img.pixels().all(|p| p.0 == [94, 94, 47, 255]),
        "{:?}",
        img.get_pixel(3, 0)
    );
    // Without COLOR_0 the mesh carries none, and draws as before.
    let plain = quad(
        &dir,
        uvs,
        None,
        json!({"extensions": {"KHR_materials_unlit": {}}}),
        None,
    );
    assert!(plain.meshes[0].colors.is_empty());
}

/// A corpus sample drawn with the bake's default view at every level: the
/// same bytes.
fn same_at_every_level(name: &str) {
    let Some(f) = sample(name) else {
        return;
    };
    let model = common::load(&f);
    let plan = ClipPlan {
        times: vec![0.0],
        yaws: vec![30.0],
        view: ViewSpec::default(),
    };
    let posed = render::pose_frames(&model, &plan.times);
    let cameras = render::fit(&[posed.as_slice()], &plan);
    let batches = render::batches(&model, &posed[0]);
    let opts = render::render_options(&plan);
    let light = render::light_for(&plan, 0);
    let reference = render_at(&batches, &cameras[0], &light, &opts, Level::Portable);
    assert!(
        reference.pixels().filter(|p| p.0[3] > 0).count() > 2000,
        "{name} draws little"
    );
    for level in Level::ALL.into_iter().filter(|l| l.available()) {
        let img = render_at(&batches, &cameras[0], &light, &opts, level);
        assert_eq!(
            img.as_raw(),
            reference.as_raw(),
            "{name} at {}",
            level.name()
        );
    }
}

#[test]
fn vertex_colour_and_sampler_samples_match_their_goldens_at_every_level() {
    // The box's faces blend its corners' colours (no material: white ×
    // COLOR_0); each square of the texture settings test shows its own
    // wrap mode: repeat, clamp (edge texels streaked) and mirror.
    render_golden(
        "BoxVertexColors",
        "gltf/box_vertex_colors",
        &["--yaw", "30"],
    );
    render_golden(
        "TextureSettingsTest",
        "gltf/texture_settings",
        &["--pitch", "0"],
    );
    same_at_every_level("BoxVertexColors");
    same_at_every_level("TextureSettingsTest");
}
