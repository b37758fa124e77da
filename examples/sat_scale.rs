//! SAT at scale: the SAT engine on the empty n×n board, per encoding, each run in a child
//! process of its own so that its peak RSS is its own. One markdown row per run on stdout.
//!
//! ```text
//! cargo run --release --example sat_scale -- --n 100,200,500,1000,2000 --encodings all
//! cargo run --release --example sat_scale -- --n 1000 --encodings auto,seq --baseline
//! ```
//!
//! A run is `queens::engine::solve` with the SAT engine, as `queens solve --engine sat` calls
//! it, with the CLI's allocator (mimalloc) and its default memory limit: encode, solve,
//! decode, verify. `encode` is the engine's encode time (clauses go straight into the solver,
//! so it includes varisat's loading of them), `solve` the search, `engine` the engine's whole
//! time (memory check, encode, solve, verify), `wall` the child process from start to exit,
//! `peak RSS` its VmHWM (MiB, GiB).
//!
//! `--baseline` also runs, right before each run, the SAT path as it was before streaming
//! (commit `78c205d`): the whole formula built as a `CnfFormula`, copied into a plain varisat
//! solver, solved, decoded and verified. Both rows come from the same build in the same run,
//! so their ratio is as fair as this shared machine allows.
//!
//! `--timeout S` (default 600) kills a run after S seconds; `--repeat K` runs each K times.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use queens::encode::amo::Encoding;
use queens::engine::{self, Answer, Budget, EngineSpec};
use queens::Problem;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(&args[1], &args[2], &args[3]);
        return;
    }
    let mut sizes = vec![100, 200, 500, 1000, 2000];
    let mut encodings: Vec<Encoding> = Encoding::ALL.into_iter().chain([Encoding::Auto]).collect();
    let mut baseline = false;
    let mut timeout = 600.0;
    let mut repeat = 1;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .unwrap_or_else(|| panic!("{a} needs a value"))
                .clone()
        };
        match a.as_str() {
            "--n" => {
                sizes = value()
                    .split(',')
                    .map(|s| s.parse().expect("--n 100,200"))
                    .collect()
            }
            "--encodings" => {
                let v = value();
                if v != "all" {
                    encodings = v
                        .split(',')
                        .map(|s| s.parse().expect("an encoding"))
                        .collect();
                }
            }
            "--baseline" => baseline = true,
            "--timeout" => timeout = value().parse().expect("--timeout seconds"),
            "--repeat" => repeat = value().parse().expect("--repeat K"),
            other => panic!("unknown argument {other}"),
        }
    }
    println!(
        "| n | encoding | path | vars | clauses | encode | solve | engine | wall | peak RSS |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for &n in &sizes {
        for &enc in &encodings {
            for _ in 0..repeat {
                let paths: &[&str] = if baseline {
                    &["baseline", "now"]
                } else {
                    &["now"]
                };
                for path in paths {
                    println!("{}", run(n, enc, path, timeout));
                }
            }
        }
    }
}

/// Runs one child and formats its row.
fn run(n: usize, enc: Encoding, path: &str, timeout: f64) -> String {
    let exe = std::env::current_exe().expect("own executable");
    let start = Instant::now();
    let mut child = Command::new(exe)
        .args(["--child", &n.to_string(), enc.name(), path])
        .stdout(Stdio::piped())
        .spawn()
        .expect("child starts");
    let mut out = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        out.read_to_string(&mut s).ok();
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("child waits") {
            break Some(status);
        }
        if start.elapsed().as_secs_f64() > timeout {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let wall = start.elapsed().as_secs_f64();
    let text = reader.join().unwrap_or_default();
    let head = format!("| {n} | {enc} | {path} |");
    match status {
        None => format!("{head} | | | | | killed after {timeout:.0} s | | |"),
        Some(s) if !s.success() => format!("{head} failed ({s}): {} |", text.trim()),
        Some(_) => {
            let line = BufReader::new(text.as_bytes())
                .lines()
                .map_while(Result::ok)
                .find(|l| l.starts_with('{'))
                .unwrap_or_default();
            let v: serde_json::Value = serde_json::from_str(&line).expect("child's JSON line");
            if let Some(refused) = v["refused"].as_str() {
                return format!("{head} | | | | | refused: {refused} | | |");
            }
            format!(
                "{head} {} | {} | {} | {} | {} | {:.2} s | {} |",
                thousands(v["vars"].as_u64().unwrap_or(0)),
                thousands(v["clauses"].as_u64().unwrap_or(0)),
                millis(v["encode_ms"].as_f64().unwrap_or(0.0)),
                millis(v["solve_ms"].as_f64().unwrap_or(0.0)),
                millis(v["engine_ms"].as_f64().unwrap_or(0.0)),
                wall,
                megabytes(v["peak_kb"].as_u64().unwrap_or(0)),
            )
        }
    }
}

/// One run, in the child: prints one JSON line.
fn child(n: &str, enc: &str, path: &str) {
    let n: usize = n.parse().expect("n");
    let enc: Encoding = enc.parse().expect("encoding");
    let problem = Problem::new(n).expect("a board size");
    let budget = Budget {
        max_memory: Some(engine::default_max_memory()),
        ..Budget::default()
    };
    let start = Instant::now();
    let result = match path {
        "now" => engine::solve(&problem, EngineSpec::Sat(enc), &budget),
        "baseline" => baseline(&problem, enc, &budget),
        other => panic!("unknown path {other}"),
    };
    let engine_ms = start.elapsed().as_secs_f64() * 1e3;
    let line = match result {
        Err(queens::Error::TooLarge { message: why, .. }) => {
            // "… (over V variables and C clauses) …": keep the figures.
            let size = why
                .split_once("(over ")
                .and_then(|(_, rest)| rest.split_once(')'))
                .map_or(why.as_str(), |(size, _)| size);
            serde_json::json!({ "refused": format!("estimate over the memory limit, {size} or more") })
        }
        Err(e) => panic!("{e}"),
        Ok(solved) => {
            assert!(
                matches!(solved.answer, Answer::Sat(_)),
                "n-queens has a solution"
            );
            let sat = solved.work.sat.expect("SAT stats");
            serde_json::json!({
                "vars": sat.vars,
                "clauses": sat.clauses,
                "encode_ms": sat.encode_ms,
                "solve_ms": sat.solve_ms,
                "engine_ms": engine_ms,
                "peak_kb": peak_kb(),
            })
        }
    };
    println!("{line}");
}

/// The SAT path before streaming (`78c205d`): formula first, copied into a plain solver.
fn baseline(
    problem: &Problem,
    enc: Encoding,
    budget: &Budget,
) -> Result<engine::Solved, queens::Error> {
    use varisat::Solver;
    engine::check_sat_memory(problem, enc, engine::SatMemory::WithFormula, budget)?;
    let encoded =
        queens::engine::sat::encode_problem(problem, enc, queens::cnf::FixedMode::Simplify);
    let mut stats = encoded.stats;
    let start = Instant::now();
    let mut solver = Solver::new();
    solver.add_formula(&encoded.formula);
    assert!(solver.solve().expect("varisat solves"));
    let model = solver.model().expect("a model");
    let queens = encoded.map.decode(|l| model[l.index()] == l);
    stats.solve_ms = start.elapsed().as_secs_f64() * 1e3;
    stats.solver_calls = 1;
    engine::checked(problem, &queens, "sat")?;
    Ok(engine::Solved {
        answer: Answer::Sat(queens),
        work: engine::Work {
            sat: Some(stats),
            ..engine::Work::default()
        },
    })
}

/// This process's peak resident set (VmHWM), in kB.
fn peak_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn thousands(x: u64) -> String {
    let s = x.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn millis(ms: f64) -> String {
    if ms >= 10_000.0 {
        format!("{:.1} s", ms / 1e3)
    } else if ms >= 1_000.0 {
        format!("{:.2} s", ms / 1e3)
    } else {
        format!("{ms:.0} ms")
    }
}

/// VmHWM's kB are KiB.
fn megabytes(kb: u64) -> String {
    if kb >= 1 << 20 {
        format!("{:.2} GiB", kb as f64 / f64::from(1 << 20))
    } else {
        format!("{} MiB", kb >> 10)
    }
}
