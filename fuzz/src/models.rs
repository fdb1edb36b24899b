//! Model, map and animation parsers, and the lowerings that are public.

use kiln::internals::formats::arma::{cfg as arma_cfg, lower as arma_lower, p3d, rtm};
use kiln::internals::formats::lua::{LuaTable, LuaValue};
use kiln::internals::formats::{gnd, grimrock, rsm, rsw};
use kiln::RestPose;
use std::path::Path;

pub fn rsm(data: &[u8]) {
    let _ = rsm::parse(data, Path::new("fuzz.rsm"));
}

pub fn rsw(data: &[u8]) {
    if let Ok(map) = rsw::parse(data, Path::new("fuzz.rsw")) {
        let _ = rsw::details(&map);
        let _ = rsw::names(&map);
        let _ = rsw::bytes_after_nul(&map);
    }
}

pub fn gnd(data: &[u8]) {
    let _ = gnd::parse(data, Path::new("fuzz.gnd"));
}

pub fn grimrock_model(data: &[u8]) {
    let file = Path::new("fuzz.model");
    if let Ok(model) = grimrock::parse_model(data, file) {
        for pose in [RestPose::Nodes, RestPose::Bind] {
            let _ = grimrock::lower::lower(&model, file, &[], pose);
        }
    }
}

pub fn grimrock_anim(data: &[u8]) {
    if let Ok(anim) = grimrock::parse_animation(data, Path::new("fuzz.animation")) {
        let _ = grimrock::lower::lower_animation(&anim);
    }
}

pub fn lua(data: &[u8]) {
    // As kiln reads definition files: lossy UTF-8.
    let source = String::from_utf8_lossy(data);
    for function in ["defineMaterial", "defineObject"] {
        if let Ok(tables) =
            kiln::internals::formats::lua::calls(&source, Path::new("fuzz.lua"), function)
        {
            for t in &tables {
                walk(t, 0);
            }
        }
    }
}

/// Reads every value the way the material reader does, to depth 64.
fn walk(t: &LuaTable, depth: usize) {
    let _ = t.names();
    let _ = t.get("name").and_then(LuaValue::as_str);
    let _ = t.get_index(1);
    for v in t.array() {
        let _ = (v.as_bool(), v.as_number(), v.type_name());
    }
    if depth < 64 {
        for (_, v) in &t.entries {
            if let Some(inner) = v.as_table() {
                walk(inner, depth + 1);
            }
        }
    }
}

pub fn p3d(data: &[u8]) {
    let file = Path::new("fuzz.p3d");
    if let Ok(m) = p3d::parse(data, file) {
        for lod in 0..m.lods.len() {
            let _ = arma_lower::lower_mlod(&m, lod, file, &mut |_| None);
        }
    }
}

pub fn rtm(data: &[u8]) {
    match rtm::parse(data, Path::new("fuzz.rtm")) {
        Ok(rtm::Rtm::Plain(r)) => {
            let _ = arma_lower::lower_plain(&r, None, 1.0, false);
            // A skeleton made of the file's own bones, each the child of the
            // one before: every bone is found and posed.
            let skeleton = chain(&r.bones);
            let _ = arma_lower::lower_plain(&r, Some(&skeleton), 1.0, true);
        }
        Ok(rtm::Rtm::Binarised(b)) => {
            let skeleton = chain(&b.bones);
            let _ = arma_lower::lower_bmtr(&b, &skeleton, 1.0, false);
            let _ = arma_lower::lower_bmtr(&b, &[], 1.0, true);
        }
        Err(_) => {}
    }
}

fn chain(bones: &[String]) -> Vec<(String, String)> {
    let mut parent = String::new();
    bones
        .iter()
        .map(|b| (b.clone(), std::mem::replace(&mut parent, b.clone())))
        .collect()
}

pub fn cfg(data: &[u8]) {
    let Ok(cfg) = arma_cfg::parse_bytes(data, Path::new("model.cfg")) else {
        return;
    };
    let skeletons = arma_cfg::skeletons(&cfg);
    // As a load does: one skeleton resolved (here the first and the last).
    for s in skeletons.first().into_iter().chain(skeletons.last()) {
        let _ = arma_cfg::resolve_bones(&skeletons, &s.name);
    }
    let _ = arma_cfg::resolve_bones(&skeletons, "missing");
    let _ = arma_cfg::model_skeleton_name(&cfg, "fuzz");
}
