//! The whole load path: a model read from a data source, lowered into the
//! scene model with the textures, Lua and `model.cfg` it finds, then posed
//! by an animation; and `inspect`, which summarises any file kiln reads.

use kiln::{DataSource, FileRef, InspectDetail, MemorySource, Model, ModelSpec, SkeletonSpec};
use std::path::PathBuf;
use std::sync::Arc;

/// Separates the files of one `load` input: the model, then the animation
/// (may be empty), then further files, each `game/path\0bytes`.
pub const SEPARATOR: &[u8] = b"\xffKILN-FILE\xff";

/// At most this many files per input.
const MAX_FILES: usize = 16;

/// The files of a `load` input (see [`SEPARATOR`]).
pub fn split_files(data: &[u8]) -> Vec<&[u8]> {
    let mut parts = Vec::new();
    let mut rest = data;
    while parts.len() + 1 < MAX_FILES {
        match rest.windows(SEPARATOR.len()).position(|w| w == SEPARATOR) {
            Some(at) => {
                parts.push(&rest[..at]);
                rest = &rest[at + SEPARATOR.len()..];
            }
            None => break,
        }
    }
    parts.push(rest);
    parts
}

/// Where each game keeps a model, so its textures, Lua and `model.cfg`
/// are looked for where the game would.
fn model_path(model: &[u8]) -> (&'static str, &'static str) {
    if model.starts_with(b"GRSM") {
        ("data/model/fuzz/model.rsm", "data/model/fuzz/none.bin")
    } else if model.starts_with(b"MDL1") {
        (
            "mod_assets/models/fuzz.model",
            "mod_assets/animations/fuzz.animation",
        )
    } else if model.starts_with(b"MLOD") {
        ("kiln_lever/kiln_lever.p3d", "kiln_lever/anim/fuzz.rtm")
    } else {
        ("data/fuzz.bin", "data/fuzz_anim.bin")
    }
}

pub fn load(data: &[u8]) {
    let files = split_files(data);
    let (model_at, anim_at) = model_path(files[0]);
    let mut source = MemorySource::new("fuzz");
    source.insert(model_at, files[0].to_vec());
    let anim = files.get(1).filter(|a| !a.is_empty());
    if let Some(a) = anim {
        source.insert(anim_at, a.to_vec());
    }
    insert_named(&mut source, files.iter().skip(2));
    let sources: Vec<Arc<dyn DataSource>> = vec![Arc::new(source)];
    // A disk path that is never there: the file comes from the source.
    let named = |written: &str| FileRef {
        disk: PathBuf::from("/nonexistent/kiln-fuzz").join(written),
        written: written.to_string(),
    };
    let mut spec = ModelSpec::new(named(model_at));
    if files[0].starts_with(b"MLOD") {
        // A binarised RTM is posed through the skeleton of a model.cfg
        // (the bundle's own, when it has one).
        spec.animation.skeleton = Some(SkeletonSpec::Config {
            config: named("kiln_lever/model.cfg"),
            class: "KilnLeverSkeleton".into(),
        });
    }
    let model = match Model::load_from(&spec, &sources) {
        Ok(m) => m,
        Err(e) => {
            if crate::show() {
                eprintln!("load: {e}");
            }
            return;
        }
    };
    let _ = (model.duration(), model.frame_rate());
    if crate::show() {
        eprintln!("load: {} warnings {:?}", model.name(), model.warnings());
    }
    if anim.is_some() {
        match model.animated(named(anim_at)) {
            Ok(posed) => {
                let _ = (posed.duration(), posed.frame_time(1));
                if crate::show() {
                    eprintln!("load: posed, {} s", posed.duration());
                }
            }
            Err(e) if crate::show() => eprintln!("load: animation: {e}"),
            Err(_) => {}
        }
    }
}

/// A map: the RSW, then its ground (stored under the name the RSW gives),
/// then any `game/path\0bytes` files (models, textures).
pub fn map(data: &[u8]) {
    let files = split_files(data);
    let mut source = MemorySource::new("fuzz");
    source.insert("data/fuzz.rsw", files[0].to_vec());
    // The ground's name is the RSW's to give: read it as the loader will.
    if let (Ok(rsw), Some(gnd)) = (
        kiln::internals::formats::rsw::parse(files[0], std::path::Path::new("fuzz.rsw")),
        files.get(1),
    ) {
        let mut path = b"data/".to_vec();
        path.extend_from_slice(rsw.gnd.bytes());
        source.insert(path, gnd.to_vec());
    }
    insert_named(&mut source, files.iter().skip(2));
    let sources: Vec<Arc<dyn DataSource>> = vec![Arc::new(source)];
    let rsw = FileRef {
        disk: PathBuf::from("/nonexistent/kiln-fuzz/data/fuzz.rsw"),
        written: "data/fuzz.rsw".into(),
    };
    match kiln::Map::load_from(rsw, &[], &sources) {
        Ok(m) => {
            let _ = (
                m.size_in_tiles(),
                m.version(),
                m.duration(),
                m.instance_count(),
            );
            if crate::show() {
                eprintln!(
                    "map: {:?} tiles, {} instances",
                    m.size_in_tiles(),
                    m.instance_count()
                );
            }
        }
        Err(e) if crate::show() => eprintln!("map: {e}"),
        Err(_) => {}
    }
}

fn insert_named<'a>(source: &mut MemorySource, files: impl Iterator<Item = &'a &'a [u8]>) {
    for f in files {
        if let Some(nul) = f.iter().position(|&b| b == 0) {
            source.insert(&f[..nul], f[nul + 1..].to_vec());
        }
    }
}

/// The extension `kiln inspect` would see on such a file.
fn extension(data: &[u8]) -> &'static str {
    const BY_MAGIC: &[(&[u8], &str)] = &[
        (b"GRSM", "rsm"),
        (b"GRSW", "rsw"),
        (b"GRGN", "gnd"),
        (b"MDL1", "model"),
        (b"ANIM", "animation"),
        (b"MLOD", "p3d"),
        (b"BMTR", "rtm"),
        (b"RTM_", "rtm"),
        (b"SP", "spr"),
        (b"AC", "act"),
        (b"Master of Magic", "grf"),
        (b"GRA", "dat"),
        (b"BM", "bmp"),
        (b"\x89PNG", "png"),
        (b"DDS ", "dds"),
    ];
    BY_MAGIC
        .iter()
        .find(|(m, _)| data.starts_with(m))
        .map_or("bin", |(_, e)| e)
}

pub fn inspect(data: &[u8]) {
    let file = crate::TempFile::new(extension(data), data);
    for detail in [InspectDetail::Full, InspectDetail::Summary] {
        let report = kiln::inspect_with(&FileRef::from(file.path()), &[], None, detail);
        if crate::show() {
            match report {
                Ok(r) => eprintln!("inspect: {}", r.format),
                Err(e) => eprintln!("inspect: {e}"),
            }
        }
    }
}
