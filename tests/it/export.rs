//! Exports a small hand-built model and reads the files back.

use glam::{Mat3, Mat4, Vec2, Vec3};
use kiln::internals::export::gltf::glb_bytes;
use kiln::internals::export::obj::obj_files;
use kiln::internals::export::{export, write_glb, write_obj};
use kiln::internals::scene::{
    pose, AlphaMode, Interp, Material, Mesh, Model, Node, NodeAnim, PosedModel, Primitive,
    TextureSlot, Track, UvAnim, UvAnimKind,
};
use kiln::internals::texture::{Texture, TextureAlpha};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn node(name: &str, parent: Option<usize>, translation: Vec3, scale: Vec3) -> Node {
    Node {
        name: name.into(),
        parent,
        translation,
        linear: Mat3::IDENTITY,
        scale,
        anim: NodeAnim::default(),
        geometry: Mat4::IDENTITY,
    }
}

/// Premultiplied texels; `STRAIGHT` is what the PNG must hold.
const PREMULTIPLIED: [[u8; 4]; 4] = [
    [255, 0, 0, 255],
    [64, 32, 0, 128],
    [0, 0, 0, 0],
    [0, 0, 255, 255],
];
const STRAIGHT: [[u8; 4]; 4] = [
    [255, 0, 0, 255],
    [128, 64, 0, 128],
    [0, 0, 0, 0],
    [0, 0, 255, 255],
];

/// Two meshes: "base" (a quad on the root, two primitives: a masked textured
/// one and a blended unlit two-sided one whose uvs scroll by 0.25 in u) and
/// "blade" (a triangle on a mirrored child node).
fn fixture_model() -> Model {
    let quad_uvs = vec![
        Vec2::new(0.0, 0.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(1.0, 0.75),
        Vec2::new(0.0, 0.75),
    ];
    let base = Mesh {
        name: "base".into(),
        node: 0,
        positions: vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ],
        normals: vec![Vec3::Z; 4],
        uvs: quad_uvs,
        colors: Vec::new(),
        skin: None,
        groups: Vec::new(),
        primitives: vec![
            Primitive {
                material: 0,
                triangles: vec![[0, 1, 2]],
                two_sided: false,
                uv_anims: vec![],
            },
            Primitive {
                material: 1,
                triangles: vec![[0, 2, 3]],
                two_sided: true,
                uv_anims: vec![UvAnim {
                    kind: UvAnimKind::TranslateU,
                    track: Track::new(vec![0.0], vec![0.25], Interp::Linear),
                }],
            },
        ],
    };
    let blade = Mesh {
        name: "blade".into(),
        node: 1,
        positions: vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ],
        normals: vec![Vec3::Z; 3],
        uvs: vec![
            Vec2::new(0.5, 0.5),
            Vec2::new(1.0, 0.5),
            Vec2::new(0.5, 1.0),
        ],
        colors: Vec::new(),
        skin: None,
        groups: Vec::new(),
        primitives: vec![Primitive {
            material: 0,
            triangles: vec![[0, 1, 2]],
            two_sided: false,
            uv_anims: vec![],
        }],
    };
    Model {
        extras: Default::default(),
        name: "fixture".into(),
        source: PathBuf::from("fixture.rsm"),
        nodes: vec![
            node("root", None, Vec3::new(1.0, 0.0, 0.0), Vec3::ONE),
            // Negative x scale mirrors, so posing swaps the blade's winding.
            node(
                "child",
                Some(0),
                Vec3::new(0.0, 2.0, 0.0),
                Vec3::new(-2.0, 2.0, 2.0),
            ),
        ],
        meshes: vec![base, blade],
        materials: vec![
            Material {
                name: "leaf".into(),
                texture: Some(0),
                alpha: AlphaMode::Mask(0.5),
                unlit: false,
                emissive: [0.0; 3],
                emissive_texture: None,
                base_color: [1.0, 1.0, 1.0, 1.0],
            },
            Material {
                name: "glow".into(),
                texture: None,
                alpha: AlphaMode::Blend,
                unlit: true,
                emissive: [0.0; 3],
                emissive_texture: None,
                base_color: [0.8, 0.5, 0.25, 0.75],
            },
        ],
        textures: vec![TextureSlot {
            name: "data\\texture\\leaf.bmp".into(),
            path: None,
            sampler: kiln::internals::scene::Sampler::default(),
            image: Arc::new(Texture {
                name: "leaf.bmp".into(),
                width: 2,
                height: 2,
                texels: PREMULTIPLIED.to_vec(),
                alpha: TextureAlpha::Translucent,
            }),
        }],
        duration: 1.0,
        frame_rate: 10.0,
        looping: true,
        travel: Vec3::ZERO,
        display: Mat4::IDENTITY,
        warnings: vec![],
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Checks the GLB container and returns (JSON, BIN chunk).
fn parse_glb(bytes: &[u8]) -> (Value, Vec<u8>) {
    assert_eq!(&bytes[0..4], b"glTF");
    assert_eq!(u32_at(bytes, 4), 2);
    assert_eq!(u32_at(bytes, 8) as usize, bytes.len());
    let json_len = u32_at(bytes, 12) as usize;
    assert_eq!(u32_at(bytes, 16), 0x4E4F_534A);
    assert_eq!(json_len % 4, 0);
    let json_bytes = &bytes[20..20 + json_len];
    let json: Value = serde_json::from_slice(json_bytes).unwrap();
    let rest = &bytes[20 + json_len..];
    let bin = if rest.is_empty() {
        Vec::new()
    } else {
        let bin_len = u32_at(rest, 0) as usize;
        assert_eq!(u32_at(rest, 4), 0x004E_4942);
        assert_eq!(bin_len % 4, 0);
        assert_eq!(rest.len(), 8 + bin_len);
        rest[8..].to_vec()
    };
    (json, bin)
}

fn view_bytes<'a>(json: &Value, bin: &'a [u8], view: usize) -> &'a [u8] {
    let v = &json["bufferViews"][view];
    let off = v["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = v["byteLength"].as_u64().unwrap() as usize;
    &bin[off..off + len]
}

fn floats(json: &Value, bin: &[u8], accessor: u64) -> Vec<f32> {
    let a = &json["accessors"][accessor as usize];
    assert_eq!(a["componentType"], 5126);
    let bytes = view_bytes(json, bin, a["bufferView"].as_u64().unwrap() as usize);
    let f: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let width = match a["type"].as_str().unwrap() {
        "VEC2" => 2,
        "VEC3" => 3,
        t => panic!("unexpected type {t}"),
    };
    assert_eq!(f.len(), a["count"].as_u64().unwrap() as usize * width);
    f
}

fn indices(json: &Value, bin: &[u8], accessor: u64) -> Vec<u32> {
    let a = &json["accessors"][accessor as usize];
    assert_eq!(a["componentType"], 5125);
    let bytes = view_bytes(json, bin, a["bufferView"].as_u64().unwrap() as usize);
    let out: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(out.len(), a["count"].as_u64().unwrap() as usize);
    out
}

fn flat3(v: &[Vec3]) -> Vec<f32> {
    v.iter().flat_map(|p| p.to_array()).collect()
}

fn as_f32s(v: &Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

fn decode_png(bytes: &[u8]) -> Vec<[u8; 4]> {
    let img = image::load_from_memory_with_format(bytes, image::ImageFormat::Png)
        .unwrap()
        .to_rgba8();
    assert_eq!(img.dimensions(), (2, 2));
    img.pixels().map(|p| p.0).collect()
}

fn posed() -> (Model, PosedModel) {
    let model = fixture_model();
    let posed = pose(&model, 0.0);
    (model, posed)
}

#[test]
fn pose_places_the_child_and_mirrors_its_winding() {
    let (_, posed) = posed();
    // child world = T(1,0,0)·T(0,2,0)·S(-2,2,2)
    assert_eq!(
        *posed.meshes[1].positions,
        vec![
            Vec3::new(1.0, 2.0, 0.0),
            Vec3::new(-1.0, 2.0, 0.0),
            Vec3::new(1.0, 4.0, 0.0)
        ]
    );
    assert_eq!(*posed.primitives[2].triangles, [[0, 2, 1]]);
}

#[test]
fn glb_structure_and_data_match_the_pose() {
    let (model, posed) = posed();
    let bytes = glb_bytes(&model, &posed).unwrap();
    let (json, bin) = parse_glb(&bytes);

    assert_eq!(json["asset"]["version"], "2.0");
    assert_eq!(json["scene"], 0);
    assert_eq!(json["scenes"][0]["nodes"], serde_json::json!([0, 1]));
    let nodes = json["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 2);
    assert_eq!(nodes[0]["name"], "base");
    assert_eq!(nodes[1]["name"], "blade");
    // Geometry is baked into world space: no node transforms.
    assert!(nodes[0].get("matrix").is_none() && nodes[0].get("translation").is_none());
    let meshes = json["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 2);
    assert_eq!(meshes[0]["name"], "base");
    assert_eq!(meshes[0]["primitives"].as_array().unwrap().len(), 2);
    assert_eq!(meshes[1]["primitives"].as_array().unwrap().len(), 1);

    // Alignment: every view starts on 4 bytes and lies inside the buffer,
    // whose declared length is within the BIN chunk's padding.
    let buf_len = json["buffers"][0]["byteLength"].as_u64().unwrap() as usize;
    assert!(buf_len <= bin.len() && bin.len() - buf_len < 4);
    for v in json["bufferViews"].as_array().unwrap() {
        let off = v["byteOffset"].as_u64().unwrap() as usize;
        assert_eq!(off % 4, 0);
        assert!(off + v["byteLength"].as_u64().unwrap() as usize <= buf_len);
    }
    for a in json["accessors"].as_array().unwrap() {
        assert_eq!(a["byteOffset"].as_u64().unwrap_or(0) % 4, 0);
    }

    for (mi, mesh) in meshes.iter().enumerate() {
        let pm = &posed.meshes[mi];
        let attrs = &mesh["primitives"][0]["attributes"];
        let pos = attrs["POSITION"].as_u64().unwrap();
        let acc = &json["accessors"][pos as usize];
        assert_eq!(acc["count"], pm.positions.len());
        let min = pm.positions.iter().fold(Vec3::INFINITY, |a, &b| a.min(b));
        let max = pm
            .positions
            .iter()
            .fold(Vec3::NEG_INFINITY, |a, &b| a.max(b));
        assert_eq!(as_f32s(&acc["min"]), min.to_array());
        assert_eq!(as_f32s(&acc["max"]), max.to_array());
        assert_eq!(floats(&json, &bin, pos), flat3(&pm.positions));
        let nrm = attrs["NORMAL"].as_u64().unwrap();
        assert_eq!(floats(&json, &bin, nrm), flat3(&pm.normals));
    }
    assert_eq!(
        json["accessors"][meshes[1]["primitives"][0]["attributes"]["POSITION"]
            .as_u64()
            .unwrap() as usize]["min"],
        serde_json::json!([-1.0, 2.0, 0.0])
    );

    // Triangles as posed, the blade's winding swapped.
    let idx = |m: usize, p: usize| {
        indices(
            &json,
            &bin,
            meshes[m]["primitives"][p]["indices"].as_u64().unwrap(),
        )
    };
    assert_eq!(idx(0, 0), vec![0, 1, 2]);
    assert_eq!(idx(0, 1), vec![0, 2, 3]);
    assert_eq!(idx(1, 0), vec![0, 2, 1]);

    // Texture coordinates: untouched for the first primitive, scrolled by
    // the uv transform for the second; v keeps kiln's top-down sense.
    let uv = |p: usize| {
        floats(
            &json,
            &bin,
            meshes[0]["primitives"][p]["attributes"]["TEXCOORD_0"]
                .as_u64()
                .unwrap(),
        )
    };
    assert_eq!(uv(0), vec![0.0, 0.0, 1.0, 0.0, 1.0, 0.75, 0.0, 0.75]);
    assert_eq!(uv(1), vec![0.25, 0.0, 1.25, 0.0, 1.25, 0.75, 0.25, 0.75]);
}

#[test]
fn glb_materials_textures_and_images() {
    let (model, posed) = posed();
    let (json, bin) = parse_glb(&glb_bytes(&model, &posed).unwrap());
    let mats = json["materials"].as_array().unwrap();
    // (leaf, one-sided) and (glow, two-sided); the blade reuses the first.
    assert_eq!(mats.len(), 2);
    assert_eq!(json["meshes"][0]["primitives"][0]["material"], 0);
    assert_eq!(json["meshes"][0]["primitives"][1]["material"], 1);
    assert_eq!(json["meshes"][1]["primitives"][0]["material"], 0);

    let leaf = &mats[0];
    assert_eq!(leaf["name"], "leaf");
    assert_eq!(leaf["alphaMode"], "MASK");
    assert_eq!(leaf["alphaCutoff"], 0.5);
    assert_eq!(leaf["doubleSided"], false);
    assert_eq!(leaf["pbrMetallicRoughness"]["baseColorTexture"]["index"], 0);
    assert_eq!(leaf["pbrMetallicRoughness"]["metallicFactor"], 0.0);
    assert_eq!(leaf["pbrMetallicRoughness"]["roughnessFactor"], 1.0);
    assert_eq!(
        leaf["pbrMetallicRoughness"]["baseColorFactor"],
        serde_json::json!([1.0, 1.0, 1.0, 1.0])
    );
    assert!(leaf.get("extensions").is_none());

    let glow = &mats[1];
    assert_eq!(glow["name"], "glow");
    assert_eq!(glow["alphaMode"], "BLEND");
    assert!(glow.get("alphaCutoff").is_none());
    assert_eq!(glow["doubleSided"], true);
    assert!(glow["pbrMetallicRoughness"]
        .get("baseColorTexture")
        .is_none());
    assert_eq!(
        glow["pbrMetallicRoughness"]["baseColorFactor"],
        // Written as the shortest decimal of the f32, not its f64 expansion.
        serde_json::json!([0.8, 0.5, 0.25, 0.75])
    );
    assert_eq!(
        glow["extensions"]["KHR_materials_unlit"],
        serde_json::json!({})
    );
    assert_eq!(
        json["extensionsUsed"],
        serde_json::json!(["KHR_materials_unlit"])
    );

    assert_eq!(
        json["textures"],
        serde_json::json!([{ "sampler": 0, "source": 0 }])
    );
    let s = &json["samplers"][0];
    assert_eq!(s["wrapS"], 10497);
    assert_eq!(s["wrapT"], 10497);
    assert_eq!(s["magFilter"], 9729);
    assert_eq!(s["minFilter"], 9987);
    let img = &json["images"][0];
    assert_eq!(img["mimeType"], "image/png");
    let png = view_bytes(&json, &bin, img["bufferView"].as_u64().unwrap() as usize);
    assert_eq!(decode_png(png), STRAIGHT.to_vec());
}

#[test]
fn empty_models_give_valid_glb() {
    let mut model = fixture_model();
    model.meshes.clear();
    let posed = pose(&model, 0.0);
    let bytes = glb_bytes(&model, &posed).unwrap();
    let (json, bin) = parse_glb(&bytes);
    assert!(bin.is_empty());
    assert!(json.get("buffers").is_none());
    assert!(json.get("meshes").is_none());
    assert!(json["scenes"][0].get("nodes").is_none());

    // Meshes without triangles keep their named node but no glTF mesh,
    // which would need at least one non-empty accessor.
    let mut model = fixture_model();
    for m in &mut model.meshes {
        for p in &mut m.primitives {
            p.triangles.clear();
        }
    }
    let posed = pose(&model, 0.0);
    let (json, bin) = parse_glb(&glb_bytes(&model, &posed).unwrap());
    assert!(bin.is_empty());
    assert_eq!(
        json["nodes"],
        serde_json::json!([{ "name": "base" }, { "name": "blade" }])
    );
    assert!(json.get("accessors").is_none());
    assert!(json.get("materials").is_none());
    assert!(json.get("images").is_none());
}

#[test]
fn out_of_range_triangles_are_dropped() {
    let mut model = fixture_model();
    model.meshes[1].primitives[0].triangles.push([0, 1, 3]);
    let posed = pose(&model, 0.0);
    let (json, bin) = parse_glb(&glb_bytes(&model, &posed).unwrap());
    let acc = json["meshes"][1]["primitives"][0]["indices"]
        .as_u64()
        .unwrap();
    assert_eq!(indices(&json, &bin, acc), vec![0, 2, 1]);
    let files = obj_files(&model, &posed, "x").unwrap();
    let obj = String::from_utf8(files.obj).unwrap();
    assert_eq!(obj.lines().filter(|l| l.starts_with("f ")).count(), 3);
}

fn lines_with<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.starts_with(prefix)).collect()
}

#[test]
fn obj_text_matches_the_pose() {
    let (model, posed) = posed();
    let files = obj_files(&model, &posed, "scene").unwrap();
    let obj = String::from_utf8(files.obj.clone()).unwrap();
    assert_eq!(lines_with(&obj, "mtllib "), vec!["mtllib scene.mtl"]);
    assert_eq!(lines_with(&obj, "o "), vec!["o base", "o blade"]);
    assert_eq!(lines_with(&obj, "v ").len(), 7);
    assert_eq!(lines_with(&obj, "vn ").len(), 7);
    // 4 + 4 for the quad's two uv transforms, 3 for the blade.
    let vts = lines_with(&obj, "vt ");
    assert_eq!(vts.len(), 11);
    // OBJ's v = 0 is the bottom: kiln (1, 0.75) becomes (1, 0.25).
    assert_eq!(vts[2], "vt 1 0.25");
    // The scrolled block of the second primitive.
    assert_eq!(vts[4], "vt 0.25 1");
    assert_eq!(
        lines_with(&obj, "usemtl "),
        vec!["usemtl m0_leaf", "usemtl m1_glow", "usemtl m0_leaf"]
    );
    assert_eq!(
        lines_with(&obj, "f "),
        vec![
            "f 1/1/1 2/2/2 3/3/3",
            "f 1/5/1 3/7/3 4/8/4",
            // Blade: vertices 5..7, its uvs after the quad's 8, winding swapped.
            "f 5/9/5 7/11/7 6/10/6",
        ]
    );
    let v5 = lines_with(&obj, "v ")[5];
    assert_eq!(v5, "v -1 2 0");

    let mtl = String::from_utf8(files.mtl.clone()).unwrap();
    assert_eq!(files.mtl_name, "scene.mtl");
    assert_eq!(
        lines_with(&mtl, "newmtl "),
        vec!["newmtl m0_leaf", "newmtl m1_glow"]
    );
    assert_eq!(
        lines_with(&mtl, "map_Kd "),
        vec!["map_Kd scene_t0_leaf.png"]
    );
    assert_eq!(lines_with(&mtl, "map_d "), vec!["map_d scene_t0_leaf.png"]);
    assert_eq!(lines_with(&mtl, "Kd "), vec!["Kd 1 1 1", "Kd 0.8 0.5 0.25"]);
    assert_eq!(lines_with(&mtl, "d "), vec!["d 1", "d 0.75"]);
    assert_eq!(lines_with(&mtl, "illum "), vec!["illum 1", "illum 0"]);
    assert_eq!(files.textures.len(), 1);
    assert_eq!(files.textures[0].0, "scene_t0_leaf.png");
    assert_eq!(decode_png(&files.textures[0].1), STRAIGHT.to_vec());
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kiln-export-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn obj_files_on_disk() {
    let (model, posed) = posed();
    let dir = scratch("obj");
    write_obj(&model, &posed, &dir.join("my model.obj")).unwrap();
    // The stem loses its space for the sidecars; no temporary files remain.
    assert_eq!(
        listing(&dir),
        vec!["my model.obj", "my_model.mtl", "my_model_t0_leaf.png"]
    );
    let obj = std::fs::read_to_string(dir.join("my model.obj")).unwrap();
    let mtllib = lines_with(&obj, "mtllib ")[0]
        .strip_prefix("mtllib ")
        .unwrap();
    let mtl = std::fs::read_to_string(dir.join(mtllib)).unwrap();
    let map = lines_with(&mtl, "map_Kd ")[0]
        .strip_prefix("map_Kd ")
        .unwrap();
    let png = std::fs::read(dir.join(map)).unwrap();
    assert_eq!(decode_png(&png), STRAIGHT.to_vec());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn glb_on_disk_is_deterministic_and_atomic() {
    let dir = scratch("glb");
    let (model, posed) = posed();
    let first = glb_bytes(&model, &posed).unwrap();
    // A fresh model and pose give the same bytes.
    let (model2, posed2) = posed_again();
    assert_eq!(glb_bytes(&model2, &posed2).unwrap(), first);
    write_glb(&model, &posed, &dir.join("a.glb")).unwrap();
    export(&model, &posed, &dir.join("b.GLB")).unwrap();
    assert_eq!(std::fs::read(dir.join("a.glb")).unwrap(), first);
    assert_eq!(std::fs::read(dir.join("b.GLB")).unwrap(), first);
    export(&model, &posed, &dir.join("c.obj")).unwrap();
    let again = obj_files(&model2, &posed2, "c").unwrap();
    assert_eq!(std::fs::read(dir.join("c.obj")).unwrap(), again.obj);
    assert_eq!(std::fs::read(dir.join("c.mtl")).unwrap(), again.mtl);
    assert_eq!(
        listing(&dir),
        vec!["a.glb", "b.GLB", "c.mtl", "c.obj", "c_t0_leaf.png"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn posed_again() -> (Model, PosedModel) {
    posed()
}

#[test]
fn unknown_extension_is_a_usage_error() {
    let (model, posed) = posed();
    let dir = scratch("usage");
    for name in ["out.fbx", "out"] {
        match export(&model, &posed, &dir.join(name)) {
            Err(kiln::Error::Usage(m)) => assert!(m.contains(".glb or .obj"), "{m}"),
            other => panic!("expected a usage error, got {other:?}"),
        }
    }
    assert!(listing(&dir).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn missing_normals_or_uvs_are_left_out() {
    let mut model = fixture_model();
    model.meshes[0].normals.clear();
    model.meshes[1].uvs.clear();
    let posed = pose(&model, 0.0);
    let (json, _) = parse_glb(&glb_bytes(&model, &posed).unwrap());
    let a0 = &json["meshes"][0]["primitives"][0]["attributes"];
    assert!(a0.get("NORMAL").is_none());
    assert!(a0.get("TEXCOORD_0").is_some());
    let a1 = &json["meshes"][1]["primitives"][0]["attributes"];
    assert!(a1.get("NORMAL").is_some());
    assert!(a1.get("TEXCOORD_0").is_none());

    let files = obj_files(&model, &posed, "x").unwrap();
    let obj = String::from_utf8(files.obj).unwrap();
    assert_eq!(lines_with(&obj, "vn ").len(), 3);
    assert_eq!(lines_with(&obj, "vt ").len(), 8);
    assert_eq!(
        lines_with(&obj, "f "),
        vec!["f 1/1 2/2 3/3", "f 1/5 3/7 4/8", "f 5//1 7//3 6//2"]
    );
}
