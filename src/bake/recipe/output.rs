//! Where a job writes: the `output:` block resolved to a folder and
//! file-name templates (and the glTF file), checked so that no two of the job's files share a
//! name.

use super::clips::ClipSpec;
use super::defaults;
use super::directions::Direction;
use super::error::{Ctx, JobLabel, RecipeError};
use super::metadata::MetaFormat;
use super::raw::{pick, RawJob};
use super::template::{Part, Template};
use super::values::{OutName, S};
use crate::paths::normalize;
use kiln_recipe_yaml::Location;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where a job writes. Templates may use `{name}`, `{clip}` (clip name),
/// `{dir}` (direction index), `{yaw}` (whole degrees) and `{frame}` (frame
/// index within its clip); the sheet, metadata and glTF names `{name}`
/// only.
#[derive(Debug, Clone, PartialEq)]
pub struct Outputs {
    /// The folder every file goes to.
    pub dir: PathBuf,
    /// Per-frame PNG names, when that output is on.
    pub frames: Option<Template>,
    /// The sprite sheet, when that output is on.
    pub sheet: Option<PathBuf>,
    /// TexturePacker JSON-hash metadata; only written with a sheet.
    pub meta: Option<PathBuf>,
    /// Every metadata format the job writes (`metadata:`), in the order
    /// listed, with its file: `meta` for the JSON hash, else beside the
    /// sheet ([`MetaFormat::default_path`]). Over several pages the formats
    /// written per page number their files like the sheet's pages. Empty
    /// without a sheet.
    pub metadata: Vec<(MetaFormat, PathBuf)>,
    /// GIF names (one per clip × direction), when that output is on.
    pub gif: Option<Template>,
    /// Animated PNG names (one per clip × direction), when that output is
    /// on.
    pub apng: Option<Template>,
    /// Whether files an earlier bake of this job wrote and this one does
    /// not are removed (`output.prune`, or `kiln bake --prune`).
    pub prune: bool,
    /// The model with one glTF animation per clip (`.glb`), when that
    /// output is on.
    pub gltf: Option<PathBuf>,
    /// A Ragnarok client sprite: this path with `.spr` and `.act`, when
    /// that output is on.
    pub ro_sprite: Option<PathBuf>,
    /// Where the recipe wrote each output's name (`None`: a default), for
    /// messages about it. Shared: a catalogue's instances, resolved from
    /// one entry, hold one copy between them.
    pub(crate) sites: Sites,
}

/// Each output key and where the recipe wrote its name.
pub(crate) type Sites = std::sync::Arc<[(&'static str, Option<Location>)]>;

impl Outputs {
    /// Where the recipe wrote `output.<key>`, if it did.
    pub(crate) fn site(&self, key: &str) -> Option<Location> {
        self.sites
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, l)| *l)
    }

    /// Whether the job renders images (a sheet, frames, GIFs or APNGs),
    /// rather than only exporting its animation.
    pub fn renders(&self) -> bool {
        self.sheet.is_some()
            || self.frames.is_some()
            || self.gif.is_some()
            || self.apng.is_some()
            || self.ro_sprite.is_some()
    }
}

/// A template as resolved, and where the recipe wrote it (`None`: a
/// built-in default); `None` as a whole when the output is switched off.
type Written = Option<(Template, Option<Location>)>;

/// Resolves the job's `output:` merged with the defaults'. `clips` and
/// `dirs` decide which holes the per-frame and GIF names need.
#[allow(clippy::too_many_arguments)]
pub(super) fn resolve_output(
    ctx: &Ctx,
    lab: JobLabel,
    name: &str,
    at: &Location,
    j: &RawJob,
    d: &RawJob,
    clips: &[ClipSpec],
    dirs: &[Direction],
) -> Result<Outputs, RecipeError> {
    let c = Checks { ctx, lab, at };
    let jo = j.output.clone().unwrap_or_default();
    let do_ = d.output.clone().unwrap_or_default();
    let dir = match pick(&jo.dir, &do_.dir) {
        Some(s) => {
            let t = Template::parse(&s.value, &["name"]).map_err(|m| {
                ctx.err(
                    &s.referenced,
                    &lab.of(jo.dir.is_some()),
                    format!("`output.dir`: {m}"),
                )
            })?;
            ctx.output_folder(&t.render(name, None, None, None))
                .map_err(|m| {
                    ctx.err(
                        &s.referenced,
                        &lab.of(jo.dir.is_some()),
                        format!("`output.dir`: {m}"),
                    )
                })?
        }
        None => ctx
            .output_folder(&defaults::OUTPUT_DIR.replace("{name}", name))
            .map_err(|m| ctx.err(at, &lab.of(true), format!("the default `output.dir`: {m}")))?,
    };

    let frames = c.template(
        "frames",
        &jo.frames,
        &do_.frames,
        &["name", "clip", "dir", "yaw", "frame"],
        None,
    )?;
    if clips.iter().any(|c| !c.clip.is_single()) {
        c.require("frames", &frames, &[Part::Frame(0)], "`{frame}`")?;
    }
    if clips.len() > 1 {
        c.require("frames", &frames, &[Part::Clip], "`{clip}`")?;
    }
    if dirs.len() > 1 {
        c.require(
            "frames",
            &frames,
            &[Part::Dir(0), Part::Yaw(0)],
            "`{dir}` or `{yaw}`",
        )?;
    }
    let gif = c.animation("gif", &jo.gif, &do_.gif, clips, dirs)?;
    let apng = c.animation("apng", &jo.apng, &do_.apng, clips, dirs)?;
    c.whole_degree_yaws("frames", &frames, dirs)?;

    let sheet_written = c.template(
        "sheet",
        &jo.sheet,
        &do_.sheet,
        &["name"],
        Some(defaults::SHEET),
    )?;
    let mut sites = vec![
        ("frames", frames.as_ref().and_then(|(_, l)| *l)),
        ("gif", gif.as_ref().and_then(|(_, l)| *l)),
        ("apng", apng.as_ref().and_then(|(_, l)| *l)),
        ("sheet", sheet_written.as_ref().and_then(|(_, l)| *l)),
    ];
    let sheet = sheet_written.map(|(t, _)| dir.join(t.render(name, None, None, None)));
    let listed = pick(&j.metadata, &d.metadata);
    let formats = metadata_formats(ctx, lab, j, listed)?;
    let meta_named = pick(&jo.meta, &do_.meta);
    let meta = match meta_named {
        Some(s) => match &s.value {
            OutName::Off => {
                if let (Some(l), true) = (listed, formats.contains(&MetaFormat::TexturePackerHash))
                {
                    return Err(ctx.err(
                        &l.referenced,
                        &lab.of(j.metadata.is_some()),
                        "`metadata` lists texturepacker-hash, whose file `output.meta: false` switches off",
                    ));
                }
                None
            }
            OutName::Name(n) => {
                let l = lab.of(jo.meta.is_some());
                if listed.is_some() && !formats.contains(&MetaFormat::TexturePackerHash) {
                    return Err(ctx.err(
                        &s.referenced,
                        &l,
                        "`output.meta` names the texturepacker-hash file, which `metadata` does not list",
                    ));
                }
                let t = Template::parse(n, &["name"])
                    .map_err(|m| ctx.err(&s.referenced, &l, format!("`output.meta`: {m}")))?;
                c.confined("meta", n, &Some(s.referenced), jo.meta.is_some())?;
                sites.push(("meta", Some(s.referenced)));
                Some(dir.join(t.render(name, None, None, None)))
            }
        },
        None => sheet.as_ref().map(|s| s.with_extension("json")),
    };
    let meta = meta.filter(|_| formats.contains(&MetaFormat::TexturePackerHash));
    let metadata: Vec<(MetaFormat, PathBuf)> = match &sheet {
        None => Vec::new(),
        Some(sheet_path) => formats
            .iter()
            .filter_map(|&f| match f {
                MetaFormat::TexturePackerHash => meta.clone().map(|m| (f, m)),
                _ => Some((f, f.default_path(sheet_path))),
            })
            .collect(),
    };
    if let Some(s) = &sheet {
        let mut seen: Vec<(PathBuf, String)> = vec![(normalize(s), "`output.sheet`".into())];
        for (f, path) in &metadata {
            let key = normalize(path);
            if let Some((_, other)) = seen.iter().find(|(p, _)| *p == key) {
                return Err(ctx.err(
                    at,
                    &lab.of(true),
                    format!(
                        "{other} and the {} metadata are the same file `{}`",
                        f.name(),
                        path.display()
                    ),
                ));
            }
            seen.push((key, format!("the {} metadata", f.name())));
        }
    }
    let gltf = c.template("gltf", &jo.gltf, &do_.gltf, &["name"], None)?;
    if let Some((t, loc)) = &gltf {
        let file = t.render(name, None, None, None);
        let is_glb = Path::new(&file)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("glb"));
        if !is_glb {
            return Err(ctx.err(
                &loc.unwrap_or(*at),
                &lab.of(jo.gltf.is_some()),
                format!("`output.gltf` must name a glTF binary file ending in .glb, got `{file}`"),
            ));
        }
    }
    sites.push(("gltf", gltf.as_ref().and_then(|(_, l)| *l)));
    let gltf = gltf.map(|(t, _)| dir.join(t.render(name, None, None, None)));
    for (key, other) in [("sheet", &sheet), ("meta", &meta)] {
        if let (Some(g), Some(o)) = (&gltf, other) {
            if normalize(g) == normalize(o) {
                return Err(ctx.err(
                    at,
                    &lab.of(true),
                    format!(
                        "`output.gltf` and `output.{key}` are the same file `{}`",
                        g.display()
                    ),
                ));
            }
        }
    }
    let ro_sprite = c.template("ro_sprite", &jo.ro_sprite, &do_.ro_sprite, &["name"], None)?;
    sites.push(("ro_sprite", ro_sprite.as_ref().and_then(|(_, l)| *l)));
    let ro_sprite = ro_sprite.map(|(t, _)| dir.join(t.render(name, None, None, None)));
    if frames.is_none()
        && sheet.is_none()
        && gif.is_none()
        && apng.is_none()
        && gltf.is_none()
        && ro_sprite.is_none()
    {
        return Err(ctx.err(
            at,
            &lab.of(true),
            "every output is switched off; nothing to write",
        ));
    }
    Ok(Outputs {
        dir,
        frames: frames.map(|(t, _)| t),
        sheet,
        meta,
        metadata,
        gif: gif.map(|(t, _)| t),
        apng: apng.map(|(t, _)| t),
        prune: pick(&jo.prune, &do_.prune).is_some_and(|p| p.value),
        gltf,
        ro_sprite,
        sites: sites.into(),
    })
}

/// The formats `metadata:` lists (each once), or the JSON hash alone.
fn metadata_formats(
    ctx: &Ctx,
    lab: JobLabel,
    j: &RawJob,
    listed: Option<&S<super::values::MetaList>>,
) -> Result<Vec<MetaFormat>, RecipeError> {
    let Some(l) = listed else {
        return Ok(vec![MetaFormat::TexturePackerHash]);
    };
    let label = lab.of(j.metadata.is_some());
    let mut out: Vec<MetaFormat> = Vec::new();
    for (name, loc) in &l.value.0 {
        let at = loc.unwrap_or(l.referenced);
        let f = MetaFormat::from_name(name)
            .ok_or_else(|| ctx.err(&at, &label, MetaFormat::unknown(name)))?;
        if out.contains(&f) {
            return Err(ctx.err(&at, &label, format!("`metadata` lists {name} twice")));
        }
        out.push(f);
    }
    Ok(out)
}

/// The checks on one job's file-name templates, which report at the
/// template's own position, or at the job's when the name is a default.
struct Checks<'a> {
    ctx: &'a Ctx<'a>,
    lab: JobLabel<'a>,
    at: &'a Location,
}

impl Checks<'_> {
    /// An animation output (`gif`, `apng`): one file per clip × direction,
    /// so its name needs `{clip}` with several clips and `{dir}` or `{yaw}`
    /// with several directions.
    fn animation(
        &self,
        key: &str,
        jv: &Option<S<OutName>>,
        dv: &Option<S<OutName>>,
        clips: &[ClipSpec],
        dirs: &[Direction],
    ) -> Result<Written, RecipeError> {
        let t = self.template(key, jv, dv, &["name", "clip", "dir", "yaw"], None)?;
        if clips.len() > 1 {
            self.require(key, &t, &[Part::Clip], "`{clip}`")?;
        }
        if dirs.len() > 1 {
            self.require(key, &t, &[Part::Dir(0), Part::Yaw(0)], "`{dir}` or `{yaw}`")?;
        }
        self.whole_degree_yaws(key, &t, dirs)?;
        Ok(t)
    }

    /// `output.<key>` from the job, else the defaults, else `fallback`.
    fn template(
        &self,
        key: &str,
        jv: &Option<S<OutName>>,
        dv: &Option<S<OutName>>,
        allowed: &[&str],
        fallback: Option<&str>,
    ) -> Result<Written, RecipeError> {
        match pick(jv, dv) {
            Some(s) => match &s.value {
                OutName::Off => Ok(None),
                OutName::Name(n) => {
                    let t = Template::parse(n, allowed).map_err(|m| {
                        self.ctx.err(
                            &s.referenced,
                            &self.lab.of(jv.is_some()),
                            format!("`output.{key}`: {m}"),
                        )
                    })?;
                    self.confined(key, n, &Some(s.referenced), jv.is_some())?;
                    Ok(Some((t, Some(s.referenced))))
                }
            },
            // Built-in defaults are constants that always parse.
            None => Ok(fallback.map(|f| {
                (
                    Template::parse(f, allowed).unwrap_or(Template { parts: vec![] }),
                    None,
                )
            })),
        }
    }

    /// A file name must stay inside the output folder: no absolute names and
    /// no `..` (an absolute `output.dir` is the way to write elsewhere).
    fn confined(
        &self,
        key: &str,
        text: &str,
        at: &Option<Location>,
        from_job: bool,
    ) -> Result<(), RecipeError> {
        let absolute = text.starts_with(['/', '\\'])
            || (text.len() >= 2
                && text.as_bytes()[1] == b':'
                && text.as_bytes()[0].is_ascii_alphabetic())
            || std::path::Path::new(text).is_absolute();
        let climbs = text.split(['/', '\\']).any(|c| c == "..");
        if absolute || climbs {
            let why = if absolute {
                "is absolute"
            } else {
                "climbs out with `..`"
            };
            return Err(self.ctx.err(
                &at.unwrap_or(*self.at),
                &self.lab.of(from_job),
                format!(
                    "`output.{key}` `{text}` {why}: output names stay inside the output folder; set `output.dir` to write elsewhere"
                ),
            ));
        }
        // The rest of the write rule (`confined.rs`), on the parts as
        // written with each placeholder standing for a digit (a `.` part
        // is dropped when the name is resolved).
        let mut filled = String::with_capacity(text.len());
        let mut in_hole = false;
        for c in text.chars() {
            match c {
                '{' => in_hole = true,
                '}' if in_hole => {
                    in_hole = false;
                    filled.push('0');
                }
                _ if in_hole => {}
                _ => filled.push(c),
            }
        }
        for part in filled.split(['/', '\\']).filter(|p| *p != ".") {
            if let Err(why) = crate::confined::check_part(part) {
                return Err(self.ctx.err(
                    &at.unwrap_or(*self.at),
                    &self.lab.of(from_job),
                    format!(
                        "`output.{key}` `{}`: {why}",
                        crate::text::shorten(&text.escape_debug().to_string())
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A template that names several files must hold one of `parts`.
    fn require(
        &self,
        key: &str,
        t: &Written,
        parts: &[Part],
        why: &str,
    ) -> Result<(), RecipeError> {
        if let Some((t, loc)) = t {
            if !parts.iter().any(|p| t.uses(p)) {
                return Err(self.ctx.err(
                    &loc.unwrap_or(*self.at),
                    &self.lab.of(loc.is_some()),
                    format!("`output.{key}` must contain {why}, or its files overwrite each other"),
                ));
            }
        }
        Ok(())
    }

    /// `{yaw}` is written in whole degrees, so without `{dir}` yaws 10.2 and
    /// 10.4 would share files.
    fn whole_degree_yaws(
        &self,
        key: &str,
        t: &Written,
        dirs: &[Direction],
    ) -> Result<(), RecipeError> {
        let Some((t, loc)) = t else {
            return Ok(());
        };
        if !t.uses(&Part::Yaw(0)) || t.uses(&Part::Dir(0)) {
            return Ok(());
        }
        let mut seen: BTreeMap<i64, f32> = BTreeMap::new();
        for d in dirs {
            let r = d.yaw.round() as i64;
            if let Some(first) = seen.insert(r, d.yaw) {
                return Err(self.ctx.err(
                    &loc.unwrap_or(*self.at),
                    &self.lab.of(loc.is_some()),
                    format!(
                        "`output.{key}` names files by `{{yaw}}` in whole degrees, but yaws {first} and {} both give {r}; use `{{dir}}`",
                        d.yaw
                    ),
                ));
            }
        }
        Ok(())
    }
}
