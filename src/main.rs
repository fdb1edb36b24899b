//! The `kiln` command line: parses arguments, calls the library, maps errors
//! to exit codes (0 success, 1 a job or file failed, 2 usage error).

use clap::{Args, Parser, Subcommand, ValueEnum};
use kiln::limits;
use kiln::{
    BakeOptions, Clip, Error, ExportClip, FileKind, FileRef, JobOutcome, Lod, Map, MapView,
    MapViewCamera, Model, ModelSpec, Progress, Projection, Recipe, RestPose, RootMotion,
    SkeletonSpec, Step, ViewSpec,
};
use std::path::PathBuf;
use std::process::ExitCode;

/// A line on standard error. Messages are for a person: one that cannot be
/// shown (stderr closed) is dropped rather than ending the run.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

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
    /// Write the model posed at one instant as glTF binary (.glb) or Wavefront OBJ (.obj + .mtl + textures), or with --clip its whole animation as glTF
    Export(ExportArgs),
    /// Bake recipes in memory and compare every output with its golden reference
    Verify(VerifyArgs),
    /// List the jobs of recipes with their estimated cost and the shard each falls in
    Plan(PlanArgs),
    /// Write the entries of an archive (GRF, PBO, Grimrock .dat) to a folder
    Extract(ExtractArgs),
    /// Decode a texture (BMP, TGA, PNG, DDS, PAA/PAC) to PNG
    Convert(ConvertArgs),
}

#[derive(Args)]
struct ExtractArgs {
    /// The archive: .grf, .pbo or a Grimrock .dat
    archive: PathBuf,
    /// Only entries matching this: a folder (`data/texture`) or a pattern
    /// with `*` (within a folder name), `**` (across folders) and `?`, any case
    pattern: Option<String>,
    /// Folder to write into (created if needed)
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
}

#[derive(Args)]
struct ConvertArgs {
    /// The texture: a file, or a game path found in the --data folders and archives
    texture: PathBuf,
    /// Output PNG
    #[arg(short, long)]
    output: PathBuf,
    /// Mip level to write (0 = the largest; PAA and DDS hold several)
    #[arg(long, value_name = "N", default_value_t = 0)]
    mip: u32,
    /// Keep BMP magenta as it is instead of making it transparent
    #[arg(long)]
    no_colour_key: bool,
    /// Folder or archive to look the texture up in (repeatable)
    #[arg(long = "data", value_name = "DIR|ARCHIVE")]
    data: Vec<PathBuf>,
    /// Memory the decoded texture may take, e.g. 512M, 8G (default 4G); a larger one is refused
    #[arg(long = "memory-limit", value_name = "SIZE", value_parser = parse_bytes)]
    memory_limit: Option<u64>,
}

#[derive(Args)]
struct BakeArgs {
    /// Recipe files (YAML); `-` reads one from standard input (relative paths in it are taken from the current folder)
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
    /// Bake every job, even those whose inputs and outputs are unchanged since the last bake
    #[arg(long)]
    force: bool,
    /// A folder of baked files by content, shared between bakes and machines (a CI cache)
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Write a Makefile dependency file: each job's outputs depend on every file it read
    #[arg(long, value_name = "FILE")]
    depfile: Option<PathBuf>,
    /// Write nothing; exit 1 and list the jobs that a bake would re-bake
    #[arg(long, conflicts_with = "dry_run")]
    check: bool,
    /// Write nothing; say which jobs would be baked and which files written
    #[arg(long)]
    dry_run: bool,
    /// Print a summary as JSON on standard output (per job: status, outputs, inputs, time, warnings)
    #[arg(long)]
    json: bool,
    /// Bake shard K of N (1-based), or `auto` (KILN_SHARD, Kubernetes JOB_COMPLETION_INDEX with KILN_SHARD_COUNT, Slurm array variables)
    #[arg(long, value_name = "K/N|auto", value_parser = parse_shard)]
    shard: Option<kiln::Shard>,
    /// Remove files an earlier bake of a job wrote and this one does not (as `output: { prune: true }`)
    #[arg(long)]
    prune: bool,
    /// Memory a job's rendered frames and sheet may take at once, e.g. 512M, 8G
    /// (default 4G); a job needing more fails before rendering
    #[arg(long = "memory-limit", value_name = "SIZE", value_parser = parse_bytes)]
    memory_limit: Option<u64>,
    /// Output root: every job's `output.dir` (and map's `output`) resolves below DIR instead of the recipe's folder, and must stay inside it
    #[arg(long = "out-dir", value_name = "DIR")]
    out_dir: Option<PathBuf>,
}

/// A byte count with an optional binary suffix: 1048576, 512K, 64M, 4G,
/// 1T (also 64MiB or 64MB, both meaning 64 × 2²⁰).
fn parse_bytes(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{s}' is not a size such as 512M or 4G"))?;
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        other => {
            return Err(format!(
                "unknown unit '{other}' in '{s}' (use K, M, G or T)"
            ))
        }
    };
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("'{s}' is too large"))
}

#[derive(Args)]
struct VerifyArgs {
    /// Recipe files (YAML); `-` reads one from standard input
    #[arg(required = true)]
    recipes: Vec<PathBuf>,
    /// Compare with the same relative paths under this folder instead of the files at the outputs' own paths
    #[arg(long, value_name = "DIR")]
    reference: Option<PathBuf>,
    /// A pixel differs when a channel differs by more than N
    #[arg(long, value_name = "N", default_value_t = 0)]
    tolerance: u8,
    /// How many pixels may differ per image: a count or a percentage (e.g. 0.1%)
    #[arg(long, value_name = "N|P%", value_parser = parse_budget, default_value = "0")]
    max_diff_pixels: kiln::PixelBudget,
    /// Ignore differences a one-pixel shift of an edge explains (anti-aliasing)
    #[arg(long)]
    aa: bool,
    /// Where diff images go
    #[arg(long, value_name = "DIR", default_value = "kiln-diff")]
    diff_dir: PathBuf,
    /// Rewrite references that differ or are missing, and say which
    #[arg(long)]
    update: bool,
    /// Write a JUnit XML report
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Print the result as JSON on standard output
    #[arg(long)]
    json: bool,
    /// Verify only the jobs with these names (repeatable)
    #[arg(long = "only", value_name = "NAME")]
    only: Vec<String>,
    /// Worker threads (default: one per core)
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Verify shard K of N only
    #[arg(long, value_name = "K/N|auto", value_parser = parse_shard)]
    shard: Option<kiln::Shard>,
}

#[derive(Args)]
struct PlanArgs {
    /// Recipe files (YAML)
    #[arg(required = true)]
    recipes: Vec<PathBuf>,
    /// Split the jobs over this many shards
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=kiln::MAX_SHARDS as i64))]
    shards: u32,
    /// Print the plan as JSON
    #[arg(long)]
    json: bool,
}

fn parse_shard(s: &str) -> Result<kiln::Shard, String> {
    kiln::Shard::parse(s)
}

fn parse_budget(s: &str) -> Result<kiln::PixelBudget, String> {
    kiln::PixelBudget::parse(s)
}

/// Loads recipe files; `-` is a recipe on standard input.
fn load_recipes(paths: &[PathBuf]) -> Result<Vec<Recipe>, String> {
    let mut out = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .map_err(|e| format!("<stdin>: cannot read recipe: {e}"))?;
            out.push(
                Recipe::from_str(&text, std::path::Path::new("<stdin>"))
                    .map_err(|e| e.to_string())?,
            );
        } else {
            out.push(Recipe::load(path).map_err(|e| e.to_string())?);
        }
    }
    Ok(out)
}

#[derive(Args)]
struct InspectArgs {
    /// Any file kiln reads: model, animation, map, ground, config, texture or archive
    file: PathBuf,
    /// Print the report as JSON; for RSW, RSM and GND files `details` holds every parsed field
    #[arg(long)]
    json: bool,
    /// With --json: `details` holds the header and counts only, not every field
    #[arg(long, requires = "json")]
    summary: bool,
    /// For an animation: the model whose nodes its tracks should name
    #[arg(long, value_name = "MODEL")]
    model: Option<PathBuf>,
    /// Extra folder or archive (GRF, PBO, .dat) to search for textures; for a map, searched first for its models (repeatable)
    #[arg(long = "data", value_name = "DIR|ARCHIVE")]
    data: Vec<PathBuf>,
    /// Memory the images it decodes (a texture, a model's textures) may take together, e.g. 512M (default 4G)
    #[arg(long = "memory-limit", value_name = "SIZE", value_parser = parse_bytes)]
    memory_limit: Option<u64>,
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
    /// Write the whole animation as glTF (.glb): the node tree, skins and one glTF animation per --animation file (or the model's own animation)
    #[arg(long, conflicts_with_all = ["time", "frame"])]
    clip: bool,
    /// With --clip: the animations' names, one per --animation in order (default: each file's name, or the model's)
    #[arg(long = "clip-name", value_name = "NAME", requires = "clip")]
    clip_names: Vec<String>,
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
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true, value_parser = within(-limits::MAX_YAW, limits::MAX_YAW))]
    yaw: f32,
    /// Camera elevation in degrees above the horizon
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true, value_parser = within(limits::PITCH_RANGE.0, limits::PITCH_RANGE.1))]
    pitch: f32,
    /// Image size as WIDTHxHEIGHT
    #[arg(long, default_value = "256x256", value_parser = parse_size)]
    size: (u32, u32),
    #[arg(long, value_enum, default_value = "orthographic")]
    projection: ProjectionArg,
    /// Vertical field of view in degrees (perspective only)
    #[arg(long, default_value_t = 35.0, value_parser = within(limits::FOV_RANGE.0, limits::FOV_RANGE.1))]
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
    #[arg(long, conflicts_with = "frame", value_parser = within(0.0, limits::MAX_SECONDS))]
    time: Option<f32>,
    /// Frame number at the model's own frame rate
    #[arg(long)]
    frame: Option<u32>,
}

#[derive(Args)]
struct ModelArgs {
    /// Model file (.rsm, .rsm2, .model, .p3d), or for `render` a map (.rsw)
    model: PathBuf,
    /// Pose the model with this animation file (Grimrock .animation, Arma .rtm); `export --clip` takes several
    #[arg(long, value_name = "FILE")]
    animation: Vec<PathBuf>,
    /// Grimrock: draw skinned meshes in their bind pose instead of the file's node pose
    #[arg(long)]
    bind_pose: bool,
    /// Arma: seconds the animation lasts (RTM phases run 0..1) [default: 1]
    #[arg(long, value_name = "SECONDS", value_parser = above_zero(limits::MAX_DURATION))]
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
    /// Extra folder or archive (GRF, PBO, .dat) to search for textures; for a map, searched first for its ground, models and textures (repeatable)
    #[arg(long = "data", value_name = "DIR|ARCHIVE")]
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
        match self.animation.as_slice() {
            [] => {}
            [a] => model = model.animated(a.as_path())?,
            several => {
                return Err(Error::Usage(format!(
                    "--animation is given {} times; one pose takes one animation (`kiln export --clip` takes several)",
                    several.len()
                )))
            }
        }
        warn(&model);
        Ok(model)
    }
}

fn warn(model: &Model) {
    for w in model.warnings() {
        say!("kiln: warning: {}: {w}", model.source().display());
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
    #[command(flatten)]
    sprite: SpriteArgs,
    #[command(flatten)]
    look: LookArgs,
}

/// Sprite looks of a model render (all off by default).
#[derive(Args)]
struct LookArgs {
    /// Outline width in pixels (1-8)
    #[arg(long, value_name = "PIXELS", value_parser = clap::value_parser!(u32).range(1..=8))]
    outline: Option<u32>,
    /// Outline colour
    #[arg(long, value_name = "COLOR", default_value = "#000000", value_parser = parse_color, requires = "outline")]
    outline_color: [u8; 4],
    /// Draw the outline over the silhouette's edge instead of around it
    #[arg(long, requires = "outline")]
    outline_inside: bool,
    /// Hard (pixel-art) outline edges instead of anti-aliased ones
    #[arg(long, requires = "outline")]
    outline_hard: bool,
    /// Inner lines too, where a part of the model passes in front of another by more than
    /// this fraction (0-1] of the depth the model spans
    #[arg(long, value_name = "JUMP", requires = "outline", value_parser = above_zero(1.0))]
    outline_inner: Option<f32>,
    /// Drop shadow offset in pixels as DX,DY (x right, y down)
    #[arg(long, value_name = "DX,DY", value_parser = parse_offset, allow_hyphen_values = true)]
    drop_shadow: Option<[i32; 2]>,
    /// Drop shadow blur radius in pixels (0-32)
    #[arg(long, value_name = "PIXELS", default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=32), requires = "drop_shadow")]
    drop_blur: u32,
    /// Drop shadow colour; its alpha is the opacity
    #[arg(long, value_name = "COLOR", default_value = "#00000080", value_parser = parse_color, requires = "drop_shadow")]
    drop_color: [u8; 4],
    /// Map colours to this palette (.gpl, .hex or .png swatch); alpha becomes 0 or 255
    #[arg(long, value_name = "FILE", conflicts_with = "colors")]
    palette: Option<PathBuf>,
    /// Map colours to this many colours (2-256) chosen from the image
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=256))]
    colors: Option<u32>,
    /// Dithering of the palette mapping
    #[arg(long, value_enum, default_value = "none")]
    dither: DitherArg,
    /// How the model is lit
    #[arg(long, value_enum, default_value = "lambert")]
    shading: ShadingArg,
    /// Cel shading: light levels (2-8)
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(2..=8))]
    cel_bands: u32,
    /// Cel shading: rim light strength (0-1)
    #[arg(long, value_name = "STRENGTH", default_value_t = 0.0, value_parser = within(0.0, 1.0))]
    rim: f32,
    /// Ground shadow from the model's geometry, cast along the light or straight down
    #[arg(long, value_enum, value_name = "FROM")]
    ground_shadow: Option<ShadowArg>,
    /// Ground shadow opacity (0-1)
    #[arg(
        long,
        value_name = "OPACITY",
        default_value_t = 0.5,
        requires = "ground_shadow",
        value_parser = within(0.0, 1.0)
    )]
    shadow_opacity: f32,
    /// Draw this pass instead of the colours: camera-space normals, depth, or flat ID
    /// colours (with a legend, OUTPUT_legend.json)
    #[arg(long, value_enum, value_name = "PASS")]
    pass: Option<PassArg>,
    /// Depth pass: bits of the grey PNG
    #[arg(long, value_name = "BITS", default_value_t = 16, value_parser = clap::builder::TypedValueParser::map(clap::builder::PossibleValuesParser::new(["8", "16"]), |s: String| if s == "8" { 8u8 } else { 16 }), requires = "pass")]
    depth_bits: u8,
    /// ID pass: one colour per material or per node
    #[arg(long, value_enum, default_value = "material", requires = "pass")]
    id_by: IdByArg,
    /// Ground shadow blur radius in pixels (0-32)
    #[arg(long, value_name = "PIXELS", default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=32), requires = "ground_shadow")]
    shadow_softness: u32,
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
enum ShadingArg {
    Lambert,
    Flat,
    Unlit,
    Cel,
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
enum PassArg {
    Normal,
    Depth,
    Id,
}

#[derive(Clone, Copy, ValueEnum)]
enum IdByArg {
    Material,
    Node,
}

#[derive(Clone, Copy, ValueEnum)]
enum ShadowArg {
    Light,
    Down,
}

#[derive(Clone, Copy, ValueEnum)]
enum DitherArg {
    None,
    Ordered,
    Diffusion,
}

impl LookArgs {
    fn look(&self) -> kiln::Look {
        let palette = match (&self.palette, self.colors) {
            (Some(f), _) => Some(kiln::PaletteSource::File(FileRef::from(f.as_path()))),
            (None, Some(n)) => Some(kiln::PaletteSource::Auto(n)),
            (None, None) => None,
        };
        kiln::Look {
            outline: self.outline.map(|width| kiln::Outline {
                width,
                color: self.outline_color,
                side: if self.outline_inside {
                    kiln::OutlineSide::Inside
                } else {
                    kiln::OutlineSide::Outside
                },
                hard: self.outline_hard,
                inner: self.outline_inner,
            }),
            drop_shadow: self.drop_shadow.map(|offset| kiln::DropShadow {
                offset,
                blur: self.drop_blur,
                color: self.drop_color,
            }),
            palette: palette.map(|source| kiln::PaletteLook {
                source,
                dither: match self.dither {
                    DitherArg::None => kiln::Dither::None,
                    DitherArg::Ordered => kiln::Dither::Ordered,
                    DitherArg::Diffusion => kiln::Dither::Diffusion,
                },
            }),
            shading: match self.shading {
                ShadingArg::Lambert => kiln::Shading::Lambert,
                ShadingArg::Flat => kiln::Shading::Flat,
                ShadingArg::Unlit => kiln::Shading::Unlit,
                ShadingArg::Cel => kiln::Shading::Cel {
                    bands: self.cel_bands,
                    rim: self.rim,
                },
            },
            ground_shadow: self.ground_shadow.map(|from| kiln::GroundShadow {
                from: match from {
                    ShadowArg::Light => kiln::ShadowFrom::Light,
                    ShadowArg::Down => kiln::ShadowFrom::Down,
                },
                opacity: self.shadow_opacity,
                softness: self.shadow_softness,
                color: [0, 0, 0],
            }),
            passes: kiln::Passes::default(),
        }
    }

    fn check(&self) -> Result<(), Error> {
        if !(self.rim.is_finite() && (0.0..=1.0).contains(&self.rim)) {
            return Err(Error::Usage(format!(
                "--rim must be in [0, 1], got {}",
                self.rim
            )));
        }
        if !(self.shadow_opacity.is_finite() && (0.0..=1.0).contains(&self.shadow_opacity)) {
            return Err(Error::Usage(format!(
                "--shadow-opacity must be in [0, 1], got {}",
                self.shadow_opacity
            )));
        }
        if let Some(j) = self.outline_inner {
            if !(j.is_finite() && j > 0.0 && j <= 1.0) {
                return Err(Error::Usage(format!(
                    "--outline-inner must be in (0, 1], got {j}"
                )));
            }
        }
        if self.shading != ShadingArg::Cel && self.rim != 0.0 {
            return Err(Error::Usage("--rim needs --shading cel".into()));
        }
        Ok(())
    }
}

fn parse_offset(s: &str) -> Result<[i32; 2], String> {
    let v: Vec<i32> = s
        .split(',')
        .map(|p| p.trim().parse::<i32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("expected DX,DY in pixels, got '{s}'"))?;
    match v[..] {
        [x, y] if x.abs() <= 256 && y.abs() <= 256 => Ok([x, y]),
        [_, _] => Err(format!("offset '{s}' out of range -256..=256")),
        _ => Err(format!("expected two numbers DX,DY, got '{s}'")),
    }
}

/// For a Ragnarok client sprite (.act with its .spr): which frame.
#[derive(Args)]
struct SpriteArgs {
    /// Sprite: the motion (0 idle, 1 walk, 2 attack, 3 hurt, 4 die for monsters), or the
    /// action itself when the ACT's actions are not in eights
    #[arg(long, value_name = "N", default_value_t = 0)]
    action: usize,
    /// Sprite: the direction, 0 south (facing the camera) to 7 south-east, turning clockwise
    #[arg(long, value_name = "D", default_value_t = 0)]
    direction: usize,
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

/// A flag's number: finite and in `lo..=hi` (the library's limits).
fn within(lo: f32, hi: f32) -> impl Fn(&str) -> Result<f32, String> + Clone + Send + Sync {
    move |s: &str| {
        let v = finite_number(s)?;
        if (lo..=hi).contains(&v) {
            Ok(v)
        } else {
            Err(format!("must be in [{lo}, {hi}], got {v}"))
        }
    }
}

/// A flag's number: finite, above 0 and at most `hi`.
fn above_zero(hi: f32) -> impl Fn(&str) -> Result<f32, String> + Clone + Send + Sync {
    move |s: &str| {
        let v = finite_number(s)?;
        if v > 0.0 && v <= hi {
            Ok(v)
        } else {
            Err(format!("must be in (0, {hi}], got {v}"))
        }
    }
}

fn finite_number(s: &str) -> Result<f32, String> {
    let v: f32 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number"))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("must be a finite number, got {s}"))
    }
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
    if let Err(e) = kiln::check_environment() {
        say!("kiln: error: {e}");
        return ExitCode::from(2);
    }
    let result = match cli.command {
        Command::Bake(a) => return cmd_bake(a),
        Command::Render(a) => cmd_render(a),
        Command::Inspect(a) => cmd_inspect(a),
        Command::Export(a) => cmd_export(a),
        Command::Verify(a) => return cmd_verify(a),
        Command::Plan(a) => cmd_plan(a),
        Command::Extract(a) => cmd_extract(a),
        Command::Convert(a) => cmd_convert(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say!("kiln: error: {e}");
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
    match kiln::file_kind(&file, &a.model.data)? {
        FileKind::Map => return render_map(&a),
        FileKind::Sprite => return render_sprite(&a),
        _ => {}
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
    a.look.check()?;
    let look = a.look.look();
    if let Some(pass) = a.look.pass {
        return render_pass(&a, &model, t, &view, pass, &look);
    }
    let sprite = if look.is_off() {
        model.render(t, a.view.yaw, &view)?
    } else {
        model.render_with_look(t, a.view.yaw, &view, &look)?
    };
    kiln::write_png(&a.output, &sprite.image)?;
    say!(
        "kiln: wrote {} ({width}x{height}, t = {t:.3} s)",
        a.output.display()
    );
    Ok(())
}

/// `kiln render MODEL --pass P`: one frame of a pass, with the ID pass's
/// legend beside it.
fn render_pass(
    a: &RenderArgs,
    model: &Model,
    t: f32,
    view: &ViewSpec,
    pass: PassArg,
    look: &kiln::Look,
) -> Result<(), Error> {
    if !look.is_off() {
        return Err(Error::Usage(
            "--pass draws data, not colours: give it without looks (--outline, --drop-shadow, --palette, --colors, --shading, --ground-shadow)".into(),
        ));
    }
    let by = match a.look.id_by {
        IdByArg::Material => kiln::IdBy::Material,
        IdByArg::Node => kiln::IdBy::Node,
    };
    let which = match pass {
        PassArg::Normal => kiln::PassView::Normal,
        PassArg::Depth => kiln::PassView::Depth,
        PassArg::Id => kiln::PassView::Id(by),
    };
    let sprite = model.render_pass(t, a.view.yaw, view, which)?;
    if pass == PassArg::Depth {
        let bits = if a.look.depth_bits == 8 {
            kiln::DepthBits::Eight
        } else {
            kiln::DepthBits::Sixteen
        };
        kiln::write_file(&a.output, &kiln::encode_depth_png(&sprite.image, bits)?)?;
    } else {
        kiln::write_png(&a.output, &sprite.image)?;
    }
    let mut legend = None;
    if pass == PassArg::Id {
        let stem = a.output.file_stem().unwrap_or_default().to_string_lossy();
        let path = a.output.with_file_name(format!("{stem}_legend.json"));
        kiln::write_file(&path, model.id_legend(by).as_bytes())?;
        legend = Some(path);
    }
    let (w, h) = sprite.image.dimensions();
    say!(
        "kiln: wrote {} ({w}x{h}, t = {t:.3} s){}",
        a.output.display(),
        legend.map_or(String::new(), |p| format!(
            " and its legend {}",
            p.display()
        ))
    );
    Ok(())
}

/// `kiln render X.act`: one frame of a client sprite at its own size,
/// composited as the client draws it.
fn render_sprite(a: &RenderArgs) -> Result<(), Error> {
    if a.time.time.is_some() {
        return Err(Error::Usage(
            "a sprite plays frames at its own intervals; give --frame N".into(),
        ));
    }
    let sprite = kiln::ClientSprite::load(a.model.model.as_path(), &a.model.data)?;
    for w in sprite.warnings() {
        say!("kiln: warning: {w}");
    }
    let action = sprite.action_index(a.sprite.action, a.sprite.direction)?;
    let frame = a.time.frame.unwrap_or(0) as usize;
    let image = sprite.render_over(action, frame, a.view.background)?;
    kiln::write_png(&a.output, &image.image)?;
    say!(
        "kiln: wrote {} ({}x{}, action {action}, frame {frame}, {} ms a frame)",
        a.output.display(),
        image.image.width(),
        image.image.height(),
        (sprite.frame_seconds(action) * 1000.0).round()
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
    if !a.look.look().is_off() {
        return Err(Error::Usage(
            "looks (--outline, --drop-shadow, --palette, --colors, --shading, --ground-shadow) apply to models, not maps"
                .into(),
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
        say!("kiln: warning: {note}");
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
    say!(
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
    // The text report shows no `details`, so it never builds the full form.
    let detail = if a.json && !a.summary {
        kiln::InspectDetail::Full
    } else {
        kiln::InspectDetail::Summary
    };
    let report = kiln::inspect_within(
        &FileRef::from(a.file.as_path()),
        &a.data,
        a.model.as_deref(),
        detail,
        a.memory_limit.unwrap_or(kiln::DEFAULT_MEMORY_LIMIT),
    )?;
    if a.json {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| Error::Other(format!("JSON: {e}")))?;
        emit(&format!("{text}\n"))
    } else {
        emit(&report.to_text())
    }
}

/// Writes to standard output. A reader that went away (`kiln inspect x |
/// head -1`) ends the output quietly: that is not an error.
fn emit(text: &str) -> Result<(), Error> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::io(std::path::Path::new("standard output"), e))
        }
        _ => Ok(()),
    }
}

fn cmd_extract(a: ExtractArgs) -> Result<(), Error> {
    let report = kiln::extract(&a.archive, a.pattern.as_deref(), &a.output)?;
    for (name, why) in report.renamed.iter().chain(&report.skipped) {
        say!("kiln: warning: {name}: {why}");
    }
    say!(
        "kiln: wrote {} file(s) to {}{}",
        report.written.len(),
        a.output.display(),
        if report.skipped.is_empty() {
            String::new()
        } else {
            format!(", skipped {}", report.skipped.len())
        }
    );
    if report.written.is_empty() && report.skipped.is_empty() {
        return Err(Error::Usage(match &a.pattern {
            Some(p) => format!("no entry of {} matches '{p}'", a.archive.display()),
            None => format!("{} holds no entries", a.archive.display()),
        }));
    }
    if report.skipped.is_empty() {
        Ok(())
    } else {
        Err(Error::Other(format!(
            "{} entr(ies) could not be extracted",
            report.skipped.len()
        )))
    }
}

fn cmd_convert(a: ConvertArgs) -> Result<(), Error> {
    let options = kiln::DecodeOptions {
        colour_key: !a.no_colour_key,
        mip: a.mip,
        memory_limit: a.memory_limit.unwrap_or(kiln::DEFAULT_MEMORY_LIMIT),
    };
    let (w, h) = kiln::convert_texture(
        &FileRef::from(a.texture.as_path()),
        &a.data,
        options,
        &a.output,
    )?;
    say!("kiln: wrote {} ({w}x{h})", a.output.display());
    Ok(())
}

fn cmd_export(a: ExportArgs) -> Result<(), Error> {
    if a.clip {
        return export_clips(&a);
    }
    let model = a.model.load()?;
    let t = model_time(&model, &a.time);
    model.export(t, &a.output)?;
    say!("kiln: wrote {} (t = {t:.3} s)", a.output.display());
    Ok(())
}

/// `kiln export --clip`: the model's node tree, skins and one glTF
/// animation per `--animation` file (or its own animation).
fn export_clips(a: &ExportArgs) -> Result<(), Error> {
    let model = Model::load(&a.model.spec())?;
    warn(&model);
    let stem = |p: &std::path::Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let files: Vec<Option<&PathBuf>> = if a.model.animation.is_empty() {
        if model.duration() <= 0.0 {
            return Err(Error::Usage(format!(
                "{} has no animation of its own; give --animation FILE (a Grimrock .animation, an Arma .rtm)",
                a.model.model.display()
            )));
        }
        vec![None]
    } else {
        a.model.animation.iter().map(Some).collect()
    };
    if !a.clip_names.is_empty() && a.clip_names.len() != files.len() {
        return Err(Error::Usage(format!(
            "{} --clip-name for {} clip(s); give one per --animation, in order",
            a.clip_names.len(),
            files.len()
        )));
    }
    let clips: Vec<ExportClip> = files
        .iter()
        .enumerate()
        .map(|(i, f)| ExportClip {
            name: a
                .clip_names
                .get(i)
                .cloned()
                .unwrap_or_else(|| stem(f.map_or(&a.model.model, |p| p.as_path()))),
            animation: f.map(|p| FileRef::from(p.as_path())),
            clip: Clip::Range {
                start: 0.0,
                end: None,
                step: Step::Fps(model.frame_rate().max(1e-3)),
            },
        })
        .collect();
    let report = model.export_animated(&clips, &a.output)?;
    for n in &report.notes {
        say!("kiln: note: {n}");
    }
    let list: Vec<String> = report
        .animations
        .iter()
        .map(|c| {
            format!(
                "{} ({:.3} s, {} channels, {} keys)",
                c.name, c.seconds, c.channels, c.keys
            )
        })
        .collect();
    say!(
        "kiln: wrote {} with {} animation(s): {}",
        a.output.display(),
        report.animations.len(),
        list.join(", ")
    );
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
                    self.bar.suspend(|| say!("kiln: warning: {label}: {w}"));
                }
                if !self.quiet {
                    let what = match outcome.status {
                        kiln::JobStatus::Skipped => {
                            format!("up to date, {} files", report.files.len())
                        }
                        kiln::JobStatus::Restored => {
                            format!("{} files from the cache", report.files.len())
                        }
                        kiln::JobStatus::Stale => "stale: would be baked".to_string(),
                        _ => format!("{} images, {} files", report.images, report.files.len()),
                    };
                    self.bar.suspend(|| {
                        say!("kiln: {}: {what} in {}", report.name, outcome.dir.display())
                    });
                }
            }
            Err(e) => self.bar.suspend(|| say!("kiln: error: {label}: {e}")),
        }
    }
}

/// The progress bar on a terminal (hidden in pipes, logs and `quiet`).
fn progress_bar(quiet: bool) -> Bar {
    use indicatif::{ProgressBar, ProgressStyle};
    use std::io::IsTerminal;
    let show = !quiet && std::io::stderr().is_terminal();
    let bar = if show {
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
    Bar { bar, quiet }
}

/// Runs every job; a failed job is reported and the others still run.
/// Exit code: 0 all good, 1 a job failed (or, with --check, a job is
/// stale), 2 a recipe could not be read.
fn cmd_bake(a: BakeArgs) -> ExitCode {
    let started = std::time::Instant::now();
    let recipes = match load_recipes(&a.recipes) {
        Ok(r) => r,
        Err(e) => {
            say!("kiln: error: {e}");
            return ExitCode::from(2);
        }
    };
    let progress = progress_bar(a.quiet);
    let mode = if a.check {
        kiln::OutputMode::Check
    } else if a.dry_run {
        kiln::OutputMode::DryRun
    } else {
        kiln::OutputMode::Write
    };
    let options = BakeOptions {
        only: a.only.clone(),
        threads: a.threads.map(|n| n as usize),
        mode,
        force: a.force,
        cache: a.cache.clone(),
        shard: a.shard,
        prune: a.prune,
        memory_limit: a.memory_limit,
        out_dir: a.out_dir.clone(),
        ..BakeOptions::default()
    };
    let report = match kiln::bake(&recipes, &options, &progress) {
        Ok(r) => r,
        Err(e) => {
            say!("kiln: error: {e}");
            return match e {
                Error::Usage(_) => ExitCode::from(2),
                _ => ExitCode::from(1),
            };
        }
    };
    progress.bar.finish_and_clear();
    if let Some(dep) = &a.depfile {
        let written = report
            .depfile()
            .and_then(|text| kiln::write_file(dep, text.as_bytes()));
        if let Err(e) = written {
            say!("kiln: error: {e}");
            return ExitCode::from(1);
        }
    }
    if a.json {
        let text = serde_json::to_string_pretty(&report.to_json()).unwrap_or_default();
        if let Err(e) = emit(&format!("{text}\n")) {
            say!("kiln: error: {e}");
            return ExitCode::from(1);
        }
    }
    let failed = report.failed();
    let stale = report.count(kiln::JobStatus::Stale);
    let mut extra = String::new();
    for (n, what) in [
        (report.count(kiln::JobStatus::Skipped), "up to date"),
        (report.count(kiln::JobStatus::Restored), "from the cache"),
        (stale, "stale"),
    ] {
        if n > 0 {
            extra.push_str(&format!(", {n} {what}"));
        }
    }
    if failed > 0 {
        extra.push_str(&format!(", {failed} FAILED"));
    }
    let verb = match mode {
        kiln::OutputMode::Check => "checked",
        kiln::OutputMode::DryRun => "dry-ran",
        _ => "baked",
    };
    say!(
        "kiln: {verb} {} of {} job(s): {} images, {} files in {:.2} s{extra}",
        report.succeeded(),
        report.jobs.len(),
        report.images(),
        report.files().len(),
        started.elapsed().as_secs_f64()
    );
    if failed == 0 && stale == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Exit code: 0 every file matches, 1 a mismatch, a missing reference or a
/// failed job, 2 a usage or recipe error.
fn cmd_verify(a: VerifyArgs) -> ExitCode {
    let recipes = match load_recipes(&a.recipes) {
        Ok(r) => r,
        Err(e) => {
            say!("kiln: error: {e}");
            return ExitCode::from(2);
        }
    };
    let progress = progress_bar(true);
    let options = kiln::VerifyOptions {
        bake: BakeOptions {
            only: a.only.clone(),
            threads: a.threads.map(|n| n as usize),
            shard: a.shard,
            ..BakeOptions::default()
        },
        reference: a.reference.clone(),
        tolerance: kiln::Tolerance {
            channel: a.tolerance,
            pixels: a.max_diff_pixels,
            antialiasing: a.aa,
        },
        diff_dir: Some(a.diff_dir.clone()),
        update: a.update,
    };
    let report = match kiln::verify(&recipes, &options, &progress) {
        Ok(r) => r,
        Err(e) => {
            say!("kiln: error: {e}");
            return match e {
                Error::Usage(_) => ExitCode::from(2),
                _ => ExitCode::from(1),
            };
        }
    };
    for f in &report.files {
        match f.status {
            kiln::CheckStatus::Match => {}
            kiln::CheckStatus::Updated => {
                say!("kiln: updated {}: {}", f.reference.display(), f.detail)
            }
            s => {
                let diff = f
                    .diff
                    .as_ref()
                    .map(|d| format!(" (diff {})", d.display()))
                    .unwrap_or_default();
                say!(
                    "kiln: {} {}: {}{diff}",
                    s.as_str(),
                    f.output.display(),
                    f.detail
                );
            }
        }
    }
    if let Some(path) = &a.junit {
        if let Err(e) = kiln::write_file(path, report.junit().as_bytes()) {
            say!("kiln: error: {e}");
            return ExitCode::from(1);
        }
    }
    if a.json {
        let text = serde_json::to_string_pretty(&report.to_json()).unwrap_or_default();
        if let Err(e) = emit(&format!("{text}\n")) {
            say!("kiln: error: {e}");
            return ExitCode::from(1);
        }
    }
    let failed = report.bake.failed();
    say!(
        "kiln: verified {} files: {} match, {} differ, {} missing, {} updated{}",
        report.files.len(),
        report.count(kiln::CheckStatus::Match),
        report.count(kiln::CheckStatus::Mismatch),
        report.count(kiln::CheckStatus::Missing),
        report.count(kiln::CheckStatus::Updated),
        if failed > 0 {
            format!(", {failed} job(s) FAILED")
        } else {
            String::new()
        }
    );
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn cmd_plan(a: PlanArgs) -> Result<(), Error> {
    let recipes = load_recipes(&a.recipes).map_err(Error::Usage)?;
    let plan = kiln::plan(&recipes, a.shards as usize);
    let mut text = String::new();
    if a.json {
        text = serde_json::to_string_pretty(&kiln::plan_json(&plan)).unwrap_or_default();
        text.push('\n');
    } else {
        for p in &plan {
            text.push_str(&format!(
                "{:>4}/{}  {:>14.0}  {} '{}'  ({})\n",
                p.shard,
                a.shards,
                p.cost,
                p.kind,
                p.name,
                p.recipe.display()
            ));
        }
    }
    emit(&text)
}
