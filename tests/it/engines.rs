//! Every metadata format read back the way the engine it is for reads it.
//! Each reader below follows the engine's own loader (cited per reader;
//! the facts, not the code) and rebuilds every frame from the packed,
//! trimmed pages, which must equal the rendered frame pixel for pixel.

use crate::common::tempdir;
use image::RgbaImage;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A frame as an engine ends up holding it.
#[derive(Debug, Clone, PartialEq)]
struct Frame {
    name: String,
    /// The page image it is cut from.
    image: PathBuf,
    /// `x, y, w, h` on the page.
    cut: [u32; 4],
    /// The untrimmed size.
    real: [u32; 2],
    /// Where the cut goes in the untrimmed frame.
    offset: [u32; 2],
    /// The pivot in pixels of the untrimmed frame, when the format has one.
    pivot: Option<[f64; 2]>,
    duration: Option<u64>,
}

/// The untrimmed frame `f` rebuilt from its page.
fn restore(f: &Frame, pages: &mut BTreeMap<PathBuf, RgbaImage>) -> RgbaImage {
    let page = pages
        .entry(f.image.clone())
        .or_insert_with(|| image::open(&f.image).unwrap().to_rgba8());
    let mut out = RgbaImage::new(f.real[0], f.real[1]);
    for y in 0..f.cut[3] {
        for x in 0..f.cut[2] {
            let p = *page.get_pixel(f.cut[0] + x, f.cut[1] + y);
            out.put_pixel(f.offset[0] + x, f.offset[1] + y, p);
        }
    }
    out
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(
        &std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap()
}

fn u(v: &Value) -> u32 {
    v.as_u64()
        .unwrap_or_else(|| panic!("not a whole number: {v}")) as u32
}

/// One TexturePacker-shaped frame entry, as Phaser 3's parsers take it
/// (`src/textures/parsers/JSONHash.js`, `JSONArray.js` in phaserjs/phaser):
/// the cut is `frame`; only when `trimmed` is true is
/// `setTrim(sourceSize.w, sourceSize.h, spriteSourceSize.x, .y, .w, .h)`
/// applied; the pivot is `src.anchor || src.pivot` (JSONHash) or
/// `src.anchor` (JSONArray), fractions of the untrimmed frame.
fn phaser_frame(name: &str, src: &Value, image: &Path, pivot_keys: &[&str]) -> Frame {
    let cut = [
        u(&src["frame"]["x"]),
        u(&src["frame"]["y"]),
        u(&src["frame"]["w"]),
        u(&src["frame"]["h"]),
    ];
    let (real, offset) = if src["trimmed"] == true {
        let sss = &src["spriteSourceSize"];
        assert_eq!((u(&sss["w"]), u(&sss["h"])), (cut[2], cut[3]), "{name}");
        (
            [u(&src["sourceSize"]["w"]), u(&src["sourceSize"]["h"])],
            [u(&sss["x"]), u(&sss["y"])],
        )
    } else {
        ([cut[2], cut[3]], [0, 0])
    };
    let pivot = pivot_keys.iter().find_map(|k| src.get(*k)).map(|p| {
        [
            p["x"].as_f64().unwrap() * real[0] as f64,
            p["y"].as_f64().unwrap() * real[1] as f64,
        ]
    });
    Frame {
        name: name.to_string(),
        image: image.to_path_buf(),
        cut,
        real,
        offset,
        pivot,
        duration: src["duration"].as_u64(),
    }
}

/// Phaser 3 `load.atlas` with a JSON hash: `json.frames` must be an object
/// (the parser warns "missing 'frames' Object" otherwise); every key is a
/// frame; the image is `meta.image` beside the JSON.
fn phaser_hash(path: &Path) -> Vec<Frame> {
    let json = read_json(path);
    let frames = json["frames"].as_object().expect("a 'frames' object");
    let image = path.with_file_name(json["meta"]["image"].as_str().unwrap());
    frames
        .iter()
        .map(|(k, v)| phaser_frame(k, v, &image, &["anchor", "pivot"]))
        .collect()
}

/// Phaser 3's JSONArray parser: `json.textures[i].frames` when `textures`
/// is an array (a multi-atlas, `load.multiatlas`, each texture naming its
/// `image`), else `json.frames`; each frame keyed by its `filename`.
fn phaser_array(path: &Path) -> Vec<Frame> {
    let json = read_json(path);
    let pages: Vec<(PathBuf, &Vec<Value>)> = match json["textures"].as_array() {
        Some(t) => t
            .iter()
            .map(|tex| {
                (
                    path.with_file_name(tex["image"].as_str().unwrap()),
                    tex["frames"].as_array().unwrap(),
                )
            })
            .collect(),
        None => vec![(
            path.with_file_name(json["meta"]["image"].as_str().unwrap()),
            json["frames"].as_array().expect("a 'frames' array"),
        )],
    };
    pages
        .iter()
        .flat_map(|(img, frames)| {
            frames
                .iter()
                .map(|f| phaser_frame(f["filename"].as_str().unwrap(), f, img, &["anchor"]))
        })
        .collect()
}

/// Phaser 3 `anims.createFromAseprite` (`src/animations/AnimationManager.js`):
/// for each `meta.frameTags` entry with a name, frames `from..=to` are
/// looked up as `frames[i.toString()]` — a frame missing under that key is
/// silently left out — and the animation's duration is the sum of theirs.
/// Returns each tag's frames (as the atlas loader cuts them) and duration.
fn phaser_aseprite(path: &Path) -> Vec<(String, Vec<Frame>, u64)> {
    let json = read_json(path);
    let atlas = phaser_hash(path);
    let frames = json["frames"].as_object().unwrap();
    json["meta"]["frameTags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tag| {
            let name = tag["name"].as_str().unwrap().to_string();
            let (from, to) = (tag["from"].as_u64().unwrap(), tag["to"].as_u64().unwrap());
            let mut got = Vec::new();
            let mut total = 0;
            for i in from..=to {
                let key = i.to_string();
                if let Some(f) = frames.get(&key) {
                    total += f["duration"].as_u64().unwrap();
                    got.push(atlas.iter().find(|a| a.name == key).unwrap().clone());
                }
            }
            assert_eq!(got.len() as u64, to - from + 1, "tag {name} lost frames");
            (name, got, total)
        })
        .collect()
}

/// PixiJS `Spritesheet` (`src/spritesheet/Spritesheet.ts` in
/// pixijs/pixijs): `orig` is `sourceSize` when `trimmed !== false`, else
/// the frame; `trim` is `spriteSourceSize.x, .y` with the frame's size;
/// `anchor` becomes the texture's `defaultAnchor`; `animations[name]` maps
/// to the textures of those frame names. `meta.related_multi_packs` (in
/// `spritesheetAsset.ts`) loads further sheets beside the first.
/// Returns the frames of every sheet and the animations by name.
fn pixi(path: &Path) -> (Vec<Frame>, BTreeMap<String, Vec<Frame>>) {
    let json = read_json(path);
    let image = path.with_file_name(json["meta"]["image"].as_str().unwrap());
    let mut textures: BTreeMap<String, Frame> = BTreeMap::new();
    for (k, d) in json["frames"].as_object().unwrap() {
        let rect = &d["frame"];
        let cut = [u(&rect["x"]), u(&rect["y"]), u(&rect["w"]), u(&rect["h"])];
        let trimmed = d["trimmed"] != false;
        let real = match (trimmed, d.get("sourceSize")) {
            (true, Some(s)) => [u(&s["w"]), u(&s["h"])],
            _ => [cut[2], cut[3]],
        };
        let offset = match (trimmed, d.get("spriteSourceSize")) {
            (true, Some(s)) => [u(&s["x"]), u(&s["y"])],
            _ => [0, 0],
        };
        let pivot = d.get("anchor").map(|a| {
            [
                a["x"].as_f64().unwrap() * real[0] as f64,
                a["y"].as_f64().unwrap() * real[1] as f64,
            ]
        });
        textures.insert(
            k.clone(),
            Frame {
                name: k.clone(),
                image: image.clone(),
                cut,
                real,
                offset,
                pivot,
                duration: d["duration"].as_u64(),
            },
        );
    }
    let mut animations = BTreeMap::new();
    for (name, list) in json["animations"].as_object().into_iter().flatten() {
        let frames: Vec<Frame> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                textures
                    .get(n.as_str().unwrap())
                    .unwrap_or_else(|| panic!("animation {name} names a missing frame {n}"))
                    .clone()
            })
            .collect();
        animations.insert(name.clone(), frames);
    }
    let mut all: Vec<Frame> = textures.into_values().collect();
    for more in json["meta"]["related_multi_packs"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let (f, a) = pixi(&path.with_file_name(more.as_str().unwrap()));
        all.extend(f);
        animations.extend(a);
    }
    (all, animations)
}

/// A value of Godot's text resource format (`core/variant/variant_parser`
/// as `resource_format_text.cpp` uses it), the part kiln writes.
#[derive(Debug, Clone, PartialEq)]
enum GdValue {
    Number(f64),
    Bool(bool),
    Str(String),
    Name(String),
    Array(Vec<GdValue>),
    Dict(Vec<(GdValue, GdValue)>),
    /// `Rect2(…)`, `Vector2(…)`, `ExtResource("id")`, …
    Call(String, Vec<GdValue>),
}

impl GdValue {
    fn get(&self, key: &str) -> Option<&GdValue> {
        match self {
            GdValue::Dict(d) => d
                .iter()
                .find(|(k, _)| matches!(k, GdValue::Str(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
    fn num(&self) -> f64 {
        match self {
            GdValue::Number(n) => *n,
            v => panic!("not a number: {v:?}"),
        }
    }
    fn nums(&self, ctor: &str) -> Vec<f64> {
        match self {
            GdValue::Call(c, args) if c == ctor => args.iter().map(GdValue::num).collect(),
            v => panic!("not a {ctor}: {v:?}"),
        }
    }
    fn arg(&self, ctor: &str) -> String {
        match self {
            GdValue::Call(c, args) if c == ctor => match args.as_slice() {
                [GdValue::Str(s)] => s.clone(),
                a => panic!("{ctor} takes one string, got {a:?}"),
            },
            v => panic!("not a {ctor}: {v:?}"),
        }
    }
}

struct GdParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl GdParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && (self.s[self.i] as char).is_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn string(&mut self) -> String {
        assert!(self.eat(b'"'), "a string at {}", self.i);
        let mut out = String::new();
        while self.s[self.i] != b'"' {
            if self.s[self.i] == b'\\' {
                self.i += 1;
            }
            out.push(self.s[self.i] as char);
            self.i += 1;
        }
        self.i += 1;
        out
    }
    fn ident(&mut self) -> String {
        self.ws();
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || b"_/".contains(&self.s[self.i]))
        {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
    }
    fn value(&mut self) -> GdValue {
        self.ws();
        match self.s[self.i] {
            b'"' => GdValue::Str(self.string()),
            b'&' => {
                self.i += 1;
                GdValue::Name(self.string())
            }
            b'[' => {
                self.i += 1;
                let mut v = Vec::new();
                while !self.eat(b']') {
                    v.push(self.value());
                    self.eat(b',');
                }
                GdValue::Array(v)
            }
            b'{' => {
                self.i += 1;
                let mut v = Vec::new();
                while !self.eat(b'}') {
                    let k = self.value();
                    assert!(self.eat(b':'), "':' in a dictionary at {}", self.i);
                    v.push((k, self.value()));
                    self.eat(b',');
                }
                GdValue::Dict(v)
            }
            c if c == b'-' || c.is_ascii_digit() => {
                let start = self.i;
                self.i += 1;
                while self.i < self.s.len()
                    && (self.s[self.i].is_ascii_digit() || b".e-".contains(&self.s[self.i]))
                {
                    self.i += 1;
                }
                GdValue::Number(
                    std::str::from_utf8(&self.s[start..self.i])
                        .unwrap()
                        .parse()
                        .unwrap(),
                )
            }
            _ => {
                let id = self.ident();
                match id.as_str() {
                    "true" => GdValue::Bool(true),
                    "false" => GdValue::Bool(false),
                    _ => {
                        assert!(self.eat(b'('), "'(' after {id} at {}", self.i);
                        let mut args = Vec::new();
                        while !self.eat(b')') {
                            args.push(self.value());
                            self.eat(b',');
                        }
                        GdValue::Call(id, args)
                    }
                }
            }
        }
    }
}

/// A `[tag key=value …]` section and its `key = value` assignments.
#[derive(Debug)]
struct Section {
    tag: String,
    fields: BTreeMap<String, GdValue>,
    props: BTreeMap<String, GdValue>,
}

fn parse_tres(text: &str) -> Vec<Section> {
    let mut p = GdParser {
        s: text.as_bytes(),
        i: 0,
    };
    let mut out: Vec<Section> = Vec::new();
    loop {
        p.ws();
        if p.i >= p.s.len() {
            break;
        }
        if p.eat(b'[') {
            let tag = p.ident();
            let mut fields = BTreeMap::new();
            while !p.eat(b']') {
                let k = p.ident();
                assert!(p.eat(b'='));
                fields.insert(k, p.value());
            }
            out.push(Section {
                tag,
                fields,
                props: BTreeMap::new(),
            });
        } else {
            let k = p.ident();
            assert!(p.eat(b'='), "'=' after {k} at {}", p.i);
            let v = p.value();
            out.last_mut()
                .expect("a property before any tag")
                .props
                .insert(k, v);
        }
    }
    out
}

/// An animation of a Godot `SpriteFrames`: frames with their relative
/// duration, speed, loop.
struct GdAnimation {
    frames: Vec<(Frame, f64)>,
    speed: f64,
    looping: bool,
}

/// Godot 4 loading a `.tres` `SpriteFrames` (`scene/resources/
/// resource_format_text.cpp`, `sprite_frames.cpp`, `atlas_texture.cpp` in
/// godotengine/godot): a `gd_resource` header of type SpriteFrames and
/// format ≤ 4; `ext_resource`s with `type`, `id` and a `path` taken
/// relative to the file when it has no `://`; `sub_resource` AtlasTextures
/// whose size is `region` plus `margin`'s size and whose region is drawn at
/// `margin`'s position; `animations` entries skipped unless they have
/// `name`, `speed`, `loop` and `frames`, each frame a `{texture,
/// duration}`.
fn godot(path: &Path) -> (BTreeMap<String, GdAnimation>, GdValue) {
    let sections = parse_tres(&std::fs::read_to_string(path).unwrap());
    let head = &sections[0];
    assert_eq!(head.tag, "gd_resource");
    assert_eq!(head.fields["type"], GdValue::Str("SpriteFrames".into()));
    assert!(head.fields["format"].num() <= 4.0);
    let mut ext: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut sub: BTreeMap<String, Frame> = BTreeMap::new();
    let mut resource = None;
    for s in &sections[1..] {
        match s.tag.as_str() {
            "ext_resource" => {
                assert_eq!(s.fields["type"], GdValue::Str("Texture2D".into()));
                let GdValue::Str(p) = &s.fields["path"] else {
                    panic!()
                };
                assert!(!p.contains("://"), "a path relative to the .tres");
                let GdValue::Str(id) = &s.fields["id"] else {
                    panic!()
                };
                ext.insert(id.clone(), path.with_file_name(p));
            }
            "sub_resource" => {
                assert_eq!(s.fields["type"], GdValue::Str("AtlasTexture".into()));
                let GdValue::Str(id) = &s.fields["id"] else {
                    panic!()
                };
                let atlas = s.props["atlas"].arg("ExtResource");
                let r = s.props["region"].nums("Rect2");
                let m = s
                    .props
                    .get("margin")
                    .map_or(vec![0.0; 4], |m| m.nums("Rect2"));
                sub.insert(
                    id.clone(),
                    Frame {
                        name: id.clone(),
                        image: ext[&atlas].clone(),
                        cut: [r[0] as u32, r[1] as u32, r[2] as u32, r[3] as u32],
                        real: [(r[2] + m[2]) as u32, (r[3] + m[3]) as u32],
                        offset: [m[0] as u32, m[1] as u32],
                        pivot: None,
                        duration: None,
                    },
                );
            }
            "resource" => resource = Some(s),
            t => panic!("unknown section {t}"),
        }
    }
    let resource = resource.expect("a [resource] section");
    let GdValue::Array(anims) = &resource.props["animations"] else {
        panic!("animations is not an array")
    };
    let mut out = BTreeMap::new();
    for a in anims {
        for key in ["name", "speed", "loop", "frames"] {
            assert!(
                a.get(key).is_some(),
                "an animation without {key} is skipped"
            );
        }
        let Some(GdValue::Name(name)) = a.get("name") else {
            panic!("name is a StringName")
        };
        let Some(GdValue::Array(frames)) = a.get("frames") else {
            panic!()
        };
        let frames = frames
            .iter()
            .map(|f| {
                let id = f.get("texture").unwrap().arg("SubResource");
                (sub[&id].clone(), f.get("duration").unwrap().num())
            })
            .collect();
        out.insert(
            name.clone(),
            GdAnimation {
                frames,
                speed: a.get("speed").unwrap().num(),
                looping: a.get("loop") == Some(&GdValue::Bool(true)),
            },
        );
    }
    (out, resource.props["metadata/pivots"].clone())
}

const TENTACLE: &str = "recipes/samples/grimrock/mod_assets";

/// Bakes kiln's tentacle sample (its 15 fps wave and its still rest pose,
/// 4 directions) packed, trimmed, padded and extruded, with every
/// metadata format, its frames and its GIFs.
fn bake_tentacle(tag: &str, extra: &str) -> PathBuf {
    let tmp = tempdir(tag);
    let s = Path::new(env!("CARGO_MANIFEST_DIR")).join(TENTACLE);
    let recipe = format!(
        "jobs:\n  - name: t\n    model: '{}'\n    clips:\n      - {{ name: wave, animation: '{}', fps: 15 }}\n      - {{ name: rest, time: 0 }}\n    directions: 4\n    size: 48x64\n    antialias: 1\n    metadata: [texturepacker-hash, texturepacker-array, aseprite, pixi, godot]\n{extra}    output: {{ dir: out, frames: '{{clip}}_{{dir}}_{{frame:02}}.png', gif: '{{clip}}_{{dir}}.gif' }}\n",
        s.join("models/kiln_tentacle.model").display(),
        s.join("animations/kiln_tentacle_wave.animation").display()
    );
    std::fs::write(tmp.join("r.yaml"), recipe).unwrap();
    let report = kiln::bake_files(
        &[tmp.join("r.yaml")],
        &kiln::BakeOptions::default(),
        &kiln::NoProgress,
    )
    .unwrap();
    assert!(report.jobs[0].result.is_ok(), "{:?}", report.jobs[0].result);
    tmp
}

/// The rendered frame a metadata frame name stands for: `t_<clip>_d<dir>_f<frame>`.
fn rendered(tmp: &Path, name: &str) -> RgbaImage {
    let rest = name.strip_prefix("t_").unwrap();
    let (clip, rest) = rest.split_once("_d").unwrap();
    let (dir, frame) = rest.split_once("_f").unwrap();
    let f: usize = frame.parse().unwrap();
    image::open(tmp.join(format!("out/{clip}_{dir}_{f:02}.png")))
        .unwrap()
        .to_rgba8()
}

fn check_frames(tmp: &Path, frames: &[Frame], names: &[String], what: &str) {
    let mut pages = BTreeMap::new();
    assert_eq!(frames.len(), names.len(), "{what}: frame count");
    for (f, name) in frames.iter().zip(names) {
        assert!(
            restore(f, &mut pages) == rendered(tmp, name),
            "{what}: frame {name} is not the rendered frame"
        );
    }
}

/// GIF delays of `clip` × `dir`, in ms.
fn gif_ms(tmp: &Path, clip: &str, dir: usize) -> Vec<u64> {
    let file = std::fs::File::open(tmp.join(format!("out/{clip}_{dir}.gif"))).unwrap();
    let mut dec = gif::DecodeOptions::new().read_info(file).unwrap();
    let mut out = Vec::new();
    while let Some(f) = dec.read_next_frame().unwrap() {
        out.push(f.delay as u64 * 10);
    }
    out
}

#[test]
fn every_format_restores_every_frame_as_its_engine_reads_it() {
    let tmp = bake_tentacle(
        "engines-one",
        "    pack: { layout: packed, trim: true, padding: 2, extrude: 1 }\n",
    );
    let out = tmp.join("out");
    // 15 wave frames + 1 rest frame, 4 directions.
    let hash = phaser_hash(&out.join("t.json"));
    assert_eq!(hash.len(), 64);
    let names: Vec<String> = hash.iter().map(|f| f.name.clone()).collect();
    check_frames(&tmp, &hash, &names, "phaser JSON hash");
    assert!(hash.iter().any(|f| f.cut[2] < 48), "frames are trimmed");

    let array = phaser_array(&out.join("t.array.json"));
    let mut by_name: Vec<Frame> = array.clone();
    by_name.sort_by(|a, b| a.name.cmp(&b.name));
    let mut hash_sorted = hash.clone();
    hash_sorted.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(
        by_name, hash_sorted,
        "the array describes the frames as the hash does"
    );

    // The pivot: one per direction, the same in every format.
    let pivot = |name: &str| hash.iter().find(|f| f.name == name).unwrap().pivot.unwrap();
    let p0 = pivot("t_wave_d0_f0");
    assert!(
        p0[0] > 10.0 && p0[0] < 38.0 && p0[1] > 40.0 && p0[1] <= 64.0,
        "{p0:?}"
    );
    assert_eq!(pivot("t_wave_d0_f7"), p0);
    assert_eq!(pivot("t_rest_d0_f0"), p0);

    // Aseprite through createFromAseprite: one animation per clip ×
    // direction, every frame found, durations as the GIF holds them.
    let tags = phaser_aseprite(&out.join("t.aseprite.json"));
    assert_eq!(tags.len(), 8);
    assert_eq!(tags[0].0, "wave_d0");
    for (name, frames, total) in &tags {
        let (clip, dir) = name.split_once("_d").unwrap();
        let names: Vec<String> = (0..frames.len())
            .map(|f| format!("t_{clip}_d{dir}_f{f}"))
            .collect();
        check_frames(&tmp, frames, &names, &format!("aseprite {name}"));
        if clip == "wave" {
            let gif = gif_ms(&tmp, clip, dir.parse().unwrap());
            assert_eq!(
                frames
                    .iter()
                    .map(|f| f.duration.unwrap())
                    .collect::<Vec<_>>(),
                gif
            );
            assert_eq!(*total, 1000, "15 frames at 15 fps");
        }
    }

    // PixiJS: anchors as in the hash, animations resolving to textures.
    let (pixi_frames, anims) = pixi(&out.join("t.pixi.json"));
    assert_eq!(pixi_frames.len(), 64);
    let pixi_names: Vec<String> = pixi_frames.iter().map(|f| f.name.clone()).collect();
    check_frames(&tmp, &pixi_frames, &pixi_names, "pixi");
    for f in &pixi_frames {
        assert_eq!(f.pivot, Some(pivot(&f.name)), "{}", f.name);
    }
    assert_eq!(anims.len(), 8);
    assert_eq!(anims["wave_d3"].len(), 15);
    assert_eq!(anims["wave_d3"][14].name, "t_wave_d3_f14");

    // Godot: every animation's frames, speed, loop and relative durations.
    let (gd, pivots) = godot(&out.join("t.tres"));
    assert_eq!(gd.len(), 8);
    for (name, a) in &gd {
        let (clip, dir) = name.split_once("_d").unwrap();
        let names: Vec<String> = (0..a.frames.len())
            .map(|f| format!("t_{clip}_d{dir}_f{f}"))
            .collect();
        let frames: Vec<Frame> = a.frames.iter().map(|f| f.0.clone()).collect();
        check_frames(&tmp, &frames, &names, &format!("godot {name}"));
        assert!(a.looping);
        if clip == "wave" {
            assert_eq!(a.speed, 15.0);
            let ms: Vec<u64> = a
                .frames
                .iter()
                .map(|f| (f.1 / a.speed * 1000.0).round() as u64)
                .collect();
            assert_eq!(ms, gif_ms(&tmp, clip, dir.parse().unwrap()));
        }
        let p = pivots.get(name).unwrap().nums("Vector2");
        let want = pivot(&format!("t_{clip}_d{dir}_f0"));
        assert!(
            (p[0] - want[0]).abs() < 0.01 && (p[1] - want[1]).abs() < 0.01,
            "{name}: {p:?} vs {want:?}"
        );
    }

    // The TexturePacker hash keeps kiln's clip table with exact rates.
    let meta = read_json(&out.join("t.json"));
    assert_eq!(meta["meta"]["clips"][0]["fps"], 15.0);
    assert_eq!(meta["meta"]["clips"][0]["loop"], true);
    assert!(
        meta["meta"]["clips"][1].get("fps").is_none(),
        "a still has no rate"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A sheet that overflows `max_size` continues on further pages: every
/// format still finds every frame exactly once, each clip × direction on
/// one page, the multipack files linked as the loaders follow them.
#[test]
fn a_sheet_past_max_size_continues_on_pages_every_loader_follows() {
    let tmp = bake_tentacle(
        "engines-pages",
        "    pack: { layout: packed, trim: true, max_size: 160x128 }\n",
    );
    let out = tmp.join("out");
    let pages: Vec<PathBuf> = (0..)
        .map(|p| out.join(format!("t-{p}.png")))
        .take_while(|p| p.is_file())
        .collect();
    assert!(pages.len() >= 2, "{} pages", pages.len());
    assert!(!out.join("t.png").exists());
    for p in &pages {
        let (w, h) = image::image_dimensions(p).unwrap();
        assert!(w <= 160 && h <= 128, "{}: {w}x{h}", p.display());
    }
    // The hash: one file per page, each frame on exactly one.
    let mut seen: Vec<String> = Vec::new();
    for (p, page) in pages.iter().enumerate() {
        let frames = phaser_hash(&out.join(format!("t-{p}.json")));
        let names: Vec<String> = frames.iter().map(|f| f.name.clone()).collect();
        check_frames(&tmp, &frames, &names, &format!("hash page {p}"));
        for f in &frames {
            assert_eq!(&f.image, page);
        }
        seen.extend(names);
    }
    seen.sort();
    let n = seen.len();
    seen.dedup();
    assert_eq!((n, seen.len()), (64, 64), "every frame on exactly one page");
    // Phaser's multi-atlas finds them all too.
    let multi = phaser_array(&out.join("t.array.json"));
    let names: Vec<String> = multi.iter().map(|f| f.name.clone()).collect();
    check_frames(&tmp, &multi, &names, "multi-atlas");
    // Pixi follows related_multi_packs from the first page; animations are whole.
    let (frames, anims) = pixi(&out.join("t-0.pixi.json"));
    assert_eq!(frames.len(), 64);
    assert_eq!(anims.len(), 8);
    for (name, a) in &anims {
        assert!(
            a.iter().all(|f| f.image == a[0].image),
            "{name} spans pages"
        );
    }
    // Godot: one resource over every page.
    let (gd, _) = godot(&out.join("t.tres"));
    let images: std::collections::BTreeSet<PathBuf> = gd
        .values()
        .flat_map(|a| a.frames.iter().map(|f| f.0.image.clone()))
        .collect();
    assert_eq!(images.len(), pages.len());
    // Aseprite: a file per page, frames numbered from 0 in each.
    let tags: usize = (0..pages.len())
        .map(|p| phaser_aseprite(&out.join(format!("t-{p}.aseprite.json"))).len())
        .sum();
    assert_eq!(tags, 8);
    let _ = std::fs::remove_dir_all(&tmp);
}
