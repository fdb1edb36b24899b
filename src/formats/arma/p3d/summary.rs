//! What `kiln inspect` tells of an MLOD model.

use super::*;
use serde::Serialize;

/// A plain, serialisable description of an MLOD model for `kiln inspect`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MlodSummary {
    /// Always "MLOD".
    pub format: &'static str,
    /// The container version (257).
    pub version: u32,
    /// Index of the most detailed visual LOD, if any.
    pub most_detailed_visual_lod: Option<usize>,
    /// One entry per LOD, in file order.
    pub lods: Vec<LodSummary>,
}

/// Counts and names of one LOD.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LodSummary {
    /// Index in the file's LOD list.
    pub index: usize,
    /// The LOD's resolution value.
    pub resolution: f32,
    /// Display name of the resolution ([`lod_name`]).
    pub name: String,
    /// Points.
    pub points: usize,
    /// Normals.
    pub normals: usize,
    /// Faces (triangles plus quads).
    pub faces: usize,
    /// Faces with 3 sides.
    pub triangles: usize,
    /// Faces with 4 sides.
    pub quads: usize,
    /// Distinct texture paths in order of first use.
    pub textures: Vec<String>,
    /// Distinct material paths in order of first use.
    pub materials: Vec<String>,
    /// Named-selection names, in file order.
    pub selections: Vec<String>,
    /// `#Animation#` tags.
    pub animation_count: usize,
    /// The phase of each `#Animation#` tag, in file order.
    pub animation_phases: Vec<f32>,
    /// Names of the uninterpreted tags, in file order.
    pub other_tags: Vec<String>,
}

/// Summarises `m`: per LOD its resolution name, counts, textures, materials
/// and tags.
pub fn summary(m: &Mlod) -> MlodSummary {
    MlodSummary {
        format: "MLOD",
        version: MLOD_VERSION,
        most_detailed_visual_lod: m.most_detailed_visual_lod(),
        lods: m
            .lods
            .iter()
            .enumerate()
            .map(|(index, l)| LodSummary {
                index,
                resolution: l.resolution,
                name: lod_name(l.resolution),
                points: l.points.len(),
                normals: l.normals.len(),
                faces: l.faces.len(),
                triangles: l.faces.iter().filter(|f| f.sides == 3).count(),
                quads: l.faces.iter().filter(|f| f.sides == 4).count(),
                textures: l.textures(),
                materials: l.materials(),
                selections: l.selections.iter().map(|s| s.name.clone()).collect(),
                animation_count: l.animations.len(),
                animation_phases: l.animations.iter().map(|a| a.phase).collect(),
                other_tags: l.other_tags.iter().map(|t| t.name.clone()).collect(),
            })
            .collect(),
    }
}
