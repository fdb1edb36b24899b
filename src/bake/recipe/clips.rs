//! A job's clips: `clip:` (one clip, the older output names), `clips:` (a
//! named list, each with its own animation file), or the whole animation at
//! the default rate. Each resolves to a [`Clip`] of the scene's timing.

use super::defaults::{self, DEFAULT_CLIP_NAME, MAX_CLIPS};
use super::error::{Ctx, JobLabel, RecipeError};
use super::raw::{RawClip, RawClips, RawJob};
use super::values::S;
use super::values::{check_file_name, in_range, int_range, non_negative};
use crate::scene::clip::{Clip, Step, MAX_FRAMES};
use crate::spec::{FileRef, RootMotion};
use kiln_recipe_yaml::Location;

/// One clip of a job: where its animation comes from and which moments of
/// it become frames.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipSpec {
    /// Unique within the job; used in frame names, tags and file names.
    pub name: String,
    /// An animation file applied to the model (relative to the recipe's
    /// folder); `None` uses the model's own animation, or its rest pose when
    /// it has none.
    pub animation: Option<FileRef>,
    /// `embedded:` — which of the animations the model file itself holds
    /// (glTF): its name, else its index; `None` uses the first (or the
    /// `animation` file).
    pub embedded: Option<String>,
    /// Which moments of the animation become frames.
    pub clip: Clip,
    /// `loop:` — whether the clip loops; `None` follows the format (every
    /// format kiln reads loops). A one-shot never blends its last key into
    /// its first and its frames end on its last pose.
    pub looping: Option<bool>,
    /// `root_motion:` for this clip; `None` follows the job's.
    pub root_motion: Option<RootMotion>,
    /// The recipe line the clip is written on, for messages.
    pub line: u64,
}

/// The job's clips: from `clip:` (one clip, old output names), from
/// `clips:`, or the default clip. The job's own choice replaces the defaults'
/// as a whole, whichever of the two keys each uses.
pub(super) fn resolve_clips(
    ctx: &Ctx,
    lab: JobLabel,
    at: &Location,
    j: &RawJob,
    d: &RawJob,
    model: Option<(&FileRef, &[std::path::PathBuf])>,
) -> Result<(Vec<ClipSpec>, bool), RecipeError> {
    let from_job = j.clip.is_some() || j.clips.is_some();
    let src = if from_job { j } else { d };
    let l = lab.of(from_job);
    match (&src.clip, &src.clips) {
        (Some(_), Some(cs)) => Err(ctx.err(
            &cs.referenced,
            &l,
            "give either `clip` or `clips`, not both",
        )),
        (Some(c), None) => Ok((
            vec![ClipSpec {
                name: DEFAULT_CLIP_NAME.to_string(),
                animation: None,
                embedded: None,
                clip: resolve_clip(ctx, &l, "clip", &c.value)?,
                looping: c.value.looping.as_ref().map(|b| b.value),
                root_motion: c.value.root_motion.as_ref().map(|r| r.value),
                line: c.referenced.line(),
            }],
            false,
        )),
        (None, None) => Ok((
            vec![ClipSpec {
                name: DEFAULT_CLIP_NAME.to_string(),
                animation: None,
                embedded: None,
                clip: Clip::Range {
                    start: 0.0,
                    end: None,
                    step: Step::Fps(defaults::FPS),
                },
                looping: None,
                root_motion: None,
                line: at.line(),
            }],
            false,
        )),
        (
            None,
            Some(S {
                value: RawClips::All(word),
                referenced,
                ..
            }),
        ) => {
            if word != "all" {
                return Err(ctx.err(
                    referenced,
                    &l,
                    format!("`clips` is a list of clips or `all`, not `{word}`"),
                ));
            }
            let names = match model {
                Some((file, data)) => crate::load::embedded_animations(file, data)
                    .map_err(|e| ctx.err(referenced, &l, format!("`clips: all`: {e}")))?,
                None => Vec::new(),
            };
            if names.is_empty() {
                return Err(ctx.err(
                    referenced,
                    &l,
                    "`clips: all` makes one clip per animation the model file holds, and it holds none",
                ));
            }
            if names.len() > MAX_CLIPS {
                return Err(ctx.err(
                    referenced,
                    &l,
                    format!(
                        "`clips: all`: the model holds {} animations, more than {MAX_CLIPS}",
                        names.len()
                    ),
                ));
            }
            Ok((all_clips(&names, referenced.line()), true))
        }
        (
            None,
            Some(S {
                value: RawClips::List(list),
                referenced,
                ..
            }),
        ) => {
            let cs = (list, referenced);
            if cs.0.is_empty() {
                return Err(ctx.err(cs.1, &l, "`clips` needs at least one clip"));
            }
            if cs.0.len() > MAX_CLIPS {
                return Err(ctx.err(
                    cs.1,
                    &l,
                    format!("`clips` lists {} clips, more than {MAX_CLIPS}", cs.0.len()),
                ));
            }
            let mut out: Vec<ClipSpec> = Vec::with_capacity(cs.0.len());
            for (i, e) in cs.0.iter().enumerate() {
                let key = format!("clips[{i}]");
                let r = &e.value;
                let animation = match &r.animation {
                    Some(a) => {
                        if a.value.trim().is_empty() {
                            return Err(ctx.err(
                                &a.referenced,
                                &l,
                                format!("`{key}.animation` is empty"),
                            ));
                        }
                        Some(FileRef::relative_to(ctx.base, &a.value))
                    }
                    None => None,
                };
                // Unnamed clips are named after their animation file, else
                // after their position, so names never depend on anything
                // but the recipe text.
                let (name, name_at) = match &r.name {
                    Some(n) => (n.value.clone(), n.referenced),
                    None => match (&r.animation, &animation) {
                        (Some(a), Some(p)) => (
                            p.disk
                                .file_stem()
                                .map(|s| s.to_string_lossy().into_owned())
                                .unwrap_or_default(),
                            a.referenced,
                        ),
                        _ => match &r.embedded {
                            Some(x) if check_file_name("clip", &x.value).is_ok() => {
                                (x.value.clone(), x.referenced)
                            }
                            _ => (format!("clip{i}"), e.referenced),
                        },
                    },
                };
                check_file_name("clip", &name)
                    .map_err(|m| ctx.err(&name_at, &l, format!("`{key}.name`: {m}")))?;
                if let Some(p) = out.iter().position(|c| c.name == name) {
                    return Err(ctx.err(
                        &name_at,
                        &l,
                        format!("`{key}` is named `{name}` like `clips[{p}]`; clip names must be unique"),
                    ));
                }
                let raw = RawClip {
                    start: r.start.clone(),
                    end: r.end.clone(),
                    fps: r.fps.clone(),
                    frames: r.frames.clone(),
                    time: r.time.clone(),
                    looping: r.looping.clone(),
                    root_motion: r.root_motion.clone(),
                };
                let embedded = match &r.embedded {
                    Some(e) if animation.is_some() => {
                        return Err(ctx.err(
                            &e.referenced,
                            &l,
                            format!("give either `{key}.animation` (a file) or `{key}.embedded` (one of the model's own), not both"),
                        ))
                    }
                    Some(e) if e.value.trim().is_empty() => {
                        return Err(ctx.err(&e.referenced, &l, format!("`{key}.embedded` is empty")))
                    }
                    Some(e) => Some(e.value.clone()),
                    None => None,
                };
                out.push(ClipSpec {
                    name,
                    animation,
                    embedded,
                    clip: resolve_clip(ctx, &l, &key, &raw)?,
                    looping: r.looping.as_ref().map(|b| b.value),
                    root_motion: r.root_motion.as_ref().map(|m| m.value),
                    line: e.referenced.line(),
                });
            }
            Ok((out, true))
        }
    }
}

/// `clips: all`: one whole clip per animation, named after it (its index
/// where the name is empty, not a file name, or taken).
fn all_clips(names: &[String], line: u64) -> Vec<ClipSpec> {
    let mut out: Vec<ClipSpec> = Vec::with_capacity(names.len());
    for (i, n) in names.iter().enumerate() {
        let taken = |x: &str| out.iter().any(|c: &ClipSpec| c.name == x);
        let name = if check_file_name("clip", n).is_ok() && !taken(n) {
            n.clone()
        } else {
            format!("animation{i}")
        };
        out.push(ClipSpec {
            name,
            animation: None,
            embedded: Some(i.to_string()),
            clip: Clip::Range {
                start: 0.0,
                end: None,
                step: Step::Fps(defaults::FPS),
            },
            looping: None,
            root_motion: None,
            line,
        });
    }
    out
}

fn resolve_clip(ctx: &Ctx, label: &str, key: &str, r: &RawClip) -> Result<Clip, RecipeError> {
    if let Some(t) = &r.time {
        let clash = [
            ("start", r.start.as_ref().map(|s| s.referenced)),
            ("end", r.end.as_ref().map(|s| s.referenced)),
            ("fps", r.fps.as_ref().map(|s| s.referenced)),
            ("frames", r.frames.as_ref().map(|s| s.referenced)),
        ];
        if let Some((k, Some(loc))) = clash.iter().find(|(_, l)| l.is_some()) {
            return Err(ctx.err(
                loc,
                label,
                format!("`{key}.time` takes a single frame; `{key}.{k}` cannot be used with it"),
            ));
        }
        let time = non_negative(ctx, label, &format!("{key}.time"), t)?;
        return Ok(Clip::Still { time });
    }
    let start = match &r.start {
        Some(s) => non_negative(ctx, label, &format!("{key}.start"), s)?,
        None => 0.0,
    };
    let end = match &r.end {
        Some(e) => {
            let x = non_negative(ctx, label, &format!("{key}.end"), e)?;
            if x <= start {
                return Err(ctx.err(
                    &e.referenced,
                    label,
                    format!("`{key}.end` ({x}) must be after `{key}.start` ({start})"),
                ));
            }
            Some(x)
        }
        None => None,
    };
    let step = match (&r.fps, &r.frames) {
        (Some(_), Some(n)) => {
            return Err(ctx.err(
                &n.referenced,
                label,
                format!("give either `{key}.fps` or `{key}.frames`, not both"),
            ))
        }
        (Some(f), None) => Step::Fps(in_range(
            ctx,
            label,
            &format!("{key}.fps"),
            f,
            defaults::MIN_FPS,
            defaults::MAX_FPS,
            false,
        )?),
        (None, Some(n)) => Step::Frames(int_range(
            ctx,
            label,
            &format!("{key}.frames"),
            n,
            1,
            MAX_FRAMES as i64,
        )?),
        (None, None) => Step::Fps(defaults::FPS),
    };
    Ok(Clip::Range { start, end, step })
}
