//! kiln's own example models, built with kiln's own writers, so the
//! repository can ship them and tests can rebuild them byte for byte.
//!
//! `cargo run --example make-samples` writes them under `recipes/samples/`
//! in each game's data layout: Ragnarok's `data/model/…`,
//! `data/texture/kiln/…` and the sample map in `data/`, Grimrock's
//! `mod_assets/…`, and an Arma addon folder.
//!
//! One file per game: [`rsm`] (windmill, beacon), [`grimrock`] (tentacle,
//! sign), [`arma`] (lever), [`map`] (the village map), and [`gltf`] (the
//! tentacle exported by kiln's glTF writer). They share nothing
//! but the writers and `scene::geometry`; only [`all`] ties them together.

pub mod arma;
pub mod gltf;
pub mod grimrock;
pub mod map;
pub mod rsm;

/// A file to write: path relative to `recipes/samples/`, and its bytes.
pub struct SampleFile {
    /// Relative to `recipes/samples/`, with `/` separators.
    pub path: &'static str,
    /// The file's contents, as kiln's writers produce them.
    pub bytes: Vec<u8>,
}

/// Every sample file (models and their textures).
pub fn all() -> Vec<SampleFile> {
    let mut out = game_files();
    out.push(SampleFile {
        path: "gltf/kiln_tentacle.glb",
        bytes: gltf::tentacle_glb(),
    });
    out
}

/// The Grimrock sample files, which the glTF sample is made from.
fn grimrock_files() -> Vec<SampleFile> {
    game_files()
        .into_iter()
        .filter(|f| f.path.starts_with("grimrock/"))
        .collect()
}

/// Every sample in a game's own formats.
fn game_files() -> Vec<SampleFile> {
    use crate::formats::{
        arma::p3d, arma::rtm, gnd, grimrock::write_animation, grimrock::write_model, rsw,
    };
    vec![
        SampleFile {
            path: "data/model/kiln/windmill.rsm2",
            bytes: crate::formats::rsm::write(&rsm::windmill()),
        },
        SampleFile {
            path: "data/model/kiln/beacon.rsm",
            bytes: crate::formats::rsm::write(&rsm::beacon()),
        },
        SampleFile {
            path: "data/texture/kiln/wood.bmp",
            bytes: rsm::wood_texture(),
        },
        SampleFile {
            path: "data/texture/kiln/sail.bmp",
            bytes: rsm::sail_texture(),
        },
        SampleFile {
            path: "data/texture/kiln/banner.tga",
            bytes: rsm::banner_texture(),
        },
        SampleFile {
            path: "data/texture/kiln/stone.bmp",
            bytes: rsm::stone_texture(),
        },
        SampleFile {
            path: "data/texture/kiln/grass.bmp",
            bytes: map::grass_texture(),
        },
        SampleFile {
            path: "data/texture/kiln/sand.bmp",
            bytes: map::sand_texture(),
        },
        SampleFile {
            path: "data/kiln_village.rsw",
            bytes: rsw::write(&map::village_rsw()),
        },
        SampleFile {
            path: "data/kiln_village.gnd",
            bytes: gnd::write(&map::village_gnd()),
        },
        SampleFile {
            path: "grimrock/mod_assets/models/kiln_tentacle.model",
            bytes: write_model(&grimrock::tentacle()),
        },
        SampleFile {
            path: "grimrock/mod_assets/animations/kiln_tentacle_wave.animation",
            bytes: write_animation(&grimrock::tentacle_wave()),
        },
        SampleFile {
            path: "grimrock/mod_assets/models/kiln_sign.model",
            bytes: write_model(&grimrock::sign()),
        },
        SampleFile {
            path: "grimrock/mod_assets/models/kiln_materials.lua",
            bytes: grimrock::MATERIALS_LUA.as_bytes().to_vec(),
        },
        SampleFile {
            path: "grimrock/mod_assets/textures/kiln_tentacle.tga",
            bytes: grimrock::tentacle_texture(),
        },
        SampleFile {
            path: "grimrock/mod_assets/textures/kiln_sign.tga",
            bytes: grimrock::sign_texture(),
        },
        SampleFile {
            path: "arma/kiln_lever/kiln_lever.p3d",
            bytes: p3d::write(&arma::lever()),
        },
        SampleFile {
            path: "arma/kiln_lever/anim/kiln_lever_swing.rtm",
            bytes: rtm::write_plain(&arma::swing_plain()),
        },
        SampleFile {
            path: "arma/kiln_lever/anim/kiln_lever_swing_bin.rtm",
            bytes: rtm::write_bmtr(&arma::swing_bmtr(), 4),
        },
        SampleFile {
            path: "arma/kiln_lever/model.cfg",
            bytes: arma::MODEL_CFG.as_bytes().to_vec(),
        },
        SampleFile {
            path: "arma/kiln_lever/data/lever_co.tga",
            bytes: arma::lever_texture(),
        },
    ]
}
