//! What a job needs in memory at once, checked against `--memory-limit`
//! before it renders: its images, by where it keeps its frames, and the
//! decoded inputs (textures, a sprite's images) its plan holds.

use crate::bake::recipe::Job;
use crate::bake::run::{grid_atlas, JobPlan};
use crate::bake::stream::Keep;
use crate::error::{Error, Result};
use crate::memory::rounded_bytes;

impl JobPlan {
    /// Bytes of the images the job holds at once while it renders and
    /// writes, by where it keeps its frames ([`Keep`]):
    /// - a grid sheet: its pages, and every thread's frame in flight — or,
    ///   while GIFs and APNGs are encoded, every thread's animation (its
    ///   frames read back out of the pages, and their colours counted);
    /// - a packed sheet: every frame's trimmed box (counted whole: the box
    ///   is not known before drawing), and one page or animation at a time;
    /// - nothing (frame PNGs alone): every thread's frame, and the PNGs of
    ///   a batch waiting to be written in order;
    /// - every frame (animations without a sheet, client sprites): all of
    ///   them, and the sheet composed from them or each thread's GIF's
    ///   colours.
    ///
    /// Passes are drawn after the colour frames: the larger of the two
    /// counts. Tile buffers and encoders' working memory, a few hundred
    /// KiB a thread, come on top.
    pub fn image_bytes(&self, job: &Job) -> u64 {
        if let Some(s) = &self.sprite {
            // Every frame on the sprite's own canvas, and the sheet.
            let (w, h) = s.canvas;
            let all = (self.images() as u64).saturating_mul(w as u64 * h as u64 * 4);
            let sheet = if job.output.sheet.is_some() { all } else { 0 };
            return all.saturating_add(sheet);
        }
        let frame = job.view.width as u64 * job.view.height as u64 * 4;
        let threads = rayon::current_num_threads().max(1) as u64;
        let all = (self.images() as u64).saturating_mul(frame);
        let longest = self
            .clips
            .iter()
            .map(|c| c.times.times.len())
            .max()
            .unwrap_or(0) as u64;
        // Encoded frame PNGs waiting for their batch to be written: each no
        // larger than its image, a batch of them within the encoding budget
        // but at least one a thread.
        let batch = crate::bake::emit::encode_batch(frame) as u64;
        let waiting = batch.saturating_mul(frame);
        // A grid sheet encoded in strips as it is drawn (see
        // `stream::through_strips`): two strips, one drawn while the other
        // is deflated, and the rows of a band not yet complete. `rgba`: the
        // job's PNGs are plain RGBA (no palette), which strips need.
        let streamed = |job: &Job, over_frames: bool, rgba: bool| -> Option<u64> {
            if !rgba || over_frames || !crate::bake::stream::writes_sheet_only(job) {
                return None;
            }
            let atlas = grid_atlas(job, &self.clips).ok()?;
            let mut widest = 0u64;
            let mut row = 0u64;
            for (p, page) in atlas.pages.iter().enumerate() {
                if !crate::parallel_png::in_bands(page.width, page.height) {
                    return None;
                }
                let stride = page.width as u64 * 4;
                row = row.max(stride);
                for s in crate::bake::stream::strips(&atlas.frames, p) {
                    widest = widest.max((s.bottom - s.top) as u64 * stride);
                }
            }
            Some(2 * widest + crate::parallel_png::BAND as u64 + row)
        };
        let held = |job: &Job, over_frames: bool, rgba: bool| -> u64 {
            let o = &job.output;
            // A thread's animation read back (from the pages or the kept
            // boxes) while its GIF or APNG is made, and its colours.
            let animating = if o.gif.is_some() || o.apng.is_some() {
                threads.saturating_mul(longest).saturating_mul(frame * 2)
            } else {
                0
            };
            match Keep::of(job, over_frames) {
                Keep::Sheet => {
                    let pages = streamed(job, over_frames, rgba)
                        .unwrap_or_else(|| self.sheet_bytes(job).unwrap_or(all));
                    let pngs = if o.frames.is_some() { waiting } else { 0 };
                    let drawing = threads.saturating_mul(frame).saturating_add(pngs);
                    pages.saturating_add(drawing.max(animating))
                }
                Keep::Trimmed => {
                    // Before drawing, a frame's box is not known: counted
                    // whole, with the largest page one at a time (or an
                    // animation a thread), and while a palette chosen over
                    // the frames remaps them, their boxes twice.
                    let (mw, mh) = crate::bake::sheet::grid::page_limits(&job.pack);
                    let page = all.min(mw.saturating_mul(mh).saturating_mul(4));
                    let remap = if over_frames { all } else { 0 };
                    all.saturating_add(page.max(animating))
                        .saturating_add(remap)
                }
                Keep::Nothing => threads.saturating_mul(frame).saturating_add(waiting),
                Keep::Frames => {
                    let sheet = if o.sheet.is_some() { all } else { 0 };
                    let colours = if o.gif.is_some() {
                        threads.saturating_mul(longest).saturating_mul(frame)
                    } else {
                        0
                    };
                    all.saturating_add(sheet.max(colours))
                }
            }
        };
        let colour = held(
            job,
            self.look.palette_over_frames(),
            self.look.palette.is_none(),
        );
        let pass = match job.pass_outputs("pass") {
            Some(outputs) if self.look.passes.any() => {
                let mut only = job.clone();
                only.output = outputs;
                // Pass sheets are counted whole (a depth pass is not
                // plain RGBA).
                held(&only, false, false)
            }
            _ => 0,
        };
        colour.max(pass)
    }

    /// Bytes of the pages of the job's grid sheet, when it has one.
    fn sheet_bytes(&self, job: &Job) -> Option<u64> {
        let atlas = grid_atlas(job, &self.clips).ok()?;
        Some(
            atlas
                .pages
                .iter()
                .map(|p| p.width as u64 * p.height as u64 * 4)
                .sum(),
        )
    }

    /// Refuses, before anything is rendered, a job whose images would not
    /// fit in `limit` bytes; returns what they need
    /// ([`JobPlan::image_bytes`]).
    pub fn check_memory(&self, job: &Job, limit: u64) -> Result<u64> {
        let images = self.image_bytes(job);
        let need = images.saturating_add(self.decoded);
        if need <= limit {
            return Ok(need);
        }
        let what = match Keep::of(job, self.look.palette_over_frames()) {
            _ if self.sprite.is_some() => "",
            Keep::Sheet => " (drawn into their sheet)",
            Keep::Trimmed => " (each kept as its trimmed box until the sheet is packed)",
            Keep::Nothing => " (each encoded as it is drawn)",
            Keep::Frames => " (all held until the job's outputs are written)",
        };
        let (width, height) = match &self.sprite {
            Some(s) => s.canvas,
            None => (job.view.width, job.view.height),
        };
        let inputs = match (self.decoded, &self.sprite) {
            (0, _) => String::new(),
            (d, Some(_)) => format!(" beside the {} its SPR's images take", rounded_bytes(d)),
            (d, None) => format!(" beside the {} its decoded textures take", rounded_bytes(d)),
        };
        Err(Error::Other(format!(
            "its {} images of {width}x{height}{what} need {} in memory at once{inputs}, more \
             than the memory limit of {}; render fewer frames or directions or a smaller size, \
             or raise the limit (kiln bake --memory-limit)",
            self.images(),
            rounded_bytes(images),
            rounded_bytes(limit),
        )))
    }
}
