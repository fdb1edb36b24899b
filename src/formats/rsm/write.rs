use super::*;
use crate::formats::reader::Writer;

/// Serialises an `Rsm` in the layout of its `major.minor` version.
///
/// Fields the version has no room for are dropped (e.g. scale keys before
/// 1.6, texture animations before 2.3); `trailing_bytes` are not written, so
/// the output is the clean form of the parsed file.
pub fn write(rsm: &Rsm) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(b"GRSM").u8(rsm.major).u8(rsm.minor);
    if rsm.is_rsm2() {
        write_v2(&mut w, rsm);
    } else {
        write_v1(&mut w, rsm);
    }
    w.into_bytes()
}

fn write_v1(w: &mut Writer, rsm: &Rsm) {
    w.i32(rsm.anim_len).i32(rsm.shade_type);
    if rsm.at_least(1, 4) {
        w.u8(rsm.alpha);
    }
    w.bytes(&rsm.reserved);
    let mut names = FixedNames {
        raw: &rsm.raw_name_fields,
        next: 0,
    };
    w.i32(len(&rsm.textures));
    for t in &rsm.textures {
        names.put(w, t);
    }
    let main: &[u8] = rsm.root_names.first().map(|n| n.as_slice()).unwrap_or(b"");
    names.put(w, main);
    w.i32(len(&rsm.nodes));
    let colored = rsm.at_least(1, 2);
    let v15 = (rsm.major, rsm.minor) == (1, 5);
    let node_pos_keys = v15 && rsm.v15_layout == V15Layout::NodePositionKeys;
    for n in &rsm.nodes {
        names.put(w, &n.name);
        names.put(w, &n.parent);
        texture_ids(w, &n.texture_ids);
        matrix(w, n);
        w.vec3(n.position)
            .f32(n.rot_angle)
            .vec3(n.rot_axis)
            .vec3(n.scale);
        vertices(w, &n.vertices);
        w.i32(len(&n.tex_coords));
        for t in &n.tex_coords {
            if colored {
                w.u32(t.color);
            }
            w.f32(t.u).f32(t.v);
        }
        w.i32(len(&n.faces));
        for f in &n.faces {
            face_fixed(w, f);
            if colored {
                w.i32(f.smooth_groups.first().copied().unwrap_or(0));
            }
        }
        if rsm.at_least(1, 6) {
            scale_keys(w, &n.scale_keys);
        }
        rot_keys(w, &n.rot_keys);
        if node_pos_keys {
            pos_keys(w, &n.pos_keys);
        }
    }
    if v15 && rsm.v15_layout == V15Layout::EmptyModelBlock {
        w.i32(0);
    }
    if !rsm.at_least(1, 6) {
        pos_keys(w, &rsm.model_pos_keys);
    }
    volume_boxes(w, &rsm.volume_boxes, rsm.at_least(1, 3));
}

fn write_v2(w: &mut Writer, rsm: &Rsm) {
    let v23 = rsm.at_least(2, 3);
    w.i32(rsm.anim_len)
        .i32(rsm.shade_type)
        .u8(rsm.alpha)
        .f32(rsm.fps.unwrap_or(30.0));
    if !v23 {
        w.i32(len(&rsm.textures));
        for t in &rsm.textures {
            w.len_name(t);
        }
    }
    w.i32(len(&rsm.root_names));
    for r in &rsm.root_names {
        w.len_name(r);
    }
    w.i32(len(&rsm.nodes));
    for n in &rsm.nodes {
        w.len_name(&n.name).len_name(&n.parent);
        if v23 {
            w.i32(len(&n.texture_names));
            for t in &n.texture_names {
                w.len_name(t);
            }
        } else {
            texture_ids(w, &n.texture_ids);
        }
        matrix(w, n);
        vertices(w, &n.vertices);
        w.i32(len(&n.tex_coords));
        for t in &n.tex_coords {
            w.u32(t.color).f32(t.u).f32(t.v);
        }
        w.i32(len(&n.faces));
        for f in &n.faces {
            w.i32(20 + 4 * len(&f.smooth_groups));
            face_fixed(w, f);
            for g in &f.smooth_groups {
                w.i32(*g);
            }
        }
        scale_keys(w, &n.scale_keys);
        rot_keys(w, &n.rot_keys);
        pos_keys(w, &n.pos_keys);
        if v23 {
            w.i32(len(&n.tex_anims));
            for a in &n.tex_anims {
                w.i32(a.texture).i32(len(&a.channels));
                for c in &a.channels {
                    w.i32(c.kind).i32(len(&c.keys));
                    for k in &c.keys {
                        w.i32(k.frame).f32(k.value);
                    }
                }
            }
        }
    }
    // A 2.3 model with boxes needs the block whatever the flag says.
    if !v23 || rsm.volume_box_block || !rsm.volume_boxes.is_empty() {
        volume_boxes(w, &rsm.volume_boxes, true);
    }
}

/// Writes 40-byte names, reusing the parsed raw field (with whatever bytes
/// followed its NUL) as long as the name in it is unchanged.
struct FixedNames<'a> {
    raw: &'a [[u8; 40]],
    next: usize,
}

impl FixedNames<'_> {
    fn put(&mut self, w: &mut Writer, name: &[u8]) {
        let raw = self.raw.get(self.next);
        self.next += 1;
        match raw {
            Some(f) if crate::text::until_nul(f) == name => {
                w.bytes(f);
            }
            _ => {
                w.fixed_name(name, 40);
            }
        }
    }
}

/// Counts are i32 in the file; a model too large for that cannot be written
/// faithfully anyway, so saturate rather than wrap.
fn len<T>(v: &[T]) -> i32 {
    i32::try_from(v.len()).unwrap_or(i32::MAX)
}

fn texture_ids(w: &mut Writer, ids: &[i32]) {
    w.i32(len(ids));
    for id in ids {
        w.i32(*id);
    }
}

fn matrix(w: &mut Writer, n: &RsmNode) {
    for m in n.matrix {
        w.f32(m);
    }
    w.vec3(n.offset);
}

fn vertices(w: &mut Writer, v: &[Vec3]) {
    w.i32(len(v));
    for p in v {
        w.vec3(*p);
    }
}

fn face_fixed(w: &mut Writer, f: &Face) {
    for v in f.vertex_ids {
        w.u16(v);
    }
    for t in f.tex_coord_ids {
        w.u16(t);
    }
    w.u16(f.texture_id).u16(f.padding).i32(f.two_side);
}

fn scale_keys(w: &mut Writer, keys: &[ScaleKey]) {
    w.i32(len(keys));
    for k in keys {
        w.i32(k.frame).vec3(k.scale).f32(k.data);
    }
}

fn rot_keys(w: &mut Writer, keys: &[RotKey]) {
    w.i32(len(keys));
    for k in keys {
        w.i32(k.frame).quat_xyzw(k.rotation);
    }
}

fn pos_keys(w: &mut Writer, keys: &[PosKey]) {
    w.i32(len(keys));
    for k in keys {
        w.i32(k.frame).vec3(k.position).u32(k.data);
    }
}

fn volume_boxes(w: &mut Writer, boxes: &[VolumeBox], with_flag: bool) {
    w.i32(len(boxes));
    for b in boxes {
        w.vec3(b.size).vec3(b.position).vec3(b.rotation);
        if with_flag {
            w.i32(b.flag);
        }
    }
}
