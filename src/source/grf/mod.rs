//! Ragnarok Online GRF archives (`data.grf`), versions 0x102, 0x103, 0x200
//! and 0x300, as a data source.
//!
//! Header (46 bytes): `Master of Magic`, a NUL, 14 key bytes (unused), then
//! at byte 30 the table offset (from byte 46), a seed and a count (files =
//! count − seed − 7), and the version at byte 42. 0x300 (GRF Editor's
//! large archives) keeps a 64-bit table offset at byte 30 and the file
//! count itself at 38, and puts 4 bytes before its table.
//!
//! 0x200/0x300 tables are zlib-compressed rows: CP949 name, NUL, u32
//! compressed size, u32 aligned size, u32 real size, u8 flags, u32 (0x300:
//! u64) offset from byte 46. 0x102/0x103 tables are stored raw, names
//! nibble-swapped and DES-encrypted, sizes offset by constants, and the
//! encryption told by the extension. Flag 0x01 marks a file (else a
//! folder row), 0x02 "mixed" and 0x04 "header" DES; GRF Editor's own
//! extensions (0x20 a custom key, 0x80, LZMA bodies) are refused entry by
//! entry with a message saying so.

pub mod des;
mod write;

pub use write::{write_grf, GrfWriter, WriteOptions};

use super::disk::{input_limit, RandomAccess, DEFAULT_INPUT_LIMIT};
use super::entries::{self, Archive, Item, NameIndex};
use super::zlib::inflate_exact;
use super::{DataSource, Entry, GamePath, Listed};
use crate::error::{Error, Result};
use crate::text::decode_cp949;
use std::path::{Path, PathBuf};

/// The first bytes of every GRF.
pub const MAGIC: &[u8] = b"Master of Magic";

/// Bytes before an archive's data (and where every offset counts from).
pub const HEADER_SIZE: u64 = 46;

/// Table flag: the row is a file (else a folder).
pub const FLAG_FILE: u8 = 0x01;
/// Table flag: "mixed" DES encryption.
pub const FLAG_MIXED: u8 = 0x02;
/// Table flag: DES on the first 20 blocks only.
pub const FLAG_HEADER: u8 = 0x04;
/// GRF Editor: encrypted with a user's key.
const FLAG_CUSTOM_KEY: u8 = 0x20;
/// GRF Editor: its own extension bit.
const FLAG_EDITOR: u8 = 0x80;

/// 0x102/0x103 store `compressed + real + 715` and `aligned + 37579`.
const V1_COMPRESSED_BIAS: u64 = 715;
const V1_ALIGNED_BIAS: u64 = 37579;

/// The GRF versions kiln reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrfVersion {
    /// 0x102: raw table, encrypted names.
    V102,
    /// 0x103: as 0x102.
    V103,
    /// 0x200: zlib table, the common client format.
    V200,
    /// 0x300: GRF Editor's 64-bit offsets.
    V300,
}

impl GrfVersion {
    /// The number in the header.
    pub fn number(self) -> u32 {
        match self {
            GrfVersion::V102 => 0x102,
            GrfVersion::V103 => 0x103,
            GrfVersion::V200 => 0x200,
            GrfVersion::V300 => 0x300,
        }
    }

    fn is_v1(self) -> bool {
        matches!(self, GrfVersion::V102 | GrfVersion::V103)
    }
}

/// How an entry is stored, as its row says.
#[derive(Debug, Clone, Copy)]
struct Row {
    compressed: u64,
    aligned: u64,
    real: u64,
    flags: u8,
    /// From the start of the file.
    offset: u64,
}

/// An open GRF.
#[derive(Debug)]
pub struct Grf {
    file: RandomAccess,
    version: GrfVersion,
    items: Vec<Item>,
    rows: Vec<Row>,
    index: NameIndex,
    folders: usize,
}

impl Grf {
    /// Opens the GRF at `path`, reading its header and table only.
    pub fn open_path(path: &Path) -> Result<Grf> {
        Grf::open(RandomAccess::open(path)?)
    }

    /// Reads the header and table of an opened file.
    pub fn open(file: RandomAccess) -> Result<Grf> {
        let path = file.path().to_path_buf();
        let err =
            |field: &str, offset: u64, message: String| Error::parse(&path, field, offset, message);
        if file.len() < HEADER_SIZE {
            return Err(err(
                "header",
                0,
                format!(
                    "{} bytes, too short for a GRF header ({HEADER_SIZE} bytes){}",
                    file.len(),
                    if file.is_empty() {
                        ": the file is empty"
                    } else {
                        ""
                    }
                ),
            ));
        }
        let h = file.read_at(0, HEADER_SIZE, "header")?;
        if !h.starts_with(MAGIC) {
            return Err(err(
                "header.magic",
                0,
                "not a GRF archive (no \"Master of Magic\")".into(),
            ));
        }
        let u32_at = |at: usize| u32::from_le_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
        let number = u32_at(42);
        let (version, table_at, count) = match number {
            0x102 | 0x103 | 0x200 => {
                let v = match number {
                    0x102 => GrfVersion::V102,
                    0x103 => GrfVersion::V103,
                    _ => GrfVersion::V200,
                };
                let (seed, raw) = (u32_at(34) as u64, u32_at(38) as u64);
                let count = raw.checked_sub(seed + 7).ok_or_else(|| {
                    err(
                        "header.file_count",
                        38,
                        format!("count {raw} is below seed {seed} + 7"),
                    )
                })?;
                (v, u32_at(30) as u64 + HEADER_SIZE, count)
            }
            0x300 => {
                let (low, high) = (u32_at(30) as u64, u32_at(34) as u64);
                if high >> 8 != 0 {
                    return Err(err(
                        "header.table_offset",
                        30,
                        format!(
                            "0x300 table offset 0x{high:08x}{low:08x} is beyond any real archive"
                        ),
                    ));
                }
                (
                    GrfVersion::V300,
                    (high << 32 | low) + HEADER_SIZE + 4,
                    u32_at(38) as u64,
                )
            }
            other => {
                return Err(err(
                    "header.version",
                    42,
                    format!(
                    "unsupported GRF version 0x{other:x}; kiln reads 0x102, 0x103, 0x200 and 0x300"
                ),
                ))
            }
        };
        // 0x102/0x103 tables run to the end of the file: one that starts
        // there is missing.
        if table_at > file.len() || (version.is_v1() && table_at == file.len()) {
            return Err(err(
                "header.table_offset",
                30,
                format!(
                    "the table at byte {table_at} lies at or past the end of the {}-byte file: \
                     the archive has no file table",
                    file.len()
                ),
            ));
        }
        let (rows, names) = if version.is_v1() {
            read_v1_table(&file, table_at, count)?
        } else {
            read_table(&file, version, table_at, count)?
        };
        let mut items = Vec::with_capacity(rows.len());
        let mut kept_rows = Vec::with_capacity(rows.len());
        let mut folders = 0;
        for (row, name) in rows.into_iter().zip(names) {
            if row.flags & FLAG_FILE == 0 {
                folders += 1;
                continue;
            }
            items.push(item(&name, &row, file.len()));
            kept_rows.push(row);
        }
        let index = NameIndex::new(items.iter().map(|i| i.raw_name.as_slice()));
        Ok(Grf {
            file,
            version,
            items,
            rows: kept_rows,
            index,
            folders,
        })
    }

    /// The archive's version.
    pub fn version(&self) -> GrfVersion {
        self.version
    }

    /// The archive's path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    fn extract(&self, index: usize) -> Result<Vec<u8>> {
        let (_, location) = entries::readable(self.path(), &self.items, index)?;
        let row = self.rows[index];
        let mut data = self.file.read_at(row.offset, row.aligned, "entry")?;
        if row.flags & FLAG_MIXED != 0 {
            des::decrypt_mixed(&mut data, row.compressed);
        } else if row.flags & FLAG_HEADER != 0 {
            des::crypt_header(&mut data);
        }
        data.truncate(row.compressed as usize);
        if row.compressed == row.real {
            return Ok(data);
        }
        inflate_exact(&data, row.real, &location, "entry", row.offset)
    }
}

/// The item a row describes, with why kiln cannot extract it, if so.
fn item(name: &[u8], row: &Row, file_len: u64) -> Item {
    let encryption = if row.flags & FLAG_MIXED != 0 {
        "des-mixed"
    } else if row.flags & FLAG_HEADER != 0 {
        "des-header"
    } else {
        "none"
    };
    let refused = if row.flags & FLAG_CUSTOM_KEY != 0 {
        Some(format!(
            "encrypted with a custom key (flag 0x{:02x}, a GRF Editor extension kiln does not read)",
            row.flags
        ))
    } else if row.flags & FLAG_EDITOR != 0 {
        Some(format!(
            "flag 0x{:02x} is a GRF Editor extension kiln does not read",
            row.flags
        ))
    } else if row.compressed > row.aligned {
        Some(format!(
            "corrupt row: compressed size {} is larger than its aligned size {}",
            row.compressed, row.aligned
        ))
    } else if row.flags & (FLAG_MIXED | FLAG_HEADER) != 0 && !row.aligned.is_multiple_of(8) {
        Some(format!(
            "corrupt row: encrypted entries take whole 8-byte blocks, aligned size is {}",
            row.aligned
        ))
    } else if row
        .offset
        .checked_add(row.aligned)
        .is_none_or(|e| e > file_len)
    {
        Some(format!(
            "its {} bytes at byte {} run past the end of the {file_len}-byte archive",
            row.aligned, row.offset
        ))
    } else {
        None
    };
    Item {
        raw_name: name.to_vec(),
        name: decode_cp949(name).replace('\\', "/"),
        size: row.real,
        stored: row.aligned,
        offset: row.offset,
        flags: row.flags as u32,
        compression: if row.compressed == row.real {
            "none"
        } else {
            "zlib"
        },
        encryption,
        refused,
    }
}

/// The zlib-compressed table of 0x200 and 0x300.
fn read_table(
    file: &RandomAccess,
    version: GrfVersion,
    at: u64,
    count: u64,
) -> Result<(Vec<Row>, Vec<Vec<u8>>)> {
    let path = file.path();
    let head = file.read_at(at, 8, "table.sizes")?;
    let compressed = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as u64;
    let real = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as u64;
    let limit = input_limit(DEFAULT_INPUT_LIMIT);
    super::disk::check_limit(path, real, limit)?;
    let packed = file.read_at(at + 8, compressed, "table")?;
    let table = inflate_exact(&packed, real, path, "table", at + 8)?;
    let row_size = if version == GrfVersion::V300 { 21 } else { 17 };
    // Every row is a name of at least one byte, its NUL and the fields.
    if count > table.len() as u64 / (row_size as u64 + 2) {
        return Err(Error::parse(
            path,
            "header.file_count",
            38,
            format!("{count} entries cannot fit in a {}-byte table", table.len()),
        ));
    }
    let mut rows = Vec::with_capacity(count as usize);
    let mut names = Vec::with_capacity(count as usize);
    let mut p = 0usize;
    for i in 0..count {
        let bad = |message: String| {
            Error::parse(
                path,
                format!("table.entry[{i}]"),
                p as u64,
                format!("{message} (offset within the inflated table)"),
            )
        };
        let end = table[p..]
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| bad("name without its NUL".into()))?;
        let name = table[p..p + end].to_vec();
        let f = p + end + 1;
        let fields = table
            .get(f..f + row_size)
            .ok_or_else(|| bad("row cut short by the end of the table".into()))?;
        let u32_at = |k: usize| {
            u32::from_le_bytes([fields[k], fields[k + 1], fields[k + 2], fields[k + 3]]) as u64
        };
        let offset = if version == GrfVersion::V300 {
            u64::from_le_bytes(fields[13..21].try_into().unwrap_or([0; 8]))
        } else {
            u32_at(13)
        };
        rows.push(Row {
            compressed: u32_at(0),
            aligned: u32_at(4),
            real: u32_at(8),
            flags: fields[12],
            offset: offset.saturating_add(HEADER_SIZE),
        });
        names.push(name);
        p = f + row_size;
    }
    Ok((rows, names))
}

/// The raw table of 0x102 and 0x103: `u32 n`, 2 bytes, the encrypted name
/// (n − 6 bytes), 4 bytes, then the 17 bytes of fields.
fn read_v1_table(file: &RandomAccess, at: u64, count: u64) -> Result<(Vec<Row>, Vec<Vec<u8>>)> {
    let path = file.path();
    let len = file.len() - at;
    super::disk::check_limit(path, len, input_limit(DEFAULT_INPUT_LIMIT))?;
    let table = file.read_at(at, len, "table")?;
    if count > len / 21 {
        return Err(Error::parse(
            path,
            "header.file_count",
            38,
            format!("{count} entries cannot fit in a {len}-byte table"),
        ));
    }
    let mut rows = Vec::with_capacity(count as usize);
    let mut names = Vec::with_capacity(count as usize);
    let mut p = 0usize;
    for i in 0..count {
        let bad = |message: String| {
            Error::parse(path, format!("table.entry[{i}]"), at + p as u64, message)
        };
        let n = table
            .get(p..p + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| bad("row cut short by the end of the file".into()))?;
        if n < 6 {
            return Err(bad(format!("name field of {n} bytes (at least 6)")));
        }
        let stored = table
            .get(p + 6..p + n)
            .ok_or_else(|| bad(format!("name of {n} bytes runs past the end of the file")))?;
        let name = des::decode_name(stored);
        let f = p + 4 + n;
        let fields = table
            .get(f..f + 17)
            .ok_or_else(|| bad("row cut short by the end of the file".into()))?;
        let u32_at = |k: usize| {
            u32::from_le_bytes([fields[k], fields[k + 1], fields[k + 2], fields[k + 3]]) as u64
        };
        let real = u32_at(8);
        let mut flags = fields[12];
        if flags & FLAG_FILE != 0 {
            flags |= if header_only_by_name(&name) {
                FLAG_HEADER
            } else {
                FLAG_MIXED
            };
        }
        // A stored size below its bias is a corrupt row: it is kept, and
        // refused when read (compressed > aligned).
        let compressed = u32_at(0)
            .checked_sub(real + V1_COMPRESSED_BIAS)
            .unwrap_or(u64::MAX);
        let aligned = u32_at(4).saturating_sub(V1_ALIGNED_BIAS);
        rows.push(Row {
            compressed,
            aligned,
            real,
            flags,
            offset: u32_at(13) + HEADER_SIZE,
        });
        names.push(name);
        p = f + 17;
    }
    Ok((rows, names))
}

/// 0x102/0x103 encrypt `.gnd .gat .act .str` entries on their first
/// blocks only, every other entry "mixed".
fn header_only_by_name(name: &[u8]) -> bool {
    let lower = name.to_ascii_lowercase();
    [&b".gnd"[..], b".gat", b".act", b".str"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

impl DataSource for Grf {
    fn describe(&self) -> String {
        self.path().display().to_string()
    }

    fn find(&self, path: &GamePath) -> Option<Entry> {
        let i = self.index.find(path)?;
        Some(entries::entry(self.path(), &self.items, i))
    }

    fn read(&self, entry: &Entry) -> Result<Vec<u8>> {
        self.extract(entries::index_of(self.path(), &self.items, entry)?)
    }

    fn list(&self, dir: &GamePath) -> Option<(PathBuf, Vec<Listed>)> {
        let listed = self.index.list(dir, &self.items)?;
        Some((entries::location(self.path(), &dir.to_string()), listed))
    }
}

impl Archive for Grf {
    fn format(&self) -> String {
        format!("GRF 0x{:x}", self.version.number())
    }

    fn items(&self) -> &[Item] {
        &self.items
    }

    fn read_item(&self, index: usize) -> Result<Vec<u8>> {
        self.extract(index)
    }

    fn properties(&self) -> Vec<(String, String)> {
        vec![
            ("files".into(), self.items.len().to_string()),
            ("folder rows".into(), self.folders.to_string()),
        ]
    }
}
