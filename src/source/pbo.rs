//! Arma PBO archives as a data source.
//!
//! A list of headers — `name\0`, then u32 packing method, original size,
//! reserved, timestamp, data size — ends with an empty name and zero
//! fields. A first header with an empty name and method `Vers` is the
//! product entry, followed by `key\0value\0` pairs up to an empty key;
//! `prefix` there says where the files sit in the game's virtual file
//! system (`prefix\path`, `\`, any case). Missions have no product entry.
//! The data follows in header order; method `Cprs` is BI's LZSS, `Enco`
//! encrypted (refused). The file ends with a 0 byte and the SHA-1 of all
//! bytes before it, checked when the archive is opened (a mismatch is a
//! warning: the game itself only checks signatures).

use super::disk::{check_limit, input_limit, RandomAccess, DEFAULT_INPUT_LIMIT};
use super::entries::{self, Archive, Item, NameIndex};
use super::{lzss, DataSource, Entry, GamePath, Listed};
use crate::error::{Error, Result};
use sha1::{Digest, Sha1};
use std::path::{Path, PathBuf};

/// The product entry's packing method, `Vers`.
pub const VERS: u32 = 0x5665_7273;
/// LZSS-compressed, `Cprs`.
pub const CPRS: u32 = 0x4370_7273;
/// Encrypted, `Enco`.
pub const ENCO: u32 = 0x456e_636f;

/// Archives whose SHA-1 is checked on opening (larger ones would be read
/// whole just for it).
const CHECK_HASH_UP_TO: u64 = 256 << 20;

/// An open PBO.
#[derive(Debug)]
pub struct Pbo {
    file: RandomAccess,
    properties: Vec<(String, String)>,
    prefix: GamePath,
    items: Vec<Item>,
    methods: Vec<u32>,
    index: NameIndex,
    warnings: Vec<String>,
}

/// Whether `head` (the first bytes of a file) starts like a PBO: the
/// product entry, or a first header whose name is printable and whose
/// packing method is one PBOs use.
pub fn looks_like_pbo(head: &[u8]) -> bool {
    if head.len() >= 5 && head[0] == 0 {
        return head[1..5] == VERS.to_le_bytes();
    }
    let Some(end) = head.iter().position(|&b| b == 0) else {
        return false;
    };
    let name = &head[..end];
    let printable = !name.is_empty() && name.iter().all(|&b| b >= 0x20 && b != 0x7f);
    // Entries are file names: without an extension a printable magic
    // followed by a zero (`RTM_0101` and its first float) would pass.
    let file_name = name
        .rsplit(|&b| b == b'\\' || b == b'/')
        .next()
        .unwrap_or(name);
    let has_extension = file_name.iter().skip(1).any(|&b| b == b'.');
    let Some(fields) = head.get(end + 1..end + 21) else {
        return false;
    };
    let word =
        |i: usize| u32::from_le_bytes([fields[i], fields[i + 1], fields[i + 2], fields[i + 3]]);
    let (method, original, size) = (word(0), word(4), word(16));
    // A stored entry's original size is 0 (meaning "the data size") or the
    // data size itself.
    let sizes_agree = match method {
        0 => original == 0 || original == size,
        _ => true,
    };
    printable && has_extension && matches!(method, 0 | CPRS | ENCO) && sizes_agree
}

struct Header {
    name: Vec<u8>,
    method: u32,
    original: u64,
    size: u64,
}

impl Pbo {
    /// Opens the PBO at `path`.
    pub fn open_path(path: &Path) -> Result<Pbo> {
        Pbo::open(RandomAccess::open(path)?)
    }

    /// Reads the headers of an opened file; the entries are read when
    /// asked for.
    pub fn open(file: RandomAccess) -> Result<Pbo> {
        let path = file.path().to_path_buf();
        let mut want = file.len().min(64 << 10);
        let (headers, properties, data_start) = loop {
            let buf = file.read_at(0, want, "headers")?;
            match parse_headers(&buf) {
                Ok(parsed) => break parsed,
                Err(Cut) if want < file.len() => {
                    check_limit(&path, want * 2, input_limit(DEFAULT_INPUT_LIMIT))?;
                    want = (want * 2).min(file.len());
                }
                Err(Cut) => {
                    return Err(Error::parse(
                        &path,
                        "headers",
                        want,
                        "the header list has no end marker before the end of the file",
                    ))
                }
            }
        };
        let mut warnings = Vec::new();
        let mut items = Vec::with_capacity(headers.len());
        let mut methods = Vec::with_capacity(headers.len());
        let mut at = data_start;
        for h in headers {
            let end = at.checked_add(h.size);
            let refused = match h.method {
                ENCO => Some("encrypted (method Enco), which kiln does not read".to_string()),
                0 | CPRS => None,
                m => Some(format!("unknown packing method 0x{m:08x}")),
            }
            .or_else(|| {
                end.is_none_or(|e| e > file.len()).then(|| {
                    format!(
                        "its {} bytes at byte {at} run past the end of the {}-byte file",
                        h.size,
                        file.len()
                    )
                })
            });
            let size = if h.method == CPRS || (h.method == 0 && h.original != 0) {
                h.original
            } else {
                h.size
            };
            if h.method == 0 && h.original != 0 && h.original != h.size {
                warnings.push(format!(
                    "{}: stored with original size {} but {} data bytes; read as stored",
                    String::from_utf8_lossy(&h.name),
                    h.original,
                    h.size
                ));
            }
            items.push(Item {
                name: String::from_utf8_lossy(&h.name).replace('\\', "/"),
                raw_name: h.name,
                size: if h.method == 0 { h.size } else { size },
                stored: h.size,
                offset: at,
                flags: h.method,
                compression: match h.method {
                    CPRS => "lzss",
                    0 => "none",
                    _ => "unknown",
                },
                encryption: if h.method == ENCO { "enco" } else { "none" },
                refused,
            });
            methods.push(h.method);
            at = end.unwrap_or(u64::MAX);
        }
        match file.len().checked_sub(at) {
            Some(21..) if at == file.len() - 21 => {
                if let Some(w) = check_hash(&file, at)? {
                    warnings.push(w);
                }
            }
            Some(0) => warnings.push("no SHA-1 trailer after the data".into()),
            Some(n) => warnings.push(format!(
                "{n} bytes after the data where a 0 byte and a 20-byte SHA-1 were expected"
            )),
            None => {}
        }
        let prefix = properties
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("prefix"))
            .map(|(_, v)| GamePath::new(v))
            .unwrap_or_default();
        let index = NameIndex::new(items.iter().map(|i| i.raw_name.as_slice()));
        Ok(Pbo {
            file,
            properties,
            prefix,
            items,
            methods,
            index,
            warnings,
        })
    }

    /// The archive's path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Where the files sit in the game's file system (`prefix=`), or the
    /// root.
    pub fn prefix(&self) -> &GamePath {
        &self.prefix
    }

    /// `path` below the prefix, when it starts with it; else as given.
    fn strip_prefix(&self, path: &GamePath) -> Option<GamePath> {
        let n = self.prefix.parts().len();
        (n > 0
            && path.parts().len() >= n
            && (0..n).all(|i| path.part_is(i, &self.prefix.parts()[i])))
        .then(|| path.skip(n))
    }

    fn extract(&self, index: usize) -> Result<Vec<u8>> {
        let (item, location) = entries::readable(self.path(), &self.items, index)?;
        let data = self.file.read_at(item.offset, item.stored, "entry")?;
        if self.methods[index] != CPRS {
            return Ok(data);
        }
        let (out, _) = lzss::decompress(&data, item.size as usize).map_err(|e| {
            Error::parse(&location, "lzss", item.offset + e.offset as u64, e.message)
        })?;
        Ok(out)
    }
}

/// The header list ran past the bytes read so far.
struct Cut;

type Parsed = (Vec<Header>, Vec<(String, String)>, u64);

fn parse_headers(buf: &[u8]) -> std::result::Result<Parsed, Cut> {
    let mut p = 0usize;
    let asciiz = |p: &mut usize| -> std::result::Result<Vec<u8>, Cut> {
        let end = buf[*p..].iter().position(|&b| b == 0).ok_or(Cut)?;
        let s = buf[*p..*p + end].to_vec();
        *p += end + 1;
        Ok(s)
    };
    let mut headers = Vec::new();
    let mut properties = Vec::new();
    loop {
        let name = asciiz(&mut p)?;
        let f = buf.get(p..p + 20).ok_or(Cut)?;
        let u = |k: usize| u32::from_le_bytes([f[k], f[k + 1], f[k + 2], f[k + 3]]);
        let (method, original, size) = (u(0), u(4) as u64, u(16) as u64);
        p += 20;
        if name.is_empty() {
            if method == VERS && headers.is_empty() && properties.is_empty() {
                loop {
                    let key = asciiz(&mut p)?;
                    if key.is_empty() {
                        break;
                    }
                    let value = asciiz(&mut p)?;
                    properties.push((
                        String::from_utf8_lossy(&key).into_owned(),
                        String::from_utf8_lossy(&value).into_owned(),
                    ));
                }
                continue;
            }
            return Ok((headers, properties, p as u64));
        }
        headers.push(Header {
            name,
            method,
            original,
            size,
        });
    }
}

/// A warning when the SHA-1 after the data does not match the bytes
/// before it.
fn check_hash(file: &RandomAccess, at: u64) -> Result<Option<String>> {
    let trailer = file.read_at(at, 21, "trailer")?;
    if trailer[0] != 0 {
        return Ok(Some(format!(
            "byte {at} before the SHA-1 trailer is 0x{:02x}, not 0",
            trailer[0]
        )));
    }
    if at > CHECK_HASH_UP_TO {
        return Ok(None);
    }
    let mut hasher = Sha1::new();
    let mut pos = 0;
    while pos < at {
        let n = (at - pos).min(1 << 20);
        hasher.update(file.read_at(pos, n, "data")?);
        pos += n;
    }
    let digest = hasher.finalize();
    Ok((digest.as_slice() != &trailer[1..]).then(|| {
        format!(
            "SHA-1 trailer {} does not match the archive's bytes ({}); the archive may be damaged",
            hex(&trailer[1..]),
            hex(digest.as_slice())
        )
    }))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl DataSource for Pbo {
    fn describe(&self) -> String {
        self.path().display().to_string()
    }

    fn find(&self, path: &GamePath) -> Option<Entry> {
        let i = self
            .strip_prefix(path)
            .and_then(|p| self.index.find(&p))
            .or_else(|| self.index.find(path))?;
        Some(entries::entry(self.path(), &self.items, i))
    }

    fn read(&self, entry: &Entry) -> Result<Vec<u8>> {
        self.extract(entries::index_of(self.path(), &self.items, entry)?)
    }

    fn list(&self, dir: &GamePath) -> Option<(PathBuf, Vec<Listed>)> {
        let inner = self.strip_prefix(dir).unwrap_or_else(|| dir.clone());
        let listed = self.index.list(&inner, &self.items)?;
        Some((entries::location(self.path(), &inner.to_string()), listed))
    }
}

impl Archive for Pbo {
    fn format(&self) -> String {
        if self.properties.is_empty() {
            "PBO (no product entry)".into()
        } else {
            "PBO".into()
        }
    }

    fn items(&self) -> &[Item] {
        &self.items
    }

    fn read_item(&self, index: usize) -> Result<Vec<u8>> {
        self.extract(index)
    }

    fn properties(&self) -> Vec<(String, String)> {
        self.properties.clone()
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
}

/// kiln's PBO writer: the product entry with `properties` (none for a
/// mission), the entries stored or LZSS-compressed (`Cprs`), timestamps 0,
/// and the SHA-1 trailer.
pub fn write_pbo(properties: &[(&str, &str)], entries: &[(&[u8], &[u8], bool)]) -> Vec<u8> {
    let mut out = Vec::new();
    let fields = |out: &mut Vec<u8>, v: [u32; 5]| {
        for x in v {
            out.extend_from_slice(&x.to_le_bytes());
        }
    };
    if !properties.is_empty() {
        out.push(0);
        fields(&mut out, [VERS, 0, 0, 0, 0]);
        for (k, v) in properties {
            out.extend_from_slice(k.as_bytes());
            out.push(0);
            out.extend_from_slice(v.as_bytes());
            out.push(0);
        }
        out.push(0);
    }
    let bodies: Vec<Vec<u8>> = entries
        .iter()
        .map(|(_, data, compress)| {
            if *compress {
                lzss::compress(data, false)
            } else {
                data.to_vec()
            }
        })
        .collect();
    for ((name, data, compress), body) in entries.iter().zip(&bodies) {
        out.extend_from_slice(name);
        out.push(0);
        let (method, original) = if *compress {
            (CPRS, data.len() as u32)
        } else {
            (0, 0)
        };
        fields(&mut out, [method, original, 0, 0, body.len() as u32]);
    }
    out.push(0);
    fields(&mut out, [0; 5]);
    for body in &bodies {
        out.extend_from_slice(body);
    }
    let digest = Sha1::digest(&out);
    out.push(0);
    out.extend_from_slice(digest.as_slice());
    out
}
