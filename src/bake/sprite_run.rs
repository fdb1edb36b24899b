//! A job whose model is a Ragnarok client sprite (an `.act` with its
//! `.spr`): every motion becomes a clip, baked in the client's 8
//! directions (row `d` of a clip is direction `d`, 0 south to 7 south-east)
//! at the client's timing, each frame composited as the client draws it on
//! one canvas for the whole job, so the entity position is the same pixel
//! (the pivot) in every frame.
//!
//! When the ACT's actions are not in eights, or the directions of one
//! motion differ in frame count or interval, every action is a clip of its
//! own with one direction.

use crate::bake::encode::clip_frames::ClipFrames;
use crate::bake::outputs::sink::Sink;
use crate::bake::recipe::{ClipSpec, Direction, Job};
use crate::bake::report::JobReport;
use crate::client_sprite::{self, ClientSprite};
use crate::error::{Error, Result};
use crate::scene::clip::{Clip, FrameTimes, Step};
use crate::source::{Lookup, SourceRef};

/// A sprite job ready to draw.
#[derive(Debug, Clone)]
pub struct SpritePlan {
    /// The sprite, loaded.
    pub sprite: ClientSprite,
    /// Per clip, the ACT action of each direction.
    pub clips: Vec<(String, Vec<usize>)>,
    /// The size of the canvas every frame is drawn on: the pixels all the
    /// clips' frames cover together (at most 2 × [`MAX_REACH`] a side).
    ///
    /// [`MAX_REACH`]: crate::client_sprite::compose::MAX_REACH
    pub canvas: (u32, u32),
}

impl SpritePlan {
    /// Images the job draws.
    pub fn images(&self) -> usize {
        self.clips
            .iter()
            .flat_map(|(_, actions)| actions)
            .map(|&a| self.sprite.frames(a))
            .sum()
    }
}

/// Whether the job's model is a client sprite (told by its first bytes);
/// a model that cannot be read is left for the model loader to report.
pub fn is_sprite_job(job: &Job, extra: &[SourceRef]) -> Result<bool> {
    let lookup = Lookup::with_folders(&job.model.data, extra)?;
    Ok(match lookup.read_named(&job.model.model) {
        Ok((bytes, _)) => client_sprite::is_client_sprite(&bytes),
        Err(_) => false,
    })
}

/// Loads the sprite (its images allowed `memory_limit` bytes) and groups
/// its actions into clips.
pub fn plan_sprite(job: &Job, extra: &[SourceRef], memory_limit: u64) -> Result<SpritePlan> {
    let sprite = ClientSprite::load_within(&job.model.model, &job.model.data, extra, memory_limit)?;
    let n = sprite.actions();
    let uniform = sprite.has_directions()
        && (0..n / 8).all(|m| {
            let a0 = m * 8;
            (a0..a0 + 8).all(|a| {
                sprite.frames(a) == sprite.frames(a0)
                    && sprite.frame_seconds(a) == sprite.frame_seconds(a0)
            })
        });
    let clips: Vec<(String, Vec<usize>)> = if uniform {
        (0..n / 8)
            .map(|m| (format!("action{m}"), (m * 8..m * 8 + 8).collect()))
            .collect()
    } else {
        (0..n).map(|a| (format!("action{a}"), vec![a])).collect()
    };
    if clips.is_empty() {
        return Err(Error::Usage(format!(
            "{}:{}: job '{}': {} holds no actions",
            job.recipe.display(),
            job.line,
            job.name,
            sprite.source().display()
        )));
    }
    let all: Vec<usize> = clips.iter().flat_map(|(_, a)| a.clone()).collect();
    let canvas = sprite.bounds(&all).size();
    Ok(SpritePlan {
        sprite,
        clips,
        canvas,
    })
}

/// The job as its outputs see it: one clip per motion, the sprite's
/// directions, frames the size of the sprite's canvas.
fn sprite_job(job: &Job, plan: &SpritePlan, size: (u32, u32)) -> Result<Job> {
    let mut j = job.clone();
    let dirs = plan.clips[0].1.len();
    j.directions = (0..dirs)
        .map(|d| Direction {
            index: d,
            yaw: client_sprite::direction_yaw(d),
        })
        .collect();
    j.clips = plan
        .clips
        .iter()
        .map(|(name, actions)| ClipSpec {
            embedded: Default::default(),
            name: name.clone(),
            animation: None,
            clip: Clip::Range {
                start: 0.0,
                end: None,
                step: Step::Frames(plan.sprite.frames(actions[0]).max(1) as u32),
            },
            looping: None,
            root_motion: None,
            line: job.line,
        })
        .collect();
    j.named_clips = true;
    j.view.width = size.0;
    j.view.height = size.1;
    let needs_clip = j.clips.len() > 1;
    for (what, t) in [
        ("frames", &j.output.frames),
        ("gif", &j.output.gif),
        ("apng", &j.output.apng),
    ] {
        if let Some(t) = t {
            if needs_clip && !t.render(&j.file_name, None, None, None).contains("{clip}") {
                return Err(Error::Usage(format!(
                    "{}:{}: job '{}': a sprite bakes each of its {} motions as a clip, so \
                     `output.{what}` needs `{{clip}}` (e.g. \"{{name}}_{{clip}}_{{dir}}.gif\")",
                    job.recipe.display(),
                    job.line,
                    job.name,
                    j.clips.len()
                )));
            }
        }
    }
    Ok(j)
}

/// Draws every frame of every clip and direction and hands the job's
/// outputs to `sink`.
pub fn run_sprite(
    job: &Job,
    plan: &SpritePlan,
    tick: &(dyn Fn() + Sync),
    sink: &dyn Sink,
) -> Result<JobReport> {
    let sprite = &plan.sprite;
    let all: Vec<usize> = plan.clips.iter().flat_map(|(_, a)| a.clone()).collect();
    let bounds = sprite.bounds(&all);
    let j = sprite_job(job, plan, bounds.size())?;
    let mut images = 0;
    let rendered: Vec<ClipFrames> = plan
        .clips
        .iter()
        .map(|(_, actions)| {
            let frames: Vec<Vec<image::RgbaImage>> = actions
                .iter()
                .map(|&a| {
                    (0..sprite.frames(a).max(1))
                        .map(|f| {
                            tick();
                            images += 1;
                            sprite.draw(a, f, bounds)
                        })
                        .collect()
                })
                .collect();
            let seconds = sprite.frame_seconds(actions[0]);
            let n = frames[0].len();
            ClipFrames {
                times: FrameTimes {
                    times: (0..n).map(|f| f as f32 * seconds).collect(),
                    frame_seconds: seconds,
                    rate: if seconds > 0.0 { 1.0 / seconds } else { 0.0 },
                    end: n as f32 * seconds,
                },
                pivots: vec![client_sprite::pivot(bounds); frames.len()],
                root_motion: Vec::new(),
                looping: true,
                frames,
            }
        })
        .collect();
    let mut files = super::write_outputs(&j, &rendered, sink)?;
    files.extend(crate::bake::encode::ro_sprite::write(&j, &rendered, sink)?);
    Ok(JobReport {
        name: job.name.clone(),
        images,
        files,
        warnings: sprite.warnings().to_vec(),
        inputs: {
            let mut i = sprite.inputs().to_vec();
            i.push(job.recipe.clone());
            i.sort();
            i.dedup();
            i.iter().map(|p| p.as_path().into()).collect()
        },
    })
}
