//! kiln's GRF writer: every version kiln reads, entries compressed or
//! stored, encrypted "mixed" or "header" or not, written straight to the
//! output as they are added (only the table is kept in memory), so a
//! multi-gigabyte archive can be written with little memory.

use super::{des, GrfVersion, FLAG_FILE, FLAG_HEADER, FLAG_MIXED, HEADER_SIZE, MAGIC};
use super::{V1_ALIGNED_BIAS, V1_COMPRESSED_BIAS};
use crate::source::zlib::deflate;
use std::io::{Seek, SeekFrom, Write};

/// How one entry is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOptions {
    /// zlib-compress it (0x102/0x103 entries are always compressed).
    pub compress: bool,
    /// Table flag bits beyond "file": [`FLAG_MIXED`] or [`FLAG_HEADER`].
    /// In 0x102/0x103 the extension decides and this is ignored.
    pub encryption: u8,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            compress: true,
            encryption: 0,
        }
    }
}

impl WriteOptions {
    /// Compressed, "mixed" DES.
    pub const MIXED: WriteOptions = WriteOptions {
        compress: true,
        encryption: FLAG_MIXED,
    };
    /// Compressed, DES on the first 20 blocks.
    pub const HEADER: WriteOptions = WriteOptions {
        compress: true,
        encryption: FLAG_HEADER,
    };
    /// Stored as is.
    pub const STORED: WriteOptions = WriteOptions {
        compress: false,
        encryption: 0,
    };
}

struct TableRow {
    name: Vec<u8>,
    compressed: u64,
    aligned: u64,
    real: u64,
    flags: u8,
    /// From byte 46.
    offset: u64,
}

/// Writes a GRF to `out`, entry by entry.
pub struct GrfWriter<W: Write + Seek> {
    out: W,
    version: GrfVersion,
    rows: Vec<TableRow>,
    /// Where the next entry goes, from byte 46.
    next: u64,
    encrypted: bool,
}

impl<W: Write + Seek> GrfWriter<W> {
    /// Starts an archive of `version` (the header is written by
    /// [`finish`](Self::finish)).
    pub fn new(mut out: W, version: GrfVersion) -> std::io::Result<Self> {
        out.seek(SeekFrom::Start(0))?;
        out.write_all(&[0u8; HEADER_SIZE as usize])?;
        Ok(GrfWriter {
            out,
            version,
            rows: Vec::new(),
            next: 0,
            encrypted: false,
        })
    }

    /// Adds the file `name` (CP949 bytes, `\` between folders).
    pub fn add(&mut self, name: &[u8], data: &[u8], options: WriteOptions) -> std::io::Result<()> {
        let compress = options.compress || self.version.is_v1();
        let mut body = if compress {
            deflate(data)
        } else {
            data.to_vec()
        };
        let compressed = body.len() as u64;
        let encryption = if self.version.is_v1() {
            if super::header_only_by_name(name) {
                FLAG_HEADER
            } else {
                FLAG_MIXED
            }
        } else {
            options.encryption & (FLAG_MIXED | FLAG_HEADER)
        };
        let aligned = compressed.div_ceil(8) * 8;
        body.resize(aligned as usize, 0);
        if encryption & FLAG_MIXED != 0 {
            des::encrypt_mixed(&mut body, compressed);
        } else if encryption & FLAG_HEADER != 0 {
            des::crypt_header(&mut body);
        }
        self.encrypted |= encryption != 0;
        self.out.write_all(&body)?;
        let flags = if self.version.is_v1() {
            // 0x102/0x103 rows carry only the "file" bit; readers derive
            // the encryption from the extension.
            FLAG_FILE
        } else {
            FLAG_FILE | encryption
        };
        self.rows.push(TableRow {
            name: name.to_vec(),
            compressed,
            aligned,
            real: data.len() as u64,
            flags,
            offset: self.next,
        });
        self.next += aligned;
        Ok(())
    }

    /// Adds a folder row (flags 0), as Gravity's tools write for folders.
    pub fn add_folder(&mut self, name: &[u8]) {
        self.rows.push(TableRow {
            name: name.to_vec(),
            compressed: 0,
            aligned: 0,
            real: 0,
            flags: 0,
            offset: 0,
        });
    }

    /// Writes the table and the header; returns the output.
    pub fn finish(mut self) -> std::io::Result<W> {
        let table_offset = self.next;
        let count = self.rows.len() as u64;
        if self.version.is_v1() {
            for r in &self.rows {
                let name = des::encode_name(&r.name);
                let n = name.len() as u32 + 6;
                self.out.write_all(&n.to_le_bytes())?;
                self.out.write_all(&[0, 0])?;
                self.out.write_all(&name)?;
                self.out.write_all(&[0; 4])?;
                let fields = [
                    (r.compressed + r.real + V1_COMPRESSED_BIAS) as u32,
                    (r.aligned + V1_ALIGNED_BIAS) as u32,
                    r.real as u32,
                ];
                for f in fields {
                    self.out.write_all(&f.to_le_bytes())?;
                }
                self.out.write_all(&[r.flags])?;
                self.out.write_all(&(r.offset as u32).to_le_bytes())?;
            }
        } else {
            let v300 = self.version == GrfVersion::V300;
            let mut table = Vec::new();
            for r in &self.rows {
                table.extend_from_slice(&r.name);
                table.push(0);
                for f in [r.compressed, r.aligned, r.real] {
                    table.extend_from_slice(&(f as u32).to_le_bytes());
                }
                table.push(r.flags);
                if v300 {
                    table.extend_from_slice(&r.offset.to_le_bytes());
                } else {
                    table.extend_from_slice(&(r.offset as u32).to_le_bytes());
                }
            }
            let packed = deflate(&table);
            if v300 {
                self.out.write_all(&[0; 4])?;
            }
            self.out.write_all(&(packed.len() as u32).to_le_bytes())?;
            self.out.write_all(&(table.len() as u32).to_le_bytes())?;
            self.out.write_all(&packed)?;
        }
        let mut header = Vec::with_capacity(HEADER_SIZE as usize);
        header.extend_from_slice(MAGIC);
        header.push(0);
        // 0x01..0x0E where encryption is in use, zeros otherwise, as the
        // client's tools write it.
        header.extend((1..=14u8).map(|k| if self.encrypted { k } else { 0 }));
        if self.version == GrfVersion::V300 {
            header.extend_from_slice(&table_offset.to_le_bytes());
            header.extend_from_slice(&(count as u32).to_le_bytes());
        } else {
            header.extend_from_slice(&(table_offset as u32).to_le_bytes());
            header.extend_from_slice(&0u32.to_le_bytes());
            header.extend_from_slice(&(count as u32 + 7).to_le_bytes());
        }
        header.extend_from_slice(&self.version.number().to_le_bytes());
        self.out.seek(SeekFrom::Start(0))?;
        self.out.write_all(&header)?;
        self.out.seek(SeekFrom::End(0))?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// A whole GRF in memory from `(name, bytes, options)` entries.
pub fn write_grf(version: GrfVersion, entries: &[(&[u8], &[u8], WriteOptions)]) -> Vec<u8> {
    let mut w = match GrfWriter::new(std::io::Cursor::new(Vec::new()), version) {
        Ok(w) => w,
        Err(_) => return Vec::new(),
    };
    for (name, data, options) in entries {
        // Writing to memory cannot fail.
        let _ = w.add(name, data, *options);
    }
    w.finish().map(|c| c.into_inner()).unwrap_or_default()
}
