//! A bounded little-endian reader that knows its file name and offset.
//!
//! Every read checks the bytes left; every count is checked against the bytes
//! left before anything is allocated, so hostile counts (2³¹ vertices in a
//! 600-byte file) fail fast with the field name and offset instead of
//! allocating gigabytes.

use crate::error::ParseError;
use glam::{Quat, Vec2, Vec3};
use std::path::{Path, PathBuf};

/// Reads little-endian values from a byte slice, tracking the offset and the
/// file name so every error can say where it happened.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    file: PathBuf,
}

impl<'a> Reader<'a> {
    /// A reader at offset 0 of `data`; `file` only names the source in errors.
    pub fn new(data: &'a [u8], file: &Path) -> Self {
        Reader {
            data,
            pos: 0,
            file: file.to_path_buf(),
        }
    }

    /// The file name given to [`Reader::new`].
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The current byte offset from the start of the data.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Total length of the data in bytes, read or not.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the data is empty (not whether everything has been read; see
    /// [`at_end`](Self::at_end)).
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Bytes left after the current offset.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Whether every byte has been read.
    pub fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// Moves to an absolute offset (must be within the data).
    pub fn seek(&mut self, pos: usize, field: &str) -> Result<(), ParseError> {
        if pos > self.data.len() {
            return Err(self.error_at(
                self.pos,
                field,
                format!("seek to {pos} past the end ({} bytes)", self.data.len()),
            ));
        }
        self.pos = pos;
        Ok(())
    }

    /// An error at the current offset.
    pub fn error(&self, field: &str, message: impl Into<String>) -> ParseError {
        self.error_at(self.pos, field, message)
    }

    /// An error at the given byte offset.
    pub fn error_at(&self, offset: usize, field: &str, message: impl Into<String>) -> ParseError {
        ParseError {
            file: self.file.clone(),
            field: field.to_string(),
            offset: offset as u64,
            message: message.into(),
        }
    }

    /// The next `n` bytes, borrowed from the data.
    pub fn bytes(&mut self, n: usize, field: &str) -> Result<&'a [u8], ParseError> {
        if n > self.remaining() {
            return Err(self.error(
                field,
                format!(
                    "needs {n} bytes but the file ends after {}",
                    self.remaining()
                ),
            ));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Skips `n` bytes; fails if fewer are left.
    pub fn skip(&mut self, n: usize, field: &str) -> Result<(), ParseError> {
        self.bytes(n, field).map(|_| ())
    }

    fn array<const N: usize>(&mut self, field: &str) -> Result<[u8; N], ParseError> {
        let b = self.bytes(N, field)?;
        let mut a = [0u8; N];
        a.copy_from_slice(b);
        Ok(a)
    }

    /// An unsigned byte.
    pub fn u8(&mut self, field: &str) -> Result<u8, ParseError> {
        Ok(self.array::<1>(field)?[0])
    }
    /// A signed byte.
    pub fn i8(&mut self, field: &str) -> Result<i8, ParseError> {
        Ok(self.array::<1>(field)?[0] as i8)
    }
    /// A little-endian `u16`.
    pub fn u16(&mut self, field: &str) -> Result<u16, ParseError> {
        Ok(u16::from_le_bytes(self.array(field)?))
    }
    /// A little-endian `i16`.
    pub fn i16(&mut self, field: &str) -> Result<i16, ParseError> {
        Ok(i16::from_le_bytes(self.array(field)?))
    }
    /// A little-endian `u32`.
    pub fn u32(&mut self, field: &str) -> Result<u32, ParseError> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }
    /// A little-endian `i32`.
    pub fn i32(&mut self, field: &str) -> Result<i32, ParseError> {
        Ok(i32::from_le_bytes(self.array(field)?))
    }
    /// A little-endian IEEE `f32`.
    pub fn f32(&mut self, field: &str) -> Result<f32, ParseError> {
        Ok(f32::from_le_bytes(self.array(field)?))
    }
    /// Two `f32`s as x, y.
    pub fn vec2(&mut self, field: &str) -> Result<Vec2, ParseError> {
        let a: [u8; 8] = self.array(field)?;
        Ok(Vec2::new(f(&a[0..4]), f(&a[4..8])))
    }
    /// Three `f32`s as x, y, z.
    pub fn vec3(&mut self, field: &str) -> Result<Vec3, ParseError> {
        let a: [u8; 12] = self.array(field)?;
        Ok(Vec3::new(f(&a[0..4]), f(&a[4..8]), f(&a[8..12])))
    }
    /// Quaternion stored as x, y, z, w.
    pub fn quat_xyzw(&mut self, field: &str) -> Result<Quat, ParseError> {
        let a: [u8; 16] = self.array(field)?;
        Ok(Quat::from_xyzw(
            f(&a[0..4]),
            f(&a[4..8]),
            f(&a[8..12]),
            f(&a[12..16]),
        ))
    }
    /// `N` consecutive `f32`s (matrices, key records).
    pub fn f32s<const N: usize>(&mut self, field: &str) -> Result<[f32; N], ParseError> {
        let b = self.bytes(N * 4, field)?;
        let mut out = [0f32; N];
        for (i, o) in out.iter_mut().enumerate() {
            *o = f(&b[i * 4..i * 4 + 4]);
        }
        Ok(out)
    }

    /// A fixed-size, NUL-padded name; returns the bytes before the first NUL.
    pub fn fixed_name(&mut self, n: usize, field: &str) -> Result<Vec<u8>, ParseError> {
        Ok(crate::text::until_nul(self.bytes(n, field)?).to_vec())
    }

    /// An `i32 length + bytes` string (RSM2, Grimrock); returns the bytes before
    /// the first NUL, so trailing NUL padding is dropped.
    pub fn len_name(&mut self, field: &str) -> Result<Vec<u8>, ParseError> {
        let start = self.pos;
        let n = self.i32(field)?;
        if n < 0 || n as usize > self.remaining() {
            return Err(self.error_at(
                start,
                field,
                format!(
                    "string length {n} does not fit in the {} bytes left",
                    self.remaining()
                ),
            ));
        }
        Ok(crate::text::until_nul(self.bytes(n as usize, field)?).to_vec())
    }

    /// A NUL-terminated string (Arma).
    pub fn asciiz(&mut self, field: &str) -> Result<Vec<u8>, ParseError> {
        let rest = &self.data[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(n) => {
                let s = rest[..n].to_vec();
                self.pos += n + 1;
                Ok(s)
            }
            None => Err(self.error(
                field,
                "string has no terminating NUL before the end of the file",
            )),
        }
    }

    /// Reads an `i32` element count and checks that `count × min_elem_size`
    /// bytes are still left, so a hostile count can never drive an allocation.
    pub fn count_i32(&mut self, field: &str, min_elem_size: usize) -> Result<usize, ParseError> {
        let start = self.pos;
        let n = self.i32(field)?;
        if n < 0 {
            return Err(self.error_at(start, field, format!("negative count {n}")));
        }
        self.check_count(start, field, n as u64, min_elem_size)
    }

    /// As [`count_i32`](Self::count_i32) for an unsigned count.
    pub fn count_u32(&mut self, field: &str, min_elem_size: usize) -> Result<usize, ParseError> {
        let start = self.pos;
        let n = self.u32(field)?;
        self.check_count(start, field, n as u64, min_elem_size)
    }

    /// Checks an element count read elsewhere against the bytes left.
    pub fn check_count(
        &self,
        count_offset: usize,
        field: &str,
        n: u64,
        min_elem_size: usize,
    ) -> Result<usize, ParseError> {
        let need = n.saturating_mul(min_elem_size.max(1) as u64);
        if need > self.remaining() as u64 {
            return Err(self.error_at(
                count_offset,
                field,
                format!(
                    "count {n} needs at least {need} bytes but only {} are left",
                    self.remaining()
                ),
            ));
        }
        Ok(n as usize)
    }
}

fn f(b: &[u8]) -> f32 {
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Little-endian writer used by kiln's own format writers (sample models, tests).
#[derive(Default)]
pub struct Writer {
    /// The bytes written so far.
    pub buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }
    /// The bytes written.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
    /// Appends raw bytes.
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(b);
        self
    }
    /// An unsigned byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.bytes(&[v])
    }
    /// A little-endian `u16`.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.bytes(&v.to_le_bytes())
    }
    /// A little-endian `i16`.
    pub fn i16(&mut self, v: i16) -> &mut Self {
        self.bytes(&v.to_le_bytes())
    }
    /// A little-endian `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.bytes(&v.to_le_bytes())
    }
    /// A little-endian `i32`.
    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.bytes(&v.to_le_bytes())
    }
    /// A little-endian IEEE `f32`.
    pub fn f32(&mut self, v: f32) -> &mut Self {
        self.bytes(&v.to_le_bytes())
    }
    /// Three `f32`s as x, y, z.
    pub fn vec3(&mut self, v: Vec3) -> &mut Self {
        self.f32(v.x).f32(v.y).f32(v.z)
    }
    /// A quaternion as four `f32`s x, y, z, w.
    pub fn quat_xyzw(&mut self, q: Quat) -> &mut Self {
        self.f32(q.x).f32(q.y).f32(q.z).f32(q.w)
    }
    /// A NUL-padded fixed-size name; longer names are cut to `n - 1` bytes.
    pub fn fixed_name(&mut self, name: &[u8], n: usize) -> &mut Self {
        let len = name.len().min(n.saturating_sub(1));
        self.bytes(&name[..len]);
        self.bytes(&vec![0u8; n - len])
    }
    /// `i32 length + bytes`.
    pub fn len_name(&mut self, name: &[u8]) -> &mut Self {
        self.i32(name.len() as i32).bytes(name)
    }
    /// The bytes followed by a NUL (Arma).
    pub fn asciiz(&mut self, name: &[u8]) -> &mut Self {
        self.bytes(name).u8(0)
    }
}
