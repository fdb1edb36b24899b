//! glTF 2.0 models (`.gltf` text with external or `data:` buffers, and
//! binary `.glb`), read by kiln's own reader over `serde_json`: the
//! document's types (`doc.rs`), the two containers and where buffers and
//! images live (`container.rs`), accessors (`accessor.rs`), images
//! and their samplers (`images.rs`), materials (`material.rs`), the node
//! tree, meshes, skins and morph targets (`lower.rs`), animations (`anim.rs`) and `kiln inspect`'s view
//! (`summary.rs`).

mod accessor;
mod anim;
mod container;
mod doc;
mod images;
mod lower;
mod material;
mod summary;

pub(crate) use container::read_relative;

use crate::error::{Error, Result};
use crate::formats::seam::{Context, FileKind, Format, Opened, Summary};
use crate::scene::Model;
use crate::source::Layout;
use std::path::Path;

/// The extensions kiln implements; a file that requires any other is
/// refused.
pub(crate) const SUPPORTED: &[&str] = &[
    "KHR_materials_unlit",
    "KHR_materials_emissive_strength",
    "KHR_texture_transform",
    "KHR_mesh_quantization",
];

/// glTF 2.0, told by the `.glb` magic or by JSON text holding an `asset`.
pub(crate) struct GltfFormat;

impl Format for GltfFormat {
    fn sniff(&self, head: &[u8], _: &Path) -> bool {
        container::sniff(head)
    }
    fn role(&self) -> FileKind {
        FileKind::Model
    }
    fn layout(&self) -> Layout {
        Layout::FOLDER
    }
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>> {
        Ok(Box::new(OpenGltf(container::parse(bytes, file)?)))
    }
}

struct OpenGltf(container::Container);

impl OpenGltf {
    /// Every buffer loaded: the `.glb`'s chunk, a `data:` URI, or a file
    /// beside the glTF (through the data sources).
    fn buffers(&self, cx: &Context) -> Result<Vec<Vec<u8>>> {
        let c = &self.0;
        let mut out = Vec::with_capacity(c.doc.buffers.len());
        for (i, b) in c.doc.buffers.iter().enumerate() {
            let field = format!("buffers[{i}]");
            let bytes = match &b.uri {
                None if i == 0 => c.bin.clone().ok_or_else(|| {
                    Error::parse(cx.file, &field, c.json_at, "no uri and no GLB binary chunk")
                })?,
                None => {
                    return Err(Error::parse(
                        cx.file,
                        &field,
                        c.json_at,
                        "no uri (only the first buffer may be the GLB chunk)",
                    ))
                }
                Some(u) => match container::uri(u)
                    .map_err(|e| Error::parse(cx.file, format!("{field}.uri"), c.json_at, e))?
                {
                    container::Uri::Data(d) => d,
                    container::Uri::File(p) => container::read_relative(cx.lookup, &cx.tree, &p)
                        .map(|(b, _)| b)
                        .ok_or_else(|| {
                            Error::parse(
                                cx.file,
                                format!("{field}.uri"),
                                c.json_at,
                                format!("{p} not found beside the glTF file"),
                            )
                        })?,
                },
            };
            if (bytes.len() as u64) < b.byte_length {
                return Err(Error::parse(
                    cx.file,
                    format!("{field}.byteLength"),
                    c.json_at,
                    format!("says {} bytes but {} are there", b.byte_length, bytes.len()),
                ));
            }
            out.push(bytes);
        }
        Ok(out)
    }
}

impl Opened for OpenGltf {
    fn takes(&self) -> Vec<String> {
        let doc = &self.0.doc;
        doc.animations
            .iter()
            .map(|a| a.name.clone().unwrap_or_default())
            .collect()
    }

    fn summary(&self, cx: &Context) -> Result<Summary> {
        let buffers = self.buffers(cx)?;
        let data = accessor::Data {
            doc: &self.0.doc,
            buffers,
            file: cx.file,
        };
        Ok(summary::summary(&data, &self.0.json, cx.detail))
    }

    fn model(&self, cx: &Context) -> Result<Model> {
        let buffers = self.buffers(cx)?;
        let data = accessor::Data {
            doc: &self.0.doc,
            buffers,
            file: cx.file,
        };
        let inputs = lower::Inputs {
            lookup: cx.lookup,
            tree: &cx.tree,
            file: cx.file,
            scene: cx.options.scene.as_deref(),
        };
        let mut warnings = Vec::new();
        for e in &self.0.doc.extensions_used {
            if !SUPPORTED.contains(&e.as_str()) && !self.0.doc.extensions_required.contains(e) {
                warnings.push(format!(
                    "uses the optional extension {e}, which kiln ignores"
                ));
            }
        }
        lower::lower(&data, &inputs, warnings)
    }
}
