//! kiln bakes animated 3D game models into 2D sprites: Ragnarok Online
//! RSM/RSM2 models and RSW maps, Legend of Grimrock models and animations,
//! Arma MLOD models posed by RTM animations — through kiln's own CPU
//! rasterizer into sprite sheets with metadata, frame PNGs and GIFs, the
//! same bytes on every run.
//!
//! The library does everything the `kiln` command does:
//!
//! - [`bake_files`] / [`bake()`]: run YAML recipes ([`Recipe`]) — what a
//!   `build.rs` calls; the [`BakeReport`] lists every file written and every
//!   input read (for `cargo:rerun-if-changed`).
//! - [`Model`]: load any model from a [`ModelSpec`], pose it with animation
//!   files, [render](Model::render) or [export](Model::export) it.
//! - [`Map`]: render Ragnarok maps.
//! - [`inspect()`]: what a file holds.
//! - [`DataSource`]: where files come from — folders ([`Folder`]), archives
//!   ([`open_data`]: GRF, PBO, Grimrock `.dat`, see [`archives`]), memory
//!   ([`MemorySource`]), or your own.
//! - [`extract`] an archive's entries, [`convert_texture`] any texture to
//!   PNG.
//!
//! A `build.rs` bakes its sprites and tells Cargo what to watch
//! (`recipes/build_script.rs` is the same as a full example):
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("kiln-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! # let model = concat!(env!("CARGO_MANIFEST_DIR"), "/recipes/samples/data/model/kiln/beacon.rsm");
//! # let recipe = format!("jobs:\n  - name: beacon\n    model: '{model}'\n    clip: {{frames: 2}}\n");
//! # std::fs::write(dir.join("sprites.yaml"), recipe).unwrap();
//! let recipes = [dir.join("sprites.yaml")];
//! // Every job's `output.dir` below the build's OUT_DIR, not beside the recipe.
//! # let out_dir = dir.join("build");
//! # /*
//! let out_dir = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
//! # */
//! let options = kiln::BakeOptions { out_dir: Some(out_dir.clone()), ..Default::default() };
//! let report = kiln::bake_files(&recipes, &options, &kiln::NoProgress)?;
//! for input in report.inputs() {
//!     println!("cargo:rerun-if-changed={}", input.display());
//! }
//! assert_eq!((report.succeeded(), report.failed()), (1, 0));
//! assert_eq!(report.inputs().len(), 4); // the recipe, the model, its two textures
//! assert!(out_dir.join("out/beacon/beacon.png").exists()); // the default `out/{name}`
//! assert!(!dir.join("out").exists());
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), kiln::Error>(())
//! ```
//!
//! Data flows one way: `formats` (each file read, and lowered into one
//! scene model) → `scene` (posed at any time) → `raster` (kiln's
//! rasterizer) → `bake` (atlas, sheets, metadata, GIFs) and `export`.
// One module, `raster::simd::avx2`, allows `unsafe` (to call code compiled
// for the CPU's instruction set after checking the CPU has it); nothing else
// may.
#![deny(unsafe_code)]
#![warn(missing_docs)]

// kiln's modules are private: the API is what is re-exported below (see
// docs/library.md). kiln's own tests, benchmarks, examples and fuzz
// targets reach the modules through the one door below, `internals`.
mod bake;
mod camera;
mod client_sprite;
mod color;
mod confined;
mod convert;
mod env;
mod error;
mod export;
mod extract;
mod formats;
mod html;
mod inspect;
mod load;
mod look;
mod map;
mod memory;
mod model;
mod output;
mod palette;
mod parallel_png;
mod paths;
mod range;
mod raster;
mod render;
mod samples;
mod scene;
mod source;
mod spec;
mod text;
mod texture;
mod verify;

pub use bake::outputs::state::STATE_FILE;
pub use bake::plan::shard::{plan, plan_json, PlannedJob, MAX_SHARDS};
pub use bake::recipe::{
    ClientSpriteSpec, ClipSpec, Direction, FramingGroup, GifSpec, Job, MapJob, MapViewSpec,
    MetaFormat, Outputs, PackLayout, PackSpec, SpriteImages, Template,
};
pub use bake::{
    bake, bake_files, BakeOptions, BakeReport, JobKind, JobOutcome, JobReport, JobStatus,
    NoProgress, OutputMode, OutputRecord, OutputStatus, Progress, Recipe, RecipeError, Shard,
    DEFAULT_MEMORY_LIMIT,
};
pub use camera::{Framing, LightSpace, LightSpec, Projection};
pub use client_sprite::{compose::Bounds as SpriteBounds, ClientSprite};
pub use color::{parse_color, ColorError};
pub use convert::convert_texture;
pub use env::check as check_environment;
pub use error::{Error, ParseError, Result, ValueError};
pub use export::gltf::{AnimationReport, GltfReport};
pub use extract::{extract, ExtractReport};
pub use formats::seam::{Detail as InspectDetail, FileKind};
pub use formats::texture::{DecodeOptions, TextureSummary};
pub use inspect::{
    inspect, inspect_with, inspect_within, AnimationInfo, ArchiveInfo, MeshInfo, NodeInfo,
    Report as InspectReport, TextureInfo,
};
/// The recipe's JSON Schema as `kiln schema` prints it, generated from the
/// types recipes are read into (`schema/kiln-recipe.schema.json`).
pub use kiln_recipe_yaml::schema::{schema_text as recipe_schema, SchemaError};
pub use load::file_kind;
pub use look::passes::encode_depth_png;
pub use look::passes::{DepthBits, IdBy, Passes};
pub use look::{
    Dither, DropShadow, GroundShadow, Look, Outline, OutlineSide, Palette, PaletteLook,
    PaletteSource, Shading, ShadowFrom,
};
pub use map::camera::MAX_PIXELS_PER_TILE;
pub use map::{Map, MapView, MapViewCamera, Region};
pub use model::{ExportClip, Model, PassView, Sprite};
pub use output::{write_file, write_png};
pub use render::ViewSpec;
pub use scene::clip::{Clip, FrameTimes, Step};
pub use source::disk::parse_bytes;
pub use source::{
    open_archive, open_data, Archive, ArchiveRef, DataSource, Entry, EntryKind, Folder, GamePath,
    Item as ArchiveItem, Listed, MemorySource,
};

/// How far every value a recipe or a flag gives may go, and what a recipe
/// gets when it leaves a key out: the one place the command line and the
/// recipe checks take them from.
pub mod limits {
    pub use crate::bake::recipe::defaults::*;
    pub use crate::look::{
        check_cel_bands, check_rim, check_shading, CEL_BANDS, DROP_BLUR, DROP_COLOR, DROP_OFFSET,
        MAX_BLUR, MAX_CEL_BANDS, MAX_OFFSET, MAX_OUTLINE, MIN_CEL_BANDS, MIN_COLORS, OUTLINE_COLOR,
        OUTLINE_WIDTH, SHADOW_OPACITY, SHADOW_SOFTNESS,
    };
    pub use crate::palette::MAX_COLORS;
}

/// kiln's archive readers and writers: GRF, PBO, Grimrock `.dat`, and the
/// codecs they share.
pub mod archives {
    pub use crate::source::disk::{DEFAULT_INPUT_LIMIT, LIMIT_VARIABLE};
    pub use crate::source::grf::{
        write_grf, Grf, GrfVersion, GrfWriter, WriteOptions, FLAG_FILE, FLAG_HEADER, FLAG_MIXED,
    };
    pub use crate::source::grimrock_dat::{fnv1a, write_dat, DatVersion, GrimrockDat};
    pub use crate::source::lzss;
    pub use crate::source::pbo::{write_pbo, Pbo};
}
pub use spec::{AnimationSettings, FileRef, Lod, ModelSpec, RestPose, RootMotion, SkeletonSpec};
pub use verify::compare::{
    compare_files, compare_images, ImageDiff, PixelBudget, Tolerance, Verdict,
};
pub use verify::{verify, verify_files, CheckStatus, FileCheck, VerifyOptions, VerifyReport};
pub use verify::{Attachments, FrameCheck};

/// kiln's inner modules, for kiln's own tests, benchmarks, examples and
/// fuzz targets. Not part of the API: anything here may change in any
/// release. Each module is re-exported whole under its own name, so a test
/// names `kiln::internals::bake::recipe::Job` where kiln's code names
/// `crate::bake::recipe::Job`.
#[doc(hidden)]
pub mod internals {
    /// The scene form of a loaded model.
    pub fn scene_of(model: &crate::Model) -> &crate::scene::Model {
        model.scene()
    }

    /// The scene form of a loaded map.
    pub fn map_scene(map: &crate::Map) -> &crate::map::scene::MapScene {
        map.scene()
    }

    pub mod bake {
        pub use crate::bake::*;
    }
    pub mod camera {
        pub use crate::camera::*;
    }
    pub mod client_sprite {
        pub use crate::client_sprite::*;
    }
    pub mod color {
        pub use crate::color::*;
    }
    pub mod confined {
        pub use crate::confined::*;
    }
    pub mod convert {
        pub use crate::convert::*;
    }
    pub mod env {
        pub use crate::env::*;
    }
    pub mod error {
        pub use crate::error::*;
    }
    pub mod export {
        pub use crate::export::*;
    }
    pub mod extract {
        pub use crate::extract::*;
    }
    pub mod formats {
        pub use crate::formats::*;
    }
    pub mod inspect {
        pub use crate::inspect::*;
    }
    pub mod load {
        pub use crate::load::*;
    }
    pub mod look {
        pub use crate::look::*;
    }
    pub mod map {
        pub use crate::map::*;
    }
    pub mod memory {
        pub use crate::memory::*;
    }
    pub mod model {
        pub use crate::model::*;
    }
    pub mod output {
        pub use crate::output::*;
    }
    pub mod palette {
        pub use crate::palette::*;
    }
    pub mod parallel_png {
        pub use crate::parallel_png::*;
    }
    pub mod paths {
        pub use crate::paths::*;
    }
    pub mod raster {
        pub use crate::raster::*;
    }
    pub mod render {
        pub use crate::render::*;
    }
    pub mod samples {
        pub use crate::samples::*;
    }
    pub mod scene {
        pub use crate::scene::*;
    }
    pub mod source {
        pub use crate::source::*;
    }
    pub mod spec {
        pub use crate::spec::*;
    }
    pub mod text {
        pub use crate::text::*;
    }
    pub mod texture {
        pub use crate::texture::*;
    }
    pub mod verify {
        pub use crate::verify::*;
    }
}
