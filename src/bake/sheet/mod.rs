//! A job's sheet: where each frame goes ([`atlas`]: the [`grid`]'s rows and
//! columns, or [`packed`]: trimmed ([`kept`]), twins stored once, placed by
//! the [`skyline`] packer on pages), the pages composed from it
//! ([`compose`]), and the metadata describing it for each engine
//! ([`meta`]). Nothing here renders or writes a file.

pub mod atlas;
pub mod compose;
pub mod grid;
pub mod kept;
pub mod meta;
pub mod packed;
pub mod skyline;
