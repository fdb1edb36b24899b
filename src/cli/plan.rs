//! `kiln plan`: recipes' jobs with their cost and shard.

use super::{emit, load_recipes};
use clap::Args;
use kiln::Error;
use std::path::PathBuf;

#[derive(Args)]
pub struct PlanArgs {
    /// Recipe files (YAML)
    #[arg(required = true)]
    recipes: Vec<PathBuf>,
    /// Split the jobs over this many shards
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=kiln::MAX_SHARDS as i64))]
    shards: u32,
    /// Print the plan as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(a: PlanArgs) -> Result<(), Error> {
    let recipes = load_recipes(&a.recipes, None)?;
    let plan = kiln::plan(&recipes, a.shards as usize).map_err(Error::from)?;
    let mut text = String::new();
    if a.json {
        text = serde_json::to_string_pretty(&kiln::plan_json(&plan)).unwrap_or_default();
        text.push('\n');
    } else {
        for p in &plan {
            text.push_str(&format!(
                "{:>4}/{}  {:>14.0}  {} '{}'  ({})\n",
                p.shard,
                a.shards,
                p.cost,
                p.kind,
                p.name,
                p.recipe.display()
            ));
        }
    }
    emit(&text)
}
