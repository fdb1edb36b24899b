//! Frames drawn straight into the sheet (`kiln::internals::bake::stream`) give the
//! same files, byte for byte and in the same order, as frames held until
//! the job's outputs are written (`write_outputs`), on every layout the
//! stream keeps frames in, with and without a palette chosen over them.

use image::{Rgba, RgbaImage};
use kiln::internals::bake::encode::clip_frames::ClipFrames;
use kiln::internals::bake::outputs::sink::{OutputRecord, Sink};
use kiln::internals::bake::recipe::{Job, Recipe};
use kiln::internals::bake::stream::{apply_palette, draw_and_write, Keep};
use kiln::internals::bake::write_outputs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Keeps every file handed to it, in order.
#[derive(Default)]
struct Memory(Mutex<Vec<(PathBuf, Vec<u8>)>>);

impl Sink for Memory {
    fn write(&self, path: &Path, bytes: &[u8]) -> kiln::Result<()> {
        self.0
            .lock()
            .unwrap()
            .push((path.to_path_buf(), bytes.to_vec()));
        Ok(())
    }
    fn remove(&self, _: &Path) -> kiln::Result<()> {
        Ok(())
    }
    fn records(&self) -> Vec<OutputRecord> {
        Vec::new()
    }
    // The default `encode_png`, in strips when the sheet is big enough.
    fn png_rows(&self, w: u32, h: u32) -> Option<kiln::internals::parallel_png::RowStream> {
        kiln::internals::parallel_png::RowStream::for_image(
            w,
            h,
            kiln::internals::parallel_png::DEFAULT_LEVEL,
        )
    }
}

/// A disc whose size, colour and edge alpha depend on the clip, direction
/// and frame. The first clip's frames are all different, transparent black
/// around the disc (a packed sheet keeps just their boxes); the second
/// clip's are one frame repeated (twins, stored once), with colour under
/// the transparency around it (kept whole).
fn frame(w: u32, h: u32, c: usize, d: usize, f: usize) -> RgbaImage {
    let (d, f) = if c == 1 { (0, 0) } else { (d, f) };
    let (cx, cy) = (w as f32 * 0.5, h as f32 * 0.5);
    let r = 2.0 + ((c * 5 + d * 3 + f) % 7) as f32;
    RgbaImage::from_fn(w, h, |x, y| {
        let dist = ((x as f32 - cx).powi(2) + (y as f32 - cy).powi(2)).sqrt();
        let a = ((r - dist + 1.0).clamp(0.0, 1.0) * 255.0) as u8;
        if a == 0 && c == 0 {
            return Rgba([0, 0, 0, 0]);
        }
        let k = (x * 13 + y * 7) as usize;
        Rgba([
            (40 * c + 9 * f + k) as u8,
            (60 * d + 3 * k) as u8,
            (17 * f + 5 * c + d) as u8,
            a,
        ])
    })
}

fn job_sized(dir: &Path, size: &str, keys: &str) -> Job {
    let text = format!(
        "jobs:\n  - name: hero\n    model: hero.rsm\n    size: {size}\n    directions: [0, 90, 180]\n    clips:\n      - {{ name: walk, frames: 5, end: 0.5 }}\n      - {{ name: idle, frames: 2, end: 1.0 }}\n{keys}"
    );
    Recipe::from_str(&text, &dir.join("r.yaml"))
        .unwrap()
        .jobs()
        .unwrap()
        .remove(0)
}

/// The job's clips with no frames (what the stream is given) and with
/// every frame drawn (what `write_outputs` is given).
fn clips(job: &Job) -> (Vec<ClipFrames>, Vec<ClipFrames>) {
    let empty: Vec<ClipFrames> = job
        .clips
        .iter()
        .map(|c| {
            let times = c.clip.frame_times(5.0).unwrap();
            ClipFrames::new(times, vec![Vec::new(); job.directions.len()], [0.5, 0.75])
        })
        .collect();
    let (w, h) = (job.view.width, job.view.height);
    let full = empty
        .iter()
        .enumerate()
        .map(|(c, clip)| {
            let n = clip.times.times.len();
            clip.with_frames(
                (0..job.directions.len())
                    .map(|d| (0..n).map(|f| frame(w, h, c, d, f)).collect())
                    .collect(),
            )
        })
        .collect();
    (empty, full)
}

/// The files written by frames drawn into what keeps them, checked against
/// held frames'; how many frames were drawn, and how many of them went
/// straight into their rows when the job was given a way to.
type Streamed = (Vec<(PathBuf, Vec<u8>)>, usize, usize);

fn streamed_and_held(keys: &str, keep: Keep) -> Streamed {
    streamed_and_held_at("12x10", keys, keep)
}

fn streamed_and_held_at(size: &str, keys: &str, keep: Keep) -> Streamed {
    let dir = std::env::temp_dir().join("kiln-stream-test");
    let job = job_sized(&dir, size, keys);
    assert_eq!(
        Keep::of(&job, job.look.palette_over_frames()),
        keep,
        "{keys}"
    );
    let (empty, mut full) = clips(&job);
    let (w, h) = (job.view.width, job.view.height);
    let drawn = AtomicUsize::new(0);
    let draw = |c: usize, d: usize, f: usize| {
        drawn.fetch_add(1, Ordering::Relaxed);
        frame(w, h, c, d, f)
    };
    let streamed = Memory::default();
    let (files, _) = draw_and_write(&job, &empty, &draw, None, &job.look, &streamed).unwrap();
    apply_palette(&job.look, &mut full);
    let held = Memory::default();
    let held_files = write_outputs(&job, &full, &held).unwrap();
    assert_eq!(files, held_files, "{keys}");
    let (a, b) = (
        streamed.0.into_inner().unwrap(),
        held.0.into_inner().unwrap(),
    );
    same_files(keys, &a, &b);
    let drawn = drawn.into_inner();
    // Frames drawn straight into the rows that keep them, where the job
    // lets them be: the same files again.
    let (whole, direct_calls) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let draw = |c: usize, d: usize, f: usize| {
        whole.fetch_add(1, Ordering::Relaxed);
        frame(w, h, c, d, f)
    };
    let into = |c: usize, d: usize, f: usize, rows: &mut [&mut [u8]]| {
        direct_calls.fetch_add(1, Ordering::Relaxed);
        let img = frame(w, h, c, d, f);
        for (row, src) in rows
            .iter_mut()
            .zip(img.as_raw().chunks_exact(w as usize * 4))
        {
            row[..src.len()].copy_from_slice(src);
        }
    };
    let direct = Memory::default();
    let (files, _) = draw_and_write(&job, &empty, &draw, Some(&into), &job.look, &direct).unwrap();
    assert_eq!(files, held_files, "{keys}");
    same_files(keys, &direct.0.into_inner().unwrap(), &b);
    let direct_calls = direct_calls.into_inner();
    assert_eq!(whole.into_inner() + direct_calls, drawn, "{keys}");
    (a, drawn, direct_calls)
}

fn same_files(keys: &str, a: &[(PathBuf, Vec<u8>)], b: &[(PathBuf, Vec<u8>)]) {
    assert_eq!(a.len(), b.len());
    for ((pa, ba), (pb, bb)) in a.iter().zip(b) {
        assert_eq!(pa, pb);
        assert!(ba == bb, "{keys}: {} differs", pa.display());
    }
}

#[test]
fn a_grid_sheet_drawn_into_its_pages_writes_what_held_frames_write() {
    let every = "    output: { dir: out, sheet: '{name}.png', frames: '{name}_{clip}_{dir}_{frame}.png', gif: '{name}_{clip}_{dir}.gif', apng: '{name}_{clip}_{dir}.apng' }\n    metadata: [texturepacker-hash, aseprite]\n";
    let (files, drawn, direct) = streamed_and_held(every, Keep::Sheet);
    // 7 frames × 3 directions: 21 frame PNGs, the sheet, 2 metadata files,
    // 6 GIFs and 6 APNGs, each frame drawn once.
    assert_eq!(files.len(), 21 + 1 + 2 + 12);
    assert_eq!(drawn, 21);
    // Frame PNGs and animations read the frames back: each is drawn whole.
    assert_eq!(direct, 0);
    // Spacing, extrusion and pages of whole rows (a page holds two of the
    // six rows at this max_size).
    let paged = format!("{every}    pack: {{ padding: 1, extrude: 2, max_size: [128, 40] }}\n");
    let (files, _, _) = streamed_and_held(&paged, Keep::Sheet);
    let pages = files
        .iter()
        .filter(|(p, _)| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("hero-")
        })
        .count();
    assert!(pages >= 3, "{pages} pages");
    // A palette chosen over every frame: the frames wait in the pages for
    // it, then are mapped in place.
    for dither in ["none", "ordered", "diffusion"] {
        let look = format!("{every}    look: {{ palette: {{ colors: 5, dither: {dither} }} }}\n");
        streamed_and_held(&look, Keep::Sheet);
    }
}

#[test]
fn a_sheet_encoded_strip_by_strip_as_drawn_is_the_sheet_encoded_whole() {
    // Sheets of 4 MiB and more are deflated in bands; with nothing else
    // reading the frames back, the stream encodes each page a grid row at
    // a time and never holds it whole. 21 frames of 256×200 = 4.3 MB.
    const { assert!(21 * 256 * 200 * 4 >= kiln::internals::parallel_png::PARALLEL_FROM) };
    let sheet = "    output: { dir: out, sheet: '{name}.png', gif: false }\n    metadata: [texturepacker-hash, aseprite]\n";
    let (files, drawn, direct) = streamed_and_held_at("256x200", sheet, Keep::Sheet);
    assert_eq!((files.len(), drawn), (3, 21));
    // Given the way, every frame is drawn straight into its strip.
    assert_eq!(direct, 21);
    // Spacing between cells (transparent rows between strips), and pages:
    // each page its own stream.
    let padded = format!("{sheet}    pack: {{ padding: 3 }}\n");
    let (_, _, direct) = streamed_and_held_at("256x200", &padded, Keep::Sheet);
    assert_eq!(direct, 21);
    // Six grid rows of 400 (five frames of 320 each), three to a page of
    // 1604×1204 (7.7 MB): two pages, each streamed.
    let paged = format!("{sheet}    pack: {{ padding: 1, max_size: [1700, 1300] }}\n");
    let (files, _, direct) = streamed_and_held_at("320x400", &paged, Keep::Sheet);
    assert_eq!(direct, 21);
    let pngs = files
        .iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "png"))
        .count();
    assert_eq!(pngs, 2, "two pages");
}

#[test]
fn frames_alone_are_encoded_as_drawn_and_the_rest_keeps_them() {
    let frames =
        "    output: { dir: out, sheet: false, frames: '{name}_{clip}_{dir}_{frame}.png' }\n";
    let (files, drawn, _) = streamed_and_held(frames, Keep::Nothing);
    assert_eq!((files.len(), drawn), (21, 21));
    let given = format!("{frames}    look: {{ palette: {{ colors: 4 }} }}\n");
    streamed_and_held(&given, Keep::Frames);
    let gif = "    output: { dir: out, sheet: false, gif: '{name}_{clip}_{dir}.gif' }\n";
    streamed_and_held(gif, Keep::Frames);
}

#[test]
fn a_packed_sheet_kept_as_trimmed_boxes_writes_what_held_frames_write() {
    let every = "    output: { dir: out, sheet: '{name}.png', frames: '{name}_{clip}_{dir}_{frame}.png', gif: '{name}_{clip}_{dir}.gif', apng: '{name}_{clip}_{dir}.apng' }\n    metadata: [texturepacker-hash, pixi]\n";
    for pack in [
        "{ layout: packed, trim: true }",
        "{ layout: packed }",
        "{ layout: packed, trim: true, padding: 1, extrude: 1, max_size: [40, 40] }",
        "{ layout: packed, trim: true, power_of_two: true }",
    ] {
        let keys = format!("{every}    pack: {pack}\n");
        let (files, drawn, _) = streamed_and_held(&keys, Keep::Trimmed);
        assert_eq!(drawn, 21, "{pack}");
        assert!(files.len() >= 21 + 1 + 2 + 12, "{pack}");
        for dither in ["none", "diffusion"] {
            let look =
                format!("{keys}    look: {{ palette: {{ colors: 6, dither: {dither} }} }}\n");
            streamed_and_held(&look, Keep::Trimmed);
        }
    }
}

/// What `--memory-limit` is checked against, on one thread and on two:
/// a grid sheet's pages and the frames in flight, never every frame.
#[test]
fn memory_is_the_sheet_and_the_frames_in_flight() {
    let dir = std::env::temp_dir().join("kiln-stream-memory");
    let beacon =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/model/kiln/beacon.rsm");
    let need = |keys: &str, threads: usize| -> u64 {
        let text = format!(
            "jobs:\n  - name: m\n    model: {}\n{keys}",
            beacon.display()
        );
        let job = Recipe::from_str(&text, &dir.join("r.yaml"))
            .unwrap()
            .jobs()
            .unwrap()
            .remove(0);
        let plan = kiln::internals::bake::run::plan_job(&job, &[]).unwrap();
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| plan.image_bytes(&job))
    };
    const MIB: u64 = 1 << 20;
    // The recipe: 8 × 64 frames of 8192², antialias 4, per-frame
    // PNGs: each thread's frame and its PNG, 512 MiB a thread (it held
    // 128 GiB before).
    let huge = "    size: 8192x8192\n    antialias: 4\n    directions: 8\n    clip: { frames: 64 }\n    output: { dir: out, sheet: false, gif: false, frames: 'f_{dir}_{frame}.png' }\n";
    assert_eq!(need(huge, 1), 512 * MIB);
    assert_eq!(need(huge, 2), 1024 * MIB);
    // A knot-like bake, 8 directions × 60 or 240 frames of 256² (four
    // clips of 60: a grid row of 240 frames is wider than a page) into one
    // grid sheet. Written as sheet + metadata, it is encoded in strips:
    // two grid rows of 60 frames, the rows of one band and each thread's
    // frame, whatever the frame count. Read back for frame PNGs, its pages
    // are held: four times the frames cost exactly the larger sheet's
    // bytes.
    let knot = |clips: usize| {
        let list: Vec<String> = (0..clips)
            .map(|c| format!("{{ name: c{c}, frames: 60 }}"))
            .collect();
        format!("    size: 256x256\n    directions: 8\n    clips: [{}]\n    output: {{ dir: out, sheet: '{{name}}.png', gif: false }}\n", list.join(", "))
    };
    let frame = 256 * 256 * 4;
    let strips = 2 * 60 * frame + kiln::internals::parallel_png::BAND as u64 + 60 * 256 * 4;
    assert_eq!(need(&knot(1), 2), strips + 2 * frame);
    assert_eq!(need(&knot(4), 2), strips + 2 * frame);
    let with_frames = |clips: usize| {
        knot(clips).replace(
            "gif: false",
            "gif: false, frames: 'f_{clip}_{dir}_{frame}.png'",
        )
    };
    let (f60, f240) = (need(&with_frames(1), 2), need(&with_frames(4), 2));
    // Each thread's frame and a batch of 64 encoded PNGs waiting.
    assert_eq!(f60, 480 * frame + 2 * frame + 64 * frame);
    assert_eq!(f240, 1920 * frame + 2 * frame + 64 * frame);
    // GIFs read each animation back out of the sheet, one a thread.
    let gifs = knot(1).replace("gif: false", "gif: '{name}_{dir}.gif'");
    assert_eq!(need(&gifs, 2), 480 * frame + 2 * 60 * frame * 2);
    // A packed sheet: every frame's box, counted whole before drawing,
    // and one page at a time (at most max_size, 4096² by default).
    let packed = format!("{}    pack: {{ layout: packed, trim: true }}\n", knot(1));
    assert_eq!(need(&packed, 2), 480 * frame + 4096 * 4096 * 4);
    // Frames held for GIFs without a sheet: all of them, and each
    // thread's animation's colours while its GIF is made.
    let gifs_alone = knot(1).replace(
        "sheet: '{name}.png', gif: false",
        "sheet: false, gif: '{name}_{dir}.gif'",
    );
    assert_eq!(need(&gifs_alone, 2), 480 * frame + 2 * 60 * frame);
}
