//! The one table of formats: every file kiln reads is recognised here by
//! its first bytes, parsed once, then asked for what the caller needs — a
//! model, an animation, or a summary for `kiln inspect`. Loading, inspecting
//! and exporting all go through [`open`]; a new format is one folder under
//! `formats/` and one row in [`FORMATS`].

use super::seam::{Context, Format, LoadOptions, Opened};
use crate::error::{Error, Result};
use crate::source::{Lookup, Tree};
use crate::spec::{AnimationSettings, FileRef};
use std::path::{Path, PathBuf};

/// Every format kiln reads, in sniffing order.
pub(crate) static FORMATS: &[&dyn Format] = &[
    &super::rsm::RsmFormat,
    &super::grimrock::ModelFormat,
    &super::grimrock::AnimationFormat,
    &super::ragnarok::RswFormat,
    &super::ragnarok::GndFormat,
    &super::arma::P3dFormat,
    &super::arma::RtmFormat,
    &super::arma::ConfigFormat,
    &super::sprite::SprFormat,
    &super::sprite::ActFormat,
    &super::gltf::GltfFormat,
    &super::obj::ObjFormat,
];

/// The format of `data` (the whole file or at least its first bytes).
pub(crate) fn sniff(data: &[u8], path: &Path) -> Result<&'static dyn Format> {
    if let Some(f) = FORMATS.iter().find(|f| f.sniff(data, path)) {
        return Ok(*f);
    }
    if let Some(what) = super::known::known_not_drawn(data, path) {
        return Err(Error::parse(path, "magic", 0, what));
    }
    let head: String = data.iter().take(8).map(|b| format!("{b:02x}")).collect();
    Err(Error::parse(path, "magic", 0, format!(
            "not a file kiln can read (first bytes {head}); expected GRSM/GRSW/GRGN (Ragnarok model/map/ground), \
             MDL1/ANIM (Grimrock model/animation), MLOD (Arma P3D), RTM_/BMTR (Arma animation), SP/AC (Ragnarok sprite), glTF (binary glTF), JSON with an \"asset\" (glTF text) or a .obj file"
        )))
}

/// A file read and parsed once, with its tree.
pub(crate) struct OpenFile {
    pub format: &'static dyn Format,
    pub parsed: Box<dyn Opened>,
    pub tree: Tree,
    /// How the file is named in messages.
    pub name: PathBuf,
}

/// Reads `file` (from disk, else from the caller's sources by the name as
/// written), recognises its format and parses it.
pub(crate) fn open(lookup: &Lookup, file: &FileRef) -> Result<OpenFile> {
    let (bytes, origin) = lookup.read_named(file)?;
    let name = origin.name();
    let format = sniff(&bytes, &name)?;
    let parsed = format.open(&bytes, &name)?;
    Ok(OpenFile {
        format,
        parsed,
        tree: origin.tree(format.layout()),
        name,
    })
}

impl OpenFile {
    /// The context the parsed file finishes loading in.
    pub fn context<'a>(
        &'a self,
        lookup: &'a Lookup,
        options: &'a LoadOptions,
        animation: &'a AnimationSettings,
    ) -> Context<'a> {
        Context {
            role: self.format.role(),
            lookup,
            tree: self.tree.clone(),
            file: &self.name,
            options,
            animation,
            companion: None,
            detail: super::seam::Detail::Full,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::seam::FileKind;
    use crate::source::{MemorySource, SourceRef};
    use std::sync::Arc;

    /// Every sample file, in memory as `samples:/…`.
    fn samples() -> Lookup {
        let mut m = MemorySource::new("samples");
        for f in crate::samples::all() {
            m.insert(f.path, f.bytes);
        }
        Lookup::new(vec![Arc::new(m) as SourceRef])
    }

    /// A sample named by its path in the source (no such file on disk).
    fn named(path: &str) -> FileRef {
        FileRef::relative_to(Path::new("no/such/folder"), path)
    }

    #[test]
    fn every_sample_is_told_by_its_first_bytes() {
        let lookup = samples();
        for (path, kind) in [
            ("data/model/kiln/windmill.rsm2", FileKind::Model),
            ("data/model/kiln/beacon.rsm", FileKind::Model),
            ("data/kiln_village.rsw", FileKind::Map),
            ("data/kiln_village.gnd", FileKind::Ground),
            (
                "grimrock/mod_assets/models/kiln_sign.model",
                FileKind::Model,
            ),
            (
                "grimrock/mod_assets/animations/kiln_tentacle_wave.animation",
                FileKind::Animation,
            ),
            ("arma/kiln_lever/kiln_lever.p3d", FileKind::Model),
            (
                "arma/kiln_lever/anim/kiln_lever_swing.rtm",
                FileKind::Animation,
            ),
            (
                "arma/kiln_lever/anim/kiln_lever_swing_bin.rtm",
                FileKind::Animation,
            ),
            ("arma/kiln_lever/model.cfg", FileKind::Config),
        ] {
            let file = open(&lookup, &named(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert_eq!(file.format.role(), kind, "{path}");
            // Read from the source, so named and rooted there.
            assert_eq!(file.name, PathBuf::from(format!("samples:/{path}")));
            assert_eq!(file.tree.file, crate::source::GamePath::new(path));
        }
        // The binarised P3D sniffs as a model (and its parser refuses it).
        assert_eq!(
            sniff(b"ODOL\x07\0\0\0", Path::new("x.p3d")).unwrap().role(),
            FileKind::Model
        );
    }

    #[test]
    fn unknown_bytes_are_a_parse_error_at_the_magic() {
        let e = match sniff(b"BM\x01\x02", Path::new("a/tex.bmp")) {
            Err(Error::Parse(p)) => p,
            other => panic!("{:?}", other.map(|f| f.role())),
        };
        assert_eq!(
            (e.file.as_path(), e.field.as_str(), e.offset),
            (Path::new("a/tex.bmp"), "magic", 0)
        );
        assert!(
            e.message.contains("(first bytes 424d0102)"),
            "{}",
            e.message
        );
        // Config text is told by its name, and only when it is text.
        let text = b"class CfgSkeletons {};";
        for name in ["model.cfg", "config.CPP", "x.hpp"] {
            assert_eq!(
                sniff(text, Path::new(name)).unwrap().role(),
                FileKind::Config,
                "{name}"
            );
        }
        assert!(sniff(text, Path::new("model.txt")).is_err());
        assert!(sniff(b"class \xff", Path::new("model.cfg")).is_err());
    }

    #[test]
    fn a_file_of_another_role_is_refused_as_a_model_saying_what_it_is() {
        let lookup = samples();
        for (path, says) in [
            ("data/kiln_village.rsw", "a Ragnarok map, not a model"),
            ("data/kiln_village.gnd", "a Ragnarok map's ground"),
            ("arma/kiln_lever/model.cfg", "a config file, not a model"),
            (
                "grimrock/mod_assets/animations/kiln_tentacle_wave.animation",
                "this is an animation, not a model",
            ),
        ] {
            let spec = crate::spec::ModelSpec::new(named(path));
            let e = crate::load::load_model(&spec, &lookup).unwrap_err();
            assert!(matches!(e, Error::Usage(_)), "{path}: {e}");
            assert!(
                e.to_string()
                    .starts_with(&format!("samples:/{path}: {says}")),
                "{path}: {e}"
            );
        }
        // And a model is not an animation.
        let beacon = crate::spec::ModelSpec::new(named("data/model/kiln/beacon.rsm"));
        let model = crate::load::load_model(&beacon, &lookup).unwrap();
        let e = crate::load::animate(
            &model,
            &named("data/model/kiln/windmill.rsm2"),
            &AnimationSettings::default(),
            &lookup,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "samples:/data/model/kiln/windmill.rsm2: not an animation file kiln can read"
        );
    }
}
