//! `output.ro_sprite`: a job's frames as a Ragnarok client sprite, an SPR
//! of images and an ACT that plays them.
//!
//! The job's clips become the ACT's motions in order (a monster's: idle,
//! walk, attack, hurt, die), each in the client's 8 directions (action
//! `8m + d`, direction 0 south … 7 south-east, which are the job's
//! `directions: 8` yaws 0°, 45°, … 315°). Every frame is trimmed to its
//! opaque pixels and placed by one layer whose offset puts the model's
//! origin (its pivot, the feet) on the entity position, rounded to the
//! nearest pixel. Palette images share one palette chosen over every frame
//! (`crate::palette`, index 0 transparent); identical images are stored
//! once. Each action's interval is its clip's frame time in the client's
//! 24 ms ticks, stored as the float the file holds. `hit` puts the `atk`
//! event on a clip's hit frame in every direction; `mirror` draws
//! directions 5–7 as 3–1 mirrored.

use crate::bake::encode::clip_frames::ClipFrames;
use crate::bake::outputs::sink::Sink;
use crate::bake::recipe::{Job, SpriteImages};
use crate::error::{Error, Result};
use crate::formats::sprite::{act, spr, Act, Action, Frame, IndexedImage, Layer, RgbaImage, Spr};
use crate::palette::Indexed;
use std::collections::HashMap;
use std::path::PathBuf;

/// Milliseconds of one client animation tick.
const TICK_MS: f64 = crate::formats::sprite::TICK_MS as f64;
/// The interval of a still (one-frame) action, as the client's NPCs store.
const STILL_INTERVAL: f32 = 4.0;

/// A trimmed frame: its opaque pixels and where they sit.
struct Trimmed {
    /// Top-left pixel relative to the entity position.
    left: i32,
    top: i32,
    image: image::RgbaImage,
}

fn trim(img: &image::RgbaImage, cutoff: u8, entity: [i32; 2]) -> Option<Trimmed> {
    let (w, h) = img.dimensions();
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
    for (x, y, p) in img.enumerate_pixels() {
        if p.0[3] >= cutoff {
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x + 1);
            y1 = y1.max(y + 1);
        }
    }
    if x0 >= x1 {
        return None;
    }
    Some(Trimmed {
        left: x0 as i32 - entity[0],
        top: y0 as i32 - entity[1],
        image: image::imageops::crop_imm(img, x0, y0, x1 - x0, y1 - y0).to_image(),
    })
}

/// Half a size, rounded up: the compositor centres an image of odd size
/// half a pixel toward its top-left.
fn half_up(n: u32) -> i32 {
    n.div_ceil(2) as i32
}

/// Builds the sprite's two files from the job's rendered frames.
pub fn build(job: &Job, clips: &[ClipFrames]) -> Result<(Spr, Act)> {
    let spec = &job.client_sprite;
    let fail = |m: String| Error::Usage(format!("ro_sprite: {m}"));
    let client_yaws = job.directions.len() == 8
        && job
            .directions
            .iter()
            .enumerate()
            .all(|(d, dir)| (dir.yaw - d as f32 * 45.0).abs() < 1e-3);
    if !client_yaws {
        return Err(fail(
            "the client draws 8 directions at yaws 0, 45, … 315 (0 south, turning clockwise); \
             use `directions: 8`"
                .into(),
        ));
    }
    // Where the model's origin lands in direction `d`: every clip of a job
    // shares its cameras, so the first clip's pivots serve all.
    let entity = |d: usize| {
        let pivot = clips
            .first()
            .and_then(|c| c.pivots.get(d))
            .copied()
            .unwrap_or([0.5, 1.0]);
        [
            (pivot[0] * job.view.width as f32).round() as i32,
            (pivot[1] * job.view.height as f32).round() as i32,
        ]
    };
    let cutoff = match spec.images {
        SpriteImages::Palette => 128,
        SpriteImages::Rgba => 1,
    };
    // Trim every frame that is drawn (not mirrored).
    let drawn = |d: usize| !(spec.mirror && d >= 5);
    let mut trimmed: Vec<Vec<Vec<Option<Trimmed>>>> = Vec::with_capacity(clips.len());
    for c in clips {
        trimmed.push(
            c.frames
                .iter()
                .enumerate()
                .map(|(d, row)| {
                    row.iter()
                        .map(|img| {
                            if drawn(d) {
                                trim(img, cutoff, entity(d))
                            } else {
                                None
                            }
                        })
                        .collect()
                })
                .collect(),
        );
    }
    let all: Vec<&image::RgbaImage> = trimmed
        .iter()
        .flatten()
        .flatten()
        .flatten()
        .map(|t| &t.image)
        .collect();
    let palette = (spec.images == SpriteImages::Palette).then(|| Indexed::build(&all, cutoff));
    // Each distinct image once, in first-use order.
    let mut images: Vec<(u32, u32, Vec<u8>)> = Vec::new();
    let mut seen: HashMap<(u32, u32, Vec<u8>), i32> = HashMap::new();
    let mut index_of = |t: &Trimmed| -> i32 {
        let (w, h) = t.image.dimensions();
        let pixels = match &palette {
            Some(p) => p.map(&t.image, spec.dither),
            None => t.image.as_raw().clone(),
        };
        let key = (w, h, pixels);
        if let Some(&i) = seen.get(&key) {
            return i;
        }
        let i = images.len() as i32;
        images.push(key.clone());
        seen.insert(key, i);
        i
    };
    let kind = match spec.images {
        SpriteImages::Palette => 0,
        SpriteImages::Rgba => 1,
    };
    let mut actions = Vec::with_capacity(clips.len() * 8);
    let mut intervals = Vec::with_capacity(clips.len() * 8);
    let mut any_hit = false;
    for (c, clip) in clips.iter().enumerate() {
        let name = &job.clips[c].name;
        let hit = spec.hits.iter().find(|(n, _)| n == name).map(|(_, f)| *f);
        let frames_n = clip.times.times.len();
        if let Some(h) = hit {
            if h as usize >= frames_n {
                return Err(fail(format!(
                    "`client_sprite.hit.{name}` is frame {h}, but clip '{name}' has {frames_n} frame(s)"
                )));
            }
            any_hit = true;
        }
        let interval = if clip.times.frame_seconds > 0.0 {
            (clip.times.frame_seconds as f64 * 1000.0 / TICK_MS) as f32
        } else {
            STILL_INTERVAL
        };
        for d in 0..8 {
            // Mirrored directions take the frames of 8 − d, flipped.
            let mirrored = !drawn(d);
            let row = &trimmed[c][if mirrored { 8 - d } else { d }];
            let mut frames = Vec::with_capacity(frames_n);
            for (f, t) in row.iter().enumerate() {
                let layer = t.as_ref().map(|t| {
                    let (w, h) = t.image.dimensions();
                    Layer {
                        x: if mirrored {
                            -t.left - half_up(w)
                        } else {
                            t.left + half_up(w)
                        },
                        y: t.top + half_up(h),
                        image: index_of(t),
                        mirror: i32::from(mirrored),
                        kind,
                        size: Some([w as i32, h as i32]),
                        ..Layer::default()
                    }
                });
                frames.push(Frame {
                    layers: layer.into_iter().collect(),
                    event: if hit == Some(f as u32) { 0 } else { -1 },
                    ..Frame::default()
                });
            }
            actions.push(Action { frames });
            intervals.push(interval);
        }
    }
    if actions.len() > u16::MAX as usize {
        return Err(fail(format!("{} actions (at most 65,535)", actions.len())));
    }
    let mut events = Vec::new();
    if any_hit {
        let mut atk = [0u8; act::EVENT_NAME_BYTES];
        atk[..3].copy_from_slice(b"atk");
        events.push(atk);
    }
    let act = Act {
        major: 2,
        minor: 5,
        reserved: [0; 10],
        actions,
        events,
        intervals,
    };
    // The client draws index 0 as the background whatever its colour;
    // magenta is what its own files hold there.
    let mut table = vec![[0u8; 4]; 256];
    table[0] = [255, 0, 255, 0];
    if let Some(p) = &palette {
        for (i, c) in p.colors().iter().enumerate() {
            table[i + 1] = [c[0], c[1], c[2], 0];
        }
    }
    let too_big = |n: usize| n > u16::MAX as usize;
    let mut spr = Spr {
        major: 2,
        minor: 1,
        indexed: Vec::new(),
        rgba: Vec::new(),
        palette: Some(table),
        gap: Vec::new(),
    };
    for (w, h, pixels) in images {
        if too_big(w as usize) || too_big(h as usize) {
            return Err(fail(format!("a frame of {w}×{h} exceeds the SPR's 65,535")));
        }
        let (width, height) = (w as u16, h as u16);
        match spec.images {
            SpriteImages::Palette => spr.indexed.push(IndexedImage {
                width,
                height,
                pixels,
            }),
            SpriteImages::Rgba => spr.rgba.push(RgbaImage {
                width,
                height,
                pixels,
            }),
        }
    }
    Ok((spr, act))
}

/// Writes `{ro_sprite}.spr` and `{ro_sprite}.act` when the job asks for
/// them; returns the files handed to `sink`.
pub fn write(job: &Job, clips: &[ClipFrames], sink: &dyn Sink) -> Result<Vec<PathBuf>> {
    let Some(base) = &job.output.ro_sprite else {
        return Ok(Vec::new());
    };
    let (spr, act) = build(job, clips)?;
    let fail = |e: crate::error::ParseError| Error::Usage(format!("ro_sprite: {}", e.message));
    let spr_bytes = spr::write(&spr).map_err(fail)?;
    let act_bytes = act::write(&act).map_err(fail)?;
    let with = |ext: &str| {
        let mut p = base.clone().into_os_string();
        p.push(ext);
        PathBuf::from(p)
    };
    let (spr_path, act_path) = (with(".spr"), with(".act"));
    sink.write(&spr_path, &spr_bytes)?;
    sink.write(&act_path, &act_bytes)?;
    Ok(vec![spr_path, act_path])
}
