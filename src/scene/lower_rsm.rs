//! RSM/RSM2 → `scene::Model`.
