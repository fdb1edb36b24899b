//! kiln bakes animated 3D game models into 2D sprites.
//!
//! Data flows one way:
//! `formats` (faithful typed structs of each file) → `scene` (one intermediate
//! model for every format, posed at any time) → `raster` (kiln's own CPU
//! rasterizer) → `bake` (recipes, sheets, GIFs, metadata) and `export`.
#![forbid(unsafe_code)]

pub mod bake;
pub mod camera;
pub mod color;
pub mod error;
pub mod export;
pub mod formats;
pub mod inspect;
pub mod load;
pub mod map;
pub mod output;
pub mod paths;
pub mod raster;
pub mod render;
pub mod samples;
pub mod samples_arma;
pub mod samples_grimrock;
pub mod samples_map;
pub mod scene;
pub mod texture;

pub use error::{Error, ParseError, Result};
