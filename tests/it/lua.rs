//! Grimrock Lua definitions: the corpus plugin's materials and texture, the
//! reader on syntax torture cases, and malformed input that must never panic.

use crate::common;

use kiln::internals::formats::grimrock::materials::{self, GrimrockMaterial};
use kiln::internals::formats::lua::{calls, LuaKey, LuaTable, LuaValue};
use kiln::internals::source::{GamePath, Layout, Lookup, Tree};
use std::path::{Path, PathBuf};

const PLUGIN: &str = "grimrock/grimrock+eob1-waterdeep/mod_assets/plugins/skeleton_warrior_axe";

fn s(v: &str) -> LuaValue {
    LuaValue::String(v.to_string())
}

fn n(v: f64) -> LuaValue {
    LuaValue::Number(v)
}

fn key(k: &str) -> LuaKey {
    LuaKey::Str(k.to_string())
}

#[test]
fn corpus_plugin_lua_reads_exactly() {
    let Some(dir) = common::corpus(PLUGIN) else {
        return;
    };
    let file = dir.join("skeleton_warrior_axe.lua");
    let src = std::fs::read_to_string(&file).unwrap();

    let mats = calls(&src, &file, "defineMaterial").unwrap();
    assert_eq!(mats.len(), 1);
    let m = &mats[0];
    assert_eq!((m.line, m.column), (120, 15));
    assert_eq!(
        m.entries,
        vec![
            (key("name"), s("rusted_great_axe")),
            (
                key("diffuseMap"),
                s("mod_assets/plugins/skeleton_warrior_axe/textures/corrupt_great_axe_dif.tga")
            ),
            (
                key("specularMap"),
                s("mod_assets/plugins/skeleton_warrior_axe/textures/corrupt_great_axe_spec.tga")
            ),
            (key("doubleSided"), LuaValue::Bool(false)),
            (key("lighting"), LuaValue::Bool(true)),
            (key("alphaTest"), LuaValue::Bool(false)),
            (key("blendMode"), s("Opaque")),
            (key("textureAddressMode"), s("Wrap")),
            (key("glossiness"), n(35.0)),
            (key("depthBias"), n(0.0)),
        ]
    );

    // The other definitions in the same file read as well.
    let objects = calls(&src, &file, "defineObject").unwrap();
    let names: Vec<&str> = objects
        .iter()
        .map(|t| t.get("name").unwrap().as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "leki_skeleton_warrior_axe",
            "leki_skeleton_warrior_axe_patrol_4",
            "leki_skeleton_warrior_axe_patrol_2",
            "rusted_great_axe"
        ]
    );
    let monster = &objects[0];
    let anims = monster.get("animations").unwrap().as_table().unwrap();
    assert_eq!(anims.entries.len(), 12);
    assert_eq!(
        anims.get("getHitBack").unwrap().as_str(),
        Some(
            "mod_assets/plugins/skeleton_warrior_axe/animations/skeleton_warrior_axe_hit_back.fbx"
        )
    );
    assert_eq!(monster.get("capsuleHeight"), Some(&n(0.7)));
    let immunities: Vec<&LuaValue> = monster
        .get("immunities")
        .unwrap()
        .as_table()
        .unwrap()
        .array();
    assert_eq!(immunities, [&s("poison")]);
    let loot = monster.get("lootDrop").unwrap().as_table().unwrap();
    assert_eq!(loot.array(), [&n(100.0), &s("rusted_great_axe")]);
    assert_eq!(objects[3].get("coolDownTime"), Some(&n(4.6)));
    assert_eq!(objects[3].get("weight"), Some(&n(6.0)));
    let events = calls(&src, &file, "defineAnimationEvent").unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].get("frame"), Some(&n(13.0)));
}

fn tree(model: &Path) -> Tree {
    Tree::of_disk_file(model, Layout::GRIMROCK)
}

fn lua_files(model: &Path) -> Vec<PathBuf> {
    materials::lua_files(&Lookup::default(), &tree(model))
        .into_iter()
        .map(|f| f.entry.location)
        .collect()
}

fn find_materials(model: &Path) -> (Vec<GrimrockMaterial>, Vec<String>) {
    materials::find_materials(&Lookup::default(), &tree(model))
}

fn resolve_texture(model: &Path, map: &str) -> Option<PathBuf> {
    materials::resolve_texture(&Lookup::default(), &tree(model), map).map(|f| f.entry.location)
}

/// The mod root of a model's tree, on disk.
fn mod_root(model: &Path) -> Option<PathBuf> {
    let t = tree(model);
    let (root, _) = materials::mod_root(&t)?;
    assert_eq!(root, GamePath::root());
    Some(PathBuf::from(t.source.describe()))
}

fn expected_axe_material(file: PathBuf) -> GrimrockMaterial {
    GrimrockMaterial {
        name: "rusted_great_axe".into(),
        diffuse_map: Some(
            "mod_assets/plugins/skeleton_warrior_axe/textures/corrupt_great_axe_dif.tga".into(),
        ),
        specular_map: Some(
            "mod_assets/plugins/skeleton_warrior_axe/textures/corrupt_great_axe_spec.tga".into(),
        ),
        normal_map: None,
        emissive_map: None,
        double_sided: false,
        lighting: true,
        alpha_test: false,
        blend_mode: "Opaque".into(),
        texture_address_mode: "Wrap".into(),
        glossiness: Some(35.0),
        depth_bias: 0.0,
        source: file,
        line: 120,
    }
}

#[test]
fn corpus_materials_found_from_any_model_of_the_mod() {
    let Some(dir) = common::corpus(PLUGIN) else {
        return;
    };
    let lua = dir.join("skeleton_warrior_axe.lua");
    let mod_dir = dir.parent().unwrap().parent().unwrap().parent().unwrap();
    for model in [
        dir.join("models/rusted_great_axe.model"),
        dir.join("models/skeleton_warrior_axe.model"),
        // Outside the plugin: found through the plugins/ scan.
        mod_dir.join("mod_assets/models/items/stone_dagger.model"),
    ] {
        assert_eq!(mod_root(&model).as_deref(), Some(mod_dir));
        assert_eq!(
            lua_files(&model),
            std::slice::from_ref(&lua),
            "{}",
            model.display()
        );
        let (mats, warnings) = find_materials(&model);
        assert_eq!(mats, [expected_axe_material(lua.clone())]);
        assert!(warnings.is_empty(), "{warnings:?}");
    }
}

#[test]
fn corpus_mod_without_lua_has_no_materials_and_no_warnings() {
    let Some(dir) = common::corpus("grimrock/7Soul+log2_the_old_nexus") else {
        return;
    };
    let model = dir.join("mod_assets/fire_cave/models/env/rc_lever.model");
    assert_eq!(mod_root(&model).as_deref(), Some(dir.as_path()));
    assert!(lua_files(&model).is_empty());
    let (mats, warnings) = find_materials(&model);
    assert!(
        mats.is_empty() && warnings.is_empty(),
        "{mats:?} {warnings:?}"
    );
}

#[test]
fn corpus_axe_texture_resolves_to_its_dds() {
    let Some(dir) = common::corpus(PLUGIN) else {
        return;
    };
    let model = dir.join("models/rusted_great_axe.model");
    let (mats, _) = find_materials(&model);
    let diffuse = mats[0].diffuse_map.as_deref().unwrap();
    let dds = dir.join("textures/corrupt_great_axe_dif.dds");
    assert_eq!(resolve_texture(&model, diffuse), Some(dds.clone()));
    // Any case, backslashes, and the .dds named directly.
    assert_eq!(
        resolve_texture(
            &model,
            "MOD_ASSETS\\Plugins\\skeleton_warrior_axe\\textures\\Corrupt_Great_Axe_Dif.TGA"
        ),
        Some(dds.clone())
    );
    assert_eq!(
        resolve_texture(
            &model,
            "mod_assets/plugins/skeleton_warrior_axe/textures/corrupt_great_axe_dif.dds"
        ),
        Some(dds.clone())
    );
    // The specular map is not in the corpus.
    assert_eq!(
        resolve_texture(&model, mats[0].specular_map.as_deref().unwrap()),
        None
    );

    // Loading the model decodes it into the material's texture slot.
    let loaded = common::load(&model);
    let slot = loaded
        .textures
        .iter()
        .find(|t| t.path.as_deref() == Some(dds.as_path()))
        .expect("the axe's texture slot");
    assert_eq!(slot.name, "rusted_great_axe");
    assert_eq!((slot.image.width, slot.image.height), (128, 128));
    assert_eq!(slot.image.texels.len(), 128 * 128);
    assert!(
        !loaded
            .warnings
            .iter()
            .any(|w| w.contains("rusted_great_axe")),
        "{:?}",
        loaded.warnings
    );
}

const TORTURE: &str = r#"#!/usr/bin/lua
-- line comment with defineMaterial{ name = "no" }
--[[ block
defineMaterial{ name = "no" }
]] --[==[ level 2 ]] ]=] still ]==]
local tex = "mod_assets/textures/"   ; local gloss = 10 * 2
import "mod_assets/scripts/other.lua"
function helper(t) defineMaterial{ name = "in function" } return t end
cloneObject{ name = "x", baseObject = "y", onInit = function(self) if self then end end }
defineMaterial --[[ comment between ]] {
	name = 'first',                 -- trailing comment
	diffuseMap = tex .. "a_dif.tga" ; specularMap = [[mod_assets/textures/a_spec.tga]],
	["blendMode"] = "Translucent",
	glossiness = gloss, depthBias = -0.5e-1,
	nested = { { 1, 2 ; 3 }, { k = { "deep" } }, },
	onUpdate = function(self, time) self:setParam("x", math.sin(time)) end,
	escaped = "tab\there \"q\" \65\x42\u{43} \
next",
	[10] = 0x10, "positional",
}
defineMaterial({ name = "second", doubleSided = true, alphaTest = not false, });
defineMaterial{name="third";lighting=false}defineMaterial{name = [==[fou]]rth]==]}
"#;

#[test]
fn torture_sample_reads_exactly() {
    let file = Path::new("torture.lua");
    let got = calls(TORTURE, file, "defineMaterial").unwrap();
    let names: Vec<&str> = got
        .iter()
        .map(|t| t.get("name").unwrap().as_str().unwrap())
        .collect();
    assert_eq!(names, ["first", "second", "third", "fou]]rth"]);
    let first = &got[0];
    assert_eq!(first.line, 10);
    assert_eq!(
        first.get("diffuseMap"),
        Some(&s("mod_assets/textures/a_dif.tga"))
    );
    assert_eq!(
        first.get("specularMap"),
        Some(&s("mod_assets/textures/a_spec.tga"))
    );
    assert_eq!(first.get("blendMode"), Some(&s("Translucent")));
    assert_eq!(first.get("glossiness"), Some(&n(20.0)));
    assert_eq!(first.get("depthBias"), Some(&n(-0.05)));
    let nested = first.get("nested").unwrap().as_table().unwrap();
    let inner: &LuaTable = nested.get_index(1).unwrap().as_table().unwrap();
    assert_eq!(inner.array(), [&n(1.0), &n(2.0), &n(3.0)]);
    let deep = nested.get_index(2).unwrap().as_table().unwrap();
    assert_eq!(
        deep.get("k").unwrap().as_table().unwrap().array(),
        [&s("deep")]
    );
    assert_eq!(
        first.get("onUpdate"),
        Some(&LuaValue::Expr(
            "function(self, time) self:setParam(\"x\", math.sin(time)) end".into()
        ))
    );
    assert_eq!(first.get("escaped"), Some(&s("tab\there \"q\" ABC \nnext")));
    assert_eq!(first.get_index(10), Some(&n(16.0)));
    assert_eq!(first.get_index(1), Some(&s("positional")));
    assert_eq!(got[1].get("alphaTest"), Some(&LuaValue::Bool(true)));
    assert_eq!(got[2].get("lighting"), Some(&LuaValue::Bool(false)));
}

/// Every prefix of a file either reads as a prefix of the full result or
/// fails at an offset inside the prefix; none panics.
fn check_truncations(src: &str, function: &str) -> (usize, usize) {
    let file = Path::new("cut.lua");
    let full = calls(src, file, function).unwrap();
    let (mut ok, mut failed) = (0, 0);
    for len in 0..=src.len() {
        let cut = String::from_utf8_lossy(&src.as_bytes()[..len]);
        match calls(&cut, file, function) {
            Ok(tables) => {
                assert!(tables.len() <= full.len(), "len {len}");
                assert_eq!(tables[..], full[..tables.len()], "len {len}");
                ok += 1;
            }
            Err(e) => {
                assert!(e.offset as usize <= cut.len(), "len {len}: {e}");
                assert!(e.message.starts_with("line "), "{e}");
                failed += 1;
            }
        }
    }
    (ok, failed)
}

#[test]
fn truncations_of_the_torture_sample() {
    let (ok, failed) = check_truncations(TORTURE, "defineMaterial");
    assert_eq!(ok + failed, TORTURE.len() + 1);
    // Cuts inside a wanted call, a string or a long comment fail; the rest
    // read. Pinned for this sample.
    assert_eq!((ok, failed), (343, 680));
}

#[test]
fn truncations_of_the_corpus_plugin() {
    let Some(dir) = common::corpus(PLUGIN) else {
        return;
    };
    let src = std::fs::read_to_string(dir.join("skeleton_warrior_axe.lua")).unwrap();
    for function in ["defineMaterial", "defineObject"] {
        let (ok, failed) = check_truncations(&src, function);
        assert_eq!(ok + failed, src.len() + 1);
    }
}

#[test]
fn random_input_never_panics() {
    const PIECES: &[&str] = &[
        "defineMaterial",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        "[[",
        "]]",
        "[=[",
        "]=]",
        "=",
        ",",
        ";",
        "\"",
        "'",
        "\\",
        "--",
        "--[[",
        "function",
        "end",
        "do",
        "if",
        "then",
        "repeat",
        "until",
        "local",
        "x",
        "1",
        "0x",
        ".5",
        "e",
        "..",
        "...",
        "-",
        "not",
        " ",
        "\n",
        "\\u{",
        "\\x",
        "é",
        ".",
        ":",
        "~",
        "#",
    ];
    let mut noise = common::Rng(0x9e37_79b9_7f4a_7c15);
    let file = Path::new("noise.lua");
    let mut errors = 0;
    for round in 0..3000 {
        let len = (noise.next() % 200) as usize;
        let src: String = if round % 3 == 0 {
            let bytes: Vec<u8> = (0..len).map(|_| noise.next() as u8).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            (0..len)
                .map(|_| PIECES[(noise.next() % PIECES.len() as u64) as usize])
                .collect()
        };
        match calls(&src, file, "defineMaterial") {
            Ok(_) => {}
            Err(e) => {
                assert!(e.offset as usize <= src.len(), "{src:?}: {e}");
                errors += 1;
            }
        }
    }
    // Pinned for this seed: most noise is rejected (lex errors, unclosed
    // tables) and the rest reads; a change in leniency shows up here.
    assert_eq!(errors, 2812);
}

#[test]
fn deleting_any_byte_never_panics() {
    let file = Path::new("mut.lua");
    let bytes = TORTURE.as_bytes();
    for i in 0..bytes.len() {
        let mut b = bytes.to_vec();
        b.remove(i);
        let src = String::from_utf8_lossy(&b);
        if let Err(e) = calls(&src, file, "defineMaterial") {
            assert!(e.offset as usize <= src.len());
        }
    }
}
