//! Names of a Grimrock `.dat`'s entries, recovered from the archive itself.
//!
//! The table keeps only FNV-1a hashes, but a mod names every asset it
//! uses in its own scripts and materials: `model =
//! "mod_assets/models/x.fbx"`, `diffuseMap = "…/x_dif.tga"`. Those
//! scripts are entries of the same archive, found without their names by
//! what their bytes look like (text, or Lua bytecode, whose string
//! constants are stored as plain bytes). Every path-like run in them is
//! hashed — as written and lower-cased, and with the extension the
//! exporter gives the asset (`.fbx` → `.model` / `.animation`, `.tga` /
//! `.png` → `.dds` / `.d3d9_texture`) — and a hash in the table names its
//! entry. What no script spells stays unnamed: a glob over a `.dat` finds
//! the files the mod uses, not every file it holds.
//!
//! A 32-bit hash can collide: with n candidates over m entries a false
//! name appears with odds near n·m / 2³², about 1 in 400 for a mod of a
//! thousand files. The first candidate in table order, then text order,
//! names an entry, so the names are the same on every run.

use std::collections::BTreeMap;

/// Scripts larger than this are not scanned (the games' largest Lua files
/// are a few hundred KiB; models and textures are what is larger).
pub const MAX_SCRIPT: u64 = 4 << 20;
/// Longest path-like run taken as a candidate name.
const MAX_NAME: usize = 260;
/// Bytes of an entry's start looked at to tell a script.
pub const HEAD: usize = 64;

/// Whether an entry starting with `head` is worth scanning: Lua bytecode,
/// or text (UTF-8 with only tab, CR and LF as control bytes).
pub fn looks_like_script(head: &[u8]) -> bool {
    if head.starts_with(b"\x1bLua") {
        return true;
    }
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    !head.is_empty()
        && head
            .iter()
            .all(|&b| b >= 0x20 && b != 0x7f || matches!(b, b'\t' | b'\r' | b'\n'))
}

/// The runs of `bytes` that could be asset paths: folder separators, a
/// final extension, only the characters asset names use.
pub fn candidates(bytes: &[u8]) -> Vec<String> {
    let path_byte =
        |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'\\');
    let mut out = Vec::new();
    for run in bytes.split(|&b| !path_byte(b)) {
        if run.len() < 3 || run.len() > MAX_NAME {
            continue;
        }
        let text: String = run
            .iter()
            .map(|&b| if b == b'\\' { '/' } else { b as char })
            .collect();
        let text = text.trim_start_matches("./").trim_start_matches('/');
        let Some((stem, ext)) = text.rsplit_once('.') else {
            continue;
        };
        if !stem.contains('/')
            || ext.is_empty()
            || ext.len() > 16
            || !ext.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            continue;
        }
        out.push(text.to_string());
    }
    out
}

/// The spellings a name written in a script may have in the archive.
pub fn spellings(name: &str) -> Vec<String> {
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    let mut out = vec![name.to_string()];
    let exported: &[&str] = match ext.to_ascii_lowercase().as_str() {
        "fbx" => &["model", "animation"],
        "tga" | "png" | "jpg" | "bmp" => &["dds", "d3d9_texture"],
        _ => &[],
    };
    out.extend(exported.iter().map(|e| format!("{stem}.{e}")));
    let lower: Vec<String> = out.iter().map(|s| s.to_ascii_lowercase()).collect();
    for l in lower {
        if !out.contains(&l) {
            out.push(l);
        }
    }
    out
}

/// Names for the entries whose hashes (by `hash`, the archive's) `by_hash`
/// maps to a row, from the scripts `scripts` yields in table order.
pub fn recover(
    by_hash: &BTreeMap<u32, usize>,
    hash: fn(&[u8]) -> u32,
    scripts: impl Iterator<Item = Vec<u8>>,
) -> BTreeMap<usize, String> {
    let mut names = BTreeMap::new();
    for script in scripts {
        for candidate in candidates(&script) {
            for spelling in spellings(&candidate) {
                if let Some(&row) = by_hash.get(&hash(spelling.as_bytes())) {
                    names.entry(row).or_insert(spelling);
                }
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_told_from_binaries() {
        assert!(looks_like_script(b"defineObject{\n\tname = \"x\",\n"));
        assert!(looks_like_script(b"\xef\xbb\xbf-- a comment"));
        assert!(looks_like_script(b"\x1bLuaQ\x00\x01\x04"));
        assert!(!looks_like_script(b"MDL1\x02\x00\x00\x00"));
        assert!(!looks_like_script(b"DDS \x7c\x00\x00\x00"));
        assert!(!looks_like_script(b""));
    }

    #[test]
    fn candidates_are_path_like_runs() {
        let text = br#"model = "mod_assets/models/axe.fbx", -- see docs\manual.txt
            meshName = "axe_mesh", sound = "swing", map = 'a/b/c_dif.tga' x.lua"#;
        assert_eq!(
            candidates(text),
            [
                "mod_assets/models/axe.fbx",
                "docs/manual.txt",
                "a/b/c_dif.tga"
            ]
        );
    }

    #[test]
    fn exported_spellings() {
        assert_eq!(
            spellings("Mod/X.fbx"),
            [
                "Mod/X.fbx",
                "Mod/X.model",
                "Mod/X.animation",
                "mod/x.fbx",
                "mod/x.model",
                "mod/x.animation"
            ]
        );
        assert_eq!(
            spellings("a/b.tga")[1..3],
            ["a/b.dds".to_string(), "a/b.d3d9_texture".to_string()]
        );
        assert_eq!(spellings("a/b.lua"), ["a/b.lua"]);
    }

    #[test]
    fn names_come_from_bytecode_constants_first_spelling_first() {
        use super::super::grimrock_dat::fnv1a;
        let by_hash: BTreeMap<u32, usize> = [
            (fnv1a(b"mod_assets/models/axe.model"), 3),
            (fnv1a(b"mod_assets/textures/axe_dif.dds"), 5),
            (fnv1a(b"mod_assets/unnamed.model"), 7),
        ]
        .into();
        // Lua 5.1 bytecode keeps a string constant as a length, the bytes
        // and a NUL.
        let bytecode =
            b"\x1bLuaQ\x00\x01\x04\x1e\x00\x00\x00Mod_Assets/Models/Axe.fbx\x00".to_vec();
        let text = b"diffuseMap = \"mod_assets/textures/axe_dif.tga\"".to_vec();
        let names = recover(&by_hash, fnv1a, [bytecode, text].into_iter());
        assert_eq!(
            names,
            BTreeMap::from([
                (3, "mod_assets/models/axe.model".to_string()),
                (5, "mod_assets/textures/axe_dif.dds".to_string()),
            ])
        );
    }
}
