//! Arma formats: RTM animations, model.cfg skeletons and MLOD P3D models.

pub mod cfg;
mod format;
pub mod lower;
pub mod p3d;
pub mod rtm;

pub(crate) use format::{ConfigFormat, P3dFormat, RtmFormat};
