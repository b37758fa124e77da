//! Property tests: on random small problems the backtracker agrees with brute force.

use proptest::prelude::*;
use queens::engine::backtrack::{self, BoardKind, Config};

use super::gen;

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn backtracker_matches_brute_force(p in gen::problem(7)) {
        let expected = gen::brute_force(&p);
        for board in [BoardKind::Small, BoardKind::Large] {
            let config = Config { board, ..Config::default() };
            let mut found = Vec::new();
            backtrack::enumerate(&p, &config, None, |q| {
                found.push(q.to_vec());
                true
            });
            found.sort();
            for q in &found {
                prop_assert!(queens::verify(&p, q).is_ok(), "{:?}: {:?}", board, queens::verify(&p, q));
            }
            prop_assert_eq!(&found, &expected, "{:?}", board);
            let c = backtrack::count(&p, &config, None);
            prop_assert_eq!(c.total, expected.len() as u64);
            let (one, _) = backtrack::first_solution(&p, &config);
            prop_assert_eq!(one.is_some(), !expected.is_empty());
        }
    }

    #[test]
    // Small boards: these searches end inside the parallel solve's sequential probe, so this
    // checks the probe; facts::parallel_solve_matches_sequential_on_excluded_diagonals checks
    // the split.
    fn parallel_solve_returns_the_sequential_answer(p in gen::problem(7), threads in 2usize..5) {
        for board in [BoardKind::Small, BoardKind::Large] {
            let one = Config { board, threads: 1, ..Config::default() };
            let many = Config { board, threads, ..Config::default() };
            prop_assert_eq!(backtrack::first_solution(&p, &many).0, backtrack::first_solution(&p, &one).0, "{:?}", board);
        }
    }

    #[test]
    fn count_limit_caps_and_flags(p in gen::problem(6), k in 1u64..4) {
        let all = gen::brute_force(&p).len() as u64;
        let c = backtrack::count(&p, &Config::default(), Some(k));
        prop_assert_eq!(c.total, all.min(k));
        prop_assert_eq!(c.limited, all >= k);
    }
}
