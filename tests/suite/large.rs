//! Large boards: big completions answered by the default search in a few descents, the same
//! board on every run and every thread count, and proofs of "no solution" still complete.

use queens::engine::backtrack::{self, BoardKind, Config};
use queens::{generate, Pos, Problem};

/// The default search's board for a problem that has one, verified, with the nodes spent.
fn solved(p: &Problem) -> (Vec<Pos>, u64) {
    let (q, stats) = backtrack::first_solution(p, &Config::default());
    let q = q.unwrap_or_else(|| panic!("no board for n = {} {:?}", p.n(), p.fixed()));
    queens::verify(p, &q).unwrap();
    assert!(!stats.interrupted);
    (q, stats.nodes)
}

fn preset(n: usize, queens: &[Pos]) -> Problem {
    Problem::new(n).unwrap().with_fixed(queens).unwrap()
}

#[test]
#[cfg_attr(debug_assertions, ignore = "release only: 1500×1500 boards")]
fn two_queens_near_the_bottom_of_1500_take_a_few_descents_and_the_same_board_always() {
    // A reproducer: the first descent dies at about row 1230 of 1500 and plain
    // backtracking searched for hours; a restart finds a board.
    let p = preset(1500, &[(1496, 1), (1495, 3)]);
    let (board, nodes) = solved(&p);
    assert!(nodes < 5 * 1500, "{nodes} nodes");
    for threads in [1, 2, 0] {
        let config = Config {
            threads,
            ..Config::default()
        };
        let (again, _) = backtrack::first_solution(&p, &config);
        assert_eq!(again.as_ref(), Some(&board), "{threads} threads");
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "release only: boards up to 2000×2000")]
fn big_completions_are_answered_in_a_few_descents() {
    // Seeds 2, 3, 6 and 7 at n = 1000 and the corner and last-row presets ran past five
    // seconds before the restarts. A descent is n − fixed nodes, so the bound says "a
    // handful of descents", deterministically, where a time limit would depend on the load.
    let mut cases: Vec<Problem> = (1..=8)
        .map(|seed| generate::completion(1000, 5, seed).unwrap())
        .collect();
    cases.extend([
        preset(1200, &[(1199, 0), (1198, 2)]),
        preset(1000, &[(999, 999), (998, 997)]),
        preset(1000, &[(0, 0), (999, 1), (1, 998)]),
        preset(2000, &[(1999, 5), (1998, 1000), (1997, 1994)]),
        preset(800, &[(799, 0), (798, 2), (797, 4), (796, 6)]),
        preset(1500, &[(0, 1), (1, 3)]),
    ]);
    for p in &cases {
        let (_, nodes) = solved(p);
        assert!(
            nodes < 16 * p.n() as u64,
            "n = {} {:?}: {nodes} nodes",
            p.n(),
            p.fixed()
        );
    }
}

#[test]
fn empty_boards_the_first_descent_fails_on_are_solved() {
    // The sizes below 1000 where the search without restarts needed seconds or more.
    for n in [414, 456, 603, 700, 736] {
        let (_, nodes) = solved(&Problem::new(n).unwrap());
        assert!(nodes < 16 * n as u64, "n = {n}: {nodes} nodes");
    }
}

/// Excluded Diagonals at n = 18 on the large board: every search outlasts the limited runs,
/// so the answer comes from the complete search, split over threads when asked.
#[test]
fn past_the_limited_runs_the_search_is_complete_and_the_same_on_any_thread_count() {
    let (mut sat, mut unsat) = (0, 0);
    for seed in [3, 4, 7, 9, 11] {
        let list = generate::diagonals(18, 4, seed);
        let p = generate::diagonals_problem(18, &list, Some(16)).unwrap();
        let on = |board, threads| Config {
            board,
            threads,
            ..Config::default()
        };
        let (one, stats) = backtrack::first_solution(&p, &on(BoardKind::Large, 1));
        let (two, _) = backtrack::first_solution(&p, &on(BoardKind::Large, 2));
        assert_eq!(two, one, "seed {seed}");
        assert!(!stats.interrupted);
        let (small, _) = backtrack::first_solution(&p, &on(BoardKind::Small, 1));
        assert_eq!(one.is_some(), small.is_some(), "seed {seed}");
        match one {
            Some(q) => {
                queens::verify(&p, &q).unwrap();
                sat += 1;
            }
            None => unsat += 1,
        }
    }
    assert!(sat > 0 && unsat > 0, "{sat} sat, {unsat} unsat");
}
