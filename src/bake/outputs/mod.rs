//! Where a bake's files go and what it remembers of them: the [`sink`]
//! every file is handed to (written by the write rule, dry run or
//! compared), the job's [`state`] and the shared cache, the restore and
//! the end of a job ([`incremental`]), [`prune`], and the [`claims`] check
//! that no two jobs write one file.

pub mod claims;
pub mod incremental;
pub mod prune;
pub mod sink;
pub mod state;
