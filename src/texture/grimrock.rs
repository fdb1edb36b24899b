//! Legend of Grimrock materials: `defineMaterial{…}` in the mod's Lua files,
//! and the textures they name.
//!
//! Which Lua files are read (see [`lua_files`]): the game runs whatever
//! `init.lua` imports, which kiln does not execute, so it reads the places
//! material definitions live in practice. For the mod root (the nearest
//! folder above the model holding `mod_assets/`; for an unpacked game,
//! `assets/`):
//! 1. `mod_assets/scripts/**/*.lua` (the editor's `materials.lua`, `init.lua`
//!    and anything a modder put beside them), recursively;
//! 2. `mod_assets/plugins/*.lua` and `mod_assets/plugins/*/*.lua` (plugins
//!    ship a `.lua` at their top, as the corpus's `skeleton_warrior_axe`);
//! 3. the `.lua` files of every folder from the mod root down to the model's
//!    own folder (a custom folder such as `mod_assets/fire_cave/`).
//!
//! Without a mod root only step 3 runs, over the model's folder and up to 6
//! folders above it. Files are read in that order, each folder's entries
//! sorted by name, each file once; a later definition of a name replaces an
//! earlier one (as in the game, where the last `defineMaterial` wins), with
//! a warning. Recursing through all of `mod_assets/` would also pick up
//! backups and unused drafts the game never loads.

use super::lookup::{find, split_name};
use super::{load, LoadedTexture, Texture, TextureResolver};
use crate::formats::lua::{calls, LuaValue};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Folders searched above a model that has no mod root.
const LOOSE_LEVELS: usize = 6;
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
    pub name: String,
    /// As written, usually `mod_assets/…/x_dif.tga`; the game loads the `.dds`
    /// with the same stem (see [`resolve_texture`]).
    pub diffuse_map: Option<String>,
    pub specular_map: Option<String>,
    pub normal_map: Option<String>,
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
    pub glossiness: Option<f32>,
    /// Default 0.
    pub depth_bias: f32,
    /// The Lua file and line of the definition.
    pub source: PathBuf,
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

/// The materials defined for the model at `model_path`, in order of first
/// definition, and warnings (unreadable files, syntax errors, overridden
/// names, fields of the wrong type) worded for the user.
pub fn find_materials(model_path: &Path) -> (Vec<GrimrockMaterial>, Vec<String>) {
    let mut materials: Vec<GrimrockMaterial> = Vec::new();
    let mut warnings = Vec::new();
    for file in lua_files(model_path) {
        for m in read_materials(&file, &mut warnings) {
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
pub fn read_materials(file: &Path, warnings: &mut Vec<String>) -> Vec<GrimrockMaterial> {
    let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
    if size > MAX_LUA_BYTES {
        warnings.push(format!(
            "{}: {size} bytes is too large for a definition file; skipped",
            file.display()
        ));
        return Vec::new();
    }
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => {
            warnings.push(format!("{}: {e}; skipped", file.display()));
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

/// The nearest folder above the model holding `mod_assets/` (any case), or
/// `assets/` for an unpacked game.
pub fn mod_root(model_path: &Path) -> Option<PathBuf> {
    folder_of(model_path)
        .ancestors()
        .filter(|d| !d.as_os_str().is_empty())
        .find(|d| asset_dir(d).is_some())
        .map(Path::to_path_buf)
}

/// The model's folder; `.` for a bare file name.
fn folder_of(model_path: &Path) -> &Path {
    match model_path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// `dir`'s `mod_assets` (or else `assets`) subfolder, any case.
fn asset_dir(dir: &Path) -> Option<PathBuf> {
    for want in ["mod_assets", "assets"] {
        if let Some(found) = sorted_entries(dir)
            .into_iter()
            .find(|p| p.is_dir() && file_name_is(p, want))
        {
            return Some(found);
        }
    }
    None
}

fn file_name_is(p: &Path, want: &str) -> bool {
    p.file_name()
        .is_some_and(|n| n.as_encoded_bytes().eq_ignore_ascii_case(want.as_bytes()))
}

fn is_lua(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e.as_encoded_bytes().eq_ignore_ascii_case(b"lua"))
        && p.is_file()
}

/// A folder's entries sorted bytewise, so the order never depends on the
/// file system.
fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = read.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    out.sort_by(|a, b| {
        a.as_os_str()
            .as_encoded_bytes()
            .cmp(b.as_os_str().as_encoded_bytes())
    });
    out
}

/// The Lua files [`find_materials`] reads for a model, in reading order
/// (lowest priority first); the module docs give the rule.
pub fn lua_files(model_path: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let add = |p: PathBuf, out: &mut Vec<PathBuf>| {
        if out.len() < MAX_LUA_FILES && !out.contains(&p) {
            out.push(p);
        }
    };
    let folder = folder_of(model_path);
    let root = mod_root(model_path);
    if let Some(assets) = root.as_deref().and_then(asset_dir) {
        for sub in sorted_entries(&assets) {
            if sub.is_dir() && file_name_is(&sub, "scripts") {
                let mut found = Vec::new();
                walk_lua(&sub, 0, &mut found);
                for p in found {
                    add(p, &mut out);
                }
            }
        }
        for sub in sorted_entries(&assets) {
            if sub.is_dir() && file_name_is(&sub, "plugins") {
                for p in sorted_entries(&sub) {
                    if is_lua(&p) {
                        add(p, &mut out);
                    } else if p.is_dir() {
                        for q in sorted_entries(&p).into_iter().filter(|q| is_lua(q)) {
                            add(q, &mut out);
                        }
                    }
                }
            }
        }
    }
    // Folders from the top down, so the model's own folder has the last word.
    let mut chain: Vec<&Path> = match &root {
        Some(r) => folder
            .ancestors()
            .take_while(|d| d.starts_with(r))
            .collect(),
        None => folder.ancestors().take(LOOSE_LEVELS + 1).collect(),
    };
    chain.retain(|d| !d.as_os_str().is_empty());
    chain.reverse();
    for dir in chain {
        for p in sorted_entries(dir).into_iter().filter(|p| is_lua(p)) {
            add(p, &mut out);
        }
    }
    out
}

fn walk_lua(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > MAX_SCRIPT_DEPTH || out.len() >= MAX_LUA_FILES {
        return;
    }
    for p in sorted_entries(dir) {
        // Real folders only: a symlink back up the tree must not loop.
        let real_dir = std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir());
        if real_dir {
            walk_lua(&p, depth + 1, out);
        } else if is_lua(&p) && out.len() < MAX_LUA_FILES {
            out.push(p);
        }
    }
}

/// Finds the file for a Grimrock texture path (`mod_assets/…` relative to
/// the mod root, `assets/…` relative to an unpacked game) for the model at
/// `model_path`.
///
/// The game loads the `.dds` with the same stem as the name written, so that
/// is tried first, then the name as given, then `.tga` and `.png`. Each is
/// looked up below every folder above the model, nearest first, matching
/// each component in any case.
pub fn resolve_texture(model_path: &Path, map: &str) -> Option<PathBuf> {
    resolve_texture_with(model_path, map, &[])
}

/// As [`resolve_texture`], then below each of `search_dirs` (recipe `data:`
/// entries, `--data DIR`): a folder holding `assets/` (an unpacked game, for
/// mods that use the game's own textures) or that folder itself.
pub fn resolve_texture_with(
    model_path: &Path,
    map: &str,
    search_dirs: &[PathBuf],
) -> Option<PathBuf> {
    let components = split_name(map.as_bytes());
    let (last, dirs) = components.split_last()?;
    let stem = match last.iter().rposition(|&b| b == b'.') {
        Some(i) if i > 0 => &last[..i],
        _ => &last[..],
    };
    let mut names: Vec<Vec<u8>> = Vec::new();
    for candidate in [
        [stem, b".dds"].concat(),
        last.clone(),
        [stem, b".tga"].concat(),
        [stem, b".png"].concat(),
    ] {
        if !names.iter().any(|n| n.eq_ignore_ascii_case(&candidate)) {
            names.push(candidate);
        }
    }
    let start = folder_of(model_path);
    let ancestors: Vec<&Path> = start
        .ancestors()
        .filter(|d| !d.as_os_str().is_empty())
        .collect();
    for name in &names {
        let mut path = dirs.to_vec();
        path.push(name.clone());
        for base in &ancestors {
            if let Some(found) = find(base, &[], &path) {
                return Some(found);
            }
        }
    }
    for dir in search_dirs {
        for name in &names {
            let mut path = dirs.to_vec();
            path.push(name.clone());
            if let Some(found) = find(dir, &[], &path) {
                return Some(found);
            }
            // The search dir is the `assets/` folder itself.
            if path.len() > 1 {
                if let Some(found) = find(dir, &[], &path[1..]) {
                    return Some(found);
                }
            }
        }
    }
    None
}

/// The decoded diffuse texture of a material, or the checker with a warning
/// (no diffuse map, file not found, or unreadable), so the model still
/// renders. The resolver's search dirs are tried after the model's folders.
pub fn load_diffuse(
    model_path: &Path,
    material: &GrimrockMaterial,
    resolver: &TextureResolver,
) -> LoadedTexture {
    let checker = |name: String, path: Option<PathBuf>, warning: String| LoadedTexture {
        name,
        path,
        image: Arc::new(Texture::checker()),
        warning: Some(warning),
    };
    let Some(map) = &material.diffuse_map else {
        return checker(
            String::new(),
            None,
            format!(
                "material \"{}\" ({}) has no diffuseMap; drawing a checker",
                material.name,
                material.location()
            ),
        );
    };
    let Some(path) = resolve_texture_with(model_path, map, &resolver.search_dirs) else {
        let root = mod_root(model_path)
            .map(|r| format!("below {}", r.display()))
            .unwrap_or_else(|| "(no mod_assets folder above the model)".to_string());
        return checker(
            map.clone(),
            None,
            format!(
                "texture \"{map}\" of material \"{}\" not found as .dds, as named, .tga or .png {root}; drawing a checker",
                material.name
            ),
        );
    };
    match load(&path) {
        Ok(t) => LoadedTexture {
            name: map.clone(),
            path: Some(path),
            image: Arc::new(t),
            warning: None,
        },
        Err(e) => checker(
            map.clone(),
            Some(path),
            format!(
                "texture \"{map}\" of material \"{}\" could not be read ({e}); drawing a checker",
                material.name
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

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
        let got: Vec<String> = lua_files(&model)
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
        assert_eq!(mod_root(&model).as_deref(), Some(root.as_path()));
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
        let (mats, warnings) = find_materials(&a.join("models/thing.model"));
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
            resolve_texture(&model, m).map(|p| p.strip_prefix(&root).unwrap().display().to_string())
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
        assert_eq!(resolve_texture(&model, map), None);
        assert_eq!(
            resolve_texture_with(&model, map, std::slice::from_ref(&game)),
            want
        );
        assert_eq!(
            resolve_texture_with(&model, map, &[root.join("nowhere"), game.join("Assets")]),
            want
        );
        let _ = fs::remove_dir_all(&root);
    }
}
