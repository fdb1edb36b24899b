//! Ragnarok client sprites: SPR images ([`spr`]) and the ACT animations
//! that place them ([`act`]), each with a faithful reader and writer, and
//! their rows of the format table. An ACT names no SPR: the client loads
//! the SPR of the same name beside it (`4_m_orc.act` → `4_m_orc.spr`).

pub mod act;
pub mod spr;

pub use act::{Act, Action, Anchor, Frame, Layer};
pub use spr::{IndexedImage, RgbaImage, Spr};

use crate::error::Result;
use crate::formats::seam::{Context, Detail, FileKind, Format, Opened, Summary};
use crate::source::{Found, GamePath, Layout, Lookup, Tree};
use serde_json::{json, Value};
use std::path::Path;

/// Sprites live under `<root>/data/sprite/…`.
pub const LAYOUT: Layout = Layout {
    markers: &[("data", Some("sprite"))],
};

/// The SPR beside an ACT (the same name, `.spr`), in the ACT's own source.
pub fn companion_spr(lookup: &Lookup, act: &Tree) -> Option<Found> {
    companion(lookup, act, "spr")
}

/// The file of the same name with extension `ext` beside `file`, in its
/// own source (in any case, as the client's sources match names).
pub fn companion(lookup: &Lookup, file: &Tree, ext: &str) -> Option<Found> {
    let name = file.file.file_name()?;
    let stem = match name.iter().rposition(|&b| b == b'.') {
        Some(dot) => &name[..dot],
        None => name,
    };
    let mut other = stem.to_vec();
    other.push(b'.');
    other.extend_from_slice(ext.as_bytes());
    lookup.first([(
        file.source.clone(),
        file.folder().join(&GamePath::new(&other)),
    )])
}

/// SPR images.
pub(crate) struct SprFormat;

impl Format for SprFormat {
    fn sniff(&self, head: &[u8], _: &Path) -> bool {
        head.len() >= 4 && head.starts_with(spr::MAGIC) && spr::known_version(head[3], head[2])
    }
    fn role(&self) -> FileKind {
        FileKind::Sprite
    }
    fn layout(&self) -> Layout {
        LAYOUT
    }
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>> {
        Ok(Box::new(OpenSpr(spr::parse(bytes, file)?)))
    }
}

struct OpenSpr(Spr);

impl Opened for OpenSpr {
    fn summary(&self, cx: &Context) -> Result<Summary> {
        Ok(spr_summary(&self.0, cx.detail))
    }
}

/// ACT animations.
pub(crate) struct ActFormat;

impl Format for ActFormat {
    fn sniff(&self, head: &[u8], _: &Path) -> bool {
        head.len() >= 4 && head.starts_with(act::MAGIC) && act::known_version(head[3], head[2])
    }
    fn role(&self) -> FileKind {
        FileKind::Sprite
    }
    fn layout(&self) -> Layout {
        LAYOUT
    }
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>> {
        Ok(Box::new(OpenAct(act::parse(bytes, file)?)))
    }
}

struct OpenAct(Act);

impl Opened for OpenAct {
    fn summary(&self, cx: &Context) -> Result<Summary> {
        let act = &self.0;
        let mut summary = act_summary(act, cx.detail);
        match companion_spr(cx.lookup, &cx.tree) {
            Some(found) => {
                let bytes = cx.lookup.read(&found)?;
                let location = found.entry.location.clone();
                match spr::parse(&bytes, &location) {
                    Ok(s) => {
                        summary.notes.push(format!(
                            "images: {} (SPR {}: {} palette, {} RGBA)",
                            location.display(),
                            s.version(),
                            s.indexed.len(),
                            s.rgba.len()
                        ));
                        summary.warnings.extend(missing_images(act, &s));
                    }
                    Err(e) => summary
                        .warnings
                        .push(format!("its images could not be read: {e}")),
                }
            }
            None => summary.warnings.push(format!(
                "no SPR of the same name beside {}; the client could not draw it",
                cx.file.display()
            )),
        }
        Ok(summary)
    }
}

/// Layers naming an image the SPR does not hold, one line per kind of
/// mistake with its first place.
pub fn missing_images(act: &Act, spr: &Spr) -> Vec<String> {
    let mut out = Vec::new();
    let mut count = 0usize;
    let mut first = None;
    for (a, action) in act.actions.iter().enumerate() {
        for (f, frame) in action.frames.iter().enumerate() {
            for (l, layer) in frame.layers.iter().enumerate() {
                if layer.image < 0 {
                    continue;
                }
                let have = if layer.kind == 1 {
                    spr.rgba.len()
                } else {
                    spr.indexed.len()
                };
                if layer.image as usize >= have {
                    count += 1;
                    first.get_or_insert((a, f, l, layer.image, layer.kind));
                }
            }
        }
    }
    if let Some((a, f, l, image, kind)) = first {
        out.push(format!(
            "{count} layer(s) name an image the SPR does not hold (first: action {a} frame {f} \
             layer {l}, {} image {image}); the client draws nothing there",
            if kind == 1 { "RGBA" } else { "palette" }
        ));
    }
    out
}

/// Image sizes listed in the text report.
const SIZES_SHOWN: usize = 64;

fn spr_summary(s: &Spr, detail: Detail) -> Summary {
    let mut notes = vec![format!(
        "images: {} palette{}, {} RGBA",
        s.indexed.len(),
        if s.is_rle() {
            " (run-length coded)"
        } else {
            ""
        },
        s.rgba.len()
    )];
    // The first sizes only: a baked monster holds hundreds of images.
    let sizes = |dims: Vec<(u16, u16)>| {
        let mut s = dims
            .iter()
            .take(SIZES_SHOWN)
            .map(|(w, h)| format!("{w}×{h}"))
            .collect::<Vec<_>>()
            .join(" ");
        if dims.len() > SIZES_SHOWN {
            s.push_str(&format!(" … ({} more)", dims.len() - SIZES_SHOWN));
        }
        s
    };
    if !s.indexed.is_empty() {
        notes.push(format!(
            "  palette images: {}",
            sizes(s.indexed.iter().map(|i| (i.width, i.height)).collect())
        ));
    }
    if !s.rgba.is_empty() {
        notes.push(format!(
            "  RGBA images: {}",
            sizes(s.rgba.iter().map(|i| (i.width, i.height)).collect())
        ));
    }
    match &s.palette {
        Some(_) => {
            let mut used = [false; 256];
            for img in &s.indexed {
                for &px in &img.pixels {
                    used[px as usize] = true;
                }
            }
            notes.push(format!(
                "palette: 256 colours, {} used by the images (index 0 is transparent)",
                used.iter().filter(|&&u| u).count()
            ));
        }
        None => notes.push("palette: none (SPR 1.0)".into()),
    }
    let mut warnings = Vec::new();
    if !s.gap.is_empty() {
        warnings.push(format!(
            "{} bytes between the last image and the palette (kept as stored)",
            s.gap.len()
        ));
    }
    let image = |w: u16, h: u16| json!({"width": w, "height": h});
    let mut details = json!({
        "version": s.version(),
        "palette_images": s.indexed.len(),
        "rgba_images": s.rgba.len(),
    });
    if detail == Detail::Full {
        details["indexed"] =
            Value::Array(s.indexed.iter().map(|i| image(i.width, i.height)).collect());
        details["rgba"] = Value::Array(s.rgba.iter().map(|i| image(i.width, i.height)).collect());
        details["palette"] = match &s.palette {
            Some(p) => Value::Array(
                p.iter()
                    .map(|c| Value::String(crate::formats::json::to_hex(c)))
                    .collect(),
            ),
            None => Value::Null,
        };
        details["gap_bytes"] = json!(s.gap.len());
    }
    Summary {
        format: "Ragnarok sprite images (SPR)".into(),
        version: s.version(),
        details,
        notes,
        warnings,
        ..Summary::default()
    }
}

fn act_summary(act: &Act, detail: Detail) -> Summary {
    let frames: usize = act.actions.iter().map(|a| a.frames.len()).sum();
    let layers: usize = act
        .actions
        .iter()
        .flat_map(|a| &a.frames)
        .map(|f| f.layers.len())
        .sum();
    let anchors: usize = act
        .actions
        .iter()
        .flat_map(|a| &a.frames)
        .map(|f| f.anchors.len())
        .sum();
    let mut notes = vec![format!(
        "actions: {}{}, frames: {frames}, layers: {layers}, anchors: {anchors}",
        act.actions.len(),
        if act.actions.len().is_multiple_of(8) && !act.actions.is_empty() {
            format!(" ({} × 8 directions)", act.actions.len() / 8)
        } else {
            String::new()
        }
    )];
    let events: Vec<String> = (0..act.events.len())
        .map(|i| act.event_name(i).unwrap_or_default())
        .collect();
    if act.has_events() {
        notes.push(format!(
            "events ({}): {}",
            events.len(),
            if events.is_empty() {
                "none".to_string()
            } else {
                events
                    .iter()
                    .map(|e| format!("'{e}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ));
    }
    // A monster's or NPC's actions come in eights (one per direction);
    // directions alike in frames, interval and events share a line.
    let lines: Vec<(usize, String)> = act
        .actions
        .iter()
        .enumerate()
        .map(|(a, action)| (a, action_line(act, a, action)))
        .collect();
    let mut i = 0;
    while i < lines.len() {
        let group = &lines[i..(i + 8).min(lines.len())];
        if act.actions.len().is_multiple_of(8)
            && i.is_multiple_of(8)
            && group.iter().all(|(_, l)| *l == group[0].1)
        {
            notes.push(format!(
                "  motion {} (actions {}–{}): {}",
                i / 8,
                i,
                i + 7,
                group[0].1
            ));
            i += 8;
        } else {
            notes.push(format!("  action {}: {}", lines[i].0, lines[i].1));
            i += 1;
        }
    }
    let mut details = json!({
        "version": act.version(),
        "actions": act.actions.len(),
        "frames": frames,
        "layers": layers,
        "anchors": anchors,
        "events": events,
        "intervals": crate::formats::json::to_value(&act.intervals),
    });
    if detail == Detail::Full {
        details["reserved"] = json!(crate::formats::json::to_hex(&act.reserved));
        details["action_frames"] = Value::Array(
            act.actions
                .iter()
                .map(|a| Value::Array(a.frames.iter().map(frame_json).collect()))
                .collect(),
        );
    }
    Summary {
        format: "Ragnarok sprite animation (ACT)".into(),
        version: act.version(),
        details,
        notes,
        ..Summary::default()
    }
}

/// One action's frames, interval, events and anchors, for the text report.
fn action_line(act: &Act, a: usize, action: &Action) -> String {
    let mut line = format!("{} frames", action.frames.len());
    if let Some(i) = act.intervals.get(a) {
        line.push_str(&format!(", interval {i} ({} ms a frame)", i * TICK_MS));
    }
    let fired: Vec<String> = action
        .frames
        .iter()
        .enumerate()
        .filter(|(_, f)| f.event >= 0)
        .map(|(n, f)| match act.event_name(f.event as usize) {
            Some(name) => format!("{n}:'{name}'"),
            None => format!("{n}:#{} (no such event)", f.event),
        })
        .collect();
    if !fired.is_empty() {
        line.push_str(&format!(", events at frame {}", fired.join(" ")));
    }
    let anchored: Vec<&Anchor> = action
        .frames
        .iter()
        .flat_map(|f| f.anchors.first())
        .collect();
    if let Some(first) = anchored.first() {
        line.push_str(&format!(
            ", anchors in {} frames (first at {},{})",
            anchored.len(),
            first.x,
            first.y
        ));
    }
    line
}

/// Milliseconds of one animation tick: the client shows a frame for its
/// action's interval × 24 ms (RagnarokResearchLab's measurement; tools
/// long assumed 25).
pub const TICK_MS: f32 = 24.0;

fn frame_json(f: &Frame) -> Value {
    json!({
        "unknown": crate::formats::json::to_hex(&f.unknown),
        "event": f.event,
        "layers": f.layers.iter().map(|l| json!({
            "x": l.x, "y": l.y, "image": l.image, "mirror": l.mirror,
            "tint": l.tint, "scale": crate::formats::json::to_value(&l.scale), "rotation": l.rotation,
            "kind": l.kind, "size": l.size,
        })).collect::<Vec<_>>(),
        "anchors": f.anchors.iter().map(|a| json!({
            "unknown": crate::formats::json::to_hex(&a.unknown),
            "x": a.x, "y": a.y, "attribute": a.attribute,
        })).collect::<Vec<_>>(),
    })
}
