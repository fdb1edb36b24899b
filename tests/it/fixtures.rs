//! kiln's synthetic files of every version, built in code (the sources
//! live in `tests/fixtures/` and are shared with kiln's unit tests and the
//! fuzz seeds).

/// RSM models of every version.
pub mod rsm {
    use kiln::internals::formats::rsm::*;
    include!("../fixtures/rsm.rs");
}

/// RSW maps of every version and reading.
pub mod rsw {
    use kiln::internals::formats::rsw::*;
    include!("../fixtures/rsw.rs");
}

/// A small skinned Grimrock model and its animation.
pub mod grimrock {
    use kiln::internals::formats::grimrock::*;
    include!("../fixtures/grimrock.rs");
}
