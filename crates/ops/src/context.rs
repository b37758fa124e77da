//! What every operation runs under and hands back beside its answer: the [`Context`] (budget,
//! isolation, where a proof goes) and the [`Artifacts`] (files such as a proof).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use queens_engine::Budget;

/// Files an operation produced beside its JSON answer (an UNSAT proof and the CNF it
/// refutes), by name: the CLI writes them where the user asked, the service stores them with
/// the job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Artifacts(pub Vec<(String, Vec<u8>)>);

impl Artifacts {
    /// The artifact called `name`.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
    }
}

/// How an operation may run: its budget, and whether work on an engine that cannot be
/// interrupted (varisat) runs in a child process of `isolate` (this program's executable,
/// as `queens op`), killed at the deadline or on cancel.
#[derive(Clone, Default)]
pub struct Context {
    /// Deadline, cancel flag and progress callback.
    pub budget: Budget,
    /// The `queens` executable to run uninterruptible work in; `None` runs it in-process
    /// (the deadline is then only looked at between solver calls).
    pub isolate: Option<PathBuf>,
    /// Where a proof goes when the caller wants it in a file (the CLI's `--proof`): the
    /// backtracker's LRAT then streams there instead of coming back as an artifact, so the
    /// disk, not memory, bounds it. `None`: proofs are artifacts.
    pub proof_file: Option<PathBuf>,
}

impl Context {
    /// This context with the deadline moved up to `timeout_ms` from now, if that is sooner.
    pub fn with_timeout_ms(&self, timeout_ms: Option<u64>) -> Context {
        let mut ctx = self.clone();
        if let Some(ms) = timeout_ms {
            let d = Instant::now().checked_add(Duration::from_millis(ms));
            ctx.budget.deadline = match (ctx.budget.deadline, d) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        ctx
    }

    /// This context with a progress callback.
    pub fn with_progress(mut self, progress: impl Fn(u64, u64) + Send + Sync + 'static) -> Self {
        self.budget.progress = Some(Arc::new(progress));
        self
    }
}

/// Milliseconds a timeout stands for in a response, rounded to microseconds.
pub(crate) fn ms(t: Instant) -> f64 {
    queens_engine::ms(t)
}
