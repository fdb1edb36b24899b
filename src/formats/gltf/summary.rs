//! What `kiln inspect` says of a glTF beyond the lowered model: scenes,
//! nodes, meshes and primitives with their vertex and triangle counts,
//! skins, morph targets, animations (channels, interpolation, duration),
//! materials, images and the extensions used and required.

use super::accessor::Data;
use super::lower::scene_index;
use super::SUPPORTED;
use crate::formats::seam::{Detail, Summary};
use serde_json::{json, Value};

fn accessor_count(data: &Data, a: Option<usize>) -> u64 {
    a.and_then(|a| data.doc.accessors.get(a))
        .map_or(0, |a| a.count)
}

fn triangles(mode: u32, indices: u64) -> u64 {
    match mode {
        4 => indices / 3,
        5 | 6 => indices.saturating_sub(2),
        _ => 0,
    }
}

/// The summary of the document (its buffers in `data`, its JSON as read).
pub(crate) fn summary(data: &Data, raw: &Value, detail: Detail) -> Summary {
    let doc = data.doc;
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    let scene = scene_index(doc);
    let scenes: Vec<Value> = doc
        .scenes
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"index": i, "name": s.name, "roots": s.nodes, "default": Some(i) == scene}))
        .collect();
    for (i, s) in doc.scenes.iter().enumerate() {
        notes.push(format!(
            "scene {i} {:?}: {} root node(s){}",
            s.name.clone().unwrap_or_default(),
            s.nodes.len(),
            if Some(i) == scene { " (drawn)" } else { "" }
        ));
    }
    let meshes: Vec<Value> = doc
        .meshes
        .iter()
        .enumerate()
        .map(|(mi, m)| {
            let prims: Vec<Value> = m
                .primitives
                .iter()
                .map(|p| {
                    let mode = p.mode.unwrap_or(4);
                    let vertices = accessor_count(data, p.attributes.get("POSITION").copied());
                    let idx = p.indices.map_or(vertices, |a| accessor_count(data, Some(a)));
                    let tris = triangles(mode, idx);
                    notes.push(format!(
                        "mesh {mi} {:?}: mode {mode}, {vertices} vertices, {tris} triangles, attributes {}{}",
                        m.name.clone().unwrap_or_default(),
                        p.attributes.keys().cloned().collect::<Vec<_>>().join("/"),
                        if p.targets.is_empty() { String::new() } else { format!(", {} morph target(s)", p.targets.len()) }
                    ));
                    json!({
                        "mode": mode,
                        "vertices": vertices,
                        "triangles": tris,
                        "indexed": p.indices.is_some(),
                        "material": p.material,
                        "attributes": p.attributes,
                        "morph_targets": p.targets.len(),
                    })
                })
                .collect();
            json!({"index": mi, "name": m.name, "primitives": prims, "weights": m.weights})
        })
        .collect();
    let skins: Vec<Value> = doc
        .skins
        .iter()
        .enumerate()
        .map(|(i, s)| {
            notes.push(format!(
                "skin {i} {:?}: {} joints",
                s.name.clone().unwrap_or_default(),
                s.joints.len()
            ));
            json!({"index": i, "name": s.name, "joints": s.joints, "skeleton": s.skeleton})
        })
        .collect();
    let animations: Vec<Value> = doc
        .animations
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mut duration = 0.0f32;
            let channels: Vec<Value> = a
                .channels
                .iter()
                .map(|c| {
                    let s = a.samplers.get(c.sampler);
                    let interp = s.and_then(|s| s.interpolation.clone()).unwrap_or_else(|| "LINEAR".into());
                    let keys = s.map_or(0, |s| accessor_count(data, Some(s.input)));
                    if let Some(s) = s {
                        if let Ok(t) = data.floats(s.input) {
                            duration = t.data.iter().copied().fold(duration, f32::max);
                        }
                    }
                    json!({"node": c.target.node, "path": c.target.path, "interpolation": interp, "keys": keys})
                })
                .collect();
            notes.push(format!(
                "animation {i} {:?}: {} channel(s), {} s",
                a.name.clone().unwrap_or_default(),
                a.channels.len(),
                duration
            ));
            json!({"index": i, "name": a.name, "duration": duration, "channels": channels})
        })
        .collect();
    let materials: Vec<Value> = doc
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let pbr = m.pbr_metallic_roughness.as_ref();
            json!({
                "index": i,
                "name": m.name,
                "alpha_mode": m.alpha_mode.clone().unwrap_or_else(|| "OPAQUE".into()),
                "alpha_cutoff": m.alpha_cutoff,
                "double_sided": m.double_sided,
                "base_color_factor": pbr.and_then(|p| p.base_color_factor),
                "base_color_texture": pbr.and_then(|p| p.base_color_texture.as_ref()).map(|t| t.index),
                "metallic_factor": pbr.and_then(|p| p.metallic_factor),
                "roughness_factor": pbr.and_then(|p| p.roughness_factor),
                "normal_texture": m.normal_texture.as_ref().map(|t| t.index),
                "occlusion_texture": m.occlusion_texture.as_ref().map(|t| t.index),
                "emissive_texture": m.emissive_texture.as_ref().map(|t| t.index),
                "emissive_factor": m.emissive_factor,
                "extensions": m.extensions.keys().collect::<Vec<_>>(),
            })
        })
        .collect();
    let images: Vec<Value> = doc
        .images
        .iter()
        .enumerate()
        .map(|(i, im)| {
            let uri = im.uri.as_ref().map(|u| if u.starts_with("data:") { "data: URI".to_string() } else { u.clone() });
            json!({"index": i, "name": im.name, "uri": uri, "mime_type": im.mime_type, "buffer_view": im.buffer_view})
        })
        .collect();
    let samplers: Vec<Value> = doc
        .samplers
        .iter()
        .map(|s| json!({"mag_filter": s.mag_filter, "min_filter": s.min_filter, "wrap_s": s.wrap_s, "wrap_t": s.wrap_t}))
        .collect();
    let textures: Vec<Value> = doc
        .textures
        .iter()
        .map(|t| json!({"name": t.name, "source": t.source, "sampler": t.sampler}))
        .collect();
    let nodes: Vec<Value> = doc
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            json!({
                "index": i, "name": n.name, "children": n.children, "mesh": n.mesh, "skin": n.skin,
                "camera": n.camera, "matrix": n.matrix, "translation": n.translation,
                "rotation": n.rotation, "scale": n.scale, "weights": n.weights,
            })
        })
        .collect();
    notes.push(format!(
        "{} node(s), {} material(s), {} image(s), {} camera(s) (not used)",
        doc.nodes.len(),
        doc.materials.len(),
        doc.images.len(),
        doc.cameras.len()
    ));
    for e in &doc.extensions_used {
        let required = doc.extensions_required.contains(e);
        let known = SUPPORTED.contains(&e.as_str());
        notes.push(format!(
            "extension {e}: {}{}",
            if required { "required" } else { "used" },
            if known {
                ""
            } else if required {
                ", not implemented: the file is refused"
            } else {
                ", ignored"
            }
        ));
        if !known && required {
            warnings.push(format!("requires {e}, which kiln does not implement"));
        }
    }
    let buffers: Vec<Value> = doc
        .buffers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let uri = b.uri.as_ref().map(|u| if u.starts_with("data:") { "data: URI".to_string() } else { u.clone() });
            json!({"index": i, "name": b.name, "uri": uri, "byte_length": b.byte_length, "loaded": data.buffers.get(i).map(Vec::len)})
        })
        .collect();
    let mut details = json!({
        "asset": {"version": doc.asset.version, "min_version": doc.asset.min_version, "generator": doc.asset.generator},
        "scene": scene,
        "counts": {
            "scenes": doc.scenes.len(), "nodes": doc.nodes.len(), "meshes": doc.meshes.len(),
            "skins": doc.skins.len(), "animations": doc.animations.len(), "materials": doc.materials.len(),
            "textures": doc.textures.len(), "images": doc.images.len(), "samplers": doc.samplers.len(),
            "accessors": doc.accessors.len(), "buffer_views": doc.buffer_views.len(), "buffers": doc.buffers.len(),
            "cameras": doc.cameras.len(),
        },
        "scenes": scenes,
        "skins": skins,
        "animations": animations,
        "meshes": meshes,
        "materials": materials,
        "extensions_used": doc.extensions_used,
        "extensions_required": doc.extensions_required,
    });
    if detail == Detail::Full {
        details["nodes"] = Value::Array(nodes);
        details["images"] = Value::Array(images);
        details["textures"] = Value::Array(textures);
        details["samplers"] = Value::Array(samplers);
        details["buffers"] = Value::Array(buffers);
        details["cameras"] = raw
            .get("cameras")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
    }
    Summary {
        format: if data.doc.buffers.first().is_some_and(|b| b.uri.is_none()) {
            "glTF 2.0 (binary .glb)".into()
        } else {
            "glTF 2.0".into()
        },
        version: doc.asset.version.clone(),
        details,
        notes,
        warnings,
        ..Summary::default()
    }
}
