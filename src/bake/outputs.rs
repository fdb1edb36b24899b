//! One job's results: per-frame PNGs, the sheet with its JSON, and one GIF
//! per clip × direction, each file handed to the bake's [`Sink`].

use super::atlas::{AtlasClip, AtlasJob};
use super::recipe::Job;
use super::sink::Sink;
use crate::error::{Error, Result};
use crate::scene::clip::FrameTimes;
use image::RgbaImage;
use std::path::{Component, Path, PathBuf};

/// One clip's rendered frames: `frames[d][f]` is direction
/// `job.directions[d]` at `times.times[f]`.
#[derive(Debug, Clone)]
pub struct ClipFrames {
    pub times: FrameTimes,
    pub frames: Vec<Vec<RgbaImage>>,
}

/// Writes every output `job` asks for. `clips[c]` holds the frames of
/// `job.clips[c]`, each `job.view.width × job.view.height`. `pivot` is the model
/// origin's position in a frame as fractions of its size (one framing for
/// the whole job, so one pivot). Returns the files handed to `sink`, in
/// order.
pub fn write_outputs(
    job: &Job,
    clips: &[ClipFrames],
    pivot: [f32; 2],
    sink: &dyn Sink,
) -> Result<Vec<PathBuf>> {
    let job_err = |m: String| Error::Other(format!("job '{}': {m}", job.name));
    if clips.len() != job.clips.len() {
        return Err(job_err(format!(
            "{} clips of frames for {} clips",
            clips.len(),
            job.clips.len()
        )));
    }
    for (spec, clip) in job.clips.iter().zip(clips) {
        if clip.frames.len() != job.directions.len() {
            return Err(job_err(format!(
                "clip '{}': {} rows of frames for {} directions",
                spec.name,
                clip.frames.len(),
                job.directions.len()
            )));
        }
        let n = clip.times.times.len();
        if let Some(row) = clip.frames.iter().find(|r| r.len() != n) {
            return Err(job_err(format!(
                "clip '{}': a row has {} frames, expected {n}",
                spec.name,
                row.len()
            )));
        }
    }
    let mut written = Vec::new();

    for (c, clip) in clips.iter().enumerate() {
        for (d, row) in clip.frames.iter().enumerate() {
            for (f, img) in row.iter().enumerate() {
                if let Some(p) = job.frame_path(c, d, f) {
                    sink.write_png(&p, img)?;
                    written.push(p);
                }
            }
        }
    }

    if let Some(sheet_path) = &job.output.sheet {
        let image = match &job.output.meta {
            Some(meta_path) => image_ref(sheet_path, meta_path),
            None => String::new(),
        };
        let metas: Vec<AtlasClip> = job
            .clips
            .iter()
            .zip(clips)
            .map(|(spec, c)| AtlasClip {
                name: &spec.name,
                frames: c.times.times.len() as u32,
                frame_seconds: c.times.frame_seconds,
            })
            .collect();
        let info = AtlasJob {
            name: &job.name,
            image: &image,
            directions: &job.directions,
            clips: &metas,
            named_clips: job.named_clips,
        };
        let atlas =
            super::grid::atlas(&info, job.view.width, job.view.height, pivot).map_err(job_err)?;
        let mut images: Vec<&RgbaImage> = Vec::with_capacity(atlas.frames.len());
        for f in &atlas.frames {
            let img = clips
                .get(f.clip)
                .and_then(|c| c.frames.get(f.direction))
                .and_then(|row| row.get(f.frame))
                .ok_or_else(|| job_err(format!("no rendered image for frame '{}'", f.name)))?;
            images.push(img);
        }
        // The grid is a single page.
        let sheet = super::sheet::compose(&atlas, 0, &images).map_err(job_err)?;
        sink.write_png(sheet_path, &sheet)?;
        written.push(sheet_path.clone());
        if let Some(meta_path) = &job.output.meta {
            let json = super::meta::texturepacker::json(&atlas, &info);
            sink.write(meta_path, json.as_bytes())?;
            written.push(meta_path.clone());
        }
    }

    if job.output.gif.is_some() {
        for (c, clip) in clips.iter().enumerate() {
            let delay = super::gif::delay_cs(clip.times.frame_seconds);
            for (d, row) in clip.frames.iter().enumerate() {
                if let Some(p) = job.gif_path(c, d) {
                    let refs: Vec<&RgbaImage> = row.iter().collect();
                    let bytes = super::gif::encode(&refs, delay).map_err(job_err)?;
                    sink.write(&p, &bytes)?;
                    written.push(p);
                }
            }
        }
    }
    Ok(written)
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
