//! Planning across jobs: cost-balanced [`shard`]s of a bake, and the
//! [`schedule`] that runs jobs side by side within the memory budget and
//! reports them in recipe order.

pub mod schedule;
pub mod shard;
