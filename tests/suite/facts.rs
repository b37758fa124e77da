//! Known facts: OEIS A000170 and A002562, Nauck's 1850 instance, the project's instances.

use queens::engine::backtrack::{self, symmetric, BoardKind, Config};
use queens::{formats, Problem};

/// A000170: solutions of the n-queens problem, n = 1..18.
const A000170: [u64; 18] = [
    1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512, 95815104,
    666090624,
];
/// A002562: solutions distinct up to rotation and reflection, n = 1..18.
const A002562: [u64; 18] = [
    1, 0, 0, 1, 2, 1, 6, 12, 46, 92, 341, 1787, 9233, 45752, 285053, 1846955, 11977939, 83263591,
];

pub fn instance(name: &str) -> Problem {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances")
        .join(name);
    formats::read_path(&path).unwrap()
}

#[test]
fn counts_match_a000170_up_to_14() {
    for n in 1..=14 {
        let c = backtrack::count(&Problem::new(n).unwrap(), &Config::default(), None);
        assert_eq!(c.total, A000170[n - 1], "n = {n}");
        assert!(!c.limited && !c.stats.interrupted);
    }
}

#[test]
#[ignore = "takes tens of seconds; run with --ignored"]
fn counts_match_a000170_and_a002562_15_to_17() {
    for n in 15..=17 {
        let c = backtrack::count(&Problem::new(n).unwrap(), &Config::default(), None);
        assert_eq!(c.total, A000170[n - 1], "n = {n}");
        assert_eq!(c.unique, Some(A002562[n - 1]), "n = {n}");
    }
}

#[test]
fn unique_counts_match_a002562_up_to_14() {
    for n in 1..=14 {
        let c = backtrack::count(&Problem::new(n).unwrap(), &Config::default(), None);
        assert_eq!(c.unique, Some(A002562[n - 1]), "n = {n}");
    }
}

#[test]
fn symmetric_counter_agrees_with_plain_search_and_canonical_forms() {
    for n in 5..=10 {
        let p = Problem::new(n).unwrap();
        let sym = symmetric::count(n, &Config::default()).unwrap();
        let mut all = Vec::new();
        backtrack::enumerate(&p, &Config::default(), None, |q| {
            all.push(q.to_vec());
            true
        });
        assert_eq!(sym.total, all.len() as u64, "n = {n}");
        assert_eq!(
            sym.unique,
            Some(symmetric::unique_by_canonical_form(n, &all)),
            "n = {n}"
        );
    }
}

/// The shards of the classic count add up to the whole, whatever their number: more shards
/// than tasks leave some empty.
#[test]
fn shards_add_up_to_a000170_and_a002562() {
    for n in 5..=14 {
        for of in [1, 2, 3, 7, 64] {
            let shards: Vec<_> = (0..of)
                .map(|i| symmetric::count_shard(n, i, of, &Config::default()).unwrap())
                .collect();
            let sum = |f: fn(&symmetric::ShardCount) -> u64| shards.iter().map(f).sum::<u64>();
            assert_eq!(sum(|s| s.total), A000170[n - 1], "n = {n}, {of} shards");
            assert_eq!(sum(|s| s.unique), A002562[n - 1], "n = {n}, {of} shards");
            assert!(shards.iter().all(|s| s.all_tasks == shards[0].all_tasks));
            assert_eq!(
                sum(|s| s.tasks),
                shards[0].all_tasks,
                "n = {n}, {of} shards"
            );
            assert!(shards.iter().all(|s| !s.stats.interrupted));
        }
    }
}

#[test]
fn plain_search_counts_on_both_board_kinds_and_thread_counts() {
    for n in 1..=10 {
        let p = Problem::new(n).unwrap();
        for board in [BoardKind::Small, BoardKind::Large] {
            for threads in [1, 2] {
                let config = Config {
                    board,
                    threads,
                    ..Config::default()
                };
                // A limit above the count forces the general search instead of symmetry.
                let c = backtrack::count(&p, &config, Some(u64::MAX));
                assert_eq!(
                    c.total,
                    A000170[n - 1],
                    "n = {n}, {board:?}, {threads} threads"
                );
            }
        }
    }
}

#[test]
fn nauck_1850_has_exactly_two_completions_in_both_formats() {
    for file in ["nauck-1850.txt", "nauck-1850.json"] {
        let p = instance(file);
        assert_eq!(p.fixed(), &[(3, 3), (4, 1)], "{file}");
        let mut found = Vec::new();
        backtrack::enumerate(&p, &Config::default(), None, |q| {
            queens::verify(&p, q).unwrap();
            found.push(q.to_vec());
            true
        });
        assert_eq!(found.len(), 2, "{file}");
        assert_eq!(backtrack::count(&p, &Config::default(), None).total, 2);
    }
}

#[test]
fn project_instances_have_their_documented_answers() {
    let count = |f: &str| backtrack::count(&instance(f), &Config::default(), None).total;
    assert_eq!(count("region-7.txt"), 1);
    assert_eq!(count("unsolvable-completion.txt"), 0);
    assert_eq!(count("blocked-8.txt"), 12);
    assert_eq!(count("region-7-started.json"), 1);
    // The unsolvable completion is not a plain pairwise conflict: each pair completes.
    let p = instance("unsolvable-completion.txt");
    for skip in 0..3 {
        let rest: Vec<_> = (0..3)
            .filter(|&i| i != skip)
            .map(|i| p.fixed()[i])
            .collect();
        let sub = p.replace_fixed(&rest).unwrap();
        assert!(backtrack::first_solution(&sub, &Config::default())
            .0
            .is_some());
    }
}

#[test]
fn large_boards_solve_and_verify() {
    for n in [65, 200, 1000, 2000] {
        let p = Problem::new(n).unwrap();
        let (q, _) = backtrack::first_solution(&p, &Config::default());
        queens::verify(&p, &q.expect("large boards have solutions")).unwrap();
    }
    // A completion at n = 500 with queens preplaced along a known solution's first rows.
    let n = 500;
    let p = Problem::new(n).unwrap();
    let (full, _) = backtrack::first_solution(&p, &Config::default());
    let fixed: Vec<_> = full.unwrap().into_iter().step_by(50).collect();
    let p = p.with_fixed(&fixed).unwrap();
    let (q, _) = backtrack::first_solution(&p, &Config::default());
    queens::verify(&p, &q.unwrap()).unwrap();
}

#[test]
fn deadline_interrupts_instead_of_answering() {
    let p = Problem::new(18).unwrap();
    let config = Config {
        deadline: Some(std::time::Instant::now()),
        ..Config::default()
    };
    let c = backtrack::count(&p, &config, None);
    assert!(c.stats.interrupted);
}

/// On instances big enough to be split into many subtrees (excluded diagonals at the hard
/// ratio, satisfiable and not), the parallel search finds exactly the sequential board.
#[test]
fn parallel_solve_matches_sequential_on_excluded_diagonals() {
    let (mut sat, mut unsat, mut past_probe) = (0, 0, 0);
    for seed in 1..=12 {
        let list = queens::generate::diagonals(20, 4, seed);
        let p = queens::generate::diagonals_problem(20, &list, Some(18)).unwrap();
        let seq = backtrack::first_solution(
            &p,
            &Config {
                threads: 1,
                ..Config::default()
            },
        );
        let par = backtrack::first_solution(
            &p,
            &Config {
                threads: 2,
                ..Config::default()
            },
        );
        assert_eq!(par.0, seq.0, "seed {seed}");
        assert!(!par.1.interrupted);
        // The parallel solve searches alone for its first ~16k nodes; only longer searches
        // reach the split, which is what this test is about.
        if seq.1.nodes > 20_000 {
            past_probe += 1;
        }
        match seq.0 {
            Some(q) => {
                queens::verify(&p, &q).unwrap();
                sat += 1;
            }
            None => unsat += 1,
        }
    }
    assert!(
        sat > 0 && unsat > 0,
        "{sat} sat, {unsat} unsat: pick a ratio that gives both"
    );
    assert!(
        past_probe >= 8,
        "only {past_probe} searches outlast the probe"
    );
}
