//! The encoders of a job's animated and client outputs: one GIF ([`gif`])
//! and one APNG ([`apng`]) per clip × direction with exact timing
//! ([`timing`]), and the Ragnarok client's SPR + ACT ([`ro_sprite`]), all
//! from the rendered frames of each clip ([`clip_frames`]).

pub mod apng;
pub mod clip_frames;
pub mod gif;
pub mod ro_sprite;
pub mod timing;
