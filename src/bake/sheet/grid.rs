//! The grid atlas: one row per clip × direction (clip-major), one column
//! per frame, every cell the full frame size. Untrimmed on purpose: a fixed
//! cell keeps the model's pivot at the same pixel in every frame, which
//! engines rely on, and a grid is what people slice by hand. A clip shorter
//! than the longest leaves the rest of its rows transparent, and those
//! cells are not frames of the atlas.
//!
//! [`paged_atlas`] is the grid with the `pack:` settings: cells spaced by
//! padding and extrusion, and rows that do not fit `max_size` continuing
//! on the next page — whole rows, so every clip × direction stays on one
//! page.

use crate::bake::recipe::PackSpec;
use crate::bake::sheet::atlas::{Atlas, AtlasFrame, AtlasJob, Page, Rect};

/// Largest sheet side we produce; beyond this PNG viewers and GPUs balk.
pub const MAX_SHEET_SIDE: u32 = 32768;
/// Largest sheet in pixels (1 GiB of RGBA).
pub const MAX_SHEET_PIXELS: u64 = 1 << 28;

/// A grid of equal cells: `rows × columns` frames of `frame_width ×
/// frame_height`, in row-major order (row = clip × direction, clip-major;
/// column = frame), each cell surrounded by `extrude` pixels of its own
/// edge and `padding` transparent pixels from the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridLayout {
    /// A cell's width, pixels.
    pub frame_width: u32,
    /// A cell's height, pixels.
    pub frame_height: u32,
    /// Cells a row (frames of the longest clip).
    pub columns: u32,
    /// Rows (clips × directions).
    pub rows: u32,
    /// Edge pixels repeated around each cell.
    pub extrude: u32,
    /// Transparent pixels between cells.
    pub padding: u32,
}

impl GridLayout {
    /// A grid without spacing; see [`GridLayout::spaced`].
    pub fn new(
        frame_width: u32,
        frame_height: u32,
        columns: u32,
        rows: u32,
    ) -> Result<GridLayout, String> {
        GridLayout::spaced(frame_width, frame_height, columns, rows, 0, 0)
    }

    /// Checks that the sheet stays within [`MAX_SHEET_SIDE`] and
    /// [`MAX_SHEET_PIXELS`] before anything is allocated.
    pub fn spaced(
        frame_width: u32,
        frame_height: u32,
        columns: u32,
        rows: u32,
        extrude: u32,
        padding: u32,
    ) -> Result<GridLayout, String> {
        if frame_width == 0 || frame_height == 0 || columns == 0 || rows == 0 {
            return Err(format!(
                "empty sheet: {columns}x{rows} frames of {frame_width}x{frame_height}"
            ));
        }
        let layout = GridLayout {
            frame_width,
            frame_height,
            columns,
            rows,
            extrude,
            padding,
        };
        let (w, h) = (layout.width_u64(), layout.height_u64());
        if w > MAX_SHEET_SIDE as u64 || h > MAX_SHEET_SIDE as u64 || w * h > MAX_SHEET_PIXELS {
            return Err(format!(
                "sheet of {columns}x{rows} frames of {frame_width}x{frame_height} would be {w}x{h} pixels, \
                 over the limit of {MAX_SHEET_SIDE} per side and {MAX_SHEET_PIXELS} pixels; \
                 use fewer frames or directions, or a smaller size"
            ));
        }
        Ok(layout)
    }

    /// Distance from one cell to the next, across and down.
    fn pitch(&self) -> (u64, u64) {
        let s = 2 * self.extrude as u64 + self.padding as u64;
        (self.frame_width as u64 + s, self.frame_height as u64 + s)
    }

    // The last column and row need no padding after them.
    fn width_u64(&self) -> u64 {
        self.columns as u64 * self.pitch().0 - self.padding as u64
    }

    fn height_u64(&self) -> u64 {
        self.rows as u64 * self.pitch().1 - self.padding as u64
    }

    /// The sheet's width, pixels.
    pub fn width(&self) -> u32 {
        self.width_u64() as u32
    }

    /// The sheet's height, pixels.
    pub fn height(&self) -> u32 {
        self.height_u64() as u32
    }

    /// The cell of `(row, column)`: the frame's own pixels, inside its
    /// extrusion.
    pub fn cell(&self, row: u32, column: u32) -> Rect {
        let (pw, ph) = self.pitch();
        Rect {
            x: (column as u64 * pw) as u32 + self.extrude,
            y: (row as u64 * ph) as u32 + self.extrude,
            w: self.frame_width,
            h: self.frame_height,
        }
    }

    /// The atlas of `job` on this grid: frame `f` of clip `c` seen from
    /// direction `d` fills cell `(c × directions + d, f)` whole. Frames past
    /// the last column are left out.
    pub fn atlas(&self, job: &AtlasJob<'_>, pivot: [f32; 2]) -> Atlas {
        let mut frames = Vec::new();
        self.place_rows(job, pivot, 0, 0, &mut frames);
        Atlas {
            pages: vec![Page {
                width: self.width(),
                height: self.height(),
            }],
            tags: Atlas::tag_runs(&frames, job),
            frames,
        }
    }

    /// Places this grid's rows — the job's rows `first_row ..` — on page
    /// `page`, appending their frames in sheet order.
    fn place_rows(
        &self,
        job: &AtlasJob<'_>,
        pivot: [f32; 2],
        first_row: usize,
        page: usize,
        frames: &mut Vec<AtlasFrame>,
    ) {
        let n_dirs = job.directions.len();
        let rows = first_row..first_row + self.rows as usize;
        for (c, clip) in job.clips.iter().enumerate() {
            let duration_ms = crate::bake::sheet::atlas::duration_ms(clip.frame_seconds);
            for d in 0..n_dirs {
                let row = c * n_dirs + d;
                if !rows.contains(&row) {
                    continue;
                }
                for col in 0..clip.frames.min(self.columns) {
                    let rect = self.cell((row - first_row) as u32, col);
                    frames.push(AtlasFrame {
                        name: job.frame_name(c, d, col as usize),
                        clip: c,
                        direction: d,
                        frame: col as usize,
                        page,
                        rect,
                        source: Rect { x: 0, y: 0, ..rect },
                        source_size: (self.frame_width, self.frame_height),
                        pivot,
                        duration_ms,
                        root_motion: None,
                    });
                }
            }
        }
    }
}

/// The grid atlas of `job` laid out by `pack`: cells spaced by its padding
/// and extrusion, as many whole rows per page as `max_size` (and
/// [`MAX_SHEET_PIXELS`]) allow, so every clip × direction stays on one
/// page. Without spacing and on one page this is [`GridLayout::atlas`] of
/// the whole job. A row wider than `max_size` is refused.
pub fn paged_atlas(
    job: &AtlasJob<'_>,
    frame_width: u32,
    frame_height: u32,
    pivot: [f32; 2],
    pack: &PackSpec,
) -> Result<Atlas, String> {
    let columns = job.clips.iter().map(|c| c.frames).max().unwrap_or(0);
    let rows = job.clips.len().saturating_mul(job.directions.len());
    let (e, p) = (pack.extrude, pack.padding);
    // One row alone: its size says whether any page can hold it.
    let row = GridLayout::spaced(frame_width, frame_height, columns, 1, e, p)?;
    let (max_w, max_h) = page_limits(pack);
    if row.width() as u64 > max_w || row.height() as u64 > max_h {
        return Err(format!(
            "a grid row of {columns} frames of {frame_width}x{frame_height} (with spacing) is \
             {}x{} pixels, more than the page's max_size {max_w}x{max_h}; use \
             `pack: {{ layout: packed }}`, fewer frames or a smaller size",
            row.width(),
            row.height()
        ));
    }
    let pitch_h = row.pitch().1;
    // Rounding up to powers of two can double each side of a page.
    let budget = if pack.power_of_two {
        MAX_SHEET_PIXELS / 4
    } else {
        MAX_SHEET_PIXELS
    };
    let by_side = (max_h + p as u64) / pitch_h;
    let by_pixels = budget / (row.width() as u64 * pitch_h);
    let per_page = by_side.min(by_pixels).max(1) as usize;
    let round = |p: Page| {
        if pack.power_of_two {
            Page {
                width: p.width.next_power_of_two(),
                height: p.height.next_power_of_two(),
            }
        } else {
            p
        }
    };
    if rows <= per_page {
        let layout = GridLayout::spaced(frame_width, frame_height, columns, rows as u32, e, p)?;
        let mut atlas = layout.atlas(job, pivot);
        atlas.pages = atlas.pages.into_iter().map(round).collect();
        return Ok(atlas);
    }
    let mut frames = Vec::new();
    let mut pages = Vec::new();
    for (page, first) in (0..rows).step_by(per_page).enumerate() {
        let here = (rows - first).min(per_page) as u32;
        let layout = GridLayout::spaced(frame_width, frame_height, columns, here, e, p)?;
        layout.place_rows(job, pivot, first, page, &mut frames);
        pages.push(round(Page {
            width: layout.width(),
            height: layout.height(),
        }));
    }
    Ok(Atlas {
        pages,
        tags: Atlas::tag_runs(&frames, job),
        frames,
    })
}

/// The largest page `pack` allows, as `(width, height)`: `max_size`, cut to
/// powers of two when pages are rounded up to them, so rounding never
/// passes the limit.
pub fn page_limits(pack: &PackSpec) -> (u64, u64) {
    let fit = |v: u32| {
        if pack.power_of_two {
            1u64 << (31 - v.max(1).leading_zeros())
        } else {
            v as u64
        }
    };
    (fit(pack.max_size.0), fit(pack.max_size.1))
}
