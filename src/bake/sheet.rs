//! Sprite sheets: frames laid out in a grid, one row per direction (or per
//! clip × direction) and one column per frame, every cell the full frame
//! size. Untrimmed on purpose: a fixed cell keeps the model's pivot at the
//! same pixel in every frame, which engines rely on.
//!
//! Composition is a plain row copy rather than a tiny-skia draw. Cells never
//! overlap and the sheet starts fully transparent, so source-over would give
//! exactly the source pixel anyway — but tiny-skia works in premultiplied
//! 8-bit colour, and a straight → premultiplied → straight round trip
//! changes semi-transparent pixels (e.g. (200, 100, 50, 3) comes back as
//! (170, 85, 85, 3)). Copying keeps every frame bit-exact; the test
//! `copy_matches_tiny_skia_on_premultiplied_exact_pixels` pins the
//! equivalence where tiny-skia is itself lossless.

use image::RgbaImage;

/// Largest sheet side we produce; beyond this PNG viewers and GPUs balk.
pub const MAX_SHEET_SIDE: u32 = 32768;
/// Largest sheet in pixels (1 GiB of RGBA).
pub const MAX_SHEET_PIXELS: u64 = 1 << 28;

/// A pixel rectangle in the sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

/// A grid of equal cells: `rows × columns` frames of `frame_width ×
/// frame_height`, in row-major order (row = clip × direction, clip-major;
/// column = frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SheetLayout {
    pub frame_width: u32,
    pub frame_height: u32,
    pub columns: u32,
    pub rows: u32,
}

impl SheetLayout {
    /// Checks that the sheet stays within [`MAX_SHEET_SIDE`] and
    /// [`MAX_SHEET_PIXELS`] before anything is allocated.
    pub fn new(
        frame_width: u32,
        frame_height: u32,
        columns: u32,
        rows: u32,
    ) -> Result<SheetLayout, String> {
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
        Ok(SheetLayout {
            frame_width,
            frame_height,
            columns,
            rows,
        })
    }

    pub fn width(&self) -> u32 {
        self.frame_width * self.columns
    }

    pub fn height(&self) -> u32 {
        self.frame_height * self.rows
    }

    pub fn len(&self) -> usize {
        self.columns as usize * self.rows as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

    /// Every `(row, column, cell)` in sheet order (row-major).
    pub fn cells(&self) -> impl Iterator<Item = (u32, u32, Rect)> + '_ {
        (0..self.rows).flat_map(move |r| (0..self.columns).map(move |c| (r, c, self.cell(r, c))))
    }

    /// Copies `frames` (row-major, each exactly one cell in size) into a new
    /// transparent sheet.
    pub fn compose(&self, frames: &[&RgbaImage]) -> Result<RgbaImage, String> {
        if frames.len() != self.len() {
            return Err(format!(
                "sheet of {}x{} cells given {} frames",
                self.columns,
                self.rows,
                frames.len()
            ));
        }
        let mut sheet = RgbaImage::new(self.width(), self.height());
        for ((row, col, _), frame) in self.cells().zip(frames) {
            self.copy_cell(&mut sheet, row, col, frame)?;
        }
        Ok(sheet)
    }

    /// Copies `rows[r][c]` into cell `(r, c)` of a new transparent sheet.
    /// Rows may be shorter than `columns` (clips of different lengths share a
    /// sheet); the cells past a row's end stay fully transparent.
    pub fn compose_rows(&self, rows: &[Vec<&RgbaImage>]) -> Result<RgbaImage, String> {
        if rows.len() != self.rows as usize {
            return Err(format!(
                "sheet of {} rows given {} rows of frames",
                self.rows,
                rows.len()
            ));
        }
        if let Some((r, row)) = rows
            .iter()
            .enumerate()
            .find(|(_, row)| row.len() > self.columns as usize)
        {
            return Err(format!(
                "row {r} has {} frames, more than the sheet's {} columns",
                row.len(),
                self.columns
            ));
        }
        let mut sheet = RgbaImage::new(self.width(), self.height());
        for (r, row) in rows.iter().enumerate() {
            for (c, frame) in row.iter().enumerate() {
                self.copy_cell(&mut sheet, r as u32, c as u32, frame)?;
            }
        }
        Ok(sheet)
    }

    fn copy_cell(
        &self,
        sheet: &mut RgbaImage,
        row: u32,
        col: u32,
        frame: &RgbaImage,
    ) -> Result<(), String> {
        if frame.width() != self.frame_width || frame.height() != self.frame_height {
            return Err(format!(
                "frame at row {row}, column {col} is {}x{}, expected {}x{}",
                frame.width(),
                frame.height(),
                self.frame_width,
                self.frame_height
            ));
        }
        let cell = self.cell(row, col);
        let sheet_stride = self.width() as usize * 4;
        let row_bytes = self.frame_width as usize * 4;
        let src = frame.as_raw();
        let dst: &mut [u8] = sheet;
        for y in 0..cell.h as usize {
            let d = (cell.y as usize + y) * sheet_stride + cell.x as usize * 4;
            dst[d..d + row_bytes].copy_from_slice(&src[y * row_bytes..(y + 1) * row_bytes]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(w: u32, h: u32, seed: u8) -> RgbaImage {
        RgbaImage::from_fn(w, h, |x, y| {
            let v = (x * 7 + y * 13) as u8 ^ seed;
            // Only alpha 0 or 255, with zero colour when transparent: the pixels
            // tiny-skia's premultiplied pipeline represents exactly.
            if (x + y + seed as u32).is_multiple_of(3) {
                image::Rgba([0, 0, 0, 0])
            } else {
                image::Rgba([v, v.wrapping_mul(3), seed, 255])
            }
        })
    }

    #[test]
    fn copy_matches_tiny_skia_on_premultiplied_exact_pixels() {
        let layout = SheetLayout::new(5, 4, 3, 2).unwrap();
        let frames: Vec<RgbaImage> = (0..6).map(|i| frame(5, 4, i * 40 + 1)).collect();
        let refs: Vec<&RgbaImage> = frames.iter().collect();
        let ours = layout.compose(&refs).unwrap();

        let mut pm = tiny_skia::Pixmap::new(layout.width(), layout.height()).unwrap();
        for ((_, _, cell), f) in layout.cells().zip(&frames) {
            let src = tiny_skia::Pixmap::from_vec(
                f.as_raw().clone(),
                tiny_skia::IntSize::from_wh(5, 4).unwrap(),
            )
            .unwrap();
            pm.draw_pixmap(
                cell.x as i32,
                cell.y as i32,
                src.as_ref(),
                &tiny_skia::PixmapPaint::default(),
                tiny_skia::Transform::identity(),
                None,
            );
        }
        assert_eq!(ours.as_raw(), pm.data());
    }

    #[test]
    fn tiny_skia_round_trip_would_change_semi_transparent_pixels() {
        // The reason compose() copies instead of drawing through tiny-skia.
        let c = tiny_skia::ColorU8::from_rgba(200, 100, 50, 3)
            .premultiply()
            .demultiply();
        assert_eq!((c.red(), c.green(), c.blue(), c.alpha()), (170, 85, 85, 3));
    }

    #[test]
    fn semi_transparent_pixels_survive_exactly() {
        let layout = SheetLayout::new(1, 1, 1, 1).unwrap();
        let f = RgbaImage::from_pixel(1, 1, image::Rgba([200, 100, 50, 3]));
        let s = layout.compose(&[&f]).unwrap();
        assert_eq!(s.get_pixel(0, 0).0, [200, 100, 50, 3]);
    }
}
