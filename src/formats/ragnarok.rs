//! How the Ragnarok client lays its data out, and the map-file rows of the
//! format table (RSW scenes, GND grounds).
//!
//! Files live under `data\<kind>\<name>` (`texture`, `model`, or the data
//! root for a map's ground), named with backslashes, in any case, in CP949.
//! A folder given as a data source may be a client folder (holding
//! `data/`), a `data` folder, or for textures the `texture` folder itself;
//! each form is tried.

use super::seam::{Context, Detail, FileKind, Format, Opened, Summary};
use super::{gnd, json, rsw};
use crate::error::Result;
use crate::formats::texture;
use crate::scene::TextureSlot;
use crate::source::{Found, GamePath, Layout, Lookup, SourceRef, Tree};
use crate::text::decode_cp949;
use crate::texture::Texture;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A model texture ready for its slot: decoded, or the checker and why.
#[derive(Debug, Clone)]
pub struct LoadedTexture {
    /// The name as the model gives it, decoded from CP949.
    pub name: String,
    /// Where the file was found, if anywhere (also set when it failed to decode).
    pub path: Option<PathBuf>,
    /// The decoded image, or the checker.
    pub image: Arc<Texture>,
    /// Why the checker is shown, worded for the user.
    pub warning: Option<String>,
}

impl LoadedTexture {
    /// The slot a model keeps.
    pub fn into_slot(self) -> TextureSlot {
        TextureSlot {
            name: self.name,
            path: self.path,
            sampler: crate::scene::Sampler::default(),
            image: self.image,
        }
    }
}

/// Where a model's texture named `raw` may be, each place once: each of
/// the caller's sources as `<name>`, `texture/<name>` and
/// `data/texture/<name>`; then the model's own tree: `data/texture/<name>`
/// at its root, and the model's own folder. Two that name one place (a
/// model inside one of the sources has its tree's `data/texture` among the
/// sources' own) are looked in, and named in a warning, once, where the
/// first comes.
fn texture_candidates(lookup: &Lookup, tree: &Tree, raw: &[u8]) -> Vec<(SourceRef, GamePath)> {
    let name = GamePath::new(raw);
    let mut out: Vec<(SourceRef, GamePath)> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut add = |source: &SourceRef, path: GamePath| {
        let at = place(source, &path);
        if !seen.contains(&at) {
            seen.push(at);
            out.push((source.clone(), path));
        }
    };
    for s in lookup.sources() {
        add(s, name.clone());
        add(s, GamePath::new("texture").join(&name));
        add(s, GamePath::new("data/texture").join(&name));
    }
    let root = tree.root(Layout::RAGNAROK_MODEL);
    add(
        &tree.source,
        root.join(&GamePath::new("data/texture")).join(&name),
    );
    add(&tree.source, tree.folder().join(&name));
    out
}

/// Every place a texture is looked up, for messages.
fn texture_places(lookup: &Lookup, tree: &Tree) -> Vec<String> {
    texture_candidates(lookup, tree, b"")
        .into_iter()
        .map(|(s, p)| place(&s, &p))
        .collect()
}

fn place(source: &SourceRef, path: &GamePath) -> String {
    let base = source.describe();
    if path.is_empty() {
        base
    } else {
        Path::new(&base)
            .join(path.to_string())
            .display()
            .to_string()
    }
}

/// Resolves and decodes a model's texture; a missing or unreadable file
/// gives the checker and a warning instead of an error, so the model still
/// renders.
pub fn model_texture(lookup: &Lookup, tree: &Tree, model: &Path, raw: &[u8]) -> LoadedTexture {
    let name = decode_cp949(raw);
    let found = if GamePath::new(raw).is_empty() {
        None
    } else {
        lookup.first(texture_candidates(lookup, tree, raw))
    };
    let Some(found) = found else {
        return LoadedTexture {
            warning: Some(format!(
                "texture \"{name}\" of {} not found (looked in {}); drawing a checker",
                model.display(),
                texture_places(lookup, tree).join(", ")
            )),
            name,
            path: None,
            image: Arc::new(Texture::checker()),
        };
    };
    let (location, texture) = texture::read_found(lookup, &found);
    match texture {
        Ok(t) => LoadedTexture {
            name,
            path: Some(location),
            image: Arc::new(t),
            warning: None,
        },
        Err(e) => LoadedTexture {
            warning: Some(format!(
                "texture \"{name}\" could not be read ({e}); drawing a checker"
            )),
            name,
            path: Some(location),
            image: Arc::new(Texture::checker()),
        },
    }
}

/// Finds a map's file of `kind` ("model", "texture", or "" for the data
/// root, where grounds live) named `raw`: each of the caller's sources as
/// `<kind>/<name>` and `data/<kind>/<name>`; then beside the map (grounds);
/// then `data/<kind>/<name>` at the root of the map's tree.
pub fn find_map_file(lookup: &Lookup, map: &Tree, kind: &str, raw: &[u8]) -> Option<Found> {
    let name = GamePath::new(raw);
    if name.is_empty() {
        return None;
    }
    let kind_path = GamePath::new(kind);
    let in_data = GamePath::new("data").join(&kind_path);
    let mut candidates = Vec::new();
    for s in lookup.sources() {
        candidates.push((s.clone(), kind_path.join(&name)));
        candidates.push((s.clone(), in_data.join(&name)));
    }
    if kind.is_empty() {
        candidates.push((map.source.clone(), map.folder().join(&name)));
    }
    let root = map.root(Layout::RAGNAROK_MAP);
    candidates.push((map.source.clone(), root.join(&in_data).join(&name)));
    lookup.first(candidates)
}

/// The places [`find_map_file`] searches for a map's ground, for messages:
/// the caller's sources, the map's own folder, the `data` folder of its
/// tree.
pub fn ground_places(lookup: &Lookup, map: &Tree) -> String {
    let mut all: Vec<String> = lookup.sources().iter().map(|s| s.describe()).collect();
    let data = map.root(Layout::RAGNAROK_MAP).join(&GamePath::new("data"));
    for p in [map.folder(), data] {
        let p = place(&map.source, &p);
        if !all.contains(&p) {
            all.push(p);
        }
    }
    all.join(", ")
}

/// RSW map scenes.
pub(crate) struct RswFormat;

impl Format for RswFormat {
    fn sniff(&self, head: &[u8], _: &Path) -> bool {
        head.starts_with(b"GRSW")
    }
    fn role(&self) -> FileKind {
        FileKind::Map
    }
    fn layout(&self) -> Layout {
        Layout::RAGNAROK_MAP
    }
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>> {
        Ok(Box::new(OpenRsw(rsw::parse(bytes, file)?)))
    }
}

struct OpenRsw(rsw::Rsw);

impl Opened for OpenRsw {
    fn summary(&self, cx: &Context) -> Result<Summary> {
        let parsed = &self.0;
        let summary = rsw::summary(parsed);
        let mut notes = vec![
            match &summary.gat {
                Some(gat) => format!(
                    "files: ini '{}', gnd '{}', gat '{}', src '{}'",
                    summary.ini, summary.gnd, gat, summary.src
                ),
                None => format!(
                    "files: ini '{}', gnd '{}', src '{}' (no gat name)",
                    summary.ini, summary.gnd, summary.src
                ),
            },
            format!(
                "objects: {} models, {} lights, {} sounds, {} effects; quad tree: {} nodes",
                summary.models,
                summary.lights,
                summary.sounds,
                summary.effects,
                summary.quad_tree_nodes
            ),
        ];
        // The same lookup as rendering: the caller's sources first, then
        // the map's own tree.
        let mut found_cache: Vec<(String, bool)> = Vec::new();
        for (m, inst) in summary.instances.iter().zip(parsed.models()) {
            let file = &m.file.text;
            let found = match found_cache.iter().find(|(f, _)| f == file) {
                Some((_, f)) => *f,
                None => {
                    let f =
                        find_map_file(cx.lookup, &cx.tree, "model", inst.file.bytes()).is_some();
                    found_cache.push((file.clone(), f));
                    f
                }
            };
            notes.push(format!(
                "  model '{}' at {:?} rot {:?} scale {:?} anim {} x{}{}",
                file,
                m.position,
                m.rotation,
                m.scale,
                m.anim_type,
                m.anim_speed,
                if found { "" } else { "  (file not found)" }
            ));
        }
        let details = match cx.detail {
            Detail::Full => rsw::details(parsed),
            Detail::Summary => json::to_value(&summary),
        };
        Ok(Summary {
            format: "Ragnarok map scene (RSW)".into(),
            version: summary.version.clone(),
            warnings: summary.warnings.clone(),
            notes,
            details,
            ..Summary::default()
        })
    }
}

/// GND map grounds.
pub(crate) struct GndFormat;

impl Format for GndFormat {
    fn sniff(&self, head: &[u8], _: &Path) -> bool {
        head.starts_with(b"GRGN")
    }
    fn role(&self) -> FileKind {
        FileKind::Ground
    }
    fn layout(&self) -> Layout {
        Layout::RAGNAROK_MAP
    }
    fn open(&self, bytes: &[u8], file: &Path) -> Result<Box<dyn Opened>> {
        Ok(Box::new(OpenGnd(gnd::parse(bytes, file)?)))
    }
}

struct OpenGnd(gnd::Gnd);

impl Opened for OpenGnd {
    fn summary(&self, cx: &Context) -> Result<Summary> {
        let summary = gnd::summary(&self.0);
        let notes = vec![
            format!(
                "size: {}×{} tiles, scale {}",
                summary.width, summary.height, summary.scale
            ),
            format!(
                "textures ({}): {}",
                summary.textures.len(),
                summary.textures.join(", ")
            ),
            format!(
                "lightmaps: {}, surfaces: {}, cubes: {}, water planes: {}",
                summary.lightmaps, summary.surfaces, summary.cubes, summary.water_planes
            ),
        ];
        let details = match cx.detail {
            Detail::Full => json::to_value(&self.0),
            Detail::Summary => json::to_value(&summary),
        };
        Ok(Summary {
            format: "Ragnarok map ground (GND)".into(),
            version: summary.version.clone(),
            warnings: summary.warnings.clone(),
            notes,
            details,
            ..Summary::default()
        })
    }
}
