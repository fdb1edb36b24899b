//! Wavefront OBJ models in, static, with their MTL materials (`Kd`, `d` or
//! `Tr`, `map_Kd`): kiln writes OBJ, and reads it back with its own small
//! reader. Faces of any size are fanned into triangles; negative indices
//! count back from the last vertex; faces without normals get flat ones.
//! OBJ has no magic bytes, so a file is told by its `.obj` name and text.

use crate::error::{Error, Result};
use crate::formats::seam::{Context, FileKind, Format, Opened, Summary};
use crate::scene::{AlphaMode, Material, Mesh, Model, Node, Primitive, TextureSlot};
use crate::source::Layout;
use crate::texture::{Texture, TextureAlpha};
use glam::{Mat4, Vec2, Vec3};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// Most vertices, texture coordinates, normals or face corners a file may
/// hold: each line of the file holds at most one, so the file's size
/// bounds them anyway; this bounds a file that is mostly numbers.
const MAX_ITEMS: usize = 1 << 24;

/// OBJ text, told by its name (`.obj`) and content (text, no NUL bytes).
pub(crate) struct ObjFormat;

impl Format for ObjFormat {
    fn sniff(&self, head: &[u8], file: &Path) -> bool {
        let named = file
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("obj"));
        named && !head.contains(&0)
    }
    fn role(&self) -> FileKind {
        FileKind::Model
    }
    fn layout(&self) -> Layout {
        Layout::FOLDER
    }
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>> {
        Ok(Box::new(parse(bytes, file)?))
    }
}

/// One face corner: position, texture coordinate and normal indices (from 0).
type Corner = (usize, Option<usize>, Option<usize>);

/// A parsed OBJ file.
struct Obj {
    positions: Vec<Vec3>,
    uvs: Vec<Vec2>,
    normals: Vec<Vec3>,
    /// Faces in file order, each with its material name and corners.
    faces: Vec<(usize, Vec<Corner>)>,
    /// Material names in order of first `usemtl` (index 0: none given).
    materials: Vec<String>,
    mtllibs: Vec<String>,
    warnings: Vec<String>,
}

fn parse(bytes: &[u8], file: &Path) -> Result<Obj> {
    let text = String::from_utf8_lossy(bytes);
    let mut obj = Obj {
        positions: Vec::new(),
        uvs: Vec::new(),
        normals: Vec::new(),
        faces: Vec::new(),
        materials: vec![String::new()],
        mtllibs: Vec::new(),
        warnings: Vec::new(),
    };
    let mut current = 0usize;
    let mut corners = 0usize;
    let mut offset = 0u64;
    for (ln, raw) in text.split('\n').enumerate() {
        let at = offset;
        offset += raw.len() as u64 + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        let mut words = line.split_whitespace();
        let Some(key) = words.next() else { continue };
        let field = format!("line {}", ln + 1);
        let err = |m: String| Error::parse(file, &field, at, m);
        let floats = |words: std::str::SplitWhitespace, n: usize| -> Result<Vec<f32>> {
            let v: Vec<f32> = words
                .take(n)
                .map(|w| {
                    w.parse::<f32>()
                        .map_err(|_| err(format!("{w:?} is not a number")))
                })
                .collect::<Result<_>>()?;
            Ok(v)
        };
        match key {
            "v" | "vt" | "vn" => {
                if obj.positions.len() + obj.uvs.len() + obj.normals.len() >= MAX_ITEMS {
                    return Err(err(format!("more than {MAX_ITEMS} vertices")));
                }
                let v = floats(words, 3)?;
                let need = if key == "vt" { 1 } else { 3 };
                if v.len() < need || v.iter().any(|x| !x.is_finite()) {
                    return Err(err(format!("`{key}` needs {need} finite numbers")));
                }
                match key {
                    "v" => obj.positions.push(Vec3::new(v[0], v[1], v[2])),
                    "vn" => obj.normals.push(Vec3::new(v[0], v[1], v[2])),
                    // OBJ's v runs up from the bottom; kiln's down from the top.
                    _ => obj
                        .uvs
                        .push(Vec2::new(v[0], 1.0 - v.get(1).copied().unwrap_or(0.0))),
                }
            }
            "f" => {
                let mut face = Vec::new();
                for w in words {
                    let mut parts = w.split('/');
                    let index = |s: Option<&str>, len: usize| -> Result<Option<usize>> {
                        match s.filter(|s| !s.is_empty()) {
                            None => Ok(None),
                            Some(s) => {
                                let i: i64 = s
                                    .parse()
                                    .map_err(|_| err(format!("{s:?} is not an index")))?;
                                let r = if i < 0 { len as i64 + i } else { i - 1 };
                                if r < 0 || r as usize >= len {
                                    return Err(err(format!("index {i} of {len}")));
                                }
                                Ok(Some(r as usize))
                            }
                        }
                    };
                    let p = index(parts.next(), obj.positions.len())?
                        .ok_or_else(|| err("a face corner without a vertex".into()))?;
                    let t = index(parts.next(), obj.uvs.len())?;
                    let n = index(parts.next(), obj.normals.len())?;
                    face.push((p, t, n));
                }
                if face.len() < 3 {
                    return Err(err(format!("a face of {} corners", face.len())));
                }
                corners += face.len();
                if corners > MAX_ITEMS {
                    return Err(err(format!("more than {MAX_ITEMS} face corners")));
                }
                obj.faces.push((current, face));
            }
            "usemtl" => {
                let name = line["usemtl".len()..].trim().to_string();
                current = match obj.materials.iter().position(|m| *m == name) {
                    Some(i) => i,
                    None => {
                        obj.materials.push(name);
                        obj.materials.len() - 1
                    }
                };
            }
            "mtllib" => obj.mtllibs.push(line["mtllib".len()..].trim().to_string()),
            "o" | "g" | "s" | "l" | "p" => {}
            other => {
                if obj.warnings.len() < 8 {
                    obj.warnings
                        .push(format!("line {}: `{other}` is not read", ln + 1));
                }
            }
        }
    }
    Ok(obj)
}

/// One MTL material as kiln uses it.
#[derive(Default, Clone)]
struct MtlMaterial {
    kd: Option<[f32; 3]>,
    d: Option<f32>,
    map_kd: Option<String>,
}

fn parse_mtl(text: &str) -> HashMap<String, MtlMaterial> {
    let mut out = HashMap::new();
    let mut name: Option<String> = None;
    for raw in text.lines() {
        let line = raw.split('#').next().unwrap_or("").trim();
        let mut words = line.split_whitespace();
        let Some(key) = words.next() else { continue };
        let rest = line[key.len()..].trim();
        let nums: Vec<f32> = rest
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        if key == "newmtl" {
            name = Some(rest.to_string());
            out.entry(rest.to_string())
                .or_insert_with(MtlMaterial::default);
            continue;
        }
        let Some(m) = name.as_ref().and_then(|n| out.get_mut(n)) else {
            continue;
        };
        match key {
            "Kd" if nums.len() >= 3 => m.kd = Some([nums[0], nums[1], nums[2]]),
            "d" if !nums.is_empty() => m.d = Some(nums[0]),
            "Tr" if !nums.is_empty() => m.d = Some(1.0 - nums[0]),
            // The file name is the last word (options such as `-s` come first).
            "map_Kd" => m.map_kd = rest.split_whitespace().last().map(str::to_string),
            _ => {}
        }
    }
    out
}

impl Opened for Obj {
    fn summary(&self, _: &Context) -> Result<Summary> {
        Ok(Summary {
            format: "Wavefront OBJ".into(),
            version: String::new(),
            details: serde_json::json!({
                "vertices": self.positions.len(),
                "texture_coordinates": self.uvs.len(),
                "normals": self.normals.len(),
                "faces": self.faces.len(),
                "materials": self.materials[1..],
                "mtllib": self.mtllibs,
            }),
            notes: vec![format!(
                "{} vertices, {} faces, {} material(s), mtllib {}",
                self.positions.len(),
                self.faces.len(),
                self.materials.len() - 1,
                self.mtllibs.join(", ")
            )],
            ..Summary::default()
        })
    }

    fn model(&self, cx: &Context) -> Result<Model> {
        let mut warnings = self.warnings.clone();
        let mut mtl: HashMap<String, MtlMaterial> = HashMap::new();
        for lib in &self.mtllibs {
            match crate::formats::gltf::read_relative(cx.lookup, &cx.tree, lib) {
                Some((bytes, _)) => mtl.extend(parse_mtl(&String::from_utf8_lossy(&bytes))),
                None => warnings.push(format!("{lib} not found beside the OBJ file")),
            }
        }
        let mut textures: Vec<TextureSlot> = Vec::new();
        let mut materials = Vec::with_capacity(self.materials.len());
        for name in &self.materials {
            let m = mtl.get(name).cloned().unwrap_or_default();
            let mut texture = None;
            let mut texture_alpha = TextureAlpha::Opaque;
            if let Some(file) = &m.map_kd {
                let found = crate::formats::gltf::read_relative(cx.lookup, &cx.tree, file);
                let decoded = found.as_ref().map(|(b, at)| decode(b, at, cx));
                let (image, path) = match (decoded, found) {
                    (Some(Ok(t)), Some((_, at))) => (Arc::new(t), Some(at)),
                    (Some(Err(e)), _) => {
                        warnings.push(format!("map_Kd {file}: {e}; drawn as the checker"));
                        (Arc::new(Texture::checker()), None)
                    }
                    _ => {
                        warnings.push(format!("map_Kd {file} not found; drawn as the checker"));
                        (Arc::new(Texture::checker()), None)
                    }
                };
                texture_alpha = image.alpha;
                texture = Some(textures.len());
                textures.push(TextureSlot {
                    name: file.clone(),
                    path,
                    sampler: crate::scene::Sampler::default(),
                    image,
                });
            }
            let a = m.d.unwrap_or(1.0).clamp(0.0, 1.0);
            let kd = m.kd.unwrap_or([1.0; 3]);
            let alpha = if a < 1.0 || texture_alpha == TextureAlpha::Translucent {
                AlphaMode::Blend
            } else if texture_alpha == TextureAlpha::ColorKey {
                AlphaMode::Mask(0.5)
            } else {
                AlphaMode::Opaque
            };
            materials.push(Material {
                name: if name.is_empty() {
                    "default".into()
                } else {
                    name.clone()
                },
                texture,
                alpha,
                unlit: false,
                emissive: [0.0; 3],
                emissive_texture: None,
                base_color: [kd[0], kd[1], kd[2], a],
            });
        }
        let mut meshes = Vec::new();
        for (mi, name) in self.materials.iter().enumerate() {
            let faces: Vec<&Vec<Corner>> = self
                .faces
                .iter()
                .filter(|(m, _)| *m == mi)
                .map(|(_, f)| f)
                .collect();
            if faces.is_empty() {
                continue;
            }
            meshes.push(self.mesh(name, mi, &faces));
        }
        Ok(Model {
            name: cx
                .file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            source: cx.file.to_path_buf(),
            nodes: vec![Node::identity("root", None)],
            meshes,
            materials,
            textures,
            duration: 0.0,
            frame_rate: 30.0,
            looping: true,
            travel: Vec3::ZERO,
            display: Mat4::IDENTITY,
            warnings,
            extras: Default::default(),
        })
    }
}

fn decode(bytes: &[u8], at: &Path, cx: &Context) -> Result<Texture> {
    if bytes.starts_with(crate::formats::texture::jpeg::MAGIC) {
        return Ok(crate::formats::texture::jpeg::decode(
            bytes,
            at,
            cx.lookup.memory(),
        )?);
    }
    let options = crate::formats::texture::DecodeOptions {
        colour_key: false,
        ..Default::default()
    };
    crate::formats::texture::decode_within(bytes, at, options, cx.lookup.memory())
}

impl Obj {
    /// The faces of one material as a mesh: a vertex per distinct corner
    /// (a corner without a normal is its face's own, with the face's flat
    /// normal).
    fn mesh(&self, name: &str, material: usize, faces: &[&Vec<Corner>]) -> Mesh {
        // A corner, and for one without a normal its face.
        let mut index: HashMap<(Corner, Option<usize>), u32> = HashMap::new();
        let (mut positions, mut normals, mut uvs) = (Vec::new(), Vec::new(), Vec::new());
        let mut triangles = Vec::new();
        for (fi, face) in faces.iter().enumerate() {
            let p = |c: &Corner| self.positions[c.0];
            let flat = (p(&face[1]) - p(&face[0]))
                .cross(p(&face[2]) - p(&face[0]))
                .normalize_or_zero();
            let ids: Vec<u32> = face
                .iter()
                .map(|c| {
                    let key = (*c, if c.2.is_none() { Some(fi) } else { None });
                    *index.entry(key).or_insert_with(|| {
                        positions.push(self.positions[c.0]);
                        normals.push(c.2.map_or(flat, |n| self.normals[n]));
                        uvs.push(c.1.map_or(Vec2::ZERO, |t| self.uvs[t]));
                        positions.len() as u32 - 1
                    })
                })
                .collect();
            for k in 2..ids.len() {
                triangles.push([ids[0], ids[k - 1], ids[k]]);
            }
        }
        Mesh {
            name: if name.is_empty() {
                "default".into()
            } else {
                name.to_string()
            },
            node: 0,
            positions,
            normals,
            uvs,
            colors: Vec::new(),
            skin: None,
            primitives: vec![Primitive {
                material,
                triangles,
                two_sided: false,
                uv_anims: Vec::new(),
            }],
            groups: Vec::new(),
        }
    }
}
