//! Writing a model as glTF binary or Wavefront OBJ.
//!
//! A posed instant ([`export`]): both writers take the geometry exactly as
//! [`crate::scene::pose()`] left it: world space, Y up, counter-clockwise
//! fronts. Node transforms are baked into the vertices, so every exported
//! node sits at the identity. A whole animation ([`gltf::animated`]): glTF
//! only, with the node tree, skins and one animation per clip.

pub mod gltf;
pub mod obj;

pub use gltf::write_glb;
pub use obj::write_obj;

use crate::error::{Error, Result};
use crate::scene::{Model, PosedModel, PosedPrimitive};
use crate::texture::Texture;
use glam::{Affine2, Vec2, Vec3};
use std::path::Path;

/// Writes `posed` as `.glb` or `.obj` (with its `.mtl` and PNG textures),
/// chosen by the extension of `path` (case-insensitive).
pub fn export(model: &Model, posed: &PosedModel, path: &Path) -> Result<()> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("glb") => write_glb(model, posed, path),
        Some("obj") => write_obj(model, posed, path),
        _ => Err(Error::Usage(format!(
            "{}: cannot tell the export format; the output must end in .glb or .obj",
            path.display()
        ))),
    }
}

/// Converts premultiplied texels to a straight-alpha image. Fully transparent
/// texels become transparent black: their colour is gone after premultiplying.
/// `None` when the texture cannot become a PNG (zero-sized, or a texel count
/// that disagrees with its size).
pub(crate) fn straight_image(tex: &Texture) -> Option<image::RgbaImage> {
    if tex.width == 0 || tex.height == 0 {
        return None;
    }
    let n = (tex.width as usize).checked_mul(tex.height as usize)?;
    if tex.texels.len() != n {
        return None;
    }
    let mut texels = tex.texels.clone();
    crate::texture::unpremultiply_all(&mut texels);
    image::RgbaImage::from_raw(tex.width, tex.height, texels.into_flattened())
}

/// PNG bytes of each texture slot that some material uses and that can be
/// encoded, in slot order: `(slot index, png)`.
pub(crate) fn used_texture_pngs(model: &Model) -> Result<Vec<(usize, Vec<u8>)>> {
    let mut used = vec![false; model.textures.len()];
    for m in &model.materials {
        if let Some(t) = m.texture {
            if let Some(u) = used.get_mut(t) {
                *u = true;
            }
        }
    }
    let mut out = Vec::new();
    for (i, slot) in model.textures.iter().enumerate() {
        if !used[i] {
            continue;
        }
        if let Some(img) = straight_image(&slot.image) {
            out.push((i, crate::output::encode_png(&img)?));
        }
    }
    Ok(out)
}

/// Triangles of a primitive whose indices all name a vertex of the mesh;
/// others would make an invalid file.
pub(crate) fn valid_triangles(prim: &PosedPrimitive, vertex_count: usize) -> Vec<[u32; 3]> {
    prim.triangles
        .iter()
        .copied()
        .filter(|t| t.iter().all(|&i| (i as usize) < vertex_count))
        .collect()
}

/// Neither format can hold NaN or infinity (JSON has no spelling for them).
pub(crate) fn finite3(v: Vec3) -> Vec3 {
    Vec3::new(finite(v.x), finite(v.y), finite(v.z))
}

pub(crate) fn finite(x: f32) -> f32 {
    // `+ 0.0` folds -0 into 0 so files do not depend on the sign of zero.
    if x.is_finite() {
        x + 0.0
    } else {
        0.0
    }
}

/// Normals must be unit length in glTF; a degenerate triangle's zero normal
/// gets +Y rather than invalidating the whole file.
pub(crate) fn unit_normal(n: Vec3) -> Vec3 {
    let n = finite3(n);
    let len = n.length();
    if len > 1e-6 {
        n / len
    } else {
        Vec3::Y
    }
}

/// A mesh's texture coordinates under one primitive's transform, one per
/// vertex (vertices without a stored uv get (0, 0)). Kiln and glTF share
/// v = 0 at the top.
pub(crate) fn transformed_uvs(uvs: &[Vec2], count: usize, t: &Affine2) -> Vec<Vec2> {
    (0..count)
        .map(|i| {
            let uv = t.transform_point2(uvs.get(i).copied().unwrap_or(Vec2::ZERO));
            Vec2::new(finite(uv.x), finite(uv.y))
        })
        .collect()
}

/// Keeps ASCII letters, digits, `-`, `_` and `.`; everything else becomes `_`,
/// so names survive whitespace-separated OBJ/MTL statements and any filesystem.
pub(crate) fn sanitize(name: &str, max_len: usize) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(max_len)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::TextureAlpha;

    #[test]
    fn unpremultiplies_with_rounding() {
        let tex = Texture {
            name: "t".into(),
            width: 2,
            height: 2,
            texels: vec![
                [128, 64, 0, 128],
                [0, 0, 0, 0],
                [10, 20, 30, 255],
                [3, 0, 0, 1],
            ],
            alpha: TextureAlpha::Translucent,
        };
        let img = straight_image(&tex).unwrap();
        assert_eq!(img.get_pixel(0, 0).0, [255, 128, 0, 128]);
        assert_eq!(img.get_pixel(1, 0).0, [0, 0, 0, 0]);
        assert_eq!(img.get_pixel(0, 1).0, [10, 20, 30, 255]);
        // Premultiplied colour above alpha is corrupt input; it clamps.
        assert_eq!(img.get_pixel(1, 1).0, [255, 0, 0, 1]);
    }

    #[test]
    fn rejects_textures_png_cannot_hold() {
        let mut tex = Texture {
            name: "t".into(),
            width: 0,
            height: 4,
            texels: vec![],
            alpha: TextureAlpha::Opaque,
        };
        assert!(straight_image(&tex).is_none());
        tex.width = 2;
        tex.texels = vec![[0; 4]; 7];
        assert!(straight_image(&tex).is_none());
    }

    #[test]
    fn sanitizes_names() {
        assert_eq!(sanitize("data\\tex ture\\a.bmp", 64), "data_tex_ture_a.bmp");
        assert_eq!(sanitize("유저", 64), "__");
        assert_eq!(sanitize("abcdef", 3), "abc");
    }

    #[test]
    fn degenerate_normals_become_up() {
        assert_eq!(unit_normal(Vec3::ZERO), Vec3::Y);
        assert_eq!(unit_normal(Vec3::new(f32::NAN, 0.0, 0.0)), Vec3::Y);
        assert_eq!(unit_normal(Vec3::new(0.0, 0.0, 2.0)), Vec3::Z);
    }
}
