//! The rasterizer's layers and levels on small synthetic scenes: lightmaps
//! (multiplied then added at their texel centres, their own UVs, perspective
//! correct, clipped, blended alpha kept), every SIMD level and thread count
//! drawing the portable bytes, and triangles shaded in groups.

use crate::raster::{
    checker, lit_cube_scene, no_light, opts, pixel_ortho, px, texture, Mesh, CLEAR,
};
use glam::{Affine2, Mat4, Vec2, Vec3};
use image::RgbaImage;
use kiln::internals::raster::{
    render, render_at, Batch, Camera, Level, Light, LightmapLayer, RenderOptions,
};
use kiln::internals::scene::AlphaMode;
use kiln::internals::texture::Texture;

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
