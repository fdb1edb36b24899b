use super::*;
use crate::error::ParseError;
use crate::formats::reader::Reader;
use std::path::Path;

/// Up to this many stray bytes after the last structure are normal: real
/// 1.5 files carry about 4, korangar's `missing.rsm` carries one.
const TOLERATED_TRAILING: usize = 8;

/// Bytes of a 1.x node that holds no textures, geometry or keys.
const MIN_NODE_V1: usize = 40 + 40 + 4 + 22 * 4 + 4 + 4 + 4 + 4;
/// Bytes of a 2.x node with empty names and no textures, geometry or keys.
const MIN_NODE_V2: usize = 4 + 4 + 4 + 12 * 4 + 4 * 3 + 4 * 3;
const KEY_SIZE: usize = 20;

/// Parses an RSM/RSM2 file held in memory; `file` names it in errors.
pub fn parse(data: &[u8], file: &Path) -> Result<Rsm, ParseError> {
    let mut r = Reader::new(data, file);
    let magic = r.bytes(4, "magic")?;
    if magic != b"GRSM" {
        return Err(r.error_at(
            0,
            "magic",
            format!("not an RSM model: expected \"GRSM\", found {:02x?}", magic),
        ));
    }
    let major = r.u8("version.major")?;
    let minor = r.u8("version.minor")?;
    let supported = matches!((major, minor), (1, 1..=7) | (2, 2..=3));
    if !supported {
        return Err(r.error_at(
            4,
            "version",
            format!("unsupported RSM version {major}.{minor} (kiln reads 1.1–1.7, 2.2 and 2.3)"),
        ));
    }
    if (major, minor) == (1, 5) {
        return parse_v15(data, file);
    }
    let mut rsm = Rsm::new(major, minor);
    rsm.root_names.clear();
    if major == 1 {
        parse_v1(&mut r, &mut rsm, V15Layout::Documented)?;
    } else {
        parse_v2(&mut r, &mut rsm)?;
    }
    Ok(rsm)
}

/// The trailing bytes the documented 1.5 layout ends with.
const V15_PADDING: usize = 4;

/// A 1.5 file, read in each layout its readers give it: the documented
/// one (1.4's, then 4 bytes), RagLite's (one more model-level count, 0,
/// after the nodes) and roBrowser's (a position-key block per node). The first that
/// ends exactly at the end of the file is taken, in that order; when none
/// does, the documented reading with its trailing bytes (and their
/// warning). Taking another reading, or a second one fitting with other
/// values, is a warning naming the alternative.
fn parse_v15(data: &[u8], file: &Path) -> Result<Rsm, ParseError> {
    let read = |layout: V15Layout| -> Result<Rsm, ParseError> {
        let mut r = Reader::new(data, file);
        r.seek(6, "header")?;
        let mut m = Rsm::new(1, 5);
        m.root_names.clear();
        parse_v1(&mut r, &mut m, layout)?;
        Ok(m)
    };
    let attempts = [
        read(V15Layout::Documented),
        read(V15Layout::EmptyModelBlock),
        read(V15Layout::NodePositionKeys),
    ];
    let exact = |i: usize, m: &Rsm| {
        if i == 0 {
            m.trailing_bytes == 0 || m.trailing_bytes == V15_PADDING
        } else {
            m.trailing_bytes == 0
        }
    };
    let chosen = attempts
        .iter()
        .enumerate()
        .position(|(i, a)| a.as_ref().is_ok_and(|m| exact(i, m)))
        .or_else(|| attempts[0].is_ok().then_some(0));
    let Some(chosen) = chosen else {
        // When every reading fails, the one that got furthest is the one
        // that understood the file.
        let mut best: Option<ParseError> = None;
        for e in attempts.into_iter().filter_map(Result::err) {
            if best.as_ref().is_none_or(|b| e.offset > b.offset) {
                best = Some(e);
            }
        }
        return Err(best.unwrap_or_else(|| ParseError {
            file: file.to_path_buf(),
            field: "header".into(),
            offset: 6,
            message: "no reading of the 1.5 file was tried".into(),
        }));
    };
    let mut notes = Vec::new();
    let picked = attempts[chosen].as_ref().ok();
    if chosen != 0 {
        let why = match &attempts[0] {
            Ok(m) => format!(
                "it leaves {} bytes after the volume boxes, not {V15_PADDING}",
                m.trailing_bytes
            ),
            Err(e) => format!("{} at byte {}: {}", e.field, e.offset, e.message),
        };
        let layout = picked.map_or(V15Layout::Documented, |m| m.v15_layout);
        notes.push(format!(
            "{}: 1.5 file read with {}: the documented layout does not fit it: {why}",
            file.display(),
            describe_v15(layout)
        ));
    }
    if let Some(p) = picked {
        for (i, a) in attempts.iter().enumerate() {
            if let Ok(o) = a {
                if i != chosen && exact(i, o) && !same_v15_values(o, p) {
                    notes.push(format!(
                        "{}: the 1.5 file also reads with {} with other values: the layout is \
                         ambiguous, and kiln takes {}",
                        file.display(),
                        describe_v15(o.v15_layout),
                        describe_v15(p.v15_layout)
                    ));
                }
            }
        }
    }
    let mut attempts = Vec::from(attempts);
    let mut rsm = attempts.swap_remove(chosen)?;
    rsm.warnings.extend(notes);
    Ok(rsm)
}

/// A 1.5 reading in words.
fn describe_v15(layout: V15Layout) -> &'static str {
    match layout {
        V15Layout::Documented => "the documented layout (1.4's, then 4 bytes)",
        V15Layout::EmptyModelBlock => {
            "RagLite's layout (one more model-level count, 0, between the nodes and the model \
             key block)"
        }
        V15Layout::NodePositionKeys => {
            "roBrowser's layout (a position-key block after each node's rotation keys)"
        }
    }
}

/// True when two 1.5 readings hold the same nodes and model-level blocks.
fn same_v15_values(a: &Rsm, b: &Rsm) -> bool {
    a.nodes == b.nodes
        && a.model_pos_keys == b.model_pos_keys
        && a.volume_boxes == b.volume_boxes
        && a.textures == b.textures
        && a.root_names == b.root_names
}

/// Reads everything after the version bytes of a 1.x file into `rsm`.
/// `layout` matters for 1.5 files only.
fn parse_v1(r: &mut Reader, rsm: &mut Rsm, layout: V15Layout) -> Result<(), ParseError> {
    let v15 = (rsm.major, rsm.minor) == (1, 5);
    let node_pos_keys = v15 && layout == V15Layout::NodePositionKeys;
    let empty_block = v15 && layout == V15Layout::EmptyModelBlock;
    rsm.v15_layout = if v15 { layout } else { V15Layout::Documented };
    rsm.anim_len = r.i32("anim_len")?;
    rsm.shade_type = r.i32("shade_type")?;
    if rsm.at_least(1, 4) {
        rsm.alpha = r.u8("alpha")?;
    }
    let reserved = r.bytes(16, "reserved")?;
    rsm.reserved.copy_from_slice(reserved);
    let mut raw = Vec::new();
    let n = r.count_i32("texture_count", 40)?;
    rsm.textures = Vec::with_capacity(n);
    for i in 0..n {
        rsm.textures
            .push(fixed_name(r, &mut raw, &format!("textures[{i}]"))?);
    }
    rsm.root_names = vec![fixed_name(r, &mut raw, "main_node")?];
    let min_node = MIN_NODE_V1 + if rsm.at_least(1, 6) { 4 } else { 0 };
    let n = r.count_i32("node_count", min_node)?;
    rsm.nodes = Vec::with_capacity(n);
    for i in 0..n {
        let node = parse_node_v1(r, rsm, &mut raw, i, node_pos_keys)?;
        rsm.nodes.push(node);
    }
    let clean = raw.iter().all(|f| {
        let name = crate::text::until_nul(f);
        name.len() < 40 && f[name.len()..].iter().all(|&b| b == 0)
    });
    rsm.raw_name_fields = if clean { Vec::new() } else { raw };
    if empty_block {
        let at = r.pos();
        let n = r.i32("model_empty_block")?;
        if n != 0 {
            return Err(r.error_at(
                at,
                "model_empty_block",
                format!("count {n}: RagLite's layout has 0 here"),
            ));
        }
    }
    if !rsm.at_least(1, 6) {
        rsm.model_pos_keys = pos_keys(r, "model_pos_keys")?;
    }
    rsm.volume_boxes = volume_boxes(r, rsm.at_least(1, 3))?;
    rsm.volume_box_block = true;
    finish(r, rsm);
    Ok(())
}

fn parse_node_v1(
    r: &mut Reader,
    rsm: &Rsm,
    raw: &mut Vec<[u8; 40]>,
    i: usize,
    node_pos_keys: bool,
) -> Result<RsmNode, ParseError> {
    let p = format!("node[{i}]");
    let name = fixed_name(r, raw, &format!("{p}.name"))?;
    let parent = fixed_name(r, raw, &format!("{p}.parent"))?;
    let mut node = RsmNode::new(&name, &parent);
    node.texture_ids = texture_ids(r, &p)?;
    node.matrix = r.f32s::<9>(&format!("{p}.matrix"))?;
    node.offset = r.vec3(&format!("{p}.offset"))?;
    node.position = r.vec3(&format!("{p}.position"))?;
    node.rot_angle = r.f32(&format!("{p}.rot_angle"))?;
    node.rot_axis = r.vec3(&format!("{p}.rot_axis"))?;
    node.scale = r.vec3(&format!("{p}.scale"))?;
    node.vertices = vertices(r, &p)?;
    let colored = rsm.at_least(1, 2);
    node.tex_coords = tex_coords(r, &p, colored)?;

    let field = format!("{p}.face_count");
    let n = r.count_i32(&field, if colored { 24 } else { 20 })?;
    node.faces = Vec::with_capacity(n);
    // Counts are checked against the bytes left, so fixed-size elements
    // cannot run short: one field name per block is enough.
    let fp = format!("{p}.faces");
    for _ in 0..n {
        let mut face = face_fixed(r, &fp)?;
        if colored {
            face.smooth_groups = vec![r.i32(&fp)?];
        }
        node.faces.push(face);
    }
    if rsm.at_least(1, 6) {
        node.scale_keys = scale_keys(r, &p)?;
    }
    node.rot_keys = rot_keys(r, &p)?;
    if node_pos_keys {
        node.pos_keys = pos_keys(r, &format!("{p}.pos_keys"))?;
    }
    Ok(node)
}

fn parse_v2(r: &mut Reader, rsm: &mut Rsm) -> Result<(), ParseError> {
    rsm.anim_len = r.i32("anim_len")?;
    rsm.shade_type = r.i32("shade_type")?;
    rsm.alpha = r.u8("alpha")?;
    rsm.fps = Some(r.f32("fps")?);
    let v23 = rsm.at_least(2, 3);
    if !v23 {
        let n = r.count_i32("texture_count", 4)?;
        rsm.textures = Vec::with_capacity(n);
        for i in 0..n {
            rsm.textures.push(r.len_name(&format!("textures[{i}]"))?);
        }
    }
    let n = r.count_i32("root_count", 4)?;
    rsm.root_names = Vec::with_capacity(n);
    for i in 0..n {
        rsm.root_names.push(r.len_name(&format!("roots[{i}]"))?);
    }
    let min_node = MIN_NODE_V2 + if v23 { 4 } else { 0 };
    let n = r.count_i32("node_count", min_node)?;
    rsm.nodes = Vec::with_capacity(n);
    for i in 0..n {
        let node = parse_node_v2(r, v23, i)?;
        rsm.nodes.push(node);
    }
    // Every real 2.3 file ends right after the nodes; 2.2 files carry the
    // volume-box count as 1.x files do.
    if v23 && r.at_end() {
        rsm.volume_box_block = false;
    } else {
        rsm.volume_boxes = volume_boxes(r, true)?;
        rsm.volume_box_block = true;
    }
    finish(r, rsm);
    Ok(())
}

fn parse_node_v2(r: &mut Reader, v23: bool, i: usize) -> Result<RsmNode, ParseError> {
    let p = format!("node[{i}]");
    let name = r.len_name(&format!("{p}.name"))?;
    let parent = r.len_name(&format!("{p}.parent"))?;
    let mut node = RsmNode::new(&name, &parent);
    if v23 {
        let n = r.count_i32(&format!("{p}.texture_count"), 4)?;
        node.texture_names = Vec::with_capacity(n);
        for t in 0..n {
            node.texture_names
                .push(r.len_name(&format!("{p}.textures[{t}]"))?);
        }
    } else {
        node.texture_ids = texture_ids(r, &p)?;
    }
    node.matrix = r.f32s::<9>(&format!("{p}.matrix"))?;
    node.offset = r.vec3(&format!("{p}.offset"))?;
    node.vertices = vertices(r, &p)?;
    node.tex_coords = tex_coords(r, &p, true)?;

    let n = r.count_i32(&format!("{p}.face_count"), 4 + 20)?;
    node.faces = Vec::with_capacity(n);
    let fp = format!("{p}.faces");
    for f in 0..n {
        let len_at = r.pos();
        let len = r.i32(&fp)?;
        // The fixed part is 20 bytes; every 4 bytes after it is one more
        // smoothing-group id (24 = one id, the usual case).
        if len < 20 || len % 4 != 0 || len as usize > r.remaining() {
            return Err(r.error_at(
                len_at,
                &format!("{p}.faces[{f}].length"),
                format!(
                    "face length {len} is not 20 + 4·n bytes within the {} bytes left",
                    r.remaining()
                ),
            ));
        }
        let mut face = face_fixed(r, &fp)?;
        let groups = (len as usize - 20) / 4;
        face.smooth_groups = Vec::with_capacity(groups);
        for _ in 0..groups {
            face.smooth_groups.push(r.i32(&fp)?);
        }
        node.faces.push(face);
    }
    node.scale_keys = scale_keys(r, &p)?;
    node.rot_keys = rot_keys(r, &p)?;
    node.pos_keys = pos_keys(r, &format!("{p}.pos_keys"))?;
    if v23 {
        node.tex_anims = tex_anims(r, &p)?;
    }
    Ok(node)
}

/// A 40-byte NUL-padded name; the raw field is kept for exact rewriting.
fn fixed_name(r: &mut Reader, raw: &mut Vec<[u8; 40]>, field: &str) -> Result<RawName, ParseError> {
    let mut f = [0u8; 40];
    f.copy_from_slice(r.bytes(40, field)?);
    raw.push(f);
    Ok(crate::text::until_nul(&f).to_vec())
}

fn texture_ids(r: &mut Reader, p: &str) -> Result<Vec<i32>, ParseError> {
    let n = r.count_i32(&format!("{p}.texture_count"), 4)?;
    let mut ids = Vec::with_capacity(n);
    let field = format!("{p}.texture_ids");
    for _ in 0..n {
        ids.push(r.i32(&field)?);
    }
    Ok(ids)
}

fn vertices(r: &mut Reader, p: &str) -> Result<Vec<Vec3>, ParseError> {
    let n = r.count_i32(&format!("{p}.vertex_count"), 12)?;
    let mut v = Vec::with_capacity(n);
    let field = format!("{p}.vertices");
    for _ in 0..n {
        v.push(r.vec3(&field)?);
    }
    Ok(v)
}

fn tex_coords(r: &mut Reader, p: &str, colored: bool) -> Result<Vec<TexCoord>, ParseError> {
    let size = if colored { 12 } else { 8 };
    let n = r.count_i32(&format!("{p}.texcoord_count"), size)?;
    let mut v = Vec::with_capacity(n);
    let field = format!("{p}.tex_coords");
    for _ in 0..n {
        let color = if colored { r.u32(&field)? } else { 0xFFFF_FFFF };
        let u = r.f32(&field)?;
        let vv = r.f32(&field)?;
        v.push(TexCoord { color, u, v: vv });
    }
    Ok(v)
}

/// The 20 bytes every face starts with, in every version.
fn face_fixed(r: &mut Reader, fp: &str) -> Result<Face, ParseError> {
    let mut vertex_ids = [0u16; 3];
    for v in &mut vertex_ids {
        *v = r.u16(fp)?;
    }
    let mut tex_coord_ids = [0u16; 3];
    for t in &mut tex_coord_ids {
        *t = r.u16(fp)?;
    }
    Ok(Face {
        vertex_ids,
        tex_coord_ids,
        texture_id: r.u16(fp)?,
        padding: r.u16(fp)?,
        two_side: r.i32(fp)?,
        smooth_groups: Vec::new(),
    })
}

fn scale_keys(r: &mut Reader, p: &str) -> Result<Vec<ScaleKey>, ParseError> {
    let n = r.count_i32(&format!("{p}.scale_key_count"), KEY_SIZE)?;
    let mut keys = Vec::with_capacity(n);
    let field = format!("{p}.scale_keys");
    for _ in 0..n {
        keys.push(ScaleKey {
            frame: r.i32(&field)?,
            scale: r.vec3(&field)?,
            data: r.f32(&field)?,
        });
    }
    Ok(keys)
}

fn rot_keys(r: &mut Reader, p: &str) -> Result<Vec<RotKey>, ParseError> {
    let n = r.count_i32(&format!("{p}.rot_key_count"), KEY_SIZE)?;
    let mut keys = Vec::with_capacity(n);
    let field = format!("{p}.rot_keys");
    for _ in 0..n {
        keys.push(RotKey {
            frame: r.i32(&field)?,
            rotation: r.quat_xyzw(&field)?,
        });
    }
    Ok(keys)
}

/// `field` is the block name, e.g. `model_pos_keys` or `node[2].pos_keys`.
fn pos_keys(r: &mut Reader, field: &str) -> Result<Vec<PosKey>, ParseError> {
    let n = r.count_i32(&format!("{field}.count"), KEY_SIZE)?;
    let mut keys = Vec::with_capacity(n);
    for _ in 0..n {
        keys.push(PosKey {
            frame: r.i32(field)?,
            position: r.vec3(field)?,
            data: r.u32(field)?,
        });
    }
    Ok(keys)
}

fn tex_anims(r: &mut Reader, p: &str) -> Result<Vec<TextureAnim>, ParseError> {
    let n = r.count_i32(&format!("{p}.tex_anim_count"), 8)?;
    let mut anims = Vec::with_capacity(n);
    for a in 0..n {
        let ap = format!("{p}.tex_anims[{a}]");
        let texture = r.i32(&format!("{ap}.texture"))?;
        let nc = r.count_i32(&format!("{ap}.channel_count"), 8)?;
        let mut channels = Vec::with_capacity(nc);
        for c in 0..nc {
            let cp = format!("{ap}.channels[{c}]");
            let kind = r.i32(&format!("{cp}.type"))?;
            let nk = r.count_i32(&format!("{cp}.key_count"), 8)?;
            let mut keys = Vec::with_capacity(nk);
            let kf = format!("{cp}.keys");
            for _ in 0..nk {
                keys.push(TexAnimKey {
                    frame: r.i32(&kf)?,
                    value: r.f32(&kf)?,
                });
            }
            channels.push(TexAnimChannel { kind, keys });
        }
        anims.push(TextureAnim { texture, channels });
    }
    Ok(anims)
}

fn volume_boxes(r: &mut Reader, with_flag: bool) -> Result<Vec<VolumeBox>, ParseError> {
    let size = if with_flag { 40 } else { 36 };
    let n = r.count_i32("volume_box_count", size)?;
    let mut boxes = Vec::with_capacity(n);
    for b in 0..n {
        let f = format!("volume_boxes[{b}]");
        boxes.push(VolumeBox {
            size: r.vec3(&f)?,
            position: r.vec3(&f)?,
            rotation: r.vec3(&f)?,
            flag: if with_flag { r.i32(&f)? } else { 0 },
        });
    }
    Ok(boxes)
}

/// Records (and warns about) bytes after the last structure.
fn finish(r: &Reader, rsm: &mut Rsm) {
    let left = r.remaining();
    rsm.trailing_bytes = left;
    if left == 0 {
        return;
    }
    let at = r.pos();
    let what = if left <= TOLERATED_TRAILING {
        "ignored (common in real files)"
    } else {
        "ignored, but more than real files carry: the file may be misread"
    };
    rsm.warnings.push(format!(
        "{}: {left} trailing byte(s) after the last structure at byte {at}: {what}",
        r.file().display()
    ));
}

/// Reads and parses an RSM/RSM2 file.
pub fn parse_file(path: &Path) -> crate::Result<Rsm> {
    let data = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    Ok(parse(&data, path)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::rsm::{fixture, write};

    fn p(b: &[u8]) -> Result<Rsm, ParseError> {
        parse(b, Path::new("unit.rsm"))
    }

    #[test]
    fn real_1_5_shape_reads_as_1_4_with_four_stray_bytes() {
        let m = fixture::model(1, 5);
        let mut b = write(&m);
        b.extend_from_slice(&[0, 0, 0, 0]);
        let got = p(&b).unwrap();
        assert_eq!(got.v15_layout, V15Layout::Documented);
        assert_eq!(got.trailing_bytes, 4);
        assert_eq!(got.nodes, m.nodes);
        assert_eq!(got.warnings.len(), 1);
        assert!(got.warnings[0].contains("4 trailing byte(s)"));
        assert!(got.warnings[0].contains("common in real files"));
    }

    #[test]
    fn many_trailing_bytes_still_parse_with_a_stronger_warning() {
        let mut b = write(&fixture::model(1, 4));
        let end = b.len();
        b.extend_from_slice(&[0xAB; 9]);
        let got = p(&b).unwrap();
        assert_eq!(got.trailing_bytes, 9);
        assert!(got.warnings[0].contains(&format!("at byte {end}")));
        assert!(
            got.warnings[0].contains("may be misread"),
            "{}",
            got.warnings[0]
        );
    }

    #[test]
    fn v1_5_node_position_layout_only_when_the_1_4_reading_fails() {
        // One node with an empty per-node position block and empty model
        // blocks (as real files have): the 1.4 reading leaves exactly 4 zero
        // bytes (tolerated), so 1.4 wins. Both readings agree on the nodes.
        let mut m = fixture::model(1, 5);
        m.nodes.truncate(1);
        m.model_pos_keys.clear();
        m.volume_boxes.clear();
        m.v15_layout = V15Layout::NodePositionKeys;
        let got = p(&write(&m)).unwrap();
        assert_eq!(got.v15_layout, V15Layout::Documented);
        assert_eq!(got.trailing_bytes, 4);
        // In a one-node file a non-empty block still reads as the model
        // block (the layouts coincide); with two nodes the 1.4 reading
        // misparses, so the per-node layout is taken, and it is exact.
        let mut m = fixture::model(1, 5);
        m.v15_layout = V15Layout::NodePositionKeys;
        m.nodes[0].pos_keys = vec![PosKey {
            frame: 5,
            position: Vec3::new(1.0, 2.0, 3.0),
            data: 7,
        }];
        let got = p(&write(&m)).unwrap();
        assert_eq!(got.v15_layout, V15Layout::NodePositionKeys);
        assert_eq!(got.trailing_bytes, 0);
        assert_eq!(got.nodes, m.nodes);
        // Other versions never take it.
        let mut m4 = m.clone();
        m4.minor = 4;
        assert!(write(&m4).len() < write(&m).len());
    }

    #[test]
    fn rsm2_face_length_rules() {
        let mut m = fixture::model(2, 2);
        m.nodes.truncate(1);
        m.nodes[0].faces.truncate(1);
        m.nodes[0].faces[0].smooth_groups = vec![];
        let b = write(&m);
        // A 20-byte face (no smoothing group) is accepted and round-trips.
        assert_eq!(
            p(&b).unwrap().nodes[0].faces[0].smooth_groups,
            Vec::<i32>::new()
        );
        let at = b.windows(4).position(|w| w == 20i32.to_le_bytes()).unwrap();
        for bad in [16i32, 22, -4, 1 << 20] {
            let mut x = b.clone();
            x[at..at + 4].copy_from_slice(&bad.to_le_bytes());
            let e = p(&x).unwrap_err();
            assert_eq!(e.field, "node[0].faces[0].length", "{bad}");
            assert_eq!(e.offset as usize, at);
        }
    }

    #[test]
    fn rsm2_end_of_file_rules() {
        // 2.3 may stop right after the nodes; 2.2 may not.
        let mut m3 = fixture::model(2, 3);
        m3.volume_boxes.clear();
        m3.volume_box_block = false;
        let b3 = write(&m3);
        assert_eq!(p(&b3).unwrap(), m3);
        let mut m2 = fixture::model(2, 2);
        m2.volume_boxes.clear();
        let b2 = write(&m2);
        let e = p(&b2[..b2.len() - 4]).unwrap_err();
        assert_eq!(e.field, "volume_box_count");
        assert_eq!(e.offset as usize, b2.len() - 4);
        // A 2.3 model with boxes always writes the block.
        let mut m3b = fixture::model(2, 3);
        m3b.volume_box_block = false;
        let got = p(&write(&m3b)).unwrap();
        assert_eq!(got.volume_boxes, m3b.volume_boxes);
        assert!(got.volume_box_block);
    }

    #[test]
    fn garbage_after_name_nul_is_kept_until_the_name_changes() {
        let mut m = fixture::model(1, 4);
        let mut b = write(&m);
        // The first texture name field starts after the texture count at 31.
        let field = 35;
        b[field + 30] = 0x5A;
        let got = p(&b).unwrap();
        assert_eq!(got.textures[0], b"tex\\a.bmp");
        assert_eq!(got.raw_name_fields.len(), 2 + 1 + 4);
        assert_eq!(write(&got), b);
        m = got;
        m.textures[0] = b"tex\\c.bmp".to_vec();
        let out = write(&m);
        assert_eq!(out[field + 30], 0);
        assert_eq!(&out[field..field + 10], b"tex\\c.bmp\0");
    }

    #[test]
    fn pre_1_2_texcoords_are_white_and_faces_have_no_group() {
        let m = fixture::model(1, 1);
        let got = p(&write(&m)).unwrap();
        assert!(got.nodes[0]
            .tex_coords
            .iter()
            .all(|t| t.color == 0xFFFF_FFFF));
        assert!(got.nodes[0]
            .faces
            .iter()
            .all(|f| f.smooth_groups.is_empty()));
        assert_eq!(got.alpha, 255);
        assert_eq!(got.volume_boxes[0].flag, 0);
    }
}
