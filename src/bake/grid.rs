//! The grid atlas: one page, one row per clip × direction (clip-major), one
//! column per frame, every cell the full frame size. Untrimmed on purpose: a
//! fixed cell keeps the model's pivot at the same pixel in every frame,
//! which engines rely on. A clip shorter than the longest leaves the rest of
//! its rows transparent, and those cells are not frames of the atlas.

use super::atlas::{Atlas, AtlasFrame, AtlasJob, Page, Rect};

/// Largest sheet side we produce; beyond this PNG viewers and GPUs balk.
pub const MAX_SHEET_SIDE: u32 = 32768;
/// Largest sheet in pixels (1 GiB of RGBA).
pub const MAX_SHEET_PIXELS: u64 = 1 << 28;

/// A grid of equal cells: `rows × columns` frames of `frame_width ×
/// frame_height`, in row-major order (row = clip × direction, clip-major;
/// column = frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridLayout {
    pub frame_width: u32,
    pub frame_height: u32,
    pub columns: u32,
    pub rows: u32,
}

impl GridLayout {
    /// Checks that the sheet stays within [`MAX_SHEET_SIDE`] and
    /// [`MAX_SHEET_PIXELS`] before anything is allocated.
    pub fn new(
        frame_width: u32,
        frame_height: u32,
        columns: u32,
        rows: u32,
    ) -> Result<GridLayout, String> {
        if frame_width == 0 || frame_height == 0 || columns == 0 || rows == 0 {
            return Err(format!(
                "empty sheet: {columns}x{rows} frames of {frame_width}x{frame_height}"
            ));
        }
        let w = frame_width as u64 * columns as u64;
        let h = frame_height as u64 * rows as u64;
        if w > MAX_SHEET_SIDE as u64 || h > MAX_SHEET_SIDE as u64 || w * h > MAX_SHEET_PIXELS {
            return Err(format!(
                "sheet of {columns}x{rows} frames of {frame_width}x{frame_height} would be {w}x{h} pixels, \
                 over the limit of {MAX_SHEET_SIDE} per side and {MAX_SHEET_PIXELS} pixels; \
                 use fewer frames or directions, or a smaller size"
            ));
        }
        Ok(GridLayout {
            frame_width,
            frame_height,
            columns,
            rows,
        })
    }

    /// The grid of clips with `clip_frames[c]` frames each, seen from
    /// `directions` directions: as many columns as the longest clip has
    /// frames, one row per clip × direction. Counts past `u32::MAX` are
    /// refused as an oversized sheet.
    pub fn for_clips(
        frame_width: u32,
        frame_height: u32,
        clip_frames: &[usize],
        directions: usize,
    ) -> Result<GridLayout, String> {
        let longest = clip_frames.iter().copied().max().unwrap_or(0);
        let rows = clip_frames.len().saturating_mul(directions);
        GridLayout::new(
            frame_width,
            frame_height,
            u32::try_from(longest).unwrap_or(u32::MAX),
            u32::try_from(rows).unwrap_or(u32::MAX),
        )
    }

    pub fn width(&self) -> u32 {
        self.frame_width * self.columns
    }

    pub fn height(&self) -> u32 {
        self.frame_height * self.rows
    }

    /// The cell of `(row, column)`.
    pub fn cell(&self, row: u32, column: u32) -> Rect {
        Rect {
            x: column * self.frame_width,
            y: row * self.frame_height,
            w: self.frame_width,
            h: self.frame_height,
        }
    }

    /// The atlas of `job` on this grid: frame `f` of clip `c` seen from
    /// direction `d` fills cell `(c × directions + d, f)` whole. Frames past
    /// the last column are left out.
    pub fn atlas(&self, job: &AtlasJob<'_>, pivot: [f32; 2]) -> Atlas {
        let n_dirs = job.directions.len();
        let mut frames = Vec::new();
        for (c, clip) in job.clips.iter().enumerate() {
            let duration_ms = super::atlas::duration_ms(clip.frame_seconds);
            for d in 0..n_dirs {
                let row = (c * n_dirs + d) as u32;
                for col in 0..clip.frames.min(self.columns) {
                    let rect = self.cell(row, col);
                    frames.push(AtlasFrame {
                        name: job.frame_name(c, d, col as usize),
                        clip: c,
                        direction: d,
                        frame: col as usize,
                        page: 0,
                        rect,
                        source: Rect { x: 0, y: 0, ..rect },
                        source_size: (self.frame_width, self.frame_height),
                        pivot,
                        duration_ms,
                    });
                }
            }
        }
        Atlas {
            pages: vec![Page {
                width: self.width(),
                height: self.height(),
            }],
            tags: Atlas::tag_runs(&frames, job),
            frames,
        }
    }
}

/// The grid atlas of `job`'s clips in frames of `frame_width ×
/// frame_height`, sized by [`GridLayout::for_clips`].
pub fn atlas(
    job: &AtlasJob<'_>,
    frame_width: u32,
    frame_height: u32,
    pivot: [f32; 2],
) -> Result<Atlas, String> {
    let lengths: Vec<usize> = job.clips.iter().map(|c| c.frames as usize).collect();
    let layout = GridLayout::for_clips(frame_width, frame_height, &lengths, job.directions.len())?;
    Ok(layout.atlas(job, pivot))
}
