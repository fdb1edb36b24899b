//! Wavefront OBJ with its MTL and PNG textures beside it.

use super::valid_triangles;
use super::{finite, finite3, sanitize, transformed_uvs, unit_normal, used_texture_pngs};
use crate::error::Result;
use crate::scene::{AlphaMode, Model, PosedModel};
use glam::Affine2;
use std::fmt::Write as _;
use std::path::Path;

/// Material used by primitives whose material index is out of range; OBJ
/// would otherwise silently keep the previous `usemtl`.
const FALLBACK_MATERIAL: &str = "kiln_default";

/// Everything an OBJ export writes: file names are relative to the `.obj`.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjFiles {
    /// The `.obj` file.
    pub obj: Vec<u8>,
    /// The `.mtl` file's name, as the `.obj` names it.
    pub mtl_name: String,
    /// The `.mtl` file.
    pub mtl: Vec<u8>,
    /// `(file name, PNG bytes)`, in texture slot order.
    pub textures: Vec<(String, Vec<u8>)>,
}

/// Writes `path` (the `.obj`), `<stem>.mtl` and `<stem>_t<slot>_<name>.png`
/// beside it, each atomically. The stem is sanitized (ASCII letters, digits,
/// `-_.`) because OBJ and MTL statements split on whitespace. The `.obj` is
/// written last so its presence means the set is complete.
pub fn write_obj(model: &Model, posed: &PosedModel, path: &Path) -> Result<()> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let files = obj_files(model, posed, &stem)?;
    let dir = path.parent().unwrap_or(Path::new(""));
    for (name, png) in &files.textures {
        crate::output::write_atomic(&dir.join(name), png)?;
    }
    crate::output::write_atomic(&dir.join(&files.mtl_name), &files.mtl)?;
    crate::output::write_atomic(path, &files.obj)
}

/// The OBJ, MTL and PNG bytes for the posed model; `stem` names the sidecar
/// files (sanitized; `model` when nothing is left of it).
pub fn obj_files(model: &Model, posed: &PosedModel, stem: &str) -> Result<ObjFiles> {
    let mut base = sanitize(stem, 64);
    if base.is_empty() {
        base = "model".into();
    }
    let mtl_name = format!("{base}.mtl");

    let mut tex_files: Vec<Option<String>> = vec![None; model.textures.len()];
    let mut textures = Vec::new();
    for (slot, png) in used_texture_pngs(model)? {
        let name = texture_file_name(&base, slot, &model.textures[slot].name);
        tex_files[slot] = Some(name.clone());
        textures.push((name, png));
    }
    let mat_names: Vec<String> = model
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let s = sanitize(&m.name, 48);
            if s.is_empty() {
                format!("m{i}")
            } else {
                format!("m{i}_{s}")
            }
        })
        .collect();

    let mut o = String::new();
    let _ = writeln!(
        o,
        "# kiln {} export of {}",
        env!("CARGO_PKG_VERSION"),
        one_line(&model.name)
    );
    let _ = writeln!(o, "mtllib {mtl_name}");
    let (mut v_base, mut vt_base, mut vn_base) = (0usize, 0usize, 0usize);
    let mut need_fallback = false;
    for (mi, (mesh, pm)) in model.meshes.iter().zip(&posed.meshes).enumerate() {
        let count = pm.positions.len();
        let _ = writeln!(o, "o {}", one_line(&mesh.name));
        for &p in pm.positions.iter() {
            let p = finite3(p);
            let _ = writeln!(o, "v {} {} {}", p.x, p.y, p.z);
        }
        let has_normals = count > 0 && pm.normals.len() == count;
        if has_normals {
            for &n in pm.normals.iter() {
                let n = unit_normal(n);
                let _ = writeln!(o, "vn {} {} {}", n.x, n.y, n.z);
            }
        }
        let has_uvs = count > 0 && !mesh.uvs.is_empty();
        // One block of vt per distinct uv transform: primitives of a mesh
        // share positions but may scroll their texture differently.
        let mut uv_blocks: Vec<(Affine2, usize)> = Vec::new();
        for prim in posed.primitives.iter().filter(|p| p.mesh == mi) {
            let tris = valid_triangles(prim, count);
            if tris.is_empty() {
                continue;
            }
            let vt_block = if has_uvs {
                match uv_blocks.iter().find(|(t, _)| *t == prim.uv_transform) {
                    Some(&(_, b)) => Some(b),
                    None => {
                        let b = vt_base;
                        for uv in transformed_uvs(&mesh.uvs, count, &prim.uv_transform) {
                            // OBJ puts v = 0 at the bottom of the image.
                            let _ = writeln!(o, "vt {} {}", uv.x, finite(1.0 - uv.y));
                        }
                        vt_base += count;
                        uv_blocks.push((prim.uv_transform, b));
                        Some(b)
                    }
                }
            } else {
                None
            };
            match mat_names.get(prim.material) {
                Some(name) => {
                    let _ = writeln!(o, "usemtl {name}");
                }
                None => {
                    need_fallback = true;
                    let _ = writeln!(o, "usemtl {FALLBACK_MATERIAL}");
                }
            }
            for t in &tris {
                o.push('f');
                for &i in t {
                    let i = i as usize;
                    let v = v_base + i + 1;
                    let _ = match (vt_block, has_normals) {
                        (Some(b), true) => write!(o, " {v}/{}/{}", b + i + 1, vn_base + i + 1),
                        (Some(b), false) => write!(o, " {v}/{}", b + i + 1),
                        (None, true) => write!(o, " {v}//{}", vn_base + i + 1),
                        (None, false) => write!(o, " {v}"),
                    };
                }
                o.push('\n');
            }
        }
        v_base += count;
        if has_normals {
            vn_base += count;
        }
    }

    let mut m = String::new();
    let _ = writeln!(
        m,
        "# kiln {} materials of {}",
        env!("CARGO_PKG_VERSION"),
        one_line(&model.name)
    );
    for (i, mat) in model.materials.iter().enumerate() {
        let [r, g, b, a] = mat.base_color.map(|c| finite(c).clamp(0.0, 1.0));
        let _ = writeln!(m, "\nnewmtl {}", mat_names[i]);
        let _ = writeln!(m, "Kd {r} {g} {b}");
        let _ = writeln!(m, "Ks 0 0 0");
        let _ = writeln!(m, "d {a}");
        // illum 0 is "colour on, ambient off": no lighting, as unlit means.
        let _ = writeln!(m, "illum {}", if mat.unlit { 0 } else { 1 });
        if let Some(file) = mat
            .texture
            .and_then(|t| tex_files.get(t).cloned().flatten())
        {
            let _ = writeln!(m, "map_Kd {file}");
            if mat.alpha != AlphaMode::Opaque {
                let _ = writeln!(m, "map_d {file}");
            }
        }
    }
    if need_fallback {
        let _ = writeln!(
            m,
            "\nnewmtl {FALLBACK_MATERIAL}\nKd 1 1 1\nKs 0 0 0\nd 1\nillum 1"
        );
    }

    Ok(ObjFiles {
        obj: o.into_bytes(),
        mtl_name,
        mtl: m.into_bytes(),
        textures,
    })
}

/// `<base>_t<slot>_<texture file name without folders or extension>.png`;
/// the slot number keeps names unique when sanitizing makes two alike.
fn texture_file_name(base: &str, slot: usize, tex_name: &str) -> String {
    let file = tex_name.rsplit(['\\', '/']).next().unwrap_or("");
    let stem = match file.rfind('.') {
        Some(dot) if dot > 0 => &file[..dot],
        _ => file,
    };
    let s = sanitize(stem, 48);
    if s.is_empty() {
        format!("{base}_t{slot}.png")
    } else {
        format!("{base}_t{slot}_{s}.png")
    }
}

/// Names go into statements that end at the line break.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_names_drop_folders_and_extension() {
        assert_eq!(
            texture_file_name("m", 3, "data\\texture\\wall 01.bmp"),
            "m_t3_wall_01.png"
        );
        assert_eq!(texture_file_name("m", 0, "a/b/.bmp"), "m_t0_.bmp.png");
        assert_eq!(texture_file_name("m", 1, "dir\\"), "m_t1.png");
        assert_eq!(texture_file_name("m", 2, "유저.bmp"), "m_t2___.png");
    }
}
