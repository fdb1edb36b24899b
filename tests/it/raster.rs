//! Behaviour of kiln's CPU rasterizer on small synthetic scenes.

use crate::common;

use glam::{Affine2, Mat4, Vec2, Vec3};
use image::RgbaImage;
use kiln::internals::raster::{
    render, render_at, render_into, Batch, Camera, Level, Light, RenderOptions,
};
use kiln::internals::scene::AlphaMode;
use kiln::internals::texture::{Texture, TextureAlpha};

pub(crate) const CLEAR: [u8; 4] = [0, 0, 0, 0];

pub(crate) fn opts(w: u32, h: u32, ss: u32, bg: [u8; 4]) -> RenderOptions {
    RenderOptions {
        width: w,
        height: h,
        supersample: ss,
        background: bg,
    }
}

/// World units = pixels, origin bottom-left, y up.
pub(crate) fn pixel_ortho(w: f32, h: f32) -> Camera {
    Camera {
        view: Mat4::IDENTITY,
        proj: Mat4::orthographic_rh(0.0, w, 0.0, h, -10.0, 10.0),
    }
}

pub(crate) fn no_light() -> Light {
    Light {
        direction: Vec3::Z,
        color: Vec3::ZERO,
        ambient: Vec3::ONE,
    }
}

pub(crate) struct Mesh {
    pub(crate) positions: Vec<Vec3>,
    pub(crate) normals: Vec<Vec3>,
    pub(crate) uvs: Vec<Vec2>,
    pub(crate) triangles: Vec<[u32; 3]>,
}

impl Mesh {
    /// A quad from its four corners (counter-clockwise seen from +z), UVs
    /// (0,1) (1,1) (1,0) (0,0) so v = 0 is the top edge.
    pub(crate) fn quad(c: [Vec3; 4]) -> Mesh {
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

    pub(crate) fn rect(x0: f32, y0: f32, x1: f32, y1: f32, z: f32) -> Mesh {
        Mesh::quad([
            Vec3::new(x0, y0, z),
            Vec3::new(x1, y0, z),
            Vec3::new(x1, y1, z),
            Vec3::new(x0, y1, z),
        ])
    }

    pub(crate) fn batch<'a>(&'a self, color: [f32; 4], alpha: AlphaMode) -> Batch<'a> {
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

pub(crate) fn texture(w: u32, h: u32, texels: Vec<[u8; 4]>) -> Texture {
    Texture {
        name: "test".into(),
        width: w,
        height: h,
        texels,
        alpha: TextureAlpha::Opaque,
    }
}

pub(crate) fn px(img: &RgbaImage, x: u32, y: u32) -> [u8; 4] {
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

pub(crate) struct Scene {
    pub(crate) mesh: Mesh,
    pub(crate) tex: Texture,
}

impl Scene {
    pub(crate) fn render(&self, cam: &Camera, light: &Light, o: &RenderOptions) -> RgbaImage {
        let mut b = self.mesh.batch([1.0; 4], AlphaMode::Opaque);
        b.texture = Some(&self.tex);
        b.unlit = false;
        render(&[b], cam, light, o)
    }
}

pub(crate) fn checker(n: u32, cell: u32, a: [u8; 4], b: [u8; 4]) -> Texture {
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

pub(crate) fn lit_cube_scene() -> (Scene, Camera, Light) {
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
