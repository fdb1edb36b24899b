//! Rasterizer throughput on the shared benchmark scene: a torus knot of
//! 10,000 triangles with a 256×256 alpha-tested texture, one directional
//! light plus ambient, 35° perspective (the same work Mesa llvmpipe is
//! timed on in /work/shared/bench).

mod harness;

use glam::{Affine2, Mat4, Vec2, Vec3};
use kiln::internals::raster::{render, Batch, Camera, Light, RenderOptions};
use kiln::internals::scene::AlphaMode;
use kiln::internals::texture::{Texture, TextureAlpha};
use std::f32::consts::TAU;
use std::hint::black_box;

struct Knot {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    triangles: Vec<[u32; 3]>,
}

/// (2,3) torus knot swept by a tube: 2·U·V triangles.
fn knot(tris: usize) -> Knot {
    let v_seg = 20usize;
    let u_seg = (tris / (2 * v_seg)).max(3);
    let (p, q, r_tube) = (2.0f32, 3.0f32, 0.13f32);
    let curve = |t: f32| {
        let r = 0.45 + 0.2 * (q * t).cos();
        Vec3::new(r * (p * t).cos(), r * (p * t).sin(), 0.2 * (q * t).sin())
    };
    let mut k = Knot {
        positions: vec![],
        normals: vec![],
        uvs: vec![],
        triangles: vec![],
    };
    for i in 0..=u_seg {
        let t = TAU * i as f32 / u_seg as f32;
        let c = curve(t);
        let tangent = (curve(t + 1e-3) - curve(t - 1e-3)).normalize();
        let b = tangent.cross(c).normalize();
        let n = b.cross(tangent);
        for j in 0..=v_seg {
            let a = TAU * j as f32 / v_seg as f32;
            let dir = n * a.cos() + b * a.sin();
            k.positions.push(c + dir * r_tube);
            k.normals.push(dir);
            k.uvs
                .push(Vec2::new(i as f32 / u_seg as f32, j as f32 / v_seg as f32));
        }
    }
    let idx = |i: usize, j: usize| (i * (v_seg + 1) + j) as u32;
    for i in 0..u_seg {
        for j in 0..v_seg {
            let (a, b, c, d) = (idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1));
            k.triangles.push([a, b, c]);
            k.triangles.push([a, c, d]);
        }
    }
    // Counter-clockwise seen from outside.
    let [a, b, c] = k.triangles[0].map(|i| k.positions[i as usize]);
    if (b - a)
        .cross(c - a)
        .dot(k.normals[k.triangles[0][0] as usize])
        < 0.0
    {
        for t in &mut k.triangles {
            t.swap(1, 2);
        }
    }
    k
}

/// Checker plus gradient with fully transparent round holes (premultiplied).
fn texture() -> Texture {
    let s = 256u32;
    let mut texels = Vec::with_capacity((s * s) as usize);
    for y in 0..s {
        for x in 0..s {
            let chk = ((x / 32 + y / 32) % 2) as f32;
            let hole = ((x % 64) as i32 - 32).pow(2) + ((y % 64) as i32 - 32).pow(2) < 36;
            texels.push(if hole {
                [0, 0, 0, 0]
            } else {
                [
                    (60.0 + 150.0 * chk + 40.0 * x as f32 / s as f32) as u8,
                    (80.0 + 100.0 * (1.0 - chk) + 60.0 * y as f32 / s as f32) as u8,
                    (200.0 - 120.0 * chk) as u8,
                    255,
                ]
            });
        }
    }
    Texture {
        name: "knot".into(),
        width: s,
        height: s,
        texels,
        alpha: TextureAlpha::ColorKey,
    }
}

struct Scene {
    knot: Knot,
    tex: Texture,
    light: Light,
}

impl Scene {
    fn new() -> Scene {
        Scene {
            knot: knot(10_000),
            tex: texture(),
            light: Light {
                direction: Vec3::new(0.3, 0.5, 0.8).normalize(),
                color: Vec3::splat(0.75),
                ambient: Vec3::splat(0.25),
            },
        }
    }

    /// Frame `frame` of a full turn in 60 steps, like the llvmpipe run.
    fn render(&self, size: u32, frame: u32) -> image::RgbaImage {
        self.render_ss(size, 1, frame)
    }

    fn render_ss(&self, size: u32, supersample: u32, frame: u32) -> image::RgbaImage {
        let k = &self.knot;
        let batch = Batch {
            positions: &k.positions,
            normals: &k.normals,
            uvs: &k.uvs,
            triangles: &k.triangles,
            uv_transform: Affine2::IDENTITY,
            texture: Some(&self.tex),
            base_color: [1.0; 4],
            alpha: AlphaMode::Mask(0.5),
            two_sided: false,
            unlit: false,
            lightmap: None,
            sampler: Default::default(),
            colors: &[],
            emission: None,
        };
        let angle = TAU * (frame % 60) as f32 / 60.0;
        let cam = Camera {
            view: Mat4::from_translation(Vec3::new(0.0, 0.0, -3.0))
                * Mat4::from_rotation_y(angle)
                * Mat4::from_rotation_x(0.5),
            proj: Mat4::perspective_rh(35f32.to_radians(), 1.0, 0.1, 100.0),
        };
        let opts = RenderOptions {
            width: size,
            height: size,
            supersample,
            background: [0, 0, 0, 0],
        };
        render(&[batch], &cam, &self.light, &opts)
    }
}

fn bench(c: &mut harness::Bench) {
    let scene = Scene::new();
    c.samples(20);
    for size in [256u32, 1024] {
        let mut frame = 0u32;
        c.run(&format!("raster_knot/{size}x{size}"), || {
            frame += 1;
            scene.render(size, frame)
        });
    }
}

/// `KILN_BENCH_FRAMES=n cargo bench --bench raster` renders n frames per size
/// and prints the minimum and median frame time: on a shared machine the
/// minimum is the steadiest figure to compare changes by.
///
/// `KILN_BENCH_HUGE=1` renders one 4096² frame at 4× supersampling (16384²
/// samples) and reports its time and the process's peak resident memory.
fn main() {
    if std::env::var_os("KILN_BENCH_HUGE").is_some() {
        let scene = Scene::new();
        let start = std::time::Instant::now();
        let img = black_box(scene.render_ss(4096, 4, 3));
        let hwm = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("VmHWM"))
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        println!(
            "4096x4096 ss4: {:.0} ms, {} bytes of output, {hwm}",
            start.elapsed().as_secs_f64() * 1e3,
            img.as_raw().len()
        );
        return;
    }
    if let Some(n) = std::env::var("KILN_BENCH_FRAMES")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
    {
        let scene = Scene::new();
        if let Ok(dir) = std::env::var("KILN_BENCH_SAVE") {
            for size in [256, 1024] {
                let path = format!("{dir}/knot_{size}.png");
                scene.render(size, 7).save(&path).expect("save");
            }
        }
        for size in [256u32, 1024] {
            let mut t: Vec<f64> = (0..n.max(1))
                .map(|f| {
                    let start = std::time::Instant::now();
                    black_box(scene.render(size, f));
                    start.elapsed().as_secs_f64() * 1e3
                })
                .collect();
            t.sort_by(f64::total_cmp);
            println!(
                "{size}x{size}: min {:.2} ms ({:.0} fps), p10 {:.2} ms, median {:.2} ms over {} frames",
                t[0],
                1e3 / t[0],
                t[t.len() / 10],
                t[t.len() / 2],
                t.len()
            );
        }
        return;
    }
    bench(&mut harness::Bench::from_args());
}
