//! Ragnarok ACT sprite animations (1.x, 2.0–2.5).
//!
//! "AC", the version as a minor byte before a major byte, a `u16` action
//! count and 10 bytes the client ignores; per action a `u32` frame count
//! and its frames: 32 ignored bytes, a `u32` layer count and the layers
//! (position, image index, mirror flag; from 2.0 tint, scale, rotation and
//! image type; the scale per axis from 2.4; the drawn size from 2.5), from
//! 2.0 an event index, from 2.3 the anchors. After the actions: from 2.1
//! the event names (40 bytes each), from 2.2 one frame interval per action
//! (a float, in the client's animation ticks).
//!
//! Fields the client ignores are kept as stored, so a file writes back byte
//! for byte.

use crate::error::ParseError;
use crate::formats::reader::{Reader, Writer};
use std::path::Path;

/// The two bytes every ACT file starts with.
pub const MAGIC: &[u8; 2] = b"AC";
/// Bytes of one event name.
pub const EVENT_NAME_BYTES: usize = 40;
/// Bytes before the first action: magic, version, action count, reserved.
const HEADER_BYTES: usize = 2 + 2 + 2 + 10;

/// One ACT file, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Act {
    /// Major version (1 or 2).
    pub major: u8,
    /// Minor version (0–5).
    pub minor: u8,
    /// The header's 10 ignored bytes.
    pub reserved: [u8; 10],
    /// The actions; a monster's or NPC's hold 8 directions each, in turn.
    pub actions: Vec<Action>,
    /// Event names as stored (NUL-padded, 40 bytes), 2.1 on; frames name
    /// them by index.
    pub events: Vec<[u8; EVENT_NAME_BYTES]>,
    /// One frame interval per action in animation ticks (2.2 on).
    pub intervals: Vec<f32>,
}

/// One action (one direction of one motion).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Action {
    /// Its frames, shown in turn.
    pub frames: Vec<Frame>,
}

/// One frame: the layers drawn over each other, first at the bottom.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Frame {
    /// The 32 bytes each frame starts with, which the client ignores.
    pub unknown: [u8; 32],
    /// Layers, drawn in order.
    pub layers: Vec<Layer>,
    /// Index into [`Act::events`] fired when the frame shows; -1 for none
    /// (2.0 on; always -1 before).
    pub event: i32,
    /// Attachment points (2.3 on).
    pub anchors: Vec<Anchor>,
}

/// One image placed in a frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layer {
    /// Offset of the image's centre from the entity position, in pixels
    /// (y down).
    pub x: i32,
    /// As `x`.
    pub y: i32,
    /// Index into the SPR images of [`Layer::kind`]; -1 draws nothing.
    pub image: i32,
    /// Non-zero mirrors the image left to right.
    pub mirror: i32,
    /// Multiplied into the image's colour, R, G, B, A (2.0 on; white
    /// before).
    pub tint: [u8; 4],
    /// Scale along x and y (2.0 on, one value for both before 2.4).
    pub scale: [f32; 2],
    /// Clockwise rotation in degrees (2.0 on).
    pub rotation: i32,
    /// 0: a palette image, 1: an RGBA image (2.0 on).
    pub kind: i32,
    /// The drawn size as stored (2.5 on).
    pub size: Option<[i32; 2]>,
}

impl Default for Layer {
    fn default() -> Self {
        Layer {
            x: 0,
            y: 0,
            image: -1,
            mirror: 0,
            tint: [255; 4],
            scale: [1.0, 1.0],
            rotation: 0,
            kind: 0,
            size: None,
        }
    }
}

/// An attachment point of a frame (heads to bodies, 2.3 on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Anchor {
    /// The 4 bytes each anchor starts with, which the client ignores.
    pub unknown: [u8; 4],
    /// Offset from the entity position, in pixels.
    pub x: i32,
    /// As `x`.
    pub y: i32,
    /// Stored as is.
    pub attribute: i32,
}

impl Act {
    /// Version as "major.minor".
    pub fn version(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }

    fn at_least(&self, minor: u8) -> bool {
        (self.major, self.minor) >= (2, minor)
    }

    /// Whether frames hold an event index and layers tint, scale, rotation
    /// and image type (2.0 on).
    pub fn has_layer_style(&self) -> bool {
        self.at_least(0)
    }
    /// Whether the file lists event names (2.1 on).
    pub fn has_events(&self) -> bool {
        self.at_least(1)
    }
    /// Whether the file holds frame intervals (2.2 on).
    pub fn has_intervals(&self) -> bool {
        self.at_least(2)
    }
    /// Whether frames hold anchors (2.3 on).
    pub fn has_anchors(&self) -> bool {
        self.at_least(3)
    }
    /// Whether layers scale each axis on its own (2.4 on).
    pub fn has_axis_scale(&self) -> bool {
        self.at_least(4)
    }
    /// Whether layers store their drawn size (2.5 on).
    pub fn has_layer_size(&self) -> bool {
        self.at_least(5)
    }

    /// Bytes one layer takes in this version.
    pub fn layer_bytes(&self) -> usize {
        let mut n = 16;
        if self.has_layer_style() {
            n += 16;
        }
        if self.has_axis_scale() {
            n += 4;
        }
        if self.has_layer_size() {
            n += 8;
        }
        n
    }

    /// Bytes one frame takes in this version.
    fn frame_bytes(&self, frame: &Frame) -> usize {
        let mut n = 32 + 4 + frame.layers.len() * self.layer_bytes();
        if self.has_layer_style() {
            n += 4;
        }
        if self.has_anchors() {
            n += 4 + 16 * frame.anchors.len();
        }
        n
    }

    /// Where layer `layer` of frame `frame` of action `action` is stored in
    /// the file this was parsed from (every field has a fixed size, so the
    /// offsets follow from the counts).
    pub fn layer_offset(&self, action: usize, frame: usize, layer: usize) -> usize {
        let frames_before = |a: &Action, n: usize| -> usize {
            a.frames.iter().take(n).map(|f| self.frame_bytes(f)).sum()
        };
        let mut at = HEADER_BYTES;
        for a in self.actions.iter().take(action) {
            at += 4 + frames_before(a, a.frames.len());
        }
        if let Some(a) = self.actions.get(action) {
            at += 4 + frames_before(a, frame);
        }
        at + 32 + 4 + layer * self.layer_bytes()
    }

    /// Event `i`'s name up to its first NUL, decoded from CP949.
    pub fn event_name(&self, i: usize) -> Option<String> {
        let raw = self.events.get(i)?;
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        Some(crate::text::decode_cp949(&raw[..end]))
    }
}

/// Whether `(major, minor)` is an ACT version kiln reads and writes.
pub fn known_version(major: u8, minor: u8) -> bool {
    matches!((major, minor), (1, 0..=9) | (2, 0..=5))
}

/// Parses a whole ACT file. Every count is checked against the bytes left
/// before anything is allocated; bytes after the intervals are an error.
pub fn parse(data: &[u8], file: &Path) -> Result<Act, ParseError> {
    let mut r = Reader::new(data, file);
    let magic = r.bytes(2, "magic")?;
    if magic != MAGIC {
        return Err(r.error_at(0, "magic", format!("expected \"AC\", found {magic:02x?}")));
    }
    let minor = r.u8("version.minor")?;
    let major = r.u8("version.major")?;
    if !known_version(major, minor) {
        return Err(r.error_at(
            2,
            "version",
            format!("ACT {major}.{minor} is not a known version (1.x, 2.0–2.5)"),
        ));
    }
    let count_at = r.pos();
    let action_count = r.u16("action_count")? as usize;
    let mut reserved = [0u8; 10];
    reserved.copy_from_slice(r.bytes(10, "reserved")?);
    let mut act = Act {
        major,
        minor,
        reserved,
        actions: Vec::new(),
        events: Vec::new(),
        intervals: Vec::new(),
    };
    r.check_count(count_at, "action_count", action_count as u64, 4)?;
    act.actions.reserve(action_count);
    let frame_min = 36 + if act.has_layer_style() { 4 } else { 0 };
    for a in 0..action_count {
        let field = format!("action[{a}].frame_count");
        let n = r.count_u32(&field, frame_min)?;
        let mut frames = Vec::with_capacity(n);
        for f in 0..n {
            frames.push(read_frame(
                &mut r,
                &act,
                &format!("action[{a}].frame[{f}]"),
            )?);
        }
        act.actions.push(Action { frames });
    }
    if act.has_events() {
        let n = r.count_i32("event_count", EVENT_NAME_BYTES)?;
        act.events.reserve(n);
        for i in 0..n {
            let mut name = [0u8; EVENT_NAME_BYTES];
            name.copy_from_slice(r.bytes(EVENT_NAME_BYTES, &format!("event[{i}]"))?);
            act.events.push(name);
        }
    }
    if act.has_intervals() {
        r.check_count(r.pos(), "intervals", action_count as u64, 4)?;
        for a in 0..action_count {
            act.intervals.push(r.f32(&format!("interval[{a}]"))?);
        }
    }
    if !r.at_end() {
        return Err(r.error(
            "end",
            format!(
                "{} bytes follow the last field of ACT {}",
                r.remaining(),
                act.version()
            ),
        ));
    }
    Ok(act)
}

fn read_frame(r: &mut Reader, act: &Act, field: &str) -> Result<Frame, ParseError> {
    let mut frame = Frame {
        event: -1,
        ..Frame::default()
    };
    frame
        .unknown
        .copy_from_slice(r.bytes(32, &format!("{field}.unknown"))?);
    let n = r.count_u32(&format!("{field}.layer_count"), act.layer_bytes())?;
    frame.layers.reserve(n);
    for l in 0..n {
        frame
            .layers
            .push(read_layer(r, act, &format!("{field}.layer[{l}]"))?);
    }
    if act.has_layer_style() {
        frame.event = r.i32(&format!("{field}.event"))?;
    }
    if act.has_anchors() {
        let n = r.count_i32(&format!("{field}.anchor_count"), 16)?;
        frame.anchors.reserve(n);
        for i in 0..n {
            let f = format!("{field}.anchor[{i}]");
            let mut unknown = [0u8; 4];
            unknown.copy_from_slice(r.bytes(4, &f)?);
            frame.anchors.push(Anchor {
                unknown,
                x: r.i32(&f)?,
                y: r.i32(&f)?,
                attribute: r.i32(&f)?,
            });
        }
    }
    Ok(frame)
}

fn read_layer(r: &mut Reader, act: &Act, field: &str) -> Result<Layer, ParseError> {
    let mut layer = Layer {
        x: r.i32(&format!("{field}.x"))?,
        y: r.i32(&format!("{field}.y"))?,
        image: r.i32(&format!("{field}.image"))?,
        mirror: r.i32(&format!("{field}.mirror"))?,
        ..Layer::default()
    };
    if act.has_layer_style() {
        let t = r.bytes(4, &format!("{field}.tint"))?;
        layer.tint = [t[0], t[1], t[2], t[3]];
        let sx = r.f32(&format!("{field}.scale"))?;
        let sy = if act.has_axis_scale() {
            r.f32(&format!("{field}.scale_y"))?
        } else {
            sx
        };
        layer.scale = [sx, sy];
        layer.rotation = r.i32(&format!("{field}.rotation"))?;
        layer.kind = r.i32(&format!("{field}.kind"))?;
    }
    if act.has_layer_size() {
        layer.size = Some([
            r.i32(&format!("{field}.width"))?,
            r.i32(&format!("{field}.height"))?,
        ]);
    }
    Ok(layer)
}

fn invalid(message: String) -> ParseError {
    ParseError {
        file: "<act>".into(),
        field: "write".into(),
        offset: 0,
        message,
    }
}

/// Writes `act` in its own version: a file read by [`parse`] comes back
/// byte for byte. Fails when the version cannot hold what it is given:
/// more than 65,535 actions, intervals not one per action (2.2 on), events
/// before 2.1, anchors before 2.3, a layer's own y scale before 2.4, a
/// layer without its size in 2.5 (or with one before).
pub fn write(act: &Act) -> Result<Vec<u8>, ParseError> {
    if !known_version(act.major, act.minor) {
        return Err(invalid(format!(
            "ACT {} is not a version kiln writes",
            act.version()
        )));
    }
    let v = act.version();
    let actions = u16::try_from(act.actions.len())
        .map_err(|_| invalid(format!("{} actions (at most 65,535)", act.actions.len())))?;
    if act.has_intervals() && act.intervals.len() != act.actions.len() {
        return Err(invalid(format!(
            "{} intervals for {} actions",
            act.intervals.len(),
            act.actions.len()
        )));
    }
    if !act.has_intervals() && !act.intervals.is_empty() {
        return Err(invalid(format!(
            "ACT {v} holds no intervals; use 2.2 or later"
        )));
    }
    if !act.has_events() && !act.events.is_empty() {
        return Err(invalid(format!(
            "ACT {v} holds no events; use 2.1 or later"
        )));
    }
    let mut w = Writer::new();
    w.bytes(MAGIC).u8(act.minor).u8(act.major).u16(actions);
    w.bytes(&act.reserved);
    for (a, action) in act.actions.iter().enumerate() {
        w.u32(action.frames.len() as u32);
        for (f, frame) in action.frames.iter().enumerate() {
            let at = || format!("action {a} frame {f}");
            w.bytes(&frame.unknown);
            w.u32(frame.layers.len() as u32);
            for layer in &frame.layers {
                write_layer(&mut w, act, layer).map_err(|m| invalid(format!("{}: {m}", at())))?;
            }
            if act.has_layer_style() {
                w.i32(frame.event);
            } else if frame.event != -1 {
                return Err(invalid(format!("{}: ACT {v} holds no events", at())));
            }
            if act.has_anchors() {
                w.u32(frame.anchors.len() as u32);
                for anchor in &frame.anchors {
                    w.bytes(&anchor.unknown)
                        .i32(anchor.x)
                        .i32(anchor.y)
                        .i32(anchor.attribute);
                }
            } else if !frame.anchors.is_empty() {
                return Err(invalid(format!(
                    "{}: ACT {v} holds no anchors; use 2.3 or later",
                    at()
                )));
            }
        }
    }
    if act.has_events() {
        w.u32(act.events.len() as u32);
        for e in &act.events {
            w.bytes(e);
        }
    }
    for i in &act.intervals {
        w.f32(*i);
    }
    Ok(w.into_bytes())
}

fn write_layer(w: &mut Writer, act: &Act, l: &Layer) -> Result<(), String> {
    w.i32(l.x).i32(l.y).i32(l.image).i32(l.mirror);
    let plain = Layer {
        x: l.x,
        y: l.y,
        image: l.image,
        mirror: l.mirror,
        ..Layer::default()
    };
    if act.has_layer_style() {
        w.bytes(&l.tint).f32(l.scale[0]);
        if act.has_axis_scale() {
            w.f32(l.scale[1]);
        } else if l.scale[1].to_bits() != l.scale[0].to_bits() {
            return Err(format!(
                "ACT {} scales both axes alike; use 2.4 or later",
                act.version()
            ));
        }
        w.i32(l.rotation).i32(l.kind);
    } else if (Layer {
        size: l.size,
        ..plain
    }) != *l
    {
        return Err(format!(
            "ACT {} holds no tint, scale, rotation or image type",
            act.version()
        ));
    }
    match (act.has_layer_size(), l.size) {
        (true, Some([sw, sh])) => {
            w.i32(sw).i32(sh);
        }
        (false, None) => {}
        (true, None) => return Err("ACT 2.5 stores every layer's size".into()),
        (false, Some(_)) => {
            return Err(format!(
                "ACT {} stores no layer size; use 2.5",
                act.version()
            ))
        }
    }
    Ok(())
}
