//! What a run may spend: the [`Budget`] every engine and operation polls.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Progress callback: (units done, units in all), e.g. subtrees of a count.
pub type Progress = Arc<dyn Fn(u64, u64) + Send + Sync>;

/// What a run may spend: a deadline, a cancel flag a caller can set from another thread,
/// and where to report progress. The default is unlimited.
#[derive(Clone, Default)]
pub struct Budget {
    /// Engines stop, answering "interrupted", once this instant passes.
    pub deadline: Option<Instant>,
    /// Engines stop, answering "interrupted", once this is set (a cancelled job, a client that
    /// went away).
    pub cancel: Option<Arc<AtomicBool>>,
    /// Called as work is done, where the engine can tell (the backtracker's counts).
    pub progress: Option<Progress>,
    /// Refuse (with [`crate::error::Error::TooLarge`]) work whose estimated memory is over this many
    /// bytes, before allocating it: see the SAT engine's memory estimate.
    pub max_memory: Option<u64>,
}

impl Budget {
    /// True once the cancel flag is set.
    pub fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// True once the cancel flag is set or the deadline has passed.
    pub fn exhausted(&self) -> bool {
        self.cancelled() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}
