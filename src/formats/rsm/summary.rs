//! A plain, serialisable description of a parsed model for `kiln inspect`.

use super::Rsm;
use serde::Serialize;

/// The header, per-node counts and warnings of one model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RsmSummary {
    /// "RSM" (1.x) or "RSM2" (2.x).
    pub format: &'static str,
    /// "1.4", "2.3".
    pub version: String,
    /// Milliseconds in 1.x, frames in 2.x.
    pub anim_len: i32,
    /// Frames per second (2.x only).
    pub fps: Option<f32>,
    /// 0 no lighting, 1 flat, 2 smooth.
    pub shade_type: i32,
    /// Header alpha byte (unused by the game client).
    pub alpha: u8,
    /// Model-level texture names (1.x, 2.2), decoded from CP949.
    pub textures: Vec<String>,
    /// Root node names (one in 1.x), decoded from CP949.
    pub root_names: Vec<String>,
    /// One entry per node, in file order.
    pub nodes: Vec<SummaryNode>,
    /// Model-level position keys (1.x before 1.6).
    pub model_pos_key_count: usize,
    /// Volume boxes after the nodes.
    pub volume_box_count: usize,
    /// Bytes after the last structure.
    pub trailing_bytes: usize,
    /// The parser's warnings followed by index-range findings.
    pub warnings: Vec<String>,
}

/// Names and counts of one node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SummaryNode {
    /// Node name, decoded from CP949.
    pub name: String,
    /// Parent name, decoded (empty for roots).
    pub parent: String,
    /// Per-node texture names (2.3), decoded.
    pub textures: Vec<String>,
    /// Indices into the model's `textures` (1.x, 2.2).
    pub texture_ids: Vec<i32>,
    /// Vertices.
    pub vertex_count: usize,
    /// Texture coordinates.
    pub texcoord_count: usize,
    /// Faces (triangles).
    pub face_count: usize,
    /// Rotation keys.
    pub rot_key_count: usize,
    /// Position keys.
    pub pos_key_count: usize,
    /// Scale keys.
    pub scale_key_count: usize,
    /// Texture-animation channels over all of the node's textures (2.3).
    pub tex_anim_channel_count: usize,
}

/// Summarises `rsm`; faces whose indices fall outside their node's vertex or
/// texcoord arrays (the renderer clamps them) are reported as warnings.
pub fn summary(rsm: &Rsm) -> RsmSummary {
    let mut warnings = rsm.warnings.clone();
    for (i, n) in rsm.nodes.iter().enumerate() {
        let nv = n.vertices.len();
        let nt = n.tex_coords.len();
        let bad_v = n
            .faces
            .iter()
            .filter(|f| f.vertex_ids.iter().any(|&v| v as usize >= nv))
            .count();
        let bad_t = n
            .faces
            .iter()
            .filter(|f| f.tex_coord_ids.iter().any(|&t| t as usize >= nt))
            .count();
        let node_textures = if rsm.at_least(2, 3) {
            n.texture_names.len()
        } else {
            n.texture_ids.len()
        };
        let bad_tex = n
            .faces
            .iter()
            .filter(|f| f.texture_id as usize >= node_textures)
            .count();
        let bad_ids = n
            .texture_ids
            .iter()
            .filter(|&&t| t < 0 || t as usize >= rsm.textures.len())
            .count();
        if bad_tex > 0 || bad_ids > 0 {
            warnings.push(format!(
                "node[{i}] \"{}\": {bad_tex} face(s) use a texture past its {node_textures}, \
                 {bad_ids} texture id(s) past the model's {}",
                n.name_str(),
                rsm.textures.len()
            ));
        }
        if bad_v > 0 || bad_t > 0 {
            warnings.push(format!(
                "node[{i}] \"{}\": clamped indices: {bad_v} face(s) index past its {nv} vertices, \
                 {bad_t} past its {nt} texcoords",
                n.name_str()
            ));
        }
    }
    RsmSummary {
        format: if rsm.is_rsm2() { "RSM2" } else { "RSM" },
        version: rsm.version_string(),
        anim_len: rsm.anim_len,
        fps: rsm.fps,
        shade_type: rsm.shade_type,
        alpha: rsm.alpha,
        textures: rsm.texture_names(),
        root_names: rsm
            .root_names
            .iter()
            .map(|n| crate::text::decode_cp949(n))
            .collect(),
        nodes: rsm
            .nodes
            .iter()
            .map(|n| SummaryNode {
                name: n.name_str(),
                parent: n.parent_str(),
                textures: n.texture_names_str(),
                texture_ids: n.texture_ids.clone(),
                vertex_count: n.vertices.len(),
                texcoord_count: n.tex_coords.len(),
                face_count: n.faces.len(),
                rot_key_count: n.rot_keys.len(),
                pos_key_count: n.pos_keys.len(),
                scale_key_count: n.scale_keys.len(),
                tex_anim_channel_count: n.tex_anim_channel_count(),
            })
            .collect(),
        model_pos_key_count: rsm.model_pos_keys.len(),
        volume_box_count: rsm.volume_boxes.len(),
        trailing_bytes: rsm.trailing_bytes,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::rsm::{Face, RsmNode, TexCoord};
    use glam::Vec3;

    #[test]
    fn reports_out_of_range_indices_and_counts() {
        let mut rsm = Rsm::new(2, 3);
        let mut n = RsmNode::new(b"root", b"");
        n.vertices = vec![Vec3::ZERO; 3];
        n.tex_coords = vec![
            TexCoord {
                color: 0,
                u: 0.0,
                v: 0.0
            };
            2
        ];
        let face = |v: [u16; 3], t: [u16; 3]| Face {
            vertex_ids: v,
            tex_coord_ids: t,
            texture_id: 0,
            padding: 0,
            two_side: 0,
            smooth_groups: vec![0],
        };
        n.faces = vec![
            face([0, 1, 2], [0, 1, 1]),
            face([0, 1, 3], [0, 1, 1]),
            face([0, 1, 2], [0, 2, 1]),
        ];
        n.texture_names = vec![b"a.bmp".to_vec()];
        rsm.nodes.push(n);
        rsm.root_names.push(b"root".to_vec());
        let s = summary(&rsm);
        assert_eq!(s.format, "RSM2");
        assert_eq!(s.version, "2.3");
        assert_eq!(s.nodes[0].face_count, 3);
        assert_eq!(s.nodes[0].textures, vec!["a.bmp".to_string()]);
        assert_eq!(
            s.warnings,
            vec![
                "node[0] \"root\": clamped indices: 1 face(s) index past its 3 vertices, \
                 1 past its 2 texcoords"
                    .to_string()
            ]
        );
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("\"format\":\"RSM2\""), "{json}");
    }
}
