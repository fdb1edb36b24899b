//! kiln on the peer benchmark's mesh: `../shared/bench`'s torus knot (10,000
//! triangles, 256² texture with colour-keyed holes, smooth shading), parsed,
//! posed and rasterized at 256² and 1024² with a 35° perspective camera,
//! one frame per iteration, the camera turning as llvmpipe's mesh does.
//!
//! The assets come from `../shared/bench/make_assets.py` (numpy + Pillow).
//! They are looked for in `$KILN_BENCH_ASSETS`, `../shared/bench/assets`
//! and `target/bench-assets`; when absent the bench tries to generate them
//! into `target/bench-assets`, and says so and skips if it cannot.

mod harness;

use kiln::internals::camera::{fit_cameras, Framing, Projection};
use kiln::internals::raster::{Level, Light, RenderOptions};
use std::hint::black_box;
use std::path::{Path, PathBuf};

fn assets() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(d) = std::env::var("KILN_BENCH_ASSETS") {
        candidates.push(d.into());
    }
    candidates.push("../shared/bench/assets".into());
    candidates.push("target/bench-assets".into());
    if let Some(found) = candidates.iter().find(|d| d.join("knot.rsm").is_file()) {
        return Some(found.clone());
    }
    let script = Path::new("../shared/bench/make_assets.py");
    if script.is_file() {
        let ok = std::process::Command::new("python3")
            .arg(script)
            .args(["--out", "target/bench-assets"])
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if ok {
            return Some("target/bench-assets".into());
        }
    }
    None
}

fn main() {
    let mut c = harness::Bench::from_args();
    c.samples(20);
    let Some(dir) = assets() else {
        eprintln!("skipped: knot.rsm not found (run python3 ../shared/bench/make_assets.py --out target/bench-assets; it needs numpy and Pillow)");
        return;
    };
    let path = dir.join("knot.rsm");
    let bytes = std::fs::read(&path).expect("read knot.rsm");
    let spec = kiln::ModelSpec::new(path.as_path());

    c.run("knot/parse", || {
        kiln::internals::formats::rsm::parse(black_box(&bytes), &path).unwrap()
    });
    c.run("knot/load (parse + lower + texture)", || {
        kiln::Model::load(black_box(&spec)).unwrap()
    });
    let model = kiln::internals::scene_of(&kiln::Model::load(&spec).unwrap()).clone();
    c.run("knot/pose", || {
        kiln::internals::scene::pose(black_box(&model), 0.0)
    });

    let posed = kiln::internals::scene::pose(&model, 0.0);
    let points: Vec<_> = kiln::internals::render::posed_points(&posed).collect();
    const TURN: usize = 200;
    let views: Vec<(f32, f32)> = (0..TURN)
        .map(|i| (360.0 * i as f32 / TURN as f32, 20.0))
        .collect();
    let framing = Framing {
        projection: Projection::Perspective { fov_deg: 35.0 },
        padding: 0.05,
        zoom: 1.0,
        pixels_per_unit: None,
    };
    let cameras = fit_cameras(&points, &views, 1.0, &framing);
    let batches = kiln::internals::render::batches(&model, &posed);
    c.throughput(1);
    // The instruction-set levels side by side (the first two rows are the
    // ones llvmpipe_bench.py --cull is compared with); 256² at 2× is the
    // issue's anti-aliased row, against llvmpipe at 512².
    // Every level below the best one this CPU runs is benched at aa1 as
    // well, to see what each level buys.
    let best = Level::detect();
    let mut cases: Vec<(Level, u32, u32)> = vec![(best, 256, 1), (best, 1024, 1), (best, 256, 2)];
    for level in Level::ALL.into_iter().rev() {
        if level != best && level.available() {
            cases.extend([(level, 256, 1), (level, 1024, 1)]);
        }
    }
    for (level, size, ss) in cases {
        let opts = RenderOptions {
            width: size,
            height: size,
            supersample: ss,
            background: [0, 0, 0, 255],
        };
        let mut i = 0usize;
        let name = format!("knot/render/{}/{size}x{size} aa{ss}", level.name());
        c.run(&name, || {
            let cam = &cameras[i % TURN];
            i += 1;
            let light = Light {
                direction: glam::Vec3::new(0.3, 0.5, 0.8).normalize(),
                color: glam::Vec3::splat(0.75),
                ambient: glam::Vec3::splat(0.25),
            };
            kiln::internals::raster::render_at(black_box(&batches), cam, &light, &opts, level)
        });
    }
}
