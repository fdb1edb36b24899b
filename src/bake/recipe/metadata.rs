//! `metadata:` — which engines' descriptions of the sheet a job writes,
//! and the file each is written to beside the sheet.

use std::path::{Path, PathBuf};

/// A sheet description an engine loads as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MetaFormat {
    /// TexturePacker's JSON hash (Phaser `load.atlas`, PixiJS, most
    /// engines): `output.meta`, by default the sheet's name with `.json`.
    TexturePackerHash,
    /// TexturePacker's JSON array; over several pages Phaser 3's multi-atlas
    /// shape (`load.multiatlas`): `<sheet>.array.json`.
    TexturePackerArray,
    /// Aseprite's JSON, frames keyed by their index as Phaser's
    /// `anims.createFromAseprite` looks them up: `<sheet>.aseprite.json`.
    Aseprite,
    /// PixiJS's spritesheet JSON with per-frame `anchor` and
    /// `animations`: `<sheet>.pixi.json`.
    Pixi,
    /// A Godot 4 `SpriteFrames` resource: `<sheet>.tres`.
    Godot,
}

impl MetaFormat {
    /// Every format, in the order the reference lists them.
    pub const ALL: [MetaFormat; 5] = [
        MetaFormat::TexturePackerHash,
        MetaFormat::TexturePackerArray,
        MetaFormat::Aseprite,
        MetaFormat::Pixi,
        MetaFormat::Godot,
    ];

    /// The names a recipe may write, for messages.
    pub const NAMES: &'static str = kiln_recipe_yaml::values::META_FORMAT_NAMES;

    /// The format's name as a recipe writes it.
    pub fn name(self) -> &'static str {
        match self {
            MetaFormat::TexturePackerHash => "texturepacker-hash",
            MetaFormat::TexturePackerArray => "texturepacker-array",
            MetaFormat::Aseprite => "aseprite",
            MetaFormat::Pixi => "pixi",
            MetaFormat::Godot => "godot",
        }
    }

    /// The format a recipe names `name`.
    pub fn from_name(name: &str) -> Option<MetaFormat> {
        MetaFormat::ALL.into_iter().find(|m| m.name() == name)
    }

    pub(super) fn unknown(name: &str) -> String {
        format!(
            "unknown metadata format `{name}`, expected one of {}",
            MetaFormat::NAMES
        )
    }

    /// What follows the sheet's stem in the default file name.
    pub fn suffix(self) -> &'static str {
        match self {
            MetaFormat::TexturePackerHash => ".json",
            MetaFormat::TexturePackerArray => ".array.json",
            MetaFormat::Aseprite => ".aseprite.json",
            MetaFormat::Pixi => ".pixi.json",
            MetaFormat::Godot => ".tres",
        }
    }

    /// Whether a sheet of several pages gets one file of this format per
    /// page (`name-0…`), as each describes one image; the others describe
    /// every page in one file.
    pub fn per_page(self) -> bool {
        matches!(
            self,
            MetaFormat::TexturePackerHash | MetaFormat::Aseprite | MetaFormat::Pixi
        )
    }

    /// The default file of this format for `sheet`: beside it, its stem
    /// plus [`MetaFormat::suffix`].
    pub fn default_path(self, sheet: &Path) -> PathBuf {
        let stem = sheet
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        sheet.with_file_name(format!("{stem}{}", self.suffix()))
    }
}

/// The file of page `page` of a sheet (or of its metadata) split over
/// several pages: `-<page>` before `suffix` when the name ends with it,
/// else before its extension, so `warrior.png` → `warrior-1.png` and
/// `warrior.pixi.json` (suffix `.pixi.json`) → `warrior-1.pixi.json`
/// (TexturePacker's multipack names).
pub fn page_path(path: &Path, page: usize, suffix: &str) -> PathBuf {
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let cut = if !suffix.is_empty() && name.len() > suffix.len() && name.ends_with(suffix) {
        Some(name.len() - suffix.len())
    } else {
        name.rfind('.').filter(|&i| i > 0)
    };
    let paged = match cut {
        Some(i) => format!("{}-{page}{}", &name[..i], &name[i..]),
        None => format!("{name}-{page}"),
    };
    path.with_file_name(paged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_numbered_before_the_suffix() {
        let p = |s: &str, suffix: &str| page_path(Path::new(s), 2, suffix);
        assert_eq!(p("out/w.png", ""), PathBuf::from("out/w-2.png"));
        assert_eq!(
            p("out/w.pixi.json", ".pixi.json"),
            PathBuf::from("out/w-2.pixi.json")
        );
        assert_eq!(p("out/a.b.json", ".json"), PathBuf::from("out/a.b-2.json"));
        assert_eq!(p("out/a.b.png", ""), PathBuf::from("out/a.b-2.png"));
        assert_eq!(p("out/sheet", ""), PathBuf::from("out/sheet-2"));
        assert_eq!(
            MetaFormat::Aseprite.default_path(Path::new("out/a.b.png")),
            PathBuf::from("out/a.b.aseprite.json")
        );
    }
}
