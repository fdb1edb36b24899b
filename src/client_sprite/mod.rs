//! Ragnarok client sprites as kiln draws them: an ACT with the SPR of the
//! same name, every frame composited as the client does ([`compose`]), at
//! the client's timing, framed so the entity position stays on one pixel.
//!
//! Actions come in eights, one per direction in the client's order: 0
//! south (facing the camera), 1 south-west, 2 west, 3 north-west, 4 north,
//! 5 north-east, 6 east, 7 south-east — turning clockwise seen from above,
//! so direction `d` and `8 − d` are mirror images. The corpus NPCs, drawn
//! in four views, show it: {S, SW} face the camera turned to the screen's
//! left, {W, NW} face away to the left, and {N, NE}, {E, SE} are those two
//! views mirrored. Action `8m + d` is motion `m` facing `d`.

pub mod compose;

use crate::error::{Error, Result};
use crate::formats::sprite::{self, act, spr, Act, Spr};
use crate::model::Sprite;
use crate::source::{Lookup, SourceRef};
use crate::spec::FileRef;
use compose::Bounds;
use image::RgbaImage;
use std::path::{Path, PathBuf};

/// The camera yaw (kiln's: degrees, counter-clockwise seen from above, 0
/// at the model's front) that shows a model as the client shows an entity
/// facing direction `d`: the entity turns clockwise by 45° a step, which
/// the camera sees as turning counter-clockwise around it.
pub fn direction_yaw(d: usize) -> f32 {
    (d % 8) as f32 * 45.0
}

/// A client sprite: its ACT, its SPR's images as straight RGBA, and what
/// was read to load them.
#[derive(Debug, Clone)]
pub struct ClientSprite {
    name: String,
    source: PathBuf,
    act: Act,
    spr: Spr,
    indexed: Vec<RgbaImage>,
    rgba: Vec<RgbaImage>,
    warnings: Vec<String>,
    inputs: Vec<PathBuf>,
    reads: Vec<(PathBuf, String)>,
    held: u64,
}

impl ClientSprite {
    /// Loads an ACT (or an SPR, then the ACT beside it) with the SPR of the
    /// same name beside it; `data` folders and archives are searched for a
    /// file not on disk, by its name as written.
    pub fn load(file: impl Into<FileRef>, data: &[PathBuf]) -> Result<ClientSprite> {
        ClientSprite::load_from(&file.into(), data, &[])
    }

    /// As [`ClientSprite::load`], also searching `sources`.
    pub fn load_from(
        file: &FileRef,
        data: &[PathBuf],
        sources: &[SourceRef],
    ) -> Result<ClientSprite> {
        ClientSprite::load_within(file, data, sources, crate::memory::DEFAULT_MEMORY_LIMIT)
    }

    /// As [`ClientSprite::load_from`], its images allowed `memory_limit`
    /// bytes in memory (as read and as drawn from, straight RGBA): a sprite
    /// needing more is refused before they are made.
    pub fn load_within(
        file: &FileRef,
        data: &[PathBuf],
        sources: &[SourceRef],
        memory_limit: u64,
    ) -> Result<ClientSprite> {
        let lookup = Lookup::with_folders(data, sources)?.with_memory_limit(memory_limit);
        let (bytes, origin) = lookup.read_named(file)?;
        let name = origin.name();
        let tree = origin.tree(sprite::LAYOUT);
        let (act_bytes, act_name, spr_bytes, spr_name) = if bytes.starts_with(spr::MAGIC) {
            let found = sprite::companion(&lookup, &tree, "act").ok_or_else(|| {
                Error::Usage(format!(
                    "{}: an SPR holds images only; no ACT of the same name beside it plays them",
                    name.display()
                ))
            })?;
            let act_bytes = lookup.read(&found)?;
            (act_bytes, found.entry.location, bytes, name.clone())
        } else {
            let found = sprite::companion(&lookup, &tree, "spr").ok_or_else(|| {
                Error::Usage(format!(
                    "{}: no SPR of the same name beside it holds its images",
                    name.display()
                ))
            })?;
            let spr_bytes = lookup.read(&found)?;
            (bytes, name.clone(), spr_bytes, found.entry.location)
        };
        let act = act::parse(&act_bytes, &act_name)?;
        let spr = spr::parse(&spr_bytes, &spr_name)?;
        check_reach(&act, &act_name, &spr)?;
        // The SPR's images as read (an index or RGBA per pixel) and as drawn
        // from (RGBA): what the sprite holds for as long as it lives.
        let pixels = |w: u16, h: u16| w as u64 * h as u64;
        let held: u64 = spr
            .indexed
            .iter()
            .map(|i| pixels(i.width, i.height) * 5)
            .chain(spr.rgba.iter().map(|i| pixels(i.width, i.height) * 8))
            .sum();
        lookup.memory().take(held).map_err(|m| {
            Error::parse(
                &spr_name,
                "images",
                4,
                format!(
                    "its {} palette and {} RGBA images need {m}",
                    spr.indexed.len(),
                    spr.rgba.len()
                ),
            )
        })?;
        let palette: Vec<[u8; 4]> = spr.palette.clone().unwrap_or_else(|| {
            // SPR 1.0 has no palette: show indices as grey levels.
            (0..=255u8).map(|i| [i, i, i, 0]).collect()
        });
        let indexed = spr
            .indexed
            .iter()
            .map(|img| {
                let mut out = RgbaImage::new(img.width as u32, img.height as u32);
                for (p, &i) in out.pixels_mut().zip(&img.pixels) {
                    if i != 0 {
                        let c = palette[i as usize];
                        p.0 = [c[0], c[1], c[2], 255];
                    }
                }
                out
            })
            .collect();
        let rgba = spr
            .rgba
            .iter()
            .map(|img| {
                RgbaImage::from_raw(img.width as u32, img.height as u32, img.pixels.clone())
                    .unwrap_or_default()
            })
            .collect();
        let mut warnings = sprite::missing_images(&act, &spr);
        if spr.palette.is_none() {
            warnings.push(format!(
                "{}: SPR 1.0 holds no palette; palette images show as grey levels",
                spr_name.display()
            ));
        }
        let stem = act_name
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(ClientSprite {
            name: stem,
            source: act_name,
            act,
            spr,
            indexed,
            rgba,
            warnings,
            inputs: lookup.reads(),
            reads: lookup.read_digests(),
            held,
        })
    }

    /// The sprite's name (its ACT's, without extension).
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The ACT it was loaded from, as named in messages.
    pub fn source(&self) -> &Path {
        &self.source
    }
    /// The ACT as read.
    pub fn act(&self) -> &Act {
        &self.act
    }
    /// The SPR as read.
    pub fn spr(&self) -> &Spr {
        &self.spr
    }
    /// What the user should know (layers naming missing images).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
    /// Every file read to load it, sorted.
    pub fn inputs(&self) -> &[PathBuf] {
        &self.inputs
    }
    /// Every file read with the digest of its content, sorted.
    pub(crate) fn reads(&self) -> &[(PathBuf, String)] {
        &self.reads
    }
    /// Bytes its images take in memory (as read and as drawn from).
    pub fn image_bytes(&self) -> u64 {
        self.held
    }
    /// Actions in the ACT.
    pub fn actions(&self) -> usize {
        self.act.actions.len()
    }
    /// Whether its actions come in eights, one per direction.
    pub fn has_directions(&self) -> bool {
        !self.act.actions.is_empty() && self.act.actions.len().is_multiple_of(8)
    }
    /// Frames of action `action` (0 for none).
    pub fn frames(&self, action: usize) -> usize {
        self.act.actions.get(action).map_or(0, |a| a.frames.len())
    }

    /// How long the client shows each frame of `action`, in seconds: its
    /// interval × 24 ms (4 ticks, 96 ms, before ACT 2.2).
    pub fn frame_seconds(&self, action: usize) -> f32 {
        let ticks = self.act.intervals.get(action).copied().unwrap_or(4.0);
        let ticks = if ticks.is_finite() && ticks > 0.0 {
            ticks
        } else {
            4.0
        };
        ticks * sprite::TICK_MS / 1000.0
    }

    /// The ACT action of `motion` facing `direction` (0–7), for a sprite
    /// whose actions come in eights; otherwise `motion` itself, and only
    /// direction 0.
    pub fn action_index(&self, motion: usize, direction: usize) -> Result<usize> {
        let (index, limit) = if self.has_directions() {
            if direction > 7 {
                return Err(Error::Usage(format!(
                    "direction {direction}: the client has 8 directions, 0 (south) to 7 (south-east)"
                )));
            }
            (motion * 8 + direction, self.actions() / 8)
        } else {
            if direction != 0 {
                return Err(Error::Usage(format!(
                    "{}: its {} actions are not in eights, so it has no directions",
                    self.source.display(),
                    self.actions()
                )));
            }
            (motion, self.actions())
        };
        if motion >= limit {
            return Err(Error::Usage(format!(
                "{}: action {motion} out of range; it has {limit} action(s)",
                self.source.display()
            )));
        }
        Ok(index)
    }

    fn image(&self, layer: &sprite::Layer) -> Option<&RgbaImage> {
        if layer.image < 0 {
            return None;
        }
        let list = if layer.kind == 1 {
            &self.rgba
        } else {
            &self.indexed
        };
        list.get(layer.image as usize)
    }

    /// The pixels frame `frame` of `action` covers, relative to the entity
    /// position.
    pub fn frame_bounds(&self, action: usize, frame: usize) -> Bounds {
        let Some(f) = self
            .act
            .actions
            .get(action)
            .and_then(|a| a.frames.get(frame))
        else {
            return Bounds::EMPTY;
        };
        f.layers
            .iter()
            .filter_map(|l| self.image(l).map(|img| (l, img)))
            .fold(Bounds::EMPTY, |b, (l, img)| {
                b.union(compose::layer_bounds(l, img.width(), img.height()))
            })
    }

    /// The pixels every frame of `actions` covers together; a single
    /// transparent pixel at the entity position when they cover none.
    pub fn bounds(&self, actions: &[usize]) -> Bounds {
        let b = actions.iter().fold(Bounds::EMPTY, |b, &a| {
            (0..self.frames(a)).fold(b, |b, f| b.union(self.frame_bounds(a, f)))
        });
        if b.is_empty() {
            Bounds {
                min: [0, 0],
                max: [1, 1],
            }
        } else {
            b
        }
    }

    /// Frame `frame` of `action` drawn on a canvas covering `bounds`.
    pub fn draw(&self, action: usize, frame: usize, bounds: Bounds) -> RgbaImage {
        let (w, h) = bounds.size();
        let mut canvas = RgbaImage::new(w, h);
        if let Some(f) = self
            .act
            .actions
            .get(action)
            .and_then(|a| a.frames.get(frame))
        {
            for l in &f.layers {
                if let Some(img) = self.image(l) {
                    compose::draw_layer(&mut canvas, bounds.min, l, img);
                }
            }
        }
        canvas
    }

    /// Frame `frame` of `action`, framed over all of that action's frames
    /// (so a sequence keeps the entity on one pixel), with the entity
    /// position as its pivot.
    pub fn render(&self, action: usize, frame: usize) -> Result<Sprite> {
        let frames = self.frames(action);
        if action >= self.actions() {
            return Err(Error::Usage(format!(
                "{}: action {action} out of range; it has {} actions",
                self.source.display(),
                self.actions()
            )));
        }
        if frame >= frames {
            return Err(Error::Usage(format!(
                "{}: frame {frame} out of range; action {action} has {frames} frame(s)",
                self.source.display()
            )));
        }
        let bounds = self.bounds(&[action]);
        Ok(Sprite {
            image: self.draw(action, frame, bounds),
            pivot: pivot(bounds),
        })
    }
}

impl ClientSprite {
    /// [`ClientSprite::render`] laid over `background` (straight RGBA).
    pub fn render_over(&self, action: usize, frame: usize, background: [u8; 4]) -> Result<Sprite> {
        let mut sprite = self.render(action, frame)?;
        if background[3] > 0 {
            for p in sprite.image.pixels_mut() {
                let fg = p.0;
                let src = [
                    fg[0] as f32,
                    fg[1] as f32,
                    fg[2] as f32,
                    fg[3] as f32 / 255.0,
                ];
                p.0 = compose::over(src, background);
            }
        }
        Ok(sprite)
    }
}

/// Refuses an ACT layer drawn farther than [`compose::MAX_REACH`] pixels
/// from the entity position, naming it and where it is stored: every
/// frame's canvas (and a bake's, over all of them) then stays within
/// 2 × `MAX_REACH` a side.
fn check_reach(act: &Act, file: &Path, spr: &Spr) -> Result<()> {
    for (a, action) in act.actions.iter().enumerate() {
        for (f, frame) in action.frames.iter().enumerate() {
            for (l, layer) in frame.layers.iter().enumerate() {
                let size = match layer.image {
                    i if i < 0 => None,
                    i if layer.kind == 1 => spr.rgba.get(i as usize).map(|m| (m.width, m.height)),
                    i => spr.indexed.get(i as usize).map(|m| (m.width, m.height)),
                };
                let Some((w, h)) = size else { continue };
                let Some(far) = compose::reach(layer, w as u32, h as u32) else {
                    continue;
                };
                let scale = if layer.scale[0] == layer.scale[1] {
                    format!("{}", layer.scale[0])
                } else {
                    format!("{}×{}", layer.scale[0], layer.scale[1])
                };
                return Err(Error::parse(
                    file,
                    format!("action[{a}].frame[{f}].layer[{l}]"),
                    act.layer_offset(a, f, l) as u64,
                    format!(
                        "its {w}×{h} image at ({}, {}), scaled {scale} and turned {}°, reaches {far} \
                         px from the entity position; a client sprite's layers stay within {} px \
                         (its canvas within {} px a side)",
                        layer.x,
                        layer.y,
                        layer.rotation,
                        compose::MAX_REACH,
                        2 * compose::MAX_REACH
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The entity position as fractions of a canvas covering `bounds`.
pub fn pivot(bounds: Bounds) -> [f32; 2] {
    let (w, h) = bounds.size();
    [
        -bounds.min[0] as f32 / w.max(1) as f32,
        -bounds.min[1] as f32 / h.max(1) as f32,
    ]
}

/// Whether `path`'s bytes (first few) are an SPR or ACT.
pub fn is_client_sprite(head: &[u8]) -> bool {
    head.len() >= 4
        && ((head.starts_with(spr::MAGIC) && spr::known_version(head[3], head[2]))
            || (head.starts_with(act::MAGIC) && act::known_version(head[3], head[2])))
}
