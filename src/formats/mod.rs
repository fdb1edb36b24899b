//! Every file format kiln reads: one folder (or file) per format holding
//! its faithful typed reader and writer, its summary for `kiln inspect`, its
//! lowering into kiln's scene model, and its row of the format table
//! (`registry.rs`). Nothing here knows about rendering.

pub mod arma;
pub(crate) mod gltf;
pub mod gnd;
pub mod grimrock;
pub mod json;
mod known;
pub mod lua;
pub mod lzo;
pub(crate) mod obj;
pub mod ragnarok;
pub mod reader;
pub(crate) mod registry;
pub mod rsm;
pub mod rsw;
pub(crate) mod seam;
pub mod sprite;
pub mod texture;
