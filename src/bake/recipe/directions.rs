//! The camera yaws of a job: `directions: 8` (spread evenly from the front)
//! or `directions: [0, 90, 180, 270]`. Row `i` of a clip's sheet block is
//! direction `i`.

use super::defaults::{self, MAX_DIRECTIONS};
use super::error::{Ctx, JobLabel, RecipeError};
use super::values::{Directions, S};

/// One direction a job is rendered from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Direction {
    /// Position in the job's `directions` (the sheet row within a clip).
    pub index: usize,
    /// Degrees; 0 looks at the model's front (+Z) and angles grow toward +X.
    pub yaw: f32,
}

/// The job's (or the defaults') `directions`, or eight evenly spaced.
pub(super) fn resolve_directions(
    ctx: &Ctx,
    lab: JobLabel,
    job: Option<&S<Directions>>,
    def: Option<&S<Directions>>,
) -> Result<Vec<Direction>, RecipeError> {
    let Some(s) = job.or(def) else {
        return Ok(evenly(defaults::DIRECTIONS as usize));
    };
    let l = lab.of(job.is_some());
    match &s.value {
        Directions::Count(n) => {
            if !(1..=MAX_DIRECTIONS as i64).contains(n) {
                return Err(ctx.err(
                    &s.referenced,
                    &l,
                    format!("`directions` must be in 1..={MAX_DIRECTIONS}, got {n}"),
                ));
            }
            Ok(evenly(*n as usize))
        }
        Directions::Yaws(list) => {
            if list.is_empty() {
                return Err(ctx.err(
                    &s.referenced,
                    &l,
                    "`directions` needs at least one yaw angle",
                ));
            }
            let mut out = Vec::with_capacity(list.len());
            for (index, &y) in list.iter().enumerate() {
                if !y.is_finite() || y.abs() > f64::from(super::defaults::MAX_YAW) {
                    return Err(ctx.err(
                        &s.referenced,
                        &l,
                        format!("`directions[{index}]` must be a finite angle in degrees, got {y}"),
                    ));
                }
                let yaw = y as f32;
                if let Some(p) = out.iter().position(|o: &Direction| o.yaw == yaw) {
                    return Err(ctx.err(
                        &s.referenced,
                        &l,
                        format!("`directions[{index}]` repeats yaw {yaw} of directions[{p}]"),
                    ));
                }
                out.push(Direction { index, yaw });
            }
            Ok(out)
        }
    }
}

fn evenly(n: usize) -> Vec<Direction> {
    (0..n)
        .map(|index| Direction {
            index,
            yaw: (index as f64 * 360.0 / n as f64) as f32,
        })
        .collect()
}
