use super::model::string;
use super::*;
use crate::error::ParseError;
use crate::formats::reader::Reader;
use std::path::Path;

/// Bytes of one interleaved version-1 key: position, rotation, scale.
const KEY_V1: usize = 12 + 16 + 12;

/// Parses an `.animation` file held in memory; `file` names it in errors.
pub fn parse_animation(data: &[u8], file: &Path) -> Result<Animation, ParseError> {
    let mut r = Reader::new(data, file);
    let magic = r.bytes(4, "magic")?;
    if magic != b"ANIM" {
        return Err(r.error_at(
            0,
            "magic",
            format!(
                "not a Grimrock animation: expected \"ANIM\", found {:02x?}",
                magic
            ),
        ));
    }
    let version = r.i32("version")?;
    if version != 1 && version != 2 {
        return Err(r.error_at(
            4,
            "version",
            format!("unsupported ANIM version {version} (kiln reads 1 and 2)"),
        ));
    }
    let name = string(&mut r, "name")?;
    let fps_at = r.pos();
    let fps = r.f32("fps")?;
    let frames_at = r.pos();
    let frames = r.i32("frame_count")?;
    let mut anim = Animation::new(version, fps, frames);
    anim.name = name;
    if !(fps.is_finite() && fps > 0.0) {
        anim.warnings.push(format!(
            "{}: fps at byte {fps_at}: {fps} is not a positive rate",
            file.display()
        ));
    }
    if frames < 0 {
        anim.warnings.push(format!(
            "{}: frame_count at byte {frames_at}: negative frame count {frames}",
            file.display()
        ));
    }
    // An empty node name plus the key counts.
    let min_track = if version == 1 { 4 + 4 } else { 4 + 12 };
    let n = r.count_i32("track_count", min_track)?;
    anim.tracks = Vec::with_capacity(n);
    for i in 0..n {
        let p = format!("tracks[{i}]");
        let mut track = Track::new(&string(&mut r, &format!("{p}.node"))?);
        if version == 1 {
            let k = r.count_i32(&format!("{p}.key_count"), KEY_V1)?;
            track.positions.reserve_exact(k);
            track.rotations.reserve_exact(k);
            track.scales.reserve_exact(k);
            let kf = format!("{p}.keys");
            for _ in 0..k {
                track.positions.push(r.vec3(&kf)?);
                track.rotations.push(r.quat_xyzw(&kf)?);
                track.scales.push(r.vec3(&kf)?);
            }
        } else {
            let k = r.count_i32(&format!("{p}.position_count"), 12)?;
            let f = format!("{p}.positions");
            track.positions = (0..k).map(|_| r.vec3(&f)).collect::<Result<_, _>>()?;
            let k = r.count_i32(&format!("{p}.rotation_count"), 16)?;
            let f = format!("{p}.rotations");
            track.rotations = (0..k).map(|_| r.quat_xyzw(&f)).collect::<Result<_, _>>()?;
            let k = r.count_i32(&format!("{p}.scale_count"), 12)?;
            let f = format!("{p}.scales");
            track.scales = (0..k).map(|_| r.vec3(&f)).collect::<Result<_, _>>()?;
        }
        anim.tracks.push(track);
    }
    let left = r.remaining();
    anim.trailing_bytes = left;
    if left > 0 {
        anim.warnings.push(format!(
            "{}: {left} trailing byte(s) after the last track at byte {}: ignored",
            file.display(),
            r.pos()
        ));
    }
    Ok(anim)
}

/// Reads and parses an `.animation` file.
pub fn parse_animation_file(path: &Path) -> crate::Result<Animation> {
    let data = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    Ok(parse_animation(&data, path)?)
}
