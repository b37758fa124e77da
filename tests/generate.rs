//! Generators: reproducible from a seed, valid by construction, and readable back as JSON.

use queens::engine::backtrack::{self, Config};
use queens::engine::Budget;
use queens::generate::{self, puzzle, regions};
use queens::model::Diagonal;
use queens::puzzle::grade::{grade, logical_path, Grade};
use queens::rng::Rng;
use queens::verify::conflicts;
use queens::{formats, DiagonalRule, Problem};

fn count2(p: &Problem) -> u64 {
    backtrack::count(p, &Config::default(), Some(2)).total
}

fn roundtrip(p: &Problem) {
    let text = formats::write_json(p, "test");
    let back = formats::parse("roundtrip", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(&back, p, "{text}");
}

#[test]
fn rng_is_splitmix64() {
    // First outputs of Vigna's splitmix64.c seeded with 1234567.
    let mut rng = Rng::new(1234567);
    assert_eq!(rng.next_u64(), 6457827717110365317);
    assert_eq!(rng.next_u64(), 3203168211198807973);
}

#[test]
fn completion_same_seed_same_instance_other_seed_differs() {
    let a = formats::write_json(&generate::completion(20, 8, 7).unwrap(), "x");
    let b = formats::write_json(&generate::completion(20, 8, 7).unwrap(), "x");
    let c = formats::write_json(&generate::completion(20, 8, 8).unwrap(), "x");
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn completion_queens_never_attack_and_reach_the_requested_number() {
    for seed in 0..50 {
        for (n, k) in [(8, 3), (10, 5), (20, 10), (30, 20)] {
            let p = generate::completion(n, k, seed).unwrap();
            assert_eq!(p.rule(), DiagonalRule::Full);
            assert!(conflicts(&p, p.fixed()).is_empty(), "n={n} seed={seed}");
            assert_eq!(p.fixed().len(), k, "n={n} k={k} seed={seed}");
            roundtrip(&p);
        }
    }
    // More queens than fit: stops when the attempts run out, still without attacks.
    let p = generate::completion(6, 10, 1).unwrap();
    assert!(p.fixed().len() <= 6);
    assert!(conflicts(&p, p.fixed()).is_empty());
    assert!(generate::completion(0, 1, 1).is_err());
}

fn open_per_line(p: &Problem) -> (usize, usize) {
    let n = p.n();
    let rows = (0..n)
        .map(|r| (0..n).filter(|&c| p.is_open((r, c))).count())
        .min()
        .unwrap();
    let cols = (0..n)
        .map(|c| (0..n).filter(|&r| p.is_open((r, c))).count())
        .min()
        .unwrap();
    (rows, cols)
}

#[test]
fn every_diagonals_prefix_keeps_min_free_open_cells() {
    for seed in 0..20 {
        for (n, min_free) in [(8, 2), (10, 4), (12, 1), (15, 5)] {
            let list = generate::diagonals(n, min_free, seed);
            assert!(!list.is_empty());
            let mut sorted = list.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), list.len(), "no diagonal twice");
            for d in 0..=list.len() {
                let p = generate::diagonals_problem(n, &list, Some(d)).unwrap();
                let (rows, cols) = open_per_line(&p);
                assert!(
                    rows >= min_free && cols >= min_free,
                    "n={n} d={d} seed={seed}"
                );
            }
            roundtrip(&generate::diagonals_problem(n, &list, None).unwrap());
        }
    }
    assert_eq!(generate::diagonals(9, 3, 5), generate::diagonals(9, 3, 5));
    assert_ne!(generate::diagonals(9, 3, 5), generate::diagonals(9, 3, 6));
    assert!(generate::diagonals_problem(8, &generate::diagonals(8, 3, 1), Some(999)).is_err());
}

#[test]
fn diagonals_list_is_maximal() {
    // Every diagonal left out would break the min_free bound if added to the whole list.
    let (n, min_free) = (10, 4);
    let list = generate::diagonals(n, min_free, 3);
    for k in 0..2 * n - 1 {
        for d in [Diagonal::Sum(k), Diagonal::Diff(k)] {
            if list.contains(&d) {
                continue;
            }
            let mut more = list.clone();
            more.push(d);
            let p = generate::diagonals_problem(n, &more, None).unwrap();
            let (rows, cols) = open_per_line(&p);
            assert!(
                rows < min_free || cols < min_free,
                "{d:?} could have been added"
            );
        }
    }
}

fn regions_connected(p: &Problem) -> bool {
    let g = p.regions().unwrap();
    g.cells().iter().all(|cells| {
        let mut seen = vec![cells[0]];
        let mut stack = vec![cells[0]];
        while let Some((r, c)) = stack.pop() {
            for &q in cells {
                if (q.0.abs_diff(r) + q.1.abs_diff(c)) == 1 && !seen.contains(&q) {
                    seen.push(q);
                    stack.push(q);
                }
            }
        }
        seen.len() == cells.len()
    })
}

#[test]
fn region_puzzles_have_exactly_one_solution_and_connected_regions() {
    for n in 4..=9 {
        for seed in 0..6 {
            let p = puzzle(n, seed).unwrap_or_else(|e| panic!("n={n} seed={seed}: {e}"));
            assert_eq!(p.rule(), DiagonalRule::Touch);
            assert_eq!(p.regions().unwrap().names().len(), n);
            assert_eq!(count2(&p), 1, "n={n} seed={seed}");
            assert!(regions_connected(&p), "n={n} seed={seed}");
            let (sol, _) = backtrack::first_solution(&p, &Config::default());
            queens::verify(&p, &sol.unwrap()).unwrap();
            roundtrip(&p);
        }
    }
}

#[test]
fn region_puzzles_are_reproducible_and_scale_to_puzzle_site_sizes() {
    let a = formats::write_json(&puzzle(8, 42).unwrap(), "r");
    assert_eq!(a, formats::write_json(&puzzle(8, 42).unwrap(), "r"));
    assert_ne!(a, formats::write_json(&puzzle(8, 43).unwrap(), "r"));
    // Sizes the old generator (random regions, then repairs) ran out of attempts on, among
    // them n = 16 seed 1.
    for n in [10, 13, 14, 16] {
        let p = puzzle(n, 1).unwrap();
        assert_eq!(count2(&p), 1, "n={n}");
        assert!(regions_connected(&p));
    }
}

#[test]
fn region_puzzles_come_in_the_grade_asked_for() {
    for want in [Grade::Easy, Grade::Medium, Grade::Hard, Grade::Expert] {
        for (n, seed) in [(5, 1), (8, 2), (9, 3), (11, 4)] {
            let made = regions(n, seed, Some(want), &Budget::default())
                .unwrap()
                .expect("no limit");
            assert_eq!(made.grade, want, "n={n} seed={seed}");
            // The grade is the grader's, on the puzzle as a player gets it.
            assert_eq!(grade(&logical_path(&made.problem)), want, "n={n}");
            assert_eq!(count2(&made.problem), 1, "n={n} seed={seed}");
            assert!(regions_connected(&made.problem), "n={n} seed={seed}");
            assert!(made.tries >= 1);
        }
    }
    // Many seeds on small boards, where one-cell regions can wall cells in (a growth that
    // panicked on an empty choice once).
    for n in 5..=7 {
        for seed in 0..10 {
            for want in [Grade::Easy, Grade::Medium, Grade::Hard, Grade::Expert] {
                let made = regions(n, seed, Some(want), &Budget::default())
                    .unwrap()
                    .unwrap();
                assert_eq!(made.grade, want, "n={n} seed={seed}");
                assert_eq!(count2(&made.problem), 1, "n={n} seed={seed}");
            }
        }
    }
    // 4×4 has few puzzles: each grade asked for is made, or refused with the reason within a
    // bounded number of tries, never searched for without end.
    for want in [Grade::Easy, Grade::Medium, Grade::Hard, Grade::Expert] {
        match regions(4, 1, Some(want), &Budget::default()) {
            Ok(made) => assert_eq!(made.expect("no limit").grade, want),
            Err(e) => assert!(e.to_string().contains("field `difficulty`: no"), "{e}"),
        }
    }
}

#[test]
fn region_generation_stops_at_the_deadline_without_an_answer() {
    let budget = Budget {
        deadline: Some(std::time::Instant::now()),
        ..Budget::default()
    };
    assert!(regions(9, 1, Some(Grade::Expert), &budget)
        .unwrap()
        .is_none());
}

#[test]
fn region_puzzles_without_a_touch_placement_are_an_error() {
    for n in [0, 2, 3] {
        let e = puzzle(n, 1).unwrap_err().to_string();
        assert!(e.contains(&n.to_string()), "{e}");
    }
    assert_eq!(count2(&puzzle(1, 1).unwrap()), 1);
}

#[test]
fn csplib_completion_file() {
    let text =
        "$ Nauck 1850, 0-based\nletting n = 8\nletting init = [[4, 1],\n   [3, 3]] $ two queens\n";
    let p = formats::csplib::parse_csplib("c.param", text, None).unwrap();
    assert_eq!(p.n(), 8);
    assert_eq!(p.fixed(), &[(3, 3), (4, 1)]);
    assert_eq!(p.rule(), DiagonalRule::Full);
    let p1 = formats::csplib::parse_csplib("c.param", text, Some(1)).unwrap();
    assert_eq!(p1.fixed(), &[(4, 1)]);
    roundtrip(&p);
}

#[test]
fn csplib_diagonals_file_as_the_generator_prints_it() {
    // The example output of queens-diag-gen.py 10 4 1 from CSPLib's prob079 notes.
    let text = "n =  10\nnumdiags =  14\ndiags =  [[4, 1], [2, 1], [14, 0], [8, 1], [8, 0], [7, 0], [3, 1],\n          [12, 1], [18, 0], [5, 0], [14, 1], [0, 0], [15, 1], [17, 1]]\n";
    let p = formats::csplib::parse_csplib("d.param", text, None).unwrap();
    assert_eq!(p.excluded().len(), 14);
    // [5,0] excludes r - c = -4: (0,4), (1,5), … (5,9).
    assert!(!p.is_open((0, 4)) && !p.is_open((5, 9)));
    let p9 = formats::csplib::parse_csplib("d.param", text, Some(9)).unwrap();
    assert_eq!(p9.excluded().len(), 9);
    // [0,0] (r - c = -9, the corner (0,9)) is the 12th diagonal: in the list, not in the prefix.
    assert!(!p.is_open((0, 9)));
    assert!(p9.is_open((0, 9)));
    roundtrip(&p9);
    let q = formats::csplib::parse_csplib("d.param", "letting n be 3\nletting diags = []", None)
        .unwrap();
    assert!(q.excluded().is_empty());
}

#[test]
fn csplib_errors_name_the_line() {
    let cases: &[(&str, Option<usize>, &str)] = &[
        (
            "letting n = 8\nletting init = [[1,2],\n [9,1]]",
            None,
            "line 3:",
        ),
        ("letting n = 8\n\nletting size = 3", None, "line 3:"),
        ("letting n = 8\nletting init = [[1,2]\n", None, "line 2:"),
        ("letting n = 8\nletting diags = [[3,2]]", None, "line 2:"),
        ("letting n = 4\nletting diags = [[7,1]]", None, "line 2:"),
        ("letting n = 8\nletting init = [[1,2]]", Some(3), "line 2:"),
        ("letting n = 8\nletting n = 9", None, "line 2:"),
        ("letting n = 8\nletting init = [[1,-2]]", None, "line 2:"),
        ("letting init = [[1,2]]", None, "line 1:"),
        ("letting n = 8\nn = 8 ;", None, "line 2:"),
        (
            "letting n = 8\nnumdiags = 2\ndiags = [[1,1]]",
            None,
            "line 2:",
        ),
        ("letting n = 0", None, "line 1:"),
    ];
    for (text, first, want) in cases {
        match formats::csplib::parse_csplib("bad.param", text, *first) {
            Ok(p) => panic!("{text:?} parsed as {p:?}"),
            Err(queens::Error::Input {
                origin, message, ..
            }) => {
                assert_eq!(origin, "bad.param");
                assert!(message.starts_with(want), "{text:?}: {message}");
            }
            Err(e) => panic!("{text:?}: not an input error: {e}"),
        }
    }
}

#[test]
fn write_json_uses_name_arrays_for_long_region_names() {
    let names: Vec<String> = (0..4)
        .flat_map(|r| {
            (0..4).map(move |c| {
                if c < 2 {
                    format!("r{}", r)
                } else {
                    format!("r{}", (r + 2) % 4)
                }
            })
        })
        .collect();
    let g = queens::Regions::from_names(4, &names).unwrap();
    let p = Problem::new(4)
        .unwrap()
        .with_regions(g)
        .unwrap()
        .with_rule(DiagonalRule::Touch)
        .with_blocked(&[(0, 0)])
        .unwrap();
    let text = formats::write_json(&p, "long \"names\"");
    assert!(text.contains("[\"r0\", \"r0\""), "{text}");
    roundtrip(&p);
    roundtrip(&Problem::new(5).unwrap());
}

/// Many seeds and sizes; run with `cargo test --release --test generate -- --ignored`.
#[test]
#[ignore]
fn region_puzzles_stress() {
    for n in 4..=20 {
        let start = std::time::Instant::now();
        for seed in 0..10 {
            let p = puzzle(n, seed).unwrap_or_else(|e| panic!("n={n} seed={seed}: {e}"));
            assert_eq!(count2(&p), 1, "n={n} seed={seed}");
            assert!(regions_connected(&p), "n={n} seed={seed}");
        }
        eprintln!("n={n}: 10 puzzles in {:?}", start.elapsed());
    }
}

#[test]
fn write_value_keeps_the_writers_layout() {
    // The CLI prints generated instances after they went through serde_json::Value (the
    // operations layer's answer), whose keys are sorted: the layout must come back the same.
    let mut regions = puzzle(8, 3).unwrap();
    let texts = [
        formats::write_json(&generate::completion(12, 5, 2).unwrap(), "c"),
        formats::write_json(&regions, "r"),
        formats::json::write_diagonals_json(14, &generate::diagonals(14, 4, 2), "d"),
        formats::write_json(&Problem::new(5).unwrap(), "empty"),
    ];
    regions = regions.replace_blocked(&[(0, 0)]).unwrap();
    let blocked = formats::write_json(&regions, "rb");
    // Region names of several characters are written as arrays of names.
    let grid = "r1 r1 r2 r2\nr1 r1 r2 r2\nr3 r3 r4 r4\nr3 r3 r4 r4\nqueens: 0,0\n";
    let tokens = formats::write_json(&formats::parse("t", grid).unwrap(), "t");
    assert!(tokens.contains("[\"r1\", \"r1\""), "{tokens}");
    for text in texts.iter().chain([&blocked, &tokens]) {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(&formats::json::write_value(&value), text);
    }
}

/// The linear prefix (the shuffled order, up to n − K diagonals) is the full generator's
/// list cut short, for every length it covers: the same seed gives the same instance on
/// every path.
#[test]
fn diagonals_prefix_matches_the_full_list() {
    for seed in 0..6 {
        for (n, min_free) in [(1, 0), (5, 4), (8, 2), (21, 4), (40, 4), (97, 4), (200, 10)] {
            let full = generate::diagonals(n, min_free, seed);
            let quick = n.saturating_sub(min_free);
            for d in [0, 1, quick / 2, quick * 9 / 10, quick] {
                let prefix = generate::diagonals_prefix(n, min_free, seed, Some(d)).unwrap();
                assert_eq!(
                    prefix[..],
                    full[..d],
                    "n={n} K={min_free} d={d} seed={seed}"
                );
            }
            assert_eq!(
                generate::diagonals_prefix(n, min_free, seed, None).unwrap(),
                full
            );
            assert!(generate::diagonals_prefix(n, min_free, seed, Some(full.len() + 1)).is_err());
        }
    }
    // Past 4096 rows: linear, and only up to n − K.
    let big = generate::diagonals_prefix(5000, 4, 1, Some(4500)).unwrap();
    assert_eq!(big.len(), 4500);
    let p = generate::diagonals_problem(5000, &big, None).unwrap();
    assert!(p.is_sparse());
    assert!(generate::diagonals_prefix(5000, 4, 1, Some(4997)).is_err());
    assert!(generate::diagonals_prefix(5000, 4, 1, None).is_err());
}
