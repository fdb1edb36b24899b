//! One job's results: per-frame PNGs, the sheet's pages with their
//! metadata in every format the job lists, and one GIF and APNG per clip ×
//! direction, each file handed to the bake's [`Sink`].

use crate::bake::encode::clip_frames::ClipFrames;
use crate::bake::outputs::sink::{Held, Sink};
use crate::bake::recipe::{page_path, Job, MetaFormat, PackLayout};
use crate::bake::sheet::atlas::{Atlas, AtlasClip, AtlasJob};
use crate::bake::sheet::kept::FramePixels;
use crate::error::{Error, Result};
use crate::scene::clip::FrameTimes;
use image::RgbaImage;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

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
        side_by_side(
            sink,
            &mut written,
            |s, w| write_composed_sheet(job, clips, &atlas, sheet_path, &by_frame, s, w),
            |s, w| write_animations(job, clips, &held, s, w),
        )?;
    } else {
        write_animations(job, clips, &held, sink, &mut written)?;
    }
    Ok(written)
}

/// Runs `first` and `second` side by side and gives `sink` the same
/// files in the same order as running one after the other: `first`'s go
/// straight to it, `second`'s are held until `first` is done (and dropped
/// if it failed, as they would not have been made). Neither waits for the
/// other's encoding, so a sheet's deflate and a job's GIFs keep every core
/// busy at the end of a job.
pub(super) fn side_by_side<A, B>(
    sink: &dyn Sink,
    written: &mut Vec<PathBuf>,
    first: A,
    second: B,
) -> Result<()>
where
    A: FnOnce(&dyn Sink, &mut Vec<PathBuf>) -> Result<()> + Send,
    B: FnOnce(&dyn Sink, &mut Vec<PathBuf>) -> Result<()> + Send,
{
    let after = Held::new(sink);
    let (from_first, from_second) = rayon::join(
        || {
            let mut w = Vec::new();
            match first(sink, &mut w) {
                Ok(()) => after.open().map(|()| w),
                Err(e) => {
                    after.shut();
                    Err(e)
                }
            }
        },
        || {
            let mut w = Vec::new();
            second(&after, &mut w).map(|()| w)
        },
    );
    written.extend(from_first?);
    written.extend(from_second?);
    Ok(())
}

/// Hands files made in any order to a sink in a fixed one: each as soon as
/// every file before it has been handed over. The first failure — a file
/// that could not be made, or that the sink refused — ends it, and no file
/// after it is handed over, as when they are made and handed over in turn.
struct InOrder<'a> {
    sink: &'a dyn Sink,
    paths: Vec<PathBuf>,
    state: Mutex<Turn>,
}

#[derive(Default)]
struct Turn {
    /// The next file to hand over.
    next: usize,
    /// Files made but waiting for their turn.
    ready: BTreeMap<usize, Result<Vec<u8>>>,
    failed: Option<Error>,
}

impl<'a> InOrder<'a> {
    fn new(sink: &'a dyn Sink, paths: Vec<PathBuf>) -> InOrder<'a> {
        InOrder {
            sink,
            paths,
            state: Mutex::new(Turn::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Turn> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a file has failed: nothing after it is needed.
    fn failed(&self) -> bool {
        self.lock().failed.is_some()
    }

    /// File `i` has been made: `bytes`, or why not.
    fn put(&self, i: usize, bytes: Result<Vec<u8>>) {
        let mut turn = self.lock();
        if turn.failed.is_some() {
            return;
        }
        turn.ready.insert(i, bytes);
        // Handed over under the lock, so files cannot overtake each other.
        let turn = &mut *turn;
        while let Some(bytes) = turn.ready.remove(&turn.next) {
            let handed = bytes.and_then(|b| self.sink.write(&self.paths[turn.next], &b));
            if let Err(e) = handed {
                turn.failed = Some(e);
                turn.ready.clear();
                return;
            }
            turn.next += 1;
        }
    }

    /// Every file's path, in order, once all were handed over; else the
    /// first failure.
    fn finish(self, written: &mut Vec<PathBuf>) -> Result<()> {
        let turn = self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = turn.failed {
            return Err(e);
        }
        assert_eq!(turn.next, self.paths.len(), "every file was put");
        written.extend(self.paths);
        Ok(())
    }
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
        let order = InOrder::new(sink, batch.iter().map(|(p, _)| p.clone()).collect());
        batch
            .par_iter()
            .enumerate()
            .for_each(|(i, (_, (c, d, f)))| {
                if !order.failed() {
                    order.put(i, sink.encode_png(&frame(*c, *d, *f)));
                }
            });
        order.finish(written)?;
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
    let order = InOrder::new(sink, animations.iter().map(|(p, ..)| p.clone()).collect());
    let encode = |&(_, c, d, apng): &(PathBuf, usize, usize, bool)| {
        let clip = &clips[c];
        let (n, fs) = (clip.times.times.len(), clip.times.frame_seconds);
        let images: Vec<Cow<RgbaImage>> = (0..n).map(|f| frame(c, d, f)).collect();
        let refs: Vec<&RgbaImage> = images.iter().map(|i| &**i).collect();
        if apng {
            let delays = crate::bake::encode::apng::delays(n, fs, clip.times.rate);
            crate::bake::encode::apng::encode(&refs, &delays, clip.looping)
                .map_err(|m| job_error(job, m))
        } else {
            let delays = crate::bake::encode::timing::gif_delays(n, fs);
            crate::bake::encode::gif::encode_timed(&refs, &delays, clip.looping)
                .map_err(|m| job_error(job, m))
        }
    };
    animations.par_iter().enumerate().for_each(|(i, a)| {
        if !order.failed() {
            order.put(i, encode(a));
        }
    });
    order.finish(written)
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
            crate::bake::sheet::grid::paged_atlas(&info, size.0, size.1, [0.5, 0.5], &job.pack)
        }
        (PackLayout::Packed, Some(images)) => {
            crate::bake::sheet::packed::atlas(&info, images, size, [0.5, 0.5], &job.pack)
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
        let mut page = crate::bake::sheet::compose::compose(atlas, p, by_frame)
            .map_err(|m| job_error(job, m))?;
        crate::bake::sheet::compose::extrude_page(atlas, p, &mut page, job.pack.extrude);
        Ok(Cow::Owned(page))
    };
    write_sheet(job, clips, atlas, sheet_path, &mut compose, sink, written)
}

/// Each frame's pivot, duration and root motion from the rendered clips.
fn describe_frames(atlas: &mut Atlas, clips: &[ClipFrames]) {
    let durations: Vec<Vec<u32>> = clips
        .iter()
        .map(|c| {
            crate::bake::encode::timing::durations_ms(c.times.times.len(), c.times.frame_seconds)
        })
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
            MetaFormat::TexturePackerHash => {
                crate::bake::sheet::meta::texturepacker::json(atlas, &job)
            }
            MetaFormat::TexturePackerArray => {
                crate::bake::sheet::meta::texturepacker::array_json(atlas, &job, &refs)
            }
            MetaFormat::Aseprite => crate::bake::sheet::meta::aseprite::json(atlas, &job),
            MetaFormat::Pixi => crate::bake::sheet::meta::pixi::json(atlas, &job, &[]),
            MetaFormat::Godot => crate::bake::sheet::meta::godot::tres(atlas, &job, &refs),
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
                MetaFormat::Aseprite => crate::bake::sheet::meta::aseprite::json(&page, &job),
                MetaFormat::Pixi => crate::bake::sheet::meta::pixi::json(&page, &job, &related),
                _ => crate::bake::sheet::meta::texturepacker::json_page(&page, &job, &related),
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
    use super::{image_ref, side_by_side, InOrder};
    use crate::bake::outputs::sink::{DryRunSink, Sink};
    use crate::error::{Error, Result};
    use std::path::{Path, PathBuf};

    fn paths(names: &[&str]) -> Vec<PathBuf> {
        names.iter().map(PathBuf::from).collect()
    }

    fn handed(sink: &DryRunSink) -> Vec<(String, usize)> {
        sink.records()
            .iter()
            .map(|r| (r.path.display().to_string(), r.len))
            .collect()
    }

    #[test]
    fn files_made_out_of_order_are_handed_over_in_order_up_to_the_first_failure() {
        let sink = DryRunSink::default();
        let order = InOrder::new(&sink, paths(&["a", "b", "c", "d"]));
        order.put(2, Ok(vec![0; 3]));
        order.put(1, Ok(vec![0; 2]));
        assert!(handed(&sink).is_empty(), "b and c wait for a");
        order.put(0, Ok(vec![0; 1]));
        let abc = [("a".into(), 1), ("b".into(), 2), ("c".into(), 3)];
        assert_eq!(handed(&sink), abc);
        order.put(3, Ok(vec![0; 4]));
        let mut written = vec![PathBuf::from("before")];
        order.finish(&mut written).unwrap();
        assert_eq!(written, paths(&["before", "a", "b", "c", "d"]));

        // d is made before the failed b: neither b nor d is handed over,
        // though d came first, and c is not waited for.
        let sink = DryRunSink::default();
        let order = InOrder::new(&sink, paths(&["a", "b", "c", "d"]));
        order.put(3, Ok(vec![0; 4]));
        order.put(0, Ok(vec![0; 1]));
        assert!(!order.failed());
        order.put(1, Err(Error::Other("b broke".into())));
        assert!(order.failed());
        order.put(2, Ok(vec![0; 3]));
        assert_eq!(handed(&sink), [("a".into(), 1)]);
        let mut written = Vec::new();
        let e = order.finish(&mut written).unwrap_err();
        assert_eq!(e.to_string(), "b broke");
        assert!(written.is_empty());
    }

    /// Writes `names` in turn, then fails if `fail`.
    fn part(
        names: &'static [&'static str],
        fail: bool,
    ) -> impl FnOnce(&dyn Sink, &mut Vec<PathBuf>) -> Result<()> + Send {
        move |sink, written| {
            for n in names {
                // The first part is slow, so the second's files are often
                // made first: they must still be handed over after the
                // first's, whichever thread runs what.
                if n.starts_with('1') {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                sink.write(Path::new(n), n.as_bytes())?;
                written.push(PathBuf::from(n));
            }
            if fail {
                return Err(Error::Other("part failed".into()));
            }
            Ok(())
        }
    }

    #[test]
    fn parts_side_by_side_hand_their_files_over_as_if_run_in_turn() {
        let sink = DryRunSink::default();
        let mut written = Vec::new();
        side_by_side(
            &sink,
            &mut written,
            part(&["1a", "1b"], false),
            part(&["2a", "2b"], false),
        )
        .unwrap();
        let names = ["1a", "1b", "2a", "2b"];
        assert_eq!(written, paths(&names));
        assert_eq!(handed(&sink), names.map(|n| (n.to_string(), 2)));

        // The first part fails after one file: the second's are dropped.
        let sink = DryRunSink::default();
        let mut written = Vec::new();
        let e = side_by_side(
            &sink,
            &mut written,
            part(&["1a"], true),
            part(&["2a", "2b"], false),
        );
        assert_eq!(e.unwrap_err().to_string(), "part failed");
        assert_eq!(handed(&sink), [("1a".to_string(), 2)]);

        // The second fails: everything it made before is handed over.
        let sink = DryRunSink::default();
        let mut written = Vec::new();
        let e = side_by_side(
            &sink,
            &mut written,
            part(&["1a"], false),
            part(&["2a"], true),
        );
        assert_eq!(e.unwrap_err().to_string(), "part failed");
        assert_eq!(
            handed(&sink),
            [("1a".to_string(), 2), ("2a".to_string(), 2)]
        );
    }

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
