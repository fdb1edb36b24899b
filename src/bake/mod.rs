//! Recipes, planning, the parallel bake, sheets and outputs.
