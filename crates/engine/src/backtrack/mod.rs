//! The native engine: bitset backtracking with most-constrained line choice.
//!
//! At every node the search picks the open row, column or region with the fewest open cells
//! (a dead end when one has none) and branches over its cells. Fixed queens are placed first.
//! On large boards, `first_solution` first tries short runs in other tie orders (`restart.rs`).
//! Counting splits the tree into subtrees shared by all cores; counting the empty classic
//! board uses the square's symmetry instead ([`symmetric`]).

mod board;
pub mod certify;
mod config;
mod restart;
mod search;
pub mod symmetric;

use board::{Board, LargeBoard, SmallBoard};
use search::{count_on, enumerate_on, solve_on, use_small};

use queens_model::model::{Pos, Problem};

pub use config::{BoardKind, Config, Count, Stats};

/// Finds one solution (sorted by row), or proves there is none.
///
/// With more than one thread (`config.threads`; 0 = all cores) the tree is split into subtrees
/// searched in parallel, and the answer is still the one the sequential search finds: a
/// solution in subtree `i` cancels only the subtrees after `i`, and the earliest wins.
pub fn first_solution(problem: &Problem, config: &Config) -> (Option<Vec<Pos>>, Stats) {
    if use_small(problem, config.board) {
        solve_on::<SmallBoard>(problem, config)
    } else {
        restart::with_restarts(problem, config)
    }
}

/// Calls `visit` with each solution (sorted by row), up to `limit` of them; `visit` returns
/// false to stop early.
pub fn enumerate(
    problem: &Problem,
    config: &Config,
    limit: Option<u64>,
    visit: impl FnMut(&[Pos]) -> bool,
) -> Stats {
    let mut visit = limited(limit, visit);
    if use_small(problem, config.board) {
        enumerate_on(
            &mut SmallBoard::new(problem),
            problem,
            config,
            None,
            &mut visit,
        )
    } else {
        enumerate_on(
            &mut LargeBoard::new(problem),
            problem,
            config,
            None,
            &mut visit,
        )
    }
}

/// Counts solutions, on all cores, up to `limit` if given.
pub fn count(problem: &Problem, config: &Config, limit: Option<u64>) -> Count {
    if limit.is_none() && problem.is_empty_classic() {
        if let Some(c) = symmetric::count(problem.n(), config) {
            return c;
        }
        if problem.n() < 5 {
            let mut all = Vec::new();
            let stats = enumerate(problem, config, None, |q| {
                all.push(q.to_vec());
                true
            });
            return Count {
                total: all.len() as u64,
                unique: Some(symmetric::unique_by_canonical_form(problem.n(), &all)),
                limited: false,
                stats,
            };
        }
    }
    if use_small(problem, config.board) {
        count_on::<SmallBoard>(problem, config, limit)
    } else {
        count_on::<LargeBoard>(problem, config, limit)
    }
}

/// `visit`, stopping the search after `limit` solutions.
fn limited(
    limit: Option<u64>,
    mut visit: impl FnMut(&[Pos]) -> bool,
) -> impl FnMut(&[Pos]) -> bool {
    let mut seen = 0u64;
    move |q| {
        seen += 1;
        visit(q) && limit.is_none_or(|k| seen < k)
    }
}
