//! Where an answer stands: one set of outcomes from the engines up through the operations,
//! batch runs, merges, `compare` and the games, each written in JSON and CSV by its
//! snake-case name.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::budget::Budget;

/// Where an answer stands. Each operation uses the values its docs name; the CLI's exit
/// code follows from it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A solution was found (solve, explain, decode), or the count is exact and positive.
    Sat,
    /// Proven: no solution (or an exact count of 0).
    Unsat,
    /// `count` stopped at its limit: the count is a lower bound.
    Limited,
    /// The deadline passed before an answer; what was found so far is included.
    Timeout,
    /// The work was cancelled before an answer.
    Cancelled,
    /// An external solver's output gave no answer (`s UNKNOWN`).
    Unknown,
    /// `check`: all n queens placed, no conflict.
    Solved,
    /// `check`: no conflict yet, fewer than n queens.
    Consistent,
    /// `check`: the queens break a rule.
    Invalid,
    /// A search with no yes/no answer ran to its end (the games' solvers and simulations).
    Ok,
    /// The memory limit stopped the search before its end.
    Memory,
    /// A replay: every move legal (and every claim of the file true).
    Legal,
    /// A replay: a move breaks the rules (`illegal` names the first).
    Illegal,
    /// A replay: the moves are legal but the file's `queens` or `state` is wrong.
    FalseClaim,
    /// A strategy replay: a legal reply the strategy does not answer.
    Incomplete,
    /// `compare` and batch runs: no answer because the attempt failed (an input that could
    /// not be read, an engine that refused the instance, a child that crashed or reported a
    /// board the verifier rejects).
    Error,
    /// `compare`: the engine cannot run on this instance (a complete engine on a board past
    /// 4096 rows, local search on a region puzzle); nothing ran.
    Unsupported,
}

impl Status {
    /// The name JSON and CSV use (`sat`, `unsat`, `timeout`, …).
    pub fn name(self) -> &'static str {
        match self {
            Status::Sat => "sat",
            Status::Unsat => "unsat",
            Status::Limited => "limited",
            Status::Timeout => "timeout",
            Status::Cancelled => "cancelled",
            Status::Unknown => "unknown",
            Status::Solved => "solved",
            Status::Consistent => "consistent",
            Status::Invalid => "invalid",
            Status::Ok => "ok",
            Status::Memory => "memory",
            Status::Legal => "legal",
            Status::Illegal => "illegal",
            Status::FalseClaim => "false_claim",
            Status::Incomplete => "incomplete",
            Status::Error => "error",
            Status::Unsupported => "unsupported",
        }
    }

    /// The CLI's exit code: 0 an answer that says yes (or a search that ran to its end),
    /// 1 proven no (or a broken board or move list), 4 no answer within the limits, 3 a
    /// failed attempt.
    pub fn exit_code(self) -> u8 {
        match self {
            Status::Sat | Status::Solved | Status::Consistent | Status::Ok | Status::Legal => 0,
            Status::Unsat
            | Status::Invalid
            | Status::Illegal
            | Status::FalseClaim
            | Status::Incomplete => 1,
            Status::Limited
            | Status::Timeout
            | Status::Cancelled
            | Status::Unknown
            | Status::Memory => 4,
            Status::Error | Status::Unsupported => 3,
        }
    }

    /// `Some(true)` for `sat`, `Some(false)` for `unsat`, `None` for anything else (no
    /// answer to "is there a solution?").
    pub fn answer(self) -> Option<bool> {
        match self {
            Status::Sat => Some(true),
            Status::Unsat => Some(false),
            _ => None,
        }
    }

    /// The status of a run the budget cut short.
    pub fn interrupted(budget: &Budget) -> Status {
        if budget.cancelled() {
            Status::Cancelled
        } else {
            Status::Timeout
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
