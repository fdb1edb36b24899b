//! kiln's integration tests, built as one binary: one link step instead of
//! one per file. Each module is one area; `common` holds the golden-image
//! comparison and the helpers they share.
//!
//! Run one area with `cargo test --test it AREA::`, e.g. `cargo test --test it lzo::`.

mod common;
mod fixtures;

mod archives;
mod arma_cli;
mod arma_scene;
mod bake_outputs;
mod budgets;
mod build_tools;
mod bundled_looks;
mod cfg;
mod cli;
mod colour_key;
mod engines;
mod export;
mod export_root_motion;
mod extract_rule;
mod fuzz_regressions;
mod gltf_clips;
mod gltf_eval;
mod gltf_read;
mod gltf_read_back;
mod gltf_scene;
mod gltf_shading;
mod gnd_corpus;
mod gnd_malformed;
mod grf;
mod grimrock_cli;
mod grimrock_corpus;
mod grimrock_malformed;
mod grimrock_scene;
mod ground;
mod hostile_cli;
mod incremental;
mod inspect_json;
mod last_pose;
mod layering;
mod library;
mod looks;
mod lua;
mod lzo;
mod map_cli;
mod map_recipe;
mod map_scene;
mod mistakes;
mod out_dir;
mod p3d_corpus;
mod p3d_malformed;
mod paa;
mod palette;
mod raster;
mod recipe;
mod ro_sprite_bake;
mod root_motion;
mod rsm_corpus;
mod rsm_layouts;
mod rsm_malformed;
mod rsm_scene;
mod rsw_corpus;
mod rsw_malformed;
mod rsw_versions;
mod rtm_corpus;
mod rtm_malformed;
mod samples;
mod sheets;
mod shell;
mod sprite_corpus;
mod sprite_preview;
mod sprite_versions;
mod stream;
mod textures;
mod write_rule;
