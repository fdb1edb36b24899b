//! The `kiln` command line: parses arguments, calls the library, maps errors
//! to exit codes (0 success, 1 a job or file failed, 2 usage error).

use clap::{Args, Parser, Subcommand, ValueEnum};
use kiln::{
    BakeOptions, Error, FileKind, FileRef, JobOutcome, Lod, Map, MapView, MapViewCamera, Model,
    ModelSpec, Progress, Projection, Recipe, RestPose, RootMotion, SkeletonSpec, ViewSpec,
};
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
    /// Remove files an earlier bake of a job wrote and this one does not (as `output: { prune: true }`)
    #[arg(long)]
    prune: bool,
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

#[derive(Clone, Copy, ValueEnum)]
enum RootMotionArg {
    #[value(name = "in-place", alias = "in_place")]
    InPlace,
    Keep,
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
    /// What happens to a clip's root travel: taken out so the model animates in place, or kept
    #[arg(long, value_enum, value_name = "MODE", default_value = "in-place")]
    root_motion: RootMotionArg,
    /// Deprecated: the same as --root-motion keep
    #[arg(long, hide = true, conflicts_with = "root_motion")]
    travel: bool,
    /// Arma: which LOD of a P3D, by index (default: the most detailed visual LOD)
    #[arg(long, value_name = "INDEX")]
    lod: Option<usize>,
    /// Extra folder to search for textures; for a map, a data folder searched first for its ground, models and textures (repeatable)
    #[arg(long = "data", value_name = "DIR")]
    data: Vec<PathBuf>,
}

impl ModelArgs {
    /// The model specification these flags describe (the one a recipe job
    /// resolves to).
    fn spec(&self) -> ModelSpec {
        let mut spec = ModelSpec::new(self.model.as_path());
        spec.data = self.data.clone();
        if self.bind_pose {
            spec.pose = RestPose::Bind;
        }
        spec.lod = self.lod.map(|i| Lod::Index(i as u32));
        spec.animation.duration = self.duration;
        spec.animation.root_motion = match (self.root_motion, self.travel) {
            (_, true) | (RootMotionArg::Keep, _) => RootMotion::Keep,
            (RootMotionArg::InPlace, false) => RootMotion::InPlace,
        };
        if let (Some(config), Some(class)) = (&self.skeleton_config, &self.skeleton_class) {
            spec.animation.skeleton = Some(SkeletonSpec::Config {
                config: FileRef::from(config.as_path()),
                class: class.clone(),
            });
        }
        spec
    }

    /// Loads the model and applies `--animation`.
    fn load(&self) -> Result<Model, Error> {
        let mut model = Model::load(&self.spec())?;
        if let Some(a) = &self.animation {
            model = model.animated(a.as_path())?;
        }
        for w in model.warnings() {
            eprintln!("kiln: warning: {}: {w}", model.source().display());
        }
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
    region: Option<kiln::Region>,
    /// Map: an angled view from --yaw/--pitch at --size instead of the top-down one
    #[arg(long)]
    angled: bool,
}

fn parse_region(s: &str) -> Result<kiln::Region, String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("expected X0,Y0,X1,Y1 (tile numbers), got '{s}'"))?;
    match v[..] {
        [x0, y0, x1, y1] if x0 < x1 && y0 < y1 => Ok(kiln::Region { x0, y0, x1, y1 }),
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
    use kiln::ColorError;
    kiln::parse_color(s).map_err(|e| match e {
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

fn model_time(model: &Model, t: &TimeArgs) -> f32 {
    match (t.time, t.frame) {
        (Some(s), _) => s,
        (None, Some(f)) => model.frame_time(f),
        _ => 0.0,
    }
}

fn cmd_render(a: RenderArgs) -> Result<(), Error> {
    // The image is always PNG; another extension would name it wrongly.
    let png = a
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !png {
        return Err(Error::Usage(format!(
            "{}: kiln writes PNG images only; name the output .png",
            a.output.display()
        )));
    }
    let file = FileRef::from(a.model.model.as_path());
    if kiln::file_kind(&file, &a.model.data)? == FileKind::Map {
        return render_map(&a);
    }
    let model = a.model.load()?;
    let t = model_time(&model, &a.time);
    let (width, height) = a.view.size;
    let view = ViewSpec {
        pitch: a.view.pitch,
        width,
        height,
        framing: kiln::Framing {
            projection: a.view.projection(),
            ..kiln::Framing::default()
        },
        light: kiln::LightSpec::default(),
        background: a.view.background,
        antialias: a.view.aa,
    };
    let sprite = model.render(t, a.view.yaw, &view)?;
    kiln::write_png(&a.output, &sprite.image)?;
    eprintln!(
        "kiln: wrote {} ({width}x{height}, t = {t:.3} s)",
        a.output.display()
    );
    Ok(())
}

/// `kiln render MAP.rsw`: one image of a Ragnarok map.
fn render_map(a: &RenderArgs) -> Result<(), Error> {
    if a.time.frame.is_some() {
        return Err(Error::Usage(
            "a map has no frame rate of its own; give --time SECONDS".into(),
        ));
    }
    let ppt = a.map.pixels_per_tile;
    let max = kiln::MAX_PIXELS_PER_TILE;
    let in_range = ppt > 0.0 && ppt <= max;
    if !a.map.angled && !in_range {
        return Err(Error::Usage(format!(
            "--pixels-per-tile must be in (0, {max}], got {ppt}"
        )));
    }
    let map = Map::load(a.model.model.as_path(), &a.model.data)?;
    for note in map.notes() {
        eprintln!("kiln: warning: {note}");
    }
    let camera = if a.map.angled {
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
    let t = a.time.time.unwrap_or(0.0);
    let img = map.render(&MapView {
        region: a.map.region,
        camera,
        time: t,
        antialias: a.view.aa,
        background: a.view.background,
    })?;
    kiln::write_png(&a.output, &img)?;
    eprintln!(
        "kiln: wrote {} ({}x{}, map {} with {} instances, t = {t:.3} s)",
        a.output.display(),
        img.width(),
        img.height(),
        a.model.model.display(),
        map.instance_count()
    );
    Ok(())
}

fn cmd_inspect(a: InspectArgs) -> Result<(), Error> {
    let report = kiln::inspect(
        &FileRef::from(a.file.as_path()),
        &a.data,
        a.model.as_deref(),
    )?;
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
    model.export(t, &a.output)?;
    eprintln!("kiln: wrote {} (t = {t:.3} s)", a.output.display());
    Ok(())
}

/// The progress bar (on a terminal only) and the per-job lines.
struct Bar {
    bar: indicatif::ProgressBar,
    quiet: bool,
}

impl Progress for Bar {
    fn job_started(&self, name: &str, images: usize) {
        self.bar.set_message(name.to_string());
        self.bar.inc_length(images as u64);
    }

    fn image_done(&self) {
        self.bar.inc(1);
    }

    fn job_finished(&self, outcome: &JobOutcome) {
        let label = outcome.label();
        match &outcome.result {
            Ok(report) => {
                for w in &report.warnings {
                    self.bar
                        .suspend(|| eprintln!("kiln: warning: {label}: {w}"));
                }
                if !self.quiet {
                    self.bar.suspend(|| {
                        eprintln!(
                            "kiln: {}: {} images, {} files in {}",
                            report.name,
                            report.images,
                            report.files.len(),
                            outcome.dir.display()
                        )
                    });
                }
            }
            Err(e) => self.bar.suspend(|| eprintln!("kiln: error: {label}: {e}")),
        }
    }
}

/// Runs every job; a failed job is reported and the others still run.
/// Exit code: 0 all good, 1 a job failed, 2 a recipe could not be read.
fn cmd_bake(a: BakeArgs) -> ExitCode {
    use indicatif::{ProgressBar, ProgressStyle};
    use std::io::IsTerminal;

    let started = std::time::Instant::now();
    let mut recipes = Vec::new();
    for path in &a.recipes {
        match Recipe::load(path) {
            Ok(r) => recipes.push(r),
            Err(e) => {
                eprintln!("kiln: error: {e}");
                return ExitCode::from(2);
            }
        }
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
    let progress = Bar {
        bar,
        quiet: a.quiet,
    };
    let options = BakeOptions {
        only: a.only.clone(),
        threads: a.threads.map(|n| n as usize),
        prune: a.prune,
        ..BakeOptions::default()
    };
    let report = match kiln::bake(&recipes, &options, &progress) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("kiln: error: {e}");
            return match e {
                Error::Usage(_) => ExitCode::from(2),
                _ => ExitCode::from(1),
            };
        }
    };
    progress.bar.finish_and_clear();
    let failed = report.failed();
    let status = if failed == 0 {
        String::new()
    } else {
        format!(", {failed} FAILED")
    };
    eprintln!(
        "kiln: baked {} of {} job(s): {} images, {} files in {:.2} s{status}",
        report.succeeded(),
        report.jobs.len(),
        report.images(),
        report.files().len(),
        started.elapsed().as_secs_f64()
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
