//! The `kiln` command line: parses arguments, calls the library, maps errors
//! to exit codes (0 success, 1 a job or file failed, 2 usage error).

use clap::{Args, Parser, Subcommand, ValueEnum};
use kiln::camera::{fit_cameras, Framing, Projection};
use kiln::raster::{Light, RenderOptions};
use kiln::texture::TextureResolver;
use kiln::Error;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "kiln",
    version,
    about = "Bakes animated 3D game models into 2D sprite sheets, metadata and GIFs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Bake every job and map of one or more YAML recipes into sheets, metadata, frames, map images and GIFs
    Bake(BakeArgs),
    /// Render one image of a model, or of a Ragnarok map (.rsw), without a recipe
    Render(RenderArgs),
    /// Say what a file holds: format, version, nodes, meshes, textures, animation, warnings
    Inspect(InspectArgs),
    /// Write the model posed at one instant as glTF binary (.glb) or Wavefront OBJ (.obj + .mtl + textures)
    Export(ExportArgs),
}

#[derive(Args)]
struct BakeArgs {
    /// Recipe files (YAML)
    #[arg(required = true)]
    recipes: Vec<PathBuf>,
    /// Worker threads (default: one per core)
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Bake only the jobs with these names (repeatable)
    #[arg(long = "only", value_name = "NAME")]
    only: Vec<String>,
    /// No progress bar and no per-job lines; errors and the summary still print
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Args)]
struct InspectArgs {
    /// Model file
    file: PathBuf,
    /// Print the report as JSON
    #[arg(long)]
    json: bool,
    /// For an animation: the model whose nodes its tracks should name
    #[arg(long, value_name = "MODEL")]
    model: Option<PathBuf>,
    /// Extra folder to search for textures; for a map, a data folder searched first for its models (repeatable)
    #[arg(long = "data", value_name = "DIR")]
    data: Vec<PathBuf>,
}

#[derive(Args)]
struct ExportArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Output file: .glb or .obj
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    time: TimeArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum ProjectionArg {
    Orthographic,
    Perspective,
}

#[derive(Args)]
struct ViewArgs {
    /// Camera yaw in degrees (0 = front, positive turns the camera counter-clockwise seen from above)
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    yaw: f32,
    /// Camera elevation in degrees above the horizon
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true)]
    pitch: f32,
    /// Image size as WIDTHxHEIGHT
    #[arg(long, default_value = "256x256", value_parser = parse_size)]
    size: (u32, u32),
    #[arg(long, value_enum, default_value = "orthographic")]
    projection: ProjectionArg,
    /// Vertical field of view in degrees (perspective only)
    #[arg(long, default_value_t = 35.0)]
    fov: f32,
    /// Supersampling factor per axis (1 = off, 2 = 4 samples per pixel, up to 4)
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=4))]
    aa: u32,
    /// Background: "transparent", "#rrggbb" or "#rrggbbaa"
    #[arg(long, default_value = "transparent", value_parser = parse_color)]
    background: [u8; 4],
}

impl ViewArgs {
    fn projection(&self) -> Projection {
        match self.projection {
            ProjectionArg::Orthographic => Projection::Orthographic,
            ProjectionArg::Perspective => Projection::Perspective { fov_deg: self.fov },
        }
    }
}

#[derive(Args)]
struct TimeArgs {
    /// Time in seconds
    #[arg(long, conflicts_with = "frame")]
    time: Option<f32>,
    /// Frame number at the model's own frame rate
    #[arg(long)]
    frame: Option<u32>,
}

#[derive(Args)]
struct ModelArgs {
    /// Model file (.rsm, .rsm2, .model, .p3d), or for `render` a map (.rsw)
    model: PathBuf,
    /// Pose the model with this animation file (Grimrock .animation)
    #[arg(long, value_name = "FILE")]
    animation: Option<PathBuf>,
    /// Grimrock: draw skinned meshes in their bind pose instead of the file's node pose
    #[arg(long)]
    bind_pose: bool,
    /// Arma: seconds the animation lasts (RTM phases run 0..1) [default: 1]
    #[arg(long, value_name = "SECONDS")]
    duration: Option<f32>,
    /// Arma: model.cfg holding the skeleton of a binarised RTM
    #[arg(long, value_name = "FILE", requires = "skeleton_class")]
    skeleton_config: Option<PathBuf>,
    /// Arma: the skeleton's class name in --skeleton-config
    #[arg(long, value_name = "NAME", requires = "skeleton_config")]
    skeleton_class: Option<String>,
    /// Arma: move the model by the RTM's step instead of animating in place
    #[arg(long)]
    travel: bool,
    /// Arma: which LOD of a P3D, by index (default: the most detailed visual LOD)
    #[arg(long, value_name = "INDEX")]
    lod: Option<usize>,
    /// Extra folder to search for textures; for a map, a data folder searched first for its ground, models and textures (repeatable)
    #[arg(long = "data", value_name = "DIR")]
    data: Vec<PathBuf>,
}

impl ModelArgs {
    fn load(&self) -> Result<kiln::scene::Model, Error> {
        let opts = kiln::load::LoadOptions {
            resolver: TextureResolver::new(self.data.clone()),
            pose: if self.bind_pose {
                kiln::scene::lower_grimrock::RestPose::Bind
            } else {
                kiln::scene::lower_grimrock::RestPose::Nodes
            },
            lod: self.lod.map(kiln::load::LodChoice::Index),
            ..Default::default()
        };
        let model = kiln::load::load_model_with(&self.model, &opts)?;
        let model = match &self.animation {
            Some(a) => {
                let skeleton = match (&self.skeleton_config, &self.skeleton_class) {
                    (Some(c), Some(n)) => Some(kiln::load::skeleton_bones(c, n)?),
                    _ => None,
                };
                let anim = kiln::load::AnimOptions {
                    duration: self.duration,
                    skeleton,
                    travel: self.travel,
                };
                kiln::load::animate_with(&model, a, &anim)?
            }
            None => model,
        };
        warn_all(&model);
        Ok(model)
    }
}

#[derive(Args)]
struct RenderArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Output PNG
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    time: TimeArgs,
    #[command(flatten)]
    view: ViewArgs,
    #[command(flatten)]
    map: MapViewArgs,
}

/// For a Ragnarok map (.rsw): a top-down view unless --angled.
#[derive(Args)]
struct MapViewArgs {
    /// Map: pixels per ground tile of the top-down view
    #[arg(long, value_name = "N", default_value_t = 4.0)]
    pixels_per_tile: f32,
    /// Map: only the tiles X0..X1, Y0..Y1 (row 0 = south edge), as X0,Y0,X1,Y1
    #[arg(long, value_name = "X0,Y0,X1,Y1", value_parser = parse_region)]
    region: Option<kiln::map::Region>,
    /// Map: an angled view from --yaw/--pitch at --size instead of the top-down one
    #[arg(long)]
    angled: bool,
}

fn parse_region(s: &str) -> Result<kiln::map::Region, String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("expected X0,Y0,X1,Y1 (tile numbers), got '{s}'"))?;
    match v[..] {
        [x0, y0, x1, y1] if x0 < x1 && y0 < y1 => Ok(kiln::map::Region { x0, y0, x1, y1 }),
        [_, _, _, _] => Err(format!(
            "region '{s}' is empty: X0 < X1 and Y0 < Y1 are needed"
        )),
        _ => Err(format!("expected four numbers X0,Y0,X1,Y1, got '{s}'")),
    }
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WIDTHxHEIGHT, got '{s}'"))?;
    let w: u32 = w
        .trim()
        .parse()
        .map_err(|_| format!("bad width in '{s}'"))?;
    let h: u32 = h
        .trim()
        .parse()
        .map_err(|_| format!("bad height in '{s}'"))?;
    if !(1..=8192).contains(&w) || !(1..=8192).contains(&h) {
        return Err(format!("size {w}x{h} out of range 1..8192"));
    }
    Ok((w, h))
}

fn parse_color(s: &str) -> Result<[u8; 4], String> {
    use kiln::color::ColorError;
    kiln::color::parse_color(s).map_err(|e| match e {
        ColorError::NoHash => format!("expected transparent, #rrggbb or #rrggbbaa, got '{s}'"),
        ColorError::Length => format!("expected #rrggbb or #rrggbbaa, got '{s}'"),
        ColorError::Digit => format!("bad colour '{s}'"),
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bake(a) => return cmd_bake(a),
        Command::Render(a) => cmd_render(a),
        Command::Inspect(a) => cmd_inspect(a),
        Command::Export(a) => cmd_export(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kiln: error: {e}");
            match e {
                Error::Usage(_) => ExitCode::from(2),
                _ => ExitCode::from(1),
            }
        }
    }
}

fn warn_all(model: &kiln::scene::Model) {
    for w in &model.warnings {
        eprintln!("kiln: warning: {}: {w}", model.source.display());
    }
}

fn model_time(model: &kiln::scene::Model, t: &TimeArgs) -> f32 {
    match (t.time, t.frame) {
        (Some(s), _) => s,
        (None, Some(f)) => f as f32 / model.frame_rate.max(1e-3),
        _ => 0.0,
    }
}

fn cmd_render(a: RenderArgs) -> Result<(), Error> {
    let head = kiln::load::read(&a.model.model)?;
    if kiln::load::sniff(&head, &a.model.model)? == kiln::load::FileKind::Rsw {
        return render_map(&a);
    }
    let model = a.model.load()?;
    let t = model_time(&model, &a.time);
    let posed = kiln::scene::pose(&model, t);
    let framing = Framing {
        projection: a.view.projection(),
        ..Framing::default()
    };
    let (w, h) = a.view.size;
    let points: Vec<_> = kiln::render::posed_points(&posed).collect();
    let cam = fit_cameras(
        &points,
        &[(a.view.yaw, a.view.pitch)],
        w as f32 / h as f32,
        &framing,
    )[0];
    let light = default_light(&cam);
    let opts = RenderOptions {
        width: w,
        height: h,
        supersample: a.view.aa,
        background: a.view.background,
    };
    let img = kiln::render::render_posed(&model, &posed, &cam, &light, &opts);
    kiln::output::write_png(&a.output, &img)?;
    eprintln!("kiln: wrote {} ({w}x{h}, t = {t:.3} s)", a.output.display());
    Ok(())
}

/// `kiln render MAP.rsw`: one image of a Ragnarok map.
fn render_map(a: &RenderArgs) -> Result<(), Error> {
    use kiln::bake::recipe::defaults::MAX_PIXELS_PER_TILE;
    use kiln::bake::MapViewCamera;
    use kiln::map::{self, DataFolders, MapScene, Region};
    if a.time.frame.is_some() {
        return Err(Error::Usage(
            "a map has no frame rate of its own; give --time SECONDS".into(),
        ));
    }
    let ppt = a.map.pixels_per_tile;
    let ppt_ok = ppt > 0.0 && ppt <= MAX_PIXELS_PER_TILE;
    if !a.map.angled && !ppt_ok {
        return Err(Error::Usage(format!(
            "--pixels-per-tile must be in (0, {MAX_PIXELS_PER_TILE}], got {ppt}"
        )));
    }
    let scene = MapScene::load(&a.model.model, &DataFolders::new(a.model.data.clone()))?;
    for note in scene.notes() {
        eprintln!("kiln: warning: {note}");
    }
    let (gw, gh) = (scene.ground.width, scene.ground.height);
    let region = a.map.region.unwrap_or(Region::whole(gw, gh));
    region.check(gw, gh).map_err(Error::Usage)?;
    let view = if a.map.angled {
        let (width, height) = a.view.size;
        MapViewCamera::Angled {
            yaw: a.view.yaw,
            pitch: a.view.pitch,
            width,
            height,
            projection: a.view.projection(),
        }
    } else {
        MapViewCamera::TopDown {
            pixels_per_tile: ppt,
        }
    };
    let cam = kiln::bake::map_run::camera_for(&scene, &view, region).map_err(Error::Usage)?;
    let t = a.time.time.unwrap_or(0.0);
    let opts = RenderOptions {
        width: cam.width,
        height: cam.height,
        supersample: a.view.aa,
        background: a.view.background,
    };
    let img = map::render(&scene, &cam.camera, t, &opts);
    kiln::output::write_png(&a.output, &img)?;
    eprintln!(
        "kiln: wrote {} ({}x{}, map {} with {} instances, t = {t:.3} s)",
        a.output.display(),
        cam.width,
        cam.height,
        a.model.model.display(),
        scene.instances.len()
    );
    Ok(())
}

fn default_light(cam: &kiln::raster::Camera) -> Light {
    Light {
        direction: kiln::camera::camera_relative_light_dir(cam, -35.0, 40.0),
        color: glam::Vec3::splat(0.65),
        ambient: glam::Vec3::splat(0.45),
    }
}

fn cmd_inspect(a: InspectArgs) -> Result<(), Error> {
    let report =
        kiln::inspect::inspect_with(&a.file, &TextureResolver::new(a.data), a.model.as_deref())?;
    if a.json {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| Error::Other(format!("JSON: {e}")))?;
        println!("{text}");
    } else {
        print!("{}", report.to_text());
    }
    Ok(())
}

fn cmd_export(a: ExportArgs) -> Result<(), Error> {
    let model = a.model.load()?;
    let t = model_time(&model, &a.time);
    let posed = kiln::scene::pose(&model, t);
    kiln::export::export(&model, &posed, &a.output)?;
    eprintln!("kiln: wrote {} (t = {t:.3} s)", a.output.display());
    Ok(())
}

/// Runs every job; a failed job is reported and the others still run.
/// Exit code: 0 all good, 1 a job failed, 2 a recipe could not be read.
fn cmd_bake(a: BakeArgs) -> ExitCode {
    use indicatif::{ProgressBar, ProgressStyle};
    use std::io::IsTerminal;

    if let Some(n) = a.threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n as usize)
            .build_global()
        {
            eprintln!("kiln: error: cannot start {n} worker threads: {e}");
            return ExitCode::from(1);
        }
    }
    let started = std::time::Instant::now();
    let mut jobs = Vec::new();
    let mut maps = Vec::new();
    for path in &a.recipes {
        match kiln::bake::Recipe::load(path) {
            Ok(r) => {
                jobs.extend(r.jobs());
                maps.extend(r.maps());
            }
            Err(e) => {
                eprintln!("kiln: error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    for name in &a.only {
        if !jobs.iter().any(|j| &j.name == name) && !maps.iter().any(|m| &m.name == name) {
            eprintln!("kiln: error: --only {name}: no job of that name in the recipe(s)");
            return ExitCode::from(2);
        }
    }
    if !a.only.is_empty() {
        jobs.retain(|j| a.only.contains(&j.name));
        maps.retain(|m| a.only.contains(&m.name));
    }

    let show_progress = !a.quiet && std::io::stderr().is_terminal();
    let bar = if show_progress {
        let b = ProgressBar::new(0);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} {msg:20} [{bar:30}] {pos}/{len} images {elapsed}/{eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let mut tally = Tally::default();
    let sink = kiln::bake::FileSink::new();
    for job in &jobs {
        bar.set_message(job.name.clone());
        let result = kiln::bake::run::plan_job(job).and_then(|plan| {
            bar.inc_length(plan.images() as u64);
            let tick = || bar.inc(1);
            kiln::bake::run::run_planned(job, &plan, &tick, &sink)
        });
        tally.record(
            &bar,
            &format!("job '{}'", job.name),
            &job.output.dir,
            result,
            a.quiet,
        );
    }
    for map in &maps {
        bar.set_message(map.name.clone());
        let result = kiln::bake::map_run::plan_map(map).and_then(|plan| {
            bar.inc_length(plan.images() as u64);
            let tick = || bar.inc(1);
            kiln::bake::map_run::run_map(map, &plan, &tick, &sink)
        });
        tally.record(
            &bar,
            &format!("map '{}'", map.name),
            &map.dir,
            result,
            a.quiet,
        );
    }
    let Tally {
        ok,
        failed,
        images,
        files,
    } = tally;
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    let status = if failed == 0 {
        String::new()
    } else {
        format!(", {failed} FAILED")
    };
    eprintln!(
        "kiln: baked {ok} of {} job(s): {images} images, {files} files in {secs:.2} s{status}",
        jobs.len() + maps.len()
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// What the bake's jobs and maps did, for the summary line.
#[derive(Default)]
struct Tally {
    ok: usize,
    failed: usize,
    images: usize,
    files: usize,
}

impl Tally {
    /// Prints one finished job's (or map's) warnings and line, or its error.
    fn record(
        &mut self,
        bar: &indicatif::ProgressBar,
        label: &str,
        dir: &std::path::Path,
        result: Result<kiln::bake::run::JobReport, Error>,
        quiet: bool,
    ) {
        match result {
            Ok(report) => {
                self.ok += 1;
                self.images += report.images;
                self.files += report.files.len();
                for w in &report.warnings {
                    bar.suspend(|| eprintln!("kiln: warning: {label}: {w}"));
                }
                if !quiet {
                    bar.suspend(|| {
                        eprintln!(
                            "kiln: {}: {} images, {} files in {}",
                            report.name,
                            report.images,
                            report.files.len(),
                            kiln::paths::normalize(dir).display()
                        )
                    });
                }
            }
            Err(e) => {
                self.failed += 1;
                bar.suspend(|| eprintln!("kiln: error: {label}: {e}"));
            }
        }
    }
}
