//! `kiln inspect --json` field by field, continued (see `inspect_json`): the
//! RSM and GND walks, and the tests that walk every corpus RSW, RSM and GND
//! file's parsed structs beside its printed JSON.

use crate::common::{self, kiln, stderr};
use crate::inspect_json::{
    array, boolean, details, files, float, floats, hex, int, ints, keys, opt, quat, strings, text,
    vec3, walk_rsw,
};
use kiln::internals::formats::gnd::{
    self, Cube, Gnd, Lightmap, Lightmaps, Surface, WaterPlane, WaterSetup,
};
use kiln::internals::formats::rsm::{
    self, Face, PosKey, RotKey, Rsm, RsmNode, ScaleKey, TexAnimChannel, TexAnimKey, TexCoord,
    TextureAnim, V15Layout, VolumeBox,
};
use kiln::internals::formats::rsw;
use kiln::internals::text::decode_cp949;
use serde_json::Value;
use std::path::{Path, PathBuf};

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
