//! glTF 2.0 binary (`.glb`): one JSON chunk, one BIN chunk holding every
//! vertex array, index array, image and animation key.
//!
//! Two writers share the buffer and material code: [`posed`] writes one
//! instant with every vertex in world space; [`animated`] writes the node
//! tree, skins and one glTF animation per clip.

pub mod animated;
mod buffer;
mod document;
mod keys;
mod material;
mod motion;
pub mod posed;
mod texture_motion;

pub use animated::{animated_glb_bytes, AnimationReport, ClipInput, GltfReport};
pub use posed::{glb_bytes, write_glb};
