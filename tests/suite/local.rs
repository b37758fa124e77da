//! Local search and big boards: the local engine against both verifiers and brute force,
//! a board of a million rows end to end, the column-per-row round trip and bad big input.

use proptest::prelude::*;
use queens::engine::local::{self, Config, Outcome};
use queens::engine::{self, Budget, ColumnAnswer, EngineSpec};
use queens::verify::{columns_conflicts_up_to, conflicts_up_to, verify, verify_columns};
use queens::{Pos, Problem};

use super::cli::{json, queens, stdout};
use super::gen::{brute_force, problem_with_diagonals};
use crate::temp;

pub(super) fn cells(cols: &[u32]) -> Vec<Pos> {
    cols.iter()
        .enumerate()
        .map(|(r, &c)| (r, c as usize))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// The column verifier finds what the pair verifier finds: every board of every family
    /// (regions and `touch` too), one queen a row, columns anywhere (off the board too), as
    /// many broken rules in all, and each one listed a rule of the board.
    #[test]
    fn column_conflicts_count_what_the_pair_verifier_counts(
        p in problem_with_diagonals(7), seed in any::<u64>(), extra in 0usize..2
    ) {
        let n = p.n();
        let mut x = seed | 1;
        let cols: Vec<u32> = (0..n + extra)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % (n as u64 + 1)) as u32
            })
            .collect();
        let (listed, total) = columns_conflicts_up_to(&p, &cols, usize::MAX);
        let (pairs, pair_total) = conflicts_up_to(&p, &cells(&cols), usize::MAX);
        let missing = p.fixed().iter().filter(|&&(r, c)| cols[r] as usize != c).count();
        let wrong_count = u64::from(extra > 0);
        prop_assert_eq!(total, pair_total + missing as u64 + wrong_count);
        prop_assert_eq!(listed.len() as u64, total);
        for v in &pairs {
            prop_assert!(listed.contains(v), "{} not listed: {:?}", v, listed);
        }
        prop_assert_eq!(verify_columns(&p, &cols).is_ok(), total == 0);
        // A bounded list keeps the count.
        let (few, all) = columns_conflicts_up_to(&p, &cols, 1);
        prop_assert_eq!((few.len() as u64, all), (total.min(1), total));
    }

    /// Every family the local engine takes (fixed queens, blocked cells, excluded
    /// diagonals; classic rule): its solutions pass both verifiers, and it says "no
    /// solution" only where brute force finds none (giving up is allowed: it is incomplete).
    #[test]
    fn local_answers_pass_both_verifiers_and_agree_with_brute_force(
        p in problem_with_diagonals(7), seed in 0u64..1000
    ) {
        prop_assume!(local::supports(&p).is_ok());
        let truth = brute_force(&p);
        let config = Config { seed, restarts: 40 };
        let (outcome, _) = local::search(&p, config, &Budget::default()).unwrap();
        match outcome {
            Outcome::Solved(cols) => {
                verify_columns(&p, &cols).unwrap();
                verify(&p, &cells(&cols)).unwrap();
                prop_assert!(!truth.is_empty());
            }
            Outcome::Refuted(why) => prop_assert!(truth.is_empty(), "refuted ({why}) but {:?}", truth[0]),
            Outcome::GaveUp | Outcome::Interrupted => {}
        }
    }

    /// auto agrees with brute force on every family, regions and `touch` included.
    #[test]
    fn auto_agrees_with_brute_force(p in problem_with_diagonals(7)) {
        let truth = brute_force(&p);
        let solved = engine::solve_columns(&p, EngineSpec::Auto { seed: 1 }, &Budget::default()).unwrap();
        match solved.answer {
            ColumnAnswer::Sat(cols) => {
                verify(&p, &cells(&cols)).unwrap();
                prop_assert!(!truth.is_empty());
            }
            ColumnAnswer::Unsat(_) => prop_assert!(truth.is_empty()),
            other => prop_assert!(false, "no answer: {other:?}"),
        }
    }
}

/// The column verifier names what it finds: a shared column, a shared diagonal, a missing
/// fixed queen, a blocked cell, an excluded diagonal.
#[test]
fn column_verifier_names_each_broken_rule() {
    use queens::model::Diagonal;
    use queens::Violation;
    let p = Problem::new(4).unwrap();
    verify_columns(&p, &[1, 3, 0, 2]).unwrap();
    assert!(matches!(
        verify_columns(&p, &[1, 1, 0, 2]),
        Err(Violation::SameColumn { .. })
    ));
    assert!(matches!(
        verify_columns(&p, &[0, 1, 3, 2]),
        Err(Violation::SameDiagonal { .. })
    ));
    assert!(matches!(
        verify_columns(&p, &[1, 3, 0]),
        Err(Violation::WrongCount { .. })
    ));
    let fixed = p.clone().with_fixed(&[(0, 2)]).unwrap();
    assert!(matches!(
        verify_columns(&fixed, &[1, 3, 0, 2]),
        Err(Violation::MissingFixed { .. })
    ));
    let blocked = p.clone().with_blocked(&[(2, 0)]).unwrap();
    assert!(matches!(
        verify_columns(&blocked, &[1, 3, 0, 2]),
        Err(Violation::Blocked { .. })
    ));
    let excluded = p.with_excluded(&[Diagonal::Sum(1)]).unwrap();
    assert!(matches!(
        verify_columns(&excluded, &[1, 3, 0, 2]),
        Err(Violation::Blocked { .. })
    ));
}

/// A million rows with 10,000 fixed queens from a random solution (always completable): the
/// generator, auto (local search), `-o` and `check --board` end to end, and a broken line in
/// the file is named.
#[test]
fn million_row_completion_round_trip() {
    let dir = temp::dir("big");
    let inst = dir.join("c.json");
    let sol = dir.join("c.sol");
    let (inst_s, sol_s) = (inst.to_str().unwrap(), sol.to_str().unwrap());
    let o = queens(
        &[
            "generate",
            "completion",
            "--n",
            "1000000",
            "--queens",
            "10000",
            "--presets",
            "solution",
            "--seed",
            "7",
            "-o",
            inst_s,
        ],
        None,
    );
    super::cli::exited(&o, 0);
    let o = queens(
        &["solve", inst_s, "-o", sol_s, "--json", "--seed", "3"],
        None,
    );
    super::cli::exited(&o, 0);
    let v = json(&o);
    assert_eq!(v["status"], "sat");
    assert_eq!(v["engine"], "auto");
    assert_eq!(v["answered_by"], "local");
    assert!(v["queens"].is_null(), "a million rows are not inlined");
    assert_eq!(v["solution_path"], sol_s);
    let o = queens(&["check", inst_s, "--board", sol_s, "--json"], None);
    super::cli::exited(&o, 0);
    assert_eq!(json(&o)["status"], "solved");
    // The same board with two rows swapped breaks a rule the checker names.
    let text = std::fs::read_to_string(&sol).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.swap(0, 1);
    std::fs::write(&sol, lines.join("\n")).unwrap();
    let o = queens(&["check", inst_s, "--board", sol_s], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(!stdout(&o).is_empty());
    std::fs::write(&sol, "1\nx\n").unwrap();
    let o = queens(&["check", inst_s, "--board", sol_s], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 2"));
}

/// Small boards: `-o` writes the same column-per-row text, and auto still draws the board.
#[test]
fn small_board_output_file_and_default_engine() {
    let dir = temp::dir("small");
    let sol = dir.join("8.sol");
    let o = queens(
        &["solve", "--n", "8", "-o", sol.to_str().unwrap(), "--json"],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    let text = std::fs::read_to_string(&sol).unwrap();
    let cols: Vec<u64> = text.lines().map(|l| l.parse().unwrap()).collect();
    let inline: Vec<u64> = v["queens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q[1].as_u64().unwrap())
        .collect();
    assert_eq!(cols, inline);
    let o = queens(
        &["check", "-", "--board", sol.to_str().unwrap()],
        Some("{\"n\": 8}"),
    );
    super::cli::exited(&o, 0);
}

/// Bad big input is exit 2 naming the field; the complete engines refuse a big board; a
/// local search over the memory limit is refused before it starts; an incomplete engine's
/// cheap refutation is "no solution" with the reason.
#[test]
fn bad_big_input_and_refusals() {
    let cases: [(&str, &str); 4] = [
        (r#"{"n": 0}"#, "field `n`"),
        (
            r#"{"n": 3000000000}"#,
            "field `n`: board size 3000000000 is out of range (1..=2147483647)",
        ),
        (
            r#"{"n": 10000, "queens": [[3, 10000]]}"#,
            "field `queens[0]`",
        ),
        (
            r#"{"n": 10000, "queens": [[3, 4], [5, 9], [3, 4]]}"#,
            "field `queens[2]`",
        ),
    ];
    for (input, expected) in cases {
        let o = queens(&["solve", "-"], Some(input));
        assert_eq!(o.status.code(), Some(2), "{input}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(expected), "{input}: {err}");
    }
    let o = queens(&["solve", "--n", "5000", "--engine", "backtrack"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("local"));
    let o = queens(&["solve", "--n", "100000000", "--max-memory", "100"], None);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--max-memory") && err.contains("MB"), "{err}");
    let o = queens(
        &["solve", "-", "--engine", "local"],
        Some(r#"{"n": 10000, "queens": [[0, 0], [5, 5]]}"#),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("share a diagonal"), "{}", stdout(&o));
    // Incomplete: n = 3 has no solution, and local search says "no answer", never "no".
    let o = queens(&["solve", "--n", "3", "--engine", "local", "--json"], None);
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(json(&o)["status"], "timeout");
}

/// The text formats that take fixed queens work past 4096 rows without n² memory: a board
/// given by its size (`n: N` and option lines) and a CSPLib prob079 parameter file both read
/// 10⁵-row instances that local search then solves and the verifier accepts; their bad
/// lines are exit 2 naming the line.
#[test]
fn text_instances_past_4096_rows() {
    let dir = temp::dir("bigtext");
    let n = 100_000;
    // Queens on (i, 2i + 1): a knight's-move chain, no two on a line.
    let queens_text: Vec<String> = (0..1000).map(|i| format!("{},{}", i, 2 * i + 1)).collect();
    let text = format!(
        "# a board given by its size\nn: {n}\nqueens: {}\nblocked: 5000,5000 5001,7\ndiags: 150000,1 3,0\n",
        queens_text.join(" ")
    );
    let grid = dir.join("big.txt");
    std::fs::write(&grid, &text).unwrap();
    let init: Vec<String> = (0..1000)
        .map(|i| format!("[{},{}]", i, 2 * i + 1))
        .collect();
    let param = dir.join("big.param");
    std::fs::write(
        &param,
        format!(
            "letting n = {n}\nletting init = [{}]\nletting diags = [[150000, 1], [3, 0]]\n",
            init.join(", ")
        ),
    )
    .unwrap();
    for file in [&grid, &param] {
        let sol = dir.join("big.sol");
        let f = file.to_str().unwrap();
        let o = queens(&["solve", f, "-o", sol.to_str().unwrap(), "--json"], None);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{f}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v = json(&o);
        assert_eq!(v["status"], "sat", "{f}");
        assert_eq!(v["answered_by"], "local", "{f}");
        let o = queens(&["check", f, "--board", sol.to_str().unwrap()], None);
        assert_eq!(o.status.code(), Some(0), "{f}: {}", stdout(&o));
    }
    // The same board read from the text and from JSON is one problem.
    let from_text = queens::formats::parse("big.txt", &text).unwrap();
    assert!(from_text.is_sparse());
    assert_eq!(from_text.fixed().len(), 1000);
    assert_eq!(from_text.blocked().len(), 2);
    assert_eq!(from_text.excluded().len(), 2);
    let back =
        queens::formats::parse("json", &queens::formats::write_json(&from_text, "x")).unwrap();
    assert_eq!(back, from_text);
    // Bad lines: exit 2 naming the line and what is wrong.
    let cases: [(&str, &str); 8] = [
        ("n: 0\n", "line 1: n: expected the board size"),
        (
            "n: 3000000000\n",
            "line 1: n: board size 3000000000 is out of range",
        ),
        (
            "n: 10000\nqueens: 3,10000\n",
            "line 2: queens: cell 3,10000 is off the 10000×10000 board",
        ),
        (
            "n: 10000\nqueens: 3,4\nqueens: 3,4\n",
            "line 3: queens: queen (3,4) is given twice (also on line 2)",
        ),
        (
            "n: 10000\ndiags: 20000,1\n",
            "line 2: diags: \"20000,1\" is not a diagonal",
        ),
        (
            "n: 10000\ndiags: 5,1 5,1\n",
            "line 2: diags: diagonal 5,1 is given twice",
        ),
        ("n: 10000\n....\n", "line 2: expected `queens:`"),
        (
            "n: 10000\nn: 10000\n",
            "line 2: n: the size is already given on line 1",
        ),
    ];
    for (input, expected) in cases {
        let o = queens(&["solve", "-", "--engine", "local"], Some(input));
        assert_eq!(o.status.code(), Some(2), "{input:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(expected), "{input:?}: {err}");
    }
    // A grid gives its own size; `n:` after it is refused.
    let o = queens(&["solve", "-"], Some("....\n....\n....\n....\nn: 4\n"));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 5: n: the grid gives the board size"));
    // A small board by its size is the same problem as its grid.
    let small = queens::formats::parse("s", "n: 4\nqueens: 0,1\n").unwrap();
    let grid4 = queens::formats::parse("g", ".Q..\n....\n....\n....\n").unwrap();
    assert_eq!(small, grid4);
}

/// Excluded Diagonals past 4096 rows: the prefix up to n − K is the shuffled order itself,
/// generated in linear memory; asking for more (or for the whole list) is exit 2 saying how
/// far it goes.
#[test]
fn excluded_diagonals_generated_past_4096_rows() {
    let o = queens(
        &[
            "generate",
            "diagonals",
            "--n",
            "100000",
            "--first",
            "90000",
            "--seed",
            "3",
        ],
        None,
    );
    super::cli::exited(&o, 0);
    let p = queens::formats::parse("gen", &stdout(&o)).unwrap();
    assert!(p.is_sparse());
    assert_eq!(p.excluded().len(), 90_000);
    for (args, expected) in [
        (vec!["--n", "100000"], "up to n − K = 99996"),
        (
            vec!["--n", "100000", "--first", "99997"],
            "first n − K = 99996 diagonals",
        ),
    ] {
        let mut all = vec!["generate", "diagonals"];
        all.extend(args);
        let o = queens(&all, None);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(expected),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// A cancelled local search stops between starts, not after all of them: on n = 3 every start
/// is stuck long before the repair's own poll of the budget, and `auto`'s race waited for the
/// loser's last start before answering.
#[test]
fn local_search_looks_at_the_budget_between_starts() {
    let p = Problem::new(3).unwrap();
    let config = Config {
        seed: 1,
        restarts: 1_000_000,
    };
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let budget = Budget {
        cancel: Some(cancel),
        ..Budget::default()
    };
    let (outcome, stats) = local::search(&p, config, &budget).unwrap();
    assert_eq!(outcome, Outcome::Interrupted);
    assert_eq!(stats.restarts, 0);
    // Not cancelled, it gives up after its starts: no answer, never "no solution".
    let config = Config {
        seed: 1,
        restarts: 20,
    };
    let (outcome, stats) = local::search(&p, config, &Budget::default()).unwrap();
    assert_eq!(outcome, Outcome::GaveUp);
    assert_eq!(stats.restarts, 20);
}

/// `check --board` names every broken rule, not the first: a small board's conflicts all,
/// a hostile big one's up to the bound, with the count of the rest.
#[test]
fn check_board_reports_every_broken_rule_with_a_bound() {
    let dir = temp::dir("check-board");
    let inst = dir.join("five.json");
    std::fs::write(&inst, "{\"n\": 5}").unwrap();
    let board = dir.join("five.sol");
    // Three queens in column 0 (three pairs), and (0,0) with (3,3) on one diagonal.
    std::fs::write(&board, "0\n0\n0\n3\n1\n").unwrap();
    let (i, b) = (inst.to_str().unwrap(), board.to_str().unwrap());
    let o = queens(&["check", i, "--board", b], None);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(text.starts_with("invalid: 4 conflict(s)\n"), "{text}");
    assert_eq!(text.lines().count(), 5, "{text}");
    assert!(text.contains("share column 0"), "{text}");
    assert!(
        text.contains("a1 and d4 share a diagonal") || text.contains("share a diagonal"),
        "{text}"
    );
    // Past 4096 rows, every queen in one column: n(n − 1)/2 pairs, 1000 listed.
    let n = 5000u64;
    std::fs::write(&inst, format!("{{\"n\": {n}}}")).unwrap();
    std::fs::write(&board, "0\n".repeat(n as usize)).unwrap();
    let o = queens(&["check", i, "--board", b, "--json"], None);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["violations_total"], n * (n - 1) / 2);
    assert_eq!(v["violations"].as_array().unwrap().len(), 1000);
    let o = queens(&["check", i, "--board", b], None);
    let text = stdout(&o);
    assert!(
        text.contains(&format!(
            "… and {} more, not listed",
            n * (n - 1) / 2 - 1000
        )),
        "{}",
        &text[text.len() - 200..]
    );
}
