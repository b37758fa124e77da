//! `auto`: the engine for the board. The backtracker on the core of a completion where the
//! fixed queens leave few rows free ([`super::completion::suits_auto`]), the backtracker on the
//! whole board where it is strong (small boards, regions, the `touch` rule), local search past
//! [`MAX_N`], and in between a race of the two on one core each, in this process
//! ([`crate::race::Race`]): each looks at its stop flag, so the loser stops within milliseconds.

use crate::engines::{Backtrack, Core, Engine, Local};
use crate::race::Race;
use crate::{check_local_memory, local, Budget, EngineName, SolvedColumns};
use queens_model::error::Error;
use queens_model::model::{Problem, MAX_N};

/// Boards smaller than this go to the backtracker alone: it answers them in well under a
/// millisecond, and proves "no solution" where there is none (n = 2, 3).
pub const RACE_FROM_N: usize = 32;

/// What `auto` runs on a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The backtracker alone.
    Backtrack,
    /// Local search alone.
    Local,
    /// Both at once; the first answer wins.
    Race,
    /// The complete search on the core of a completion ([`super::completion`]).
    Core,
}

/// `auto`'s choice for one solution of `problem`.
pub fn choose(problem: &Problem) -> Choice {
    if super::completion::suits_auto(problem) {
        Choice::Core
    } else if problem.n() > MAX_N {
        Choice::Local
    } else if local::supports(problem).is_err() || problem.n() < RACE_FROM_N {
        Choice::Backtrack
    } else {
        Choice::Race
    }
}

/// The engine for the job: [`choose`]'s, answering as `auto` (`work.answered_by` names the
/// engine that answered).
pub struct Auto {
    /// The local engine's seed.
    pub seed: u64,
}

impl Engine for Auto {
    fn name(&self) -> EngineName {
        EngineName::Auto
    }

    /// One solution or "no solution" by [`choose`]'s engine (not yet verified).
    fn solve(&self, problem: &Problem, budget: &Budget) -> Result<SolvedColumns, Error> {
        let seed = self.seed;
        match choose(problem) {
            Choice::Local => {
                check_local_memory(problem, budget)?;
                Local { seed }.solve(problem, budget)
            }
            Choice::Backtrack => whole_board(0).solve(problem, budget),
            Choice::Core => Core { seed }.solve(problem, budget),
            // The backtracker (one thread, here) against local search (a second thread). A
            // local search that gives up leaves the backtracker to finish alone.
            Choice::Race => Race {
                name: EngineName::Auto,
                first: whole_board(1),
                second: Local { seed },
            }
            .solve(problem, budget),
        }
    }
}

/// The backtracker on the whole board.
fn whole_board(threads: usize) -> Backtrack {
    Backtrack {
        threads,
        rings: false,
    }
}
