//! The `queens` command line: parses arguments, calls the library, prints, sets the exit code.
//!
//! Exit codes: 0 a solution was found / the board is valid; 1 proven no solution / violations;
//! 2 bad input or usage; 3 an internal check failed (an engine's answer did not verify).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde_json::json;

use queens::backtrack::{self, Config};
use queens::verify::{conflicts, verify};
use queens::{parse, report, Error, Pos, Problem};

#[derive(Parser)]
#[command(
    name = "queens",
    version,
    about = "Solve, count and check n-queens, completion and region Queens puzzles"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Find a solution (or all, or up to --limit) and print it.
    Solve {
        #[command(flatten)]
        input: Input,
        /// Print every solution.
        #[arg(long)]
        all: bool,
        /// Print at most K solutions (implies --all).
        #[arg(long, value_name = "K")]
        limit: Option<u64>,
        #[command(flatten)]
        engine: EngineArgs,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Count solutions (on all cores).
    Count {
        #[command(flatten)]
        input: Input,
        /// Stop counting at K (`--limit 2` asks "is the solution unique?").
        #[arg(long, value_name = "K")]
        limit: Option<u64>,
        /// Also count solutions distinct up to rotation and reflection (empty classic board).
        #[arg(long)]
        unique: bool,
        #[command(flatten)]
        engine: EngineArgs,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check the queens given in FILE against the rules and name every conflict.
    Check {
        /// Instance file (text grid or JSON), or - for stdin.
        file: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct Input {
    /// Instance file (text grid or JSON), or - for stdin.
    #[arg(required_unless_present = "n", conflicts_with = "n")]
    file: Option<PathBuf>,
    /// The empty classic N×N board instead of a file.
    #[arg(long, value_name = "N")]
    n: Option<usize>,
}

impl Input {
    fn load(&self) -> Result<Problem, Error> {
        match (&self.file, self.n) {
            (Some(path), _) => parse::read_path(path),
            (None, Some(n)) => Problem::new(n),
            (None, None) => unreachable!("clap requires FILE or --n"),
        }
    }
}

#[derive(Args)]
struct EngineArgs {
    /// Which engine answers.
    #[arg(long, value_enum, default_value_t = Engine::Backtrack)]
    engine: Engine,
}

#[derive(Clone, Copy, ValueEnum)]
enum Engine {
    /// Native bitset backtracking.
    Backtrack,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(Failure::Error(e)) => {
            eprintln!("queens: error: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Internal(msg)) => {
            eprintln!("queens: internal check failed: {msg}");
            ExitCode::from(3)
        }
        // Output closed early (e.g. piped into `head`): not an error.
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
    }
}

enum Failure {
    Error(Error),
    Internal(String),
    BrokenPipe,
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Error(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::BrokenPipe
        } else {
            Failure::Error(Error::Io {
                path: "<stdout>".into(),
                source: e,
            })
        }
    }
}

fn run(cli: Cli) -> Result<u8, Failure> {
    let mut out = std::io::stdout().lock();
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    match cli.command {
        Command::Solve {
            input,
            all,
            limit,
            engine: _,
            json,
        } => {
            let problem = input.load()?;
            solve(
                &mut out,
                &problem,
                all || limit.is_some(),
                limit,
                json,
                color,
            )
        }
        Command::Count {
            input,
            limit,
            unique,
            engine: _,
            json,
        } => {
            let problem = input.load()?;
            count(&mut out, &problem, limit, unique, json)
        }
        Command::Check { file, json } => {
            let problem = parse::read_path(&file)?;
            check(&mut out, &problem, json, color)
        }
    }
}

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// Every board is checked before it is shown.
fn checked(problem: &Problem, queens: &[Pos]) -> Result<(), Failure> {
    verify(problem, queens).map_err(|v| {
        Failure::Internal(format!(
            "the backtracker returned a board that breaks a rule: {v}"
        ))
    })
}

/// Why a problem has no solution, as precisely as we can say cheaply: a conflict among the
/// fixed queens, or an exhausted search.
fn unsat_reason(problem: &Problem, nodes: u64) -> String {
    match conflicts(problem, problem.fixed()).first() {
        Some(v) => format!("the fixed queens already break a rule: {v}"),
        None => format!("the search is exhausted ({nodes} nodes)"),
    }
}

fn solve(
    out: &mut impl Write,
    problem: &Problem,
    many: bool,
    limit: Option<u64>,
    json: bool,
    color: bool,
) -> Result<u8, Failure> {
    let start = Instant::now();
    let config = Config::default();
    let mut solutions: Vec<Vec<Pos>> = Vec::new();
    let mut bad = None;
    let cap = if many { limit } else { Some(1) };
    let stats = backtrack::enumerate(problem, &config, cap, |q| {
        if let Err(e) = checked(problem, q) {
            bad = Some(e);
            return false;
        }
        solutions.push(q.to_vec());
        true
    });
    if let Some(e) = bad {
        return Err(e);
    }
    let time_ms = ms(start);
    let status = if solutions.is_empty() { "unsat" } else { "sat" };
    if json {
        let mut obj = json!({
            "status": status,
            "engine": "backtrack",
            "n": problem.n(),
            "queens": solutions.first(),
            "nodes": stats.nodes,
            "time_ms": time_ms,
        });
        if many {
            obj["solutions"] = json!(solutions);
            obj["count"] = json!(solutions.len());
            obj["limited"] = json!(limit.is_some_and(|k| solutions.len() as u64 >= k));
        }
        if solutions.is_empty() {
            obj["reason"] = json!(unsat_reason(problem, stats.nodes));
        }
        writeln!(out, "{obj}")?;
    } else if solutions.is_empty() {
        writeln!(out, "no solution: {}", unsat_reason(problem, stats.nodes))?;
    } else {
        for (i, s) in solutions.iter().enumerate() {
            if many {
                writeln!(out, "solution {}:", i + 1)?;
            }
            write!(out, "{}", report::board(problem, s, color))?;
            if many {
                writeln!(out)?;
            }
        }
        let what = if many {
            let more = if limit.is_some_and(|k| solutions.len() as u64 >= k) {
                " (limit reached)"
            } else {
                ""
            };
            format!("{} solutions{more}", solutions.len())
        } else {
            "solved".to_string()
        };
        writeln!(
            out,
            "{what}: {} (backtrack, {} nodes, {time_ms} ms)",
            report::summary(problem),
            stats.nodes
        )?;
    }
    Ok(if solutions.is_empty() { 1 } else { 0 })
}

/// A progress bar on stderr when it is a terminal; hidden otherwise.
fn progress_bar(what: &str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{bar:40}] {pos}/{len} subtrees, {elapsed} (eta {eta})",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    Some(bar)
}

fn count(
    out: &mut impl Write,
    problem: &Problem,
    limit: Option<u64>,
    want_unique: bool,
    json: bool,
) -> Result<u8, Failure> {
    let start = Instant::now();
    let bar = progress_bar("counting");
    let mut config = Config::default();
    if let Some(bar) = bar.clone() {
        config.progress = Some(Arc::new(move |done, total| {
            bar.set_length(total);
            bar.set_position(done);
        }));
    }
    let c = backtrack::count(problem, &config, limit);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let time_ms = ms(start);
    let unique = if want_unique { c.unique } else { None };
    if json {
        let obj = json!({
            "count": c.total,
            "unique": unique,
            "limited": c.limited,
            "engine": "backtrack",
            "n": problem.n(),
            "nodes": c.stats.nodes,
            "time_ms": time_ms,
        });
        writeln!(out, "{obj}")?;
    } else {
        let more = if c.limited {
            " (limit reached; there may be more)"
        } else {
            ""
        };
        writeln!(out, "count: {}{more}", c.total)?;
        if want_unique {
            match c.unique {
                Some(u) => writeln!(out, "unique: {u} (up to rotation and reflection)")?,
                None => writeln!(
                    out,
                    "unique: not defined here (only for the empty classic board counted without --limit)"
                )?,
            }
        }
        writeln!(
            out,
            "{} (backtrack, {} nodes, {time_ms} ms)",
            report::summary(problem),
            c.stats.nodes
        )?;
    }
    Ok(if c.total == 0 { 1 } else { 0 })
}

fn check(out: &mut impl Write, problem: &Problem, json: bool, color: bool) -> Result<u8, Failure> {
    let queens = problem.fixed();
    let violations = conflicts(problem, queens);
    let (status, code) = if !violations.is_empty() {
        ("invalid", 1)
    } else if verify(problem, queens).is_ok() {
        ("solved", 0)
    } else {
        ("consistent", 0)
    };
    // A consistent partial board may still be a dead end: say whether it can be completed
    // (the completion itself is checked before we trust it).
    let completable = match status {
        "consistent" => {
            let (found, _) = backtrack::solve(problem, &Config::default());
            if let Some(q) = &found {
                checked(problem, q)?;
            }
            Some(found.is_some())
        }
        "solved" => Some(true),
        _ => None,
    };
    if json {
        let obj = json!({
            "status": status,
            "placed": queens.len(),
            "completable": completable,
            "n": problem.n(),
            "violations": violations
                .iter()
                .map(|v| {
                    let mut o = serde_json::to_value(v).expect("violations serialize");
                    o["message"] = json!(v.to_string());
                    o
                })
                .collect::<Vec<_>>(),
        });
        writeln!(out, "{obj}")?;
    } else {
        write!(out, "{}", report::board(problem, queens, color))?;
        match status {
            "solved" => writeln!(
                out,
                "solved: all {} queens placed, no conflict",
                problem.n()
            )?,
            "consistent" => writeln!(
                out,
                "consistent, {} of {} placed ({})",
                queens.len(),
                problem.n(),
                if completable == Some(true) { "can be completed" } else { "cannot be completed" }
            )?,
            _ => {
                writeln!(out, "invalid: {} conflict(s)", violations.len())?;
                for v in &violations {
                    writeln!(out, "  {v}")?;
                }
            }
        }
    }
    Ok(code)
}
