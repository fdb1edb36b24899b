//! Files of these games that kiln recognises but does not draw: the ones
//! that sit beside models in a client's data, a mod or an archive. A user
//! who hands one to `kiln render` is told what it is and where kiln reads
//! what it holds, instead of a line of hex.

use std::path::Path;

/// One kind of file kiln knows but does not draw.
struct Known {
    /// First bytes that tell it (any one of them), at the file's start.
    magic: &'static [&'static [u8]],
    /// For files without a reliable signature: told by extension (lower
    /// case, no dot) instead, whatever their bytes.
    by_name: &'static [&'static str],
    /// What it is and what to do instead.
    says: &'static str,
}

/// In matching order: signatures first, then names.
static KNOWN: &[Known] = &[
    Known {
        magic: &[b"GRAT"],
        by_name: &[],
        says: "a Ragnarok GAT (walkability/altitude) file: kiln reads the map through its .rsw",
    },
    Known {
        magic: &[b"STRM"],
        by_name: &[],
        says: "a Ragnarok STR (effect animation) file: kiln does not draw effects",
    },
    Known {
        magic: &[b"Master of Magic"],
        by_name: &[],
        says: "a Ragnarok GRF archive: give it with --data (a recipe's `data:`) and name a model inside it",
    },
    Known {
        magic: &[b"GRAR", b"GRA2"],
        by_name: &[],
        says: "a Grimrock .dat archive: give it with --data (a recipe's `data:`) and name a model inside it",
    },
    Known {
        magic: &[b"\0sreV"],
        by_name: &["pbo"],
        says: "an Arma PBO archive: give it with --data (a recipe's `data:`) and name a model inside it",
    },
    Known {
        magic: &[b"OPRW", b"8WVR", b"4WVR"],
        by_name: &["wrp"],
        says: "an Arma WRP (terrain) file: kiln does not draw terrains",
    },
    Known {
        magic: &[b"\0raP"],
        by_name: &[],
        says: "a binarised (rapified) Arma config: kiln reads model.cfg and config.cpp as text; derapify it first",
    },
    Known {
        magic: &[],
        by_name: &["rvmat"],
        says: "an Arma RVMAT (material) file: kiln takes a model's textures from its faces (or `materials:`)",
    },
    Known {
        magic: &[],
        by_name: &["wav"],
        says: "a WAV sound file: kiln draws models, maps and sprites, not sound",
    },
    Known {
        magic: &[b"ID3", b"OggS"],
        by_name: &["mp3", "ogg"],
        says: "a compressed sound file: kiln draws models, maps and sprites, not sound",
    },
    Known {
        magic: &[],
        by_name: &["imf"],
        says: "a Ragnarok IMF (sprite layer order) file: kiln draws a sprite from its .act and .spr",
    },
    Known {
        magic: &[],
        by_name: &["pal"],
        says: "a Ragnarok palette (.pal): kiln draws a sprite with its .spr's own palette",
    },
];

/// What `data` (named `path`) is, when it is a file kiln knows but does not draw.
pub(crate) fn known_not_drawn(data: &[u8], path: &Path) -> Option<&'static str> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    KNOWN
        .iter()
        .find(|k| k.magic.iter().any(|m| data.starts_with(m)))
        .or_else(|| KNOWN.iter().find(|k| k.by_name.contains(&ext.as_str())))
        .map(|k| k.says)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_files_are_told_by_signature_then_by_name() {
        let gat = known_not_drawn(b"GRAT\x01\x02\0\0", Path::new("prontera.gat")).unwrap();
        assert_eq!(
            gat,
            "a Ragnarok GAT (walkability/altitude) file: kiln reads the map through its .rsw"
        );
        // The signature wins over the name.
        assert_eq!(known_not_drawn(b"GRAT", Path::new("x.wav")), Some(gat));
        assert!(known_not_drawn(b"STRM\0", Path::new("a.str"))
            .unwrap()
            .contains("STR (effect"));
        assert!(known_not_drawn(b"RIFF\0\0\0\0WAVE", Path::new("hit.wav"))
            .unwrap()
            .contains("sound"));
        assert!(known_not_drawn(b"\x01\x02", Path::new("Body.IMF"))
            .unwrap()
            .contains("IMF"));
        assert!(known_not_drawn(&[0u8; 1024], Path::new("hair.pal"))
            .unwrap()
            .contains("palette"));
        assert!(known_not_drawn(b"class Stage1 {};", Path::new("m.rvmat"))
            .unwrap()
            .contains("RVMAT"));
        assert!(known_not_drawn(b"\0raP\0\0", Path::new("config.bin"))
            .unwrap()
            .contains("rapified"));
        assert!(known_not_drawn(b"8WVR", Path::new("map.wrp"))
            .unwrap()
            .contains("terrain"));
        assert_eq!(known_not_drawn(b"\x01\x02", Path::new("notes.txt")), None);
    }
}
