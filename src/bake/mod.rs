//! Recipes, planning, the parallel bake, sheets and outputs.

pub mod gif;
pub mod meta;
pub mod outputs;
pub mod recipe;
pub mod run;
pub mod sheet;

pub use outputs::write_outputs;
pub use recipe::{
    CameraSpec, Clip, Direction, FrameTimes, Job, LightSpace, LightSpec, Outputs, Projection,
    Recipe, RecipeError, Step, Template,
};
pub use sheet::SheetLayout;
