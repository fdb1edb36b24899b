//! Ragnarok maps: an RSW scene on its GND ground ([`ground`]) and water,
//! lowered to one drawable [`MapScene`], framed by map cameras ([`camera`])
//! and drawn in blocks ([`draw`]) so that memory stays bounded on the
//! largest maps.
//!
//! World frame: kiln's (right-handed, Y up) is `D · RO` with
//! `D = diag(1, −1, −1)`, RO being the client's frame (Y down, tile `(x, y)`
//! at `(10x, h, 10y)`). So map east is +X, tile rows grow north toward −Z,
//! and a top-down view with "up" = −Z shows the map as its minimap does.

pub mod camera;
pub mod draw;
pub mod ground;
pub mod preview;
pub mod scene;
pub mod water;

pub use camera::{MapCamera, MapViewCamera, Region};
pub use draw::render;
pub use preview::{Map, MapView};
pub use scene::MapScene;
