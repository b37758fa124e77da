//! The core of a completion: the core search, its count and its proofs against brute force
//! and the whole-board engines on small boards; boards past 4096 rows decided end to end,
//! with proofs the built-in and the outside checkers accept.

use std::process::Command;

use proptest::prelude::*;
use queens::engine::completion::{self, Presolved, Proved, Refutation};
use queens::engine::{self, Answer, Budget, ColumnAnswer, EngineSpec};
use queens::model::Diagonal;
use queens::verify::{verify, verify_columns};
use queens::{Pos, Problem};

use super::cli::{json, queens};
use super::gen::brute_force;
use super::local::cells;
use crate::temp;

/// A classic board of 1 to `max_n` rows with up to n fixed queens (often attacking each
/// other), up to n blocked cells and up to three excluded diagonals.
fn completion_problem(max_n: usize) -> impl Strategy<Value = Problem> {
    (1..=max_n).prop_flat_map(|n| {
        let cell = (0..n, 0..n);
        let diagonal = (0..2 * n - 1, any::<bool>()).prop_map(|(k, sum)| {
            if sum {
                Diagonal::Sum(k)
            } else {
                Diagonal::Diff(k)
            }
        });
        (
            prop::collection::vec(cell.clone(), 0..=n),
            prop::collection::vec(cell, 0..=n),
            prop::collection::vec(diagonal, 0..=3),
        )
            .prop_map(move |(fixed, blocked, diagonals)| {
                Problem::new(n)
                    .unwrap()
                    .with_fixed(&fixed)
                    .unwrap()
                    .with_blocked(&blocked)
                    .unwrap()
                    .with_excluded(&diagonals)
                    .unwrap()
            })
    })
}

/// `queens generate completion --n N --queens M --seed S [extra…] -o DIR/NAME`: its path.
fn generate(
    dir: &std::path::Path,
    name: &str,
    n: &str,
    m: &str,
    seed: &str,
    extra: &[&str],
) -> String {
    let path = dir.join(name).to_str().unwrap().to_string();
    let mut args = vec![
        "generate",
        "completion",
        "--n",
        n,
        "--queens",
        m,
        "--seed",
        seed,
        "-o",
        &path,
    ];
    args.extend_from_slice(extra);
    let o = queens(&args, None);
    super::cli::exited(&o, 0);
    path
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The core path agrees with brute force and with the whole-board backtracker: the same
    /// status, the same number of completions, every solution verified on the n×n board.
    #[test]
    fn core_agrees_with_brute_force_and_the_whole_board(p in completion_problem(8)) {
        let truth = brute_force(&p);
        let budget = Budget::default();
        let solved = completion::solve_columns(&p, 7, &budget).unwrap();
        match &solved.answer {
            ColumnAnswer::Sat(cols) => {
                verify_columns(&p, cols).unwrap();
                verify(&p, &cells(cols)).unwrap();
                prop_assert!(!truth.is_empty());
            }
            ColumnAnswer::Unsat(why) => prop_assert!(truth.is_empty(), "refuted ({why:?}) but {:?}", truth[0]),
            other => prop_assert!(false, "no answer: {other:?}"),
        }
        let (counted, _) = completion::count(&p, None, &budget).unwrap();
        prop_assert_eq!(counted.count, truth.len() as u64);
        let whole = engine::solve(&p, EngineSpec::Backtrack { threads: 1 }, &budget).unwrap();
        prop_assert_eq!(matches!(whole.answer, Answer::Sat(_)), !truth.is_empty());
    }

    /// Every "no" of the core path comes with an LRAT refutation of the core CNF that the
    /// built-in checker accepts (none only when the fixed queens themselves break a rule),
    /// and every "yes" is a verified board.
    #[test]
    fn core_proofs_check(p in completion_problem(8)) {
        let truth = brute_force(&p);
        let (proved, _) = completion::prove(&p, true, &Budget::default()).unwrap();
        match proved {
            Proved::Sat(cols) => {
                verify_columns(&p, &cols).unwrap();
                prop_assert!(!truth.is_empty());
            }
            Proved::Unsat(why, proof) => {
                prop_assert!(truth.is_empty());
                match proof {
                    Some(proof) => {
                        queens::proof::check_lrat(&proof.formula, &proof.proof).unwrap();
                    }
                    None => prop_assert!(
                        queens::engine::local::refute_presets(&p).is_some(),
                        "no proof for {why}"
                    ),
                }
            }
            Proved::Interrupted => prop_assert!(false, "no budget was set"),
        }
    }
}

/// Nauck's b4 + d5 has exactly two completions, on the core as on the whole board.
#[test]
fn nauck_on_the_core() {
    let p = Problem::new(8)
        .unwrap()
        .with_fixed(&[(4, 1), (3, 3)])
        .unwrap();
    let Some(Presolved::Core(core)) = completion::presolve(&p, true, &Budget::default()).unwrap()
    else {
        panic!("Nauck's instance has a core")
    };
    assert_eq!((core.rows(), core.size().rows), (6, 6));
    let (counted, size) = completion::count(&p, None, &Budget::default()).unwrap();
    assert_eq!(counted.count, 2);
    assert_eq!(size.map(|s| s.rows), Some(6));
}

/// The cheap refutations name what they found: an empty line, or rows that cannot all be
/// matched to columns (Hall's condition).
#[test]
fn refutations_name_the_lines() {
    // Row 2 of a 4×4 board: (2,1) shares column 1 with the queen at (0,1), (2,3) its
    // diagonal, and the other two cells are blocked.
    let p = Problem::new(4)
        .unwrap()
        .with_fixed(&[(0, 1)])
        .unwrap()
        .with_blocked(&[(2, 0), (2, 2)])
        .unwrap();
    match completion::presolve(&p, true, &Budget::default()).unwrap() {
        Some(Presolved::Refuted(Refutation::EmptyLine(why))) => {
            assert!(why.starts_with("row 2 has no usable cell"), "{why}")
        }
        other => panic!("{other:?}"),
    }
    // Rows 1 and 2 of a 6×6 board both keep only column 5: Hall's condition fails (each row
    // has a cell left, so no line is empty).
    let blocked: Vec<Pos> = (1..=2).flat_map(|r| (0..5).map(move |c| (r, c))).collect();
    let p = Problem::new(6).unwrap().with_blocked(&blocked).unwrap();
    match completion::presolve(&p, true, &Budget::default()).unwrap() {
        Some(Presolved::Refuted(Refutation::Hall(why))) => assert!(
            why.starts_with("the 2 free rows [1, 2] have usable cells in only 1 column [5]"),
            "{why}"
        ),
        other => panic!("{other:?}"),
    }
}

/// `queens generate completion` then `queens solve` at n = 10⁵ near the crossing: decided
/// by the backtracker on the core, verified, in well under the limit.
#[test]
fn hundred_thousand_rows_at_the_crossing() {
    let dir = temp::dir("core");
    for seed in ["1", "2", "3"] {
        let inst = generate(&dir, &format!("c{seed}.json"), "100000", "99530", seed, &[]);
        let inst = inst.as_str();
        let o = queens(&["solve", inst, "--json", "--timeout", "60"], None);
        let v = json(&o);
        match v["status"].as_str() {
            Some("sat") => {
                assert_eq!(o.status.code(), Some(0));
                // The portfolio: the core search, or local search if it was first.
                match v["answered_by"].as_str() {
                    Some("backtrack") => assert_eq!(v["core"]["rows"], 470),
                    Some("local") => {}
                    other => panic!("seed {seed}: answered by {other:?}"),
                }
                assert_eq!(v["queens"].as_array().map(Vec::len), Some(100_000));
            }
            Some("unsat") => assert_eq!(o.status.code(), Some(1)),
            other => panic!("seed {seed}: {other:?} ({v})"),
        }
    }
}

/// `count` of an empty board past 4096 rows says that nothing counts it, whatever the engine,
/// instead of sending the user from one engine to the next; `solve --engine backtrack` on an
/// empty board speaks of the board, not of a core it does not have.
#[test]
fn big_empty_boards_get_advice_that_ends() {
    for engine in ["auto", "local", "backtrack"] {
        let o = queens(&["count", "--n", "100000", "--engine", engine], None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{engine}: {err}");
        assert!(err.contains("no engine counts"), "{engine}: {err}");
        assert!(!err.contains("use engine"), "{engine}: {err}");
    }
    let o = queens(&["solve", "--n", "5000", "--engine", "backtrack"], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("has no fixed queen"), "{err}");
    assert!(!err.contains("core"), "{err}");
}

/// A checker built from the outside sources, on PATH; `None` (printing why) when it is
/// missing, a failure when `CI` is set.
fn outside_checker(name: &str) -> Option<&str> {
    crate::need::program(name).map(|_| name)
}

/// A completion past 4096 rows that only search refutes: `--proof` writes LRAT for the core
/// CNF, which the built-in checker, lrat-check and cake_lpr accept; the CNF's comments map
/// variables to board cells.
#[test]
fn core_proofs_past_4096_rows_pass_the_outside_checkers() {
    let dir = temp::dir("core-proof");
    // Seed 115 of this size needs about two thousand nodes of search: no line is empty and
    // every row can get its own column.
    let inst = generate(&dir, "c.json", "5000", "4900", "115", &[]);
    let inst_s = inst.as_str();
    let proof = dir.join("c.lrat");
    let proof_s = proof.to_str().unwrap();
    let o = queens(&["solve", inst_s, "--proof", proof_s, "--json"], None);
    super::cli::exited(&o, 1);
    let v = json(&o);
    assert_eq!(v["status"], "unsat");
    assert!(
        v["reason"].as_str().unwrap().contains("search of the core"),
        "{v}"
    );
    assert!(v["nodes"].as_u64().unwrap() > 0);
    assert_eq!(v["proof"]["format"], "lrat");
    assert_eq!(v["proof"]["checked"], true);
    let cnf = std::fs::read_to_string(format!("{proof_s}.cnf")).unwrap();
    assert!(cnf.contains("c cell 1 "), "the CNF maps its variables");
    // The comment's cell is open: on a free row and column of the instance.
    let first = cnf.lines().find(|l| l.starts_with("c cell 1 ")).unwrap();
    let rc: Vec<usize> = first
        .split(' ')
        .skip(3)
        .map(|x| x.parse().unwrap())
        .collect();
    let inst_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(inst_s).unwrap()).unwrap();
    let fixed = inst_json["queens"].as_array().unwrap();
    assert!(fixed
        .iter()
        .all(|q| q[0] != rc[0] as u64 && q[1] != rc[1] as u64));
    for checker in ["lrat-check", "cake_lpr"] {
        if let Some(checker) = outside_checker(checker) {
            let out = Command::new(checker)
                .arg(format!("{proof_s}.cnf"))
                .arg(proof_s)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                text.lines()
                    .any(|l| matches!(l.trim(), "c VERIFIED" | "s VERIFIED UNSAT")),
                "{checker} rejects the core proof: {text}"
            );
        }
    }
}

/// Counting completions of a board past half full: the core count (auto) equals the
/// whole-board backtracker's.
#[test]
fn core_count_matches_the_whole_board() {
    let dir = temp::dir("core-count");
    let inst = generate(
        &dir,
        "c.json",
        "300",
        "285",
        "4",
        &["--presets", "solution"],
    );
    let inst_s = inst.as_str();
    let core = json(&queens(
        &["count", inst_s, "--engine", "auto", "--json"],
        None,
    ));
    let whole = json(&queens(
        &["count", inst_s, "--engine", "backtrack", "--json"],
        None,
    ));
    assert_eq!(core["core"]["rows"], 15, "{core}");
    assert!(whole.get("core").is_none(), "{whole}");
    assert!(
        core["count"].as_u64().unwrap() >= 1,
        "a solution's rows always complete"
    );
    assert_eq!(core["count"], whole["count"]);
}

/// Past 4096 rows every complete engine answers on the core and they agree: the backtracker,
/// varisat and (installed, as CI installs it) CaDiCaL; `encode` writes the core CNF with its
/// cell map and `decode` maps a model of it back to a verified board.
#[test]
fn every_complete_engine_on_the_core_past_4096_rows() {
    let dir = temp::dir("core-engines");
    for (n, queens_placed, seed, want) in [
        ("100000", "99530", "1", "sat"),
        ("5000", "4900", "115", "unsat"),
    ] {
        let inst = generate(&dir, &format!("c{n}.json"), n, queens_placed, seed, &[]);
        let inst_s = inst.as_str();
        let rows = n.parse::<u64>().unwrap() - queens_placed.parse::<u64>().unwrap();
        for engine in ["backtrack", "sat", "ext:cadical"] {
            if engine == "ext:cadical" && outside_checker("cadical").is_none() {
                continue;
            }
            let o = queens(&["solve", inst_s, "--engine", engine, "--json"], None);
            let v = json(&o);
            assert_eq!(v["status"], want, "{engine} on {n}: {v}");
            assert_eq!(v["core"]["rows"], rows, "{engine} on {n}: {v}");
            if want == "sat" {
                assert_eq!(v["queens"].as_array().map(Vec::len), Some(100_000));
            }
        }
        let cnf = dir.join(format!("c{n}.cnf"));
        let o = queens(&["encode", inst_s, "-o", cnf.to_str().unwrap()], None);
        super::cli::exited(&o, 0);
        let text = std::fs::read_to_string(&cnf).unwrap();
        assert!(
            text.contains("c cell 1 "),
            "the core CNF maps its variables"
        );
        assert!(
            !text.contains("c fixed"),
            "the instance's fixed queens are not repeated"
        );
        if want == "sat" {
            let model = dir.join("model.txt");
            std::fs::write(&model, super::gen::external_solver_output(&text)).unwrap();
            let o = queens(&["decode", inst_s, model.to_str().unwrap(), "--json"], None);
            let v = json(&o);
            assert_eq!(v["status"], "sat", "{v}");
            assert_eq!(v["queens"].as_array().map(Vec::len), Some(100_000));
        }
    }
}

/// Past 4096 rows the race answers on the core, and what the core cannot do is refused with
/// exit 2 naming the field: a binary proof, a proof from another engine, listing, a core past
/// its bound.
#[test]
fn race_and_refusals_past_4096_rows() {
    let dir = temp::dir("core-refusals");
    let inst = generate(&dir, "c.json", "5000", "4900", "115", &[]);
    let inst_s = inst.as_str();
    let o = queens(&["solve", inst_s, "--engine", "race", "--json"], None);
    super::cli::exited(&o, 1);
    let v = json(&o);
    assert_eq!(v["status"], "unsat");
    assert_eq!(v["core"]["rows"], 100, "{v}");
    let refused = |args: &[&str], field: &str| {
        let o = queens(args, None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&format!("field `{field}`")), "{args:?}: {err}");
    };
    let p = dir.join("p");
    let p = p.to_str().unwrap();
    refused(
        &[
            "solve",
            inst_s,
            "--proof",
            p,
            "--proof-format",
            "binary-lrat",
        ],
        "proof",
    );
    refused(&["solve", inst_s, "--proof", p, "--engine", "sat"], "proof");
    refused(&["solve", inst_s, "--all"], "all");
    // 10,000 free rows: past the core's bound, so only local search takes it.
    let big = generate(&dir, "big.json", "20000", "10000", "1", &[]);
    refused(&["solve", &big, "--engine", "backtrack"], "n");
}

/// Past 4096 rows a count searches the whole core, so a core past the core search's bound
/// for one solution (here 42 % of the rows free) is counted where it fits the memory limit.
/// Every free row is closed but for its cell of a solution, and two of them are also open on
/// each other's column: the completions are the solution and, where the verifier accepts it,
/// the board with those two swapped.
#[test]
fn a_count_takes_a_core_past_the_search_bound() {
    let (n, free) = (4200, 1800);
    let ColumnAnswer::Sat(sol) = engine::solve_columns(
        &Problem::sized(n).unwrap(),
        EngineSpec::Local { seed: 1 },
        &Budget::default(),
    )
    .unwrap()
    .answer
    else {
        panic!("local search solves the empty board")
    };
    let rows = n - free..n;
    let fixed: Vec<Pos> = (0..n - free).map(|r| (r, sol[r] as usize)).collect();
    let (a, b) = (n - free, n - 1);
    let keep = |r: usize, c: usize| {
        c == sol[r] as usize || (r == a && c == sol[b] as usize) || (r == b && c == sol[a] as usize)
    };
    let cols: Vec<usize> = rows.clone().map(|r| sol[r] as usize).collect();
    let blocked: Vec<Pos> = rows
        .clone()
        .flat_map(|r| cols.iter().map(move |&c| (r, c)))
        .filter(|&(r, c)| !keep(r, c))
        .collect();
    let p = Problem::sized(n)
        .unwrap()
        .with_fixed(&fixed)
        .unwrap()
        .with_blocked(&blocked)
        .unwrap();
    assert!(
        completion::fits(&p).is_err(),
        "the core is past the core search's bound"
    );
    let mut swapped = sol.clone();
    swapped.swap(a, b);
    let expected = 1 + u64::from(verify_columns(&p, &swapped).is_ok());
    let budget = Budget {
        max_memory: Some(1 << 30),
        ..Budget::default()
    };
    for spec in [
        EngineSpec::Backtrack { threads: 0 },
        EngineSpec::Auto { seed: 1 },
    ] {
        let counted = engine::count(&p, spec, Some(10), &budget).unwrap();
        assert_eq!(counted.count, expected, "{spec:?}");
        assert!(!counted.limited && !counted.interrupted, "{spec:?}");
        assert_eq!(counted.work.core.map(|c| c.rows), Some(free), "{spec:?}");
    }

    // A generated completion with half its rows free, on the command line: counted to its
    // limit, and refused naming the memory when its core is over the limit.
    let dir = temp::dir("core-count-past-bound");
    let inst = generate(&dir, "half.json", "5000", "2500", "1", &[]);
    let o = queens(&["count", &inst, "--limit", "5", "--json"], None);
    super::cli::exited(&o, 4);
    let v = json(&o);
    assert_eq!(v["status"], "limited", "{v}");
    assert_eq!(v["count"], 5, "{v}");
    assert_eq!(v["core"]["rows"], 2500, "{v}");
    let o = queens(
        &["count", &inst, "--limit", "5", "--max-memory", "100"],
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("field `n`")
            && err.contains("MB")
            && err.contains("over the memory limit of 100 MB")
            && err.contains("a count searches the whole core"),
        "{err}"
    );
}
