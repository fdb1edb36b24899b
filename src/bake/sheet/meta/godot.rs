//! A Godot 4 `SpriteFrames` resource in the text format (`.tres`) that an
//! `AnimatedSprite2D` takes as it is.
//!
//! What Godot's loader needs, from its `resource_format_text.cpp` and
//! `sprite_frames.cpp`:
//! - a `[gd_resource type="SpriteFrames" … format=3]` header;
//! - each page as an `[ext_resource type="Texture2D" path=… id=…]`; a path
//!   without `://` is taken relative to the `.tres` file, so the sheet
//!   beside it is found wherever the folder is imported;
//! - each stored frame as an `[sub_resource type="AtlasTexture"]` with
//!   `atlas`, `region` (the frame on its page) and, for a trimmed frame,
//!   `margin` — `Rect2(left, top, width added, height added)`: Godot draws
//!   the region offset by the margin's position and sizes the texture as
//!   region plus margin, so a trimmed frame keeps its untrimmed size and
//!   place; `filter_clip` keeps filtering inside the region;
//! - the `[resource]`'s `animations`: an array of dictionaries with
//!   `name` (a StringName), `speed` (frames per second), `loop`, and
//!   `frames`, each `{duration, texture}` where `duration` is relative to
//!   one frame at `speed` — the frame's milliseconds times speed / 1000,
//!   so frames hold what the GIF holds. `_set_animations` skips an entry
//!   missing any of the four keys.
//!
//! One animation per clip × direction, named like the tags. The pivot of
//! each animation (pixels from the untrimmed frame's top-left) is in the
//! resource's `metadata/pivots`, and the per-frame root motion of clips
//! drawn in place in `metadata/root_motion`; an `AnimatedSprite2D` with
//! `centered = false` and `offset = -pivot` stands on its pivot.

use crate::bake::sheet::atlas::{Atlas, AtlasFrame, AtlasJob, Rect};
use std::fmt::Write;

/// The `.tres` of `atlas`; `images[p]` is page `p`'s file relative to the
/// `.tres`.
pub fn tres(atlas: &Atlas, job: &AtlasJob<'_>, images: &[String]) -> String {
    // One AtlasTexture per distinct place; twins share theirs.
    let mut subs: Vec<(usize, Rect, Rect, (u32, u32))> = Vec::new();
    let mut sub_of: Vec<usize> = Vec::with_capacity(atlas.frames.len());
    for f in &atlas.frames {
        let key = (f.page, f.rect, f.source, f.source_size);
        let i = match subs.iter().position(|s| *s == key) {
            Some(i) => i,
            None => {
                subs.push(key);
                subs.len() - 1
            }
        };
        sub_of.push(i);
    }
    let mut out = String::new();
    let steps = atlas.pages.len() + subs.len() + 1;
    let _ = writeln!(
        out,
        "[gd_resource type=\"SpriteFrames\" load_steps={steps} format=3]\n"
    );
    for p in 0..atlas.pages.len() {
        let path = images.get(p).map_or("", String::as_str);
        let _ = writeln!(
            out,
            "[ext_resource type=\"Texture2D\" path={} id=\"{}_page{p}\"]",
            quoted(path),
            p + 1
        );
    }
    out.push('\n');
    for (i, (page, rect, source, (w, h))) in subs.iter().enumerate() {
        let _ = writeln!(
            out,
            "[sub_resource type=\"AtlasTexture\" id=\"AtlasTexture_{i}\"]"
        );
        let _ = writeln!(out, "atlas = ExtResource(\"{}_page{page}\")", page + 1);
        let _ = writeln!(
            out,
            "region = Rect2({}, {}, {}, {})",
            rect.x, rect.y, rect.w, rect.h
        );
        if (source.x, source.y, source.w, source.h) != (0, 0, *w, *h) {
            let _ = writeln!(
                out,
                "margin = Rect2({}, {}, {}, {})",
                source.x,
                source.y,
                w.saturating_sub(source.w),
                h.saturating_sub(source.h)
            );
        }
        let _ = writeln!(out, "filter_clip = true\n");
    }
    out.push_str("[resource]\nanimations = [");
    for (k, t) in atlas.tags.iter().enumerate() {
        let clip = job.clips.get(t.clip);
        let speed = clip.map_or(0.0, |c| c.fps());
        let speed = if speed > 0.0 { speed } else { 1.0 };
        let looping = clip.is_none_or(|c| c.looping);
        if k > 0 {
            out.push_str(", ");
        }
        out.push_str("{\n\"frames\": [");
        for (n, i) in (t.from..=t.to).enumerate() {
            let (Some(f), Some(&sub)) = (atlas.frames.get(i), sub_of.get(i)) else {
                continue;
            };
            let duration = if f.duration_ms > 0 {
                f.duration_ms as f64 * speed as f64 / 1000.0
            } else {
                1.0
            };
            if n > 0 {
                out.push_str(", ");
            }
            let _ = write!(
                out,
                "{{\n\"duration\": {},\n\"texture\": SubResource(\"AtlasTexture_{sub}\")\n}}",
                number(duration)
            );
        }
        let _ = write!(
            out,
            "],\n\"loop\": {looping},\n\"name\": &{},\n\"speed\": {}\n}}",
            quoted(&t.name),
            number(speed as f64)
        );
    }
    out.push_str("]\n");
    out.push_str("metadata/pivots = {");
    for (k, t) in atlas.tags.iter().enumerate() {
        let Some(f) = atlas.frames.get(t.from) else {
            continue;
        };
        let _ = write!(
            out,
            "{}\n{}: Vector2({}, {})",
            if k > 0 { "," } else { "" },
            quoted(&t.name),
            number(f.pivot[0] as f64 * f.source_size.0 as f64),
            number(f.pivot[1] as f64 * f.source_size.1 as f64)
        );
    }
    out.push_str("\n}\n");
    let moving: Vec<_> = atlas
        .tags
        .iter()
        .filter(|t| frames(atlas, t.from, t.to).any(|f| f.root_motion.is_some()))
        .collect();
    if !moving.is_empty() {
        out.push_str("metadata/root_motion = {");
        for (k, t) in moving.iter().enumerate() {
            let v: Vec<String> = frames(atlas, t.from, t.to)
                .flat_map(|f| {
                    let m = f.root_motion.unwrap_or([0.0, 0.0]);
                    [number(m[0] as f64), number(m[1] as f64)]
                })
                .collect();
            let _ = write!(
                out,
                "{}\n{}: PackedVector2Array({})",
                if k > 0 { "," } else { "" },
                quoted(&t.name),
                v.join(", ")
            );
        }
        out.push_str("\n}\n");
    }
    out
}

fn frames(atlas: &Atlas, from: usize, to: usize) -> impl Iterator<Item = &AtlasFrame> {
    atlas.frames.get(from..=to).unwrap_or(&[]).iter()
}

/// A string literal as Godot's variant parser reads it.
fn quoted(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// A float as Godot writes one: whole numbers with `.0`, others in the
/// fewest digits that read back the same, to 1/10000.
fn number(v: f64) -> String {
    let r = (v * 10000.0).round() / 10000.0;
    let r = if r == 0.0 { 0.0 } else { r };
    if r == r.trunc() {
        format!("{r:.1}")
    } else {
        format!("{r}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_strings_read_back_in_godot() {
        assert_eq!(number(15.0), "15.0");
        assert_eq!(number(0.96), "0.96");
        assert_eq!(number(1.0799999), "1.08");
        assert_eq!(number(-0.0), "0.0");
        assert_eq!(number(-2.5), "-2.5");
        assert_eq!(quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
    }
}
