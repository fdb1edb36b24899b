//! One job's results: per-frame PNGs, the sheet's pages with their
//! metadata in every format the job lists, and one GIF and APNG per clip ×
//! direction, each file handed to the bake's [`Sink`].

use super::atlas::{Atlas, AtlasClip, AtlasJob};
use super::kept::FramePixels;
use super::recipe::{page_path, Job, MetaFormat, PackLayout};
use super::sink::Sink;
use crate::error::{Error, Result};
use crate::scene::clip::FrameTimes;
use image::RgbaImage;
use rayon::prelude::*;
use std::borrow::Cow;
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

/// Frame PNGs encoded at once before they are written: up to 64, or as
/// many as keep the waiting PNGs (no larger than their images) within
/// [`ENCODE_BUDGET`] — but at least one a thread, so every core works.
pub(super) fn encode_batch(frame_bytes: u64) -> usize {
    let threads = rayon::current_num_threads().max(1);
    let fit = (ENCODE_BUDGET / frame_bytes.max(1)) as usize;
    fit.clamp(threads, 64.max(threads))
}

/// Bytes of encoded frame PNGs a batch may hold.
pub(super) const ENCODE_BUDGET: u64 = 64 << 20;

/// Writes every output `job` asks for. `clips[c]` holds the frames of
/// `job.clips[c]`, each `job.view.width × job.view.height`. Returns the
/// files handed to `sink`, in order.
pub fn write_outputs(job: &Job, clips: &[ClipFrames], sink: &dyn Sink) -> Result<Vec<PathBuf>> {
    check_shapes(job, clips).map_err(|m| job_error(job, m))?;
    let held = |c: usize, d: usize, f: usize| Cow::Borrowed(&clips[c].frames[d][f]);
    let mut written = Vec::new();
    write_frame_pngs(job, clips, &held, sink, &mut written)?;
    if let Some(sheet_path) = &job.output.sheet {
        // Rendered images in sheet order: clip by clip, direction by
        // direction, frame by frame.
        let images: Vec<&RgbaImage> = clips
            .iter()
            .flat_map(|c| c.frames.iter().flatten())
            .collect();
        let atlas = sheet_atlas(job, clips, Some(&images))?;
        // The images again in atlas order (the same order, checked).
        let by_frame: Vec<&RgbaImage> = atlas
            .frames
            .iter()
            .map(|f| {
                clips
                    .get(f.clip)
                    .and_then(|c| c.frames.get(f.direction))
                    .and_then(|row| row.get(f.frame))
                    .ok_or_else(|| {
                        job_error(job, format!("no rendered image for frame '{}'", f.name))
                    })
            })
            .collect::<Result<_>>()?;
        write_composed_sheet(
            job,
            clips,
            &atlas,
            sheet_path,
            &by_frame,
            sink,
            &mut written,
        )?;
    }
    write_animations(job, clips, &held, sink, &mut written)?;
    Ok(written)
}

/// One rendered frame, `(clip, direction, frame)`, from wherever the job
/// keeps its frames: the frames themselves, or the sheet they were drawn
/// into.
pub(super) type FrameAt<'a> = dyn Fn(usize, usize, usize) -> Cow<'a, RgbaImage> + Sync + 'a;

/// An error of `job`, named once.
pub(super) fn job_error(job: &Job, m: String) -> Error {
    Error::Other(format!("job '{}': {m}", job.name))
}

/// Every frame `(clip, direction, frame)` of the job in output order:
/// clip by clip, direction by direction, frame by frame.
pub(super) fn frame_order(clips: &[ClipFrames], directions: usize) -> Vec<(usize, usize, usize)> {
    clips
        .iter()
        .enumerate()
        .flat_map(|(c, clip)| {
            let n = clip.times.times.len();
            (0..directions).flat_map(move |d| (0..n).map(move |f| (c, d, f)))
        })
        .collect()
}

/// The per-frame PNGs, encoded in parallel a batch at a time (so at most a
/// batch of encoded files waits) and handed to the sink in order.
pub(super) fn write_frame_pngs(
    job: &Job,
    clips: &[ClipFrames],
    frame: &FrameAt<'_>,
    sink: &dyn Sink,
    written: &mut Vec<PathBuf>,
) -> Result<()> {
    let files: Vec<(PathBuf, (usize, usize, usize))> = frame_order(clips, job.directions.len())
        .into_iter()
        .filter_map(|(c, d, f)| Some((job.frame_path(c, d, f)?, (c, d, f))))
        .collect();
    let frame_bytes = job.view.width as u64 * job.view.height as u64 * 4;
    for batch in files.chunks(encode_batch(frame_bytes)) {
        let encoded: Vec<Result<Vec<u8>>> = batch
            .par_iter()
            .map(|(_, (c, d, f))| sink.encode_png(&frame(*c, *d, *f)))
            .collect();
        for ((p, _), bytes) in batch.iter().zip(encoded) {
            sink.write(p, &bytes?)?;
            written.push(p.clone());
        }
    }
    Ok(())
}

/// The GIFs and APNGs, one per clip × direction and kind, encoded in
/// parallel (each holding its own frames while it encodes) and handed to
/// the sink in order.
pub(super) fn write_animations(
    job: &Job,
    clips: &[ClipFrames],
    frame: &FrameAt<'_>,
    sink: &dyn Sink,
    written: &mut Vec<PathBuf>,
) -> Result<()> {
    let mut animations: Vec<(PathBuf, usize, usize, bool)> = Vec::new();
    for (c, _) in clips.iter().enumerate() {
        for d in 0..job.directions.len() {
            animations.extend(job.gif_path(c, d).map(|p| (p, c, d, false)));
            animations.extend(job.apng_path(c, d).map(|p| (p, c, d, true)));
        }
    }
    let encoded: Vec<Result<Vec<u8>>> = animations
        .par_iter()
        .map(|&(_, c, d, apng)| {
            let clip = &clips[c];
            let (n, fs) = (clip.times.times.len(), clip.times.frame_seconds);
            let images: Vec<Cow<RgbaImage>> = (0..n).map(|f| frame(c, d, f)).collect();
            let refs: Vec<&RgbaImage> = images.iter().map(|i| &**i).collect();
            if apng {
                let delays = super::apng::delays(n, fs, clip.times.rate);
                super::apng::encode(&refs, &delays, clip.looping).map_err(|m| job_error(job, m))
            } else {
                let delays = super::timing::gif_delays(n, fs);
                super::gif::encode_timed(&refs, &delays, clip.looping)
                    .map_err(|m| job_error(job, m))
            }
        })
        .collect();
    for ((p, ..), bytes) in animations.into_iter().zip(encoded) {
        sink.write(&p, &bytes?)?;
        written.push(p);
    }
    Ok(())
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

/// The job's atlas over its clips, each frame described (pivot, duration,
/// root motion). A packed atlas trims and matches the rendered `images`
/// (in sheet order); a grid needs none.
pub(super) fn sheet_atlas<F: FramePixels>(
    job: &Job,
    clips: &[ClipFrames],
    images: Option<&[F]>,
) -> Result<Atlas> {
    let metas = atlas_clips(job, clips.iter().map(|c| (&c.times, c.looping)));
    let info = atlas_job(job, &metas);
    let size = (job.view.width, job.view.height);
    let mut atlas = match (job.pack.layout, images) {
        (PackLayout::Grid, _) => {
            super::grid::paged_atlas(&info, size.0, size.1, [0.5, 0.5], &job.pack)
        }
        (PackLayout::Packed, Some(images)) => {
            super::packed::atlas(&info, images, size, [0.5, 0.5], &job.pack)
        }
        (PackLayout::Packed, None) => Err("a packed atlas needs its frames".to_string()),
    }
    .map_err(|m| job_error(job, m))?;
    describe_frames(&mut atlas, clips);
    Ok(atlas)
}

/// The sheet's pages, each made by `page(p)` (composed, or the page the
/// frames were drawn into; extruded), then every metadata file over them.
pub(super) fn write_sheet<'p>(
    job: &Job,
    clips: &[ClipFrames],
    atlas: &Atlas,
    sheet_path: &Path,
    page: &mut dyn FnMut(usize) -> Result<Cow<'p, RgbaImage>>,
    sink: &dyn Sink,
    written: &mut Vec<PathBuf>,
) -> Result<()> {
    let pages = page_paths(atlas, sheet_path);
    for (p, path) in pages.iter().enumerate() {
        let image = page(p)?;
        sink.write_png(path, &image)?;
        written.push(path.clone());
    }
    write_metadata(job, clips, atlas, &pages, sink, written)
}

/// The file of each page of the sheet at `sheet_path`.
pub(super) fn page_paths(atlas: &Atlas, sheet_path: &Path) -> Vec<PathBuf> {
    if atlas.pages.len() == 1 {
        vec![sheet_path.to_path_buf()]
    } else {
        (0..atlas.pages.len())
            .map(|p| page_path(sheet_path, p, ""))
            .collect()
    }
}

/// Every metadata file of a sheet whose pages are the files `pages`.
pub(super) fn write_metadata(
    job: &Job,
    clips: &[ClipFrames],
    atlas: &Atlas,
    pages: &[PathBuf],
    sink: &dyn Sink,
    written: &mut Vec<PathBuf>,
) -> Result<()> {
    let metas = atlas_clips(job, clips.iter().map(|c| (&c.times, c.looping)));
    let info = atlas_job(job, &metas);
    for (format, path) in &job.output.metadata {
        for (file, text) in metadata(*format, path, atlas, &info, pages) {
            sink.write(&file, text.as_bytes())?;
            written.push(file);
        }
    }
    Ok(())
}

/// [`write_sheet`] with each page composed, one at a time, from the
/// frames' images in atlas order (whole frames, or what a packed sheet
/// kept of them).
pub(super) fn write_composed_sheet<F: FramePixels>(
    job: &Job,
    clips: &[ClipFrames],
    atlas: &Atlas,
    sheet_path: &Path,
    by_frame: &[F],
    sink: &dyn Sink,
    written: &mut Vec<PathBuf>,
) -> Result<()> {
    let mut compose = |p: usize| {
        let mut page = super::sheet::compose(atlas, p, by_frame).map_err(|m| job_error(job, m))?;
        super::sheet::extrude_page(atlas, p, &mut page, job.pack.extrude);
        Ok(Cow::Owned(page))
    };
    write_sheet(job, clips, atlas, sheet_path, &mut compose, sink, written)
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
