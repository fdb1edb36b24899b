//! `kiln inspect --json` shows every field the parser holds: for every RSW,
//! RSM and GND of the corpus (and kiln's own samples) the parsed structs and
//! the printed JSON are walked together, field by field. Every struct is
//! taken apart with a pattern naming all its fields, so a field added to a
//! parser without reaching the JSON fails to compile here, and every JSON
//! object must hold exactly the keys walked, so nothing unexplained is
//! printed either.

use crate::common::{kiln, stderr};

use glam::{Quat, Vec3};
use kiln::internals::formats::json::to_hex;
use kiln::internals::formats::rsw::{
    self, Effect, FixedName, Layout, Light, LightSource, ModelInstance, Object, QuadNode, Rsw,
    Sound, Water,
};
use kiln::internals::text::decode_cp949;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Every file under `dir` whose name ends with one of `exts`, sorted.
pub(crate) fn files(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, exts, out);
        } else {
            let name = p.file_name().unwrap().to_string_lossy().to_lowercase();
            if exts.iter().any(|e| name.ends_with(e)) {
                out.push(p);
            }
        }
    }
}

/// `details` of `kiln inspect --json FILE`.
pub(crate) fn details(file: &Path) -> Value {
    let o = kiln(
        &["inspect", "--json", file.to_str().unwrap()],
        Path::new("."),
    );
    assert!(o.status.success(), "{}: {}", file.display(), stderr(&o));
    let mut j: Value = serde_json::from_slice(&o.stdout).unwrap();
    j["details"].take()
}

/// Checks that `j` is an object with exactly `keys`.
pub(crate) fn keys(j: &Value, at: &str, keys: &[&str]) {
    let obj = j
        .as_object()
        .unwrap_or_else(|| panic!("{at}: not an object: {j}"));
    let mut have: Vec<&str> = obj.keys().map(|k| k.as_str()).collect();
    let mut want = keys.to_vec();
    have.sort_unstable();
    want.sort_unstable();
    assert_eq!(have, want, "{at}");
}

pub(crate) fn int(j: &Value, v: i64, at: &str) {
    assert_eq!(j.as_i64(), Some(v), "{at}: {j}");
}

pub(crate) fn boolean(j: &Value, v: bool, at: &str) {
    assert_eq!(j.as_bool(), Some(v), "{at}: {j}");
}

/// An f32 as JSON: the same number (non-finite values print as null).
pub(crate) fn float(j: &Value, v: f32, at: &str) {
    if v.is_finite() {
        let got = j.as_f64().unwrap_or_else(|| panic!("{at}: {j}")) as f32;
        assert_eq!(got.to_bits(), v.to_bits(), "{at}: {j} vs {v}");
    } else {
        assert!(j.is_null(), "{at}: {j}");
    }
}

pub(crate) fn floats(j: &Value, v: &[f32], at: &str) {
    let a = j.as_array().unwrap_or_else(|| panic!("{at}: {j}"));
    assert_eq!(a.len(), v.len(), "{at}");
    for (i, (x, y)) in a.iter().zip(v).enumerate() {
        float(x, *y, &format!("{at}[{i}]"));
    }
}

pub(crate) fn vec3(j: &Value, v: Vec3, at: &str) {
    floats(j, &v.to_array(), at);
}

pub(crate) fn quat(j: &Value, q: Quat, at: &str) {
    floats(j, &q.to_array(), at);
}

pub(crate) fn text(j: &Value, v: &str, at: &str) {
    assert_eq!(j.as_str(), Some(v), "{at}");
}

pub(crate) fn hex(j: &Value, v: &[u8], at: &str) {
    assert_eq!(j.as_str(), Some(to_hex(v).as_str()), "{at}");
}

pub(crate) fn ints(j: &Value, v: &[i64], at: &str) {
    let got: Vec<i64> = j
        .as_array()
        .unwrap_or_else(|| panic!("{at}: {j}"))
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect();
    assert_eq!(got, v, "{at}");
}

pub(crate) fn array<'a>(j: &'a Value, len: usize, at: &str) -> &'a [Value] {
    let a = j.as_array().unwrap_or_else(|| panic!("{at}: {j}"));
    assert_eq!(a.len(), len, "{at}");
    a
}

pub(crate) fn strings(j: &Value, v: &[String], at: &str) {
    let a = array(j, v.len(), at);
    for (i, (x, y)) in a.iter().zip(v).enumerate() {
        text(x, y, &format!("{at}[{i}]"));
    }
}

pub(crate) fn opt<T>(j: &Value, v: &Option<T>, at: &str, f: impl FnOnce(&Value, &T, &str)) {
    match v {
        Some(x) => f(j, x, at),
        None => assert!(j.is_null(), "{at}: {j}"),
    }
}

// ---------------------------------------------------------------------------
// RSW

fn name(j: &Value, n: &FixedName, at: &str) {
    let FixedName { text: t, raw } = n;
    text(j, t, at);
    assert_eq!(
        *t,
        decode_cp949(kiln::internals::text::until_nul(raw)),
        "{at}"
    );
}

pub(crate) fn walk_rsw(j: &Value, r: &Rsw) {
    let Rsw {
        major,
        minor,
        build,
        render_flag,
        release,
        ini,
        gnd,
        gat,
        src,
        water,
        light,
        bounds,
        extra_list,
        objects,
        quad_tree,
        trailing,
        layout,
        warnings,
    } = r;
    keys(
        j,
        "rsw",
        &[
            "major",
            "minor",
            "build",
            "render_flag",
            "release",
            "ini",
            "gnd",
            "gat",
            "src",
            "water",
            "light",
            "bounds",
            "extra_list",
            "objects",
            "quad_tree",
            "trailing",
            "layout",
            "warnings",
            "bytes_after_nul",
        ],
    );
    int(&j["major"], i64::from(*major), "major");
    int(&j["minor"], i64::from(*minor), "minor");
    opt(&j["build"], build, "build", |j, v, at| {
        int(j, i64::from(*v), at)
    });
    opt(&j["render_flag"], render_flag, "render_flag", |j, v, at| {
        int(j, i64::from(*v), at)
    });
    opt(&j["release"], release, "release", |j, v, at| {
        int(j, i64::from(*v), at)
    });
    name(&j["ini"], ini, "ini");
    name(&j["gnd"], gnd, "gnd");
    opt(&j["gat"], gat, "gat", name);
    name(&j["src"], src, "src");
    opt(&j["water"], water, "water", walk_water);
    opt(&j["light"], light, "light", walk_light);
    opt(&j["bounds"], bounds, "bounds", |j, v, at| {
        ints(j, &v.map(i64::from), at)
    });
    opt(&j["extra_list"], extra_list, "extra_list", |j, v, at| {
        ints(j, &v.iter().map(|x| i64::from(*x)).collect::<Vec<_>>(), at)
    });
    let objs = array(&j["objects"], objects.len(), "objects");
    for (i, (jo, o)) in objs.iter().zip(objects).enumerate() {
        walk_object(jo, o, &format!("objects[{i}]"));
    }
    match (quad_tree, r.quad_tree_nodes()) {
        (Some(bytes), Some(nodes)) => {
            assert_eq!(bytes.len(), rsw::QUAD_TREE_BYTES);
            let a = array(&j["quad_tree"], nodes.len(), "quad_tree");
            for (i, (jn, n)) in a.iter().zip(&nodes).enumerate() {
                let at = format!("quad_tree[{i}]");
                let QuadNode {
                    max,
                    min,
                    half_size,
                    center,
                } = n;
                keys(jn, &at, &["max", "min", "half_size", "center"]);
                floats(&jn["max"], max, &at);
                floats(&jn["min"], min, &at);
                floats(&jn["half_size"], half_size, &at);
                floats(&jn["center"], center, &at);
                // The decoded node is the stored bytes.
                assert_eq!(n.to_bytes(), bytes[i * 48..i * 48 + 48], "{at}");
            }
        }
        _ => assert!(j["quad_tree"].is_null()),
    }
    hex(&j["trailing"], trailing, "trailing");
    let Layout {
        gat_name,
        release,
        extra_list,
        model_flag,
        model_extra,
        sound_cycle,
    } = layout;
    let jl = &j["layout"];
    keys(
        jl,
        "layout",
        &[
            "gat_name",
            "release",
            "extra_list",
            "model_flag",
            "model_extra",
            "sound_cycle",
        ],
    );
    for (k, v) in [
        ("gat_name", gat_name),
        ("release", release),
        ("extra_list", extra_list),
        ("model_flag", model_flag),
        ("model_extra", model_extra),
        ("sound_cycle", sound_cycle),
    ] {
        boolean(&jl[k], *v, k);
    }
    strings(&j["warnings"], warnings, "warnings");
    // The bytes real files keep after a name's NUL, per field.
    let stale: Vec<(String, String)> = rsw::names(r)
        .into_iter()
        .filter_map(|(f, n)| n.after_nul().map(|b| (f, to_hex(b))))
        .collect();
    let a = array(&j["bytes_after_nul"], stale.len(), "bytes_after_nul");
    for (jb, (field, bytes)) in a.iter().zip(&stale) {
        keys(jb, "bytes_after_nul", &["field", "hex"]);
        text(&jb["field"], field, "bytes_after_nul.field");
        text(&jb["hex"], bytes, field);
        // The field path names the JSON value holding the name.
        let mut at = j;
        for part in field.split('.') {
            at = match part.split_once('[') {
                Some((k, i)) => &at[k][i.trim_end_matches(']').parse::<usize>().unwrap()],
                None => &at[part],
            };
        }
        assert!(at.is_string(), "{field}");
    }
}

fn walk_water(j: &Value, w: &Water, at: &str) {
    let Water {
        level,
        water_type,
        wave_height,
        wave_speed,
        wave_pitch,
        anim_speed,
    } = w;
    keys(
        j,
        at,
        &[
            "level",
            "water_type",
            "wave_height",
            "wave_speed",
            "wave_pitch",
            "anim_speed",
        ],
    );
    float(&j["level"], *level, at);
    opt(&j["water_type"], water_type, at, |j, v, at| {
        int(j, i64::from(*v), at)
    });
    opt(&j["wave_height"], wave_height, at, |j, v, at| {
        float(j, *v, at)
    });
    opt(&j["wave_speed"], wave_speed, at, |j, v, at| {
        float(j, *v, at)
    });
    opt(&j["wave_pitch"], wave_pitch, at, |j, v, at| {
        float(j, *v, at)
    });
    opt(&j["anim_speed"], anim_speed, at, |j, v, at| {
        int(j, i64::from(*v), at)
    });
}

fn walk_light(j: &Value, l: &Light, at: &str) {
    let Light {
        longitude,
        latitude,
        diffuse,
        ambient,
        shadow_opacity,
    } = l;
    keys(
        j,
        at,
        &[
            "longitude",
            "latitude",
            "diffuse",
            "ambient",
            "shadow_opacity",
        ],
    );
    int(&j["longitude"], i64::from(*longitude), at);
    int(&j["latitude"], i64::from(*latitude), at);
    floats(&j["diffuse"], diffuse, at);
    floats(&j["ambient"], ambient, at);
    opt(&j["shadow_opacity"], shadow_opacity, at, |j, v, at| {
        float(j, *v, at)
    });
}

fn walk_object(j: &Value, o: &Object, at: &str) {
    match o {
        Object::Model(m) => {
            let ModelInstance {
                name: n,
                anim_type,
                anim_speed,
                block_type,
                flag,
                extra,
                file,
                node,
                position,
                rotation,
                scale,
            } = m;
            keys(
                j,
                at,
                &[
                    "type",
                    "name",
                    "anim_type",
                    "anim_speed",
                    "block_type",
                    "flag",
                    "extra",
                    "file",
                    "node",
                    "position",
                    "rotation",
                    "scale",
                ],
            );
            text(&j["type"], "Model", at);
            opt(&j["name"], n, at, name);
            int(&j["anim_type"], i64::from(*anim_type), at);
            float(&j["anim_speed"], *anim_speed, at);
            int(&j["block_type"], i64::from(*block_type), at);
            opt(&j["flag"], flag, at, |j, v, at| int(j, i64::from(*v), at));
            opt(&j["extra"], extra, at, |j, v, at| int(j, i64::from(*v), at));
            name(&j["file"], file, at);
            name(&j["node"], node, at);
            floats(&j["position"], position, at);
            floats(&j["rotation"], rotation, at);
            floats(&j["scale"], scale, at);
        }
        Object::Light(l) => {
            let LightSource {
                name: n,
                position,
                color,
                range,
            } = l;
            keys(j, at, &["type", "name", "position", "color", "range"]);
            text(&j["type"], "Light", at);
            name(&j["name"], n, at);
            floats(&j["position"], position, at);
            floats(&j["color"], color, at);
            float(&j["range"], *range, at);
        }
        Object::Sound(s) => {
            let Sound {
                name: n,
                file,
                position,
                volume,
                width,
                height,
                range,
                cycle,
            } = s;
            keys(
                j,
                at,
                &[
                    "type", "name", "file", "position", "volume", "width", "height", "range",
                    "cycle",
                ],
            );
            text(&j["type"], "Sound", at);
            name(&j["name"], n, at);
            name(&j["file"], file, at);
            floats(&j["position"], position, at);
            float(&j["volume"], *volume, at);
            int(&j["width"], i64::from(*width), at);
            int(&j["height"], i64::from(*height), at);
            float(&j["range"], *range, at);
            opt(&j["cycle"], cycle, at, |j, v, at| float(j, *v, at));
        }
        Object::Effect(e) => {
            let Effect {
                name: n,
                position,
                id,
                delay,
                param,
            } = e;
            keys(j, at, &["type", "name", "position", "id", "delay", "param"]);
            text(&j["type"], "Effect", at);
            name(&j["name"], n, at);
            floats(&j["position"], position, at);
            int(&j["id"], i64::from(*id), at);
            float(&j["delay"], *delay, at);
            floats(&j["param"], param, at);
        }
    }
}
