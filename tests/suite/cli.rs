//! The real binary on real files: output and exit codes as a user sees them.

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
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
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
    let o = queens(&["solve"], None);
    assert_eq!(o.status.code(), Some(2), "a missing FILE is a usage error");
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

#[test]
fn encode_to_file_and_decode_an_external_model() {
    let dir = std::env::temp_dir().join(format!("queens-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
    // Solve it as an external solver would and hand its output to `decode`.
    let model = dir.join("model.out");
    std::fs::write(&model, super::gen::external_solver_output(&text)).unwrap();
    let o = queens(
        &[
            "decode",
            &instance("nauck-1850.txt"),
            model.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
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
    std::fs::remove_dir_all(&dir).ok();
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
    let dir = std::env::temp_dir().join(format!("queens-proof-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
    let o = queens(
        &["solve", "--n", "4", "--proof", proof.to_str().unwrap()],
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "--proof without --engine sat is a usage error"
    );
    std::fs::remove_dir_all(&dir).ok();
}
