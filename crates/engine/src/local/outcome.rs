//! What a run of local search ends with.

/// What a run ended with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A solution, one column per row (not yet verified: callers verify).
    Solved(Vec<u32>),
    /// Proven: no solution, with the reason (a cheap refutation, see [`super::refute`]).
    Refuted(String),
    /// Every restart ran out of moves: no answer (never "no solution").
    GaveUp,
    /// The budget's deadline or cancel flag stopped the search.
    Interrupted,
}
