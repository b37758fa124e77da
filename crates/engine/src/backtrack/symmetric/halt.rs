//! When a symmetric count must stop early.

use std::sync::atomic::{AtomicBool, Ordering};

/// When a count must stop early: the caller's deadline and stop flag.
#[derive(Default)]
pub(super) struct Halt {
    pub(super) deadline: Option<std::time::Instant>,
    pub(super) stop: Option<std::sync::Arc<AtomicBool>>,
}

impl Halt {
    pub(super) fn now(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
            || self
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
    }
}
