//! Shards: a bake's jobs split over N machines so that together they write
//! exactly the files one machine would. The split is deterministic and
//! balanced by a cost estimated from the recipe alone (no file is read):
//! images × pixels × supersamples. Jobs go, most costly first, to the
//! shard with the least cost so far (ties to the lower shard).

use crate::bake::recipe::{Job, MapJob};
use crate::error::{Error, Result};
use crate::scene::clip::{Clip, Step};
use std::path::PathBuf;

/// One of `count` deterministic, cost-balanced parts of a bake's jobs: N
/// machines baking shards 1..=N of the same recipes together write exactly
/// the files one machine would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

/// Most shards a bake may be split into (`--shard K/N`, `KILN_SHARD`, the
/// batch systems' counts, `kiln plan --shards`): far more machines than a
/// recipe has jobs to share, and small enough that nothing sized by N is
/// ever large.
pub const MAX_SHARDS: usize = 100_000;

/// The assumed length of an animation whose length only the model knows.
const UNKNOWN_SECONDS: f64 = 1.0;
/// The assumed size of a map whose size only its ground file knows.
const UNKNOWN_TILES: f64 = 100.0 * 100.0;

/// A job's estimated cost.
pub fn job_cost(j: &Job) -> f64 {
    let frames: f64 = j
        .clips
        .iter()
        .map(|c| match c.clip {
            Clip::Still { .. } => 1.0,
            Clip::Range {
                step: Step::Frames(n),
                ..
            } => n as f64,
            Clip::Range {
                start,
                end,
                step: Step::Fps(fps),
            } => {
                let span = end.map_or(UNKNOWN_SECONDS, |e| (e - start) as f64);
                (span * fps as f64).ceil().max(1.0)
            }
        })
        .sum();
    let v = &j.view;
    let samples = (v.antialias * v.antialias) as f64;
    frames * j.directions.len() as f64 * v.width as f64 * v.height as f64 * samples
}

/// A map's estimated cost.
pub fn map_cost(m: &MapJob) -> f64 {
    use crate::map::camera::MapViewCamera;
    m.views
        .iter()
        .map(|v| {
            let pixels = match v.camera {
                MapViewCamera::TopDown { pixels_per_tile } => {
                    let tiles = v.region.map_or(UNKNOWN_TILES, |r| {
                        r.tiles_wide() as f64 * r.tiles_high() as f64
                    });
                    tiles * (pixels_per_tile as f64).powi(2)
                }
                MapViewCamera::Angled { width, height, .. } => width as f64 * height as f64,
            };
            let frames = v.gif.map_or(1.0, |g| g.frames as f64);
            pixels * frames * (m.antialias * m.antialias) as f64
        })
        .sum()
}

/// The shard each of `costs` falls in (0-based), for `count` shards.
pub fn assign(costs: &[f64], count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..costs.len()).collect();
    // Most costly first; equal costs keep recipe order.
    order.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]).then(a.cmp(&b)));
    // Each job goes to the emptiest shard, the lowest of equals, so shards
    // past the job count are never used: they need no load of their own.
    let mut load = vec![0.0f64; count.min(costs.len()).max(1)];
    let mut out = vec![0; costs.len()];
    for i in order {
        let (shard, _) = load
            .iter()
            .enumerate()
            .fold(
                (0, f64::INFINITY),
                |best, (k, &l)| if l < best.1 { (k, l) } else { best },
            );
        out[i] = shard;
        load[shard] += costs[i];
    }
    out
}

/// The jobs and maps of `shard`, as indices into the jobs' and maps'
/// estimated costs.
pub fn select(
    job_costs: &[f64],
    map_costs: &[f64],
    shard: Shard,
) -> Result<(Vec<usize>, Vec<usize>)> {
    check(shard.index, shard.count).map_err(Error::Usage)?;
    let costs: Vec<f64> = job_costs.iter().chain(map_costs).copied().collect();
    let at = assign(&costs, shard.count);
    let mine = |i: usize| at[i] == shard.index - 1;
    let j = (0..job_costs.len()).filter(|&i| mine(i)).collect();
    let m = (0..map_costs.len())
        .filter(|&i| mine(job_costs.len() + i))
        .collect();
    Ok((j, m))
}

/// One job or map of a plan: its estimated cost and shard.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedJob {
    /// The job's or map's name.
    pub name: String,
    /// `job` or `map`.
    pub kind: &'static str,
    /// Its recipe and line.
    pub recipe: PathBuf,
    /// Its line in the recipe.
    pub line: u64,
    /// The estimated cost (images × pixels × supersamples).
    pub cost: f64,
    /// The shard it falls in, 1-based.
    pub shard: usize,
}

/// Every job and map of `recipes` with its estimated cost and the shard it
/// falls in when split `shards` ways.
pub fn plan(
    recipes: &[crate::bake::recipe::Recipe],
    shards: usize,
) -> std::result::Result<Vec<PlannedJob>, crate::bake::recipe::RecipeError> {
    let mut out: Vec<PlannedJob> = Vec::new();
    for r in recipes {
        // A catalogue's instances resolved one at a time.
        for k in 0..r.job_count() {
            let j = r.job(k)?;
            out.push(PlannedJob {
                name: j.name.clone(),
                kind: "job",
                recipe: j.recipe.clone(),
                line: j.line,
                cost: job_cost(&j),
                shard: 0,
            });
        }
    }
    let maps = recipes.iter().flat_map(|r| r.map_list());
    out.extend(maps.map(|m| PlannedJob {
        name: m.name.clone(),
        kind: "map",
        recipe: m.recipe.clone(),
        line: m.line,
        cost: map_cost(m),
        shard: 0,
    }));
    let costs: Vec<f64> = out.iter().map(|p| p.cost).collect();
    for (p, s) in out.iter_mut().zip(assign(&costs, shards.max(1))) {
        p.shard = s + 1;
    }
    Ok(out)
}

/// A plan as JSON: the jobs, and each shard's total cost.
pub fn plan_json(plan: &[PlannedJob]) -> serde_json::Value {
    let shards = plan.iter().map(|p| p.shard).max().unwrap_or(0);
    let totals: Vec<f64> = (1..=shards)
        .map(|k| plan.iter().filter(|p| p.shard == k).map(|p| p.cost).sum())
        .collect();
    serde_json::json!({
        "jobs": plan.iter().map(|p| serde_json::json!({
            "name": p.name,
            "kind": p.kind,
            "recipe": p.recipe.display().to_string(),
            "line": p.line,
            "cost": p.cost,
            "shard": p.shard,
        })).collect::<Vec<_>>(),
        "shard_costs": totals,
    })
}

impl Shard {
    /// `K/N` (1-based), or `auto`: from `KILN_SHARD` (`K/N`), Kubernetes
    /// Indexed Jobs (`JOB_COMPLETION_INDEX`, 0-based, with the count in
    /// `KILN_SHARD_COUNT`), or Slurm job arrays (`SLURM_ARRAY_TASK_ID`
    /// counted from `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_COUNT`).
    pub fn parse(text: &str) -> std::result::Result<Shard, String> {
        parse(text, &|name| std::env::var(name).ok())
    }
}

/// [`Shard::parse`] with the environment given.
pub fn parse(
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> std::result::Result<Shard, String> {
    if text != "auto" {
        return parse_pair(text);
    }
    if let Some(v) = env("KILN_SHARD") {
        return parse_pair(&v).map_err(|e| format!("KILN_SHARD: {e}"));
    }
    let num = |name: &str| -> std::result::Result<Option<usize>, String> {
        match env(name) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse::<usize>()
                .map(Some)
                .map_err(|_| format!("{name}={v} is not a whole number")),
        }
    };
    if let Some(i) = num("JOB_COMPLETION_INDEX")? {
        let n = num("KILN_SHARD_COUNT")?.ok_or(
            "JOB_COMPLETION_INDEX is set but not KILN_SHARD_COUNT (set it to the Job's completions)",
        )?;
        return check(i + 1, n);
    }
    if let Some(i) = num("SLURM_ARRAY_TASK_ID")? {
        let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let n = num("SLURM_ARRAY_TASK_COUNT")?
            .ok_or("SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT")?;
        return check(
            i.checked_sub(min)
                .ok_or("SLURM_ARRAY_TASK_ID below SLURM_ARRAY_TASK_MIN")?
                + 1,
            n,
        );
    }
    Err("--shard auto found no shard in the environment (KILN_SHARD, JOB_COMPLETION_INDEX with KILN_SHARD_COUNT, or SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT)".into())
}

fn parse_pair(text: &str) -> std::result::Result<Shard, String> {
    let bad = || format!("expected K/N (e.g. 2/3), got `{text}`");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let k: usize = k.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    check(k, n)
}

fn check(index: usize, count: usize) -> std::result::Result<Shard, String> {
    if count == 0 || index == 0 || index > count {
        return Err(format!(
            "shard {index}/{count} does not exist: shards are 1/N to N/N"
        ));
    }
    if count > MAX_SHARDS {
        return Err(format!(
            "shard {index}/{count}: at most {MAX_SHARDS} shards (as `kiln plan --shards`)"
        ));
    }
    Ok(Shard { index, count })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_spread_most_costly_first_to_the_emptiest_shard() {
        assert_eq!(assign(&[5.0, 1.0, 4.0, 2.0, 3.0], 2), vec![0, 0, 1, 0, 1]);
        assert_eq!(assign(&[1.0, 1.0, 1.0], 3), vec![0, 1, 2]);
        assert_eq!(assign(&[], 3), Vec::<usize>::new());
    }

    #[test]
    fn shards_from_flags_and_the_environment() {
        let none = |_: &str| None;
        assert_eq!(parse("2/3", &none), Ok(Shard { index: 2, count: 3 }));
        assert!(parse("0/3", &none).is_err());
        assert!(parse("4/3", &none).is_err());
        assert!(parse("2", &none).is_err());
        assert!(parse("auto", &none).is_err());
        let k8s = |n: &str| match n {
            "JOB_COMPLETION_INDEX" => Some("2".to_string()),
            "KILN_SHARD_COUNT" => Some("4".to_string()),
            _ => None,
        };
        assert_eq!(parse("auto", &k8s), Ok(Shard { index: 3, count: 4 }));
        let slurm = |n: &str| match n {
            "SLURM_ARRAY_TASK_ID" => Some("5".to_string()),
            "SLURM_ARRAY_TASK_MIN" => Some("4".to_string()),
            "SLURM_ARRAY_TASK_COUNT" => Some("3".to_string()),
            _ => None,
        };
        assert_eq!(parse("auto", &slurm), Ok(Shard { index: 2, count: 3 }));
        let kiln = |n: &str| (n == "KILN_SHARD").then(|| "1/2".to_string());
        assert_eq!(parse("auto", &kiln), Ok(Shard { index: 1, count: 2 }));
    }
}
