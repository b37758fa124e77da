//! `auto`: the engine for the board. The backtracker on the core of a completion where the
//! fixed queens leave few rows free ([`super::completion::suits_auto`]), the backtracker on the
//! whole board where it is strong (small boards, regions, the `touch` rule), local search past
//! [`MAX_N`], and in between a race of the two on one core each, in this process: both look
//! at a shared stop flag, so the loser stops within milliseconds.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::{
    check_local_memory, local, local_columns, Budget, ColumnAnswer, EngineSpec, SolvedColumns, Work,
};
use crate::error::Error;
use crate::model::{Problem, MAX_N};

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

/// One solution or "no solution" by [`choose`]'s engine (not yet verified).
pub(super) fn solve(problem: &Problem, seed: u64, budget: &Budget) -> Result<SolvedColumns, Error> {
    match choose(problem) {
        Choice::Local => {
            check_local_memory(problem, budget)?;
            local_columns(problem, seed, budget)
        }
        Choice::Backtrack => backtrack_columns(problem, budget, 0),
        Choice::Core => super::completion::solve_columns(problem, seed, budget),
        Choice::Race => race(problem, seed, budget),
    }
}

fn backtrack_columns(
    problem: &Problem,
    budget: &Budget,
    threads: usize,
) -> Result<SolvedColumns, Error> {
    let spec = EngineSpec::Backtrack { threads };
    let s = super::solve(problem, spec, budget)?;
    let answer = s
        .answer
        .map_sat(|q| super::columns_of(problem.n(), &q))
        .map_unsat(|()| None);
    Ok(SolvedColumns {
        answer,
        work: Work {
            answered_by: Some(spec),
            ..s.work
        },
    })
}

/// The backtracker (one thread, here) against local search (a second thread). A local
/// search that gives up leaves the backtracker to finish alone.
fn race(problem: &Problem, seed: u64, budget: &Budget) -> Result<SolvedColumns, Error> {
    let stop = Arc::new(AtomicBool::new(false));
    let sub = |budget: &Budget| Budget {
        cancel: Some(stop.clone()),
        progress: None,
        ..budget.clone()
    };
    let (back, local) = std::thread::scope(|s| {
        // The caller's cancel flag reaches both sides through `stop`.
        let watch = s.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                if budget.cancelled() {
                    stop.store(true, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        let local_budget = sub(budget);
        let local = s.spawn(move || {
            let r = local_columns(problem, seed, &local_budget);
            // A solution or a refutation ends the race; giving up does not.
            if matches!(
                &r,
                Ok(SolvedColumns {
                    answer: ColumnAnswer::Sat(_) | ColumnAnswer::Unsat(_),
                    ..
                }) | Err(_)
            ) {
                if let Some(c) = &local_budget.cancel {
                    c.store(true, Ordering::Relaxed);
                }
            }
            r
        });
        let back = backtrack_columns(problem, &sub(budget), 1);
        let finished = matches!(
            &back,
            Ok(SolvedColumns {
                answer: ColumnAnswer::Sat(_) | ColumnAnswer::Unsat(_),
                ..
            })
        );
        if finished || back.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        let local = local.join();
        stop.store(true, Ordering::Relaxed);
        let _ = watch.join();
        (back, local)
    });
    let local = local.map_err(|_| Error::internal("the local search thread panicked"))?;
    let back = back?;
    let local = local?;
    // The first real answer wins; with both, the backtracker's (it can prove).
    let winner = match (&back.answer, &local.answer) {
        (ColumnAnswer::Sat(_) | ColumnAnswer::Unsat(_), _) => back,
        (_, ColumnAnswer::Sat(_) | ColumnAnswer::Unsat(_)) => local,
        _ => SolvedColumns {
            answer: ColumnAnswer::Interrupted,
            work: Work {
                local: local.work.local,
                nodes: back.work.nodes,
                ..Work::default()
            },
        },
    };
    Ok(winner)
}
