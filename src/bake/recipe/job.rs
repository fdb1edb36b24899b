//! One entry of `jobs:` merged with `defaults:` and resolved into a [`Job`]:
//! the model and its companions (data folders, materials, skeleton, LOD),
//! the view (directions, pitch, size, camera, light) and, through
//! [`super::clips`] and [`super::output`], its clips and files.
//!
//! A job's own key wins over the defaults' key of the same name; a value
//! taken from the defaults is reported at the defaults' line (see
//! [`JobLabel`]).

use super::clips::{resolve_clips, ClipSpec};
use super::defaults::{self, MAX_DURATION, MAX_LOD_INDEX, MAX_SIZE};
use super::directions::{resolve_directions, Direction};
use super::error::{Ctx, JobLabel, RecipeError};
use super::output::{resolve_output, Outputs};
use super::pack::{resolve_pack, PackSpec};
use super::raw::{pick, RawCamera, RawJob, RawLight, RawScale, RawSkeleton};
use super::values::{color3, finite, in_range, int_range, Lod, Materials, ProjectionKind, Size, S};
use crate::camera::{yaw_pitch_vector, Framing, LightSpace, LightSpec, Projection};
use crate::render::ViewSpec;
use crate::spec::{self, AnimationSettings, FileRef, ModelSpec, RootMotion, SkeletonSpec};
use glam::Vec3;
use kiln_recipe_yaml::Location;
use std::path::PathBuf;

/// One bake job, fully resolved: paths made relative to the recipe's folder,
/// defaults applied, values validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The job's name, unique in its recipe. An instance of a catalogue
    /// job (a glob `model:`) is named `<job>/<path below the glob's base>`.
    pub name: String,
    /// What `{name}` gives in its output names: the job's name, or an
    /// instance's file stem.
    pub file_name: String,
    /// The recipe file, for messages.
    pub recipe: PathBuf,
    /// The job's line in the recipe, for messages.
    pub line: u64,
    /// The model and how it is loaded: the same specification the command
    /// line builds from its flags.
    pub model: ModelSpec,
    /// The clips baked into this job's sheet, in order; never empty, names
    /// unique. Sheet rows are clip-major: clip 0 × every direction, then
    /// clip 1 × every direction, ...
    pub clips: Vec<ClipSpec>,
    /// True when the recipe listed `clips:`. A job given `clip:` (or no clip)
    /// has one clip named `default` and keeps the
    /// output names without a clip part, so older recipes bake to the same
    /// files.
    pub named_clips: bool,
    /// Camera yaws, in order; row `i` of the sheet is `directions[i]`.
    pub directions: Vec<Direction>,
    /// How every frame is drawn: the same view the command line renders.
    pub view: ViewSpec,
    /// `framing: { group }`: jobs of one group share one framing, fitted
    /// over all of them, so they keep their relative sizes.
    pub framing_group: Option<FramingGroup>,
    /// How frames are laid out on the sheet.
    pub pack: PackSpec,
    /// The files it writes.
    pub output: Outputs,
    /// How it bakes into a client sprite (`output.ro_sprite`).
    pub client_sprite: super::client_sprite::ClientSpriteSpec,
    /// How hard its PNG sheets and frames are compressed (`png:`).
    pub png: crate::output::PngCompression,
    /// Outline, drop shadow and palette applied to every frame; all off
    /// unless the recipe's `look:` sets them.
    pub look: crate::look::Look,
}

/// A job's framing group, and where the recipe names it (for messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FramingGroup {
    /// The group's name, shared by its jobs.
    pub name: String,
    /// Line of the `group` value.
    pub line: u64,
    /// Column of the `group` value.
    pub column: u64,
}

impl Job {
    /// The per-frame PNG path of clip `clip`, direction `dir`, frame
    /// `frame`, when per-frame output is on.
    pub fn frame_path(&self, clip: usize, dir: usize, frame: usize) -> Option<PathBuf> {
        let t = self.output.frames.as_ref()?;
        let c = self.clips.get(clip)?;
        let d = self.directions.get(dir)?;
        Some(
            self.output
                .dir
                .join(t.render(&self.file_name, Some(&c.name), Some(d), Some(frame))),
        )
    }

    /// The animated PNG path for one clip and direction, when that output
    /// is on.
    pub fn apng_path(&self, clip: usize, dir: usize) -> Option<PathBuf> {
        self.animation_path(self.output.apng.as_ref()?, clip, dir)
    }

    /// The path template `t` gives one clip and direction.
    fn animation_path(&self, t: &super::Template, clip: usize, dir: usize) -> Option<PathBuf> {
        let c = self.clips.get(clip)?;
        let d = self.directions.get(dir)?;
        Some(
            self.output
                .dir
                .join(t.render(&self.file_name, Some(&c.name), Some(d), None)),
        )
    }

    /// The outputs of a pass (`suffix`: `normal`, `depth`, `id`): the
    /// colour sheet, its JSON and every other metadata file, each with
    /// `_<suffix>` before the extension, and nothing else. `None` without
    /// a sheet.
    pub fn pass_outputs(&self, suffix: &str) -> Option<super::Outputs> {
        let o = &self.output;
        let sheet = o.sheet.as_ref()?;
        Some(super::Outputs {
            dir: o.dir.clone(),
            frames: None,
            sheet: Some(with_suffix(sheet, suffix)),
            meta: o.meta.as_deref().map(|m| with_suffix(m, suffix)),
            metadata: o
                .metadata
                .iter()
                .map(|(f, p)| (*f, with_suffix(p, suffix)))
                .collect(),
            gif: None,
            apng: None,
            prune: o.prune,
            gltf: None,
            ro_sprite: None,
            sites: o.sites.clone(),
        })
    }

    /// The ID pass's legend (material or node name per colour), beside the
    /// colour sheet. `None` without a sheet.
    pub fn id_legend_path(&self) -> Option<PathBuf> {
        let sheet = self.output.sheet.as_ref()?;
        Some(with_suffix(sheet, "id_legend").with_extension("json"))
    }

    /// Every pass file the job writes: sheets, metadata and the ID legend.
    pub fn pass_files(&self) -> Vec<PathBuf> {
        let p = &self.look.passes;
        let mut out = Vec::new();
        for (on, suffix) in [
            (p.normal, "normal"),
            (p.depth.is_some(), "depth"),
            (p.id.is_some(), "id"),
        ] {
            if let (true, Some(o)) = (on, self.pass_outputs(suffix)) {
                out.extend(o.sheet);
                out.extend(o.meta);
                for (f, path) in o.metadata {
                    if f != super::MetaFormat::TexturePackerHash {
                        out.push(path);
                    }
                }
            }
        }
        if p.id.is_some() {
            out.extend(self.id_legend_path());
        }
        out
    }

    /// The GIF path for one clip and direction, when GIF output is on.
    pub fn gif_path(&self, clip: usize, dir: usize) -> Option<PathBuf> {
        self.animation_path(self.output.gif.as_ref()?, clip, dir)
    }
}

/// Which job is resolved: its name, what `{name}` gives its files and, for
/// an instance of a catalogue job, the file its glob matched.
pub(super) struct Who<'a> {
    /// How messages name it.
    pub(super) label: &'a str,
    /// [`Job::name`].
    pub(super) name: &'a str,
    /// [`Job::file_name`].
    pub(super) file_name: &'a str,
    /// The model, when it is not the job's `model:` as written.
    pub(super) model: Option<FileRef>,
}

/// Resolves job `name` (labelled `label` in messages, starting at `at`)
/// from its own keys `j` and the recipe's defaults `d`. Keys are checked in
/// the order the [`Job`] lists them, so the first mistake is the one
/// reported.
pub(super) fn resolve_job(
    ctx: &Ctx,
    who: &Who,
    at: &Location,
    j: &RawJob,
    d: &RawJob,
) -> Result<Job, RecipeError> {
    let Who {
        label,
        name,
        file_name,
        model,
    } = who;
    let lab = JobLabel(label);
    let model = match model {
        Some(m) => m.clone(),
        None => resolve_model(ctx, lab, at, j, d)?,
    };
    let data: Vec<PathBuf> = pick(&j.data, &d.data)
        .map(|v| v.value.0.iter().map(|p| ctx.base.join(p)).collect())
        .unwrap_or_default();
    let (clips, named_clips) = resolve_clips(ctx, lab, at, j, d, Some((&model, data.as_slice())))?;
    let pose = pick(&j.pose, &d.pose).map(|p| p.value).unwrap_or_default();
    let materials = match pick(&j.materials, &d.materials) {
        Some(m) => resolve_materials(ctx, &lab.of(j.materials.is_some()), m)?,
        None => Vec::new(),
    };
    let skeleton = match pick(&j.skeleton, &d.skeleton) {
        Some(sk) => Some(resolve_skeleton(ctx, &lab.of(j.skeleton.is_some()), sk)?),
        None => None,
    };
    let duration = match pick(&j.duration, &d.duration) {
        Some(x) => Some(in_range(
            ctx,
            &lab.of(j.duration.is_some()),
            "duration",
            x,
            0.0,
            MAX_DURATION,
            true,
        )?),
        None => None,
    };
    let root_motion = resolve_root_motion(ctx, lab, j, d)?;
    let lod = match pick(&j.lod, &d.lod) {
        Some(x) => Some(resolve_lod(ctx, &lab.of(j.lod.is_some()), x)?),
        None => None,
    };
    let scene = pick(&j.scene, &d.scene).map(|s| s.value.clone());
    let directions = resolve_directions(ctx, lab, j.directions.as_ref(), d.directions.as_ref())?;
    let pitch = match pick(&j.pitch, &d.pitch) {
        Some(p) => in_range(
            ctx,
            &lab.of(j.pitch.is_some()),
            "pitch",
            p,
            defaults::PITCH_RANGE.0,
            defaults::PITCH_RANGE.1,
            false,
        )?,
        None if ragnarok_preset(j, d) => super::client_sprite::RAGNAROK_PITCH,
        None => defaults::PITCH,
    };
    let (width, height) = match pick(&j.size, &d.size) {
        Some(s) => resolve_size(ctx, &lab.of(j.size.is_some()), s)?,
        None => defaults::SIZE,
    };
    let mut framing = resolve_camera(
        ctx,
        lab,
        &j.camera.clone().unwrap_or_default(),
        &d.camera.clone().unwrap_or_default(),
    )?;
    if let Some(sc) = pick(&j.scale, &d.scale) {
        framing.pixels_per_unit = Some(resolve_scale(ctx, &lab.of(j.scale.is_some()), sc)?);
    }
    let framing_group = match pick(&j.framing, &d.framing) {
        Some(f) => {
            let l = lab.of(j.framing.is_some());
            let Some(g) = &f.value.group else {
                return Err(ctx.err(&f.referenced, &l, "`framing` needs `group: NAME`"));
            };
            if g.value.trim().is_empty() {
                return Err(ctx.err(&g.referenced, &l, "`framing.group` is empty"));
            }
            Some(FramingGroup {
                name: g.value.clone(),
                line: g.referenced.line(),
                column: g.referenced.column(),
            })
        }
        None => None,
    };
    let pack = resolve_pack(
        ctx,
        lab,
        &j.pack.clone().unwrap_or_default(),
        &d.pack.clone().unwrap_or_default(),
    )?;
    let light = resolve_light(ctx, lab, j.light.as_ref(), d.light.as_ref())?;
    let background = pick(&j.background, &d.background)
        .map(|b| b.value.0)
        .unwrap_or([0, 0, 0, 0]);
    let antialias = match pick(&j.antialias, &d.antialias) {
        Some(a) => int_range(ctx, &lab.of(j.antialias.is_some()), "antialias", a, 1, 4)?,
        None => defaults::ANTIALIAS,
    };
    let output = resolve_output(ctx, lab, file_name, at, j, d, &clips, &directions)?;
    let client_sprite = super::client_sprite::resolve_client_sprite(
        ctx,
        lab,
        j.client_sprite.as_ref(),
        d.client_sprite.as_ref(),
        &clips,
    )?;
    let look = super::look::resolve_look(ctx, lab, j, d, output.sheet.is_some())?;
    let png = j
        .png
        .as_ref()
        .or(d.png.as_ref())
        .and_then(|p| p.value.compression.as_ref())
        .map_or_else(Default::default, |c| c.value);

    Ok(Job {
        name: name.to_string(),
        file_name: file_name.to_string(),
        recipe: ctx.file.to_path_buf(),
        line: at.line(),
        model: ModelSpec {
            model,
            data,
            pose,
            materials,
            lod,
            scene,
            animation: AnimationSettings {
                duration,
                skeleton,
                root_motion,
            },
        },
        clips,
        named_clips,
        directions,
        view: ViewSpec {
            pitch,
            width,
            height,
            framing,
            light,
            background,
            antialias,
        },
        framing_group,
        pack,
        output,
        client_sprite,
        png,
        look,
    })
}

/// `root_motion`, or the older Arma `travel: true` (= `keep`); not both.
fn resolve_root_motion(
    ctx: &Ctx,
    lab: JobLabel,
    j: &RawJob,
    d: &RawJob,
) -> Result<RootMotion, RecipeError> {
    // The job's own key wins over either key from the defaults.
    let job_sets = j.root_motion.is_some() || j.travel.is_some();
    let src = if job_sets { j } else { d };
    match (&src.root_motion, &src.travel) {
        (Some(_), Some(t)) => Err(ctx.err(
            &t.referenced,
            &lab.of(job_sets),
            "give `root_motion` or the older `travel`, not both (`travel: true` is `root_motion: keep`)",
        )),
        (Some(r), None) => Ok(r.value),
        (None, Some(t)) if t.value => Ok(RootMotion::Keep),
        _ => Ok(RootMotion::InPlace),
    }
}

/// `scale: { pixels_per_unit: N }`, N in (0, 1e6].
fn resolve_scale(ctx: &Ctx, l: &str, sc: &S<RawScale>) -> Result<f32, RecipeError> {
    match &sc.value.pixels_per_unit {
        Some(p) => in_range(ctx, l, "scale.pixels_per_unit", p, 0.0, 1.0e6, true),
        None => Err(ctx.err(
            &sc.referenced,
            l,
            "`scale` needs `pixels_per_unit: N` (pixels per model unit)",
        )),
    }
}

/// Whether the job's (or the defaults') camera is `preset: ragnarok`.
fn ragnarok_preset(j: &RawJob, d: &RawJob) -> bool {
    let preset = |r: &RawJob| {
        r.camera
            .as_ref()
            .and_then(|c| c.preset.as_ref().map(|p| p.value))
    };
    preset(j).or_else(|| preset(d)) == Some(super::raw::client_sprite::CameraPreset::Ragnarok)
}

/// `model`, joined to the recipe's folder; every job needs one.
fn resolve_model(
    ctx: &Ctx,
    lab: JobLabel,
    at: &Location,
    j: &RawJob,
    d: &RawJob,
) -> Result<FileRef, RecipeError> {
    match pick(&j.model, &d.model) {
        Some(m) => {
            if m.value.trim().is_empty() {
                return Err(ctx.err(
                    &m.referenced,
                    &lab.of(j.model.is_some()),
                    "`model` is empty",
                ));
            }
            Ok(FileRef::relative_to(ctx.base, &m.value))
        }
        None => Err(ctx.err(at, lab.0, "missing key `model`")),
    }
}

/// `materials: {name: file}`, in the order written, names unique.
fn resolve_materials(
    ctx: &Ctx,
    l: &str,
    m: &S<Materials>,
) -> Result<Vec<(String, FileRef)>, RecipeError> {
    let mut out: Vec<(String, FileRef)> = Vec::with_capacity(m.value.0.len());
    for (k, f) in &m.value.0 {
        if k.value.trim().is_empty() {
            return Err(ctx.err(&k.referenced, l, "`materials` has an empty material name"));
        }
        if out.iter().any(|(n, _)| n == &k.value) {
            return Err(ctx.err(
                &k.referenced,
                l,
                format!("`materials` names `{}` twice", k.value),
            ));
        }
        if f.value.trim().is_empty() {
            return Err(ctx.err(
                &f.referenced,
                l,
                format!("`materials.{}` is empty; give a texture file", k.value),
            ));
        }
        out.push((k.value.clone(), FileRef::relative_to(ctx.base, &f.value)));
    }
    Ok(out)
}

/// `skeleton`: a `config` file and the `class` in it, or `bones` pairs.
fn resolve_skeleton(ctx: &Ctx, l: &str, sk: &S<RawSkeleton>) -> Result<SkeletonSpec, RecipeError> {
    let r = &sk.value;
    match (&r.config, &r.class, &r.bones) {
        (None, None, Some(b)) => {
            let mut pairs = Vec::with_capacity(b.value.len());
            for p in &b.value {
                match p.as_slice() {
                    [bone, parent] if !bone.trim().is_empty() => {
                        pairs.push((bone.clone(), parent.clone()))
                    }
                    _ => {
                        return Err(ctx.err(
                            &b.referenced,
                            l,
                            "`skeleton.bones` entries are [bone, parent] pairs (parent \"\" for a root)",
                        ))
                    }
                }
            }
            if pairs.is_empty() {
                return Err(ctx.err(&b.referenced, l, "`skeleton.bones` is empty"));
            }
            Ok(SkeletonSpec::Bones(pairs))
        }
        (Some(config), Some(class), None) => {
            if config.value.trim().is_empty() {
                return Err(ctx.err(&config.referenced, l, "`skeleton.config` is empty"));
            }
            if class.value.trim().is_empty() {
                return Err(ctx.err(&class.referenced, l, "`skeleton.class` is empty"));
            }
            Ok(SkeletonSpec::Config {
                config: FileRef::relative_to(ctx.base, &config.value),
                class: class.value.clone(),
            })
        }
        (Some(_), None, None) => Err(ctx.err(
            &sk.referenced,
            l,
            "`skeleton` has `config` but no `class` (the skeleton's class name in it)",
        )),
        (None, Some(_), None) => Err(ctx.err(
            &sk.referenced,
            l,
            "`skeleton` has `class` but no `config` (the model.cfg that defines it)",
        )),
        _ => Err(ctx.err(
            &sk.referenced,
            l,
            "`skeleton` takes either `config` and `class`, or `bones: [[bone, parent], ...]`",
        )),
    }
}

/// `lod: 2` or `lod: {resolution: 1.5}`.
fn resolve_lod(ctx: &Ctx, l: &str, x: &S<Lod>) -> Result<spec::Lod, RecipeError> {
    match x.value {
        Lod::Index(i) => {
            if !(0..=MAX_LOD_INDEX as i64).contains(&i) {
                return Err(ctx.err(
                    &x.referenced,
                    l,
                    format!("`lod` index must be in 0..={MAX_LOD_INDEX}, got {i}"),
                ));
            }
            Ok(spec::Lod::Index(i as u32))
        }
        Lod::Resolution(r) => {
            if !r.is_finite() || r < 0.0 {
                return Err(ctx.err(
                    &x.referenced,
                    l,
                    format!("`lod.resolution` must be a finite number at least 0, got {r}"),
                ));
            }
            Ok(spec::Lod::Resolution(r))
        }
    }
}

/// `size`, in pixels, each side 1..=[`MAX_SIZE`].
fn resolve_size(ctx: &Ctx, l: &str, s: &S<Size>) -> Result<(u32, u32), RecipeError> {
    let Size(w, h, from_int) = s.value;
    // YAML reads `0x40` as the hex number 64; a plain-number size must
    // be spelled in decimal digits or it was meant as WxH.
    if from_int
        && !ctx
            .source_of(&s.defined)
            .bytes()
            .all(|b| b.is_ascii_digit())
    {
        return Err(ctx.err(
            &s.referenced,
            l,
            format!(
                "`size` `{}` reads as a number; write sizes as WIDTHxHEIGHT with both sides at least 1",
                ctx.source_of(&s.defined)
            ),
        ));
    }
    let r = 1..=MAX_SIZE as i64;
    if !r.contains(&w) || !r.contains(&h) {
        return Err(ctx.err(
            &s.referenced,
            l,
            format!("`size` sides must be in 1..={MAX_SIZE}, got {w}x{h}"),
        ));
    }
    Ok((w as u32, h as u32))
}

/// `camera:` merged key by key. `fov` is checked even for an orthographic
/// camera, so a typo there is not silently kept for a later switch.
fn resolve_camera(
    ctx: &Ctx,
    lab: JobLabel,
    jc: &RawCamera,
    dc: &RawCamera,
) -> Result<Framing, RecipeError> {
    let preset = pick(&jc.preset, &dc.preset).map(|p| p.value);
    let ragnarok = preset == Some(super::raw::client_sprite::CameraPreset::Ragnarok);
    let kind = pick(&jc.projection, &dc.projection)
        .map(|p| p.value)
        .unwrap_or(if ragnarok {
            ProjectionKind::Perspective
        } else {
            ProjectionKind::Orthographic
        });
    let padding = match pick(&jc.padding, &dc.padding) {
        Some(p) => {
            let x = finite(ctx, &lab.of(jc.padding.is_some()), "camera.padding", p)?;
            if !(0.0..0.5).contains(&x) {
                return Err(ctx.err(
                    &p.referenced,
                    &lab.of(jc.padding.is_some()),
                    format!("`camera.padding` must be in [0, 0.5), got {x}"),
                ));
            }
            x
        }
        None => defaults::PADDING,
    };
    let zoom = match pick(&jc.zoom, &dc.zoom) {
        Some(z) => in_range(
            ctx,
            &lab.of(jc.zoom.is_some()),
            "camera.zoom",
            z,
            0.0,
            100.0,
            true,
        )?,
        None => defaults::ZOOM,
    };
    let fov = match pick(&jc.fov, &dc.fov) {
        Some(f) => in_range(
            ctx,
            &lab.of(jc.fov.is_some()),
            "camera.fov",
            f,
            defaults::FOV_RANGE.0,
            defaults::FOV_RANGE.1,
            false,
        )?,
        None if ragnarok => super::client_sprite::RAGNAROK_FOV,
        None => defaults::FOV,
    };
    let projection = match kind {
        ProjectionKind::Orthographic => Projection::Orthographic,
        ProjectionKind::Perspective => Projection::Perspective { fov_deg: fov },
    };
    Ok(Framing {
        projection,
        padding,
        zoom,
        pixels_per_unit: None,
    })
}

/// `light:` merged key by key, except the orientation (`direction`, or
/// `yaw`/`pitch`), which the job takes whole from itself or the defaults.
fn resolve_light(
    ctx: &Ctx,
    lab: JobLabel,
    j: Option<&S<RawLight>>,
    d: Option<&S<RawLight>>,
) -> Result<LightSpec, RecipeError> {
    let jl = j.map(|s| s.value.clone()).unwrap_or_default();
    let dl = d.map(|s| s.value.clone()).unwrap_or_default();
    for (l, from_job) in [(&jl, true), (&dl, false)] {
        if let (Some(dir), true) = (&l.direction, l.yaw.is_some() || l.pitch.is_some()) {
            return Err(ctx.err(
                &dir.referenced,
                &lab.of(from_job),
                "give the light either as `direction` or as `yaw`/`pitch`, not both",
            ));
        }
    }
    // The orientation is one unit: a job that sets any of it does not
    // inherit half of it from the defaults.
    let job_orients = jl.direction.is_some() || jl.yaw.is_some() || jl.pitch.is_some();
    let (o, from_job) = if job_orients {
        (&jl, true)
    } else {
        (&dl, false)
    };
    let direction = if let Some(v) = &o.direction {
        let x = Vec3::from_array(v.value.map(|n| n.0));
        if !x.is_finite() || x.length() < 1e-6 {
            return Err(ctx.err(
                &v.referenced,
                &lab.of(from_job),
                format!(
                    "`light.direction` must be a non-zero vector, got {:?}",
                    x.to_array()
                ),
            ));
        }
        x.normalize()
    } else {
        let yaw = match &o.yaw {
            Some(y) => finite(ctx, &lab.of(from_job), "light.yaw", y)?,
            None => defaults::LIGHT_YAW,
        };
        let pitch = match &o.pitch {
            Some(p) => in_range(ctx, &lab.of(from_job), "light.pitch", p, -90.0, 90.0, false)?,
            None => defaults::LIGHT_PITCH,
        };
        yaw_pitch_vector(yaw, pitch)
    };
    let space = pick(&jl.space, &dl.space)
        .map(|s| s.value)
        .unwrap_or(LightSpace::Camera);
    let color = match pick(&jl.color, &dl.color) {
        Some(c) => color3(ctx, &lab.of(jl.color.is_some()), "light.color", c)?,
        None => Vec3::from_array(defaults::LIGHT_COLOR),
    };
    let ambient = match pick(&jl.ambient, &dl.ambient) {
        Some(c) => color3(ctx, &lab.of(jl.ambient.is_some()), "light.ambient", c)?,
        None => Vec3::from_array(defaults::AMBIENT),
    };
    Ok(LightSpec {
        direction,
        space,
        color,
        ambient,
    })
}

/// `p` with `_<suffix>` before its extension.
fn with_suffix(p: &std::path::Path, suffix: &str) -> PathBuf {
    let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned());
    let ext = p.extension().map(|e| e.to_string_lossy().into_owned());
    let name = match ext {
        Some(e) => format!("{}_{suffix}.{e}", stem.unwrap_or_default()),
        None => format!("{}_{suffix}", stem.unwrap_or_default()),
    };
    p.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use crate::bake::recipe::{Recipe, RecipeError};
    use crate::camera::{Framing, Projection};
    use std::path::Path;

    /// `ViewSpec::default()` promises a recipe job's defaults; both spell
    /// them out, so this keeps them equal.
    #[test]
    fn a_job_that_sets_nothing_has_the_default_view() {
        let text = "jobs:\n  - name: a\n    model: a.rsm\n";
        let jobs = Recipe::from_str(text, Path::new("r.yaml"))
            .unwrap()
            .jobs()
            .unwrap();
        assert_eq!(jobs[0].view, crate::render::ViewSpec::default());
    }

    fn camera(block: &str) -> Result<Framing, RecipeError> {
        let text = format!("jobs:\n  - name: a\n    model: a.rsm\n    camera: {block}\n");
        Ok(Recipe::from_str(&text, Path::new("r.yaml"))?.jobs()?[0]
            .view
            .framing)
    }

    #[test]
    fn fov_defaults_for_perspective_and_is_checked_for_orthographic() {
        assert_eq!(
            camera("{projection: perspective}").unwrap().projection,
            Projection::Perspective { fov_deg: 35.0 }
        );
        assert_eq!(
            camera("{fov: 50}").unwrap().projection,
            Projection::Orthographic
        );
        assert_eq!(
            camera("{fov: 171}").unwrap_err().to_string(),
            "r.yaml:4:19: job 'a': `camera.fov` must be in [1, 170], got 171"
        );
    }
}
