//! Writing an RSW file in its version and [`Layout`], so every reading the
//! parser knows can be built as a test file and every parsed file writes
//! back byte for byte.

use super::*;
use crate::formats::reader::Writer;

fn v3(w: &mut Writer, a: [f32; 3]) {
    w.vec3(glam::Vec3::from_array(a));
}

fn fixed(w: &mut Writer, n: &FixedName, width: usize) {
    if n.raw.len() == width {
        w.bytes(&n.raw);
    } else {
        w.fixed_name(n.text.as_bytes(), width);
    }
}

/// Counts are i32 in the file; a list too long for that cannot be written
/// faithfully anyway, so saturate rather than wrap.
fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Serialises in the layout of `rsw.major/minor` and `rsw.layout`; fields
/// that version and layout require but are absent are written as zeros
/// (the 2.7 model bytes as −1, their usual value). The quad tree and any
/// trailing bytes follow the objects as kept.
pub fn write(rsw: &Rsw) -> Vec<u8> {
    let v = (rsw.major, rsw.minor);
    let layout = rsw.layout;
    let mut w = Writer::new();
    w.bytes(b"GRSW").u8(rsw.major).u8(rsw.minor);
    if v >= (2, 5) {
        w.u32(rsw.build.unwrap_or(0));
        w.u8(rsw.render_flag.unwrap_or(0));
    } else if v >= (2, 2) {
        w.u8(rsw.build.unwrap_or(0) as u8);
    }
    if layout.release {
        w.i32(rsw.release.unwrap_or(0));
    }
    fixed(&mut w, &rsw.ini, 40);
    fixed(&mut w, &rsw.gnd, 40);
    if layout.gat_name {
        match &rsw.gat {
            Some(g) => fixed(&mut w, g, 40),
            None => {
                w.fixed_name(b"", 40);
            }
        }
    }
    fixed(&mut w, &rsw.src, 40);
    if ((1, 3)..(2, 6)).contains(&v) {
        let wt = rsw.water.clone().unwrap_or(Water {
            level: 0.0,
            water_type: None,
            wave_height: None,
            wave_speed: None,
            wave_pitch: None,
            anim_speed: None,
        });
        w.f32(wt.level);
        if v >= (1, 8) {
            w.i32(wt.water_type.unwrap_or(0))
                .f32(wt.wave_height.unwrap_or(0.0))
                .f32(wt.wave_speed.unwrap_or(0.0))
                .f32(wt.wave_pitch.unwrap_or(0.0));
        }
        if v >= (1, 9) {
            w.i32(wt.anim_speed.unwrap_or(0));
        }
    }
    if v >= (1, 5) {
        let l = rsw.light.clone().unwrap_or(Light {
            longitude: 0,
            latitude: 0,
            diffuse: [0.0; 3],
            ambient: [0.0; 3],
            shadow_opacity: None,
        });
        w.i32(l.longitude).i32(l.latitude);
        v3(&mut w, l.diffuse);
        v3(&mut w, l.ambient);
        if v >= (1, 7) {
            w.f32(l.shadow_opacity.unwrap_or(0.0));
        }
    }
    if v >= (1, 6) {
        for b in rsw.bounds.unwrap_or([0; 4]) {
            w.i32(b);
        }
    }
    if layout.extra_list {
        let list = rsw.extra_list.as_deref().unwrap_or(&[]);
        w.i32(count(list.len()));
        for x in list {
            w.i32(*x);
        }
    }
    w.i32(count(rsw.objects.len()));
    for o in &rsw.objects {
        object(&mut w, o, v, layout);
    }
    if let Some(q) = &rsw.quad_tree {
        w.bytes(q);
    }
    w.bytes(&rsw.trailing);
    w.into_bytes()
}

fn object(w: &mut Writer, o: &Object, v: (u8, u8), layout: Layout) {
    match o {
        Object::Model(m) => {
            w.i32(1);
            if v >= (1, 3) {
                match &m.name {
                    Some(n) => fixed(w, n, 40),
                    None => {
                        w.fixed_name(b"", 40);
                    }
                }
                w.i32(m.anim_type).f32(m.anim_speed).i32(m.block_type);
            }
            if layout.model_flag {
                w.u8(m.flag.unwrap_or(0));
            }
            if layout.model_extra {
                w.i32(m.extra.unwrap_or(-1));
            }
            fixed(w, &m.file, 80);
            fixed(w, &m.node, 80);
            v3(w, m.position);
            v3(w, m.rotation);
            v3(w, m.scale);
        }
        Object::Light(l) => {
            w.i32(2);
            fixed(w, &l.name, 80);
            v3(w, l.position);
            v3(w, l.color);
            w.f32(l.range);
        }
        Object::Sound(s) => {
            w.i32(3);
            fixed(w, &s.name, 80);
            fixed(w, &s.file, 80);
            v3(w, s.position);
            w.f32(s.volume).i32(s.width).i32(s.height).f32(s.range);
            if layout.sound_cycle {
                w.f32(s.cycle.unwrap_or(0.0));
            }
        }
        Object::Effect(e) => {
            w.i32(4);
            fixed(w, &e.name, 80);
            v3(w, e.position);
            w.i32(e.id).f32(e.delay);
            for p in e.param {
                w.f32(p);
            }
        }
    }
}
