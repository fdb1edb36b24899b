//! One job's results: per-frame PNGs, the sheet's pages with their
//! metadata in every format the job lists, and one GIF and APNG per clip ×
//! direction, each file handed to the bake's [`Sink`].

use super::atlas::{Atlas, AtlasClip, AtlasJob};
use super::recipe::{page_path, Job, MetaFormat, PackLayout};
use super::sink::Sink;
use crate::error::{Error, Result};
use crate::scene::clip::FrameTimes;
use image::RgbaImage;
use rayon::prelude::*;
use std::path::{Component, Path, PathBuf};

/// One clip's rendered frames and what the metadata says about them.
#[derive(Debug, Clone)]
pub struct ClipFrames {
    /// The sample times and spacing the frames were rendered at.
    pub times: FrameTimes,
    /// `frames[d][f]` is direction `job.directions[d]` at `times.times[f]`.
    pub frames: Vec<Vec<RgbaImage>>,
    /// Per direction: where the model's ground point under its origin
    /// lands, as fractions of the frame's width and height from its
    /// top-left corner.
    pub pivots: Vec<[f32; 2]>,
    /// `root_motion[d][f]`: pixels the engine moves the sprite by while
    /// frame `f` shows (x right, y down); empty when the clip keeps its
    /// travel in the frames or has none.
    pub root_motion: Vec<Vec<[f32; 2]>>,
    /// Whether the clip loops (else it plays once).
    pub looping: bool,
}

impl ClipFrames {
    /// Frames seen from every direction with one pivot, looping, without
    /// root motion.
    #[cfg(any(test, feature = "internals"))]
    pub fn new(times: FrameTimes, frames: Vec<Vec<RgbaImage>>, pivot: [f32; 2]) -> ClipFrames {
        let n = frames.len();
        ClipFrames {
            times,
            frames,
            pivots: vec![pivot; n],
            root_motion: Vec::new(),
            looping: true,
        }
    }

    /// The same clip with other images (a pass of it): times, pivots, root
    /// motion and looping kept, so its sheet and metadata match frame for
    /// frame.
    pub fn with_frames(&self, frames: Vec<Vec<RgbaImage>>) -> ClipFrames {
        ClipFrames {
            times: self.times.clone(),
            frames,
            pivots: self.pivots.clone(),
            root_motion: self.root_motion.clone(),
            looping: self.looping,
        }
    }
}

/// Frame PNGs encoded at once before they are written.
const ENCODE_BATCH: usize = 64;

/// Writes every output `job` asks for. `clips[c]` holds the frames of
/// `job.clips[c]`, each `job.view.width × job.view.height`. Returns the
/// files handed to `sink`, in order.
pub fn write_outputs(job: &Job, clips: &[ClipFrames], sink: &dyn Sink) -> Result<Vec<PathBuf>> {
    let job_err = |m: String| Error::Other(format!("job '{}': {m}", job.name));
    check_shapes(job, clips).map_err(job_err)?;
    let mut written = Vec::new();

    // Frame PNGs are encoded in parallel, a batch at a time so at most a
    // batch of encoded files waits, and handed to the sink in order.
    let mut frame_files: Vec<(PathBuf, &RgbaImage)> = Vec::new();
    for (c, clip) in clips.iter().enumerate() {
        for (d, row) in clip.frames.iter().enumerate() {
            for (f, img) in row.iter().enumerate() {
                if let Some(p) = job.frame_path(c, d, f) {
                    frame_files.push((p, img));
                }
            }
        }
    }
    for batch in frame_files.chunks(ENCODE_BATCH) {
        let encoded: Vec<Result<Vec<u8>>> = batch
            .par_iter()
            .map(|(_, img)| sink.encode_png(img))
            .collect();
        for ((p, _), bytes) in batch.iter().zip(encoded) {
            sink.write(p, &bytes?)?;
            written.push(p.clone());
        }
    }

    if let Some(sheet_path) = &job.output.sheet {
        write_sheet(job, clips, sheet_path, sink, &mut written).map_err(|e| match e {
            Error::Other(m) => job_err(m),
            e => e,
        })?;
    }

    // Animations, one per clip × direction and kind, encoded in parallel
    // and handed to the sink in order.
    let mut animations: Vec<(PathBuf, usize, usize, bool)> = Vec::new();
    for (c, clip) in clips.iter().enumerate() {
        for d in 0..clip.frames.len() {
            animations.extend(job.gif_path(c, d).map(|p| (p, c, d, false)));
            animations.extend(job.apng_path(c, d).map(|p| (p, c, d, true)));
        }
    }
    let encoded: Vec<Result<Vec<u8>>> = animations
        .par_iter()
        .map(|&(_, c, d, apng)| {
            let clip = &clips[c];
            let (n, fs) = (clip.times.times.len(), clip.times.frame_seconds);
            let refs: Vec<&RgbaImage> = clip.frames[d].iter().collect();
            if apng {
                let delays = super::apng::delays(n, fs, clip.times.rate);
                super::apng::encode(&refs, &delays, clip.looping).map_err(job_err)
            } else {
                let delays = super::timing::gif_delays(n, fs);
                super::gif::encode_timed(&refs, &delays, clip.looping).map_err(job_err)
            }
        })
        .collect();
    for ((p, ..), bytes) in animations.into_iter().zip(encoded) {
        sink.write(&p, &bytes?)?;
        written.push(p);
    }
    Ok(written)
}

/// Every clip has a row of frames per direction, every row as many frames
/// as the clip has times, and one pivot per direction.
fn check_shapes(job: &Job, clips: &[ClipFrames]) -> std::result::Result<(), String> {
    if clips.len() != job.clips.len() {
        return Err(format!(
            "{} clips of frames for {} clips",
            clips.len(),
            job.clips.len()
        ));
    }
    for (spec, clip) in job.clips.iter().zip(clips) {
        if clip.frames.len() != job.directions.len() {
            return Err(format!(
                "clip '{}': {} rows of frames for {} directions",
                spec.name,
                clip.frames.len(),
                job.directions.len()
            ));
        }
        if clip.pivots.len() != job.directions.len() {
            return Err(format!(
                "clip '{}': {} pivots for {} directions",
                spec.name,
                clip.pivots.len(),
                job.directions.len()
            ));
        }
        let n = clip.times.times.len();
        if let Some(row) = clip.frames.iter().find(|r| r.len() != n) {
            return Err(format!(
                "clip '{}': a row has {} frames, expected {n}",
                spec.name,
                row.len()
            ));
        }
        if !clip.root_motion.is_empty()
            && (clip.root_motion.len() != job.directions.len()
                || clip.root_motion.iter().any(|r| r.len() != n))
        {
            return Err(format!(
                "clip '{}': root motion does not match its frames",
                spec.name
            ));
        }
    }
    Ok(())
}

/// The job's clips as its atlas names and times them, from each clip's
/// frame times and loop flag in order.
pub(super) fn atlas_clips<'a>(
    job: &'a Job,
    clips: impl Iterator<Item = (&'a FrameTimes, bool)>,
) -> Vec<AtlasClip<'a>> {
    job.clips
        .iter()
        .zip(clips)
        .map(|(spec, (times, looping))| AtlasClip::new(&spec.name, times, looping))
        .collect()
}

/// What the job's atlas and metadata know of it, its first page not yet
/// named.
pub(super) fn atlas_job<'a>(job: &'a Job, clips: &'a [AtlasClip<'a>]) -> AtlasJob<'a> {
    AtlasJob {
        name: &job.name,
        image: "",
        directions: &job.directions,
        clips,
        named_clips: job.named_clips,
        pixels_per_unit: job.view.framing.pixels_per_unit,
    }
}

/// The sheet's pages and every metadata file over them.
fn write_sheet(
    job: &Job,
    clips: &[ClipFrames],
    sheet_path: &Path,
    sink: &dyn Sink,
    written: &mut Vec<PathBuf>,
) -> Result<()> {
    let metas = atlas_clips(job, clips.iter().map(|c| (&c.times, c.looping)));
    let info = atlas_job(job, &metas);
    // Rendered images in sheet order: clip by clip, direction by
    // direction, frame by frame.
    let images: Vec<&RgbaImage> = clips
        .iter()
        .flat_map(|c| c.frames.iter().flatten())
        .collect();
    let size = (job.view.width, job.view.height);
    let mut atlas = match job.pack.layout {
        PackLayout::Grid => super::grid::paged_atlas(&info, size.0, size.1, [0.5, 0.5], &job.pack),
        PackLayout::Packed => super::packed::atlas(&info, &images, size, [0.5, 0.5], &job.pack),
    }
    .map_err(Error::Other)?;
    describe_frames(&mut atlas, clips);
    let pages: Vec<PathBuf> = if atlas.pages.len() == 1 {
        vec![sheet_path.to_path_buf()]
    } else {
        (0..atlas.pages.len())
            .map(|p| page_path(sheet_path, p, ""))
            .collect()
    };
    // The images again in atlas order (the same order, checked).
    let by_frame: Vec<&RgbaImage> = atlas
        .frames
        .iter()
        .map(|f| {
            clips
                .get(f.clip)
                .and_then(|c| c.frames.get(f.direction))
                .and_then(|row| row.get(f.frame))
                .ok_or_else(|| Error::Other(format!("no rendered image for frame '{}'", f.name)))
        })
        .collect::<Result<_>>()?;
    for (p, path) in pages.iter().enumerate() {
        let mut sheet = super::sheet::compose(&atlas, p, &by_frame).map_err(Error::Other)?;
        for (_, f) in atlas.page_frames(p) {
            super::sheet::extrude(&mut sheet, f.rect, job.pack.extrude);
        }
        sink.write_png(path, &sheet)?;
        written.push(path.clone());
    }
    for (format, path) in &job.output.metadata {
        for (file, text) in metadata(*format, path, &atlas, &info, &pages) {
            sink.write(&file, text.as_bytes())?;
            written.push(file);
        }
    }
    Ok(())
}

/// Each frame's pivot, duration and root motion from the rendered clips.
fn describe_frames(atlas: &mut Atlas, clips: &[ClipFrames]) {
    let durations: Vec<Vec<u32>> = clips
        .iter()
        .map(|c| super::timing::durations_ms(c.times.times.len(), c.times.frame_seconds))
        .collect();
    for f in &mut atlas.frames {
        let Some(c) = clips.get(f.clip) else { continue };
        if let Some(p) = c.pivots.get(f.direction) {
            f.pivot = *p;
        }
        if let Some(&d) = durations.get(f.clip).and_then(|d| d.get(f.frame)) {
            f.duration_ms = d;
        }
        f.root_motion = c
            .root_motion
            .get(f.direction)
            .and_then(|r| r.get(f.frame))
            .copied();
    }
}

/// The files of one metadata format over `atlas`, whose pages are the
/// files `pages`: one per page for the formats that describe one image,
/// else one.
fn metadata(
    format: MetaFormat,
    path: &Path,
    atlas: &Atlas,
    info: &AtlasJob<'_>,
    pages: &[PathBuf],
) -> Vec<(PathBuf, String)> {
    let single = pages.len() == 1;
    let images =
        |file: &Path| -> Vec<String> { pages.iter().map(|p| image_ref(p, file)).collect() };
    if !format.per_page() || single {
        let refs = images(path);
        let first = refs.first().cloned().unwrap_or_default();
        let job = AtlasJob {
            image: &first,
            ..*info
        };
        let text = match format {
            MetaFormat::TexturePackerHash => super::meta::texturepacker::json(atlas, &job),
            MetaFormat::TexturePackerArray => {
                super::meta::texturepacker::array_json(atlas, &job, &refs)
            }
            MetaFormat::Aseprite => super::meta::aseprite::json(atlas, &job),
            MetaFormat::Pixi => super::meta::pixi::json(atlas, &job, &[]),
            MetaFormat::Godot => super::meta::godot::tres(atlas, &job, &refs),
        };
        return vec![(path.to_path_buf(), text)];
    }
    let files: Vec<PathBuf> = (0..pages.len())
        .map(|p| page_path(path, p, format.suffix()))
        .collect();
    files
        .iter()
        .enumerate()
        .map(|(p, file)| {
            let page = atlas.page(p);
            let image = image_ref(&pages[p], file);
            let job = AtlasJob {
                image: &image,
                ..*info
            };
            // The first page's file names the others, as TexturePacker's
            // multipack does; loaders follow it from there.
            let related: Vec<String> = if p == 0 {
                files[1..].iter().map(|o| image_ref(o, file)).collect()
            } else {
                Vec::new()
            };
            let text = match format {
                MetaFormat::Aseprite => super::meta::aseprite::json(&page, &job),
                MetaFormat::Pixi => super::meta::pixi::json(&page, &job, &related),
                _ => super::meta::texturepacker::json_page(&page, &job, &related),
            };
            (file.clone(), text)
        })
        .collect()
}

/// How the JSON names its sheet: engines resolve `meta.image` against the
/// JSON's own folder, so this is the sheet's path relative to it, with `/`
/// separators (usually just the file name).
pub fn image_ref(sheet: &Path, meta: &Path) -> String {
    let from: Vec<Component> = meta
        .parent()
        .map(|p| p.components().collect())
        .unwrap_or_default();
    let to: Vec<Component> = sheet.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = Vec::new();
    for _ in common..from.len() {
        parts.push("..".to_string());
    }
    for c in &to[common..] {
        parts.push(c.as_os_str().to_string_lossy().into_owned());
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::image_ref;
    use std::path::Path;

    #[test]
    fn image_is_named_relative_to_the_json() {
        assert_eq!(
            image_ref(Path::new("out/a/a.png"), Path::new("out/a/a.json")),
            "a.png"
        );
        assert_eq!(
            image_ref(Path::new("out/a/a.png"), Path::new("out/a/meta/a.json")),
            "../a.png"
        );
        assert_eq!(
            image_ref(Path::new("out/a/img/a.png"), Path::new("out/a/a.json")),
            "img/a.png"
        );
    }
}
