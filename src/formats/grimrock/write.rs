use super::*;
use crate::formats::reader::Writer;

fn len<T>(v: &[T]) -> i32 {
    i32::try_from(v.len()).unwrap_or(i32::MAX)
}

fn mat4x3(w: &mut Writer, m: &Mat4x3) {
    for f in m.to_array() {
        w.f32(f);
    }
}

/// Serialises a model in the `MDL1` layout.
///
/// Vertex arrays are written from their `raw` bytes, cut or zero-padded to
/// `vertex_count × stride` so the file stays readable whatever the caller put
/// there; `trailing_bytes` are not written, so the output is the clean form of
/// the parsed file.
pub fn write_model(model: &Model) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(b"MDL1").i32(model.version).i32(len(&model.nodes));
    for node in &model.nodes {
        w.len_name(&node.name);
        mat4x3(&mut w, &node.local);
        w.i32(node.parent).i32(node.node_type());
        match &node.entity {
            Entity::None => {}
            Entity::Mesh(m) => write_mesh_entity(&mut w, m),
            Entity::Light(l) => {
                w.i32(l.kind)
                    .vec3(l.color)
                    .f32(l.range)
                    .f32(l.spot_angle)
                    .f32(l.spot_sharpness)
                    .u8(l.cast_shadow);
            }
        }
    }
    w.into_bytes()
}

fn write_mesh_entity(w: &mut Writer, m: &MeshEntity) {
    let mesh = &m.mesh;
    w.bytes(b"MESH")
        .i32(mesh.version)
        .i32(i32::try_from(mesh.vertex_count).unwrap_or(i32::MAX));
    let absent = VertexArray::absent();
    for slot in 0..VERTEX_ARRAY_COUNT {
        let a = mesh.arrays.get(slot).unwrap_or(&absent);
        w.i32(a.data_type).i32(a.dim).i32(a.stride);
        if a.dim > 0 {
            let want = mesh.vertex_count * a.stride.max(0) as usize;
            let have = a.raw.len().min(want);
            w.bytes(&a.raw[..have]);
            w.bytes(&vec![0u8; want - have]);
        }
    }
    w.i32(len(&mesh.indices));
    for &i in &mesh.indices {
        w.u32(i);
    }
    w.i32(len(&mesh.segments));
    for s in &mesh.segments {
        w.len_name(&s.material)
            .i32(s.primitive_type)
            .i32(s.first_index)
            .i32(s.triangle_count);
    }
    w.vec3(mesh.bound_center)
        .f32(mesh.bound_radius)
        .vec3(mesh.bbox_min)
        .vec3(mesh.bbox_max);
    w.i32(len(&m.bones));
    for b in &m.bones {
        w.i32(b.node);
        mat4x3(w, &b.inv_rest);
    }
    w.vec3(m.emissive).u8(m.cast_shadow);
}

/// Serialises an animation: version 1 interleaves one position, rotation and
/// scale per key; any other version is written in the version-2 layout (three
/// separate arrays).
///
/// Version 1 has a single key count per track, so shorter arrays are
/// extended by repeating their last key (identity values when empty) up to the
/// longest one — the reading Grimrock gives a constant track.
pub fn write_animation(anim: &Animation) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(b"ANIM").i32(anim.version).len_name(&anim.name);
    w.f32(anim.fps).i32(anim.frames).i32(len(&anim.tracks));
    for t in &anim.tracks {
        w.len_name(&t.node);
        if anim.version == 1 {
            let n = t.positions.len().max(t.rotations.len()).max(t.scales.len());
            w.i32(i32::try_from(n).unwrap_or(i32::MAX));
            for k in 0..n {
                w.vec3(key(&t.positions, k, Vec3::ZERO));
                w.quat_xyzw(key(&t.rotations, k, Quat::IDENTITY));
                w.vec3(key(&t.scales, k, Vec3::ONE));
            }
        } else {
            w.i32(len(&t.positions));
            for &p in &t.positions {
                w.vec3(p);
            }
            w.i32(len(&t.rotations));
            for &q in &t.rotations {
                w.quat_xyzw(q);
            }
            w.i32(len(&t.scales));
            for &s in &t.scales {
                w.vec3(s);
            }
        }
    }
    w.into_bytes()
}

fn key<T: Copy>(keys: &[T], k: usize, empty: T) -> T {
    keys.get(k).or(keys.last()).copied().unwrap_or(empty)
}
