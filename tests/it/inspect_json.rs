//! `kiln inspect --json` shows every field the parser holds: for every RSW,
//! RSM and GND of the corpus (and kiln's own samples) the parsed structs and
//! the printed JSON are walked together, field by field. Every struct is
//! taken apart with a pattern naming all its fields, so a field added to a
//! parser without reaching the JSON fails to compile here, and every JSON
//! object must hold exactly the keys walked, so nothing unexplained is
//! printed either.

use crate::common::{self, kiln, stderr};

use glam::{Quat, Vec3};
use kiln::internals::formats::gnd::{
    self, Cube, Gnd, Lightmap, Lightmaps, Surface, WaterPlane, WaterSetup,
};
use kiln::internals::formats::json::to_hex;
use kiln::internals::formats::rsm::{
    self, Face, PosKey, RotKey, Rsm, RsmNode, ScaleKey, TexAnimChannel, TexAnimKey, TexCoord,
    TextureAnim, V15Layout, VolumeBox,
};
use kiln::internals::formats::rsw::{
    self, Effect, FixedName, Layout, Light, LightSource, ModelInstance, Object, QuadNode, Rsw,
    Sound, Water,
};
use kiln::internals::text::decode_cp949;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Every file under `dir` whose name ends with one of `exts`, sorted.
fn files(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
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
fn details(file: &Path) -> Value {
    let o = kiln(
        &["inspect", "--json", file.to_str().unwrap()],
        Path::new("."),
    );
    assert!(o.status.success(), "{}: {}", file.display(), stderr(&o));
    let mut j: Value = serde_json::from_slice(&o.stdout).unwrap();
    j["details"].take()
}

/// Checks that `j` is an object with exactly `keys`.
fn keys(j: &Value, at: &str, keys: &[&str]) {
    let obj = j
        .as_object()
        .unwrap_or_else(|| panic!("{at}: not an object: {j}"));
    let mut have: Vec<&str> = obj.keys().map(|k| k.as_str()).collect();
    let mut want = keys.to_vec();
    have.sort_unstable();
    want.sort_unstable();
    assert_eq!(have, want, "{at}");
}

fn int(j: &Value, v: i64, at: &str) {
    assert_eq!(j.as_i64(), Some(v), "{at}: {j}");
}

fn boolean(j: &Value, v: bool, at: &str) {
    assert_eq!(j.as_bool(), Some(v), "{at}: {j}");
}

/// An f32 as JSON: the same number (non-finite values print as null).
fn float(j: &Value, v: f32, at: &str) {
    if v.is_finite() {
        let got = j.as_f64().unwrap_or_else(|| panic!("{at}: {j}")) as f32;
        assert_eq!(got.to_bits(), v.to_bits(), "{at}: {j} vs {v}");
    } else {
        assert!(j.is_null(), "{at}: {j}");
    }
}

fn floats(j: &Value, v: &[f32], at: &str) {
    let a = j.as_array().unwrap_or_else(|| panic!("{at}: {j}"));
    assert_eq!(a.len(), v.len(), "{at}");
    for (i, (x, y)) in a.iter().zip(v).enumerate() {
        float(x, *y, &format!("{at}[{i}]"));
    }
}

fn vec3(j: &Value, v: Vec3, at: &str) {
    floats(j, &v.to_array(), at);
}

fn quat(j: &Value, q: Quat, at: &str) {
    floats(j, &q.to_array(), at);
}

fn text(j: &Value, v: &str, at: &str) {
    assert_eq!(j.as_str(), Some(v), "{at}");
}

fn hex(j: &Value, v: &[u8], at: &str) {
    assert_eq!(j.as_str(), Some(to_hex(v).as_str()), "{at}");
}

fn ints(j: &Value, v: &[i64], at: &str) {
    let got: Vec<i64> = j
        .as_array()
        .unwrap_or_else(|| panic!("{at}: {j}"))
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect();
    assert_eq!(got, v, "{at}");
}

fn array<'a>(j: &'a Value, len: usize, at: &str) -> &'a [Value] {
    let a = j.as_array().unwrap_or_else(|| panic!("{at}: {j}"));
    assert_eq!(a.len(), len, "{at}");
    a
}

fn strings(j: &Value, v: &[String], at: &str) {
    let a = array(j, v.len(), at);
    for (i, (x, y)) in a.iter().zip(v).enumerate() {
        text(x, y, &format!("{at}[{i}]"));
    }
}

fn opt<T>(j: &Value, v: &Option<T>, at: &str, f: impl FnOnce(&Value, &T, &str)) {
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

fn walk_rsw(j: &Value, r: &Rsw) {
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

// ---------------------------------------------------------------------------
// RSM

fn raw_name(j: &Value, n: &[u8], at: &str) {
    text(j, &decode_cp949(n), at);
}

fn raw_names(j: &Value, v: &[Vec<u8>], at: &str) {
    let a = array(j, v.len(), at);
    for (x, y) in a.iter().zip(v) {
        raw_name(x, y, at);
    }
}

fn pos_keys(j: &Value, v: &[PosKey], at: &str) {
    let a = array(j, v.len(), at);
    for (i, (jk, k)) in a.iter().zip(v).enumerate() {
        let at = format!("{at}[{i}]");
        let PosKey {
            frame,
            position,
            data,
        } = k;
        keys(jk, &at, &["frame", "position", "data"]);
        int(&jk["frame"], i64::from(*frame), &at);
        vec3(&jk["position"], *position, &at);
        int(&jk["data"], i64::from(*data), &at);
    }
}

fn walk_rsm(j: &Value, m: &Rsm) {
    let Rsm {
        major,
        minor,
        anim_len,
        shade_type,
        alpha,
        reserved,
        fps,
        textures,
        root_names,
        nodes,
        model_pos_keys,
        volume_boxes,
        volume_box_block,
        v15_layout,
        raw_name_fields,
        trailing_bytes,
        warnings,
    } = m;
    keys(
        j,
        "rsm",
        &[
            "major",
            "minor",
            "anim_len",
            "shade_type",
            "alpha",
            "reserved",
            "fps",
            "textures",
            "root_names",
            "nodes",
            "model_pos_keys",
            "volume_boxes",
            "volume_box_block",
            "v15_layout",
            "raw_name_fields",
            "trailing_bytes",
            "warnings",
        ],
    );
    int(&j["major"], i64::from(*major), "major");
    int(&j["minor"], i64::from(*minor), "minor");
    int(&j["anim_len"], i64::from(*anim_len), "anim_len");
    int(&j["shade_type"], i64::from(*shade_type), "shade_type");
    int(&j["alpha"], i64::from(*alpha), "alpha");
    hex(&j["reserved"], reserved, "reserved");
    opt(&j["fps"], fps, "fps", |j, v, at| float(j, *v, at));
    raw_names(&j["textures"], textures, "textures");
    raw_names(&j["root_names"], root_names, "root_names");
    let a = array(&j["nodes"], nodes.len(), "nodes");
    for (i, (jn, n)) in a.iter().zip(nodes).enumerate() {
        walk_node(jn, n, &format!("nodes[{i}]"));
    }
    pos_keys(&j["model_pos_keys"], model_pos_keys, "model_pos_keys");
    let a = array(&j["volume_boxes"], volume_boxes.len(), "volume_boxes");
    for (i, (jb, b)) in a.iter().zip(volume_boxes).enumerate() {
        let at = format!("volume_boxes[{i}]");
        let VolumeBox {
            size,
            position,
            rotation,
            flag,
        } = b;
        keys(jb, &at, &["size", "position", "rotation", "flag"]);
        vec3(&jb["size"], *size, &at);
        vec3(&jb["position"], *position, &at);
        vec3(&jb["rotation"], *rotation, &at);
        int(&jb["flag"], i64::from(*flag), &at);
    }
    boolean(
        &j["volume_box_block"],
        *volume_box_block,
        "volume_box_block",
    );
    let layout = match v15_layout {
        V15Layout::Documented => "Documented",
        V15Layout::NodePositionKeys => "NodePositionKeys",
        V15Layout::EmptyModelBlock => "EmptyModelBlock",
    };
    text(&j["v15_layout"], layout, "v15_layout");
    let a = array(
        &j["raw_name_fields"],
        raw_name_fields.len(),
        "raw_name_fields",
    );
    for (x, f) in a.iter().zip(raw_name_fields) {
        hex(x, f, "raw_name_fields");
    }
    int(
        &j["trailing_bytes"],
        *trailing_bytes as i64,
        "trailing_bytes",
    );
    strings(&j["warnings"], warnings, "warnings");
}

fn walk_node(j: &Value, n: &RsmNode, at: &str) {
    let RsmNode {
        name: nm,
        parent,
        texture_ids,
        texture_names,
        matrix,
        offset,
        position,
        rot_angle,
        rot_axis,
        scale,
        vertices,
        tex_coords,
        faces,
        scale_keys,
        rot_keys,
        pos_keys: node_pos_keys,
        tex_anims,
    } = n;
    keys(
        j,
        at,
        &[
            "name",
            "parent",
            "texture_ids",
            "texture_names",
            "matrix",
            "offset",
            "position",
            "rot_angle",
            "rot_axis",
            "scale",
            "vertices",
            "tex_coords",
            "faces",
            "scale_keys",
            "rot_keys",
            "pos_keys",
            "tex_anims",
        ],
    );
    raw_name(&j["name"], nm, at);
    raw_name(&j["parent"], parent, at);
    ints(
        &j["texture_ids"],
        &texture_ids
            .iter()
            .map(|x| i64::from(*x))
            .collect::<Vec<_>>(),
        at,
    );
    raw_names(&j["texture_names"], texture_names, at);
    floats(&j["matrix"], matrix, at);
    vec3(&j["offset"], *offset, at);
    vec3(&j["position"], *position, at);
    float(&j["rot_angle"], *rot_angle, at);
    vec3(&j["rot_axis"], *rot_axis, at);
    vec3(&j["scale"], *scale, at);
    let a = array(&j["vertices"], vertices.len(), at);
    for (x, v) in a.iter().zip(vertices) {
        vec3(x, *v, at);
    }
    let a = array(&j["tex_coords"], tex_coords.len(), at);
    for (x, t) in a.iter().zip(tex_coords) {
        let TexCoord { color, u, v } = t;
        keys(x, at, &["color", "u", "v"]);
        int(&x["color"], i64::from(*color), at);
        float(&x["u"], *u, at);
        float(&x["v"], *v, at);
    }
    let a = array(&j["faces"], faces.len(), at);
    for (x, f) in a.iter().zip(faces) {
        let Face {
            vertex_ids,
            tex_coord_ids,
            texture_id,
            padding,
            two_side,
            smooth_groups,
        } = f;
        keys(
            x,
            at,
            &[
                "vertex_ids",
                "tex_coord_ids",
                "texture_id",
                "padding",
                "two_side",
                "smooth_groups",
            ],
        );
        ints(&x["vertex_ids"], &vertex_ids.map(i64::from), at);
        ints(&x["tex_coord_ids"], &tex_coord_ids.map(i64::from), at);
        int(&x["texture_id"], i64::from(*texture_id), at);
        int(&x["padding"], i64::from(*padding), at);
        int(&x["two_side"], i64::from(*two_side), at);
        ints(
            &x["smooth_groups"],
            &smooth_groups
                .iter()
                .map(|g| i64::from(*g))
                .collect::<Vec<_>>(),
            at,
        );
    }
    let a = array(&j["scale_keys"], scale_keys.len(), at);
    for (x, k) in a.iter().zip(scale_keys) {
        let ScaleKey { frame, scale, data } = k;
        keys(x, at, &["frame", "scale", "data"]);
        int(&x["frame"], i64::from(*frame), at);
        vec3(&x["scale"], *scale, at);
        float(&x["data"], *data, at);
    }
    let a = array(&j["rot_keys"], rot_keys.len(), at);
    for (x, k) in a.iter().zip(rot_keys) {
        let RotKey { frame, rotation } = k;
        keys(x, at, &["frame", "rotation"]);
        int(&x["frame"], i64::from(*frame), at);
        quat(&x["rotation"], *rotation, at);
    }
    pos_keys(&j["pos_keys"], node_pos_keys, at);
    let a = array(&j["tex_anims"], tex_anims.len(), at);
    for (x, t) in a.iter().zip(tex_anims) {
        let TextureAnim { texture, channels } = t;
        keys(x, at, &["texture", "channels"]);
        int(&x["texture"], i64::from(*texture), at);
        let c = array(&x["channels"], channels.len(), at);
        for (y, ch) in c.iter().zip(channels) {
            let TexAnimChannel { kind, keys: ks } = ch;
            keys(y, at, &["kind", "keys"]);
            int(&y["kind"], i64::from(*kind), at);
            let k = array(&y["keys"], ks.len(), at);
            for (z, key) in k.iter().zip(ks) {
                let TexAnimKey { frame, value } = key;
                keys(z, at, &["frame", "value"]);
                int(&z["frame"], i64::from(*frame), at);
                float(&z["value"], *value, at);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// GND

fn walk_plane(j: &Value, p: &WaterPlane, at: &str) {
    let WaterPlane {
        level,
        kind,
        wave_height,
        wave_speed,
        wave_pitch,
        texture_cycling,
    } = p;
    keys(
        j,
        at,
        &[
            "level",
            "kind",
            "wave_height",
            "wave_speed",
            "wave_pitch",
            "texture_cycling",
        ],
    );
    float(&j["level"], *level, at);
    int(&j["kind"], i64::from(*kind), at);
    float(&j["wave_height"], *wave_height, at);
    float(&j["wave_speed"], *wave_speed, at);
    float(&j["wave_pitch"], *wave_pitch, at);
    int(&j["texture_cycling"], i64::from(*texture_cycling), at);
}

fn walk_gnd(j: &Value, g: &Gnd) {
    let Gnd {
        major,
        minor,
        width,
        height,
        scale,
        textures,
        texture_raw,
        texture_name_len,
        lightmaps,
        surfaces,
        cubes,
        water,
        warnings,
    } = g;
    keys(
        j,
        "gnd",
        &[
            "major",
            "minor",
            "width",
            "height",
            "scale",
            "textures",
            "texture_raw",
            "texture_name_len",
            "lightmaps",
            "surfaces",
            "cubes",
            "water",
            "warnings",
        ],
    );
    int(&j["major"], i64::from(*major), "major");
    int(&j["minor"], i64::from(*minor), "minor");
    int(&j["width"], i64::from(*width), "width");
    int(&j["height"], i64::from(*height), "height");
    float(&j["scale"], *scale, "scale");
    strings(&j["textures"], textures, "textures");
    let a = array(&j["texture_raw"], texture_raw.len(), "texture_raw");
    for (x, r) in a.iter().zip(texture_raw) {
        hex(x, r, "texture_raw");
    }
    int(
        &j["texture_name_len"],
        i64::from(*texture_name_len),
        "texture_name_len",
    );
    let Lightmaps { per_cell, data } = lightmaps;
    keys(&j["lightmaps"], "lightmaps", &["per_cell", "data"]);
    ints(
        &j["lightmaps"]["per_cell"],
        &[per_cell.0, per_cell.1, per_cell.2].map(i64::from),
        "per_cell",
    );
    let a = array(&j["lightmaps"]["data"], data.len(), "lightmaps.data");
    for (i, (x, l)) in a.iter().zip(data).enumerate() {
        let at = format!("lightmaps.data[{i}]");
        let Lightmap { shadow, color } = l;
        keys(x, &at, &["shadow", "color"]);
        hex(&x["shadow"], shadow, &at);
        hex(&x["color"], color.as_flattened(), &at);
    }
    let a = array(&j["surfaces"], surfaces.len(), "surfaces");
    for (i, (x, s)) in a.iter().zip(surfaces).enumerate() {
        let at = format!("surfaces[{i}]");
        let Surface {
            u,
            v,
            texture,
            lightmap,
            bgra,
        } = s;
        keys(x, &at, &["u", "v", "texture", "lightmap", "bgra"]);
        floats(&x["u"], u, &at);
        floats(&x["v"], v, &at);
        int(&x["texture"], i64::from(*texture), &at);
        int(&x["lightmap"], i64::from(*lightmap), &at);
        ints(&x["bgra"], &bgra.map(i64::from), &at);
    }
    let a = array(&j["cubes"], cubes.len(), "cubes");
    for (i, (x, c)) in a.iter().zip(cubes).enumerate() {
        let at = format!("cubes[{i}]");
        let Cube {
            heights,
            top,
            front,
            side,
        } = c;
        keys(x, &at, &["heights", "top", "front", "side"]);
        floats(&x["heights"], heights, &at);
        int(&x["top"], i64::from(*top), &at);
        int(&x["front"], i64::from(*front), &at);
        int(&x["side"], i64::from(*side), &at);
    }
    opt(&j["water"], water, "water", |j, w, at| {
        let WaterSetup {
            default,
            split_u,
            split_v,
            planes,
        } = w;
        keys(j, at, &["default", "split_u", "split_v", "planes"]);
        walk_plane(&j["default"], default, "water.default");
        int(&j["split_u"], i64::from(*split_u), at);
        int(&j["split_v"], i64::from(*split_v), at);
        let a = array(&j["planes"], planes.len(), at);
        for (x, p) in a.iter().zip(planes) {
            walk_plane(x, p, "water.planes");
        }
    });
    strings(&j["warnings"], warnings, "warnings");
}

// ---------------------------------------------------------------------------

fn all(exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    files(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("recipes/samples"),
        exts,
        &mut out,
    );
    if let Some(c) = common::corpus("ro") {
        files(&c, exts, &mut out);
    }
    out
}

#[test]
fn every_rsw_field_is_in_the_json() {
    let mut walked = 0;
    for f in all(&[".rsw"]) {
        let bytes = std::fs::read(&f).unwrap();
        let Ok(parsed) = rsw::parse(&bytes, &f) else {
            continue; // mhisle01's garbage header: refused, nothing to show
        };
        walk_rsw(&details(&f), &parsed);
        walked += 1;
    }
    // The sample map, four client maps, six RagLite fixtures (when the
    // corpus is there).
    assert!(walked == 1 || walked == 11, "{walked}");
}

#[test]
fn every_rsm_field_is_in_the_json() {
    let mut walked = 0;
    for f in all(&[".rsm", ".rsm2", "_test.rsm.bin"]) {
        let parsed = rsm::parse_file(&f).unwrap();
        walk_rsm(&details(&f), &parsed);
        walked += 1;
    }
    // Two samples and thirteen corpus models.
    assert!(walked == 2 || walked == 15, "{walked}");
}

#[test]
fn every_gnd_field_is_in_the_json() {
    let mut walked = 0;
    for f in all(&[".gnd"]) {
        let parsed = gnd::parse_file(&f).unwrap();
        walk_gnd(&details(&f), &parsed);
        walked += 1;
    }
    assert!(walked == 1 || walked == 8, "{walked}");
}

#[test]
fn summary_form_is_the_short_description() {
    let map =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("recipes/samples/data/kiln_village.rsw");
    let o = kiln(
        &["inspect", "--json", "--summary", map.to_str().unwrap()],
        Path::new("."),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = &j["details"];
    assert_eq!(d["version"], "1.9");
    assert_eq!(
        (d["models"].as_u64(), d["quad_tree_nodes"].as_u64()),
        (Some(6), Some(0))
    );
    assert_eq!(d["instances"].as_array().unwrap().len(), 6);
    assert!(d.get("objects").is_none());
    // The library gives the same two forms.
    let full = kiln::inspect(&kiln::FileRef::from(map.as_path()), &[], None).unwrap();
    let short = kiln::inspect_with(
        &kiln::FileRef::from(map.as_path()),
        &[],
        None,
        kiln::InspectDetail::Summary,
    )
    .unwrap();
    assert_eq!(full.details["objects"].as_array().unwrap().len(), 6);
    assert_eq!(&short.details, d);
}
