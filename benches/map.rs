//! Large maps: load and render time of a synthetic 300×300-tile map with
//! ~3000 instances (written by kiln's own RSW/GND writers into
//! `target/bench-map/`, textures and models from `recipes/samples/data`),
//! and of the biggest corpus map, `poring_c01` (skipped with a printed line
//! when `../shared/corpus` is absent).
//!
//! Views per map: top-down overview at 4 px/tile, a 32×32-tile region at
//! 32 px/tile (1024²), and an angled 1024×768 perspective view; all with the
//! recipes' default 2× supersampling. Samples are few and short: the bench
//! machine is shared.

mod harness;

use kiln::internals::camera::Projection;
use kiln::internals::map::{self, MapScene, Region};
use kiln::internals::raster::RenderOptions;
use std::hint::black_box;
use std::path::{Path, PathBuf};

const SIDE: i32 = 300;
const INSTANCES: usize = 3000;
const CORPUS_MAP: &str = "../shared/corpus/ro/hurtsky+RO-Clientresources/data/poring_c01.rsw";

/// Writes the synthetic map once (kept when already there with the same
/// bytes). `KILN_BENCH_MAP_INSTANCES=n` also writes `big_<n>.rsw` on the
/// same ground, for measuring how memory grows with the instance count.
fn synthetic_map() -> PathBuf {
    let dir = Path::new("target/bench-map");
    std::fs::create_dir_all(dir).expect("create target/bench-map");
    if let Some(n) = std::env::var("KILN_BENCH_MAP_INSTANCES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        let (rsw, _) = kiln::internals::samples::map::big_map(SIDE, SIDE, n);
        let path = dir.join(format!("big_{n}.rsw"));
        std::fs::write(&path, kiln::internals::formats::rsw::write(&rsw))
            .expect("write synthetic map");
        eprintln!("wrote {}", path.display());
    }
    let (rsw, gnd) = kiln::internals::samples::map::big_map(SIDE, SIDE, INSTANCES);
    let rsw_path = dir.join("big.rsw");
    for (path, bytes) in [
        (rsw_path.clone(), kiln::internals::formats::rsw::write(&rsw)),
        (
            dir.join("big.gnd"),
            kiln::internals::formats::gnd::write(&gnd),
        ),
    ] {
        if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
            std::fs::write(&path, &bytes).expect("write synthetic map");
        }
    }
    rsw_path
}

fn opts(width: u32, height: u32) -> RenderOptions {
    RenderOptions {
        width,
        height,
        supersample: 2,
        background: [16, 24, 32, 255],
    }
}

fn bench_map(c: &mut harness::Bench, label: &str, rsw: &Path, data: &[PathBuf]) {
    // Ten samples: a 1200² overview takes ~0.5 s, one iteration a sample.
    c.samples(10);
    c.run(&format!("map/{label}/load"), || {
        MapScene::open(black_box(rsw), data).unwrap()
    });
    let scene = MapScene::open(rsw, data).unwrap();
    let (w, h) = (scene.ground.width, scene.ground.height);
    eprintln!(
        "{label}: {w}×{h} tiles, {} instances of {} model files ({} missing), {} ground triangles",
        scene.instances.len(),
        scene.models.len(),
        scene.missing_models.len(),
        scene
            .ground
            .chunks
            .iter()
            .map(|c| c.triangle_count())
            .sum::<usize>()
    );

    let overview = map::camera::top_down(&scene, Region::whole(w, h), 4.0).unwrap();
    c.throughput(overview.width as u64 * overview.height as u64);
    let o = opts(overview.width, overview.height);
    c.run(
        &format!(
            "map/{label}/overview 4px/tile {}x{}",
            overview.width, overview.height
        ),
        || map::render(&scene, black_box(&overview.camera), 0.0, &o),
    );

    let (cx, cy) = (w / 2, h / 2);
    let region = Region {
        x0: cx.saturating_sub(16),
        y0: cy.saturating_sub(16),
        x1: (cx.saturating_sub(16) + 32).min(w),
        y1: (cy.saturating_sub(16) + 32).min(h),
    };
    let close = map::camera::top_down(&scene, region, 32.0).unwrap();
    c.throughput(close.width as u64 * close.height as u64);
    let o = opts(close.width, close.height);
    c.run(
        &format!(
            "map/{label}/region 32x32 tiles 32px/tile {}x{}",
            close.width, close.height
        ),
        || map::render(&scene, black_box(&close.camera), 0.0, &o),
    );

    let angled = map::camera::angled(
        &scene,
        Region::whole(w, h),
        20.0,
        45.0,
        1024,
        768,
        Projection::Perspective { fov_deg: 35.0 },
    );
    c.throughput(1024 * 768);
    let o = opts(angled.width, angled.height);
    c.run(&format!("map/{label}/angled 1024x768"), || {
        map::render(&scene, black_box(&angled.camera), 0.0, &o)
    });
}

fn main() {
    let mut c = harness::Bench::from_args();
    let c = &mut c;
    let samples = vec![PathBuf::from("recipes/samples/data")];
    let big = synthetic_map();
    bench_map(c, "synthetic 300x300", &big, &samples);

    let corpus = Path::new(CORPUS_MAP);
    if corpus.is_file() {
        let data = vec![corpus.parent().unwrap().to_path_buf()];
        bench_map(c, "poring_c01", corpus, &data);
    } else {
        eprintln!("skipped: corpus not found at ../shared/corpus");
    }
}
