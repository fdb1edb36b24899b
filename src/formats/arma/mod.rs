//! Arma (Real Virtuality) formats: RTM animations, model.cfg skeletons, MLOD P3D models.

pub mod cfg;
pub mod p3d;
pub mod rtm;
