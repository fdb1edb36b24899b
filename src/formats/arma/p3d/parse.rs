//! Reading an MLOD file, every count checked against the bytes left.

use super::*;
use crate::error::ParseError;
use crate::formats::reader::Reader;
use std::path::Path;

/// Reads and parses an MLOD P3D file.
pub fn parse_file(path: &Path) -> crate::Result<Mlod> {
    let data = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    Ok(parse(&data, path)?)
}

/// Parses an MLOD P3D file held in memory; `file` names it in errors.
/// Binarised `ODOL` models are refused with a clear message; bytes after the
/// last LOD, out-of-range point/normal indices and malformed tags are errors.
pub fn parse(data: &[u8], file: &Path) -> Result<Mlod, ParseError> {
    let mut r = Reader::new(data, file);
    let magic = r.bytes(4, "signature")?;
    if magic == b"ODOL" {
        let version = r.u32("ODOL version")?;
        return Err(r.error_at(
            0,
            "signature",
            format!(
                "binarised P3D (ODOL version {version}) is not supported; use the MLOD source model"
            ),
        ));
    }
    if magic != b"MLOD" {
        return Err(r.error_at(
            0,
            "signature",
            format!(
                "expected \"MLOD\", found {:?}",
                String::from_utf8_lossy(magic)
            ),
        ));
    }
    let vpos = r.pos();
    let version = r.u32("version")?;
    if version != MLOD_VERSION {
        return Err(r.error_at(
            vpos,
            "version",
            format!("MLOD version {version} is not supported (expected {MLOD_VERSION})"),
        ));
    }
    let count = r.count_u32("lod_count", MIN_LOD_SIZE)?;
    let mut lods = Vec::with_capacity(count);
    for i in 0..count {
        lods.push(parse_lod(&mut r, i)?);
    }
    if !r.at_end() {
        return Err(r.error(
            "end",
            format!("{} unexpected bytes after the last LOD", r.remaining()),
        ));
    }
    Ok(Mlod { lods })
}

pub(super) fn parse_lod(r: &mut Reader, li: usize) -> Result<Lod, ParseError> {
    let p = format!("lod[{li}]");
    let start = r.pos();
    let magic = r.bytes(4, &format!("{p}.signature"))?;
    if magic != b"P3DM" {
        return Err(r.error_at(
            start,
            &format!("{p}.signature"),
            format!(
                "expected \"P3DM\", found {:?}",
                String::from_utf8_lossy(magic)
            ),
        ));
    }
    let vpos = r.pos();
    let version_major = r.u32(&format!("{p}.version_major"))?;
    let version_minor = r.u32(&format!("{p}.version_minor"))?;
    if version_major != P3DM_MAJOR || version_minor != P3DM_MINOR {
        return Err(r.error_at(
            vpos,
            &format!("{p}.version"),
            format!(
                "P3DM version 0x{version_major:x}.0x{version_minor:x} is not supported \
                 (expected 0x{P3DM_MAJOR:x}.0x{P3DM_MINOR:x})"
            ),
        ));
    }
    // The three counts come before any of the arrays, so each is checked
    // against the bytes left now; the arrays themselves check as they read.
    let n_points = r.count_u32(&format!("{p}.point_count"), POINT_SIZE)?;
    let n_normals = r.count_u32(&format!("{p}.normal_count"), NORMAL_SIZE)?;
    let n_faces = r.count_u32(&format!("{p}.face_count"), MIN_FACE_SIZE)?;
    let flags = r.u32(&format!("{p}.flags"))?;

    let mut points = Vec::with_capacity(n_points);
    for i in 0..n_points {
        let f = format!("{p}.points[{i}]");
        let pos = r.vec3(&f)?;
        let flags = r.u32(&f)?;
        points.push(Point { pos, flags });
    }
    let mut normals = Vec::with_capacity(n_normals);
    for i in 0..n_normals {
        normals.push(r.vec3(&format!("{p}.normals[{i}]"))?);
    }
    let mut faces = Vec::with_capacity(n_faces);
    for i in 0..n_faces {
        faces.push(parse_face(
            r,
            &format!("{p}.faces[{i}]"),
            n_points,
            n_normals,
        )?);
    }

    let tpos = r.pos();
    let tagg = r.bytes(4, &format!("{p}.tagg"))?;
    if tagg != b"TAGG" {
        return Err(r.error_at(
            tpos,
            &format!("{p}.tagg"),
            format!(
                "expected \"TAGG\", found {:?}",
                String::from_utf8_lossy(tagg)
            ),
        ));
    }
    let mut lod = Lod {
        resolution: 0.0,
        version_major,
        version_minor,
        flags,
        points,
        normals,
        faces,
        selections: Vec::new(),
        animations: Vec::new(),
        other_tags: Vec::new(),
        tag_order: Vec::new(),
    };
    let mut ti = 0usize;
    loop {
        let f = format!("{p}.tags[{ti}]");
        let tag_start = r.pos();
        let active_byte = r.u8(&format!("{f}.active"))?;
        let name = latin1(&r.asciiz(&format!("{f}.name"))?);
        let len_pos = r.pos();
        let len = r.u32(&format!("{f}.length"))? as usize;
        if len > r.remaining() {
            return Err(r.error_at(
                len_pos,
                &format!("{f}.length"),
                format!(
                    "tag {name:?} length {len} does not fit in the {} bytes left",
                    r.remaining()
                ),
            ));
        }
        let data_pos = r.pos();
        let data = r.bytes(len, &format!("{f}.data"))?;
        if active_byte > 1 {
            return Err(r.error_at(
                tag_start,
                &format!("{f}.active"),
                format!("tag {name:?} active flag is {active_byte} (expected 0 or 1)"),
            ));
        }
        let active = active_byte == 1;
        if name == END_OF_FILE_TAG {
            if len != 0 || !active {
                return Err(r.error_at(
                    tag_start,
                    &f,
                    format!("{END_OF_FILE_TAG} tag must be active and empty (length {len})"),
                ));
            }
            break;
        }
        let bad_len = |want: usize| {
            r.error_at(
                len_pos,
                &format!("{f}.length"),
                format!("tag {name:?} holds {len} bytes but this LOD needs {want}"),
            )
        };
        if name == ANIMATION_TAG {
            let want = 4 + 12 * lod.points.len();
            if len != want {
                return Err(bad_len(want));
            }
            let mut tr = Reader::new(data, r.file());
            let phase = tr.f32("phase").map_err(|_| bad_len(want))?;
            let mut positions = Vec::with_capacity(lod.points.len());
            for _ in 0..lod.points.len() {
                positions.push(tr.vec3("position").map_err(|_| bad_len(want))?);
            }
            lod.tag_order.push(TagRef::Animation(lod.animations.len()));
            lod.animations.push(AnimationTag {
                active,
                phase,
                positions,
            });
        } else if !name.starts_with('#') {
            let want = lod.points.len() + lod.faces.len();
            if len != want {
                return Err(bad_len(want));
            }
            let (pb, fb) = data.split_at(lod.points.len());
            if let Some(k) = fb.iter().position(|&b| b > 1) {
                return Err(r.error_at(
                    data_pos + pb.len() + k,
                    &format!("{f}.faces[{k}]"),
                    format!(
                        "selection {name:?} face byte is {} (expected 0 or 1)",
                        fb[k]
                    ),
                ));
            }
            // 255 decodes to weight 0 like 0 does, so writing would change it.
            if let Some(k) = pb.iter().position(|&b| b == 255) {
                return Err(r.error_at(
                    data_pos + k,
                    &format!("{f}.points[{k}]"),
                    format!("selection {name:?} point weight byte 255 is not a known code"),
                ));
            }
            lod.tag_order.push(TagRef::Selection(lod.selections.len()));
            lod.selections.push(Selection {
                name,
                active,
                point_weights: pb.iter().map(|&b| decode_weight(b)).collect(),
                face_selected: fb.iter().map(|&b| b == 1).collect(),
            });
        } else {
            lod.tag_order.push(TagRef::Other(lod.other_tags.len()));
            lod.other_tags.push(RawTag {
                name,
                active,
                data: data.to_vec(),
            });
        }
        ti += 1;
    }
    lod.resolution = r.f32(&format!("{p}.resolution"))?;
    Ok(lod)
}

pub(super) fn parse_face(
    r: &mut Reader,
    f: &str,
    n_points: usize,
    n_normals: usize,
) -> Result<Face, ParseError> {
    let spos = r.pos();
    let sides = r.u32(&format!("{f}.sides"))?;
    if sides != 3 && sides != 4 {
        return Err(r.error_at(
            spos,
            &format!("{f}.sides"),
            format!("face has {sides} sides (expected 3 or 4)"),
        ));
    }
    let mut vertices = [FaceVertex::default(); 4];
    for (k, v) in vertices.iter_mut().enumerate() {
        let vf = format!("{f}.vertices[{k}]");
        let vpos = r.pos();
        let point = r.u32(&format!("{vf}.point"))?;
        let normal = r.u32(&format!("{vf}.normal"))?;
        let u = r.f32(&format!("{vf}.u"))?;
        let vv = r.f32(&format!("{vf}.v"))?;
        if k < sides as usize {
            if point as usize >= n_points {
                return Err(r.error_at(
                    vpos,
                    &format!("{vf}.point"),
                    format!("point index {point} out of range ({n_points} points)"),
                ));
            }
            if normal as usize >= n_normals {
                return Err(r.error_at(
                    vpos + 4,
                    &format!("{vf}.normal"),
                    format!("normal index {normal} out of range ({n_normals} normals)"),
                ));
            }
        }
        *v = FaceVertex {
            point,
            normal,
            u,
            v: vv,
        };
    }
    let flags = r.u32(&format!("{f}.flags"))?;
    let texture = latin1(&r.asciiz(&format!("{f}.texture"))?);
    let material = latin1(&r.asciiz(&format!("{f}.material"))?);
    Ok(Face {
        sides,
        vertices,
        flags,
        texture,
        material,
    })
}
