//! Legend of Grimrock materials: `defineMaterial{…}` in the mod's Lua files,
//! and the textures they name.
//!
//! Which Lua files are read (see [`lua_files`]): the game runs whatever
//! `init.lua` imports, which kiln does not execute, so it reads the places
//! material definitions live in practice. In the model's tree, whose root is
//! the folder holding `mod_assets/` (for an unpacked game, `assets/`):
//! 1. `mod_assets/scripts/**/*.lua` (the editor's `materials.lua`, `init.lua`
//!    and anything a modder put beside them), recursively;
//! 2. `mod_assets/plugins/*.lua` and `mod_assets/plugins/*/*.lua` (plugins
//!    ship a `.lua` at their top, as the corpus's `skeleton_warrior_axe`);
//! 3. the `.lua` files of every folder from the root down to the model's
//!    own folder (a custom folder such as `mod_assets/fire_cave/`).
//!
//! A model outside any `mod_assets/` has only its own folder read. Files are
//! read in that order, each folder's entries sorted by name, each file once;
//! a later definition of a name replaces an earlier one (as in the game,
//! where the last `defineMaterial` wins), with a warning. Recursing through
//! all of `mod_assets/` would also pick up backups and unused drafts the
//! game never loads.

use super::lower::MaterialDef;
use super::Model;
use crate::formats::lua::{calls, LuaValue};
use crate::formats::texture;
use crate::source::{EntryKind, Found, GamePath, Layout, Lookup, SourceRef, Tree};
use crate::spec::FileRef;
use std::path::{Path, PathBuf};
use std::sync::Arc;
/// Bounds on the `scripts/` walk, against link farms and huge trees.
const MAX_SCRIPT_DEPTH: usize = 8;
const MAX_LUA_FILES: usize = 4096;
/// Larger Lua files are not definition files (a dungeon.lua is ~1 MB).
const MAX_LUA_BYTES: u64 = 32 << 20;

/// Blend modes the engine knows.
const BLEND_MODES: &[&str] = &["Opaque", "Translucent", "Additive", "Modulative"];

/// One `defineMaterial{…}`, with the engine's defaults for missing fields.
#[derive(Debug, Clone, PartialEq)]
pub struct GrimrockMaterial {
    /// The material's name, as model segments name it.
    pub name: String,
    /// As written, usually `mod_assets/…/x_dif.tga`; the game loads the `.dds`
    /// with the same stem, and so does kiln.
    pub diffuse_map: Option<String>,
    /// `specularMap`, as written (not drawn by kiln).
    pub specular_map: Option<String>,
    /// `normalMap`, as written (not drawn by kiln).
    pub normal_map: Option<String>,
    /// `emissiveMap`, as written (not drawn by kiln).
    pub emissive_map: Option<String>,
    /// Default false: back faces culled.
    pub double_sided: bool,
    /// Default true.
    pub lighting: bool,
    /// Default false.
    pub alpha_test: bool,
    /// `Opaque` (default), `Translucent`, `Additive` or `Modulative`.
    pub blend_mode: String,
    /// `Wrap` (default) or `Clamp`.
    pub texture_address_mode: String,
    /// `glossiness`, when given as a number.
    pub glossiness: Option<f32>,
    /// Default 0.
    pub depth_bias: f32,
    /// The Lua file and line of the definition.
    pub source: PathBuf,
    /// 1-based line of the `defineMaterial` call in `source`.
    pub line: usize,
}

impl GrimrockMaterial {
    fn new(name: String, source: &Path, line: usize) -> Self {
        GrimrockMaterial {
            name,
            diffuse_map: None,
            specular_map: None,
            normal_map: None,
            emissive_map: None,
            double_sided: false,
            lighting: true,
            alpha_test: false,
            blend_mode: "Opaque".to_string(),
            texture_address_mode: "Wrap".to_string(),
            glossiness: None,
            depth_bias: 0.0,
            source: source.to_path_buf(),
            line,
        }
    }

    /// `source:line`, for messages.
    pub fn location(&self) -> String {
        format!("{}:{}", self.source.display(), self.line)
    }
}

/// The materials defined for the model of `tree`, in order of first
/// definition, and warnings (unreadable files, syntax errors, overridden
/// names, fields of the wrong type) worded for the user.
pub fn find_materials(lookup: &Lookup, tree: &Tree) -> (Vec<GrimrockMaterial>, Vec<String>) {
    let mut materials: Vec<GrimrockMaterial> = Vec::new();
    let mut warnings = Vec::new();
    for file in lua_files(lookup, tree) {
        for m in read_materials(lookup, &file, &mut warnings) {
            match materials.iter_mut().find(|o| o.name == m.name) {
                Some(old) => {
                    warnings.push(format!(
                        "material \"{}\" defined at {} replaces the definition at {}",
                        m.name,
                        m.location(),
                        old.location()
                    ));
                    *old = m;
                }
                None => materials.push(m),
            }
        }
    }
    (materials, warnings)
}

/// Every `defineMaterial` in one Lua file; problems go to `warnings`.
fn read_materials(
    lookup: &Lookup,
    found: &Found,
    warnings: &mut Vec<String>,
) -> Vec<GrimrockMaterial> {
    let file = found.entry.location.as_path();
    let size = found.entry.size;
    if size > MAX_LUA_BYTES {
        warnings.push(format!(
            "{}: {size} bytes is too large for a definition file; skipped",
            file.display()
        ));
        return Vec::new();
    }
    let bytes = match lookup.read(found) {
        Ok(b) => b,
        Err(crate::Error::Io { source, .. }) => {
            warnings.push(format!("{}: {source}; skipped", file.display()));
            return Vec::new();
        }
        Err(e) => {
            warnings.push(format!("{e}; skipped"));
            return Vec::new();
        }
    };
    let source = String::from_utf8_lossy(&bytes);
    let tables = match calls(&source, file, "defineMaterial") {
        Ok(t) => t,
        Err(e) => {
            warnings.push(format!("{e}; its materials are skipped"));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for t in tables {
        let at = format!("{}:{}", file.display(), t.line);
        let name = match t.get("name") {
            Some(LuaValue::String(s)) => s.clone(),
            other => {
                warnings.push(format!(
                    "{at}: defineMaterial without a string name ({}); skipped",
                    describe(other)
                ));
                continue;
            }
        };
        let mut m = GrimrockMaterial::new(name, file, t.line);
        let mut wrong = Vec::new();
        let text = |key: &str, wrong: &mut Vec<String>| match t.get(key) {
            None | Some(LuaValue::Nil) => None,
            Some(LuaValue::String(s)) => Some(s.clone()),
            Some(v) => {
                wrong.push(format!("{key} is {} (want a string)", describe(Some(v))));
                None
            }
        };
        m.diffuse_map = text("diffuseMap", &mut wrong);
        m.specular_map = text("specularMap", &mut wrong);
        m.normal_map = text("normalMap", &mut wrong);
        m.emissive_map = text("emissiveMap", &mut wrong);
        if let Some(s) = text("blendMode", &mut wrong) {
            if BLEND_MODES.contains(&s.as_str()) {
                m.blend_mode = s;
            } else {
                wrong.push(format!(
                    "blendMode \"{s}\" is not one of {}",
                    BLEND_MODES.join(", ")
                ));
            }
        }
        if let Some(s) = text("textureAddressMode", &mut wrong) {
            m.texture_address_mode = s;
        }
        let flag = |key: &str, default: bool, wrong: &mut Vec<String>| match t.get(key) {
            None | Some(LuaValue::Nil) => default,
            Some(LuaValue::Bool(b)) => *b,
            Some(v) => {
                wrong.push(format!("{key} is {} (want a boolean)", describe(Some(v))));
                default
            }
        };
        m.double_sided = flag("doubleSided", false, &mut wrong);
        m.lighting = flag("lighting", true, &mut wrong);
        m.alpha_test = flag("alphaTest", false, &mut wrong);
        let number = |key: &str, wrong: &mut Vec<String>| match t.get(key) {
            None | Some(LuaValue::Nil) => None,
            Some(LuaValue::Number(n)) => Some(*n as f32),
            Some(v) => {
                wrong.push(format!("{key} is {} (want a number)", describe(Some(v))));
                None
            }
        };
        m.glossiness = number("glossiness", &mut wrong);
        m.depth_bias = number("depthBias", &mut wrong).unwrap_or(0.0);
        for w in wrong {
            warnings.push(format!(
                "{at}: material \"{}\": {w}; using the default",
                m.name
            ));
        }
        out.push(m);
    }
    out
}

fn describe(v: Option<&LuaValue>) -> String {
    match v {
        None => "missing".to_string(),
        Some(LuaValue::Expr(e)) => {
            let short: String = e.chars().take(60).collect();
            format!("the expression `{short}`, which kiln does not evaluate")
        }
        Some(LuaValue::String(s)) => format!("the string \"{s}\""),
        Some(LuaValue::Number(n)) => format!("the number {n}"),
        Some(LuaValue::Bool(b)) => format!("{b}"),
        Some(v) => format!("a {}", v.type_name()),
    }
}

/// The model's mod root and its asset folder (`mod_assets`, or `assets`
/// for an unpacked game) in its tree, when the model sits below one.
pub fn mod_root(tree: &Tree) -> Option<(GamePath, GamePath)> {
    let root = tree.root(Layout::GRIMROCK);
    let folder = tree.folder();
    let next = folder.parts().get(root.parts().len())?;
    let is_assets = [&b"mod_assets"[..], b"assets"]
        .iter()
        .any(|m| next.eq_ignore_ascii_case(m));
    is_assets.then(|| (root.clone(), root.child(next)))
}

fn is_lua(name: &[u8]) -> bool {
    name.len() > 4 && name[name.len() - 4..].eq_ignore_ascii_case(b".lua")
}

fn is_dir(kind: EntryKind) -> bool {
    matches!(kind, EntryKind::Folder | EntryKind::LinkedFolder)
}

/// The Lua files [`find_materials`] reads for the model of `tree`, in
/// reading order (lowest priority first); the module docs give the rule.
pub fn lua_files(lookup: &Lookup, tree: &Tree) -> Vec<Found> {
    let src = &tree.source;
    let mut paths: Vec<GamePath> = Vec::new();
    let add = |p: GamePath, out: &mut Vec<GamePath>| {
        if out.len() < MAX_LUA_FILES && !out.contains(&p) {
            out.push(p);
        }
    };
    let root = mod_root(tree);
    if let Some((_, assets)) = &root {
        let entries = lookup.list(src, assets);
        for e in entries.iter().filter(|e| is_dir(e.kind)) {
            if e.name.eq_ignore_ascii_case(b"scripts") {
                let mut found = Vec::new();
                walk_lua(lookup, src, &assets.child(&e.name), 0, &mut found);
                for p in found {
                    add(p, &mut paths);
                }
            }
        }
        for e in entries.iter().filter(|e| is_dir(e.kind)) {
            if e.name.eq_ignore_ascii_case(b"plugins") {
                let plugins = assets.child(&e.name);
                for p in lookup.list(src, &plugins) {
                    if p.kind == EntryKind::File && is_lua(&p.name) {
                        add(plugins.child(&p.name), &mut paths);
                    } else if is_dir(p.kind) {
                        let sub = plugins.child(&p.name);
                        for q in lookup.list(src, &sub) {
                            if q.kind == EntryKind::File && is_lua(&q.name) {
                                add(sub.child(&q.name), &mut paths);
                            }
                        }
                    }
                }
            }
        }
    }
    // Folders from the top down, so the model's own folder has the last word.
    let folder = tree.folder();
    let first = root
        .as_ref()
        .map_or(folder.parts().len(), |(r, _)| r.parts().len());
    for depth in first..=folder.parts().len() {
        let dir = GamePath::new(folder.parts()[..depth].join(&b'/'));
        for p in lookup.list(src, &dir) {
            if p.kind == EntryKind::File && is_lua(&p.name) {
                add(dir.child(&p.name), &mut paths);
            }
        }
    }
    paths
        .into_iter()
        .filter_map(|p| {
            let entry = src.find(&p)?;
            Some(Found {
                source: src.clone(),
                path: p,
                entry,
            })
        })
        .collect()
}

fn walk_lua(
    lookup: &Lookup,
    src: &SourceRef,
    dir: &GamePath,
    depth: usize,
    out: &mut Vec<GamePath>,
) {
    if depth > MAX_SCRIPT_DEPTH || out.len() >= MAX_LUA_FILES {
        return;
    }
    for e in lookup.list(src, dir) {
        match e.kind {
            // Real folders only: a link back up the tree must not loop.
            EntryKind::Folder => walk_lua(lookup, src, &dir.child(&e.name), depth + 1, out),
            EntryKind::File if is_lua(&e.name) && out.len() < MAX_LUA_FILES => {
                out.push(dir.child(&e.name))
            }
            _ => {}
        }
    }
}

/// Finds the file for a Grimrock texture path (`mod_assets/…` relative to
/// the mod root, `assets/…` relative to an unpacked game) for the model of
/// `tree`.
///
/// The game loads the `.dds` with the same stem as the name written, so that
/// is tried first, then the name as given, then `.tga` and `.png`. Each of
/// the caller's sources is tried first — as the folder holding `assets/` (an
/// unpacked game, for mods that use the game's own textures) or as that
/// folder itself — then the model's own tree, matching each component in
/// any case.
pub fn resolve_texture(lookup: &Lookup, tree: &Tree, map: &str) -> Option<Found> {
    let written = GamePath::new(map);
    let last = written.file_name()?;
    let dirs = written.parent();
    let stem = match last.iter().rposition(|&b| b == b'.') {
        Some(i) if i > 0 => &last[..i],
        _ => last,
    };
    let mut names: Vec<Vec<u8>> = Vec::new();
    for candidate in [
        [stem, b".dds"].concat(),
        last.to_vec(),
        [stem, b".tga"].concat(),
        [stem, b".png"].concat(),
    ] {
        if !names.iter().any(|n| n.eq_ignore_ascii_case(&candidate)) {
            names.push(candidate);
        }
    }
    let mut candidates = Vec::new();
    for s in lookup.sources() {
        for name in &names {
            let path = dirs.child(name);
            candidates.push((s.clone(), path.clone()));
            if path.parts().len() > 1 {
                candidates.push((s.clone(), path.skip(1)));
            }
        }
    }
    let root = mod_root(tree).map_or_else(|| tree.folder(), |(r, _)| r);
    for name in &names {
        candidates.push((tree.source.clone(), root.join(&dirs.child(name))));
    }
    lookup.first(candidates)
}

/// Every material the model's segments use: the caller's overrides first,
/// then the `defineMaterial` calls in the Lua files around the model, with
/// their textures found and decoded. Names nobody defines get no entry: the
/// lowering draws them neutral grey and says so once.
pub fn material_defs(
    lookup: &Lookup,
    tree: &Tree,
    model: &Model,
    overrides: &[(String, FileRef)],
) -> (Vec<MaterialDef>, Vec<String>) {
    let (found, mut warnings) = find_materials(lookup, tree);
    let mut used: Vec<String> = Vec::new();
    for n in &model.nodes {
        if let Some(m) = n.mesh() {
            for s in &m.mesh.segments {
                let name = s.material_str();
                if !used.contains(&name) {
                    used.push(name);
                }
            }
        }
    }
    let shared = |(location, image): texture::TextureFile| {
        (location, image.map(Arc::new).map_err(|e| e.to_string()))
    };
    let defs = used
        .into_iter()
        .filter(|name| {
            found.iter().any(|m| m.name == *name) || overrides.iter().any(|(n, _)| n == name)
        })
        .map(|name| {
            let lua = found.iter().find(|m| m.name == name);
            let texture = match overrides.iter().find(|(n, _)| *n == name) {
                Some((_, file)) => Some(shared(texture::read_named(lookup, file))),
                None => lua.and_then(|m| m.diffuse_map.as_deref()).and_then(|d| {
                    match resolve_texture(lookup, tree, d) {
                        Some(f) => Some(shared(texture::read_found(lookup, &f))),
                        None => {
                            warnings.push(format!(
                                "material '{name}': texture '{d}' not found (nor its .dds)"
                            ));
                            None
                        }
                    }
                }),
            };
            MaterialDef {
                double_sided: lua.is_some_and(|m| m.double_sided),
                alpha_test: lua.is_some_and(|m| m.alpha_test),
                blend: lua.is_some_and(|m| {
                    !m.blend_mode.is_empty() && !m.blend_mode.eq_ignore_ascii_case("opaque")
                }),
                unlit: lua.is_some_and(|m| !m.lighting),
                texture,
                name,
            }
        })
        .collect();
    (defs, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tree(model: &Path) -> Tree {
        Tree::of_disk_file(model, Layout::GRIMROCK)
    }

    fn locations(found: Vec<Found>) -> Vec<PathBuf> {
        found.into_iter().map(|f| f.entry.location).collect()
    }

    fn resolve(model: &Path, map: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
        let lookup = Lookup::with_folders(dirs, &[]).unwrap();
        resolve_texture(&lookup, &tree(model), map).map(|f| f.entry.location)
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir()
            .join(format!("kiln-grimrock-{}", std::process::id()))
            .join(name);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn files_are_read_scripts_then_plugins_then_folders_down_to_the_model() {
        let root = temp("order");
        let a = root.join("Mod_Assets");
        for f in [
            "scripts/materials.lua",
            "scripts/init.lua",
            "scripts/sub/more.lua",
            "scripts/notes.txt",
            "plugins/top.lua",
            "plugins/p/p.lua",
            "plugins/p/deep/no.lua",
            "other/yes.lua",
            "other/models/here.lua",
            "unrelated/no.lua",
            "old.lua",
        ] {
            write(&a.join(f), "");
        }
        write(&root.join("root.lua"), "");
        write(&root.join("../outside.lua"), "");
        let model = a.join("other/models/x.model");
        let got: Vec<String> = locations(lua_files(&Lookup::default(), &tree(&model)))
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        assert_eq!(
            got,
            [
                "Mod_Assets/scripts/init.lua",
                "Mod_Assets/scripts/materials.lua",
                "Mod_Assets/scripts/sub/more.lua",
                "Mod_Assets/plugins/p/p.lua",
                "Mod_Assets/plugins/top.lua",
                "root.lua",
                "Mod_Assets/old.lua",
                "Mod_Assets/other/yes.lua",
                "Mod_Assets/other/models/here.lua",
            ]
        );
        let (r, assets) = mod_root(&tree(&model)).unwrap();
        assert_eq!(r, GamePath::root());
        assert_eq!(assets.to_string(), "Mod_Assets");
        let t = tree(&model);
        assert_eq!(t.source.describe(), root.display().to_string());
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn later_definitions_replace_earlier_ones_with_a_warning() {
        let root = temp("override");
        let a = root.join("mod_assets");
        write(
            &a.join("scripts/materials.lua"),
            "defineMaterial{ name = \"m\", diffuseMap = \"a.tga\" }\n\
             defineMaterial{ name = \"n\", doubleSided = \"yes\", blendMode = \"Glow\", glossiness = g }\n\
             defineMaterial{ diffuseMap = \"x\" }",
        );
        write(
            &a.join("models/m.lua"),
            "\n\ndefineMaterial{ name = 'm', diffuseMap = 'b.tga', alphaTest = true }",
        );
        write(
            &a.join("models/broken.lua"),
            "defineMaterial{ name = 'q' 'r' }",
        );
        let (mats, warnings) =
            find_materials(&Lookup::default(), &tree(&a.join("models/thing.model")));
        let names: Vec<&str> = mats.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["m", "n"]);
        assert_eq!(mats[0].diffuse_map.as_deref(), Some("b.tga"));
        assert!(mats[0].alpha_test);
        assert_eq!(mats[0].line, 3);
        assert!(!mats[1].double_sided);
        assert_eq!(mats[1].blend_mode, "Opaque");
        assert_eq!(mats[1].glossiness, None);
        let s = |p: &str| a.join(p).display().to_string();
        assert_eq!(
            warnings,
            [
                format!("{}:2: material \"n\": blendMode \"Glow\" is not one of Opaque, Translucent, Additive, Modulative; using the default", s("scripts/materials.lua")),
                format!("{}:2: material \"n\": doubleSided is the string \"yes\" (want a boolean); using the default", s("scripts/materials.lua")),
                format!("{}:2: material \"n\": glossiness is the expression `g`, which kiln does not evaluate (want a number); using the default", s("scripts/materials.lua")),
                format!("{}:3: defineMaterial without a string name (missing); skipped", s("scripts/materials.lua")),
                format!("{}: defineMaterial call at 1:1 at byte 27 (0x1b): line 1:28: expected `,`, `;` or `}}` in the table opened at 1:15, found `'r'`; its materials are skipped", s("models/broken.lua")),
                format!("material \"m\" defined at {}:3 replaces the definition at {}:1", s("models/m.lua"), s("scripts/materials.lua")),
            ]
        );
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn textures_prefer_dds_and_match_any_case() {
        let root = temp("textures");
        let t = root.join("MOD_ASSETS/Textures");
        write(&t.join("wall_DIF.DDS"), "dds");
        write(&t.join("wall_dif.tga"), "tga");
        write(&t.join("only.TGA"), "tga");
        write(&t.join("plain.png"), "png");
        let model = root.join("MOD_ASSETS/models/m.model");
        fs::create_dir_all(model.parent().unwrap()).unwrap();
        let r = |m: &str| {
            resolve(&model, m, &[]).map(|p| p.strip_prefix(&root).unwrap().display().to_string())
        };
        assert_eq!(
            r("mod_assets/textures/wall_dif.tga").as_deref(),
            Some("MOD_ASSETS/Textures/wall_DIF.DDS")
        );
        assert_eq!(
            r("mod_assets\\textures\\only.tga").as_deref(),
            Some("MOD_ASSETS/Textures/only.TGA")
        );
        assert_eq!(
            r("mod_assets/textures/plain.tga").as_deref(),
            Some("MOD_ASSETS/Textures/plain.png")
        );
        assert_eq!(
            r("mod_assets/textures/plain").as_deref(),
            Some("MOD_ASSETS/Textures/plain.png")
        );
        assert_eq!(r("mod_assets/textures/missing.tga"), None);
        assert_eq!(r(""), None);

        // Game textures from an unpacked game given as a search dir, either
        // the folder holding `assets/` or `assets/` itself.
        let game = root.join("game");
        write(&game.join("Assets/Textures/Stone_dif.dds"), "dds");
        let want = Some(game.join("Assets/Textures/Stone_dif.dds"));
        let map = "assets/textures/stone_dif.tga";
        assert_eq!(resolve(&model, map, &[]), None);
        assert_eq!(resolve(&model, map, std::slice::from_ref(&game)), want);
        assert_eq!(
            resolve(&model, map, &[root.join("nowhere"), game.join("Assets")]),
            want
        );
        // A source's own copy wins over the model's tree.
        write(&game.join("mod_assets/textures/only.dds"), "dds");
        assert_eq!(
            resolve(
                &model,
                "mod_assets/textures/only.tga",
                std::slice::from_ref(&game)
            ),
            Some(game.join("mod_assets/textures/only.dds"))
        );

        let _ = fs::remove_dir_all(&root);
    }

    /// A 1×1 TGA of one colour.
    fn tga(c: [u8; 4]) -> Vec<u8> {
        texture::encode_tga32(1, 1, &[c], false)
    }

    fn texel(def: &MaterialDef) -> Option<(PathBuf, [u8; 4])> {
        let (path, image) = def.texture.as_ref()?;
        let image = image.as_ref().expect("a decoded texture");
        Some((path.clone(), image.texels[0]))
    }

    #[test]
    fn material_textures_are_decoded_or_reported_missing_once() {
        let root = temp("defs");
        let a = root.join("mod_assets");
        // The fixture model's segments use kiln_base and kiln_arm.
        write(
            &a.join("scripts/materials.lua"),
            "defineMaterial{ name = \"kiln_base\", diffuseMap = \"mod_assets/textures/gone_dif.tga\" }\n\
             defineMaterial{ name = \"kiln_arm\", diffuseMap = \"mod_assets/textures/arm_dif.tga\", alphaTest = true }\n\
             defineMaterial{ name = \"unused\", diffuseMap = \"mod_assets/textures/nowhere.tga\" }",
        );
        fs::create_dir_all(a.join("textures")).unwrap();
        fs::write(a.join("textures/arm_dif.tga"), tga([9, 8, 7, 255])).unwrap();
        let model = super::super::fixture::model();
        let t = tree(&a.join("models/m.model"));

        let (defs, warnings) = material_defs(&Lookup::default(), &t, &model, &[]);
        let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["kiln_base", "kiln_arm"]);
        // Only materials the model uses are looked up: "unused" says nothing.
        assert_eq!(
            warnings,
            ["material 'kiln_base': texture 'mod_assets/textures/gone_dif.tga' not found (nor its .dds)"]
        );
        assert_eq!(defs[0].texture, None);
        assert_eq!(
            texel(&defs[1]),
            Some((a.join("textures/arm_dif.tga"), [9, 8, 7, 255]))
        );
        assert!(defs[1].alpha_test);

        // A recipe's override replaces the definition's texture and is read
        // from the caller's sources when it is not on disk; one that is
        // nowhere keeps its disk path and why it failed.
        let mut mem = crate::source::MemorySource::new("mem");
        mem.insert("skins/base.tga", tga([1, 2, 3, 255]));
        let lookup = Lookup::new(vec![Arc::new(mem) as SourceRef]);
        let overrides = [
            (
                "kiln_base".to_string(),
                FileRef::relative_to(&root, "skins/base.tga"),
            ),
            (
                "kiln_arm".to_string(),
                FileRef::relative_to(&root, "skins/lost.tga"),
            ),
        ];
        let (defs, warnings) = material_defs(&lookup, &t, &model, &overrides);
        assert_eq!(warnings, Vec::<String>::new());
        assert_eq!(
            texel(&defs[0]),
            Some((PathBuf::from("mem:/skins/base.tga"), [1, 2, 3, 255]))
        );
        let (path, image) = defs[1].texture.as_ref().unwrap();
        assert_eq!(path, &root.join("skins/lost.tga"));
        assert!(
            image.as_ref().unwrap_err().contains("lost.tga"),
            "{image:?}"
        );
        let _ = fs::remove_dir_all(&root);
    }
}
