//! `generate`, instance sources (CSPLib files, JSON-lines corpora) and `compare`, end to end.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use queens::encode::amo::Encoding;
use queens::formats::sources::{self, Selection};
use queens::ops::compare::{self, Attempt, EngineSpec, Row};
use queens::ops::Status;

use super::cli::{instance, json, queens, stdout, succeeded};
use crate::temp;

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn generate_is_deterministic_per_seed() {
    for kind in [
        vec!["generate", "completion", "--n", "12", "--queens", "5"],
        vec!["generate", "diagonals", "--n", "12", "--first", "10"],
        vec!["generate", "regions", "--n", "8"],
    ] {
        let run = |seed: &str| {
            let mut args = kind.clone();
            args.extend(["--seed", seed]);
            let o = queens(&args, None);
            assert_eq!(o.status.code(), Some(0), "{args:?}");
            stdout(&o)
        };
        assert_eq!(run("5"), run("5"), "{kind:?}");
        assert_ne!(run("5"), run("6"), "{kind:?}");
    }
}

#[test]
fn generated_files_are_valid_instances() {
    let dir = temp::dir("compare-gen");
    let file = |n: &str| dir.join(n).display().to_string();
    // A region puzzle has exactly one solution.
    let o = queens(
        &[
            "generate",
            "regions",
            "--n",
            "9",
            "--seed",
            "3",
            "-o",
            &file("r.json"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let c = queens(&["count", &file("r.json"), "--json"], None);
    assert_eq!(json(&c)["count"], 1);
    // Completion queens do not attack each other: `check` finds no conflict.
    let o = queens(
        &[
            "generate",
            "completion",
            "--n",
            "20",
            "--queens",
            "9",
            "--seed",
            "4",
            "-o",
            &file("c.json"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let c = queens(&["check", &file("c.json"), "--json"], None);
    assert_eq!(
        json(&c)["violations"].as_array().unwrap().len(),
        0,
        "{}",
        stdout(&c)
    );
    // Diagonal lists keep their order: --first on the file takes the generated prefix.
    let full = queens(&["generate", "diagonals", "--n", "14", "--seed", "2"], None);
    let d6 = queens(
        &[
            "generate",
            "diagonals",
            "--n",
            "14",
            "--seed",
            "2",
            "--first",
            "6",
        ],
        None,
    );
    let diags = |o: &std::process::Output| json(o)["diags"].as_array().unwrap().clone();
    assert_eq!(diags(&full)[..6], diags(&d6)[..]);
    std::fs::write(file("d.json"), stdout(&full)).unwrap();
    let a = queens(&["count", &file("d.json"), "--first", "6", "--json"], None);
    let b = queens(&["count", "-", "--json"], Some(&stdout(&d6)));
    assert_eq!(json(&a)["count"], json(&b)["count"]);
}

#[test]
fn generate_count_writes_a_corpus_compare_can_read() {
    let o = queens(
        &[
            "generate",
            "completion",
            "--n",
            "10",
            "--queens",
            "4",
            "--seed",
            "1",
            "--count",
            "5",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 5);
    let one = queens(
        &["solve", "-", "--select", "id=completion-10-4-3", "--json"],
        Some(&text),
    );
    // stdin holds several lines of JSON: it is a corpus, narrowed to one record.
    assert!(
        matches!(one.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
}

#[test]
fn csplib_parameter_files_are_instances() {
    let o = queens(&["count", &data("nauck-1850.param"), "--json"], None);
    assert_eq!(
        json(&o)["count"],
        2,
        "Nauck's instance, 0-based coordinates"
    );
    // Counts for each prefix, checked by brute force over all 8! permutations in Python.
    for (first, count) in [
        ("0", 92),
        ("2", 72),
        ("4", 8),
        ("6", 1),
        ("8", 0),
        ("10", 0),
    ] {
        let o = queens(
            &["count", &data("diag-8.param"), "--first", first, "--json"],
            None,
        );
        assert_eq!(json(&o)["count"], count, "--first {first}");
    }
    let all = queens(&["count", &data("diag-8.param"), "--json"], None);
    assert_eq!(json(&all)["count"], 0);
    let too_many = queens(&["count", &data("diag-8.param"), "--first", "11"], None);
    assert_eq!(too_many.status.code(), Some(2));
}

/// A CSPLib prob080 file (1-based `blocks`, ending in the comma CSPLib's ASP-competition files
/// have) solves to a board that `check --board` verifies against the file's blocked cells,
/// and has the solutions of the same board drawn as a grid.
#[test]
fn csplib_prob080_file_solves_to_a_verified_board() {
    let dir = temp::dir("prob080");
    let param = data("blocked-8.param");
    let sol = dir.join("blocked-8.sol");
    let sol_s = sol.to_str().unwrap();
    let o = queens(&["solve", &param, "-o", sol_s, "--json"], None);
    succeeded(&o);
    assert_eq!(json(&o)["status"], "sat");
    let o = queens(&["check", &param, "--board", sol_s, "--json"], None);
    succeeded(&o);
    assert_eq!(json(&o)["status"], "solved");
    let count = |file: &str| json(&queens(&["count", file, "--json"], None))["count"].clone();
    assert_eq!(count(&param), count(&instance("blocked-8.txt")));
    // A classic solution with a queen on [1,1], the blocked top-left corner, is refused.
    std::fs::write(&sol, "0\n4\n7\n5\n2\n6\n1\n3\n").unwrap();
    let o = queens(&["check", &param, "--board", sol_s], None);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("(0,0)"), "{}", stdout(&o));
    // A block off the board is exit 2, naming the file and the line.
    let bad = dir.join("bad.param");
    std::fs::write(&bad, "letting n = 8\nletting blocks = [[1,1],\n[9,1],\n]").unwrap();
    let o = queens(&["solve", bad.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("bad.param: line 3: blocked cell [9, 1]"),
        "{stderr}"
    );
}

#[test]
fn corpus_lines_are_selected_by_field_and_prefix() {
    let sel = |filters: &[(&str, &str)], first, take| Selection {
        filters: filters
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        first,
        take,
    };
    let corpus = PathBuf::from(data("corpus.jsonl"));
    let all = sources::load(std::slice::from_ref(&corpus), &sel(&[], None, None)).unwrap();
    let ids: Vec<&str> = all.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["nauck", "diag-a", "region"]);
    let eights = sources::load(
        std::slice::from_ref(&corpus),
        &sel(&[("n", "8")], None, Some(5)),
    )
    .unwrap();
    assert_eq!(eights.len(), 2);
    let one = sources::load_one(&corpus, &sel(&[("id", "diag-a")], Some(3), None)).unwrap();
    assert_eq!(one.problem.excluded().len(), 3);
    let o = queens(&["solve", &data("corpus.jsonl")], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("3 instances match"));
}

#[test]
fn a_folder_of_mixed_files_is_selected_on_id_n_and_json_fields() {
    let dir = temp::dir("compare-mixed");
    let grid = std::fs::read_to_string(instance("nauck-1850.txt")).unwrap();
    std::fs::write(dir.join("nauck.txt"), grid).unwrap();
    std::fs::copy(data("diag-8.param"), dir.join("diag-8.param")).unwrap();
    std::fs::write(
        dir.join("one.json"),
        r#"{"id":"big-one","n":10,"queens":[]}"#,
    )
    .unwrap();
    std::fs::copy(data("corpus.jsonl"), dir.join("corpus.jsonl")).unwrap();
    let ids = |filters: &[(&str, &str)], first: Option<usize>| {
        let sel = Selection {
            filters: filters
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            first,
            take: None,
        };
        let found = sources::load(&[dir.to_path_buf()], &sel).unwrap();
        found.into_iter().map(|i| i.id).collect::<Vec<_>>()
    };
    // Name order: corpus.jsonl (three records), diag-8.param, nauck.txt, one.json. The
    // file nauck.txt keeps its extension: the record `nauck` has that id already.
    assert_eq!(
        ids(&[], None),
        [
            "nauck",
            "diag-a",
            "region",
            "diag-8",
            "nauck.txt",
            "big-one"
        ]
    );
    // Text grids and CSPLib files are selected on their file name and size, JSON on any field
    // (it used to be an error to --select over a folder holding any single-instance file).
    assert_eq!(
        ids(&[("n", "8")], None),
        ["nauck", "diag-a", "diag-8", "nauck.txt"]
    );
    assert_eq!(ids(&[("id", "big-one")], None), ["big-one"]);
    assert_eq!(ids(&[("id", "diag-8")], None), ["diag-8"]);
    // A JSON file without `id` or `n` is selected on what the table shows for it.
    std::fs::write(
        dir.join("plain.json"),
        r#"{"regions":["AABB","AABB","CCDD","CCDD"]}"#,
    )
    .unwrap();
    assert_eq!(ids(&[("id", "plain")], None), ["plain"]);
    assert_eq!(ids(&[("n", "4")], None), ["region", "plain"]);
    // --first concerns the selected instances only, not a text grid that is passed over.
    assert_eq!(ids(&[("id", "diag-8")], Some(3)), ["diag-8"]);
    std::fs::remove_file(dir.join("plain.json")).unwrap();
    // --first leaves an empty `queens` list alone (prob079 records carry `"queens": []`).
    let one = dir.join("one.json");
    let sel = Selection {
        first: Some(0),
        ..Selection::default()
    };
    assert_eq!(sources::load_one(&one, &sel).unwrap().problem.n(), 10);
    std::fs::write(
        dir.join("prob079.jsonl"),
        "{\"id\":\"p\",\"n\":8,\"queens\":[],\"diags\":[[0,0],[13,0],[6,0]]}\n",
    )
    .unwrap();
    let sel = Selection {
        first: Some(2),
        ..Selection::default()
    };
    let p = sources::load_one(&dir.join("prob079.jsonl"), &sel).unwrap();
    assert_eq!(p.problem.excluded().len(), 2);
    // Nothing selected says what can be selected on.
    let o = queens(
        &["solve", &instance("nauck-1850.txt"), "--select", "k=1"],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no instance matches") && err.contains("`n`"),
        "{err}"
    );
    // --n has no file to select from: refused, not ignored.
    let o = queens(&["solve", "--n", "8", "--first", "3"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--first"));
}

#[test]
fn corpus_errors_name_file_line_and_position_once() {
    let dir = temp::dir("compare-badjson");
    let bad = dir.join("bad.jsonl");
    let error = |text: &str| {
        std::fs::write(&bad, text).unwrap();
        sources::load(std::slice::from_ref(&bad), &Selection::default())
            .unwrap_err()
            .to_string()
    };
    let e = error("{\"id\":\"a\",\"n\":4}\n{\"id\":\"b\",\"n\":0}\n");
    assert!(e.contains("bad.jsonl: line 2: field `n`"), "{e}");
    // The position came twice: `line 2: column 8: … at line 1 column 8`.
    let e = error("{\"id\":\"a\",\"n\":4}\n{\"id\": x}\n");
    assert!(
        e.ends_with("bad.jsonl: line 2 column 8: invalid JSON: expected value"),
        "{e}"
    );
    let single = dir.join("single.json");
    std::fs::write(&single, "{\"n\": 8,\n \"queens\": [[1,2]\n").unwrap();
    let e = sources::load(std::slice::from_ref(&single), &Selection::default())
        .unwrap_err()
        .to_string();
    assert!(!e.contains(" at line "), "{e}");
    assert!(
        e.contains("single.json: line 3 column 0: invalid JSON"),
        "{e}"
    );
}

#[test]
fn engine_specs_parse_and_print() {
    for s in [
        "backtrack",
        "backtrack:1",
        "sat:seq",
        "sat:auto",
        "sat:product",
    ] {
        assert_eq!(s.parse::<EngineSpec>().unwrap().to_string(), s);
    }
    assert_eq!(
        "sat".parse::<EngineSpec>().unwrap(),
        EngineSpec::Sat(Encoding::Auto)
    );
    for bad in ["backtrack:0", "sat:nope", "minisat", "backtrack:x"] {
        assert!(bad.parse::<EngineSpec>().is_err(), "{bad}");
    }
}

#[test]
fn compare_runs_both_engines_and_a_timeout_fires() {
    let dir = temp::dir("compare-compare");
    // The empty 1000×1000 board: the backtracker needs a fraction of a second, varisat on the
    // sequential-counter encoding about 100 s, so a 3 s limit must kill it.
    let big = dir.join("big.json");
    std::fs::write(&big, "{\"id\": \"big\", \"n\": 1000}").unwrap();
    let csv = dir.join("out.csv");
    let start = Instant::now();
    let o = queens(
        &[
            "compare",
            &instance("nauck-1850.txt"),
            &instance("unsolvable-completion.txt"),
            &big.display().to_string(),
            "--engines",
            "backtrack,sat:seq",
            "--timeout",
            "3",
            "--csv",
            &csv.display().to_string(),
            "--json",
        ],
        None,
    );
    let wall = start.elapsed();
    super::cli::exited(&o, 0);
    assert!(
        wall < Duration::from_secs(60),
        "the timed-out child was not killed: {wall:?}"
    );
    let v = json(&o);
    let rows = v["instances"].as_array().unwrap();
    let outcome = |i: usize, e: usize| {
        rows[i]["attempts"][e]["status"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!((outcome(0, 0), outcome(0, 1)), ("sat".into(), "sat".into()));
    assert_eq!(
        (outcome(1, 0), outcome(1, 1)),
        ("unsat".into(), "unsat".into())
    );
    assert_eq!(outcome(2, 1), "timeout");
    assert_eq!(rows[2]["attempts"][1]["time_ms"], 3000.0);
    assert_eq!(v["timeout_ms"], 3000.0);
    assert!(rows[1]["attempts"][0]["nodes"].as_u64().unwrap() > 0);
    assert!(rows[1]["attempts"][1]["clauses"].as_u64().unwrap() > 0);
    // Learned clauses are counted on SAT and UNSAT answers alike (a satisfiable one once
    // crashed the child: the counter's proof stream refused the blocking clause).
    for i in [0, 1] {
        assert!(rows[i]["attempts"][1]["learned"].is_u64(), "{}", rows[i]);
        assert!(rows[i]["attempts"][0]["learned"].is_null());
    }
    let summary = &v["summary"];
    assert_eq!(summary[1]["timeouts"], 1);
    assert_eq!(summary[1]["solved"], 2);
    assert_eq!(summary[1]["common"], 2);
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv.lines().count(), 1 + 3 * 2);
    assert!(csv.contains("\nbig,1000,sat:seq,timeout,3000.000"), "{csv}");
}

/// Processes whose environment holds `tag` (children inherit it), found through /proc.
pub(crate) fn processes_tagged(tag: &str) -> usize {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let want = format!("QUEENS_TEST_TAG={tag}");
    procs
        .filter_map(|p| std::fs::read(p.ok()?.path().join("environ")).ok())
        .filter(|env| env.split(|&b| b == 0).any(|v| v == want.as_bytes()))
        .count()
}

#[test]
fn compare_stops_when_its_reader_goes_away() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    // Nauck's instance is answered at once; each copy of diag-22-4-5 (unsatisfiable; varisat
    // needs minutes) runs into its 20 s limit, so the run takes over a minute when it goes to
    // the end. Reading the header and the first row and then closing the pipe (`compare … |
    // head -2`) must end it within a moment, quietly (exit 0), killing the running child:
    // compare polls stdout between rows. It used to run every attempt, and then to stop only at
    // the first row written after the close, dropping the finished rows from the CSV.
    // The run's processes carry a tag in their environment, so its children can be counted.
    let engine = "sat:bimander";
    let tag = format!("pipe-{}", std::process::id());
    let dir = temp::dir("compare-pipe");
    let csv = dir.join("out.csv").display().to_string();
    let corpus = std::fs::read_to_string(format!(
        "{}/instances/excluded-diagonals/diag-22-d20.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let line = corpus.lines().find(|l| l.contains("\"diag-22-4-5\""));
    let hard = dir.join("hard.json");
    std::fs::write(&hard, line.unwrap()).unwrap();
    let hard = hard.display().to_string();
    let nauck = instance("nauck-1850.txt");
    let timeout = ["--timeout", "20"];
    let mut args = vec!["compare", "--engines", engine, "--csv", &csv, &nauck];
    args.extend(timeout);
    args.extend(std::iter::repeat_n(hard.as_str(), 4));
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_queens"))
        .args(&args)
        .env("QUEENS_TEST_TAG", &tag)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let (mut header, mut first) = (String::new(), String::new());
    reader.read_line(&mut header).unwrap();
    reader.read_line(&mut first).unwrap();
    assert!(header.starts_with("instance"), "{header}");
    assert!(first.starts_with("nauck-1850"), "{first}");
    drop(reader); // the pipe's only read end
    let o = child.wait_with_output().unwrap();
    let wall = start.elapsed();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
    assert!(
        wall < Duration::from_secs(10),
        "compare kept running after its reader left: {wall:?}"
    );
    assert_eq!(processes_tagged(&tag), 0, "a child outlived compare");
    // The finished row is kept; the killed attempt is not passed off as a result.
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv.lines().count(), 2, "{csv}");
    assert!(csv.contains("\nnauck-1850,8,sat:bimander,sat"), "{csv}");
}

/// Sends `signal` (`INT`, `TERM`) to process `pid` with kill(1).
pub(crate) fn send_signal(pid: u32, signal: &str) {
    let ok = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{signal} {pid}");
}

#[test]
fn an_interrupted_compare_writes_every_finished_row_summary_and_plot() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    // Nauck's instance is answered at once on both engines; each copy of diag-22-4-5 runs
    // sat:bimander into its 30 s limit. SIGINT or SIGTERM after the first row stops the run
    // at once: the finished row is in the CSV, the summary and both plots are written, the
    // run says it was interrupted and exits 130, and no child is left.
    let hard = {
        let corpus = std::fs::read_to_string(format!(
            "{}/instances/excluded-diagonals/diag-22-d20.jsonl",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        corpus
            .lines()
            .find(|l| l.contains("\"diag-22-4-5\""))
            .unwrap()
            .to_string()
    };
    for signal in ["INT", "TERM"] {
        let tag = format!("interrupt-{signal}-{}", std::process::id());
        let dir = temp::dir("compare-interrupt");
        let path = |name: &str| dir.join(name).display().to_string();
        std::fs::write(dir.join("hard.json"), &hard).unwrap();
        let (csv, plot, growth, hard) = (
            path("out.csv"),
            path("s.svg"),
            path("g.svg"),
            path("hard.json"),
        );
        let nauck = instance("nauck-1850.txt");
        let mut args = vec![
            "compare",
            "--engines",
            "backtrack,sat:bimander",
            "--timeout",
            "30",
            "--jobs",
            "1",
            "--csv",
            &csv,
            "--plot",
            &plot,
            "--growth-plot",
            &growth,
            &nauck,
        ];
        args.extend(std::iter::repeat_n(hard.as_str(), 3));
        let start = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_queens"))
            .args(&args)
            .env("QUEENS_TEST_TAG", &tag)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
        let (mut header, mut first) = (String::new(), String::new());
        reader.read_line(&mut header).unwrap();
        reader.read_line(&mut first).unwrap();
        assert!(first.starts_with("nauck-1850"), "{first}");
        // The next row's sat attempt is running now (its child started).
        std::thread::sleep(Duration::from_millis(500));
        send_signal(child.id(), signal);
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut reader, &mut rest).unwrap();
        let o = child.wait_with_output().unwrap();
        let wall = start.elapsed();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{err}");
        assert!(
            err.contains(&format!(
                "interrupted by SIG{signal}: 1 of 4 instances finished"
            )),
            "{err}"
        );
        assert!(wall < Duration::from_secs(20), "{wall:?}");
        assert_eq!(processes_tagged(&tag), 0, "a child outlived compare");
        // The summary of what finished is printed; the stopped attempts are not results.
        assert!(rest.contains("solved"), "{rest}");
        assert!(!rest.contains("diag-22-4-5"), "{rest}");
        let csv = std::fs::read_to_string(&csv).unwrap();
        assert_eq!(csv.lines().count(), 3, "{csv}");
        assert!(csv.contains("\nnauck-1850,8,backtrack,sat"), "{csv}");
        assert!(csv.contains("\nnauck-1850,8,sat:bimander,sat"), "{csv}");
        for svg in [&plot, &growth] {
            let text = std::fs::read_to_string(svg).unwrap();
            assert!(
                text.starts_with("<svg") && text.contains("</svg>"),
                "{svg}: {text}"
            );
        }
    }
}

#[test]
fn compare_prints_a_table_and_summary() {
    let o = queens(
        &[
            "compare",
            &data("corpus.jsonl"),
            "--select",
            "n=8",
            "--engines",
            "backtrack:1,sat:pairwise",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.starts_with("instance"), "{out}");
    assert!(
        out.contains("nauck") && out.contains("diag-a") && !out.contains("region"),
        "{out}"
    );
    assert!(
        out.contains("sat:pairwise") && out.contains("on 2"),
        "{out}"
    );
}

fn attempt(engine: EngineSpec, outcome: Status) -> Attempt {
    Attempt {
        engine,
        outcome,
        error: None,
        note: None,
        time_ms: 1000.0,
        report: None,
        proof: None,
    }
}

#[test]
fn disagreements_and_failed_children_are_caught() {
    let row = Row {
        index: 0,
        id: "x".into(),
        n: Some(8),
        error: None,
        attempts: vec![
            attempt(EngineSpec::Backtrack { threads: 1 }, Status::Sat),
            attempt(EngineSpec::Sat(Encoding::Seq), Status::Unsat),
        ],
    };
    assert!(row.disagreement());
    assert_eq!(row.status_name(), "DISAGREE");
    assert_eq!(
        compare::problems(std::slice::from_ref(&row)),
        ["ENGINES DISAGREE on x: backtrack:1 says sat, sat:seq says unsat"]
    );
    let timeout = Row {
        attempts: vec![
            attempt(EngineSpec::Backtrack { threads: 1 }, Status::Unsat),
            attempt(EngineSpec::Sat(Encoding::Seq), Status::Timeout),
        ],
        ..row
    };
    assert!(!timeout.disagreement());
    assert_eq!(timeout.status(), Some(false));
    // A child that cannot start is an error, not an answer.
    let problem = queens::Problem::new(4).unwrap();
    let a = compare::run_child(
        std::path::Path::new("/nonexistent/queens"),
        &problem,
        EngineSpec::Backtrack { threads: 1 },
        Duration::from_secs(1),
    );
    assert_eq!(a.outcome, Status::Error);
    assert!(a.error.is_some());
}

/// Writes an executable shell script. Another test thread may fork while our write descriptor
/// is open, and its child holds a copy until it execs; exec'ing the script then fails with
/// "Text file busy" (ETXTBSY). So the script is run once, with retries, before it is handed
/// out: after one successful exec no copy of the (now closed) descriptor can remain.
fn script(dir: &std::path::Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    use std::process::{Command, Stdio};
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    for _ in 0..200 {
        let run = Command::new(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        match run {
            Ok(_) => return path,
            Err(e) if e.raw_os_error() == Some(26) => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            Err(e) => panic!("cannot run {}: {e}", path.display()),
        }
    }
    panic!("{} stayed busy for 2 s", path.display())
}

/// A stand-in for the `queens` binary: a shell script that reads the request and prints the
/// given reply, whatever it was asked.
fn fake_child(dir: &std::path::Path, name: &str, report: &str) -> PathBuf {
    script(dir, name, &format!("cat > /dev/null\necho '{report}'\n"))
}

#[test]
fn a_child_reporting_a_broken_board_is_an_error_not_an_answer() {
    let dir = temp::dir("compare-fake");
    let problem = queens::Problem::new(4).unwrap();
    let report = |queens: &str| {
        format!(
            r#"{{"ok":{{"status":"sat","n":4,"queens":{queens},"engine":"backtrack","time_ms":100.0,"nodes":1}}}}"#
        )
    };
    // Two queens in one column, and a board with too few queens: both rejected by the verifier.
    for (name, queens) in [
        ("same-column", "[[0,1],[1,1],[2,0],[3,2]]"),
        ("short", "[[0,1]]"),
    ] {
        let exe = fake_child(&dir, name, &report(queens));
        let a = compare::run_child(
            &exe,
            &problem,
            EngineSpec::Backtrack { threads: 1 },
            Duration::from_secs(10),
        );
        assert_eq!(
            a.outcome,
            Status::Error,
            "{name}: a broken board was taken as an answer"
        );
        let m = a.error.unwrap();
        assert!(m.contains("breaks a rule"), "{name}: {m}");
    }
    // The real board passes.
    let exe = fake_child(&dir, "good", &report("[[0,1],[1,3],[2,0],[3,2]]"));
    let a = compare::run_child(
        &exe,
        &problem,
        EngineSpec::Backtrack { threads: 1 },
        Duration::from_secs(10),
    );
    assert_eq!(a.outcome, Status::Sat);
}

#[test]
fn a_crashed_child_is_named_by_its_panic_message() {
    let dir = temp::dir("compare-crash");
    let exe = script(
        &dir,
        "crash",
        "cat > /dev/null\necho \"thread 'main' panicked at src/x.rs:1:1:\" >&2\n\
         echo 'the real reason' >&2\n\
         echo 'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace' >&2\n\
         exit 101\n",
    );
    let a = compare::run_child(
        &exe,
        &queens::Problem::new(4).unwrap(),
        EngineSpec::Sat(Encoding::Auto),
        Duration::from_secs(10),
    );
    assert_eq!(a.outcome, Status::Error);
    let m = a.error.unwrap();
    assert!(m.ends_with("the real reason"), "{m}");
}

#[test]
fn compare_rejects_bad_limits_and_outputs_before_running() {
    let corpus = data("corpus.jsonl");
    // A rejected run leaves an existing --csv file as it was (it used to empty it first).
    let dir = temp::dir("compare-reject");
    let old = dir.join("old.csv");
    std::fs::write(&old, "kept\n").unwrap();
    let old = old.display().to_string();
    for (args, says) in [
        (vec!["--timeout", "1e20"], "--timeout"),
        (vec!["--timeout", "0"], "--timeout"),
        (vec!["--take", "0", "--csv", &old], "--take"),
        (vec!["--jobs", "0", "--csv", &old], "--jobs"),
        (
            vec!["--select", "n=99", "--csv", &old],
            "no instance matches",
        ),
        (
            vec!["--engines", "backtrack", "--plot", "/tmp/x.svg"],
            "two engines",
        ),
        (
            vec!["--csv", "/nonexistent-dir/out.csv"],
            "/nonexistent-dir/out.csv",
        ),
    ] {
        let mut all = vec!["compare", corpus.as_str()];
        all.extend(&args);
        let start = Instant::now();
        let o = queens(&all, None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(stdout(&o).is_empty(), "{args:?} ran before failing");
        assert!(start.elapsed() < Duration::from_secs(10));
    }
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "kept\n");
}

#[test]
fn a_single_generated_jsonl_file_is_readable() {
    let dir = temp::dir("compare-one-jsonl");
    let file = dir.join("one.jsonl").display().to_string();
    let o = queens(
        &[
            "generate",
            "diagonals",
            "--n",
            "10",
            "--first",
            "8",
            "--count",
            "1",
            "-o",
            &file,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&file).unwrap().lines().count(), 1);
    let o = queens(&["solve", &file, "--json"], None);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn check_explain_and_decode_select_from_a_corpus() {
    // load_one tells users to pick with --select; every single-instance command takes it.
    let corpus = data("corpus.jsonl");
    let o = queens(&["check", &corpus], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--select"));
    let id = json(&queens(
        &["compare", &corpus, "--engines", "backtrack", "--json"],
        None,
    ))["instances"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let sel = format!("id={id}");
    let o = queens(&["check", &corpus, "--select", &sel], None);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = queens(&["explain", &corpus, "--select", &sel], None);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Runs `compare` on the given inputs with the backtracker only; the exit code and the output.
fn compare_backtrack(inputs: &[&std::path::Path], extra: &[&str]) -> std::process::Output {
    let paths: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
    let mut args = vec!["compare", "--engines", "backtrack:1,sat:pairwise"];
    args.extend(paths.iter().map(String::as_str));
    args.extend(extra);
    queens(&args, None)
}

/// The table line of an instance: the line that starts with its id and a space.
fn table_row<'a>(out: &'a str, id: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(&format!("{id} ")))
        .unwrap_or_else(|| panic!("no row for {id}:\n{out}"))
}

#[test]
fn compare_lists_a_broken_file_as_an_error_row_and_runs_the_rest() {
    // One bad file used to abort the whole run (exit 2, nothing run).
    let dir = temp::dir("compare-broken");
    std::fs::copy(instance("nauck-1850.txt"), dir.join("good.txt")).unwrap();
    std::fs::write(dir.join("broken.txt"), "....\n").unwrap();
    let o = compare_backtrack(&[&dir], &[]);
    let (out, err) = (stdout(&o), String::from_utf8_lossy(&o.stderr).to_string());
    assert_eq!(o.status.code(), Some(3), "{out}{err}");
    let broken = table_row(&out, "broken");
    assert!(
        broken.split_whitespace().collect::<Vec<_>>() == ["broken", "-", "error", "ERROR", "ERROR"],
        "{out}"
    );
    assert!(table_row(&out, "good").contains(" sat "), "{out}");
    // Said once (no engine ran), naming the file and the line.
    let said: Vec<&str> = err.lines().filter(|l| l.contains("broken")).collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(said[0].contains("broken.txt: line 1:"), "{err}");
    // The summary counts the error once per engine, and the good instance as solved.
    assert!(out.contains("\nbacktrack:1         1"), "{out}");
}

#[test]
fn compare_lists_unreadable_entries_and_bad_corpus_lines_and_goes_on() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let dir = temp::dir("compare-unreadable");
    std::fs::copy(instance("nauck-1850.txt"), dir.join("a-good.txt")).unwrap();
    // A dangling symbolic link (it used to be skipped without a word).
    symlink(dir.join("gone.txt"), dir.join("link.txt")).unwrap();
    // Bytes that are not UTF-8, and JSON that is not JSON.
    std::fs::write(dir.join("latin1.txt"), b"Q\xe9..\n").unwrap();
    std::fs::write(dir.join("half.json"), "{\"n\": 8,").unwrap();
    // A corpus with one bad line among good ones: that line is a row of its own, `file:line`.
    std::fs::write(
        dir.join("corpus.jsonl"),
        "{\"id\":\"c-one\",\"n\":5}\n{\"n\": x}\n{\"id\":\"c-three\",\"n\":6}\n",
    )
    .unwrap();
    // A FIFO: opening it would wait for a writer forever, so it is listed, not read.
    let fifo = std::process::Command::new("mkfifo")
        .arg(dir.join("pipe"))
        .status()
        .is_ok_and(|s| s.success());
    // Permission denied, unless running as root (root reads anything).
    let locked = dir.join("locked.txt");
    std::fs::copy(instance("nauck-1850.txt"), &locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let denied = std::fs::read(&locked).is_err();
    let start = Instant::now();
    let o = compare_backtrack(&[&dir], &["--json"]);
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "stuck on the FIFO?"
    );
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(3), "{err}");
    let v = json(&o);
    let rows = v["instances"].as_array().unwrap();
    let row = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no row {id}: {v}"))
    };
    for id in ["a-good", "c-one", "c-three"] {
        assert_eq!(row(id)["status"], "sat", "{id}: {v}");
        assert!(row(id)["error"].is_null());
    }
    let mut bad = vec![
        ("link", "link.txt: symbolic link to"),
        ("latin1", "latin1.txt: line 1 column 2: invalid UTF-8"),
        ("half", "half.json: line 1 column 8: invalid JSON"),
        ("corpus:2", "corpus.jsonl: line 2 column 7: invalid JSON"),
    ];
    if fifo {
        bad.push(("pipe", "pipe: not a regular file"));
    }
    if denied {
        bad.push(("locked", "locked.txt: Permission denied"));
    } else {
        assert_eq!(row("locked")["status"], "sat");
    }
    for (id, says) in &bad {
        let r = row(id);
        assert_eq!(r["status"], "error", "{r}");
        assert!(r["n"].is_null(), "{r}");
        let message = r["error"].as_str().unwrap();
        assert!(message.contains(says), "{id}: {message}");
        for a in r["attempts"].as_array().unwrap() {
            assert_eq!(a["status"], "error", "{r}");
            assert_eq!(a["error"].as_str(), Some(message), "{r}");
        }
        assert_eq!(
            err.lines().filter(|l| l.contains(says)).count(),
            1,
            "{id}: {err}"
        );
    }
    assert_eq!(rows.len(), 3 + bad.len() + usize::from(!denied), "{v}");
    assert_eq!(v["summary"][0]["errors"], bad.len());
    assert_eq!(v["summary"][1]["solved"], 3 + usize::from(!denied));
    // A path given on the command line that does not exist is still a usage error, before
    // anything runs: a typo should not cost a long run.
    let o = compare_backtrack(&[&dir.join("a-good.txt"), &dir.join("typo.txt")], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("typo.txt"));
}

#[test]
fn compare_ids_are_unique() {
    // `x.txt` and `x.json` in one folder both used to be `x`.
    let dir = temp::dir("compare-ids");
    std::fs::copy(instance("nauck-1850.txt"), dir.join("x.txt")).unwrap();
    std::fs::write(dir.join("x.json"), "{\"n\": 5}").unwrap();
    std::fs::write(dir.join("y.json"), "{\"n\": 6}").unwrap();
    // A record whose own id is what a suffix would give: the suffix moves on.
    std::fs::write(
        dir.join("z.jsonl"),
        "{\"id\":\"y#2\",\"n\":4}\n{\"id\":\"dup\",\"n\":4}\n{\"id\":\"dup\",\"n\":5}\n",
    )
    .unwrap();
    let y = dir.join("y.json");
    let ids = |o: &std::process::Output| -> Vec<String> {
        json(o)["instances"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    // The same file twice keeps its name; the later entry gets the suffix.
    let o = compare_backtrack(&[&dir, &y], &["--json"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        ids(&o),
        ["x.json", "x.txt", "y", "y#2", "dup", "dup#2", "y#3"]
    );
    // The same every time.
    assert_eq!(ids(&compare_backtrack(&[&dir, &y], &["--json"])), ids(&o));
    // The table shows them too.
    let o = compare_backtrack(&[&dir], &[]);
    let out = stdout(&o);
    assert!(table_row(&out, "x.json").contains(" 5 "), "{out}");
    assert!(table_row(&out, "x.txt").contains(" 8 "), "{out}");
}

#[test]
fn compare_json_and_csv_use_the_shared_field_names() {
    // compare said `seconds` (and `outcome`) where every other command says `time_ms` (and
    // `status`).
    let dir = temp::dir("compare-fields");
    let csv = dir.join("out.csv");
    let o = compare_backtrack(
        &[std::path::Path::new(&data("corpus.jsonl"))],
        &[
            "--json",
            "--timeout",
            "5",
            "--csv",
            &csv.display().to_string(),
        ],
    );
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(
        !text.contains("seconds") && !text.contains("outcome"),
        "{text}"
    );
    let v = json(&o);
    assert_eq!(v["timeout_ms"], 5000.0);
    let row = &v["instances"][0];
    assert_eq!(
        (row["id"].as_str(), row["n"].as_u64()),
        (Some("nauck"), Some(8))
    );
    assert_eq!(row["status"], "sat");
    for a in row["attempts"].as_array().unwrap() {
        assert_eq!(a["status"], "sat", "{a}");
        assert!(a["engine"].is_string(), "{a}");
        // Milliseconds: a board of 8 takes well under a second.
        let ms = a["time_ms"].as_f64().unwrap();
        assert!(ms > 0.0 && ms < 1000.0, "{a}");
    }
    let s = &v["summary"][0];
    assert_eq!(s["engine"], "backtrack:1");
    assert!(
        s["median_time_ms"].is_f64() && s["total_time_ms"].is_f64(),
        "{s}"
    );
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        csv.lines().next(),
        Some("instance,n,engine,status,time_ms,nodes,learned,vars,clauses,answered_by,error")
    );
    // The table keeps its units.
    let o = compare_backtrack(&[std::path::Path::new(&data("corpus.jsonl"))], &[]);
    let out = stdout(&o);
    assert!(out.contains("limit 60.00s per attempt"), "{out}");
}

#[test]
fn an_empty_folder_is_named_as_such_not_as_a_selection() {
    // The empty-folder message talked about --select when none was given.
    let dir = temp::dir("compare-empty");
    let empty = dir.join("empty");
    std::fs::create_dir_all(empty.join("sub")).unwrap();
    std::fs::write(empty.join(".hidden"), "{\"n\": 8}").unwrap();
    let e = empty.display().to_string();
    for args in [
        vec!["compare", &e],
        vec!["compare", &e, "--select", "n=8"],
        vec!["solve", &e],
        vec!["count", &e, "--select", "n=8"],
    ] {
        let o = queens(&args, None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("no file to read"), "{args:?}: {err}");
        assert!(!err.contains("--select"), "{args:?}: {err}");
        assert!(stdout(&o).is_empty(), "{args:?}");
    }
    // When files were read and the selection kept none, the message is about the selection.
    std::fs::copy(instance("nauck-1850.txt"), empty.join("nauck.txt")).unwrap();
    for cmd in ["compare", "solve"] {
        let o = queens(&[cmd, &e, "--select", "n=9"], None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {err}");
        assert!(
            err.contains("no instance matches the selection"),
            "{cmd}: {err}"
        );
    }
}

/// Local search that spends its restarts without an answer is a timeout row ("no answer
/// within the limits", as `solve` exits 4), never an error or "no solution"; an engine that
/// cannot run at a board's size is `unsupported`, not an error, and the run exits 0.
#[test]
fn compare_reports_a_local_give_up_as_a_timeout_and_big_boards_as_unsupported() {
    let dir = temp::dir("compare-giveup");
    // n = 3 has no solution: the backtracker proves it; local search can only give up.
    let three = dir.join("three.json");
    std::fs::write(&three, "{\"id\": \"three\", \"n\": 3}").unwrap();
    let big = dir.join("big.json");
    std::fs::write(&big, "{\"id\": \"big\", \"n\": 5000}").unwrap();
    let csv = dir.join("out.csv");
    let o = queens(
        &[
            "compare",
            &three.display().to_string(),
            &big.display().to_string(),
            "--engines",
            "backtrack,local",
            "--timeout",
            "60",
            "--csv",
            &csv.display().to_string(),
            "--json",
        ],
        None,
    );
    super::cli::exited(&o, 0);
    let v = json(&o);
    let rows = v["instances"].as_array().unwrap();
    assert_eq!(rows[0]["status"], "unsat");
    let gave_up = &rows[0]["attempts"][1];
    assert_eq!(gave_up["status"], "timeout", "{gave_up}");
    assert!(
        gave_up["gave_up"].as_str().unwrap().contains("gave up"),
        "{gave_up}"
    );
    assert!(gave_up["error"].is_null());
    // Its time is the child's own, well under the limit.
    assert!(gave_up["time_ms"].as_f64().unwrap() < 60_000.0);
    assert_eq!(rows[1]["status"], "sat");
    let unsupported = &rows[1]["attempts"][0];
    assert_eq!(unsupported["status"], "unsupported", "{unsupported}");
    assert!(unsupported["error"]
        .as_str()
        .unwrap()
        .contains("up to 4096×4096"));
    assert_eq!(rows[1]["attempts"][1]["status"], "sat");
    let summary = &v["summary"];
    assert_eq!(summary[1]["timeouts"], 1);
    assert_eq!(summary[1]["errors"], 0);
    assert_eq!(summary[0]["unsupported"], 1);
    assert_eq!(summary[0]["errors"], 0);
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(csv.contains("\nthree,3,local,timeout,"), "{csv}");
    // The table says so too.
    let o = queens(
        &[
            "compare",
            &three.display().to_string(),
            "--engines",
            "backtrack,local",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("timeout (gave up at"), "{out}");
}

/// The local engine on a region puzzle cannot run: `unsupported`, not an error.
#[test]
fn compare_marks_local_on_regions_unsupported() {
    let o = queens(
        &[
            "compare",
            &instance("region-7.txt"),
            "--engines",
            "backtrack,local",
            "--json",
        ],
        None,
    );
    super::cli::exited(&o, 0);
    let v = json(&o);
    assert_eq!(v["instances"][0]["attempts"][1]["status"], "unsupported");
}

#[test]
fn csv_quotes_ids_and_messages_that_need_it_and_reads_back() {
    let mut failed = attempt(EngineSpec::Race(Encoding::Auto), Status::Error);
    failed.error = Some("child said \"no\",\nthen died".into());
    let row = Row {
        index: 0,
        id: "diag, \"hard\" one".into(),
        n: Some(8),
        attempts: vec![
            attempt(EngineSpec::Backtrack { threads: 1 }, Status::Sat),
            failed,
        ],
        error: None,
    };
    let text = compare::csv(&[row]);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(records.len(), 2, "{text}");
    assert_eq!(&records[0][0], "diag, \"hard\" one");
    assert_eq!(&records[0][3], "sat");
    assert_eq!(&records[1][3], "error");
    assert_eq!(&records[1][10], "child said \"no\",\nthen died");
    assert_eq!(reader.headers().unwrap().len(), 11);
}

#[test]
fn compare_proves_unsat_answers_and_reports_their_price() {
    use queens::proof::ProofFormat;
    let dir = temp::dir("compare-proofs");
    let proofs = dir.join("proofs");
    let csv_path = dir.join("c.csv");
    let corpus = format!("{}/tests/data/corpus.jsonl", env!("CARGO_MANIFEST_DIR"));
    let o = queens(
        &[
            "compare",
            &corpus,
            "--engines",
            "backtrack,sat:auto,race",
            "--proof",
            "--proof-dir",
            &proofs.display().to_string(),
            "--csv",
            &csv_path.display().to_string(),
            "--json",
        ],
        None,
    );
    succeeded(&o);
    let v = json(&o);
    assert_eq!(v["proof_format"], "lrat");
    let unsat: Vec<&serde_json::Value> = v["instances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "unsat")
        .collect();
    assert_eq!(unsat.len(), 1);
    let attempts = unsat[0]["attempts"].as_array().unwrap();
    for a in &attempts[..2] {
        let p = &a["proof"];
        assert_eq!(p["checked"], true, "{a}");
        assert!(a["proof_time_ms"].as_f64().unwrap() > 0.0);
        let (proof, cnf) = (
            PathBuf::from(p["path"].as_str().unwrap()),
            PathBuf::from(p["cnf"].as_str().unwrap()),
        );
        assert_eq!(
            std::fs::metadata(&proof).unwrap().len(),
            p["bytes"].as_u64().unwrap()
        );
        super::batch::assert_proof_files_check(ProofFormat::Lrat, &cnf, &proof, Some("lrat-check"));
    }
    // The race proves nothing here: no proof columns, and no answer without a proof is
    // passed off as one with.
    assert!(attempts[2]["proof"].is_null(), "{}", attempts[2]);
    let summary = v["summary"].as_array().unwrap();
    assert_eq!(summary[0]["proofs"], 1);
    assert!(summary[2].get("proofs").is_none());
    // The CSV has the same figures.
    let text = std::fs::read_to_string(&csv_path).unwrap();
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header = r.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let proven = r
        .records()
        .map(|rec| rec.unwrap())
        .filter(|rec| !rec[col("proof_bytes")].is_empty())
        .count();
    assert_eq!(proven, 2);
    // Without --proof-dir the proofs go to a temporary folder, and the table says what they
    // cost.
    let o = queens(
        &[
            "compare",
            &corpus,
            "--proof",
            "--proof-format",
            "binary-lrat",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("| proof "), "{out}");
    assert!(out.contains("unsat answers proven and checked"), "{out}");
}

#[test]
fn compare_refuses_a_proof_folder_it_cannot_make() {
    let dir = temp::dir("compare-bad-proofs");
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let bad = file.join("below");
    let o = queens(
        &[
            "compare",
            &instance("nauck-1850.txt"),
            "--proof",
            "--proof-dir",
            &bad.display().to_string(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&bad.display().to_string()), "{err}");
}

/// `compare` of a hanging wrapper on two boards: each attempt's child is killed at the limit,
/// and with it everything the wrapper started.
fn compare_wrapper(dir: &std::path::Path, timeout: &str) -> (std::process::Command, String) {
    let (script, marker) = crate::procs::hanging_wrapper(dir);
    for (name, n) in [("six.json", 6), ("seven.json", 7)] {
        std::fs::write(dir.join(name), format!("{{\"n\": {n}}}")).unwrap();
    }
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_queens"));
    c.arg("compare")
        .arg(dir.join("six.json"))
        .arg(dir.join("seven.json"))
        .args(["--engines", "ext:hang,backtrack:1", "--timeout", timeout])
        .arg("--solver")
        .arg(format!("hang={} {{cnf}}", script.display()));
    (c, marker)
}

#[test]
fn compare_leaves_no_process_of_a_wrapper_behind() {
    let dir = temp::dir("compare-wrapper");
    let (mut c, marker) = compare_wrapper(&dir, "1");
    let start = Instant::now();
    let o = c.arg("--json").output().unwrap();
    succeeded(&o);
    let j = json(&o);
    assert_eq!(j["summary"][0]["timeouts"], 2, "{j}");
    // Two attempts of 1 s each, not two sleeps of 30 s.
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(crate::procs::survivors(&marker), Vec::<u32>::new());
}

#[test]
fn a_sigkilled_compare_takes_its_workers_solvers_with_it() {
    let dir = temp::dir("compare-kill");
    let (mut c, marker) = compare_wrapper(&dir, "30");
    let mut child = c
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The attempt runs in a `queens op` worker, which started the wrapper, which started
    // the sleeper: three generations below the process killed here.
    assert!(
        crate::procs::wait_for(&marker, Duration::from_secs(10)),
        "the wrapper never started its child"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(crate::procs::survivors(&marker), Vec::<u32>::new());
}
