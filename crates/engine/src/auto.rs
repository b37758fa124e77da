//! `auto`: the engine for the board, as [`crate::plan::choose`] chooses it. The portfolio
//! on a classic completion ([`crate::portfolio`]: refutations, then the core search and
//! local search side by side), the backtracker on the whole board where it is strong
//! (small boards, regions, the `touch` rule), local search on an empty board past
//! [`queens_model::model::MAX_N`], and in between a race of the two whole-board engines on
//! one core each, in this process ([`crate::race::Race`]): each looks at its stop flag, so
//! the loser stops within milliseconds.

use crate::engines::{Backtrack, Engine, Local};
use crate::plan::{choose, Choice};
use crate::portfolio::Portfolio;
use crate::race::Race;
use crate::{check_local_memory, Budget, EngineName, SolvedColumns};
use queens_model::error::Error;
use queens_model::model::Problem;

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
            Choice::Portfolio => Portfolio { seed }.solve(problem, budget),
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
