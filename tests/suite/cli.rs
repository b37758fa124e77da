//! The real binary on real files: output and exit codes as a user sees them.

use crate::temp;
use std::io::Write;
use std::process::{Command, Output, Stdio};

pub(super) fn instance(name: &str) -> String {
    format!("{}/instances/{name}", env!("CARGO_MANIFEST_DIR"))
}

pub(super) fn queens(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_queens"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    // A command may exit without reading its stdin (a usage error): a closed pipe is fine.
    if let Err(e) = input.write_all(stdin.unwrap_or("").as_bytes()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    drop(input);
    child.wait_with_output().unwrap()
}

/// Asserts that the command exited 0, showing its stderr if not.
pub(super) fn succeeded(o: &Output) {
    exited(o, 0);
}

/// Asserts that the command exited with `code`, showing its stderr if not.
pub(super) fn exited(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

pub(super) fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub(super) fn json(o: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(o)).unwrap()
}

#[test]
fn solve_prints_a_verified_board_and_exits_0() {
    let o = queens(&["solve", &instance("nauck-1850.txt")], None);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    let board: String = out.lines().take(8).collect::<Vec<_>>().join("\n");
    // The printed board is itself an instance with 8 fixed queens that checks as solved.
    let c = queens(&["check", "-"], Some(&board));
    assert!(
        stdout(&c).contains("solved: all 8 queens placed"),
        "{}",
        stdout(&c)
    );
    assert!(out.contains("solved: 8×8, classic, diagonals full, 2 fixed"));
}

#[test]
fn solve_all_json_lists_both_nauck_completions() {
    let o = queens(
        &["solve", &instance("nauck-1850.json"), "--all", "--json"],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert_eq!(v["status"], "sat");
    assert_eq!(v["count"], 2);
    assert_eq!(v["solutions"].as_array().unwrap().len(), 2);
    assert!(v["nodes"].as_u64().unwrap() > 0 && v["time_ms"].is_number());
}

#[test]
fn unsolvable_is_a_result_with_exit_1() {
    let o = queens(
        &["solve", &instance("unsolvable-completion.txt"), "--json"],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["status"], "unsat");
    assert!(v["queens"].is_null());
    let o = queens(&["solve", "-"], Some("QQ.\n...\n...\n"));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "no solution: the fixed queens already break a rule: queens (0,0) and (0,1) share row 0\n"
    );
}

/// The text of a count (and of a solve) names the engine that searched, not the
/// backtracker whatever ran.
#[test]
fn count_and_solve_text_name_the_engine_that_ran() {
    for (args, word) in [
        (&["count", "--n", "6", "--engine", "dlx"][..], "(dlx, "),
        (&["count", "--n", "6"][..], "(backtrack, "),
        (
            &["count", "--n", "6", "--engine", "auto"][..],
            "(backtrack, ",
        ),
        (&["solve", "--n", "6", "--engine", "dlx"][..], "(dlx, "),
    ] {
        let o = queens(args, None);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        let text = stdout(&o);
        assert!(text.contains(word), "{args:?}: {text}");
        let other = if word == "(dlx, " { "backtrack" } else { "dlx" };
        assert!(!text.contains(other), "{args:?}: {text}");
    }
}

/// An engine name the table does not know is refused (exit 2) with the table's names by
/// every command that takes `--engine`, and `ext` alone asks for its solver.
#[test]
fn an_unknown_engine_is_refused_with_the_names_of_the_table() {
    let nauck = instance("nauck-1850.txt");
    for (args, names) in [
        (
            &["solve", "--n", "6", "--engine", "dlxx"][..],
            "`dlxx`: use auto, backtrack, sat, race, local, dlx or ext:SOLVER",
        ),
        (
            &["count", "--n", "6", "--engine", "dlxx"][..],
            "`dlxx`: use auto, backtrack, sat, race, local, dlx or ext:SOLVER",
        ),
        (
            &["explain", &nauck, "--engine", "dlxx"][..],
            "[possible values: auto, backtrack, sat, race, local, dlx]",
        ),
    ] {
        let o = queens(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(names), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let o = queens(&["solve", "--n", "6", "--engine", "ext"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"));
}

#[test]
fn count_with_unique_and_limit() {
    let v = json(&queens(&["count", "--n", "8", "--unique", "--json"], None));
    assert_eq!(
        (v["count"].as_u64(), v["unique"].as_u64()),
        (Some(92), Some(12))
    );
    let o = queens(&["count", &instance("region-7.txt"), "--limit", "2"], None);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("count: 1\n"), "{}", stdout(&o));
    let o = queens(&["count", "--n", "3"], None);
    assert_eq!(o.status.code(), Some(1));
    // A count stopped by the limit is a lower bound: no answer within the limits (exit 4),
    // never "proven" anything.
    let o = queens(&["count", "--n", "8", "--limit", "5"], None);
    assert_eq!(o.status.code(), Some(4));
    assert!(
        stdout(&o).starts_with("count: 5 (limit reached; there may be more)\n"),
        "{}",
        stdout(&o)
    );
    let o = queens(&["count", "--n", "8", "--limit", "5", "--json"], None);
    assert_eq!(o.status.code(), Some(4));
    let v = json(&o);
    assert_eq!(
        (v["status"].as_str(), v["count"].as_u64()),
        (Some("limited"), Some(5))
    );
}

#[test]
fn limit_0_is_refused() {
    // It used to print `count: 0` with exit 1 ("proven: no solution"), and a solution for
    // `solve`.
    for args in [
        ["count", "--n", "6", "--limit", "0"],
        ["solve", "--n", "6", "--limit", "0"],
    ] {
        let o = queens(&args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stdout(&o).is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("`limit`: must be at least 1"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn check_names_every_conflict() {
    let o = queens(&["check", "-", "--json"], Some("Q...\n.Q..\n....\nQ...\n"));
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["status"], "invalid");
    let messages: Vec<&str> = v["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            "queens (0,0) and (3,0) share column 0",
            "queens (0,0) and (1,1) share a diagonal"
        ]
    );
    let o = queens(&["check", &instance("region-7-started.json")], None);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).ends_with("consistent, 1 of 7 placed (can be completed)\n"));
    let v = json(&queens(
        &["check", &instance("unsolvable-completion.txt"), "--json"],
        None,
    ));
    assert_eq!(
        (v["status"].as_str(), v["completable"].as_bool()),
        (Some("consistent"), Some(false))
    );
    // Touching queens in a region puzzle.
    let o = queens(&["check", "-"], Some("AB\nBA\nqueens: 0,0 1,1\n"));
    assert!(
        stdout(&o).contains("queens (0,0) and (1,1) touch diagonally"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn bad_input_exits_2_with_file_and_line() {
    let path = instance("nope.txt");
    let o = queens(&["solve", &path], None);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.starts_with(&format!("queens: error: {path}: ")),
        "{err}"
    );
    let o = queens(&["solve", "-"], Some("...\n..\n...\n"));
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        "queens: error: <stdin>: line 2: row has 2 cells, expected 3 like the first row\n"
    );
    // No instance at all: a usage error that names the three ways to give one.
    for command in ["solve", "count", "encode"] {
        let o = queens(&[command], None);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{command}: a missing FILE is a usage error"
        );
        let err = String::from_utf8(o.stderr).unwrap();
        for way in ["FILE", " - ", "--n N"] {
            assert!(err.contains(way), "{command}: `{way}` is not named: {err}");
        }
    }
}

#[test]
fn sat_engine_with_cross_check_reports_its_encoding() {
    let o = queens(
        &[
            "solve",
            &instance("region-7.txt"),
            "--engine",
            "sat",
            "--encoding",
            "product",
            "--cross-check",
            "--json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert_eq!(
        (v["engine"].as_str(), v["encoding"].as_str()),
        (Some("sat"), Some("product"))
    );
    assert_eq!(v["cross_checked"], "backtrack");
    assert!(v["vars"].as_u64().unwrap() > 0 && v["clauses"].as_u64().unwrap() > 0);
    assert!(v["encode_ms"].is_number() && v["solve_ms"].is_number());
    // The trace: the SAT engine, then the backtracker from where it ended, within the whole.
    let steps = &v["plan"]["steps"];
    let t = |i: usize, k: &str| steps[i][k].as_f64().unwrap();
    assert_eq!(v["plan"]["step"], "cross_check", "{}", v["plan"]);
    assert!(t(0, "start_ms") <= t(0, "end_ms"), "{}", v["plan"]);
    assert_eq!(t(0, "end_ms"), t(1, "start_ms"), "{}", v["plan"]);
    assert!(t(1, "end_ms") <= v["plan"]["end_ms"].as_f64().unwrap());
    let o = queens(
        &[
            "count",
            &instance("nauck-1850.txt"),
            "--engine",
            "sat",
            "--cross-check",
        ],
        None,
    );
    assert!(stdout(&o).starts_with("count: 2\n"));
    assert!(stdout(&o).contains("cross-checked: the backtrack engine agrees"));
    let o = queens(&["solve", "--n", "4", "--encoding", "nope"], None);
    assert_eq!(o.status.code(), Some(2));
}

/// Encodes Nauck's instance with the commander encoding into `dir/nauck.cnf`; returns the
/// path and the CNF's text.
fn encode_nauck_commander(dir: &std::path::Path) -> (std::path::PathBuf, String) {
    let cnf = dir.join("nauck.cnf");
    let o = queens(
        &[
            "encode",
            &instance("nauck-1850.txt"),
            "--encoding",
            "commander",
            "-o",
            cnf.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let text = std::fs::read_to_string(&cnf).unwrap();
    (cnf, text)
}

#[test]
fn encode_to_file_and_decode_an_external_model() {
    let dir = temp::dir("cli");
    let (_, text) = encode_nauck_commander(&dir);
    // Solve it as an external solver would and hand its output to `decode`.
    let model = dir.join("model.out");
    std::fs::write(&model, super::gen::external_solver_output(&text)).unwrap();
    let o = queens(
        &[
            "decode",
            &instance("nauck-1850.txt"),
            model.to_str().unwrap(),
            "--encoding",
            "commander",
            "--json",
        ],
        None,
    );
    exited(&o, 0);
    assert_eq!(json(&o)["status"], "sat");
    // A model that breaks a rule is bad input, named by file.
    std::fs::write(&model, "s SATISFIABLE\nv 1 2 3 0\n").unwrap();
    let o = queens(
        &[
            "decode",
            &instance("nauck-1850.txt"),
            model.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("the model does not decode to a valid board")
    );
    std::fs::write(&model, "s UNSATISFIABLE\n").unwrap();
    let o = queens(
        &[
            "decode",
            &instance("nauck-1850.txt"),
            model.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    // A solver that gave up answered nothing: exit 4, not 1 ("proven: no solution").
    std::fs::write(&model, "s UNKNOWN\n").unwrap();
    let o = queens(
        &[
            "decode",
            &instance("nauck-1850.txt"),
            model.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(json(&o)["status"], "unknown");
}

#[test]
fn decode_refuses_a_literal_beyond_the_cnfs_variables() {
    let dir = temp::dir("cli-vars");
    let (cnf, text) = encode_nauck_commander(&dir);
    let vars: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("p cnf "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    // The solver's real answer decodes with the CNF at hand, whatever its encoding.
    let good = super::gen::external_solver_output(&text);
    let o = queens(
        &[
            "decode",
            &instance("nauck-1850.txt"),
            "-",
            "--cnf",
            cnf.to_str().unwrap(),
        ],
        Some(&good),
    );
    exited(&o, 0);
    // One variable past the CNF's, or far past it: exit 2 naming the literal and its line,
    // from the CNF's header or from the encoding.
    for (literal, args) in [
        (vars + 1, vec!["--cnf", cnf.to_str().unwrap()]),
        (999_999, vec!["--cnf", cnf.to_str().unwrap()]),
        (999_999, vec!["--encoding", "commander"]),
        (999_999, vec![]),
    ] {
        let model = format!("s SATISFIABLE\nv -1 {literal} 0\n");
        let inst = instance("nauck-1850.txt");
        let mut argv = vec!["decode", inst.as_str(), "-"];
        argv.extend(args.iter().copied());
        let o = queens(&argv, Some(&model));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{argv:?}: {err}");
        assert!(
            err.contains(&format!("line 2: literal {literal} is out of range")),
            "{argv:?}: {err}"
        );
    }
    // A CNF file that is not DIMACS is named.
    let o = queens(
        &[
            "decode",
            &instance("nauck-1850.txt"),
            "-",
            "--cnf",
            &instance("nauck-1850.txt"),
        ],
        Some(&good),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("p cnf VARS CLAUSES"));
}

#[test]
fn decode_reads_the_model_from_stdin() {
    let cnf = stdout(&queens(&["encode", &instance("nauck-1850.txt")], None));
    let model = super::gen::external_solver_output(&cnf);
    let o = queens(&["decode", &instance("nauck-1850.txt"), "-"], Some(&model));
    exited(&o, 0);
    assert!(stdout(&o).ends_with("solved: the model decodes to a valid board\n"));
    // Errors name stdin as the model's origin.
    let o = queens(
        &["decode", &instance("nauck-1850.txt"), "-"],
        Some("s SATISFIABLE\nv 1 2 3 0\n"),
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("queens: error: <stdin>: the model does not decode"),
        "{err}"
    );
    // Only one of the two can come from stdin.
    let o = queens(&["decode", "-", "-"], Some(&model));
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn explain_prints_a_minimal_core() {
    let o = queens(
        &["explain", &instance("unsolvable-completion.txt"), "--json"],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["status"], "unsat");
    assert_eq!(v["core"], serde_json::json!([[0, 4], [4, 7], [7, 0]]));
    assert_eq!(v["blocked_core"], serde_json::json!([]));
    let o = queens(&["explain", &instance("nauck-1850.txt"), "--json"], None);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(json(&o)["status"], "sat");
}

#[test]
fn unsat_with_proof_writes_a_checked_proof_and_its_cnf() {
    let dir = temp::dir("proof");
    let (proof, cnf) = (dir.join("u.lrat"), dir.join("u.cnf"));
    let o = queens(
        &[
            "solve",
            &instance("unsolvable-completion.txt"),
            "--engine",
            "sat",
            "--proof",
            proof.to_str().unwrap(),
            "--proof-format",
            "lrat",
            "--cnf",
            cnf.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(
        (v["status"].as_str(), v["proof"]["checked"].as_bool()),
        (Some("unsat"), Some(true))
    );
    let formula = varisat::dimacs::DimacsParser::parse(&std::fs::read(&cnf).unwrap()[..]).unwrap();
    let bytes = std::fs::read(&proof).unwrap();
    queens::proof::check_proof(&formula, queens::proof::ProofFormat::Lrat, &bytes).unwrap();
    assert_eq!(v["proof"]["path"].as_str(), proof.to_str());
    assert_eq!(v["proof"]["cnf"].as_str(), cnf.to_str());
    // Under --timeout the SAT engine runs in a child process; the proof and its CNF come
    // back from it (default CNF path: the proof's + `.cnf`).
    let drat = dir.join("u.drat");
    let o = queens(
        &[
            "solve",
            &instance("unsolvable-completion.txt"),
            "--engine",
            "sat",
            "--proof",
            drat.to_str().unwrap(),
            "--proof-format",
            "drat",
            "--timeout",
            "60",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    let line = format!("proof: {} (drat, ", drat.display());
    assert!(text.contains(&line), "{text}");
    let drat_cnf = dir.join("u.drat.cnf");
    assert!(text
        .trim_end()
        .ends_with(&format!("refutes {}", drat_cnf.display())));
    let formula =
        varisat::dimacs::DimacsParser::parse(&std::fs::read(&drat_cnf).unwrap()[..]).unwrap();
    let bytes = std::fs::read(&drat).unwrap();
    queens::proof::check_proof(&formula, queens::proof::ProofFormat::Drat, &bytes).unwrap();
    let o = queens(
        &[
            "solve",
            "--n",
            "4",
            "--all",
            "--proof",
            proof.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "--proof with --all is a usage error: a proof is of \"no solution\""
    );
}

/// The JSON text with every timing figure (`"time_ms":1.234`, `encode_ms`, `solve_ms`,
/// `check_ms`) replaced by 0: what may differ between two runs of the same question. Field
/// order and everything else is kept.
fn without_timings(json: &str) -> String {
    let mut out = json.to_string();
    for key in [
        "\"time_ms\":",
        "\"encode_ms\":",
        "\"solve_ms\":",
        "\"check_ms\":",
        "\"start_ms\":",
        "\"end_ms\":",
    ] {
        let mut from = 0;
        while let Some(at) = out[from..].find(key) {
            let start = from + at + key.len();
            let len = out[start..]
                .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
                .unwrap_or(out.len() - start);
            out.replace_range(start..start + len, "0");
            from = start;
        }
    }
    out
}

#[test]
fn json_output_is_the_operations_layers_serialization() {
    use queens::ops::{self, Context, Instance};
    use queens::{encode::amo::Encoding, formats, Problem};
    // What the service will send for the same question: the ops response, serialized.
    let ctx = Context::default();
    let load =
        |name: &str| Instance(formats::read_path(std::path::Path::new(&instance(name))).unwrap());
    let solve = |instance, f: &dyn Fn(&mut ops::SolveRequest)| {
        let mut req = ops::SolveRequest::new(Problem::new(1).unwrap());
        req.instance = instance;
        f(&mut req);
        serde_json::to_string(&ops::solve(&req, &ctx).unwrap().0).unwrap()
    };
    let count = |instance, limit, unique, engine| {
        let req = ops::CountRequest {
            instance,
            engine,
            encoding: Encoding::Auto,
            limit,
            unique,
            cross_check: false,
            timeout_ms: None,
            shard: None,
            solver: None,
            rings: false,
        };
        serde_json::to_string(&ops::count(&req, &ctx).unwrap()).unwrap()
    };
    let check = |instance| {
        let req = ops::CheckRequest {
            instance,
            queens: Vec::new(),
            timeout_ms: None,
            hints: false,
            completions: None,
        };
        serde_json::to_string(&ops::check(&req, &ctx).unwrap()).unwrap()
    };
    let explain = |instance| {
        let req = ops::ExplainRequest {
            instance,
            engine: ops::EngineName::Backtrack,
            encoding: Encoding::Auto,
            proof: None,
            timeout_ms: None,
            solver: None,
        };
        serde_json::to_string(&ops::explain(&req, &ctx).unwrap().0).unwrap()
    };
    let (nauck, unsolvable, region) = (
        instance("nauck-1850.txt"),
        instance("unsolvable-completion.txt"),
        instance("region-7.txt"),
    );
    let started = instance("region-7-started.json");
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["solve", &nauck],
            solve(load("nauck-1850.txt"), &|_| {}),
        ),
        (
            vec!["solve", &unsolvable],
            solve(load("unsolvable-completion.txt"), &|_| {}),
        ),
        (
            vec!["solve", &nauck, "--all"],
            solve(load("nauck-1850.txt"), &|r| r.all = true),
        ),
        (
            vec![
                "solve",
                &region,
                "--engine",
                "sat",
                "--encoding",
                "product",
                "--cross-check",
            ],
            solve(load("region-7.txt"), &|r| {
                r.engine = ops::EngineName::Sat;
                r.encoding = Encoding::Product;
                r.cross_check = true;
            }),
        ),
        (
            vec!["count", "--n", "8", "--unique"],
            count(
                Instance(Problem::new(8).unwrap()),
                None,
                true,
                ops::EngineName::Backtrack,
            ),
        ),
        (
            vec!["count", &region, "--limit", "2"],
            count(
                load("region-7.txt"),
                Some(2),
                false,
                ops::EngineName::Backtrack,
            ),
        ),
        (
            vec!["count", &nauck, "--engine", "sat"],
            count(load("nauck-1850.txt"), None, false, ops::EngineName::Sat),
        ),
        (
            vec!["check", &unsolvable],
            check(load("unsolvable-completion.txt")),
        ),
        (
            vec!["check", &started],
            check(load("region-7-started.json")),
        ),
        (
            vec!["explain", &unsolvable],
            explain(load("unsolvable-completion.txt")),
        ),
        (vec!["explain", &nauck], explain(load("nauck-1850.txt"))),
    ];
    for (mut args, expected) in cases {
        args.push("--json");
        let o = queens(&args, None);
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(
            without_timings(stdout(&o).trim_end()),
            without_timings(&expected),
            "{args:?}"
        );
    }
}

#[test]
fn count_stops_at_its_timeout_with_a_lower_bound() {
    use std::time::{Duration, Instant};
    // Counting n = 20 takes about an hour on two cores.
    let start = Instant::now();
    let o = queens(&["count", "--n", "20", "--timeout", "0.5", "--json"], None);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(o.status.code(), Some(4));
    let v = json(&o);
    assert_eq!(v["status"], "timeout");
    assert!(v["count"].is_u64() && v["unique"].is_null(), "{v}");
    assert_eq!(v["limited"], false);
    let o = queens(&["count", "--n", "20", "--timeout", "0.5"], None);
    assert_eq!(o.status.code(), Some(4));
    assert!(
        stdout(&o).starts_with("timeout: no answer within 0.5 s (count so far: "),
        "{}",
        stdout(&o)
    );
}

#[test]
fn timeout_must_be_a_positive_number_of_seconds() {
    for secs in ["0", "-1", "1e20", "nan", "soon"] {
        let o = queens(&["solve", "--n", "4", &format!("--timeout={secs}")], None);
        assert_eq!(o.status.code(), Some(2), "--timeout {secs}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("--timeout"));
    }
}

#[test]
fn check_says_when_completion_is_unsettled_at_its_timeout() {
    // 100 of a 66×66 board's Excluded Diagonals (prob079's generator, seed 1): the backtracker
    // finds no answer in a minute. (The first reproducer: two queens near the bottom
    // of a 1500×1500 board, is answered at once since the restarts:
    // solve_answers_two_queens_near_the_bottom_of_1500_by_default.)
    let generated = queens(
        &[
            "generate",
            "diagonals",
            "--n",
            "66",
            "--first",
            "100",
            "--seed",
            "1",
        ],
        None,
    );
    assert_eq!(generated.status.code(), Some(0));
    let o = queens(
        &["check", "-", "--json", "--timeout", "0.5"],
        Some(&stdout(&generated)),
    );
    assert_eq!(o.status.code(), Some(4), "{}", stdout(&o));
    let v = json(&o);
    assert_eq!(v["status"], "consistent");
    assert!(v["completable"].is_null(), "{v}");
}

#[test]
#[cfg_attr(debug_assertions, ignore = "release only: a 1500×1500 board")]
fn solve_answers_two_queens_near_the_bottom_of_1500_by_default() {
    // The default engine searched for hours here (its first descent dies deep and
    // backtracking never reaches the cause); restarts answer in about a tenth of a second.
    let o = queens(
        &["solve", "-", "--json", "--timeout", "10"],
        Some(r#"{"n": 1500, "queens": [[1496, 1], [1495, 3]]}"#),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let v = json(&o);
    assert_eq!(v["status"], "sat");
    let board = v["queens"].as_array().unwrap();
    assert_eq!(board.len(), 1500);
    assert!(board.contains(&serde_json::json!([1496, 1])), "{v}");
}

/// `queens op` children of the `queens` process `pid` (their artifacts folder is named after
/// it), found through /proc.
fn op_children_of(pid: u32) -> usize {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let tag = format!("queens-op-{pid}-");
    procs
        .filter_map(|p| std::fs::read(p.ok()?.path().join("cmdline")).ok())
        .filter(|cmd| {
            let args: Vec<String> = cmd
                .split(|&b| b == 0)
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            args.iter().any(|a| a == "op") && args.iter().any(|a| a.contains(&tag))
        })
        .count()
}

/// A prob079 instance varisat needs minutes for (unsatisfiable; the backtracker settles it
/// at once), as a file of its own in `dir`.
fn hard_for_sat(dir: &std::path::Path) -> String {
    let corpus = std::fs::read_to_string(format!(
        "{}/instances/excluded-diagonals/diag-22-d20.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let line = corpus
        .lines()
        .find(|l| l.contains("\"diag-22-4-5\""))
        .unwrap();
    let path = dir.join("diag-22-4-5.json");
    std::fs::write(&path, line).unwrap();
    path.display().to_string()
}

#[test]
fn a_sat_solve_past_its_timeout_is_killed_child_and_all() {
    use std::time::{Duration, Instant};
    let dir = temp::dir("hard");
    let hard = hard_for_sat(&dir);
    // varisat cannot be interrupted: under --timeout it runs in a child `queens op`, killed
    // at the deadline. Watch the child appear, then make sure it is gone with its parent.
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_queens"))
        .args([
            "solve",
            &hard,
            "--engine",
            "sat",
            "--timeout",
            "1.5",
            "--json",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut seen = false;
    while !seen && start.elapsed() < Duration::from_millis(1400) {
        seen = op_children_of(pid) > 0;
        std::thread::sleep(Duration::from_millis(10));
    }
    let o = child.wait_with_output().unwrap();
    let wall = start.elapsed();
    assert!(seen, "no `queens op` child was seen");
    exited(&o, 4);
    assert!(wall < Duration::from_secs(4), "{wall:?}");
    let v = json(&o);
    assert_eq!(
        (v["status"].as_str(), v["engine"].as_str()),
        (Some("timeout"), Some("sat"))
    );
    assert!(v["queens"].is_null());
    assert_eq!(
        op_children_of(pid),
        0,
        "a `queens op` child outlived its parent"
    );
    // A short limit is kept as promptly, in text.
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_queens"))
        .args(["solve", &hard, "--engine", "sat", "--timeout", "0.3"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let o = child.wait_with_output().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(stdout(&o), "timeout: no answer within 0.3 s\n");
    assert_eq!(
        op_children_of(pid),
        0,
        "a `queens op` child outlived its parent"
    );
}

#[test]
fn generate_stops_at_its_timeout_and_keeps_what_it_made() {
    use std::time::{Duration, Instant};
    // A unique 30×30 region puzzle takes minutes (seed 1); the generator runs in a child
    // process that is killed at the deadline.
    let start = Instant::now();
    let o = queens(
        &["generate", "regions", "--n", "30", "--timeout", "0.5"],
        None,
    );
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(o.status.code(), Some(4));
    assert!(stdout(&o).is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("timeout: no answer within 0.5 s: 0 of 1 instances made"),
        "{err}"
    );
    // Within the limit, nothing changes.
    let o = queens(
        &[
            "generate",
            "completion",
            "--n",
            "8",
            "--queens",
            "3",
            "--count",
            "3",
            "--timeout",
            "60",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o).lines().count(), 3);
}

/// `solve --n 3000 --engine sat` allocated about 9.4 GB and aborted under a 4 GB limit:
/// the encoding's memory is now estimated first and refused with exit 2, an
/// estimate and what to do instead, before anything is allocated.
#[test]
fn a_sat_encoding_over_the_memory_limit_is_refused_with_an_estimate() {
    let o = queens(
        &[
            "solve",
            "--n",
            "1000",
            "--engine",
            "sat",
            "--max-memory",
            "500",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("memory limit of 500 MB") && err.contains("backtrack engine"),
        "{err}"
    );
    assert!(stdout(&o).is_empty());
    // The default limit (half the machine's memory) refuses pairwise at n = 3000 (over 10¹⁰
    // clauses) before allocating. (Since clauses stream into the solver, auto's estimate for
    // n = 3000 is 4.6 GB: under half of a 24 GiB machine.)
    let o = queens(
        &[
            "solve",
            "--n",
            "3000",
            "--engine",
            "sat",
            "--encoding",
            "pairwise",
        ],
        None,
    );
    exited(&o, 2);
}

#[test]
fn check_hints_and_completions_on_nauck() {
    // Nauck's b4 + d5 has exactly 2 completions.
    let o = queens(
        &[
            "check",
            &instance("nauck-1850.txt"),
            "--hints",
            "--completions",
            "10",
            "--json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["completions"]["count"], 2, "{v}");
    assert_eq!(v["completions"]["limited"], false);
    // The queens at (3,3) and (4,1) rule out their rows, columns and diagonals: 40 cells,
    // among them (0,0) on (3,3)'s diagonal, and not (0,2), which neither attacks.
    let attacked: Vec<(usize, usize)> = serde_json::from_value(v["attacked"].clone()).unwrap();
    assert_eq!(attacked.len(), 40, "{v}");
    assert!(attacked.contains(&(0, 0)) && !attacked.contains(&(0, 2)));
    assert!(
        !attacked.contains(&(3, 3)),
        "a queen's own cell is not a hint"
    );
    // A limit below the count says "at least".
    let o = queens(
        &["check", &instance("nauck-1850.txt"), "--completions", "1"],
        None,
    );
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("completions: at least 1"), "{text}");
    // A limit of 0 is a usage error naming the field.
    let o = queens(
        &["check", &instance("nauck-1850.txt"), "--completions", "0"],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("completions"));
}

#[test]
fn a_local_search_that_gives_up_says_so_not_timeout() {
    // n = 3 has no solution, which local search cannot prove: it gives up long before any
    // limit. The text says that, with or without --timeout, as the JSON's reason does.
    for args in [
        vec!["solve", "--n", "3", "--engine", "local"],
        vec!["solve", "--n", "3", "--engine", "local", "--timeout", "60"],
    ] {
        let o = queens(&args, None);
        assert_eq!(o.status.code(), Some(4), "{args:?}");
        let text = stdout(&o);
        assert!(
            text.starts_with(
                "no answer: local search gave up after 201 starts, the first and 200 fresh ones"
            ),
            "{args:?}: {text}"
        );
        assert!(!text.contains("within"), "{args:?}: {text}");
    }
    let mut args = vec!["solve", "--n", "3", "--engine", "local", "--json"];
    let j = json(&queens(&args, None));
    assert_eq!(j["status"], "timeout");
    assert!(
        j["reason"]
            .as_str()
            .unwrap()
            .contains("gave up after 201 starts"),
        "{j}"
    );
    // A limit that is reached is named as such.
    args = vec!["count", "--n", "20", "--timeout", "0.3"];
    assert!(stdout(&queens(&args, None)).starts_with("timeout: no answer within 0.3 s"));
}
