//! Where a bake's files go. Every file a bake makes — frame PNGs, sheets,
//! metadata, GIFs, map images — is handed to one [`Sink`] as a path and its
//! bytes, never written by the code that made it. The sink decides what that
//! means: [`FileSink`] writes it, [`DryRunSink`] only notes it, and
//! [`VerifySink`] compares it with the file already there. Files an
//! earlier bake left behind are handed over the same way to be removed
//! (`prune`). Each notes what it did per file, in order, for reports.
//!
//! Sinks are `Sync`: files may be handed over from several threads. The
//! records are in the order the calls finished.

use crate::error::{Error, Result};
use crate::output::{encode_png, write_atomic};
use crate::parallel_png::RowStream;
use image::RgbaImage;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Takes the files of a bake.
pub trait Sink: Sync {
    /// Takes `bytes` as the contents of `path`.
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<()>;

    /// Takes away `path`, a file an earlier bake left that this one does
    /// not write (`prune`).
    fn remove(&self, path: &Path) -> Result<()>;

    /// What was done with each file so far, in order.
    fn records(&self) -> Vec<OutputRecord>;

    /// `img` as the PNG bytes this sink writes for it (see [`encode_png`]);
    /// called from any thread, so outputs can be encoded in parallel and
    /// handed to [`Sink::write`] in order.
    fn encode_png(&self, img: &RgbaImage) -> Result<Vec<u8>> {
        encode_png(img)
    }

    /// A [`RowStream`] that gives exactly the bytes [`Sink::encode_png`]
    /// gives a `width × height` image, so a sheet can be encoded in strips
    /// as it is drawn; `None` (the default, as only the sink knows how it
    /// encodes) when it cannot, and the image is then encoded whole. A
    /// sink keeping the default `encode_png` can return
    /// `RowStream::for_image(width, height, parallel_png::DEFAULT_LEVEL)`.
    fn png_rows(&self, _width: u32, _height: u32) -> Option<RowStream> {
        None
    }

    /// Takes `img` as a PNG file.
    fn write_png(&self, path: &Path, img: &RgbaImage) -> Result<()> {
        self.write(path, &self.encode_png(img)?)
    }
}

/// What a sink did with one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputRecord {
    /// Where the file goes.
    pub path: PathBuf,
    /// Length of the bytes it was given.
    pub len: usize,
    /// What became of it.
    pub outcome: OutputStatus,
}

/// The fate of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputStatus {
    /// Written to the path.
    Written,
    /// Not written: a dry run.
    WouldWrite,
    /// The file at the path already holds exactly these bytes.
    Same,
    /// The file at the path holds other bytes.
    Different,
    /// No file at the path.
    Missing,
    /// Removed: an earlier bake's file this one does not write.
    Removed,
    /// Not removed: a dry run.
    WouldRemove,
    /// An earlier bake's file this one does not write is still there
    /// (verify with prune).
    Stale,
}

/// Records kept behind a lock, so a sink can be shared between threads.
#[derive(Debug, Default)]
struct Log(Mutex<Vec<OutputRecord>>);

impl Log {
    fn push(&self, path: &Path, len: usize, outcome: OutputStatus) {
        // A thread that panicked while pushing cannot leave a half-pushed
        // record, so a poisoned lock still holds a sound list.
        let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        v.push(OutputRecord {
            path: path.to_path_buf(),
            len,
            outcome,
        });
    }

    fn get(&self) -> Vec<OutputRecord> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Writes every file atomically (a temporary file in the same folder, then
/// a rename), creating folders as needed.
#[derive(Debug, Default)]
pub struct FileSink {
    log: Log,
}

impl Sink for FileSink {
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        write_atomic(path, bytes)?;
        self.log.push(path, bytes.len(), OutputStatus::Written);
        Ok(())
    }

    fn remove(&self, path: &Path) -> Result<()> {
        match std::fs::remove_file(path) {
            Ok(()) => {}
            // Already gone is what was wanted.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(path, e)),
        }
        self.log.push(path, 0, OutputStatus::Removed);
        Ok(())
    }

    fn records(&self) -> Vec<OutputRecord> {
        self.log.get()
    }
}

/// Writes nothing; records each file's path and length.
#[derive(Debug, Default)]
pub struct DryRunSink {
    log: Log,
}

impl Sink for DryRunSink {
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        self.log.push(path, bytes.len(), OutputStatus::WouldWrite);
        Ok(())
    }

    fn remove(&self, path: &Path) -> Result<()> {
        self.log.push(path, 0, OutputStatus::WouldRemove);
        Ok(())
    }

    fn records(&self) -> Vec<OutputRecord> {
        self.log.get()
    }
}

/// Writes nothing; compares each file's bytes with the file already at its
/// path and records [`OutputStatus::Same`], [`OutputStatus::Different`] or
/// [`OutputStatus::Missing`]. A file that exists but cannot be read is an error.
#[derive(Debug, Default)]
pub struct VerifySink {
    log: Log,
}

impl Sink for VerifySink {
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        let outcome = match std::fs::read(path) {
            Ok(old) if old == bytes => OutputStatus::Same,
            Ok(_) => OutputStatus::Different,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => OutputStatus::Missing,
            Err(e) => return Err(Error::io(path, e)),
        };
        self.log.push(path, bytes.len(), outcome);
        Ok(())
    }

    fn remove(&self, path: &Path) -> Result<()> {
        self.log.push(path, 0, OutputStatus::Stale);
        Ok(())
    }

    fn records(&self) -> Vec<OutputRecord> {
        self.log.get()
    }
}
