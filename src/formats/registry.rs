//! The one table of formats: every file kiln reads is recognised here by
//! its first bytes, parsed once, then asked for what the caller needs — a
//! model, an animation, or a summary for `kiln inspect`. Loading, inspecting
//! and exporting all go through [`open`]; a new format is one folder under
//! `formats/` and one row in [`FORMATS`].

use super::seam::{Context, Format, LoadOptions, Opened};
use crate::error::{Error, ParseError, Result};
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
];

/// The format of `data` (the whole file or at least its first bytes).
pub(crate) fn sniff(data: &[u8], path: &Path) -> Result<&'static dyn Format> {
    if let Some(f) = FORMATS.iter().find(|f| f.sniff(data, path)) {
        return Ok(*f);
    }
    let head: String = data.iter().take(8).map(|b| format!("{b:02x}")).collect();
    Err(Error::Parse(ParseError {
        file: path.to_path_buf(),
        field: "magic".into(),
        offset: 0,
        message: format!(
            "not a file kiln can read (first bytes {head}); expected GRSM/GRSW/GRGN (Ragnarok model/map/ground), \
             MDL1/ANIM (Grimrock model/animation), MLOD (Arma P3D) or RTM_/BMTR (Arma animation)"
        ),
    }))
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
        }
    }
}
