use super::*;

/// Serialises a model.
pub fn write_model(_model: &Model) -> Vec<u8> {
    Vec::new()
}

/// Serialises an animation in the layout of its version.
pub fn write_animation(_anim: &Animation) -> Vec<u8> {
    Vec::new()
}
