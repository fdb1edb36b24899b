//! Accessors: typed views of the buffers. Every component type, strides,
//! matrices with their column padding, normalised integers and sparse
//! substitution, each checked against the bytes really there before
//! anything is allocated.

use super::doc::Document;
use crate::error::{Error, Result};
use std::path::Path;

/// Most elements an accessor without a buffer view (zeros, then sparse
/// values) may declare: such a count is backed by no bytes at all.
const MAX_VIEWLESS: u64 = 1 << 22;

/// The buffers of a document, loaded, with the document.
pub(crate) struct Data<'a> {
    pub doc: &'a Document,
    /// One entry per buffer (empty where it could not be loaded).
    pub buffers: Vec<Vec<u8>>,
    pub file: &'a Path,
}

/// An accessor's elements as numbers.
pub(crate) struct Values<T> {
    /// Components per element.
    pub width: usize,
    /// `count × width` values.
    pub data: Vec<T>,
}

impl<T: Copy> Values<T> {
    /// Element `i`.
    pub fn get(&self, i: usize) -> &[T] {
        &self.data[i * self.width..(i + 1) * self.width]
    }
    /// How many elements.
    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.width).unwrap_or(0)
    }
}

fn component_size(ctype: u32) -> Option<usize> {
    match ctype {
        5120 | 5121 => Some(1),
        5122 | 5123 => Some(2),
        5125 | 5126 => Some(4),
        _ => None,
    }
}

/// Rows and columns of an accessor type (`VEC3`: 3 × 1).
pub(crate) fn shape(kind: &str) -> Option<(usize, usize)> {
    Some(match kind {
        "SCALAR" => (1, 1),
        "VEC2" => (2, 1),
        "VEC3" => (3, 1),
        "VEC4" => (4, 1),
        "MAT2" => (2, 2),
        "MAT3" => (3, 3),
        "MAT4" => (4, 4),
        _ => return None,
    })
}

/// One component as a float: normalised integers mapped as the
/// specification says (signed ones clamped at -1).
fn float_at(b: &[u8], ctype: u32, normalized: bool) -> f32 {
    match ctype {
        5126 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        5120 => {
            let v = b[0] as i8 as f32;
            if normalized {
                (v / 127.0).max(-1.0)
            } else {
                v
            }
        }
        5121 => {
            let v = b[0] as f32;
            if normalized {
                v / 255.0
            } else {
                v
            }
        }
        5122 => {
            let v = i16::from_le_bytes([b[0], b[1]]) as f32;
            if normalized {
                (v / 32767.0).max(-1.0)
            } else {
                v
            }
        }
        5123 => {
            let v = u16::from_le_bytes([b[0], b[1]]) as f32;
            if normalized {
                v / 65535.0
            } else {
                v
            }
        }
        _ => {
            let v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32;
            if normalized {
                v / 4_294_967_295.0
            } else {
                v
            }
        }
    }
}

fn int_at(b: &[u8], ctype: u32) -> u32 {
    match ctype {
        5121 | 5120 => b[0] as u32,
        5123 | 5122 => u16::from_le_bytes([b[0], b[1]]) as u32,
        _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    }
}

impl Data<'_> {
    fn err(&self, field: &str, at: u64, m: impl Into<String>) -> Error {
        Error::parse(self.file, field, at, m)
    }

    /// Buffer view `v`'s bytes and stride.
    fn view(&self, v: usize, field: &str) -> Result<(&[u8], Option<u64>)> {
        let view = self
            .doc
            .buffer_views
            .get(v)
            .ok_or_else(|| self.err(field, 0, format!("bufferView {v} does not exist")))?;
        let buf = self.buffers.get(view.buffer).ok_or_else(|| {
            self.err(
                &format!("bufferViews[{v}].buffer"),
                0,
                format!("buffer {} does not exist", view.buffer),
            )
        })?;
        let end = view.byte_offset.checked_add(view.byte_length);
        match end {
            Some(end) if end <= buf.len() as u64 => Ok((
                &buf[view.byte_offset as usize..end as usize],
                view.byte_stride,
            )),
            _ => Err(self.err(
                &format!("bufferViews[{v}]"),
                view.byte_offset,
                format!(
                    "bytes {}..+{} run past buffer {} ({} bytes loaded)",
                    view.byte_offset,
                    view.byte_length,
                    view.buffer,
                    buf.len()
                ),
            )),
        }
    }

    /// The bytes of accessor `i`'s elements: for each element, the start of
    /// each of its columns.
    fn layout(&self, i: usize) -> Result<Layout<'_>> {
        let field = format!("accessors[{i}]");
        let a = self
            .doc
            .accessors
            .get(i)
            .ok_or_else(|| self.err(&field, 0, format!("accessor {i} does not exist")))?;
        let csize = component_size(a.component_type).ok_or_else(|| {
            self.err(
                &format!("{field}.componentType"),
                0,
                format!("unknown component type {}", a.component_type),
            )
        })?;
        let (rows, cols) = shape(&a.kind).ok_or_else(|| {
            self.err(
                &format!("{field}.type"),
                0,
                format!("unknown type {:?}", a.kind),
            )
        })?;
        // Matrix columns start on 4-byte boundaries.
        let col_stride = if cols > 1 {
            (rows * csize).div_ceil(4) * 4
        } else {
            rows * csize
        };
        let elem = col_stride * cols;
        let count = a.count;
        let mut bytes: &[u8] = &[];
        let mut stride = elem as u64;
        match a.buffer_view {
            Some(v) => {
                let (b, s) = self.view(v, &format!("{field}.bufferView"))?;
                if let Some(s) = s {
                    if s < elem as u64 {
                        return Err(self.err(
                            &format!("bufferViews[{v}].byteStride"),
                            0,
                            format!("stride {s} is less than the {elem}-byte element"),
                        ));
                    }
                    stride = s;
                }
                let need = if count == 0 {
                    0
                } else {
                    (count - 1)
                        .checked_mul(stride)
                        .and_then(|x| x.checked_add(a.byte_offset + elem as u64))
                        .unwrap_or(u64::MAX)
                };
                if need > b.len() as u64 {
                    return Err(self.err(
                        &format!("{field}.count"),
                        a.byte_offset,
                        format!(
                            "{count} elements of {elem} bytes (stride {stride}) from byte {} need {need} bytes; bufferView {v} holds {}",
                            a.byte_offset,
                            b.len()
                        ),
                    ));
                }
                bytes = &b[a.byte_offset.min(b.len() as u64) as usize..];
            }
            None => {
                if count.saturating_mul((rows * cols) as u64) > MAX_VIEWLESS {
                    return Err(self.err(
                        &format!("{field}.count"),
                        0,
                        format!("{count} elements with no bufferView behind them"),
                    ));
                }
            }
        }
        Ok(Layout {
            bytes,
            stride: stride as usize,
            col_stride,
            csize,
            rows,
            cols,
            count: count as usize,
            ctype: a.component_type,
            normalized: a.normalized,
            viewless: a.buffer_view.is_none(),
        })
    }

    /// Accessor `i` as floats (normalised integers mapped to 0..1 or -1..1).
    pub fn floats(&self, i: usize) -> Result<Values<f32>> {
        let l = self.layout(i)?;
        let mut data = Vec::with_capacity(l.count * l.rows * l.cols);
        for e in 0..l.count {
            for c in 0..l.cols {
                for r in 0..l.rows {
                    if l.viewless {
                        data.push(0.0);
                    } else {
                        let at = e * l.stride + c * l.col_stride + r * l.csize;
                        data.push(float_at(&l.bytes[at..], l.ctype, l.normalized));
                    }
                }
            }
        }
        let width = l.rows * l.cols;
        self.sparse(i, width, &mut data, |b, ct| float_at(b, ct, l.normalized))?;
        Ok(Values { width, data })
    }

    /// Accessor `i` as unsigned integers (indices, joints).
    pub fn ints(&self, i: usize) -> Result<Values<u32>> {
        let l = self.layout(i)?;
        if l.ctype == 5126 {
            return Err(self.err(
                &format!("accessors[{i}].componentType"),
                0,
                "floats where integers are required",
            ));
        }
        let mut data = Vec::with_capacity(l.count * l.rows * l.cols);
        for e in 0..l.count {
            for c in 0..l.cols {
                for r in 0..l.rows {
                    if l.viewless {
                        data.push(0);
                    } else {
                        let at = e * l.stride + c * l.col_stride + r * l.csize;
                        data.push(int_at(&l.bytes[at..], l.ctype));
                    }
                }
            }
        }
        let width = l.rows * l.cols;
        self.sparse(i, width, &mut data, int_at)?;
        Ok(Values { width, data })
    }

    /// Applies accessor `i`'s sparse substitution to `data`.
    fn sparse<T: Copy>(
        &self,
        i: usize,
        width: usize,
        data: &mut [T],
        read: impl Fn(&[u8], u32) -> T,
    ) -> Result<()> {
        let a = &self.doc.accessors[i];
        let Some(s) = &a.sparse else {
            return Ok(());
        };
        let field = format!("accessors[{i}].sparse");
        let count = data.len() / width.max(1);
        if s.count > count as u64 {
            return Err(self.err(
                &format!("{field}.count"),
                0,
                format!("{} substitutions for {count} elements", s.count),
            ));
        }
        let n = s.count as usize;
        let isize = component_size(s.indices.component_type)
            .filter(|_| matches!(s.indices.component_type, 5121 | 5123 | 5125))
            .ok_or_else(|| {
                self.err(
                    &format!("{field}.indices.componentType"),
                    0,
                    format!("index type {}", s.indices.component_type),
                )
            })?;
        let (ib, _) = self.view(s.indices.buffer_view, &format!("{field}.indices"))?;
        let ib = ib
            .get(s.indices.byte_offset as usize..)
            .filter(|b| b.len() >= n * isize)
            .ok_or_else(|| {
                self.err(
                    &format!("{field}.indices"),
                    s.indices.byte_offset,
                    "runs past its bufferView",
                )
            })?;
        let csize = component_size(a.component_type).unwrap_or(4);
        let (vb, _) = self.view(s.values.buffer_view, &format!("{field}.values"))?;
        let vb = vb
            .get(s.values.byte_offset as usize..)
            .filter(|b| b.len() >= n * width * csize)
            .ok_or_else(|| {
                self.err(
                    &format!("{field}.values"),
                    s.values.byte_offset,
                    "runs past its bufferView",
                )
            })?;
        for k in 0..n {
            let target = int_at(&ib[k * isize..], s.indices.component_type) as usize;
            if target >= count {
                return Err(self.err(
                    &format!("{field}.indices[{k}]"),
                    s.indices.byte_offset + (k * isize) as u64,
                    format!("index {target} of {count} elements"),
                ));
            }
            for c in 0..width {
                data[target * width + c] = read(&vb[(k * width + c) * csize..], a.component_type);
            }
        }
        Ok(())
    }
}

struct Layout<'a> {
    bytes: &'a [u8],
    stride: usize,
    col_stride: usize,
    csize: usize,
    rows: usize,
    cols: usize,
    count: usize,
    ctype: u32,
    normalized: bool,
    viewless: bool,
}
