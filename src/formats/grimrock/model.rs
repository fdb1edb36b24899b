use super::*;
use crate::error::ParseError;
use crate::formats::reader::Reader;
use std::path::Path;

/// Bytes of a node with an empty name and no entity.
const MIN_NODE: usize = 4 + 48 + 4 + 4;
/// Bytes of a segment with an empty material name.
const MIN_SEGMENT: usize = 4 + 4 + 4 + 4;
/// Bytes of one skinning bone.
const BONE_SIZE: usize = 4 + 48;
/// No real format has more than four components per vertex; a larger `dim`
/// with a matching stride would still parse, but hints at a misread file.
const MAX_DIM: i32 = 4;

/// Parses a `.model` file held in memory; `file` names it in errors.
pub fn parse_model(data: &[u8], file: &Path) -> Result<Model, ParseError> {
    let mut r = Reader::new(data, file);
    let magic = r.bytes(4, "magic")?;
    if magic != b"MDL1" {
        return Err(r.error_at(
            0,
            "magic",
            format!(
                "not a Grimrock model: expected \"MDL1\", found {:02x?}",
                magic
            ),
        ));
    }
    let version = r.i32("version")?;
    if version != 2 {
        return Err(r.error_at(
            4,
            "version",
            format!("unsupported MDL1 version {version} (kiln reads version 2)"),
        ));
    }
    let mut model = Model::new();
    model.version = version;
    let n = r.count_i32("node_count", MIN_NODE)?;
    model.nodes = Vec::with_capacity(n);
    for i in 0..n {
        let node = parse_node(&mut r, &mut model.warnings, i)?;
        model.nodes.push(node);
    }
    check_parents(&r, &mut model);
    let left = r.remaining();
    model.trailing_bytes = left;
    if left > 0 {
        model.warnings.push(format!(
            "{}: {left} trailing byte(s) after the last node at byte {}: ignored",
            r.file().display(),
            r.pos()
        ));
    }
    Ok(model)
}

/// Reads and parses a `.model` file.
pub fn parse_model_file(path: &Path) -> crate::Result<Model> {
    let data = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    Ok(parse_model(&data, path)?)
}

/// An `i32 length + bytes` string, kept byte for byte.
pub(super) fn string(r: &mut Reader, field: &str) -> Result<RawName, ParseError> {
    let start = r.pos();
    let n = r.i32(field)?;
    if n < 0 || n as usize > r.remaining() {
        return Err(r.error_at(
            start,
            field,
            format!(
                "string length {n} does not fit in the {} bytes left",
                r.remaining()
            ),
        ));
    }
    Ok(r.bytes(n as usize, field)?.to_vec())
}

fn mat4x3(r: &mut Reader, field: &str) -> Result<Mat4x3, ParseError> {
    Ok(Mat4x3::from_array(&r.f32s::<12>(field)?))
}

fn parse_node(r: &mut Reader, warnings: &mut Vec<String>, i: usize) -> Result<Node, ParseError> {
    let p = format!("node[{i}]");
    let name = string(r, &format!("{p}.name"))?;
    let local = mat4x3(r, &format!("{p}.matrix"))?;
    let parent = r.i32(&format!("{p}.parent"))?;
    let type_at = r.pos();
    let node_type = r.i32(&format!("{p}.type"))?;
    let entity = match node_type {
        NODE_NONE => Entity::None,
        NODE_MESH => Entity::Mesh(parse_mesh_entity(r, warnings, &p)?),
        NODE_LIGHT => Entity::Light(parse_light(r, &p)?),
        other => {
            return Err(r.error_at(
                type_at,
                &format!("{p}.type"),
                format!("unknown node type {other} (expected -1 none, 0 mesh or 1 light)"),
            ))
        }
    };
    Ok(Node {
        name,
        local,
        parent,
        entity,
    })
}

fn parse_light(r: &mut Reader, p: &str) -> Result<Light, ParseError> {
    let f = format!("{p}.light");
    Ok(Light {
        kind: r.i32(&format!("{f}.kind"))?,
        color: r.vec3(&format!("{f}.color"))?,
        range: r.f32(&format!("{f}.range"))?,
        spot_angle: r.f32(&format!("{f}.spot_angle"))?,
        spot_sharpness: r.f32(&format!("{f}.spot_sharpness"))?,
        cast_shadow: r.u8(&format!("{f}.cast_shadow"))?,
    })
}

fn parse_mesh_entity(
    r: &mut Reader,
    warnings: &mut Vec<String>,
    p: &str,
) -> Result<MeshEntity, ParseError> {
    let mesh = parse_mesh_data(r, warnings, &format!("{p}.mesh"))?;
    let n = r.count_i32(&format!("{p}.bone_count"), BONE_SIZE)?;
    let mut bones = Vec::with_capacity(n);
    let bf = format!("{p}.bones");
    for _ in 0..n {
        let node = r.i32(&bf)?;
        let inv_rest = mat4x3(r, &bf)?;
        bones.push(Bone { node, inv_rest });
    }
    let emissive = r.vec3(&format!("{p}.emissive"))?;
    let cast_shadow = r.u8(&format!("{p}.cast_shadow"))?;
    check_skin(r, warnings, p, &mesh, bones.len());
    Ok(MeshEntity {
        mesh,
        bones,
        emissive,
        cast_shadow,
    })
}

fn parse_mesh_data(
    r: &mut Reader,
    warnings: &mut Vec<String>,
    p: &str,
) -> Result<MeshData, ParseError> {
    let magic_at = r.pos();
    let magic = r.bytes(4, &format!("{p}.magic"))?;
    if magic != b"MESH" {
        return Err(r.error_at(
            magic_at,
            &format!("{p}.magic"),
            format!("expected \"MESH\", found {:02x?}", magic),
        ));
    }
    let version = r.i32(&format!("{p}.version"))?;
    if version != 2 {
        warnings.push(format!(
            "{}: {p}.version at byte {}: MESH version {version}, real files have 2",
            r.file().display(),
            magic_at + 4
        ));
    }
    let vc_field = format!("{p}.vertex_count");
    let vc_at = r.pos();
    let vc = r.i32(&vc_field)?;
    if vc < 0 {
        return Err(r.error_at(vc_at, &vc_field, format!("negative count {vc}")));
    }
    let vertex_count = vc as usize;
    let mut arrays = Vec::with_capacity(VERTEX_ARRAY_COUNT);
    for (slot, slot_name) in VERTEX_ARRAY_NAMES.iter().enumerate() {
        arrays.push(parse_vertex_array(
            r,
            (vertex_count, vc_at, &vc_field),
            &format!("{p}.arrays[{slot}]({slot_name})"),
        )?);
    }
    let n = r.count_i32(&format!("{p}.index_count"), 4)?;
    let raw = r.bytes(n * 4, &format!("{p}.indices"))?;
    let indices: Vec<u32> = raw
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let n = r.count_i32(&format!("{p}.segment_count"), MIN_SEGMENT)?;
    let mut segments = Vec::with_capacity(n);
    for s in 0..n {
        let f = format!("{p}.segments[{s}]");
        segments.push(Segment {
            material: string(r, &format!("{f}.material"))?,
            primitive_type: r.i32(&format!("{f}.primitive_type"))?,
            first_index: r.i32(&format!("{f}.first_index"))?,
            triangle_count: r.i32(&format!("{f}.triangle_count"))?,
        });
    }
    let mesh = MeshData {
        version,
        vertex_count,
        arrays,
        indices,
        segments,
        bound_center: r.vec3(&format!("{p}.bound_center"))?,
        bound_radius: r.f32(&format!("{p}.bound_radius"))?,
        bbox_min: r.vec3(&format!("{p}.bbox_min"))?,
        bbox_max: r.vec3(&format!("{p}.bbox_max"))?,
    };
    check_mesh(r, warnings, p, &mesh);
    Ok(mesh)
}

/// `count` is the mesh's vertex count with its offset and field name: a data
/// block that does not fit is reported there, since a hostile count is the
/// usual cause.
fn parse_vertex_array(
    r: &mut Reader,
    count: (usize, usize, &str),
    f: &str,
) -> Result<VertexArray, ParseError> {
    let (vertex_count, vc_at, vc_field) = count;
    let at = r.pos();
    let data_type = r.i32(&format!("{f}.data_type"))?;
    let dim = r.i32(&format!("{f}.dim"))?;
    let stride = r.i32(&format!("{f}.stride"))?;
    if dim == 0 {
        return Ok(VertexArray {
            data_type,
            dim,
            stride,
            raw: Vec::new(),
            values: Vec::new(),
        });
    }
    if !(1..=MAX_DIM).contains(&dim) {
        return Err(r.error_at(
            at + 4,
            &format!("{f}.dim"),
            format!("{dim} components per vertex (expected 0..={MAX_DIM})"),
        ));
    }
    let Some(size) = data_type_size(data_type) else {
        return Err(r.error_at(
            at,
            &format!("{f}.data_type"),
            format!("unknown data type {data_type} (expected 0 u8, 1 i16, 2 i32, 3 f32)"),
        ));
    };
    let dim = dim as usize;
    if stride < 0 || (stride as usize) < dim * size {
        return Err(r.error_at(
            at + 8,
            &format!("{f}.stride"),
            format!(
                "stride {stride} is smaller than {dim} × {}-byte {}",
                size,
                data_type_name(data_type)
            ),
        ));
    }
    let stride_u = stride as usize;
    let need = vertex_count as u64 * stride_u as u64;
    if need > r.remaining() as u64 {
        return Err(r.error_at(
            vc_at,
            vc_field,
            format!(
                "{vertex_count} vertices × {stride_u}-byte stride of {f} need {need} bytes \
                 but only {} are left",
                r.remaining()
            ),
        ));
    }
    let raw = r.bytes(vertex_count * stride_u, &format!("{f}.data"))?;
    let mut values = Vec::with_capacity(vertex_count * dim);
    for v in raw.chunks_exact(stride_u) {
        for c in 0..dim {
            let b = &v[c * size..c * size + size];
            values.push(match data_type {
                DATA_BYTE => b[0] as f32,
                DATA_INT16 => i16::from_le_bytes([b[0], b[1]]) as f32,
                DATA_INT32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
                _ => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            });
        }
    }
    Ok(VertexArray {
        data_type,
        dim: dim as i32,
        stride,
        raw: raw.to_vec(),
        values,
    })
}

fn warn(r: &Reader, warnings: &mut Vec<String>, field: &str, message: String) {
    warnings.push(format!("{}: {field}: {message}", r.file().display()));
}

/// Index and segment ranges the renderer has to guard against; the file is
/// still readable, so these are warnings.
fn check_mesh(r: &Reader, warnings: &mut Vec<String>, p: &str, mesh: &MeshData) {
    let vc = mesh.vertex_count as u64;
    let bad = mesh.indices.iter().filter(|&&i| i as u64 >= vc).count();
    if bad > 0 {
        warn(
            r,
            warnings,
            &format!("{p}.indices"),
            format!("{bad} index(es) beyond the {vc} vertices"),
        );
    }
    if !mesh.indices.len().is_multiple_of(3) {
        warn(
            r,
            warnings,
            &format!("{p}.indices"),
            format!(
                "{} indices is not a whole number of triangles",
                mesh.indices.len()
            ),
        );
    }
    for (s, seg) in mesh.segments.iter().enumerate() {
        let end = seg.first_index as i64 + 3 * seg.triangle_count as i64;
        if seg.first_index < 0 || seg.triangle_count < 0 || end > mesh.indices.len() as i64 {
            warn(
                r,
                warnings,
                &format!("{p}.segments[{s}]"),
                format!(
                    "indices {}..{end} fall outside the {} indices",
                    seg.first_index,
                    mesh.indices.len()
                ),
            );
        }
        if seg.primitive_type != 2 {
            warn(
                r,
                warnings,
                &format!("{p}.segments[{s}].primitive_type"),
                format!(
                    "primitive type {} (real files use 2, triangle list)",
                    seg.primitive_type
                ),
            );
        }
    }
    if mesh.vertex_count > 0 && mesh.array(POSITION).is_none() {
        warn(
            r,
            warnings,
            &format!("{p}.arrays[0]"),
            "mesh has vertices but no position array".to_string(),
        );
    }
}

fn check_skin(r: &Reader, warnings: &mut Vec<String>, p: &str, mesh: &MeshData, bones: usize) {
    let (Some(idx), Some(w)) = (mesh.array(BONE_INDEX), mesh.array(BONE_WEIGHT)) else {
        return;
    };
    let mut bad = 0usize;
    for v in 0..idx.len() {
        for c in 0..idx.dim() {
            let i = idx.get(v, c);
            if w.get(v, c) != 0.0 && !(i >= 0.0 && (i as usize) < bones) {
                bad += 1;
            }
        }
    }
    if bad > 0 {
        warn(
            r,
            warnings,
            &format!("{p}.arrays[13](bone_index)"),
            format!("{bad} weighted bone slot(s) name a bone beyond the {bones} bones"),
        );
    }
}

fn check_parents(r: &Reader, model: &mut Model) {
    let n = model.nodes.len();
    for i in 0..n {
        let parent = model.nodes[i].parent;
        if parent < -1 || parent >= n as i32 || parent == i as i32 {
            model.warnings.push(format!(
                "{}: node[{i}].parent: {parent} is not a node index (treated as a root)",
                r.file().display()
            ));
        }
    }
    for i in 0..n {
        for b in model.nodes[i]
            .mesh()
            .map(|m| m.bones.as_slice())
            .unwrap_or(&[])
        {
            if b.node < 0 || b.node >= n as i32 {
                model.warnings.push(format!(
                    "{}: node[{i}].bones: bone node {} is not a node index",
                    r.file().display(),
                    b.node
                ));
            }
        }
    }
}
