//! The portfolio's decision on a classic completion and how its run ended, as plain figures:
//! [`crate::plan`] makes the decision and words it, [`crate::portfolio`] runs it, and a run's
//! [`crate::Work`] carries both so that its answer can say what ran and why.

/// The portfolio's decision on a classic completion, made before any core is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Portfolio {
    /// Free rows.
    pub free_rows: usize,
    /// The core's open cells, estimated from a sample of its rows.
    pub cells: u64,
    /// The core's memory at its peak, estimated ([`crate::completion::memory_estimate`]).
    pub core_memory: u64,
    /// Local search's memory ([`crate::local::memory_estimate`]).
    pub local_memory: u64,
    /// Local search runs (it fits the memory limit).
    pub local: bool,
    /// The core may be built at all: it fits [`crate::completion::fits`] and the memory
    /// limit.
    pub core: bool,
    /// The core is built at once, beside local search; otherwise only once local search has
    /// given up (or when it does not run).
    pub core_first: bool,
}

/// How a run of the portfolio ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The fixed queens break a rule: refuted before any engine ran.
    Presets,
    /// Hall's condition on the bitmaps refuted the board before any core was built.
    Hall,
    /// The core's side answered: its presolve's refutations (`searched` false) or its
    /// search.
    Core {
        /// The core was built and searched.
        searched: bool,
    },
    /// Local search gave up, and the whole-board backtracker answered.
    WholeBoard,
    /// Local search answered.
    Local,
    /// Local search gave up and no complete engine could take the board.
    GaveUp,
    /// The limits (time, cancel) stopped the run before an answer.
    Stopped,
}

/// One run of the portfolio: its decision (none when the fixed queens were refuted first)
/// and how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortfolioRun {
    /// The decision, made before any core was built.
    pub decision: Option<Portfolio>,
    /// How it ended.
    pub ending: Ending,
}
