//! kiln's glTF sample: the Grimrock tentacle sample exported by kiln's own
//! glTF writer with two clips — its wave and its rest pose — so the
//! repository ships a skinned, multi-clip `.glb` that no other program
//! made, to bake as a game developer's own exported model.

use crate::source::{Lookup, MemorySource, SourceRef};
use crate::spec::{FileRef, ModelSpec};
use std::path::Path;
use std::sync::Arc;

/// Where the Grimrock sample files are read from (never disk).
fn named(path: &str) -> FileRef {
    FileRef::relative_to(Path::new("samples-in-memory"), path)
}

/// The tentacle as glTF binary: skin, texture, clips `wave` and `rest`.
pub fn tentacle_glb() -> Vec<u8> {
    let mut memory = MemorySource::new("samples");
    for f in super::grimrock_files() {
        memory.insert(f.path, f.bytes);
    }
    let lookup = Lookup::new(vec![Arc::new(memory) as SourceRef]);
    let spec = ModelSpec::new(named("grimrock/mod_assets/models/kiln_tentacle.model"));
    let model = crate::load::load_model(&spec, &lookup).expect("the tentacle sample loads");
    let clips = [
        crate::model::ExportClip {
            name: "wave".into(),
            animation: Some(named(
                "grimrock/mod_assets/animations/kiln_tentacle_wave.animation",
            )),
            embedded: None,
            clip: crate::scene::clip::Clip::Range {
                start: 0.0,
                end: None,
                step: crate::scene::clip::Step::Fps(30.0),
            },
        },
        crate::model::ExportClip {
            name: "rest".into(),
            animation: None,
            embedded: None,
            clip: crate::scene::clip::Clip::Still { time: 0.0 },
        },
    ];
    crate::model::animated_glb(&model, &spec, &clips, &lookup)
        .expect("the tentacle sample exports")
        .0
}
