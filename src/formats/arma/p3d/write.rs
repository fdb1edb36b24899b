//! Writing an MLOD file back byte for byte.

use super::*;
use crate::formats::reader::Writer;

/// Writes an MLOD file. `write(&parse(f)?) == f` for every corpus MLOD.
pub fn write(m: &Mlod) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(b"MLOD").u32(MLOD_VERSION).u32(m.lods.len() as u32);
    for lod in &m.lods {
        write_lod(&mut w, lod);
    }
    w.into_bytes()
}

pub(super) fn write_lod(w: &mut Writer, lod: &Lod) {
    w.bytes(b"P3DM")
        .u32(lod.version_major)
        .u32(lod.version_minor)
        .u32(lod.points.len() as u32)
        .u32(lod.normals.len() as u32)
        .u32(lod.faces.len() as u32)
        .u32(lod.flags);
    for p in &lod.points {
        w.vec3(p.pos).u32(p.flags);
    }
    for n in &lod.normals {
        w.vec3(*n);
    }
    for f in &lod.faces {
        w.u32(f.sides);
        for v in &f.vertices {
            w.u32(v.point).u32(v.normal).f32(v.u).f32(v.v);
        }
        w.u32(f.flags)
            .asciiz(&latin1_bytes(&f.texture))
            .asciiz(&latin1_bytes(&f.material));
    }
    w.bytes(b"TAGG");
    let order: Vec<TagRef> = if lod.tag_order.is_empty() {
        (0..lod.selections.len())
            .map(TagRef::Selection)
            .chain((0..lod.animations.len()).map(TagRef::Animation))
            .chain((0..lod.other_tags.len()).map(TagRef::Other))
            .collect()
    } else {
        lod.tag_order.clone()
    };
    for t in order {
        match t {
            TagRef::Selection(i) => {
                let Some(s) = lod.selections.get(i) else {
                    continue;
                };
                let mut data: Vec<u8> = (0..lod.points.len())
                    .map(|k| encode_weight(s.point_weights.get(k).copied().unwrap_or(0.0)))
                    .collect();
                data.extend(
                    (0..lod.faces.len())
                        .map(|k| u8::from(s.face_selected.get(k).copied().unwrap_or(false))),
                );
                tag(w, s.active, &s.name, &data);
            }
            TagRef::Animation(i) => {
                let Some(a) = lod.animations.get(i) else {
                    continue;
                };
                let mut tw = Writer::new();
                tw.f32(a.phase);
                for k in 0..lod.points.len() {
                    // A short position list falls back to the rest pose so
                    // the tag keeps the size the format requires.
                    let p = a.positions.get(k).copied().unwrap_or(lod.points[k].pos);
                    tw.vec3(p);
                }
                tag(w, a.active, ANIMATION_TAG, &tw.into_bytes());
            }
            TagRef::Other(i) => {
                if let Some(t) = lod.other_tags.get(i) {
                    tag(w, t.active, &t.name, &t.data);
                }
            }
        }
    }
    tag(w, true, END_OF_FILE_TAG, &[]);
    w.f32(lod.resolution);
}

pub(super) fn tag(w: &mut Writer, active: bool, name: &str, data: &[u8]) {
    w.u8(u8::from(active))
        .asciiz(&latin1_bytes(name))
        .u32(data.len() as u32)
        .bytes(data);
}
