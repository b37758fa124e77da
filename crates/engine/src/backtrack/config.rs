//! What one backtracking run is given and what it reports: the board representation, the
//! knobs (deadline, stop flag, threads, progress, ring prune), and the work and count.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Which board representation to search on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BoardKind {
    /// Single-word rows for n ≤ 64, multi-word rows above.
    #[default]
    Auto,
    /// Force single-word rows (n ≤ 64 only).
    Small,
    /// Force multi-word rows (any n); tests use it to cross-check the two.
    Large,
}

/// Knobs for one backtracking run.
#[derive(Clone, Default)]
pub struct Config {
    /// Board representation.
    pub board: BoardKind,
    /// Stop (and report `interrupted`) once this instant passes.
    pub deadline: Option<Instant>,
    /// Stop (and report `interrupted`) once this flag is set: a cancelled request or job.
    /// Polled with the deadline, every 4096 nodes.
    pub stop: Option<std::sync::Arc<AtomicBool>>,
    /// Worker threads for counting; 0 means all available cores.
    pub threads: usize,
    /// Called with (subtrees done, subtrees in all) while counting.
    pub progress: Option<std::sync::Arc<dyn Fn(u64, u64) + Send + Sync>>,
    /// Prune with the ring bounds ([`crate::cnf::rings`]): a placement after which some
    /// ring can no longer end within its bounds is not searched. Off by default; only for
    /// the full diagonal rule, where the bounds hold.
    pub rings: bool,
}

impl Config {
    /// The configuration of a run within `budget`, on `threads` threads (0 = all cores).
    pub fn within(budget: &queens_model::Budget, threads: usize) -> Config {
        Config {
            deadline: budget.deadline,
            stop: budget.cancel.clone(),
            threads,
            progress: budget.progress.clone(),
            ..Config::default()
        }
    }
}

/// Work done by a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Queens placed by the search (fixed queens not included).
    pub nodes: u64,
    /// True when the deadline or the stop flag ended the run before it finished.
    pub interrupted: bool,
}

/// Result of a count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    /// Solutions found (capped at the limit, if one was given).
    pub total: u64,
    /// Solutions distinct up to rotation and reflection, where defined (empty classic board,
    /// counted without a limit).
    pub unique: Option<u64>,
    /// True when the count stopped at the limit.
    pub limited: bool,
    /// Work done.
    pub stats: Stats,
}
