//! A glTF 2.0 reader written for the tests from the specification alone,
//! sharing no code with kiln's writer: it reads a `.glb`'s accessors (any
//! component type, strides, normalised integers), evaluates animation
//! channels (STEP, LINEAR with the specification's slerp, CUBICSPLINE)
//! including `KHR_animation_pointer` targets on `KHR_texture_transform`,
//! composes node matrices and skins vertices, all in f64.

use glam::{DMat4, DQuat, DVec2, DVec3, DVec4};
use serde_json::Value;

/// Morphs, every primitive and every JOINTS/WEIGHTS set.
#[path = "gltf_eval_all.rs"]
mod all;

pub struct Gltf {
    pub json: Value,
    bin: Vec<u8>,
    /// Buffers after the first (a `.gltf` may have several).
    more: Vec<Vec<u8>>,
}

/// One mesh as drawn: which glTF mesh, its vertices in scene space, and
/// per primitive its texture coordinates after the material's transform.
pub struct Instance {
    pub mesh: usize,
    pub name: String,
    pub positions: Vec<DVec3>,
    pub uvs: Vec<Option<Vec<DVec2>>>,
}

/// A texture transform: offset, rotation, scale.
#[derive(Clone, Copy, Debug)]
struct TexTransform {
    offset: DVec2,
    rotation: f64,
    scale: DVec2,
}

impl Default for TexTransform {
    fn default() -> Self {
        TexTransform {
            offset: DVec2::ZERO,
            rotation: 0.0,
            scale: DVec2::ONE,
        }
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn f64s(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_f64().unwrap()).collect())
        .unwrap_or_default()
}

impl Gltf {
    pub fn parse(bytes: &[u8]) -> Gltf {
        assert_eq!(&bytes[0..4], b"glTF", "GLB magic");
        assert_eq!(u32_at(bytes, 4), 2, "GLB version");
        assert_eq!(u32_at(bytes, 8) as usize, bytes.len(), "GLB length");
        let json_len = u32_at(bytes, 12) as usize;
        assert_eq!(&bytes[16..20], b"JSON");
        let json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
        let rest = &bytes[20 + json_len..];
        let bin = if rest.is_empty() {
            Vec::new()
        } else {
            let n = u32_at(rest, 0) as usize;
            assert_eq!(&rest[4..8], b"BIN\0");
            rest[8..8 + n].to_vec()
        };
        assert_eq!(json["asset"]["version"], "2.0");
        Gltf {
            json,
            bin,
            more: Vec::new(),
        }
    }

    pub fn read(path: &std::path::Path) -> Gltf {
        Gltf::parse(&std::fs::read(path).unwrap())
    }

    /// A `.glb`, or a `.gltf` whose one buffer is a base64 `data:` URI or a
    /// file beside it.
    pub fn read_any(path: &std::path::Path) -> Gltf {
        let bytes = std::fs::read(path).unwrap();
        if bytes.starts_with(b"glTF") {
            return Gltf::parse(&bytes);
        }
        let json: Value = serde_json::from_slice(&bytes).unwrap();
        let buffers = json["buffers"].as_array().cloned().unwrap_or_default();
        let mut all: Vec<Vec<u8>> = buffers
            .iter()
            .map(|b| match b["uri"].as_str() {
                Some(u) if u.starts_with("data:") => unbase64(&u[u.find(',').unwrap() + 1..]),
                Some(u) => std::fs::read(path.parent().unwrap().join(u)).unwrap(),
                None => Vec::new(),
            })
            .collect();
        let bin = if all.is_empty() {
            Vec::new()
        } else {
            all.remove(0)
        };
        Gltf {
            json,
            bin,
            more: all,
        }
    }

    /// Accessor `i` as elements of f64 components (normalised integers
    /// mapped to 0..1).
    pub fn accessor(&self, i: usize) -> Vec<Vec<f64>> {
        let a = &self.json["accessors"][i];
        let count = a["count"].as_u64().unwrap() as usize;
        let comps = match a["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            t => panic!("accessor type {t}"),
        };
        if a.get("bufferView").is_none() {
            let mut out = vec![vec![0.0; comps]; count];
            self.substitute(a, comps, &mut out);
            return out;
        }
        let ct = a["componentType"].as_u64().unwrap();
        let size = match ct {
            5120 | 5121 => 1,
            5122 | 5123 => 2,
            5125 | 5126 => 4,
            c => panic!("component type {c}"),
        };
        let normalized = a["normalized"].as_bool().unwrap_or(false);
        let view = &self.json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        let buf = self.buffer(view["buffer"].as_u64().unwrap() as usize);
        let base = view["byteOffset"].as_u64().unwrap_or(0) as usize
            + a["byteOffset"].as_u64().unwrap_or(0) as usize;
        let stride = view["byteStride"]
            .as_u64()
            .map_or(comps * size, |s| s as usize);
        let view_end = view["byteOffset"].as_u64().unwrap_or(0) as usize
            + view["byteLength"].as_u64().unwrap() as usize;
        let mut out = Vec::with_capacity(count);
        for e in 0..count {
            let at = base + e * stride;
            assert!(
                at + comps * size <= view_end,
                "accessor {i} runs past its view"
            );
            let el: Vec<f64> = (0..comps)
                .map(|c| {
                    let p = at + c * size;
                    let b = &buf[p..p + size];
                    match ct {
                        5126 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
                        5125 => u32::from_le_bytes(b.try_into().unwrap()) as f64,
                        5123 => {
                            let v = u16::from_le_bytes(b.try_into().unwrap()) as f64;
                            if normalized {
                                v / 65535.0
                            } else {
                                v
                            }
                        }
                        5121 => {
                            if normalized {
                                b[0] as f64 / 255.0
                            } else {
                                b[0] as f64
                            }
                        }
                        5122 => i16::from_le_bytes(b.try_into().unwrap()) as f64,
                        5120 => b[0] as i8 as f64,
                        _ => unreachable!(),
                    }
                })
                .collect();
            out.push(el);
        }
        self.substitute(a, comps, &mut out);
        out
    }

    fn buffer(&self, i: usize) -> &[u8] {
        if i == 0 {
            &self.bin
        } else {
            &self.more[i - 1]
        }
    }

    /// A sparse accessor's substitutions (float values only).
    fn substitute(&self, a: &Value, comps: usize, out: &mut [Vec<f64>]) {
        let Some(sp) = a.get("sparse") else {
            return;
        };
        assert_eq!(a["componentType"], 5126, "sparse floats only");
        let n = sp["count"].as_u64().unwrap() as usize;
        let view = |v: &Value| {
            let bv = &self.json["bufferViews"][v["bufferView"].as_u64().unwrap() as usize];
            (
                self.buffer(bv["buffer"].as_u64().unwrap() as usize),
                bv["byteOffset"].as_u64().unwrap_or(0) as usize
                    + v["byteOffset"].as_u64().unwrap_or(0) as usize,
            )
        };
        let ((ib, ia), (vb, va)) = (view(&sp["indices"]), view(&sp["values"]));
        let isize = match sp["indices"]["componentType"].as_u64().unwrap() {
            5121 => 1,
            5123 => 2,
            _ => 4,
        };
        for k in 0..n {
            let b = &ib[ia + k * isize..ia + (k + 1) * isize];
            let idx = match isize {
                1 => b[0] as usize,
                2 => u16::from_le_bytes([b[0], b[1]]) as usize,
                _ => u32::from_le_bytes(b.try_into().unwrap()) as usize,
            };
            for (c, v) in out[idx].iter_mut().enumerate() {
                let p = va + (k * comps + c) * 4;
                *v = f32::from_le_bytes(vb[p..p + 4].try_into().unwrap()) as f64;
            }
        }
    }

    pub fn animation(&self, name: &str) -> Option<usize> {
        self.json["animations"]
            .as_array()?
            .iter()
            .position(|a| a["name"] == name)
    }

    pub fn animation_names(&self) -> Vec<String> {
        self.json["animations"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| x["name"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The largest input time of animation `a`.
    pub fn animation_length(&self, a: usize) -> f64 {
        let anim = &self.json["animations"][a];
        anim["samplers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let acc = &self.json["accessors"][s["input"].as_u64().unwrap() as usize];
                f64s(&acc["max"])[0]
            })
            .fold(0.0, f64::max)
    }

    fn sample(&self, sampler: &Value, t: f64, rotation: bool) -> Vec<f64> {
        let times: Vec<f64> = self
            .accessor(sampler["input"].as_u64().unwrap() as usize)
            .into_iter()
            .map(|e| e[0])
            .collect();
        let out = self.accessor(sampler["output"].as_u64().unwrap() as usize);
        let interp = sampler["interpolation"].as_str().unwrap_or("LINEAR");
        let cubic = interp == "CUBICSPLINE";
        let value = |k: usize| -> Vec<f64> {
            if cubic {
                out[3 * k + 1].clone()
            } else {
                out[k].clone()
            }
        };
        let n = times.len();
        if t <= times[0] {
            return value(0);
        }
        if t >= times[n - 1] {
            return value(n - 1);
        }
        let i = times.partition_point(|&x| x <= t) - 1;
        let dt = times[i + 1] - times[i];
        let s = (t - times[i]) / dt;
        match interp {
            "STEP" => value(i),
            "CUBICSPLINE" => {
                let (p0, m0) = (&out[3 * i + 1], &out[3 * i + 2]);
                let (p1, m1) = (&out[3 * (i + 1) + 1], &out[3 * (i + 1)]);
                let (s2, s3) = (s * s, s * s * s);
                (0..p0.len())
                    .map(|c| {
                        (2.0 * s3 - 3.0 * s2 + 1.0) * p0[c]
                            + (s3 - 2.0 * s2 + s) * dt * m0[c]
                            + (-2.0 * s3 + 3.0 * s2) * p1[c]
                            + (s3 - s2) * dt * m1[c]
                    })
                    .collect()
            }
            _ => {
                let (a, b) = (value(i), value(i + 1));
                if rotation {
                    spec_slerp(&a, &b, s)
                } else {
                    a.iter().zip(&b).map(|(x, y)| x + (y - x) * s).collect()
                }
            }
        }
    }

    /// Node local matrices and material texture transforms at time `t` of
    /// animation `anim` (`None`: the file's resting values).
    fn pose(&self, anim: Option<usize>, t: f64) -> (Vec<DMat4>, Vec<TexTransform>) {
        let nodes = self.json["nodes"].as_array().cloned().unwrap_or_default();
        let mut trs: Vec<(DVec3, DQuat, DVec3)> = Vec::with_capacity(nodes.len());
        let mut fixed: Vec<Option<DMat4>> = Vec::with_capacity(nodes.len());
        for n in &nodes {
            if let Some(m) = n.get("matrix") {
                let v = f64s(m);
                fixed.push(Some(DMat4::from_cols_slice(&v)));
            } else {
                fixed.push(None);
            }
            let t = n
                .get("translation")
                .map_or(DVec3::ZERO, |v| DVec3::from_slice(&f64s(v)));
            let r = n
                .get("rotation")
                .map_or(DQuat::IDENTITY, |v| DQuat::from_slice(&f64s(v)));
            let s = n
                .get("scale")
                .map_or(DVec3::ONE, |v| DVec3::from_slice(&f64s(v)));
            trs.push((t, r, s));
        }
        let materials = self.json["materials"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut tex: Vec<TexTransform> = materials
            .iter()
            .map(|m| {
                let e = &m["pbrMetallicRoughness"]["baseColorTexture"]["extensions"]
                    ["KHR_texture_transform"];
                let mut x = TexTransform::default();
                if e.is_object() {
                    if let Some(o) = e.get("offset") {
                        x.offset = DVec2::from_slice(&f64s(o));
                    }
                    if let Some(r) = e.get("rotation") {
                        x.rotation = r.as_f64().unwrap();
                    }
                    if let Some(s) = e.get("scale") {
                        x.scale = DVec2::from_slice(&f64s(s));
                    }
                }
                x
            })
            .collect();
        if let Some(a) = anim {
            let anim = &self.json["animations"][a];
            for ch in anim["channels"].as_array().unwrap() {
                let sampler = &anim["samplers"][ch["sampler"].as_u64().unwrap() as usize];
                let target = &ch["target"];
                let path = target["path"].as_str().unwrap();
                if path == "pointer" {
                    let p = target["extensions"]["KHR_animation_pointer"]["pointer"]
                        .as_str()
                        .unwrap();
                    let parts: Vec<&str> = p.split('/').collect();
                    assert_eq!(parts[1], "materials", "{p}");
                    assert_eq!(
                        &parts[3..7],
                        [
                            "pbrMetallicRoughness",
                            "baseColorTexture",
                            "extensions",
                            "KHR_texture_transform"
                        ],
                        "{p}"
                    );
                    let m: usize = parts[2].parse().unwrap();
                    let v = self.sample(sampler, t, false);
                    match parts[7] {
                        "offset" => tex[m].offset = DVec2::new(v[0], v[1]),
                        "rotation" => tex[m].rotation = v[0],
                        "scale" => tex[m].scale = DVec2::new(v[0], v[1]),
                        other => panic!("pointer to {other}"),
                    }
                    continue;
                }
                if path == "weights" {
                    continue;
                }
                let node = target["node"].as_u64().unwrap() as usize;
                assert!(fixed[node].is_none(), "animated node {node} has a matrix");
                let v = self.sample(sampler, t, path == "rotation");
                match path {
                    "translation" => trs[node].0 = DVec3::from_slice(&v),
                    "rotation" => trs[node].1 = DQuat::from_slice(&v).normalize(),
                    "scale" => trs[node].2 = DVec3::from_slice(&v),
                    other => panic!("path {other}"),
                }
            }
        }
        let locals = trs
            .iter()
            .zip(&fixed)
            .map(|(&(t, r, s), f)| {
                f.unwrap_or_else(|| DMat4::from_scale_rotation_translation(s, r.normalize(), t))
            })
            .collect();
        (locals, tex)
    }

    /// Where the first node named `name` has its origin at time `t` of
    /// animation `anim`, in the scene's frame.
    pub fn node_origin(&self, anim: Option<usize>, t: f64, name: &str) -> Option<DVec3> {
        let (locals, _) = self.pose(anim, t);
        let nodes = self.json["nodes"].as_array().cloned().unwrap_or_default();
        let target = nodes.iter().position(|n| n["name"] == name)?;
        let parent_of = |i: usize| {
            nodes.iter().position(|n| {
                n["children"]
                    .as_array()
                    .is_some_and(|c| c.iter().any(|x| x.as_u64() == Some(i as u64)))
            })
        };
        let mut m = DMat4::IDENTITY;
        let mut cur = Some(target);
        let mut steps = 0;
        while let Some(i) = cur {
            m = locals[i] * m;
            cur = parent_of(i);
            steps += 1;
            assert!(steps <= nodes.len(), "node cycle");
        }
        Some(m.transform_point3(DVec3::ZERO))
    }

    /// Every mesh of the default scene as drawn at time `t` of animation
    /// `anim` (`None`: at rest), in the order of the glTF meshes.
    pub fn draw(&self, anim: Option<usize>, t: f64) -> Vec<Instance> {
        let (locals, tex) = self.pose(anim, t);
        let nodes = self.json["nodes"].as_array().cloned().unwrap_or_default();
        let mut world = vec![DMat4::IDENTITY; nodes.len()];
        let scene = &self.json["scenes"][self.json["scene"].as_u64().unwrap_or(0) as usize];
        let mut stack: Vec<(usize, DMat4)> = scene["nodes"]
            .as_array()
            .map(|a| {
                a.iter()
                    .rev()
                    .map(|n| (n.as_u64().unwrap() as usize, DMat4::IDENTITY))
                    .collect()
            })
            .unwrap_or_default();
        let mut order = Vec::new();
        let mut seen = vec![false; nodes.len()];
        while let Some((n, parent)) = stack.pop() {
            assert!(!seen[n], "node {n} reached twice");
            seen[n] = true;
            world[n] = parent * locals[n];
            order.push(n);
            if let Some(c) = nodes[n]["children"].as_array() {
                for child in c.iter().rev() {
                    stack.push((child.as_u64().unwrap() as usize, world[n]));
                }
            }
        }
        let mut out = Vec::new();
        for &n in &order {
            let Some(mi) = nodes[n]["mesh"].as_u64() else {
                continue;
            };
            let mesh = &self.json["meshes"][mi as usize];
            let prims = mesh["primitives"].as_array().unwrap();
            let attrs = &prims[0]["attributes"];
            let p = self.accessor(attrs["POSITION"].as_u64().unwrap() as usize);
            let positions: Vec<DVec3> = match nodes[n]["skin"].as_u64() {
                Some(s) => {
                    let mats = self.joint_matrices(s as usize, |j| world[j]);
                    let js = self.accessor(attrs["JOINTS_0"].as_u64().unwrap() as usize);
                    let ws = self.accessor(attrs["WEIGHTS_0"].as_u64().unwrap() as usize);
                    p.iter()
                        .enumerate()
                        .map(|(v, x)| {
                            let x = DVec4::new(x[0], x[1], x[2], 1.0);
                            let mut acc = DVec4::ZERO;
                            for k in 0..4 {
                                if ws[v][k] != 0.0 {
                                    acc += mats[js[v][k] as usize] * x * ws[v][k];
                                }
                            }
                            acc.truncate()
                        })
                        .collect()
                }
                None => p
                    .iter()
                    .map(|x| world[n].transform_point3(DVec3::new(x[0], x[1], x[2])))
                    .collect(),
            };
            let uvs = prims
                .iter()
                .map(|pr| {
                    let acc = pr["attributes"]["TEXCOORD_0"].as_u64()?;
                    let tt = pr["material"]
                        .as_u64()
                        .map_or(TexTransform::default(), |m| tex[m as usize]);
                    let (c, s) = (tt.rotation.cos(), tt.rotation.sin());
                    Some(
                        self.accessor(acc as usize)
                            .iter()
                            .map(|uv| {
                                let (x, y) = (uv[0] * tt.scale.x, uv[1] * tt.scale.y);
                                // The extension's rotation, as its example
                                // and the Khronos sample viewer apply it.
                                DVec2::new(c * x + s * y, -s * x + c * y) + tt.offset
                            })
                            .collect(),
                    )
                })
                .collect();
            out.push(Instance {
                mesh: mi as usize,
                name: mesh["name"].as_str().unwrap_or("").to_string(),
                positions,
                uvs,
            });
        }
        out.sort_by_key(|i| i.mesh);
        out
    }
}

/// The specification's slerp: the short way, constant speed.
impl Gltf {
    /// Skin `skin`'s joint matrices, `world(joint) · inverseBind(joint)`
    /// (identity inverse binds when the skin gives none), as the spec's
    /// skinning defines them.
    pub(super) fn joint_matrices(&self, skin: usize, world: impl Fn(usize) -> DMat4) -> Vec<DMat4> {
        let skin = &self.json["skins"][skin];
        let joints: Vec<usize> = skin["joints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j.as_u64().unwrap() as usize)
            .collect();
        let ibm: Vec<DMat4> = match skin["inverseBindMatrices"].as_u64() {
            Some(a) => self
                .accessor(a as usize)
                .iter()
                .map(|m| DMat4::from_cols_slice(m))
                .collect(),
            None => vec![DMat4::IDENTITY; joints.len()],
        };
        joints
            .iter()
            .zip(&ibm)
            .map(|(&j, ib)| world(j) * *ib)
            .collect()
    }
}

fn spec_slerp(a: &[f64], b: &[f64], s: f64) -> Vec<f64> {
    let d: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let sign = if d < 0.0 { -1.0 } else { 1.0 };
    let d = d.abs().min(1.0);
    let angle = d.acos();
    if angle < 1e-9 {
        return a
            .iter()
            .zip(b)
            .map(|(x, y)| x + (sign * y - x) * s)
            .collect();
    }
    let (wa, wb) = (
        ((1.0 - s) * angle).sin() / angle.sin(),
        sign * (s * angle).sin() / angle.sin(),
    );
    a.iter().zip(b).map(|(x, y)| wa * x + wb * y).collect()
}

/// Standard base64, padding optional.
fn unbase64(s: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let digits: Vec<u32> = s
        .bytes()
        .filter(|&c| c != b'=' && !c.is_ascii_whitespace())
        .map(|c| ALPHABET.iter().position(|&a| a == c).expect("base64 digit") as u32)
        .collect();
    let mut out = Vec::new();
    for group in digits.chunks(4) {
        let mut v = 0u32;
        for (k, d) in group.iter().enumerate() {
            v |= d << (18 - 6 * k);
        }
        let bytes = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
        out.extend_from_slice(&bytes[..group.len() - 1]);
    }
    out
}
