//! The three layouts readers give RSM 1.5 files, each on a model of three
//! nodes built with kiln's writer: the documented one (1.4's, then 4
//! bytes), RagLite's (a second model-level key count after the nodes) and
//! roBrowser's (a position-key block per node). Each is read by structure
//! with its exact values; the ones that are not the documented layout say
//! which layout was taken and why the documented one does not fit.

use crate::fixtures::rsm as fixture;
use glam::{Quat, Vec3};
use kiln::internals::formats::rsm::{self, PosKey, Rsm, V15Layout};
use std::path::Path;

/// The 1.5 fixture with a third node under the child, so per-node and
/// model-level blocks cannot coincide.
fn three_nodes() -> Rsm {
    let mut m = fixture::model(1, 5);
    let mut leaf = m.nodes[1].clone();
    leaf.name = b"leaf".to_vec();
    leaf.parent = b"child".to_vec();
    leaf.offset = Vec3::new(-1.0, 0.5, 0.25);
    leaf.rot_keys = vec![rsm::RotKey {
        frame: 250,
        rotation: Quat::from_xyzw(0.0, 0.6, 0.0, 0.8),
    }];
    m.nodes.push(leaf);
    m
}

fn key(frame: i32, x: f32) -> PosKey {
    PosKey {
        frame,
        position: Vec3::new(x, 2.0 * x, -x),
        data: 0,
    }
}

fn parse(b: &[u8]) -> Rsm {
    rsm::parse(b, Path::new("layout.rsm")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn documented_layout_with_its_four_bytes() {
    let m = three_nodes();
    let mut bytes = rsm::write(&m);
    bytes.extend_from_slice(&[0; 4]);
    let got = parse(&bytes);
    assert_eq!(got.v15_layout, V15Layout::Documented);
    assert_eq!(got.trailing_bytes, 4);
    assert_eq!(got.nodes, m.nodes);
    assert_eq!(got.nodes[2].rot_keys[0].frame, 250);
    assert_eq!(got.model_pos_keys, m.model_pos_keys);
    assert_eq!(got.model_pos_keys[0].frame, 500);
    assert_eq!(got.volume_boxes, m.volume_boxes);
    assert_eq!(got.warnings.len(), 1, "{:?}", got.warnings);
    assert!(
        got.warnings[0].contains("4 trailing byte(s)"),
        "{:?}",
        got.warnings
    );
    assert_eq!(rsm::write(&got), bytes[..bytes.len() - 4]);
}

#[test]
fn raglite_layout_with_one_more_model_level_count() {
    let mut m = three_nodes();
    m.v15_layout = V15Layout::EmptyModelBlock;
    let bytes = rsm::write(&m);
    let got = parse(&bytes);
    assert_eq!(got.v15_layout, V15Layout::EmptyModelBlock);
    assert_eq!(got.nodes, m.nodes);
    assert!(got.nodes.iter().all(|n| n.pos_keys.is_empty()));
    assert_eq!(got.model_pos_keys, m.model_pos_keys);
    assert_eq!(got.model_pos_keys[0].position, Vec3::new(0.0, 1.0, 0.0));
    assert_eq!(got.volume_boxes, m.volume_boxes);
    assert_eq!(got.trailing_bytes, 0);
    assert_eq!(got.warnings.len(), 1, "{:?}", got.warnings);
    let w = &got.warnings[0];
    assert!(
        w.starts_with("layout.rsm: 1.5 file read with RagLite's layout")
            && w.contains("the documented layout does not fit it: it leaves 24 bytes"),
        "{w}"
    );
    assert_eq!(rsm::write(&got), bytes);
    // RagLite requires the count to be 0: any other value is not its layout.
    let at = bytes.len() - (4 + 4 + 20 + 4 + 40);
    let mut other = bytes.clone();
    other[at..at + 4].copy_from_slice(&3i32.to_le_bytes());
    assert!(rsm::parse(&other, Path::new("layout.rsm"))
        .map_or(true, |m| m.v15_layout != V15Layout::EmptyModelBlock));
}

#[test]
fn robrowser_layout_with_position_keys_on_every_node() {
    let mut m = three_nodes();
    m.v15_layout = V15Layout::NodePositionKeys;
    m.nodes[0].pos_keys = vec![key(0, 1.0), key(100, 2.0)];
    m.nodes[1].pos_keys = vec![key(50, -1.0)];
    m.nodes[2].pos_keys = vec![key(10, 0.5), key(20, 0.75), key(30, 1.0)];
    let bytes = rsm::write(&m);
    let got = parse(&bytes);
    assert_eq!(got.v15_layout, V15Layout::NodePositionKeys);
    assert_eq!(got.nodes, m.nodes);
    let counts: Vec<usize> = got.nodes.iter().map(|n| n.pos_keys.len()).collect();
    assert_eq!(counts, [2, 1, 3]);
    assert_eq!(
        got.nodes[2].pos_keys[1].position,
        Vec3::new(0.75, 1.5, -0.75)
    );
    assert_eq!(got.model_pos_keys, m.model_pos_keys);
    assert_eq!(got.trailing_bytes, 0);
    assert_eq!(got.warnings.len(), 1, "{:?}", got.warnings);
    assert!(
        got.warnings[0].starts_with("layout.rsm: 1.5 file read with roBrowser's layout"),
        "{:?}",
        got.warnings
    );
    assert_eq!(rsm::write(&got), bytes);
}

#[test]
fn the_layouts_only_coincide_on_one_node_with_empty_blocks() {
    // One node, no per-node keys, no model keys, no boxes: the three
    // layouts are the same bytes, so the documented one is taken with no
    // warning but its four bytes.
    let mut m = fixture::model(1, 5);
    m.nodes.truncate(1);
    m.model_pos_keys.clear();
    m.volume_boxes.clear();
    let mut bytes = rsm::write(&m);
    bytes.extend_from_slice(&[0; 4]);
    for layout in [V15Layout::EmptyModelBlock, V15Layout::NodePositionKeys] {
        let mut other = m.clone();
        other.v15_layout = layout;
        assert_eq!(rsm::write(&other), bytes);
    }
    let got = parse(&bytes);
    assert_eq!(got.v15_layout, V15Layout::Documented);
    assert_eq!(got.warnings.len(), 1);
    // With three nodes each layout is its own file.
    let sizes: Vec<usize> = [
        V15Layout::Documented,
        V15Layout::EmptyModelBlock,
        V15Layout::NodePositionKeys,
    ]
    .into_iter()
    .map(|l| {
        let mut m = three_nodes();
        m.v15_layout = l;
        rsm::write(&m).len()
    })
    .collect();
    assert_eq!(sizes[1] - sizes[0], 4);
    assert_eq!(sizes[2] - sizes[0], 3 * 4);
}
