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
use queens::compare::{self as cmp, EngineSpec};
use queens::encode::amo::Encoding;
use queens::generate;
use queens::proof::{self, ProofFormat};
use queens::sat::{self, SatStats};
use queens::sources::{self, Selection};
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
        #[command(flatten)]
        proof: ProofArgs,
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
    /// Write the SAT encoding as DIMACS CNF, with comment lines mapping cell variables.
    Encode {
        #[command(flatten)]
        input: Input,
        /// At-most-one encoding: pairwise, seq, commander, product, bimander, auto.
        #[arg(long, default_value = "auto")]
        encoding: Encoding,
        /// Write to this file instead of stdout.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Read an external solver's model for FILE's encoding, verify it and print the board.
    Decode {
        /// The instance the CNF was made from.
        file: PathBuf,
        /// The solver's output (`s SATISFIABLE` + `v … 0` lines, or a bare literal list).
        model: PathBuf,
        #[command(flatten)]
        selection: SelectionArgs,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Explain why a completion has no solution: a minimal set of fixed queens (and blocked
    /// cells) that already has none.
    Explain {
        /// Instance file (text grid or JSON), or - for stdin.
        file: PathBuf,
        #[command(flatten)]
        selection: SelectionArgs,
        /// At-most-one encoding: pairwise, seq, commander, product, bimander, auto.
        #[arg(long, default_value = "auto")]
        encoding: Encoding,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Generate an instance (deterministic for a seed), or a JSON-lines corpus with --count.
    Generate {
        #[command(subcommand)]
        kind: GenerateKind,
    },
    /// Run instances on several engines, each attempt in a child process with a hard time
    /// limit; every answer is verified, and a disagreement between engines exits with 3.
    Compare(CompareArgs),
    /// Internal: run one engine on the JSON instance on stdin and print a JSON report (what
    /// `compare` runs in each child process).
    #[command(hide = true)]
    Attempt {
        /// backtrack, backtrack:THREADS or sat:ENCODING.
        #[arg(long)]
        engine: EngineSpec,
    },
    /// Check the queens given in FILE against the rules and name every conflict.
    Check {
        /// Instance file (text grid or JSON), or - for stdin.
        file: PathBuf,
        #[command(flatten)]
        selection: SelectionArgs,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct Input {
    /// Instance file (text grid, JSON, CSPLib parameter file, or a JSON-lines corpus narrowed
    /// to one record with --select), or - for stdin.
    #[arg(required_unless_present = "n", conflicts_with = "n")]
    file: Option<PathBuf>,
    /// The empty classic N×N board instead of a file.
    #[arg(long, value_name = "N", conflicts_with_all = ["select", "first"])]
    n: Option<usize>,
    #[command(flatten)]
    selection: SelectionArgs,
}

impl Input {
    fn load(&self) -> Result<Problem, Error> {
        match (&self.file, self.n) {
            (Some(path), _) => Ok(sources::load_one(path, &self.selection.get(None))?.problem),
            (None, Some(n)) => Problem::new(n),
            (None, None) => unreachable!("clap requires FILE or --n"),
        }
    }
}

/// Which records of a corpus to use, and which prefix of their lists.
#[derive(Args)]
struct SelectionArgs {
    /// Keep instances whose FIELD equals VALUE (repeatable): `--select n=21`. JSON records
    /// and files offer their fields; text grids and CSPLib files their `id` (file name) and `n`.
    #[arg(long, value_name = "FIELD=VALUE", value_parser = Selection::parse_filter)]
    select: Vec<(String, String)>,
    /// Use only the first D excluded diagonals (and fixed queens) of each instance, as CSPLib
    /// prob079 defines its instances.
    #[arg(long, value_name = "D")]
    first: Option<usize>,
}

impl SelectionArgs {
    fn get(&self, take: Option<usize>) -> Selection {
        Selection {
            filters: self.select.clone(),
            first: self.first,
            take,
        }
    }
}

#[derive(Subcommand)]
enum GenerateKind {
    /// Random n-queens completion (Gent, Jefferson & Nightingale's generator): up to M
    /// non-attacking fixed queens.
    Completion {
        /// Board size.
        #[arg(long)]
        n: usize,
        /// Fixed queens to place (fewer when n² attempts run out).
        #[arg(long, value_name = "M")]
        queens: usize,
        #[command(flatten)]
        out: GenerateOut,
    },
    /// Random Excluded Diagonals (CSPLib prob079): a maximal random list of diagonals that
    /// leaves every row and column at least K open cells; any prefix is an instance.
    Diagonals {
        /// Board size.
        #[arg(long)]
        n: usize,
        /// Open cells every row and column keeps (prob079 uses 4).
        #[arg(long, value_name = "K", default_value_t = 4)]
        min_free: usize,
        /// Keep only the first D diagonals of the list (default: all).
        #[arg(long, value_name = "D")]
        first: Option<usize>,
        #[command(flatten)]
        out: GenerateOut,
    },
    /// A region Queens puzzle with exactly one solution (checked by the backtracker).
    Regions {
        /// Board size (4 to 64; from 13 some seeds fail and say so).
        #[arg(long)]
        n: usize,
        #[command(flatten)]
        out: GenerateOut,
    },
}

#[derive(Args)]
struct GenerateOut {
    /// Random seed; the same seed gives the same instance.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Generate C instances with seeds SEED, SEED+1, … as JSON lines (one per line).
    #[arg(long, value_name = "C", default_value_t = 1)]
    count: u64,
    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
}

#[derive(Args)]
struct CompareArgs {
    /// Instance files, folders (every file inside) or JSON-lines corpora.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    #[command(flatten)]
    selection: SelectionArgs,
    /// Use at most K instances.
    #[arg(long, value_name = "K")]
    take: Option<usize>,
    /// Comma-separated engines: backtrack (all cores), backtrack:THREADS, sat:ENCODING. The
    /// first is the reference for ratios and the x axis of --plot.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "backtrack,sat:auto",
        value_name = "LIST"
    )]
    engines: Vec<EngineSpec>,
    /// Seconds each attempt may run before it is killed and reported as a timeout.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    timeout: f64,
    /// Instances run at the same time (1 keeps timings clean; engines of one instance always
    /// run one after the other).
    #[arg(long, value_name = "J", default_value_t = 1)]
    jobs: usize,
    /// Also write one CSV line per attempt here.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write an SVG log-log scatter of each engine's time against the first engine's.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Print one JSON object (every attempt and the summary) instead of the table.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct ProofArgs {
    /// With --engine sat: when the answer is UNSAT, write a proof of it here (checked by the
    /// built-in checker before the answer is printed).
    #[arg(long, value_name = "P")]
    proof: Option<PathBuf>,
    /// Proof format: drat, binary-drat or lrat.
    #[arg(long, value_name = "F", default_value = "drat", requires = "proof")]
    proof_format: ProofFormat,
    /// Where to write the exact CNF the proof refutes (default: the proof path + `.cnf`).
    #[arg(long, value_name = "C", requires = "proof")]
    cnf: Option<PathBuf>,
}

#[derive(Args, Clone, Copy)]
struct EngineArgs {
    /// Which engine answers.
    #[arg(long, value_enum, default_value_t = Engine::Backtrack)]
    engine: Engine,
    /// At-most-one encoding for the SAT engine: pairwise, seq, commander, product, bimander, auto.
    #[arg(long, default_value = "auto")]
    encoding: Encoding,
    /// Also run the other engine and fail (exit 3, both answers shown) if they disagree.
    #[arg(long)]
    cross_check: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Engine {
    /// Native bitset backtracking.
    Backtrack,
    /// CNF encoding solved with varisat.
    Sat,
}

impl Engine {
    fn name(self) -> &'static str {
        match self {
            Engine::Backtrack => "backtrack",
            Engine::Sat => "sat",
        }
    }

    fn other(self) -> Engine {
        match self {
            Engine::Backtrack => Engine::Sat,
            Engine::Sat => Engine::Backtrack,
        }
    }
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
            engine,
            proof,
            json,
        } => {
            let problem = input.load()?;
            let many = all || limit.is_some();
            if let Some(path) = &proof.proof {
                if engine.engine != Engine::Sat || many {
                    return Err(Failure::Error(Error::Unsupported(
                        "--proof needs --engine sat and a single solve (no --all/--limit)".into(),
                    )));
                }
                let cnf = proof.cnf.clone().unwrap_or_else(|| {
                    let mut p = path.clone().into_os_string();
                    p.push(".cnf");
                    p.into()
                });
                return solve_with_proof(
                    &mut out,
                    &problem,
                    engine,
                    path,
                    proof.proof_format,
                    &cnf,
                    json,
                    color,
                );
            }
            solve(&mut out, &problem, many, limit, engine, json, color)
        }
        Command::Count {
            input,
            limit,
            unique,
            engine,
            json,
        } => {
            let problem = input.load()?;
            count(&mut out, &problem, limit, unique, engine, json)
        }
        Command::Encode {
            input,
            encoding,
            output,
        } => {
            let problem = input.load()?;
            encode(&mut out, &problem, encoding, output)
        }
        Command::Decode {
            file,
            model,
            selection,
            json,
        } => {
            let problem = sources::load_one(&file, &selection.get(None))?.problem;
            decode(&mut out, &problem, &model, json, color)
        }
        Command::Explain {
            file,
            selection,
            encoding,
            json,
        } => {
            let problem = sources::load_one(&file, &selection.get(None))?.problem;
            explain(&mut out, &problem, encoding, json, color)
        }
        Command::Generate { kind } => generate(&mut out, kind),
        Command::Compare(args) => compare(&mut out, args),
        Command::Attempt { engine } => {
            let problem = parse::read_path(std::path::Path::new("-"))?;
            let report = queens::compare::attempt(&problem, engine)?;
            writeln!(
                out,
                "{}",
                serde_json::to_string(&report).expect("reports serialize")
            )?;
            Ok(0)
        }
        Command::Check {
            file,
            selection,
            json,
        } => {
            let problem = sources::load_one(&file, &selection.get(None))?.problem;
            check(&mut out, &problem, json, color)
        }
    }
}

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// Every board is checked before it is shown.
fn checked(problem: &Problem, queens: &[Pos], engine: &str) -> Result<(), Failure> {
    verify(problem, queens).map_err(|v| {
        Failure::Internal(format!(
            "the {engine} engine returned a board that breaks a rule: {v}"
        ))
    })
}

/// Why a problem has no solution, as precisely as we can say cheaply: a conflict among the
/// fixed queens, or what the engine proved (`nodes` for the backtracker, `None` for SAT).
fn unsat_reason(problem: &Problem, nodes: Option<u64>) -> String {
    match (conflicts(problem, problem.fixed()).first(), nodes) {
        (Some(v), _) => format!("the fixed queens already break a rule: {v}"),
        (None, Some(nodes)) => format!("the search is exhausted ({nodes} nodes)"),
        (None, None) => "the SAT solver proved the encoding unsatisfiable".to_string(),
    }
}

/// What one engine did: its solutions (all verified) or count, and its work figures.
struct Run {
    engine: Engine,
    encoding: Encoding,
    solutions: Vec<Vec<Pos>>,
    count: u64,
    limited: bool,
    unique: Option<u64>,
    nodes: Option<u64>,
    sat: Option<SatStats>,
    time_ms: f64,
}

impl Run {
    fn json_fields(&self, obj: &mut serde_json::Value) {
        obj["engine"] = json!(self.engine.name());
        obj["time_ms"] = json!(self.time_ms);
        if let Some(nodes) = self.nodes {
            obj["nodes"] = json!(nodes);
        }
        if let Some(st) = self.sat {
            obj["encoding"] = json!(self.encoding.to_string());
            obj["vars"] = json!(st.vars);
            obj["clauses"] = json!(st.clauses);
            obj["encode_ms"] = json!(st.encode_ms);
            obj["solve_ms"] = json!(st.solve_ms);
            obj["solver_calls"] = json!(st.solver_calls);
        }
    }

    fn work(&self) -> String {
        match (self.nodes, self.sat) {
            (_, Some(st)) => format!(
                "sat/{}, {} vars, {} clauses, encode {} ms, solve {} ms",
                self.encoding, st.vars, st.clauses, st.encode_ms, st.solve_ms
            ),
            (nodes, None) => format!(
                "backtrack, {} nodes, {} ms",
                nodes.unwrap_or(0),
                self.time_ms
            ),
        }
    }
}

/// Solves (up to `cap` solutions) with one engine, verifying every board.
fn run_solve(
    problem: &Problem,
    engine: Engine,
    encoding: Encoding,
    cap: Option<u64>,
) -> Result<Run, Failure> {
    let start = Instant::now();
    let mut solutions: Vec<Vec<Pos>> = Vec::new();
    let mut bad = None;
    let mut visit = |q: &[Pos]| {
        if let Err(e) = checked(problem, q, engine.name()) {
            bad = Some(e);
            return false;
        }
        solutions.push(q.to_vec());
        true
    };
    let (nodes, sat) = match engine {
        // One solution: the parallel search (same answer as the sequential one, on all cores).
        Engine::Backtrack if cap == Some(1) => {
            let (found, stats) = backtrack::solve(problem, &Config::default());
            if let Some(q) = found {
                visit(&q);
            }
            (Some(stats.nodes), None)
        }
        Engine::Backtrack => (
            Some(backtrack::enumerate(problem, &Config::default(), cap, &mut visit).nodes),
            None,
        ),
        Engine::Sat => (
            None,
            Some(sat::enumerate(problem, encoding, cap, &mut visit)?),
        ),
    };
    if let Some(e) = bad {
        return Err(e);
    }
    let count = solutions.len() as u64;
    Ok(Run {
        engine,
        encoding,
        limited: cap.is_some_and(|k| count >= k),
        solutions,
        count,
        unique: None,
        nodes,
        sat,
        time_ms: ms(start),
    })
}

/// Counts with one engine.
fn run_count(
    problem: &Problem,
    engine: Engine,
    encoding: Encoding,
    limit: Option<u64>,
) -> Result<Run, Failure> {
    let start = Instant::now();
    let mut run = Run {
        engine,
        encoding,
        solutions: Vec::new(),
        count: 0,
        limited: false,
        unique: None,
        nodes: None,
        sat: None,
        time_ms: 0.0,
    };
    match engine {
        Engine::Backtrack => {
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
            (run.count, run.limited, run.unique, run.nodes) =
                (c.total, c.limited, c.unique, Some(c.stats.nodes));
        }
        Engine::Sat => {
            let (total, limited, st) = sat::count(problem, encoding, limit)?;
            (run.count, run.limited, run.sat) = (total, limited, Some(st));
        }
    }
    run.time_ms = ms(start);
    Ok(run)
}

/// With `--cross-check`: the other engine must agree on status (solve) or count.
fn cross_check(first: &Run, second: &Run, what: &str, same: bool) -> Result<(), Failure> {
    if same {
        return Ok(());
    }
    let show = |r: &Run| match what {
        "count" => format!(
            "{}: count {}{}",
            r.engine.name(),
            r.count,
            if r.limited { " (limit)" } else { "" }
        ),
        _ => format!(
            "{}: {}",
            r.engine.name(),
            match r.solutions.first() {
                Some(q) => format!("sat {q:?}"),
                None => "unsat".to_string(),
            }
        ),
    };
    Err(Failure::Internal(format!(
        "the engines disagree on the {what}:\n  {}\n  {}",
        show(first),
        show(second)
    )))
}

fn solve(
    out: &mut impl Write,
    problem: &Problem,
    many: bool,
    limit: Option<u64>,
    args: EngineArgs,
    json: bool,
    color: bool,
) -> Result<u8, Failure> {
    let cap = if many { limit } else { Some(1) };
    let run = run_solve(problem, args.engine, args.encoding, cap)?;
    if args.cross_check {
        let other = run_solve(problem, args.engine.other(), args.encoding, cap)?;
        let same = if many {
            other.count == run.count
        } else {
            other.solutions.is_empty() == run.solutions.is_empty()
        };
        cross_check(&run, &other, if many { "count" } else { "status" }, same)?;
    }
    let solutions = &run.solutions;
    let status = if solutions.is_empty() { "unsat" } else { "sat" };
    if json {
        let mut obj = json!({
            "status": status,
            "n": problem.n(),
            "queens": solutions.first(),
        });
        run.json_fields(&mut obj);
        if many {
            obj["solutions"] = json!(solutions);
            obj["count"] = json!(solutions.len());
            obj["limited"] = json!(run.limited);
        }
        if args.cross_check {
            obj["cross_checked"] = json!(args.engine.other().name());
        }
        if solutions.is_empty() {
            obj["reason"] = json!(unsat_reason(problem, run.nodes));
        }
        writeln!(out, "{obj}")?;
    } else if solutions.is_empty() {
        writeln!(out, "no solution: {}", unsat_reason(problem, run.nodes))?;
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
            let more = if run.limited { " (limit reached)" } else { "" };
            format!("{} solutions{more}", solutions.len())
        } else {
            "solved".to_string()
        };
        writeln!(out, "{what}: {} ({})", report::summary(problem), run.work())?;
    }
    if args.cross_check && !json {
        writeln!(
            out,
            "cross-checked: the {} engine agrees",
            args.engine.other().name()
        )?;
    }
    Ok(if solutions.is_empty() { 1 } else { 0 })
}

/// `solve --engine sat --proof P`: on UNSAT, the proof and the exact CNF it refutes are
/// written and the proof is checked by the built-in checker before the answer is printed.
#[allow(clippy::too_many_arguments)]
fn solve_with_proof(
    out: &mut impl Write,
    problem: &Problem,
    args: EngineArgs,
    proof_path: &std::path::Path,
    format: ProofFormat,
    cnf_path: &std::path::Path,
    json: bool,
    color: bool,
) -> Result<u8, Failure> {
    let start = Instant::now();
    let encoded = sat::encode_problem(problem, args.encoding, queens::cnf::FixedMode::Simplify);
    let io = |path: &std::path::Path| {
        let path = path.to_path_buf();
        move |e| {
            Failure::Error(Error::Io {
                path: path.clone(),
                source: e,
            })
        }
    };
    let mut proof_bytes = Vec::new();
    let solve_start = Instant::now();
    let model = proof::solve_with_proof(&encoded.formula, format, &mut proof_bytes)
        .map_err(|e| Failure::Error(Error::Unsupported(format!("proof: {e}"))))?;
    let solve_ms = ms(solve_start);
    let mut obj = json!({
        "n": problem.n(),
        "engine": "sat",
        "encoding": args.encoding.to_string(),
        "vars": encoded.stats.vars,
        "clauses": encoded.stats.clauses,
        "encode_ms": encoded.stats.encode_ms,
        "solve_ms": solve_ms,
    });
    let code = match model {
        Some(model) => {
            let set: std::collections::HashSet<varisat::Lit> = model.into_iter().collect();
            let q = encoded.map.decode(|l| set.contains(&l));
            checked(problem, &q, "sat")?;
            obj["status"] = json!("sat");
            obj["queens"] = json!(q);
            if !json {
                write!(out, "{}", report::board(problem, &q, color))?;
                writeln!(
                    out,
                    "solved: {} (no proof written: the answer is SAT)",
                    report::summary(problem)
                )?;
            }
            0
        }
        None => {
            let check_start = Instant::now();
            let stats =
                proof::check_proof(&encoded.formula, format, &proof_bytes).map_err(|e| {
                    Failure::Internal(format!(
                        "the solver's proof of unsatisfiability does not check: {e}"
                    ))
                })?;
            let check_ms = ms(check_start);
            std::fs::write(proof_path, &proof_bytes).map_err(io(proof_path))?;
            let mut f =
                std::io::BufWriter::new(std::fs::File::create(cnf_path).map_err(io(cnf_path))?);
            let header = vec![
                format!("queens CNF: {}", report::summary(problem)),
                format!(
                    "encoding {}; refuted by the {format} proof in {}",
                    args.encoding,
                    proof_path.display()
                ),
            ];
            queens::dimacs::write_cnf(&mut f, &encoded, &header).map_err(io(cnf_path))?;
            f.flush().map_err(io(cnf_path))?;
            obj["status"] = json!("unsat");
            obj["queens"] = json!(null);
            obj["proof"] = json!({
                "path": proof_path.display().to_string(),
                "format": format.to_string(),
                "cnf": cnf_path.display().to_string(),
                "lemmas": stats.lemmas,
                "checked": true,
                "check_ms": check_ms,
                "bytes": proof_bytes.len(),
            });
            if !json {
                writeln!(out, "no solution: {}", unsat_reason(problem, None))?;
                writeln!(
                    out,
                    "proof: {} ({format}, {} lemmas, checked by the built-in checker in {check_ms} ms) refutes {}",
                    proof_path.display(),
                    stats.lemmas,
                    cnf_path.display()
                )?;
            }
            1
        }
    };
    obj["time_ms"] = json!(ms(start));
    if json {
        writeln!(out, "{obj}")?;
    }
    Ok(code)
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
    args: EngineArgs,
    json: bool,
) -> Result<u8, Failure> {
    let run = run_count(problem, args.engine, args.encoding, limit)?;
    if args.cross_check {
        let other = run_count(problem, args.engine.other(), args.encoding, limit)?;
        cross_check(&run, &other, "count", other.count == run.count)?;
    }
    let unique = if want_unique { run.unique } else { None };
    if json {
        let mut obj = json!({
            "count": run.count,
            "unique": unique,
            "limited": run.limited,
            "n": problem.n(),
        });
        run.json_fields(&mut obj);
        if args.cross_check {
            obj["cross_checked"] = json!(args.engine.other().name());
        }
        writeln!(out, "{obj}")?;
    } else {
        let more = if run.limited {
            " (limit reached; there may be more)"
        } else {
            ""
        };
        writeln!(out, "count: {}{more}", run.count)?;
        if want_unique {
            match run.unique {
                Some(u) => writeln!(out, "unique: {u} (up to rotation and reflection)")?,
                None => writeln!(
                    out,
                    "unique: not defined here (only for the empty classic board, backtrack engine, no --limit)"
                )?,
            }
        }
        writeln!(out, "{} ({})", report::summary(problem), run.work())?;
        if args.cross_check {
            writeln!(
                out,
                "cross-checked: the {} engine agrees",
                args.engine.other().name()
            )?;
        }
    }
    Ok(if run.count == 0 { 1 } else { 0 })
}

fn encode(
    out: &mut impl Write,
    problem: &Problem,
    encoding: Encoding,
    output: Option<PathBuf>,
) -> Result<u8, Failure> {
    let encoded = sat::encode_problem(problem, encoding, queens::cnf::FixedMode::Simplify);
    let header = vec![
        format!("queens CNF: {}", report::summary(problem)),
        format!(
            "encoding {encoding}; fixed queens simplified away; variables 1..={} are cells",
            encoded.map.cells().len()
        ),
        "decode a model with: queens decode INSTANCE MODEL".to_string(),
    ];
    match output {
        Some(path) => {
            let io = |e| {
                Failure::Error(Error::Io {
                    path: path.clone(),
                    source: e,
                })
            };
            let mut f = std::io::BufWriter::new(std::fs::File::create(&path).map_err(io)?);
            queens::dimacs::write_cnf(&mut f, &encoded, &header).map_err(io)?;
            f.flush().map_err(io)?;
            eprintln!(
                "wrote {}: {} vars, {} clauses",
                path.display(),
                encoded.stats.vars,
                encoded.stats.clauses
            );
        }
        None => queens::dimacs::write_cnf(out, &encoded, &header)?,
    }
    Ok(0)
}

fn decode(
    out: &mut impl Write,
    problem: &Problem,
    model: &std::path::Path,
    json: bool,
    color: bool,
) -> Result<u8, Failure> {
    let text = std::fs::read_to_string(model).map_err(|e| Error::Io {
        path: model.to_path_buf(),
        source: e,
    })?;
    let answer = queens::dimacs::parse_model(&model.display().to_string(), &text)?;
    // Cell variables do not depend on the encoding, only on the simplification, so only the
    // cell map is needed: encode into a counting sink (a linear encoding, nothing stored)
    // rather than building a formula that may have millions of clauses.
    let map = queens::cnf::encode(
        problem,
        Encoding::Seq,
        queens::cnf::FixedMode::Simplify,
        &mut queens::encode::Counter::default(),
    );
    let (status, queens_found, code) = match answer {
        queens::dimacs::ModelAnswer::Sat(true_vars) => {
            let set: std::collections::HashSet<usize> = true_vars.into_iter().collect();
            let q = map.decode(|l| set.contains(&(l.index() + 1)));
            if let Err(v) = verify(problem, &q) {
                return Err(Failure::Error(Error::Input {
                    origin: model.display().to_string(),
                    message: format!("the model does not decode to a valid board: {v}"),
                }));
            }
            ("sat", Some(q), 0)
        }
        queens::dimacs::ModelAnswer::Unsat => ("unsat", None, 1),
        queens::dimacs::ModelAnswer::Unknown => ("unknown", None, 1),
    };
    if json {
        writeln!(
            out,
            "{}",
            json!({"status": status, "queens": queens_found, "n": problem.n()})
        )?;
    } else {
        match &queens_found {
            Some(q) => {
                write!(out, "{}", report::board(problem, q, color))?;
                writeln!(out, "solved: the model decodes to a valid board")?;
            }
            None if status == "unsat" => {
                writeln!(out, "no solution: the solver reports UNSATISFIABLE")?
            }
            None => writeln!(out, "unknown: the solver gave no answer")?,
        }
    }
    Ok(code)
}

fn explain(
    out: &mut impl Write,
    problem: &Problem,
    encoding: Encoding,
    json: bool,
    color: bool,
) -> Result<u8, Failure> {
    let (exp, stats) = sat::explain(problem, encoding)?;
    match exp {
        sat::Explanation::Solvable(q) => {
            checked(problem, &q, "sat")?;
            if json {
                writeln!(
                    out,
                    "{}",
                    json!({"status": "sat", "queens": q, "solver_calls": stats.solver_calls})
                )?;
            } else {
                write!(out, "{}", report::board(problem, &q, color))?;
                writeln!(out, "solvable: nothing to explain (a solution is shown)")?;
            }
            Ok(0)
        }
        sat::Explanation::Unsolvable {
            core,
            blocked_core,
            reason,
        } => {
            if json {
                let obj = json!({
                    "status": "unsat",
                    "core": core,
                    "blocked_core": blocked_core,
                    "reason": reason,
                    "solver_calls": stats.solver_calls,
                });
                writeln!(out, "{obj}")?;
            } else {
                let shown = problem
                    .replace_fixed(&core)?
                    .replace_blocked(&blocked_core)?;
                write!(out, "{}", report::board(&shown, &core, color))?;
                let cells = |v: &[Pos]| {
                    v.iter()
                        .map(|&p| queens::model::cell(p))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                match &reason {
                    Some(r) => writeln!(out, "unsolvable: {r}")?,
                    None => writeln!(out, "unsolvable: these presets alone have no completion")?,
                }
                if !core.is_empty() {
                    writeln!(out, "minimal core: fixed queens {}", cells(&core))?;
                }
                if !blocked_core.is_empty() {
                    writeln!(out, "minimal core: blocked cells {}", cells(&blocked_core))?;
                }
                if !core.is_empty() || !blocked_core.is_empty() {
                    writeln!(out, "removing any one of them makes the rest completable")?;
                }
            }
            Ok(1)
        }
    }
}

fn check(out: &mut impl Write, problem: &Problem, json: bool, color: bool) -> Result<u8, Failure> {
    let queens = problem.fixed();
    let violations = conflicts(problem, queens);
    let (status, code) = if !violations.is_empty() {
        ("invalid", 1)
    } else if queens.len() == problem.n() {
        // No conflict among n queens (which are the file's fixed queens): a full solution.
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
                checked(problem, q, "backtrack")?;
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
                if completable == Some(true) {
                    "can be completed"
                } else {
                    "cannot be completed"
                }
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

/// Makes one instance (as JSON text) from a seed.
type Maker = Box<dyn Fn(u64) -> Result<String, Error>>;

fn generate(out: &mut impl Write, kind: GenerateKind) -> Result<u8, Failure> {
    let (opts, make): (&GenerateOut, Maker) = match &kind {
        GenerateKind::Completion { n, queens, out } => {
            let (n, m) = (*n, *queens);
            let make = move |seed| {
                let problem = generate::completion(n, m, seed)?;
                Ok(generate::write_json(
                    &problem,
                    &format!("completion-{n}-{m}-{seed}"),
                ))
            };
            (out, Box::new(make))
        }
        GenerateKind::Diagonals {
            n,
            min_free,
            first,
            out,
        } => {
            let (n, k, first) = (*n, *min_free, *first);
            Problem::new(n)?;
            let make = move |seed| {
                let list = generate::diagonals(n, k, seed);
                let d = first.unwrap_or(list.len());
                if d > list.len() {
                    return Err(Error::Unsupported(format!(
                        "--first {d}: seed {seed} gives a maximal list of only {} diagonals \
                         for n = {n}, K = {k}",
                        list.len()
                    )));
                }
                Ok(generate::write_diagonals_json(
                    n,
                    &list[..d],
                    &format!("diag-{n}-{k}-{seed}"),
                ))
            };
            (out, Box::new(make))
        }
        GenerateKind::Regions { n, out } => {
            let n = *n;
            let make = move |seed| {
                let problem = generate::regions(n, seed)
                    .map_err(|e| Error::Unsupported(format!("seed {seed}: {e}")))?;
                Ok(generate::write_json(
                    &problem,
                    &format!("regions-{n}-{seed}"),
                ))
            };
            (out, Box::new(make))
        }
    };
    if opts.count == 0 {
        return Err(Failure::Error(Error::Unsupported(
            "--count must be at least 1".into(),
        )));
    }
    // Several instances, or a `.jsonl` file (which every reader takes line by line), get one
    // object per line; a single instance keeps the writer's readable layout.
    let json_lines = opts.count > 1
        || opts
            .output
            .as_ref()
            .is_some_and(|p| p.extension().is_some_and(|e| e == "jsonl"));
    let mut text = String::new();
    for i in 0..opts.count {
        let seed = opts.seed.checked_add(i).ok_or_else(|| {
            Failure::Error(Error::Unsupported("--seed + --count overflows".into()))
        })?;
        let one = make(seed)?;
        if !json_lines {
            text = one;
        } else {
            // One object per line: the writer's own layout, joined.
            let line: Vec<&str> = one.lines().map(str::trim).collect();
            text += &line.join(" ");
            text.push('\n');
        }
    }
    match &opts.output {
        Some(path) => std::fs::write(path, text).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?,
        None => out.write_all(text.as_bytes())?,
    }
    Ok(0)
}

fn compare(out: &mut impl Write, args: CompareArgs) -> Result<u8, Failure> {
    let usage = |m: &str| Failure::Error(Error::Unsupported(m.to_string()));
    let timeout = match std::time::Duration::try_from_secs_f64(args.timeout) {
        Ok(t) if args.timeout > 0.0 && t <= std::time::Duration::from_secs(366 * 24 * 3600) => t,
        _ => {
            return Err(usage(
                "--timeout must be a positive number of seconds, at most a year",
            ))
        }
    };
    if args.plot.is_some() {
        cmp::check_plot(&args.engines)?;
    }
    if args.jobs == 0 {
        return Err(usage("--jobs must be at least 1"));
    }
    if args.take == Some(0) {
        return Err(usage("--take must be at least 1"));
    }
    if args.engines.is_empty() {
        return Err(usage("--engines needs at least one engine"));
    }
    let instances = sources::load(&args.inputs, &args.selection.get(args.take))?;
    if instances.is_empty() {
        return Err(usage(if args.selection.select.is_empty() {
            "no instances: the inputs are empty"
        } else {
            sources::NOTHING_SELECTED
        }));
    }
    // Fail on an unwritable output now, not after hours of attempts (and only once the
    // arguments and inputs are known to be good, so a typo does not empty an old file).
    for path in args.csv.iter().chain(&args.plot) {
        std::fs::File::create(path).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?;
    }
    let exe = std::env::current_exe().map_err(|e| Error::Io {
        path: "queens".into(),
        source: e,
    })?;
    let plan = cmp::Plan {
        exe,
        engines: args.engines.clone(),
        timeout,
        jobs: args.jobs,
    };
    let width = cmp::id_width(&instances);
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new((instances.len() * plan.engines.len()) as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg} [{bar:40}] {pos}/{len} attempts, {elapsed} (eta {eta})",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar
    });
    if !args.json {
        writeln!(out, "{}", cmp::table_header(&plan.engines, width))?;
    }
    let on_attempt = |inst: &sources::Instance, spec: EngineSpec| {
        if let Some(b) = &bar {
            b.set_message(format!("{} {spec}", inst.id));
            b.inc(1);
        }
    };
    // Workers hand finished rows to this thread, which owns stdout. When stdout fails (the
    // reader of `compare … | head` has gone), `stop` kills the running children and no more
    // attempts start: nobody is left to read them.
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (plan_ref, instances_ref, on_attempt_ref, stop_ref) =
        (&plan, &instances, &on_attempt, &stop);
    let (rows, cut_short) = std::thread::scope(|s| {
        let worker = s.spawn(move || {
            let tx = std::sync::Mutex::new(tx);
            let on_row = |row: &cmp::Row| {
                // The receiver lives until every row is in; a send cannot fail before that.
                let _ = tx.lock().expect("sender").send(cmp::table_line(row, width));
            };
            cmp::run(plan_ref, instances_ref, on_attempt_ref, &on_row, stop_ref)
        });
        let mut failed = None;
        loop {
            use std::sync::mpsc::RecvTimeoutError;
            let text = match rx.recv_timeout(std::time::Duration::from_millis(200)) {
                Ok(text) => text,
                Err(RecvTimeoutError::Disconnected) => break,
                // Between rows, which may be minutes apart: has the reader gone?
                Err(RecvTimeoutError::Timeout) => {
                    if failed.is_none() && stdout_reader_gone() {
                        stop.store(true, std::sync::atomic::Ordering::Relaxed);
                        failed = Some(std::io::ErrorKind::BrokenPipe.into());
                    }
                    continue;
                }
            };
            if args.json || failed.is_some() {
                continue;
            }
            let res = match &bar {
                Some(b) => b.suspend(|| writeln!(out, "{text}").and_then(|_| out.flush())),
                None => writeln!(out, "{text}"),
            };
            if let Err(e) = res {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                failed = Some(e);
            }
        }
        let rows = worker.join().expect("the comparison thread does not panic");
        (rows, failed)
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    // Cut short, stdout takes nothing more, but the rows finished by then still go to the
    // CSV and plot, and their disagreements and failures are still reported.
    if cut_short.is_none() {
        let summary = cmp::summarize(&plan.engines, &rows);
        if args.json {
            writeln!(out, "{}", cmp::to_json(&plan, &rows, &summary))?;
        } else {
            writeln!(out)?;
            write!(out, "{}", cmp::summary_text(&plan, &summary))?;
        }
        out.flush()?;
    }
    // After the results are shown, so a file that cannot be written loses nothing on screen.
    if let Some(path) = &args.csv {
        std::fs::write(path, cmp::csv(&rows)).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?;
    }
    if let Some(path) = &args.plot {
        cmp::plot(path, &plan, &rows)?;
    }
    let problems = cmp::problems(&rows);
    for p in &problems {
        eprintln!("queens: {p}");
    }
    match cut_short {
        _ if !problems.is_empty() => Ok(3),
        // A reader that left is no error (exit 0); a stdout that failed otherwise is.
        Some(e) => Err(e.into()),
        None => Ok(0),
    }
}

/// True when stdout is a pipe whose read end has closed (`queens compare … | head` after
/// `head` exits). Writing would fail with EPIPE; polling tells without writing.
#[cfg(unix)]
fn stdout_reader_gone() -> bool {
    use rustix::event::{poll, PollFd, PollFlags};
    let stdout = std::io::stdout();
    let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
    // A zero timeout: just look. POLLERR is reported for a pipe with no readers left.
    let zero = rustix::event::Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    poll(&mut fds, Some(&zero)).is_ok_and(|k| k > 0)
        && fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP)
}

#[cfg(not(unix))]
fn stdout_reader_gone() -> bool {
    false
}
