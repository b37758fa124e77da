//! External SAT solvers as engines (`--engine ext:NAME`): fake solvers for every way a
//! program can fail (none of which may become an answer), the real CaDiCaL and MiniSat where
//! installed, and the ring bounds.

use std::time::{Duration, Instant};

use queens::cnf::rings;
use queens::encode::amo::Encoding;
use queens::engine::backtrack;
use queens::engine::ext::{self, ExtName, ExtSpec};
use queens::{formats, Problem};

use super::cli::{instance, json, queens, stdout};
use crate::temp;

fn fake(script: &str) -> String {
    format!(
        "fake=sh {}/tests/data/solvers/{script} {{cnf}}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// True when `name` is on PATH; prints why a test is skipped otherwise.
fn installed(name: &str) -> bool {
    let found = ext::find_program(name).is_some();
    if !found {
        crate::need::missing(name, "the SAT solver is not installed");
    }
    found
}

#[test]
fn a_solver_that_fails_never_gives_an_answer() {
    // (script, exit code, what stderr or the status must say)
    for (script, code, says) in [
        ("garbage.sh", 3, "is not a literal"),
        ("wrong-model.sh", 3, "breaks a rule"),
        ("crash.sh", 3, "was killed"),
        (
            "contradiction.sh",
            3,
            "exited with status 10 but its output says UNSATISFIABLE",
        ),
    ] {
        let o = queens(
            &[
                "solve",
                "--n",
                "6",
                "--engine",
                "ext:fake",
                "--solver",
                &fake(script),
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(code), "{script}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{script} printed an answer");
        assert!(stderr(&o).contains(says), "{script}: {}", stderr(&o));
        // Counting reads every model the same way.
        let o = queens(
            &[
                "count",
                "--n",
                "6",
                "--limit",
                "2",
                "--engine",
                "ext:fake",
                "--solver",
                &fake(script),
            ],
            None,
        );
        assert_eq!(
            o.status.code(),
            Some(code),
            "count, {script}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn s_unknown_is_no_answer_within_the_limits() {
    let o = queens(
        &[
            "solve",
            "--n",
            "6",
            "--engine",
            "ext:fake",
            "--solver",
            &fake("unknown.sh"),
            "--json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["status"], "unknown");
    assert!(j["queens"].is_null());
    // `engine` says only `ext`: the answer names the solver.
    assert_eq!(j["engine"], "ext");
    assert_eq!(j["solver"], "fake");
    // The text says so too, and never "solved".
    let o = queens(
        &[
            "solve",
            "--n",
            "6",
            "--engine",
            "ext:fake",
            "--solver",
            &fake("unknown.sh"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        "unknown: solver `fake` gave up without an answer (s UNKNOWN)"
    );
}

#[test]
fn an_answer_from_an_external_solver_names_it() {
    if !installed("cadical") {
        return;
    }
    let o = queens(&["solve", "--n", "6", "--engine", "ext:cadical"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("(ext:cadical/auto, 36 vars"), "{text}");
    let o = queens(
        &[
            "count",
            "--n",
            "6",
            "--engine",
            "ext:cadical",
            "--limit",
            "10",
            "--json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(
        (j["count"].as_u64(), &j["solver"]),
        (Some(4), &"cadical".into())
    );
}

#[test]
fn a_solver_that_hangs_is_killed_at_the_deadline() {
    let start = Instant::now();
    let o = queens(
        &[
            "solve",
            "--n",
            "6",
            "--engine",
            "ext:fake",
            "--solver",
            &fake("hang.sh"),
            "--timeout",
            "1",
            "--json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert_eq!(json(&o)["status"], "timeout");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_missing_solver_is_a_usage_error_naming_it() {
    let o = queens(&["solve", "--n", "6", "--engine", "ext:nosuchsolver"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown solver `nosuchsolver`"),
        "{}",
        stderr(&o)
    );
    let o = queens(
        &[
            "solve",
            "--n",
            "6",
            "--engine",
            "ext:mine",
            "--solver",
            "mine=/nonexistent/bin/solver {cnf}",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("solver `mine` is not installed: `/nonexistent/bin/solver`"),
        "{}",
        stderr(&o)
    );
    // A known solver that is absent (on a PATH without it).
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_queens"))
        .args(["solve", "--n", "6", "--engine", "ext:kissat"])
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("solver `kissat` is not installed"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn real_solvers_agree_with_the_backtracker() {
    for name in ["cadical", "minisat"] {
        if !installed(name) {
            continue;
        }
        let engine = format!("ext:{name}");
        // Satisfiable: a verified board.
        let o = queens(
            &[
                "solve",
                &instance("nauck-1850.txt"),
                "--engine",
                &engine,
                "--json",
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let j = json(&o);
        assert_eq!(j["engine"], "ext");
        assert_eq!(j["queens"].as_array().unwrap().len(), 8);
        // Unsatisfiable.
        let o = queens(
            &[
                "solve",
                &instance("unsolvable-completion.txt"),
                "--engine",
                &engine,
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        // Counting by blocking clauses: Nauck's instance has exactly 2 solutions.
        let o = queens(
            &[
                "count",
                &instance("nauck-1850.txt"),
                "--limit",
                "5",
                "--engine",
                &engine,
                "--json",
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        assert_eq!(json(&o)["count"], 2);
        // Cross-checked against the backtracker, with the CNF on stdin (cadical prints its
        // model; minisat would need a model file).
        if name != "cadical" {
            continue;
        }
        let o = queens(
            &[
                "solve",
                &instance("blocked-8.txt"),
                "--engine",
                "ext:viastdin",
                "--solver",
                &format!(
                    "viastdin=sh {}/tests/data/solvers/stdin-cat.sh {name}",
                    env!("CARGO_MANIFEST_DIR")
                ),
                "--cross-check",
            ],
            None,
        );
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{name}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn cadical_proves_unsat_with_a_drat_proof_that_checks() {
    if !installed("cadical") {
        return;
    }
    let dir = temp::dir("ext-proof");
    let proof = dir.join("p.drat");
    for format in ["drat", "lrat"] {
        let o = queens(
            &[
                "solve",
                &format!("{}/tests/data/diag-8.param", env!("CARGO_MANIFEST_DIR")),
                "--engine",
                "ext:cadical",
                "--proof",
                proof.to_str().unwrap(),
                "--proof-format",
                format,
                "--json",
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(1), "{format}: {}", stderr(&o));
        let j = json(&o);
        assert_eq!(j["proof"]["checked"], true);
        assert!(std::fs::metadata(&proof).unwrap().len() > 0);
        let cnf = std::fs::read_to_string(dir.join("p.drat.cnf")).unwrap();
        assert!(cnf.contains("p cnf"));
    }
    // A solver that writes no proof is refused, not trusted.
    if installed("minisat") {
        let o = queens(
            &[
                "solve",
                &format!("{}/tests/data/diag-8.param", env!("CARGO_MANIFEST_DIR")),
                "--engine",
                "ext:minisat",
                "--proof",
                proof.to_str().unwrap(),
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    }
}

#[test]
fn compare_runs_external_solvers_beside_ours() {
    if !installed("cadical") || !installed("minisat") {
        return;
    }
    let corpus = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/csplib-prob079-excluded-diagonals.jsonl"
    );
    // Without the shared corpus, the repository's small corpus: its two classic n = 8
    // instances (a completion and an excluded-diagonals one).
    let (input, select) = if std::path::Path::new(corpus).exists() {
        (corpus.to_string(), "n=10")
    } else {
        (
            format!("{}/tests/data/corpus.jsonl", env!("CARGO_MANIFEST_DIR")),
            "n=8",
        )
    };
    let o = queens(
        &[
            "compare",
            &input,
            "--select",
            select,
            "--take",
            "6",
            "--engines",
            "backtrack:1,ext:cadical,ext:minisat,ext:cadical:seq+rings",
            "--timeout",
            "20",
            "--json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json(&o);
    for s in j["summary"].as_array().unwrap() {
        assert_eq!(s["errors"], 0, "{s}");
    }
}

#[test]
fn ring_bounds_hold_for_every_solution_up_to_12() {
    for n in 1..=12 {
        let b = rings::bounds(n);
        let problem = Problem::new(n).unwrap();
        let mut seen = vec![(usize::MAX, 0usize); b.len()];
        let mut solutions = 0u64;
        backtrack::enumerate(&problem, &backtrack::Config::default(), None, |q| {
            solutions += 1;
            let mut count = vec![0usize; b.len()];
            for &p in q {
                count[rings::ring_of(n, p)] += 1;
            }
            for (k, &c) in count.iter().enumerate() {
                assert!(
                    b[k].min <= c && c <= b[k].max,
                    "n {n}: ring {k} holds {c}, outside {}–{}: {q:?}",
                    b[k].min,
                    b[k].max
                );
                seen[k] = (seen[k].0.min(c), seen[k].1.max(c));
            }
            true
        });
        eprintln!(
            "n {n}: {solutions} solutions; (bound, seen) per ring: {:?}",
            {
                b.iter()
                    .zip(&seen)
                    .map(|(r, s)| format!("{}–{} ({}–{})", r.min, r.max, s.0, s.1))
                    .collect::<Vec<_>>()
            }
        );
    }
}

#[test]
fn ring_constraints_remove_no_solution() {
    let nauck = formats::read_path(std::path::Path::new(&instance("nauck-1850.txt"))).unwrap();
    let mut problems: Vec<Problem> = (4..=9).map(|n| Problem::new(n).unwrap()).collect();
    problems.push(nauck);
    for problem in problems {
        let spec = ExtSpec {
            solver: ExtName::new("any").unwrap(),
            encoding: Encoding::Seq,
            rings: true,
        };
        let cnf = ext::formula(&problem, spec).unwrap();
        let plain = ext::formula(
            &problem,
            ExtSpec {
                rings: false,
                ..spec
            },
        )
        .unwrap();
        assert!(cnf.formula.len() > plain.formula.len());
        // Every model of the CNF with the rings, projected on the cells, is a solution, and
        // there are as many as the backtracker counts.
        let mut solver = varisat::Solver::new();
        solver.add_formula(&cnf.formula);
        let mut count = 0u64;
        while solver.solve().unwrap() {
            let model: std::collections::HashSet<varisat::Lit> =
                solver.model().unwrap().into_iter().collect();
            let q = cnf.map.decode(|l| model.contains(&l));
            queens::verify(&problem, &q).unwrap();
            count += 1;
            let block = cnf.map.blocking_clause(&q);
            if block.is_empty() {
                break;
            }
            varisat::ExtendFormula::add_clause(&mut solver, &block);
        }
        let expected = backtrack::count(&problem, &backtrack::Config::default(), None).total;
        assert_eq!(count, expected, "n {}", problem.n());
    }
}

#[test]
fn rings_prints_the_papers_table_beside_ours() {
    let o = queens(&["rings", "--n", "8", "--json"], None);
    assert_eq!(o.status.code(), Some(0));
    let j = json(&o);
    let got: Vec<(u64, u64, u64, u64)> = j["rings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["ring"].as_u64().unwrap(),
                r["cells"].as_u64().unwrap(),
                r["min"].as_u64().unwrap(),
                r["max"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [(0, 28, 3, 4), (1, 20, 0, 4), (2, 12, 0, 4), (3, 4, 0, 1)]
    );
    assert_eq!(j["rings"][0]["paper"]["min"], 3);
    let text = stdout(&queens(&["rings", "--n", "8"], None));
    assert!(text.contains("paper (2021)"), "{text}");
    let o = queens(&["encode", "--n", "8", "--rings"], None);
    assert!(stdout(&o).contains("with ring bounds"));
    // Region puzzles (touching rule) do not satisfy the bounds: refused.
    let o = queens(&["encode", &instance("region-7.txt"), "--rings"], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn the_backtrackers_ring_prune_keeps_every_solution() {
    let mut problems: Vec<Problem> = (1..=10).map(|n| Problem::new(n).unwrap()).collect();
    for name in [
        "nauck-1850.txt",
        "unsolvable-completion.txt",
        "blocked-8.txt",
    ] {
        problems.push(formats::read_path(std::path::Path::new(&instance(name))).unwrap());
    }
    for problem in &problems {
        let list = |rings: bool| {
            let config = backtrack::Config {
                threads: 1,
                rings,
                ..Default::default()
            };
            let mut all = Vec::new();
            backtrack::enumerate(problem, &config, None, |q| {
                all.push(q.to_vec());
                true
            });
            all.sort();
            all
        };
        assert_eq!(list(true), list(false), "n {}", problem.n());
    }
    // Through the engine spec, on the command line and in compare.
    let o = queens(&["solve", "--n", "12", "--rings", "--json"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let corpus = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/csplib-prob079-excluded-diagonals.jsonl"
    );
    let mut args = vec![
        "compare",
        "--engines",
        "backtrack:1,backtrack:1+rings,backtrack+rings",
        "--json",
    ];
    let diag8 = format!("{}/tests/data/diag-8.param", env!("CARGO_MANIFEST_DIR"));
    if std::path::Path::new(corpus).exists() {
        args.extend([corpus, "--select", "n=14", "--first", "12", "--take", "30"]);
    } else {
        args.push(&diag8);
    }
    let o = queens(&args, None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = queens(&["solve", &instance("region-7.txt"), "--rings"], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn compare_fits_growth_per_board_size() {
    let dir = temp::dir("growth");
    let file = |n: &str| dir.join(n).display().to_string();
    for n in ["10", "12", "14"] {
        let out = file(&format!("d{n}.jsonl"));
        let o = queens(
            &[
                "generate",
                "diagonals",
                "--n",
                n,
                "--count",
                "3",
                "-o",
                &out,
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let plot = file("growth.svg");
    let o = queens(
        &[
            "compare",
            &file("d10.jsonl"),
            &file("d12.jsonl"),
            &file("d14.jsonl"),
            "--first-ratio",
            "0.9",
            "--per-n",
            "2",
            "--engines",
            "backtrack:1,backtrack:2",
            "--growth-plot",
            &plot,
            "--json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["instances"].as_array().unwrap().len(), 6);
    let sizes = j["growth"]["sizes"].as_array().unwrap();
    assert_eq!(sizes.len(), 6, "{sizes:?}");
    for s in sizes {
        assert_eq!(s["instances"], 2);
        assert_eq!(s["solved"], 2);
    }
    let fits = j["growth"]["fits"].as_array().unwrap();
    assert_eq!(fits.len(), 2);
    assert_eq!(fits[0]["points"], 3);
    assert!(fits[0]["b"].as_f64().unwrap() > 0.0);
    assert!(fits[0]["b_low"].as_f64().unwrap() <= fits[0]["b"].as_f64().unwrap());
    assert!(std::fs::read_to_string(&plot).unwrap().contains("<svg"));
    // The text form prints the table and the fits.
    let o = queens(
        &[
            "compare",
            &file("d10.jsonl"),
            "--first-ratio",
            "0.9",
            "--engines",
            "backtrack:1",
            "--growth",
        ],
        None,
    );
    assert!(stdout(&o).contains("growth time ≈ a·bⁿ"), "{}", stdout(&o));
}

/// A solver run through a wrapper: the script is not the process that hangs, its child is,
/// and that child holds the pipes the answer would come through.
fn wrapper_solve(script: &std::path::Path, timeout: &str) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_queens"));
    c.args([
        "solve",
        "--n",
        "6",
        "--engine",
        "ext:hang",
        "--solver",
        &format!("hang={} {{cnf}}", script.display()),
        "--timeout",
        timeout,
        "--json",
    ]);
    c
}

#[test]
fn a_wrapper_whose_child_hangs_answers_at_the_deadline_and_leaves_nothing() {
    let dir = crate::temp::dir("wrapper");
    let (script, marker) = crate::procs::hanging_wrapper(&dir);
    let start = Instant::now();
    let o = wrapper_solve(&script, "2").output().unwrap();
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert_eq!(json(&o)["status"], "timeout");
    assert!(took < Duration::from_secs(3), "answered after {took:?}");
    assert_eq!(crate::procs::survivors(&marker), Vec::<u32>::new());
}

#[test]
fn sigterm_to_the_cli_takes_the_solvers_children_with_it() {
    let dir = crate::temp::dir("wrapper");
    let (script, marker) = crate::procs::hanging_wrapper(&dir);
    let mut child = wrapper_solve(&script, "30")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    assert!(
        crate::procs::wait_for(&marker, Duration::from_secs(10)),
        "the wrapper never started its child"
    );
    let pid = rustix::process::Pid::from_child(&child);
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(15), "{status}");
    assert_eq!(crate::procs::survivors(&marker), Vec::<u32>::new());
}
