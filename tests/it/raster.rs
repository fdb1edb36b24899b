//! Behaviour of kiln's CPU rasterizer on small synthetic scenes.

use crate::common;

use glam::{Affine2, Mat4, Vec2, Vec3};
use image::RgbaImage;
use kiln::internals::raster::{
    render, render_at, render_into, Batch, Camera, Level, Light, LightmapLayer, RenderOptions,
};
use kiln::internals::scene::AlphaMode;
use kiln::internals::texture::{Texture, TextureAlpha};

const CLEAR: [u8; 4] = [0, 0, 0, 0];

fn opts(w: u32, h: u32, ss: u32, bg: [u8; 4]) -> RenderOptions {
    RenderOptions {
        width: w,
        height: h,
        supersample: ss,
        background: bg,
    }
}

/// World units = pixels, origin bottom-left, y up.
fn pixel_ortho(w: f32, h: f32) -> Camera {
    Camera {
        view: Mat4::IDENTITY,
        proj: Mat4::orthographic_rh(0.0, w, 0.0, h, -10.0, 10.0),
    }
}

fn no_light() -> Light {
    Light {
        direction: Vec3::Z,
        color: Vec3::ZERO,
        ambient: Vec3::ONE,
    }
}

struct Mesh {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    triangles: Vec<[u32; 3]>,
}

impl Mesh {
    /// A quad from its four corners (counter-clockwise seen from +z), UVs
    /// (0,1) (1,1) (1,0) (0,0) so v = 0 is the top edge.
    fn quad(c: [Vec3; 4]) -> Mesh {
        Mesh {
            positions: c.to_vec(),
            normals: vec![Vec3::Z; 4],
            uvs: vec![
                Vec2::new(0.0, 1.0),
                Vec2::new(1.0, 1.0),
                Vec2::new(1.0, 0.0),
                Vec2::new(0.0, 0.0),
            ],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
        }
    }

    fn rect(x0: f32, y0: f32, x1: f32, y1: f32, z: f32) -> Mesh {
        Mesh::quad([
            Vec3::new(x0, y0, z),
            Vec3::new(x1, y0, z),
            Vec3::new(x1, y1, z),
            Vec3::new(x0, y1, z),
        ])
    }

    fn batch<'a>(&'a self, color: [f32; 4], alpha: AlphaMode) -> Batch<'a> {
        Batch {
            positions: &self.positions,
            normals: &self.normals,
            uvs: &self.uvs,
            triangles: &self.triangles,
            uv_transform: Affine2::IDENTITY,
            texture: None,
            base_color: color,
            alpha,
            two_sided: false,
            unlit: true,
            lightmap: None,
            sampler: Default::default(),
            colors: &[],
            emission: None,
        }
    }
}

fn texture(w: u32, h: u32, texels: Vec<[u8; 4]>) -> Texture {
    Texture {
        name: "test".into(),
        width: w,
        height: h,
        texels,
        alpha: TextureAlpha::Opaque,
    }
}

fn px(img: &RgbaImage, x: u32, y: u32) -> [u8; 4] {
    img.get_pixel(x, y).0
}

#[test]
fn shared_edge_of_a_blended_quad_shows_no_seam() {
    // Skewed so the shared diagonal crosses many sample centres.
    let m = Mesh::quad([
        Vec3::new(3.3, 2.1, 0.0),
        Vec3::new(27.7, 5.9, 0.0),
        Vec3::new(29.2, 28.4, 0.0),
        Vec3::new(1.6, 25.3, 0.0),
    ]);
    for ss in [1, 3] {
        let img = render(
            &[m.batch([1.0, 1.0, 1.0, 0.5], AlphaMode::Blend)],
            &pixel_ortho(32.0, 32.0),
            &no_light(),
            &opts(32, 32, ss, [0, 0, 0, 255]),
        );
        // Double blending would show 0.75 (191) somewhere along the diagonal.
        assert!(img.pixels().all(|p| p.0[0] <= 128 && p.0[0] == p.0[1]));
        let mut covered = 0;
        for y in 9..=20 {
            let row: Vec<u32> = (0..32).filter(|&x| px(&img, x, y)[0] > 0).collect();
            // Convex: covered pixels form one run; away from the outer edges
            // every pixel is exactly half white.
            assert_eq!(row.len() as u32, row[row.len() - 1] - row[0] + 1, "row {y}");
            for &x in &row[2..row.len() - 2] {
                assert_eq!(px(&img, x, y), [128, 128, 128, 255], "{x},{y} ss {ss}");
                covered += 1;
            }
        }
        assert!(covered > 250, "{covered}");
        if ss == 1 {
            // Without AA every covered pixel is exactly half white.
            let n = img.pixels().filter(|p| p.0[0] > 0).count();
            assert_eq!(
                img.pixels().filter(|p| p.0 == [128, 128, 128, 255]).count(),
                n
            );
        }
    }
}

#[test]
fn axis_aligned_rectangle_covers_exact_pixels() {
    let m = Mesh::rect(3.0, 2.0, 9.0, 7.0, 0.0);
    for ss in [1, 2, 3, 4] {
        let img = render(
            &[m.batch([1.0, 0.0, 0.0, 1.0], AlphaMode::Opaque)],
            &pixel_ortho(16.0, 16.0),
            &no_light(),
            &opts(16, 16, ss, [0, 0, 255, 255]),
        );
        for y in 0..16 {
            for x in 0..16 {
                // World y 2..7 (up) = image rows 9..14 (down).
                let inside = (3..9).contains(&x) && (9..14).contains(&y);
                let want = if inside {
                    [255, 0, 0, 255]
                } else {
                    [0, 0, 255, 255]
                };
                assert_eq!(px(&img, x, y), want, "{x},{y} ss {ss}");
            }
        }
    }
}

#[test]
fn opaque_depth_order_does_not_depend_on_submission_order() {
    // Camera looks down -z: z = -1 is nearer than z = -5.
    let near = Mesh::rect(2.0, 2.0, 10.0, 10.0, -1.0);
    let far = Mesh::rect(6.0, 6.0, 14.0, 14.0, -5.0);
    let cam = pixel_ortho(16.0, 16.0);
    let red = near.batch([1.0, 0.0, 0.0, 1.0], AlphaMode::Opaque);
    let green = far.batch([0.0, 1.0, 0.0, 1.0], AlphaMode::Opaque);
    let o = opts(16, 16, 2, CLEAR);
    let a = render(&[red, green], &cam, &no_light(), &o);
    let b = render(&[green, red], &cam, &no_light(), &o);
    assert_eq!(a.as_raw(), b.as_raw());
    // Overlap (world 6..10) shows the near red quad; far-only area is green.
    assert_eq!(px(&a, 8, 8), [255, 0, 0, 255]);
    assert_eq!(px(&a, 12, 3), [0, 255, 0, 255]);
    assert_eq!(px(&a, 0, 0), [0, 0, 0, 0]);
}

#[test]
fn a_small_triangle_sees_the_one_drawn_just_before_it() {
    // A triangle of a few samples is held back after its walk, to be shaded
    // in step with the next one: a next triangle over the same samples must
    // still depth-test against it and blend over it.
    let small = |z: f32| Mesh {
        positions: vec![
            Vec3::new(1.0, 1.0, z),
            Vec3::new(4.0, 1.0, z),
            Vec3::new(1.0, 4.0, z),
        ],
        normals: vec![Vec3::Z; 3],
        uvs: vec![Vec2::ZERO; 3],
        triangles: vec![[0, 1, 2]],
    };
    let (near, far) = (small(-1.0), small(-5.0));
    let cam = pixel_ortho(8.0, 8.0);
    // World (1.5, 1.5), (2.5, 1.5) and (1.5, 2.5): inside, away from edges.
    let inside = [(1, 6), (2, 6), (1, 5)];
    let o = opts(8, 8, 1, CLEAR);
    let red = near.batch([1.0, 0.0, 0.0, 1.0], AlphaMode::Opaque);
    let green = far.batch([0.0, 1.0, 0.0, 1.0], AlphaMode::Opaque);
    for order in [[red, green], [green, red]] {
        let img = render(&order, &cam, &no_light(), &o);
        for (x, y) in inside {
            assert_eq!(px(&img, x, y), [255, 0, 0, 255], "{x},{y}");
        }
        assert_eq!(px(&img, 6, 1), [0, 0, 0, 0]);
    }
    let red = far.batch([1.0, 0.0, 0.0, 0.5], AlphaMode::Blend);
    let blue = near.batch([0.0, 0.0, 1.0, 0.5], AlphaMode::Blend);
    let img = render(&[blue, red], &cam, &no_light(), &opts(8, 8, 1, [255; 4]));
    for (x, y) in inside {
        // Blue over (red over white).
        assert_eq!(px(&img, x, y), [128, 64, 191, 255], "{x},{y}");
    }
}

#[test]
fn perspective_correct_texturing_on_a_receding_plane() {
    // A floor at y = -1 from z = -1.5 to -30, v growing with distance; the
    // texture is a 1×16 grey ramp so the bilinear value tells v exactly.
    let (z0, z1) = (1.5f32, 30.0f32);
    let m = Mesh {
        positions: vec![
            Vec3::new(-20.0, -1.0, -z0),
            Vec3::new(20.0, -1.0, -z0),
            Vec3::new(20.0, -1.0, -z1),
            Vec3::new(-20.0, -1.0, -z1),
        ],
        normals: vec![Vec3::Y; 4],
        uvs: vec![
            Vec2::new(0.5, 0.0),
            Vec2::new(0.5, 0.0),
            Vec2::new(0.5, 1.0),
            Vec2::new(0.5, 1.0),
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
    };
    let ramp = |i: usize| (8 + 15 * i) as u8;
    let tex = texture(
        1,
        16,
        (0..16).map(|i| [ramp(i), ramp(i), ramp(i), 255]).collect(),
    );
    let mut b = m.batch([1.0; 4], AlphaMode::Opaque);
    b.texture = Some(&tex);
    let fov = 60f32.to_radians();
    let cam = Camera {
        view: Mat4::IDENTITY,
        proj: Mat4::perspective_rh(fov, 1.0, 0.1, 100.0),
    };
    let n = 64;
    let img = render(&[b], &cam, &no_light(), &opts(n, n, 1, CLEAR));
    let tan = (fov / 2.0).tan() as f64;
    let mut checked = 0;
    for y in 0..n {
        let ndc_y = 1.0 - (y as f64 + 0.5) / (n as f64 / 2.0);
        if ndc_y >= 0.0 {
            assert_eq!(px(&img, 32, y)[3], 0, "row {y} above the horizon");
            continue;
        }
        let dist = -1.0 / (ndc_y * tan);
        let v = (dist - z0 as f64) / (z1 - z0) as f64;
        let t = v * 16.0 - 0.5;
        if !(0.5..=14.5).contains(&t) {
            continue;
        }
        let want = 8.0 + 15.0 * t;
        for x in [5, 32, 60] {
            let got = px(&img, x, y)[0] as f64;
            assert!(
                (got - want).abs() <= 1.5,
                "row {y} col {x}: {got} vs {want:.2}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 12, "{checked}");
}

#[test]
fn bilinear_sampling_of_a_2x2_texture_at_pixel_centres() {
    // Red, green / blue, white; a 4×4 image puts pixel centres at u, v of
    // 1/8, 3/8, 5/8, 7/8, i.e. a quarter texel either side of texel centres.
    let tex = texture(
        2,
        2,
        vec![
            [255, 0, 0, 255],
            [0, 255, 0, 255],
            [0, 0, 255, 255],
            [255, 255, 255, 255],
        ],
    );
    let m = Mesh::rect(0.0, 0.0, 4.0, 4.0, 0.0);
    let mut b = m.batch([1.0; 4], AlphaMode::Opaque);
    b.texture = Some(&tex);
    let img = render(
        &[b],
        &pixel_ortho(4.0, 4.0),
        &no_light(),
        &opts(4, 4, 1, CLEAR),
    );
    // (0,0): ¾·¾ red + ¾·¼ of its wrapped neighbours (green, blue) + ¼·¼ white.
    assert_eq!(px(&img, 0, 0), [159, 64, 64, 255]);
    assert_eq!(px(&img, 1, 1), [159, 64, 64, 255]);
    assert_eq!(px(&img, 2, 2), [159, 191, 191, 255]);
    // (1,0): u = 3/8 (¾ red, ¼ green), v = 1/8 (¾ top row, ¼ bottom row wrapped).
    assert_eq!(px(&img, 1, 0), [159, 64, 64, 255]);
    // (2,1): u = 5/8 (¼ red/blue column, ¾ green/white), v = 3/8.
    // r = ¾(¼·1) + ¼(¼·0 + ¾·1) = 0.375; g = ¾·¾ + ¼·¾ = 0.75; b = ¼(¼ + ¾) = 0.25
    assert_eq!(px(&img, 2, 1), [96, 191, 64, 255]);
}

#[test]
fn back_faces_cull_and_two_sided_faces_light_with_flipped_normals() {
    // Clockwise seen from the camera: a back face. Its normals point away
    // from the viewer, as a back face's normals do.
    let mut m = Mesh::rect(0.0, 0.0, 8.0, 8.0, 0.0);
    m.triangles = vec![[0, 2, 1], [0, 3, 2]];
    m.normals = vec![-Vec3::Z; 4];
    let light = Light {
        direction: Vec3::Z,
        color: Vec3::splat(0.75),
        ambient: Vec3::splat(0.25),
    };
    let cam = pixel_ortho(8.0, 8.0);
    let o = opts(8, 8, 1, CLEAR);
    let mut b = m.batch([1.0; 4], AlphaMode::Opaque);
    b.unlit = false;
    let culled = render(&[b], &cam, &light, &o);
    assert!(culled.pixels().all(|p| p.0 == CLEAR));
    b.two_sided = true;
    let lit = render(&[b], &cam, &light, &o);
    assert!(lit.pixels().all(|p| p.0 == [255, 255, 255, 255]));

    // The same normals on a front face face away from the light: ambient only.
    let mut front = Mesh::rect(0.0, 0.0, 8.0, 8.0, 0.0);
    front.normals = vec![-Vec3::Z; 4];
    let mut fb = front.batch([1.0; 4], AlphaMode::Opaque);
    fb.unlit = false;
    let dark = render(&[fb], &cam, &light, &o);
    assert!(dark.pixels().all(|p| p.0 == [64, 64, 64, 255]));
}

#[test]
fn alpha_mask_discards_transparent_texels_without_fringes() {
    // Green texels with transparent (premultiplied to 0) holes, magnified so
    // bilinear filtering produces every coverage between 0 and 1.
    let g = [0, 200, 0, 255];
    let o = [0, 0, 0, 0];
    let tex = texture(4, 4, vec![g, o, g, g, o, o, g, o, g, g, o, g, g, o, o, g]);
    let m = Mesh::rect(0.0, 0.0, 32.0, 32.0, 0.0);
    let mut b = m.batch([1.0; 4], AlphaMode::Mask(0.5));
    b.texture = Some(&tex);
    for ss in [1, 2] {
        let img = render(
            &[b],
            &pixel_ortho(32.0, 32.0),
            &no_light(),
            &opts(32, 32, ss, [255, 0, 255, 0]),
        );
        let mut counts = [0; 2];
        for p in img.pixels() {
            if p.0[3] == 0 {
                assert_eq!(p.0, CLEAR);
                counts[0] += 1;
            } else {
                // Partially covered (AA) or not, the colour is the texel's.
                assert_eq!(&p.0[..3], &[0, 200, 0], "{:?}", p.0);
                counts[1] += 1;
            }
        }
        assert!(counts[0] > 200 && counts[1] > 400, "{counts:?}");
    }
}

#[test]
fn blended_quads_give_the_same_image_in_either_submission_order() {
    let back = Mesh::rect(2.0, 2.0, 10.0, 10.0, -5.0);
    let front = Mesh::rect(6.0, 6.0, 14.0, 14.0, -1.0);
    let cam = pixel_ortho(16.0, 16.0);
    let red = back.batch([1.0, 0.0, 0.0, 0.5], AlphaMode::Blend);
    let blue = front.batch([0.0, 0.0, 1.0, 0.5], AlphaMode::Blend);
    let o = opts(16, 16, 2, [255, 255, 255, 255]);
    let a = render(&[red, blue], &cam, &no_light(), &o);
    let b = render(&[blue, red], &cam, &no_light(), &o);
    assert_eq!(a.as_raw(), b.as_raw());
    // Overlap: blue over (red over white) = (0.5, 0.25, 0.75).
    assert_eq!(px(&a, 8, 8), [128, 64, 191, 255]);
    assert_eq!(px(&a, 4, 12), [255, 128, 128, 255]);
}

#[test]
fn antialiased_edges_keep_the_object_colour() {
    let m = Mesh {
        positions: vec![
            Vec3::new(2.3, 3.1, 0.0),
            Vec3::new(29.6, 9.7, 0.0),
            Vec3::new(11.2, 30.4, 0.0),
        ],
        normals: vec![Vec3::Z; 3],
        uvs: vec![Vec2::ZERO; 3],
        triangles: vec![[0, 1, 2]],
    };
    let img = render(
        &[m.batch([1.0; 4], AlphaMode::Opaque)],
        &pixel_ortho(32.0, 32.0),
        &no_light(),
        &opts(32, 32, 4, CLEAR),
    );
    let mut partial = 0;
    for p in img.pixels() {
        if p.0[3] > 0 {
            assert_eq!(&p.0[..3], &[255, 255, 255], "{:?}", p.0);
        } else {
            assert_eq!(p.0, CLEAR);
        }
        if p.0[3] > 0 && p.0[3] < 255 {
            partial += 1;
        }
    }
    assert!(partial > 40, "{partial}");
}

#[test]
fn non_finite_and_out_of_range_input_does_not_panic() {
    let good = Mesh::rect(1.0, 1.0, 7.0, 7.0, 0.0);
    let bad = Mesh {
        positions: vec![
            Vec3::new(f32::NAN, 0.0, 0.0),
            Vec3::new(f32::INFINITY, 1.0, 0.0),
            Vec3::new(1.0, f32::NEG_INFINITY, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(1e30, -1e30, 0.0),
        ],
        normals: vec![Vec3::NAN; 2],
        uvs: vec![Vec2::NAN; 6],
        triangles: vec![
            [0, 1, 3],
            [1, 2, 3],
            [3, 4, 5],
            [3, 3, 3],
            [0, 9, 99],
            [3, 4, 5],
        ],
    };
    let empty_tex = texture(0, 0, vec![]);
    let short_tex = texture(4, 4, vec![[1, 2, 3, 4]]);
    let mut b1 = bad.batch([f32::NAN, 1.0, 0.0, 1.0], AlphaMode::Mask(f32::NAN));
    b1.texture = Some(&empty_tex);
    b1.unlit = false;
    let mut b2 = bad.batch([1.0; 4], AlphaMode::Blend);
    b2.texture = Some(&short_tex);
    let empty = Mesh {
        positions: vec![],
        normals: vec![],
        uvs: vec![],
        triangles: vec![],
    };
    let batches = [
        b1,
        b2,
        empty.batch([1.0; 4], AlphaMode::Opaque),
        good.batch([0.0, 1.0, 0.0, 1.0], AlphaMode::Opaque),
    ];
    let light = Light {
        direction: Vec3::NAN,
        color: Vec3::ONE,
        ambient: Vec3::ZERO,
    };
    let img = render(
        &batches,
        &pixel_ortho(8.0, 8.0),
        &light,
        &opts(8, 8, 2, CLEAR),
    );
    assert_eq!(px(&img, 4, 4), [0, 255, 0, 255]);
    let nan_cam = Camera {
        view: Mat4::from_cols_array(&[f32::NAN; 16]),
        proj: Mat4::IDENTITY,
    };
    let img = render(&batches, &nan_cam, &light, &opts(8, 8, 1, CLEAR));
    assert!(img.pixels().all(|p| p.0 == CLEAR));
    let img = render(
        &batches,
        &pixel_ortho(8.0, 8.0),
        &light,
        &opts(0, 5, 1, CLEAR),
    );
    assert_eq!(img.dimensions(), (0, 5));
}

#[test]
fn huge_floor_crossing_the_near_plane_renders_cleanly() {
    // A floor triangle tens of kilometres wide that passes behind the eye.
    let m = Mesh {
        positions: vec![
            Vec3::new(-1e4, 0.0, 1e4),
            Vec3::new(1e4, 0.0, 1e4),
            Vec3::new(0.0, 0.0, -1e4),
        ],
        normals: vec![Vec3::Y; 3],
        uvs: vec![Vec2::ZERO; 3],
        triangles: vec![[0, 1, 2]],
    };
    let cam = Camera {
        view: Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0)),
        proj: Mat4::perspective_rh(90f32.to_radians(), 1.0, 0.1, 100.0),
    };
    for ss in [1, 2] {
        let img = render(
            &[m.batch([0.0, 0.5, 1.0, 1.0], AlphaMode::Opaque)],
            &cam,
            &no_light(),
            &opts(64, 64, ss, CLEAR),
        );
        for (x, y, p) in img.enumerate_pixels() {
            // The far plane (100) cuts the floor just below the horizon; row
            // 32's centre already sees it 64 units away.
            // At 2× the upper sample row of pixel row 32 lies beyond it.
            let want = match (y, ss) {
                (32, 2) => [0, 128, 255, 128],
                (32.., _) => [0, 128, 255, 255],
                _ => CLEAR,
            };
            assert_eq!(p.0, want, "{x},{y} ss {ss}");
        }
    }
}

#[test]
fn rendering_is_deterministic() {
    let (scene, cam, light) = lit_cube_scene();
    let a = scene.render(&cam, &light, &opts(96, 96, 2, CLEAR));
    let b = scene.render(&cam, &light, &opts(96, 96, 2, CLEAR));
    assert_eq!(a.as_raw(), b.as_raw());
}

#[test]
fn an_image_drawn_into_a_cell_of_a_larger_one_is_the_image_rendered() {
    let (scene, cam, light) = lit_cube_scene();
    let mut b = scene.mesh.batch([1.0; 4], AlphaMode::Opaque);
    b.texture = Some(&scene.tex);
    b.unlit = false;
    // Below and above the size whose tiles are drawn in parallel, with and
    // without supersampling, on a background and on transparency.
    for (w, h, ss, bg) in [
        (70, 45, 1, CLEAR),
        (96, 96, 3, [10, 20, 30, 255]),
        (2100, 2050, 1, CLEAR),
    ] {
        let o = opts(w, h, ss, bg);
        let whole = render_at(&[b], &cam, &light, &o, Level::detect());
        // A canvas with a 3-pixel margin of 0xAB around the cell: the
        // margin must come back untouched.
        let (cw, ch) = (w as usize + 6, h as usize + 5);
        let mut canvas = vec![0xABu8; cw * ch * 4];
        {
            let mut rows: Vec<&mut [u8]> = canvas
                .chunks_exact_mut(cw * 4)
                .skip(2)
                .take(h as usize)
                .map(|r| &mut r[3 * 4..])
                .collect();
            render_into(&[b], &cam, &light, &o, Level::detect(), &mut rows);
        }
        for (y, row) in canvas.chunks_exact(cw * 4).enumerate() {
            let inside = (2..2 + h as usize).contains(&y);
            for (x, px) in row.chunks_exact(4).enumerate() {
                let cell = inside && (3..3 + w as usize).contains(&x);
                if cell {
                    let p = whole.get_pixel(x as u32 - 3, y as u32 - 2).0;
                    assert_eq!(px, p, "{w}x{h}: ({x}, {y})");
                } else {
                    assert_eq!(px, [0xAB; 4], "{w}x{h}: margin ({x}, {y})");
                }
            }
        }
    }
}

struct Scene {
    mesh: Mesh,
    tex: Texture,
}

impl Scene {
    fn render(&self, cam: &Camera, light: &Light, o: &RenderOptions) -> RgbaImage {
        let mut b = self.mesh.batch([1.0; 4], AlphaMode::Opaque);
        b.texture = Some(&self.tex);
        b.unlit = false;
        render(&[b], cam, light, o)
    }
}

fn checker(n: u32, cell: u32, a: [u8; 4], b: [u8; 4]) -> Texture {
    let texels = (0..n * n)
        .map(|i| {
            if ((i % n) / cell + (i / n) / cell).is_multiple_of(2) {
                a
            } else {
                b
            }
        })
        .collect();
    texture(n, n, texels)
}

fn cube() -> Mesh {
    let mut m = Mesh {
        positions: vec![],
        normals: vec![],
        uvs: vec![],
        triangles: vec![],
    };
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut n = Vec3::ZERO;
            n[axis] = sign;
            // Two tangents making (t1, t2, n) right-handed so the face is CCW
            // seen from outside.
            let t1 = Vec3::new(n.y.abs() + n.z.abs(), n.x.abs(), 0.0) * 0.0
                + match axis {
                    0 => Vec3::Y,
                    1 => Vec3::Z,
                    _ => Vec3::X,
                };
            let t2 = n.cross(t1);
            let base = m.positions.len() as u32;
            for (s, t) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                m.positions.push(n + t1 * s + t2 * t);
                m.normals.push(n);
                m.uvs.push(Vec2::new((s + 1.0) / 2.0, (1.0 - t) / 2.0));
            }
            // (t1, t2) = n × t1 is CCW around n when t1 × t2 = n.
            if t1.cross(t2).dot(n) > 0.0 {
                m.triangles.push([base, base + 1, base + 2]);
                m.triangles.push([base, base + 2, base + 3]);
            } else {
                m.triangles.push([base, base + 2, base + 1]);
                m.triangles.push([base, base + 3, base + 2]);
            }
        }
    }
    m
}

fn lit_cube_scene() -> (Scene, Camera, Light) {
    let scene = Scene {
        mesh: cube(),
        tex: checker(16, 4, [230, 200, 60, 255], [40, 90, 200, 255]),
    };
    let cam = Camera {
        view: Mat4::look_at_rh(Vec3::new(3.0, 2.5, 4.0), Vec3::ZERO, Vec3::Y),
        proj: Mat4::perspective_rh(40f32.to_radians(), 1.0, 0.5, 20.0),
    };
    let light = Light {
        direction: Vec3::new(0.4, 1.0, 0.7).normalize(),
        color: Vec3::splat(0.8),
        ambient: Vec3::splat(0.25),
    };
    (scene, cam, light)
}

#[test]
fn golden_lit_textured_cube() {
    let (scene, cam, light) = lit_cube_scene();
    let img = scene.render(&cam, &light, &opts(96, 96, 2, CLEAR));
    common::assert_golden("raster/lit_cube", &img);
}

#[test]
fn golden_masked_and_blended_planes() {
    // A colour-keyed fence in front of a translucent pane over a floor.
    let hole = [0, 0, 0, 0];
    let wood = [150, 90, 40, 255];
    let fence_tex = texture(
        8,
        8,
        (0..64)
            .map(|i| {
                if (i % 8) < 2 || (i / 8) % 4 == 1 {
                    wood
                } else {
                    hole
                }
            })
            .collect(),
    );
    let floor_tex = checker(8, 1, [200, 200, 200, 255], [90, 110, 90, 255]);
    let floor = Mesh {
        positions: vec![
            Vec3::new(-3.0, -1.0, 3.0),
            Vec3::new(3.0, -1.0, 3.0),
            Vec3::new(3.0, -1.0, -3.0),
            Vec3::new(-3.0, -1.0, -3.0),
        ],
        normals: vec![Vec3::Y; 4],
        uvs: vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(2.0, 0.0),
            Vec2::new(2.0, 2.0),
            Vec2::new(0.0, 2.0),
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
    };
    let fence = Mesh::rect(-2.0, -1.0, 2.0, 1.0, 0.5);
    let pane = Mesh::rect(-1.0, -0.8, 1.5, 1.2, -1.0);
    let mut fb = fence.batch([1.0; 4], AlphaMode::Mask(0.5));
    fb.texture = Some(&fence_tex);
    fb.uv_transform = Affine2::from_scale(Vec2::new(2.0, 1.0));
    fb.two_sided = true;
    let mut flb = floor.batch([1.0; 4], AlphaMode::Opaque);
    flb.texture = Some(&floor_tex);
    flb.unlit = false;
    let pb = pane.batch([0.2, 0.6, 1.0, 0.45], AlphaMode::Blend);
    let cam = Camera {
        view: Mat4::look_at_rh(Vec3::new(1.0, 1.5, 5.0), Vec3::new(0.0, -0.2, 0.0), Vec3::Y),
        proj: Mat4::perspective_rh(45f32.to_radians(), 1.25, 0.5, 30.0),
    };
    let light = Light {
        direction: Vec3::new(-0.3, 1.0, 0.5).normalize(),
        color: Vec3::splat(0.7),
        ambient: Vec3::splat(0.3),
    };
    let img = render(&[pb, fb, flb], &cam, &light, &opts(120, 96, 3, CLEAR));
    common::assert_golden("raster/masked_blended", &img);
}

#[test]
fn background_is_the_same_in_empty_and_drawn_tiles() {
    // Tiles without triangles are filled directly; they must match what the
    // resolve makes of untouched samples in a drawn tile.
    let m = Mesh::rect(3.0, 3.0, 9.0, 9.0, 0.0);
    // 0 and 9 are out of range and clamp to 1 and 4.
    for ss in [0, 1, 3, 9] {
        let img = render(
            &[m.batch([1.0, 1.0, 1.0, 1.0], AlphaMode::Opaque)],
            &pixel_ortho(100.0, 70.0),
            &no_light(),
            &opts(100, 70, ss, [200, 100, 50, 128]),
        );
        let bg: Vec<[u8; 4]> = img
            .pixels()
            .map(|p| p.0)
            .filter(|p| *p != [255, 255, 255, 255])
            .collect();
        assert_eq!(bg.len(), 100 * 70 - 36);
        assert!(bg.iter().all(|p| *p == [200, 100, 50, 128]), "{:?}", bg[0]);
    }
}

// ---- Lightmap layer ----------------------------------------------------

fn layer<'a>(w: u32, h: u32, texels: &'a [[u8; 4]], uvs: &'a [Vec2]) -> LightmapLayer<'a> {
    LightmapLayer {
        width: w,
        height: h,
        texels,
        uvs,
    }
}

/// `texel · lm.a + lm.rgb` per channel in 0..255, clamped and rounded the
/// way the rasterizer's output conversion rounds.
fn lit_by(texel: [f64; 3], lm: [f64; 4]) -> [u8; 4] {
    let ch = |i: usize| (texel[i] * lm[3] / 255.0 + lm[i]).min(255.0).round() as u8;
    [ch(0), ch(1), ch(2), 255]
}

#[test]
fn lightmap_texels_multiply_then_add_at_their_centres() {
    // 6×6 pixels over a 2×2 lightmap: pixels 1 and 4 sit on texel centres,
    // pixel 0 and 5 lie outside them and must clamp to the edge texel.
    let m = Mesh::rect(0.0, 0.0, 6.0, 6.0, 0.0);
    let tex = texture(1, 1, vec![[200, 100, 50, 255]]);
    let lm = [
        [40, 80, 120, 128], // top left
        [200, 0, 0, 255],   // top right: red saturates
        [0, 0, 0, 0],       // bottom left: black
        [10, 20, 30, 64],   // bottom right
    ];
    let mut b = m.batch([1.0; 4], AlphaMode::Opaque);
    b.texture = Some(&tex);
    b.lightmap = Some(layer(2, 2, &lm, &m.uvs));
    let light = Light {
        direction: Vec3::Z,
        color: Vec3::splat(0.5),
        ambient: Vec3::splat(0.25),
    };
    let cam = pixel_ortho(6.0, 6.0);
    let o = opts(6, 6, 1, CLEAR);
    let unlit = render(&[b], &cam, &no_light(), &o);
    b.unlit = false;
    let lit = render(&[b], &cam, &light, &o);
    for (i, (x, y)) in [(1, 1), (4, 1), (1, 4), (4, 4)].into_iter().enumerate() {
        let l = lm[i].map(|c| c as f64);
        assert_eq!(px(&unlit, x, y), lit_by([200.0, 100.0, 50.0], l), "{x},{y}");
        // Lit by 0.25 + 0.5 · 1 = 0.75 before the lightmap.
        assert_eq!(px(&lit, x, y), lit_by([150.0, 75.0, 37.5], l), "{x},{y}");
        // Clamp to edge: the outer pixel repeats the edge texel.
        let (ox, oy) = (if x == 1 { 0 } else { 5 }, if y == 1 { 0 } else { 5 });
        assert_eq!(px(&unlit, ox, oy), px(&unlit, x, y), "{ox},{oy}");
    }
    // The figures above, spelled out for the first texel.
    assert_eq!(px(&unlit, 1, 1), [140, 130, 145, 255]);
    assert_eq!(px(&lit, 1, 1), [115, 118, 139, 255]);
    assert_eq!(px(&unlit, 4, 1), [255, 100, 50, 255]);
    assert_eq!(px(&unlit, 1, 4), [0, 0, 0, 255]);
}

#[test]
fn lightmap_uvs_are_independent_of_texture_uvs_and_filter_bilinearly() {
    // Texture columns map to pixel columns; the lightmap runs down the image
    // instead, from its left texel (identity) at the top to its right one at
    // the bottom, with row 2 exactly between the two.
    let m = Mesh::rect(0.0, 0.0, 5.0, 5.0, 0.0);
    let grey = [250u8, 200, 150, 100, 50];
    let tex = texture(5, 1, grey.iter().map(|&g| [g, g, g, 255]).collect());
    let lm = [[0, 0, 0, 255], [100, 60, 20, 55]];
    // Vertices: bottom left, bottom right, top right, top left.
    let lm_uvs = [
        Vec2::new(1.0, 0.5),
        Vec2::new(1.0, 0.5),
        Vec2::new(0.0, 0.5),
        Vec2::new(0.0, 0.5),
    ];
    let mut b = m.batch([1.0; 4], AlphaMode::Opaque);
    b.texture = Some(&tex);
    b.lightmap = Some(layer(2, 1, &lm, &lm_uvs));
    let img = render(
        &[b],
        &pixel_ortho(5.0, 5.0),
        &no_light(),
        &opts(5, 5, 1, CLEAR),
    );
    for y in 0..5u32 {
        // Lightmap u = (y + ½) / 5; texel space x = 2u - ½, clamped.
        let t = ((2.0 * (y as f64 + 0.5) / 5.0) - 0.5).clamp(0.0, 1.0);
        let l: [f64; 4] =
            std::array::from_fn(|c| lm[0][c] as f64 * (1.0 - t) + lm[1][c] as f64 * t);
        for x in 0..5u32 {
            let g = grey[x as usize] as f64;
            let want = lit_by([g; 3], l);
            let got = px(&img, x, y);
            if y % 2 == 0 {
                // Edge texels and the exact midpoint: no weight rounding.
                assert_eq!(got, want, "{x},{y}");
            } else {
                for c in 0..3 {
                    assert!(
                        got[c].abs_diff(want[c]) <= 1,
                        "{x},{y}: {got:?} vs {want:?}"
                    );
                }
            }
        }
    }
    // Midpoint of [0,0,0,255] and [100,60,20,55] is [50,30,10,155].
    assert_eq!(px(&img, 0, 2), [202, 182, 162, 255]);
    assert_eq!(px(&img, 4, 2), [80, 60, 40, 255]);
    assert_eq!(px(&img, 0, 0), [250, 250, 250, 255]);
    assert_eq!(px(&img, 3, 4), [122, 82, 42, 255]);
}

/// A floor at y = 0 from z = `z_back` to z = -30, seen from (0, 2, 0)
/// looking down toward (0, 0, -6); the lightmap is a 1×16 grey ramp with
/// alpha 0 running along the floor, so each pixel shows the lightmap v
/// where its ray meets the floor. Returns how many pixels were checked.
fn check_floor_ramp(z_back: f32, n: u32) -> usize {
    let z_far = -30.0f32;
    let m = Mesh {
        positions: vec![
            Vec3::new(-20.0, 0.0, z_back),
            Vec3::new(20.0, 0.0, z_back),
            Vec3::new(20.0, 0.0, z_far),
            Vec3::new(-20.0, 0.0, z_far),
        ],
        normals: vec![Vec3::Y; 4],
        // Texture UVs that would give a different picture if they were used.
        uvs: vec![Vec2::ZERO; 4],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
    };
    let lm_uvs = [
        Vec2::new(0.5, 0.0),
        Vec2::new(0.5, 0.0),
        Vec2::new(0.5, 1.0),
        Vec2::new(0.5, 1.0),
    ];
    let ramp = |i: usize| (8 + 15 * i) as u8;
    let lm: Vec<[u8; 4]> = (0..16).map(|i| [ramp(i), ramp(i), ramp(i), 0]).collect();
    let tex = texture(2, 1, vec![[255, 0, 0, 255], [0, 0, 255, 255]]);
    let mut b = m.batch([1.0; 4], AlphaMode::Opaque);
    b.texture = Some(&tex);
    b.lightmap = Some(layer(1, 16, &lm, &lm_uvs));
    let cam = Camera {
        view: Mat4::look_at_rh(Vec3::new(0.0, 2.0, 0.0), Vec3::new(0.0, 0.0, -6.0), Vec3::Y),
        proj: Mat4::perspective_rh(60f32.to_radians(), 1.0, 0.1, 100.0),
    };
    let img = render(&[b], &cam, &no_light(), &opts(n, n, 1, CLEAR));
    let inv = (cam.proj * cam.view).inverse();
    let mut checked = 0;
    for y in 0..n {
        for x in 0..n {
            let ndc = |z: f32| {
                Vec3::new(
                    2.0 * (x as f32 + 0.5) / n as f32 - 1.0,
                    1.0 - 2.0 * (y as f32 + 0.5) / n as f32,
                    z,
                )
            };
            let (p0, p1) = (inv.project_point3(ndc(0.0)), inv.project_point3(ndc(1.0)));
            let d = p1 - p0;
            let got = px(&img, x, y);
            if d.y >= 0.0 {
                assert_eq!(got, CLEAR, "{x},{y} above the horizon");
                continue;
            }
            let hit = p0 + d * (-p0.y / d.y);
            let v = ((z_back - hit.z) / (z_back - z_far)) as f64;
            let t = v * 16.0 - 0.5;
            if hit.x.abs() > 19.0 || !(0.5..=14.5).contains(&t) {
                continue;
            }
            let want = 8.0 + 15.0 * t;
            // Colour is the lightmap alone (alpha 0 cancels the texture).
            assert_eq!((got[0], got[2], got[3]), (got[1], got[1], 255), "{x},{y}");
            assert!(
                (got[0] as f64 - want).abs() <= 1.5,
                "{x},{y}: {} vs {want:.2}",
                got[0]
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn lightmap_is_perspective_correct_under_a_tilted_camera() {
    // The floor starts 1 unit in front of the eye: no clipping.
    let checked = check_floor_ramp(-1.0, 64);
    assert!(checked > 1500, "{checked}");
}

#[test]
fn lightmap_survives_near_plane_clipping() {
    // The floor starts 10 units behind the eye: every triangle is clipped by
    // the near plane and the new vertices must carry interpolated lightmap UVs.
    let checked = check_floor_ramp(10.0, 64);
    assert!(checked > 1500, "{checked}");
}

#[test]
fn identity_and_unusable_layers_leave_the_image_unchanged() {
    let (scene, cam, light) = lit_cube_scene();
    let o = opts(96, 96, 2, CLEAR);
    let plain = scene.render(&cam, &light, &o);
    let draw = |l: LightmapLayer| {
        let mut b = scene.mesh.batch([1.0; 4], AlphaMode::Opaque);
        b.texture = Some(&scene.tex);
        b.unlit = false;
        b.lightmap = Some(l);
        render(&[b], &cam, &light, &o)
    };
    // alpha 1, rgb 0 multiplies by one and adds nothing; no UVs at all reads
    // (0, 0) and must not panic.
    let identity = [[0, 0, 0, 255]; 4];
    assert_eq!(draw(layer(2, 2, &identity, &[])).as_raw(), plain.as_raw());
    let nan_uvs = vec![Vec2::new(f32::NAN, f32::INFINITY); scene.mesh.positions.len()];
    assert_eq!(
        draw(layer(2, 2, &identity, &nan_uvs)).as_raw(),
        plain.as_raw()
    );
    // Unusable layers are ignored: no size, or fewer texels than w × h.
    let dark = [[0, 0, 0, 0]; 4];
    let uvs = &scene.mesh.uvs;
    assert_eq!(draw(layer(0, 2, &dark, uvs)).as_raw(), plain.as_raw());
    assert_eq!(draw(layer(2, 0, &dark, uvs)).as_raw(), plain.as_raw());
    assert_eq!(draw(layer(3, 2, &dark, uvs)).as_raw(), plain.as_raw());
    // The same texels with a valid size do darken every drawn pixel.
    let black = draw(layer(2, 2, &dark, uvs));
    assert!(black.pixels().all(|p| p.0[..3] == [0, 0, 0]));
    assert_eq!(
        black.pixels().filter(|p| p.0[3] > 0).count(),
        plain.pixels().filter(|p| p.0[3] > 0).count()
    );
}

#[test]
fn lightmap_keeps_blended_alpha() {
    // Half-transparent white over opaque black: straight colour
    // min(1, 1 · 0.5 + 0.25) = 0.75 at alpha ½ blends to 0.375.
    let m = Mesh::rect(0.0, 0.0, 4.0, 4.0, 0.0);
    let lm = [[64, 64, 64, 128]];
    let mut b = m.batch([1.0, 1.0, 1.0, 0.5], AlphaMode::Blend);
    b.lightmap = Some(layer(1, 1, &lm, &m.uvs));
    let img = render(
        &[b],
        &pixel_ortho(4.0, 4.0),
        &no_light(),
        &opts(4, 4, 1, [0, 0, 0, 255]),
    );
    // (128/255 + 64/255) · 0.5 · 255 = 96.
    assert!(
        img.pixels().all(|p| p.0 == [96, 96, 96, 255]),
        "{:?}",
        px(&img, 0, 0)
    );
}

// ---- Instruction-set levels and threads ---------------------------------

/// Every path through the fragment code at once: a lit textured cube, a
/// colour-keyed two-sided fence, a translucent pane and a lightmapped
/// floor, drawn at `level`.
fn mixed_scene(level: Level, o: &RenderOptions) -> RgbaImage {
    let (scene, cam, light) = lit_cube_scene();
    let hole = [0, 0, 0, 0];
    let fence_tex = texture(
        8,
        8,
        (0..64)
            .map(|i| {
                if (i % 8) < 3 {
                    [150, 90, 40, 255]
                } else {
                    hole
                }
            })
            .collect(),
    );
    let fence = Mesh::rect(-2.0, -1.5, 2.0, 1.5, 1.2);
    let pane = Mesh::rect(-1.5, -0.5, 1.0, 2.0, 1.6);
    let floor = Mesh::rect(-3.0, -3.0, 3.0, 3.0, -1.5);
    let lm_texels = [
        [30, 10, 0, 255],
        [0, 40, 90, 120],
        [90, 0, 20, 60],
        [0, 0, 0, 255],
    ];
    let lm_uvs = [
        Vec2::new(0.0, 0.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(0.0, 1.0),
    ];
    let mut cube = scene.mesh.batch([1.0; 4], AlphaMode::Opaque);
    cube.texture = Some(&scene.tex);
    cube.unlit = false;
    let mut fb = fence.batch([1.0; 4], AlphaMode::Mask(0.5));
    fb.texture = Some(&fence_tex);
    fb.uv_transform = Affine2::from_scale(Vec2::new(3.0, 2.0));
    fb.two_sided = true;
    fb.unlit = false;
    let pb = pane.batch([0.2, 0.6, 1.0, 0.45], AlphaMode::Blend);
    let mut flb = floor.batch([1.0; 4], AlphaMode::Opaque);
    flb.texture = Some(&scene.tex);
    flb.uv_transform = Affine2::from_scale(Vec2::new(2.5, 2.5));
    flb.lightmap = Some(layer(2, 2, &lm_texels, &lm_uvs));
    render_at(&[cube, flb, fb, pb], &cam, &light, o, level)
}

#[test]
fn every_simd_level_draws_the_portable_bytes() {
    let levels: Vec<Level> = Level::ALL.into_iter().filter(|l| l.available()).collect();
    eprintln!("levels on this CPU: {:?}", levels);
    for (w, h, ss) in [(96, 96, 1), (101, 67, 2), (64, 80, 3), (40, 40, 4)] {
        let o = opts(w, h, ss, CLEAR);
        let reference = mixed_scene(Level::Portable, &o);
        // The scene must reach every path: opaque, masked, blended and
        // lightmapped pixels all land in the image.
        let drawn = reference.pixels().filter(|p| p.0[3] > 0).count();
        assert!(
            drawn > (w * h) as usize / 3,
            "{w}x{h}: {drawn} pixels drawn"
        );
        for &level in &levels {
            let img = mixed_scene(level, &o);
            assert!(
                img.as_raw() == reference.as_raw(),
                "{} differs from portable at {w}x{h} ss {ss}",
                level.name()
            );
        }
    }
}

#[test]
fn large_images_draw_identically_on_one_and_two_threads_and_every_level() {
    // 2048² samples reach the tile-parallel path; a one-thread pool draws
    // the same image tile row by tile row.
    let o = opts(1024, 1024, 2, [20, 30, 40, 255]);
    let on = |threads: usize, level: Level| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| mixed_scene(level, &o))
    };
    let one = on(1, Level::Portable);
    for level in Level::ALL.into_iter().filter(|l| l.available()) {
        let two = on(2, level);
        assert!(
            one.as_raw() == two.as_raw(),
            "2 threads at {} differ from 1 thread portable",
            level.name()
        );
    }
}

/// `n` small triangles scattered over a `size`² area at pseudo-random
/// depths, windings and texture coordinates: most overlap others, many
/// cover a sample or two, some none.
fn soup(n: usize, size: f32, seed: u64) -> Mesh {
    let mut state = seed;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut m = Mesh {
        positions: Vec::new(),
        normals: Vec::new(),
        uvs: Vec::new(),
        triangles: Vec::new(),
    };
    for t in 0..n as u32 {
        let (cx, cy, z) = (next() * size, next() * size, next() * 8.0 - 4.0);
        let reach = 0.5 + next() * 4.0;
        for _ in 0..3 {
            let p = Vec3::new(
                cx + (next() - 0.5) * reach,
                cy + (next() - 0.5) * reach,
                z + (next() - 0.5),
            );
            m.positions.push(p);
            m.normals
                .push(Vec3::new(next() - 0.5, next() - 0.5, 1.0).normalize());
            m.uvs.push(Vec2::new(next(), next()));
        }
        m.triangles.push([3 * t, 3 * t + 1, 3 * t + 2]);
    }
    m
}

#[test]
fn triangles_shaded_in_groups_give_the_image_of_each_shaded_alone() {
    // Triangles of one material and facing share packets: their samples
    // wait in the queue and are shaded with the next triangles'. Each
    // triangle as a batch of its own (a material change after every
    // triangle) is shaded alone, the way every triangle once was; the two
    // must agree to the byte in every alpha mode, whatever the overlaps,
    // facings and tile edges in between.
    let soups = [soup(1500, 40.0, 1), soup(700, 40.0, 2), soup(900, 40.0, 3)];
    let alone: Vec<Vec<Mesh>> = soups
        .iter()
        .map(|m| {
            m.triangles
                .iter()
                .map(|t| {
                    let pick = |v: &[Vec3]| t.map(|i| v[i as usize]).to_vec();
                    Mesh {
                        positions: pick(&m.positions),
                        normals: pick(&m.normals),
                        uvs: t.map(|i| m.uvs[i as usize]).to_vec(),
                        triangles: vec![[0, 1, 2]],
                    }
                })
                .collect()
        })
        .collect();
    let (solid, holes) = ([230, 200, 60, 255], [40, 90, 200, 0]);
    let textures = [
        checker(16, 3, solid, [40, 90, 200, 255]),
        checker(16, 3, solid, holes),
        checker(16, 3, solid, [40, 90, 200, 128]),
    ];
    let cam = pixel_ortho(40.0, 40.0);
    let light = Light {
        direction: Vec3::new(0.3, 0.5, 1.0).normalize(),
        color: Vec3::splat(0.7),
        ambient: Vec3::splat(0.3),
    };
    // Soup k: its colour and texture (none for the second), two-sided
    // but for the third.
    fn batch<'a>(m: &'a Mesh, k: usize, alpha: AlphaMode, textures: &'a [Texture]) -> Batch<'a> {
        let colours = [
            [1.0, 1.0, 1.0, 1.0],
            [1.0, 0.4, 0.4, 1.0],
            [0.5, 1.0, 0.8, 1.0],
        ];
        let mut b = m.batch(colours[k], alpha);
        b.texture = (k != 1).then_some(&textures[k]);
        b.two_sided = k != 2;
        b.unlit = false;
        b
    }
    for alpha in [AlphaMode::Opaque, AlphaMode::Mask(0.5), AlphaMode::Blend] {
        let grouped: Vec<Batch> = (0..3)
            .map(|k| batch(&soups[k], k, alpha, &textures))
            .collect();
        let single: Vec<Batch> = (0..3)
            .flat_map(|k| alone[k].iter().map(move |m| (m, k)))
            .map(|(m, k)| batch(m, k, alpha, &textures))
            .collect();
        for (w, ss) in [(40, 1), (40, 2), (23, 3)] {
            let o = opts(w, w, ss, CLEAR);
            let reference = render_at(&single, &cam, &light, &o, Level::Portable);
            let drawn = reference.pixels().filter(|p| p.0[3] > 0).count();
            assert!(drawn > (w * w) as usize / 2, "{w}² ss {ss}: {drawn} drawn");
            for level in Level::ALL.into_iter().filter(|l| l.available()) {
                let img = render_at(&grouped, &cam, &light, &o, level);
                assert!(
                    img.as_raw() == reference.as_raw(),
                    "{alpha:?} {w}² ss {ss} at {}: grouped triangles differ",
                    level.name()
                );
            }
        }
    }
}
