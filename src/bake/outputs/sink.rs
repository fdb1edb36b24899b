//! Where a bake's files go. Every file a bake makes — frame PNGs, sheets,
//! metadata, GIFs, map images — is handed to one [`Sink`] as a path and its
//! bytes, never written by the code that made it. The sink decides what that
//! means: [`FileSink`] writes it, [`DryRunSink`] only notes it, and
//! [`VerifySink`] compares it with the file already there. Files an
//! earlier bake left behind are handed over the same way to be removed
//! (`prune`). Each notes what it did per file, in order, for reports.
//!
//! Sinks are `Sync`: files may be handed over from several threads. The
//! records are in the order the calls finished. A sink may finish its
//! files behind the caller ([`FileSink::in_background`]): [`Sink::settle`]
//! waits for them and gives their first error.

use crate::confined::{Contents, Root};
use crate::error::{Error, Result};
use crate::output::encode_png;
use crate::parallel_png::RowStream;
use image::RgbaImage;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex};

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

    /// Returns once every file handed over so far is where it goes, with
    /// the first error one of them met since the last call. A sink that
    /// finishes each file within [`Sink::write`] (the default) has nothing
    /// to wait for; one that writes behind the caller
    /// ([`FileSink::in_background`]) must be settled before its files are
    /// relied on or its records read.
    fn settle(&self) -> Result<()> {
        Ok(())
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

/// Writes every file atomically (a temporary file in the same folder,
/// flushed to the disc, then a rename), creating folders as needed, each
/// below the sink's [`Root`] by the write rule (`confined.rs`): a path
/// outside it, a reserved name or a symbolic link on the way is refused.
///
/// [`FileSink::new`] writes each file within [`Sink::write`].
/// [`FileSink::in_background`] hands it to a thread of the sink's own that
/// writes the files one after another in the order they came: the caller
/// goes on encoding while the disc flushes, which otherwise blocks a thread
/// of the pool (a fifth of a millisecond a file here) and idles its core.
/// Its errors come from [`Sink::settle`], and its records are complete
/// once settled; dropped unsettled, it still writes every file handed over
/// but its errors are lost.
#[derive(Debug)]
pub struct FileSink {
    root: Root,
    log: Arc<Log>,
    /// `None`: writes within the call.
    behind: Option<Mutex<Option<Writer>>>,
}

/// The background writer of a [`FileSink`] while it has one: started by
/// the first file handed over after a settle, ended by the next settle.
#[derive(Debug)]
struct Writer {
    files: Sender<HeldFile>,
    backlog: Arc<Backlog>,
    thread: std::thread::JoinHandle<Result<()>>,
}

/// Bytes of files handed over but not yet written, beyond which the caller
/// waits (a larger file waits alone): what writing behind the caller adds
/// to a job's memory (`docs/design.md`, "Memory").
const WAITING_BYTES: u64 = 32 << 20;

/// The bytes waiting for the background writer.
#[derive(Debug, Default)]
struct Backlog {
    state: Mutex<Waiting>,
    room: Condvar,
}

#[derive(Debug, Default)]
struct Waiting {
    bytes: u64,
    /// The writer stopped at an error: nothing more is written.
    stopped: bool,
}

impl Backlog {
    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for room for `len` more bytes and counts them; false when the
    /// writer has stopped.
    fn enter(&self, len: u64) -> bool {
        let mut w = self.lock();
        while !w.stopped && w.bytes > 0 && w.bytes + len > WAITING_BYTES {
            w = self.room.wait(w).unwrap_or_else(|e| e.into_inner());
        }
        if w.stopped {
            return false;
        }
        w.bytes += len;
        true
    }

    fn leave(&self, len: u64, stopped: bool) {
        let mut w = self.lock();
        w.bytes -= len;
        w.stopped |= stopped;
        self.room.notify_all();
    }
}

impl FileSink {
    /// A sink that writes below `root` within its calls.
    pub fn new(root: Root) -> FileSink {
        FileSink {
            root,
            log: Arc::default(),
            behind: None,
        }
    }

    /// A sink that writes below `root` behind the caller, on a thread of
    /// its own.
    pub fn in_background(root: Root) -> FileSink {
        FileSink {
            root,
            log: Arc::default(),
            behind: Some(Mutex::new(None)),
        }
    }

    /// Gives `f` to the background writer, starting it if it is not
    /// running.
    fn send(
        behind: &Mutex<Option<Writer>>,
        root: &Root,
        log: &Arc<Log>,
        f: HeldFile,
    ) -> Result<()> {
        let mut writer = behind.lock().unwrap_or_else(|e| e.into_inner());
        let w = match &mut *writer {
            Some(w) => w,
            none => {
                let (files, taken) = channel::<HeldFile>();
                let backlog = Arc::new(Backlog::default());
                // The writer writes within its calls, into the same log.
                let plain = FileSink {
                    root: root.clone(),
                    log: Arc::clone(log),
                    behind: None,
                };
                let left = Arc::clone(&backlog);
                // As when written within the calls, the first file that
                // fails ends the writing: the files after it are not
                // written.
                let thread = std::thread::Builder::new()
                    .name("kiln-writer".into())
                    .spawn(move || {
                        taken.iter().try_for_each(|f| {
                            let done = f.hand_to(&plain);
                            left.leave(f.len(), done.is_err());
                            done
                        })
                    })
                    .map_err(|e| Error::Other(format!("cannot start a writer thread: {e}")))?;
                none.insert(Writer {
                    files,
                    backlog,
                    thread,
                })
            }
        };
        // A writer that stopped at an error takes nothing more; the next
        // settle reports the error.
        if w.backlog.enter(f.len()) {
            let _ = w.files.send(f);
        }
        Ok(())
    }
}

fn write_file(root: &Root, path: &Path, bytes: &[u8], log: &Log) -> Result<()> {
    root.write(&root.name_of(path)?, bytes)?;
    log.push(path, bytes.len(), OutputStatus::Written);
    Ok(())
}

fn remove_file(root: &Root, path: &Path, log: &Log) -> Result<()> {
    // Already gone is what was wanted.
    root.remove(&root.name_of(path)?)?;
    log.push(path, 0, OutputStatus::Removed);
    Ok(())
}

impl Sink for FileSink {
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        match &self.behind {
            None => write_file(&self.root, path, bytes, &self.log),
            Some(b) => {
                // Refused names fail the call itself, as they would
                // written within it.
                admitted(Some(&self.root), path)?;
                Self::send(
                    b,
                    &self.root,
                    &self.log,
                    HeldFile::Write(path.to_path_buf(), bytes.to_vec()),
                )
            }
        }
    }

    fn remove(&self, path: &Path) -> Result<()> {
        match &self.behind {
            None => remove_file(&self.root, path, &self.log),
            Some(b) => Self::send(
                b,
                &self.root,
                &self.log,
                HeldFile::Remove(path.to_path_buf()),
            ),
        }
    }

    fn records(&self) -> Vec<OutputRecord> {
        self.log.get()
    }

    fn settle(&self) -> Result<()> {
        let Some(behind) = &self.behind else {
            return Ok(());
        };
        let writer = behind.lock().unwrap_or_else(|e| e.into_inner()).take();
        match writer {
            None => Ok(()),
            Some(Writer { files, thread, .. }) => {
                drop(files);
                thread
                    .join()
                    .unwrap_or_else(|_| Err(Error::Other("the writer thread panicked".into())))
            }
        }
    }
}

impl Drop for FileSink {
    /// Files handed over are written before the sink goes.
    fn drop(&mut self) {
        let _ = self.settle();
    }
}

/// Whether `root` (when there is one) would take `path`: a dry run or a
/// comparison refuses what a real bake would.
fn admitted(root: Option<&Root>, path: &Path) -> Result<()> {
    let Some(root) = root else { return Ok(()) };
    let name = root.name_of(path)?;
    crate::confined::check_name(&name)
        .map(|_| ())
        .map_err(|why| Error::Other(format!("{}: {why}; not written", path.display())))
}

/// Writes nothing; records each file's path and length.
#[derive(Debug, Default)]
pub struct DryRunSink {
    root: Option<Root>,
    log: Log,
}

impl DryRunSink {
    /// A dry run of files below `root`, refusing what [`FileSink`] would.
    pub fn for_root(root: Root) -> DryRunSink {
        DryRunSink {
            root: Some(root),
            log: Log::default(),
        }
    }
}

impl Sink for DryRunSink {
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        admitted(self.root.as_ref(), path)?;
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
/// [`OutputStatus::Missing`]. A file that exists but cannot be read is an
/// error; below a root, files are read by the write rule (no link
/// followed).
#[derive(Debug, Default)]
pub struct VerifySink {
    root: Option<Root>,
    log: Log,
}

impl VerifySink {
    /// Compares the files below `root`.
    pub fn for_root(root: Root) -> VerifySink {
        VerifySink {
            root: Some(root),
            log: Log::default(),
        }
    }
}

impl Sink for VerifySink {
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        let old = match &self.root {
            Some(root) => {
                admitted(Some(root), path)?;
                root.read(&root.name_of(path)?, bytes.len() as u64)?
            }
            None => match std::fs::read(path) {
                Ok(old) => Contents::Bytes(old),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Contents::Missing,
                Err(e) => return Err(Error::io(path, e)),
            },
        };
        let outcome = match old {
            Contents::Bytes(old) if old == bytes => OutputStatus::Same,
            // Longer than what it is compared with, or other bytes.
            Contents::Bytes(_) | Contents::Over(_) => OutputStatus::Different,
            Contents::Missing => OutputStatus::Missing,
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

/// Holds every file handed to it, in order, until [`Held::open`] hands
/// them to the sink it wraps, after which files go straight through;
/// encoding goes straight to that sink. Two parts of a job can so work side
/// by side while the wrapped sink still sees their files in one fixed
/// order (the first part's, then the second's), as if they had run one
/// after the other: its records and a `.kiln-state` list files in that
/// order.
pub(crate) struct Held<'a> {
    inner: &'a dyn Sink,
    gate: Mutex<Gate>,
}

#[derive(Default)]
struct Gate {
    held: Vec<HeldFile>,
    open: bool,
    /// Files are dropped: what came before failed.
    shut: bool,
}

/// A file handed over but not yet passed on: its bytes, or its removal.
#[derive(Debug)]
enum HeldFile {
    Write(PathBuf, Vec<u8>),
    Remove(PathBuf),
}

impl HeldFile {
    fn len(&self) -> u64 {
        match self {
            HeldFile::Write(_, bytes) => bytes.len() as u64,
            HeldFile::Remove(_) => 0,
        }
    }

    /// Hands the file to `sink` as the call it was handed over with.
    fn hand_to(&self, sink: &dyn Sink) -> Result<()> {
        match self {
            HeldFile::Write(path, bytes) => sink.write(path, bytes),
            HeldFile::Remove(path) => sink.remove(path),
        }
    }
}

impl<'a> Held<'a> {
    pub(crate) fn new(inner: &'a dyn Sink) -> Held<'a> {
        Held {
            inner,
            gate: Mutex::new(Gate::default()),
        }
    }

    /// Hands every held file to the wrapped sink in the order they came,
    /// and every later one as it comes; stops at the first the sink
    /// refuses.
    pub(crate) fn open(&self) -> Result<()> {
        let mut gate = self.lock();
        let held = std::mem::take(&mut gate.held);
        gate.open = true;
        for f in &held {
            if let Err(e) = f.hand_to(self.inner) {
                gate.shut = true;
                return Err(e);
            }
        }
        Ok(())
    }

    /// Drops every held file and every later one: what had to come before
    /// them failed, and files after a failure are not written.
    pub(crate) fn shut(&self) {
        let mut gate = self.lock();
        gate.held.clear();
        gate.shut = true;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Gate> {
        self.gate.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn hold(&self, f: HeldFile) -> Result<()> {
        // Passed on under the lock, so a file cannot overtake the held
        // files `open` is still handing on.
        let mut gate = self.lock();
        if gate.shut {
            Ok(())
        } else if gate.open {
            f.hand_to(self.inner)
        } else {
            gate.held.push(f);
            Ok(())
        }
    }
}

impl Sink for Held<'_> {
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        self.hold(HeldFile::Write(path.to_path_buf(), bytes.to_vec()))
    }

    fn remove(&self, path: &Path) -> Result<()> {
        self.hold(HeldFile::Remove(path.to_path_buf()))
    }

    fn records(&self) -> Vec<OutputRecord> {
        self.inner.records()
    }

    fn encode_png(&self, img: &RgbaImage) -> Result<Vec<u8>> {
        self.inner.encode_png(img)
    }

    fn png_rows(&self, width: u32, height: u32) -> Option<RowStream> {
        self.inner.png_rows(width, height)
    }

    fn settle(&self) -> Result<()> {
        self.inner.settle()
    }
}
