//! The RSM/RSM2 row of the format table.

use super::{lower, parse, summary, Rsm};
use crate::error::Result;
use crate::formats::seam::{Context, Detail, FileKind, Format, Opened, Summary};
use crate::formats::{json, ragnarok};
use crate::scene::Model;
use crate::source::Layout;
use std::path::Path;

/// Ragnarok RSM 1.x and RSM2 models.
pub(crate) struct RsmFormat;

impl Format for RsmFormat {
    fn sniff(&self, head: &[u8], _: &Path) -> bool {
        head.starts_with(b"GRSM")
    }
    fn role(&self) -> FileKind {
        FileKind::Model
    }
    fn layout(&self) -> Layout {
        Layout::RAGNAROK_MODEL
    }
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>> {
        Ok(Box::new(OpenRsm(parse(bytes, file)?)))
    }
}

struct OpenRsm(Rsm);

impl Opened for OpenRsm {
    fn summary(&self, cx: &Context) -> Result<Summary> {
        let rsm = &self.0;
        let summary = summary(rsm);
        let details = match cx.detail {
            Detail::Full => json::to_value(rsm),
            Detail::Summary => json::to_value(&summary),
        };
        Ok(Summary {
            format: if rsm.is_rsm2() { "RSM2" } else { "RSM" }.into(),
            version: format!("{}.{}", rsm.major, rsm.minor),
            details,
            // Index-range findings; the parser's own warnings are already
            // in the model's.
            warnings: summary.warnings.clone(),
            ..Summary::default()
        })
    }

    fn model(&self, cx: &Context) -> Result<Model> {
        Ok(lower::lower(&self.0, cx.file, &mut |raw| {
            ragnarok::model_texture(cx.lookup, &cx.tree, cx.file, raw)
        }))
    }
}
