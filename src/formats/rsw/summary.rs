//! The short description of an RSW for `kiln inspect --json --summary` and
//! the text report: header, counts and the model instances.

use super::*;

/// A plain, serialisable description of an RSW for `kiln inspect`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RswSummary {
    /// "1.9", "2.6".
    pub version: String,
    /// Build number (2.2+).
    pub build: Option<u32>,
    /// The `.ini` file name, decoded.
    pub ini: String,
    /// The `.gnd` file name, decoded.
    pub gnd: String,
    /// The `.gat` file name, decoded (absent in files read without one).
    pub gat: Option<String>,
    /// The source file name, decoded.
    pub src: String,
    /// The water block (1.3 up to 2.5).
    pub water: Option<Water>,
    /// The sun (1.5+).
    pub light: Option<Light>,
    /// Top, bottom, left, right (1.6+).
    pub bounds: Option<[i32; 4]>,
    /// The reading the file was parsed with.
    pub layout: Layout,
    /// Model instances.
    pub models: usize,
    /// Point lights.
    pub lights: usize,
    /// Sound sources.
    pub sounds: usize,
    /// Effect emitters.
    pub effects: usize,
    /// Quad-tree nodes (1365 when present, else 0).
    pub quad_tree_nodes: usize,
    /// Every model instance, in file order.
    pub instances: Vec<ModelInstance>,
    /// The parser's warnings.
    pub warnings: Vec<String>,
}

/// Summarises `rsw`: header names, water, sun, object counts and instances.
pub fn summary(rsw: &Rsw) -> RswSummary {
    let [models, lights, sounds, effects] = rsw.counts();
    RswSummary {
        version: rsw.version_string(),
        build: rsw.build,
        ini: rsw.ini.text.clone(),
        gnd: rsw.gnd.text.clone(),
        gat: rsw.gat.as_ref().map(|g| g.text.clone()),
        src: rsw.src.text.clone(),
        water: rsw.water.clone(),
        light: rsw.light.clone(),
        bounds: rsw.bounds,
        layout: rsw.layout,
        models,
        lights,
        sounds,
        effects,
        quad_tree_nodes: rsw.quad_tree.as_ref().map_or(0, |q| q.len() / 48),
        instances: rsw.models().cloned().collect(),
        warnings: rsw.warnings.clone(),
    }
}
