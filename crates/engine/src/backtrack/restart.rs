//! Short seeded runs before the complete search on large boards (restarts with Luby limits).
//!
//! On boards above 64 the most-constrained line with least-constraining cells (Kalé 1990)
//! places most queens without a mistake, but when a descent fails it fails deep and for a
//! reason chronological backtracking cannot reach. On the empty 1500×1500 board the first
//! dead end comes after 82 % of the queens, and the last 40 queens before it all stand on
//! even rows and odd columns: the rows and columns left over were cornered into one parity
//! class hundreds of levels up, while the search spent 2 million nodes within 15 levels of
//! the dead end. The same happens on 38 % of the sizes from 400 to 1800 and on completions
//! with a few queens (two queens near the bottom of the 1500×1500 board). The
//! cure for such heavy-tailed runs is restarting in another order (Gomes, Selman & Kautz,
//! "Boosting combinatorial search through randomization", AAAI 1998): over 40 orders, one
//! descent plus a few hundred nodes of repairs finds a board 40–85 % of the time on empty
//! and completion boards from n = 200 to 1500, and more repairs than a descent's length
//! hardly help. So [`solve`] first tries runs with a node limit: the index order (the
//! complete search's own, so a search its first descent settles ends as it always did),
//! then orders that break ties by a hash of the run's number, with limits of a descent plus
//! 1, 1, 2, 1, 1, 2, 4, … units (Luby, Sinclair & Zuckerman, "Optimal speedup of Las Vegas
//! algorithms", 1993). A run that ends under its limit settles the question either way (a
//! board, or the whole tree searched). After [`RUNS`] runs the complete search starts,
//! unlimited and in the index order, so `solve` still proves that there is no solution.
//! Every order is fixed by the run's number: the same problem always gives the same board,
//! on any number of threads.

use super::board::{place_fixed, Board, LargeBoard};
use super::config::{Config, Stats};
use super::search::{solve_on, Run};
use queens_model::model::{Pos, Problem};

/// Limited runs before the complete search: Luby's sequence up to its first 16, so the
/// limited runs together spend at most 31 descents and 80 units, a bounded price for a
/// problem without a solution, while the chance that a 50 % order fails 30 times is 1e-9.
const RUNS: u64 = 31;

/// Nodes per Luby unit, at least: a run's limit is the queens to place plus its units.
const MIN_UNIT: u64 = 64;

/// Solves a problem on the large board: limited runs, then the complete search (which
/// splits over threads as [`super::first_solution`] describes).
pub(super) fn with_restarts(problem: &Problem, config: &Config) -> (Option<Vec<Pos>>, Stats) {
    let mut board = LargeBoard::new(problem);
    if !place_fixed(&mut board, problem) {
        return (None, Stats::default());
    }
    let to_place = (board.n() - board.queens().len()) as u64;
    // A unit is as many nodes as a descent: repairs near the bottom are cheap nodes.
    let unit = to_place.max(MIN_UNIT);
    // One search for all runs, so its candidate buffers (a row each near the top) are
    // allocated once; its node count goes on, and each run's limit is counted from it.
    let mut search = Run::new(config, None);
    for run in 1..=RUNS {
        board.break_ties((run > 1).then_some(run));
        search.limit = search.nodes + to_place + unit * luby(run);
        search.cut = false;
        let mut found = None;
        search.search(&mut board, &mut |q: &[Pos]| {
            let mut q = q.to_vec();
            q.sort_unstable();
            found = Some(q);
            false
        });
        if found.is_some() || !search.cut {
            // A board, the whole tree searched (no board), or a deadline or stop flag.
            let interrupted = search.interrupted && found.is_none();
            return (
                found,
                Stats {
                    nodes: search.nodes,
                    interrupted,
                },
            );
        }
    }
    let (found, stats) = solve_on::<LargeBoard>(problem, config);
    (
        found,
        Stats {
            nodes: search.nodes + stats.nodes,
            ..stats
        },
    )
}

/// The `i`-th term (from 1) of Luby's sequence: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, …
fn luby(mut i: u64) -> u64 {
    loop {
        // 2^(k−1) ≤ i < 2^k: the sequence's first 2^k − 1 terms end with 2^(k−1), and the
        // terms before that repeat the first 2^(k−1) − 1.
        let k = u64::BITS - i.leading_zeros();
        if i == (1 << k) - 1 {
            return 1 << (k - 1);
        }
        i -= (1 << (k - 1)) - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use queens_model::model::Diagonal::{Diff, Sum};

    #[test]
    fn a_problem_without_solution_is_proved_after_the_limited_runs() {
        // 12 Excluded Diagonals of a 14×14 board: no solution, and every order's proof is
        // longer than its run's limit, so all the limited runs end cut and the complete
        // search gives the answer. (The first 12 diagonals of `generate::diagonals(14, 4, 3)`,
        // written out: the engines do not use the generators, which sit above them.)
        let list = [
            Diff(2),
            Diff(19),
            Sum(16),
            Sum(1),
            Diff(13),
            Diff(26),
            Sum(3),
            Diff(5),
            Sum(19),
            Diff(14),
            Diff(25),
            Diff(6),
        ];
        let p = Problem::sized(14).unwrap().with_excluded(&list).unwrap();
        let config = Config {
            threads: 1,
            ..Config::default()
        };
        let (found, stats) = with_restarts(&p, &config);
        assert!(found.is_none() && !stats.interrupted);
        let limited: u64 = (1..=RUNS).map(|i| 14 + MIN_UNIT * luby(i)).sum();
        assert!(stats.nodes > limited, "{} nodes", stats.nodes);
    }

    #[test]
    fn a_deadline_ends_the_limited_runs_as_an_interruption() {
        let config = Config {
            deadline: Some(std::time::Instant::now()),
            ..Config::default()
        };
        let (found, stats) = with_restarts(&Problem::new(700).unwrap(), &config);
        assert!(found.is_none() && stats.interrupted);
    }

    #[test]
    fn luby_sequence_starts_as_published() {
        let first: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(first, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
        assert_eq!(luby(RUNS), 16);
    }
}
