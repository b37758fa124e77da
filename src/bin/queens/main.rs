//! The `queens` command line: parses arguments, asks the operations layer ([`queens::ops`]),
//! prints the answer and exits with its code.
//!
//! Exit codes: 0 yes (a solution, a positive count, a board without conflict); 1 proven no
//! (or a board that breaks a rule); 2 bad input or usage; 3 an internal check failed; 4 no
//! answer within the limits (`--timeout`, a count stopped by `--limit`, `s UNKNOWN`).

mod args;
mod batch;
mod collection;
mod compare;
mod limits;
mod mod2;
mod output;
mod print;
mod progress;
mod threshold;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};

use queens::encode::amo::Encoding;
use queens::formats::sources;
use queens::ops::shard::Shard;
use queens::ops::{
    self, Artifacts, CheckRequest, Context, CountRequest, DecodeRequest, EncodeRequest, EngineName,
    ExplainRequest, GenerateRequest, GradeRequest, HintRequest, Instance, Member, Operation,
    ProofInfo, Request, SolveRequest, Status,
};
use queens::proof::ProofFormat;
use queens::{formats, Error, Problem};

use args::{engine_choice, CompareArgs, EngineChoice, SelectionArgs, SolverArgs, Timeout};
use limits::Limits;
use output::{to_json, write_atomically, Failure};
use print::Text;

// See Cargo.toml: the service allocates from many threads at once.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
        /// Solve a region puzzle as a player would: print the whole logical path, each step
        /// with its technique and reason (see `hint`), and the grade.
        #[arg(long, conflicts_with_all = ["all", "limit", "proof"])]
        steps: bool,
        #[command(flatten)]
        engine: EngineArgs,
        #[command(flatten)]
        solvers: SolverArgs,
        #[command(flatten)]
        proof: ProofArgs,
        #[command(flatten)]
        timeout: Timeout,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Seed of the local search (engines local and auto): the same seed gives the same
        /// solution.
        #[arg(long, value_name = "S")]
        seed: Option<u64>,
        /// Write the solution to OUT as one column per row (line r + 1 holds the column of
        /// row r, 0-based) instead of drawing the board; `check FILE --board OUT` reads it
        /// back. Boards past 100,000 rows are only written this way.
        #[arg(short, long, value_name = "OUT", conflicts_with_all = ["all", "limit"])]
        output: Option<PathBuf>,
    },
    /// Count solutions (on all cores).
    Count {
        #[command(flatten)]
        input: Input,
        /// Stop counting at K (`--limit 2` asks "is the solution unique?"); a count that
        /// reaches K is a lower bound (exit 4).
        #[arg(long, value_name = "K")]
        limit: Option<u64>,
        /// Also count solutions distinct up to rotation and reflection (empty classic board).
        #[arg(long)]
        unique: bool,
        /// Count only shard I of N (0-based) of the search tree's subproblems; `queens merge`
        /// sums the N answers (saved with --json or -o) into the count.
        #[arg(long, value_name = "I/N", conflicts_with_all = ["limit", "cross_check"])]
        shard: Option<Shard>,
        #[command(flatten)]
        engine: EngineArgs,
        #[command(flatten)]
        solvers: SolverArgs,
        #[command(flatten)]
        timeout: Timeout,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Write the JSON answer to OUT instead of printing it (written in full, then renamed
        /// into place, so a killed run leaves no half-written shard).
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Write the SAT encoding as DIMACS CNF, with comment lines mapping cell variables.
    Encode {
        #[command(flatten)]
        input: Input,
        /// At-most-one encoding: pairwise, seq, commander, product, bimander, auto.
        #[arg(long, default_value = "auto")]
        encoding: Encoding,
        /// Add the ring bounds (`queens rings`) as redundant cardinality constraints.
        #[arg(long)]
        rings: bool,
        /// Write to this file instead of stdout.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// How many queens each concentric ring of an n-queens solution can hold (ring 0 is the
    /// border), with the 2021 subpanel paper's table for n = 8 beside ours.
    Rings {
        /// Board size.
        #[arg(long)]
        n: usize,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Read an external solver's model for FILE's encoding, verify it and print the board.
    Decode {
        /// The instance the CNF was made from.
        file: PathBuf,
        /// The solver's output (`s SATISFIABLE` + `v … 0` lines, or a bare literal list), or -
        /// for stdin.
        model: PathBuf,
        /// The at-most-one encoding the CNF was made with (as `encode --encoding`): it fixes
        /// the CNF's variables, and a model literal beyond them is refused.
        #[arg(long, default_value = "auto")]
        encoding: Encoding,
        /// The CNF has the ring bounds (`encode --rings`).
        #[arg(long)]
        rings: bool,
        /// The CNF the solver ran on: its `p cnf` line gives the variables (instead of
        /// --encoding and --rings).
        #[arg(long, value_name = "CNF", conflicts_with_all = ["encoding", "rings"])]
        cnf: Option<PathBuf>,
        #[command(flatten)]
        selection: SelectionArgs,
        #[command(flatten)]
        timeout: Timeout,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// How hard a region puzzle is for a player who reasons: easy, medium, hard or expert,
    /// from the hardest technique its logical path needs (docs/puzzles.md, "Grades").
    Grade {
        /// Instance file (text grid or JSON), or - for stdin.
        file: PathBuf,
        #[command(flatten)]
        selection: SelectionArgs,
        #[command(flatten)]
        timeout: Timeout,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The next logical step for a region puzzle position (the file's queens and `marks:`),
    /// with the technique, the cells and a reason a player understands.
    Hint {
        /// Instance file (text grid or JSON), or - for stdin.
        file: PathBuf,
        #[command(flatten)]
        selection: SelectionArgs,
        #[command(flatten)]
        timeout: Timeout,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Explain why a completion has no solution: a minimal set of presets (fixed queens,
    /// blocked cells, excluded diagonals) that already has none, optionally certified.
    Explain {
        /// Instance file (text grid or JSON), or - for stdin.
        file: PathBuf,
        #[command(flatten)]
        selection: SelectionArgs,
        /// backtrack (drop one preset at a time and search again; minimises every kind of
        /// preset) or sat (failed assumptions; fixed queens and blocked cells only).
        #[arg(long, value_enum, default_value_t = EngineName::Backtrack)]
        engine: EngineName,
        /// At-most-one encoding (SAT engine, and the proof's CNF): pairwise, seq,
        /// commander, product, bimander, auto.
        #[arg(long, default_value = "auto")]
        encoding: Encoding,
        #[command(flatten)]
        proof: ProofArgs,
        #[command(flatten)]
        timeout: Timeout,
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
    /// Solve shard I/N of a corpus (instances dealt by content hash), one verified result
    /// line per instance; for Slurm arrays and Kubernetes Indexed Jobs
    /// (docs/batch-and-clusters.md, "Batch runs and shards").
    Batch(batch::BatchArgs),
    /// Merge batch shard files (missing and conflicting answers reported), or sum count
    /// shards (refused unless all are there).
    Merge(batch::MergeArgs),
    /// Internal: run the operations request (JSON) on stdin and print its reply (what an
    /// operation under a deadline runs in a child process, killed at the deadline).
    #[command(hide = true)]
    Op {
        /// Write the reply's files (a proof and its CNF) into this folder.
        #[arg(long, value_name = "DIR")]
        artifacts: Option<PathBuf>,
        /// The parent's memory limit, in bytes.
        #[arg(long, value_name = "BYTES")]
        max_memory: Option<u64>,
        /// Milliseconds left before the parent's deadline.
        #[arg(long, value_name = "MS")]
        timeout_ms: Option<u64>,
        #[command(flatten)]
        solvers: SolverArgs,
    },
    /// Run the HTTP service: JSON endpoints, jobs, health and metrics (docs/service.md).
    Serve(queens::server::ServeArgs),
    /// The mod-2 n-queens game: check a board, replay moves, solve the game, and
    /// the most queens / fewest locked queens with proofs.
    Mod2 {
        #[command(subcommand)]
        command: mod2::Mod2Command,
    },
    /// The n-queens completion threshold (OEIS A374013) with a certificate, or its check.
    Threshold(threshold::ThresholdArgs),
    /// The Queen's Collection card game, solo: seeded deals, play a deal with a
    /// move list or a policy, and simulate policies over many deals.
    Collection {
        #[command(subcommand)]
        command: collection::CollectionCommand,
    },
    /// Check the queens given in FILE against the rules and name every conflict.
    Check {
        /// Instance file (text grid or JSON), or - for stdin.
        file: PathBuf,
        #[command(flatten)]
        selection: SelectionArgs,
        #[command(flatten)]
        timeout: Timeout,
        /// Also list the empty cells the queens rule out.
        #[arg(long)]
        hints: bool,
        /// Also count the ways the board can still be completed, up to K.
        #[arg(long, value_name = "K")]
        completions: Option<u64>,
        /// Check this full board, one column per row (what `solve -o` writes), against FILE's
        /// rules and presets, in time linear in n.
        #[arg(long, value_name = "SOLUTION", conflicts_with_all = ["hints", "completions"])]
        board: Option<PathBuf>,
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
    fn load(&self) -> Result<Instance, Error> {
        match (&self.file, self.n) {
            (Some(path), _) => load_one(path, &self.selection),
            (None, Some(n)) => Ok(Instance(Problem::sized(n)?)),
            (None, None) => unreachable!("clap requires FILE or --n"),
        }
    }
}

fn load_one(path: &Path, selection: &SelectionArgs) -> Result<Instance, Error> {
    Ok(Instance(
        sources::load_one(path, &selection.get(None))?.problem,
    ))
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
        /// Where the fixed queens come from: random (non-attacking random cells, which may
        /// leave no completion) or solution (rows of a random solution: always completable).
        #[arg(long, value_enum, default_value_t = Presets::Random)]
        presets: Presets,
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
        /// Keep only the first D diagonals of the list (default: all, up to n = 4096; past
        /// 4096, D is needed and at most n − K).
        #[arg(long, value_name = "D")]
        first: Option<usize>,
        #[command(flatten)]
        out: GenerateOut,
    },
    /// A region Queens puzzle with exactly one solution (checked by the backtracker) and
    /// connected regions.
    Regions {
        /// Board size (1 and 4 to 32).
        #[arg(long)]
        n: usize,
        /// Only puzzles of this grade (as `queens grade` defines it).
        #[arg(long, value_enum)]
        difficulty: Option<Difficulty>,
        #[command(flatten)]
        out: GenerateOut,
    },
}

/// Where `generate completion` takes its fixed queens from.
#[derive(Clone, Copy, ValueEnum)]
enum Presets {
    /// Non-attacking random cells (Gent, Jefferson & Nightingale).
    Random,
    /// Random rows of a random solution.
    Solution,
}

/// A puzzle grade for `generate regions --difficulty`.
#[derive(Clone, Copy, ValueEnum)]
enum Difficulty {
    Easy,
    Medium,
    Hard,
    Expert,
}

impl Difficulty {
    fn grade(self) -> queens::puzzle::grade::Grade {
        use queens::puzzle::grade::Grade;
        match self {
            Difficulty::Easy => Grade::Easy,
            Difficulty::Medium => Grade::Medium,
            Difficulty::Hard => Grade::Hard,
            Difficulty::Expert => Grade::Expert,
        }
    }
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
    #[command(flatten)]
    timeout: Timeout,
}

#[derive(Args)]
struct ProofArgs {
    /// When the answer is UNSAT, write a proof of it here (checked by the
    /// built-in checker before the answer is printed).
    #[arg(long, value_name = "P")]
    proof: Option<PathBuf>,
    /// Proof format: lrat (the default; the backtracker writes it with its own hints and
    /// checks it as it writes), binary-lrat (the same, a third of the size; cake_lpr reads
    /// it), drat or binary-drat.
    #[arg(long, value_name = "F", default_value = "lrat", requires = "proof")]
    proof_format: ProofFormat,
    /// Where to write the exact CNF the proof refutes (default: the proof path + `.cnf`).
    #[arg(long, value_name = "C", requires = "proof")]
    cnf: Option<PathBuf>,
}

impl ProofArgs {
    /// Writes the proof and the CNF it refutes (the answer's artifacts, present on UNSAT)
    /// where the user asked, and names them in the answer.
    fn write(&self, info: &mut Option<ProofInfo>, artifacts: &Artifacts) -> Result<(), Error> {
        let (Some(path), Some(info)) = (&self.proof, info) else {
            return Ok(());
        };
        let cnf = self.cnf.clone().unwrap_or_else(|| {
            let mut p = path.clone().into_os_string();
            p.push(".cnf");
            p.into()
        });
        for (name, to) in [("proof", path), ("cnf", &cnf)] {
            if name == "proof" && artifacts.get(name).is_none() && info.path.is_some() {
                // Written there already, as the search ran.
                continue;
            }
            let bytes = artifacts.get(name).ok_or_else(|| {
                Error::internal(format!("the UNSAT answer came without its {name}"))
            })?;
            std::fs::write(to, bytes).map_err(|e| Error::Io {
                path: to.clone(),
                source: e,
            })?;
        }
        info.path = Some(path.display().to_string());
        info.cnf = Some(cnf.display().to_string());
        Ok(())
    }
}

#[derive(Args, Clone, Copy)]
struct EngineArgs {
    /// Which engine answers: auto (the default for solve), backtrack (the default for
    /// count), sat, race, local, or ext:SOLVER (an external SAT solver, e.g. ext:cadical; see
    /// --solver).
    #[arg(long, value_parser = engine_choice, value_name = "ENGINE")]
    engine: Option<EngineChoice>,
    /// At-most-one encoding for the SAT engine: pairwise, seq, commander, product, bimander, auto.
    #[arg(long, default_value = "auto")]
    encoding: Encoding,
    /// With ext:SOLVER: add the ring bounds (`queens rings`) to its CNF as redundant
    /// cardinality constraints.
    #[arg(long)]
    rings: bool,
    /// Also run the other engine and fail (exit 3, both answers shown) if they disagree.
    #[arg(long)]
    cross_check: bool,
}

impl EngineArgs {
    /// The engine, the encoding, the external solver and the ring flag of a request (an
    /// encoding or `+rings` written into `ext:…` counts as given).
    fn request(
        &self,
        default: EngineName,
    ) -> (
        EngineName,
        Encoding,
        Option<queens::engine::ext::ExtName>,
        bool,
    ) {
        match self.engine.and_then(|c| c.ext) {
            Some(x) => (
                EngineName::Ext,
                if x.encoding == Encoding::Auto {
                    self.encoding
                } else {
                    x.encoding
                },
                Some(x.solver),
                x.rings || self.rings,
            ),
            None => (
                self.engine.map_or(default, |c| c.engine),
                self.encoding,
                None,
                self.rings,
            ),
        }
    }
}

fn main() -> ExitCode {
    let started = Instant::now();
    let cli = Cli::parse();
    // Ctrl-C, SIGTERM and SIGHUP take this process's children (solvers, workers) with it;
    // the service stops its own through its shutdown, which hands jobs back first.
    if !matches!(cli.command, Command::Serve(_)) {
        queens::child::stop_children_on_signals();
    }
    match run(cli, started) {
        Ok(code) => ExitCode::from(code),
        Err(Failure::Error(e)) => {
            match &e {
                Error::Internal { .. } => eprintln!("queens: internal check failed: {e}"),
                _ => eprintln!("queens: error: {e}"),
            }
            ExitCode::from(e.exit_code())
        }
        // Output closed early (e.g. piped into `head`): not an error.
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
    }
}

fn run(cli: Cli, started: Instant) -> Result<u8, Failure> {
    let mut out = std::io::stdout().lock();
    let limits = |t: Timeout| Limits::new(started, t);
    let style = |t: Timeout| print::Style {
        color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        timeout: t.timeout,
    };
    match cli.command {
        Command::Solve {
            input,
            steps: true,
            timeout,
            json,
            ..
        } => {
            let req = ops::Grade::wrap(GradeRequest {
                instance: input.load()?,
                steps: true,
            });
            let (resp, _) = limits(timeout).run::<ops::Grade>(&req, None)?;
            answer::<ops::Grade>(&mut out, &req, resp, json, &style(timeout))
        }
        Command::Solve {
            input,
            all,
            limit,
            engine,
            solvers,
            proof,
            timeout,
            json,
            seed,
            output,
            ..
        } => {
            solvers.configure()?;
            let (engine_name, encoding, solver, rings) = engine.request(EngineName::Auto);
            let req = ops::Solve::wrap(SolveRequest {
                instance: input.load()?,
                engine: engine_name,
                encoding,
                all,
                limit,
                cross_check: engine.cross_check,
                timeout_ms: None,
                proof: proof.proof.is_some().then_some(proof.proof_format),
                threads: None,
                solver,
                rings,
                seed,
                learned: false,
            });
            let bar = progress::bar("solving", "rows without a conflict");
            let ran = limits(timeout)
                .proof_to(proof.proof.clone())
                .run::<ops::Solve>(&req, bar.as_ref());
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            let (mut resp, artifacts) = ran?;
            proof.write(&mut resp.proof, &artifacts)?;
            write_solution(&mut resp, &artifacts, output.as_deref())?;
            answer::<ops::Solve>(&mut out, &req, resp, json, &style(timeout))
        }
        Command::Count {
            input,
            limit,
            unique,
            shard,
            engine,
            solvers,
            timeout,
            json,
            output,
        } => {
            solvers.configure()?;
            let (engine_name, encoding, solver, rings) = engine.request(EngineName::Backtrack);
            let req = ops::Count::wrap(CountRequest {
                instance: input.load()?,
                engine: engine_name,
                encoding,
                limit,
                unique,
                cross_check: engine.cross_check,
                timeout_ms: None,
                shard,
                solver,
                rings,
            });
            let bar = progress::bar("counting", "subtrees");
            let ran = limits(timeout).run::<ops::Count>(&req, bar.as_ref());
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            let resp = ran?.0;
            if let Some(path) = output {
                write_atomically(&path, format!("{}\n", to_json(&resp)?).as_bytes())?;
                return Ok(ops::Count::exit_code(&resp));
            }
            answer::<ops::Count>(&mut out, &req, resp, json, &style(timeout))
        }
        Command::Encode {
            input,
            encoding,
            rings,
            output,
        } => {
            let req = EncodeRequest {
                instance: input.load()?,
                encoding,
                rings,
            };
            let mut ctx = Context::default();
            ctx.budget.max_memory = Some(queens::engine::default_max_memory());
            let resp = ops::encode(&req, &ctx)?;
            match output {
                Some(path) => {
                    std::fs::write(&path, &resp.dimacs).map_err(|e| Error::Io {
                        path: path.clone(),
                        source: e,
                    })?;
                    eprintln!(
                        "wrote {}: {} vars, {} clauses",
                        path.display(),
                        resp.vars,
                        resp.clauses
                    );
                }
                None => out.write_all(resp.dimacs.as_bytes())?,
            }
            Ok(0)
        }
        Command::Decode {
            file,
            model,
            encoding,
            rings,
            cnf,
            selection,
            timeout,
            json,
        } => {
            let stdin = Path::new("-");
            if file == stdin && model == stdin {
                return Err(Error::unsupported(
                    "FILE and MODEL cannot both be - (stdin): give one of them as a file".into(),
                )
                .into());
            }
            let instance = load_one(&file, &selection)?;
            let (origin, text) = formats::read_text(&model)?;
            let vars = match &cnf {
                Some(path) => {
                    let (cnf_origin, cnf_text) = formats::read_text(path)?;
                    Some(formats::dimacs::header_vars(&cnf_origin, &cnf_text)?)
                }
                None => None,
            };
            let req = ops::Decode::wrap(DecodeRequest {
                instance,
                model: text,
                model_origin: Some(origin),
                encoding,
                rings,
                vars,
            });
            let (resp, _) = limits(timeout).run::<ops::Decode>(&req, None)?;
            answer::<ops::Decode>(&mut out, &req, resp, json, &style(timeout))
        }
        Command::Grade {
            file,
            selection,
            timeout,
            json,
        } => {
            let req = ops::Grade::wrap(GradeRequest {
                instance: load_one(&file, &selection)?,
                steps: false,
            });
            let (resp, _) = limits(timeout).run::<ops::Grade>(&req, None)?;
            answer::<ops::Grade>(&mut out, &req, resp, json, &style(timeout))
        }
        Command::Hint {
            file,
            selection,
            timeout,
            json,
        } => {
            let req = ops::Hint::wrap(HintRequest {
                instance: load_one(&file, &selection)?,
            });
            let (resp, _) = limits(timeout).run::<ops::Hint>(&req, None)?;
            answer::<ops::Hint>(&mut out, &req, resp, json, &style(timeout))
        }
        Command::Explain {
            file,
            selection,
            engine,
            encoding,
            proof,
            timeout,
            json,
        } => {
            let req = ops::Explain::wrap(ExplainRequest {
                instance: load_one(&file, &selection)?,
                engine,
                encoding,
                proof: proof.proof.is_some().then_some(proof.proof_format),
                timeout_ms: None,
            });
            let (mut resp, artifacts) = limits(timeout)
                .proof_to(proof.proof.clone())
                .run::<ops::Explain>(&req, None)?;
            proof.write(&mut resp.proof, &artifacts)?;
            answer::<ops::Explain>(&mut out, &req, resp, json, &style(timeout))
        }
        Command::Check {
            file,
            selection,
            timeout,
            hints,
            completions,
            json,
            board,
        } => {
            if let Some(board) = board {
                let instance = load_one(&file, &selection)?;
                let (origin, bytes) = read_bytes(&board)?;
                let cols = formats::columns::read(&origin, &bytes)?;
                drop(bytes);
                let resp = ops::check_columns(&instance.0, &cols);
                let req = ops::Check::wrap(CheckRequest {
                    instance,
                    queens: Vec::new(),
                    timeout_ms: None,
                    hints: false,
                    completions: None,
                });
                return answer::<ops::Check>(&mut out, &req, resp, json, &style(timeout));
            }
            let req = ops::Check::wrap(CheckRequest {
                instance: load_one(&file, &selection)?,
                queens: Vec::new(),
                timeout_ms: None,
                hints,
                completions,
            });
            let (resp, _) = limits(timeout).run::<ops::Check>(&req, None)?;
            answer::<ops::Check>(&mut out, &req, resp, json, &style(timeout))
        }
        Command::Generate { kind } => generate(&mut out, kind, started),
        Command::Mod2 { command } => mod2::run(&mut out, command, started),
        Command::Threshold(args) => threshold::run(&mut out, args, started),
        Command::Collection { command } => collection::run(&mut out, command, started),
        Command::Compare(args) => {
            args.solvers.configure()?;
            compare::run(&mut out, args)
        }
        Command::Rings { n, json } => rings(&mut out, n, json),
        Command::Batch(args) => batch::run_batch(&mut out, args),
        Command::Merge(args) => batch::run_merge(&mut out, args),
        Command::Serve(args) => {
            let config = args.config()?;
            tracing_subscriber::fmt()
                .with_env_filter(
                    tracing_subscriber::EnvFilter::try_from_default_env()
                        .unwrap_or_else(|_| "queens=info,tower_http=warn".into()),
                )
                .with_writer(std::io::stderr)
                .init();
            queens::server::serve(config)?;
            Ok(0)
        }
        // The child's side of ops::Request::run (stdout's lock is reentrant).
        Command::Op {
            artifacts,
            max_memory,
            timeout_ms,
            solvers,
        } => {
            solvers.configure()?;
            Ok(ops::child_main(
                artifacts.as_deref(),
                max_memory,
                timeout_ms,
            ))
        }
    }
}

/// `queens rings`: the bounds of every ring, with the paper's n = 8 table beside ours.
fn rings(out: &mut impl Write, n: usize, json: bool) -> Result<u8, Failure> {
    use queens::encode::rings::{bounds, PAPER_N8};
    if n == 0 || n > queens::model::MAX_N {
        return Err(
            Error::unsupported(format!("--n must be from 1 to {}", queens::model::MAX_N)).into(),
        );
    }
    let b = bounds(n);
    let paper = |k: usize| (n == 8).then(|| PAPER_N8[k]);
    if json {
        let rings: Vec<serde_json::Value> = b
            .iter()
            .map(|r| {
                let mut v = serde_json::json!({
                    "ring": r.ring, "cells": r.cells, "min": r.min, "max": r.max,
                });
                if let Some((_, lo, hi)) = paper(r.ring) {
                    v["paper"] = serde_json::json!({"min": lo, "max": hi});
                }
                v
            })
            .collect();
        writeln!(out, "{}", serde_json::json!({"n": n, "rings": rings}))?;
        return Ok(0);
    }
    writeln!(
        out,
        "ring  cells  min  max{}",
        if n == 8 { "   paper (2021)" } else { "" }
    )?;
    for r in &b {
        let p = paper(r.ring).map_or(String::new(), |(_, lo, hi)| format!("   {lo}–{hi}"));
        writeln!(
            out,
            "{:>4}  {:>5}  {:>3}  {:>3}{p}",
            r.ring, r.cells, r.min, r.max
        )?;
    }
    writeln!(
        out,
        "ring 0 is the border; the counts of a solution sum to {n} (bounds: docs/sat-solvers.md)"
    )?;
    Ok(0)
}

/// Prints the answer of operation `O` to `req`, as the operation's JSON (byte for byte what
/// the service sends) or as text, and returns its exit code.
fn answer<O: Text>(
    out: &mut impl Write,
    req: &Request,
    resp: O::Response,
    json: bool,
    style: &print::Style,
) -> Result<u8, Failure> {
    let code = O::exit_code(&resp);
    if json {
        writeln!(out, "{}", to_json(&resp)?)?;
    } else {
        let req = O::request(req).ok_or_else(|| {
            Error::internal(format!("{} was asked another operation's request", O::NAME))
        })?;
        O::text(out, req, &resp, style)?;
    }
    Ok(code)
}

/// Writes a solve's solution as one column per row: to `output` when given (from the
/// `solution` artifact of a big board, or the inline queens), naming the file in the answer.
/// A big board's solution without `-o` is not printed: the answer says how to get it.
fn write_solution(
    r: &mut ops::SolveResponse,
    artifacts: &Artifacts,
    output: Option<&Path>,
) -> Result<(), Error> {
    let Some(path) = output else {
        return Ok(());
    };
    let text = match (artifacts.get("solution"), &r.queens) {
        (Some(bytes), _) => std::borrow::Cow::Borrowed(bytes),
        (None, Some(q)) => {
            let mut cols = vec![0u32; q.len()];
            for &(row, c) in q {
                cols[row] = c as u32;
            }
            std::borrow::Cow::Owned(formats::columns::write(&cols))
        }
        (None, None) => return Ok(()),
    };
    write_atomically(path, &text)?;
    r.solution_path = Some(path.display().to_string());
    Ok(())
}

/// A file's bytes (or stdin's for `-`) and the name errors use for it.
fn read_bytes(path: &Path) -> Result<(String, Vec<u8>), Error> {
    let io = |e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map_err(io)?;
        return Ok(("<stdin>".into(), bytes));
    }
    Ok((path.display().to_string(), std::fs::read(path).map_err(io)?))
}

fn generate(out: &mut impl Write, kind: GenerateKind, started: Instant) -> Result<u8, Failure> {
    let difficulty = match &kind {
        GenerateKind::Regions { difficulty, .. } => difficulty.map(Difficulty::grade),
        _ => None,
    };
    let presets = match &kind {
        GenerateKind::Completion {
            presets: Presets::Solution,
            ..
        } => Some(ops::PresetSource::Solution),
        _ => None,
    };
    let (kind, n, queens, min_free, first, opts) = match kind {
        GenerateKind::Completion { n, queens, out, .. } => (
            ops::GenerateKind::Completion,
            n,
            Some(queens),
            None,
            None,
            out,
        ),
        GenerateKind::Diagonals {
            n,
            min_free,
            first,
            out,
        } => (
            ops::GenerateKind::Diagonals,
            n,
            None,
            Some(min_free),
            first,
            out,
        ),
        GenerateKind::Regions { n, out, .. } => {
            (ops::GenerateKind::Regions, n, None, None, None, out)
        }
    };
    if opts.count == 0 {
        return Err(Error::unsupported("--count must be at least 1".into()).into());
    }
    let limits = Limits::new(started, opts.timeout);
    // One request makes at most MAX_GENERATE_COUNT instances (a limit for the service); a
    // corpus written here may be larger, so it is asked for in pieces.
    let mut instances = Vec::new();
    let (mut seed, mut left) = (opts.seed, opts.count);
    let mut status = Status::Sat;
    while left > 0 && status == Status::Sat {
        let count = left.min(ops::MAX_GENERATE_COUNT);
        let req = ops::Generate::wrap(GenerateRequest {
            kind,
            n,
            queens,
            min_free,
            first,
            seed,
            count,
            difficulty,
            presets,
        });
        let part = limits.run::<ops::Generate>(&req, None)?.0;
        instances.extend(part.instances);
        status = part.status;
        left -= count;
        if left > 0 {
            seed = seed
                .checked_add(count)
                .ok_or_else(|| Error::unsupported_at_field("seed", "seed + count overflows"))?;
        }
    }
    // Several instances, or a `.jsonl` file (which every reader takes line by line), get one
    // object per line; a single instance keeps the writer's readable layout.
    let json_lines = opts.count > 1
        || opts
            .output
            .as_ref()
            .is_some_and(|p| p.extension().is_some_and(|e| e == "jsonl"));
    let text = print::instances(&instances, json_lines);
    match &opts.output {
        Some(path) => std::fs::write(path, text).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?,
        None => out.write_all(text.as_bytes())?,
    }
    if status != Status::Sat {
        eprintln!(
            "queens: {}: {} of {} instances made",
            print::no_answer(status, opts.timeout.timeout),
            instances.len(),
            opts.count
        );
    }
    Ok(status.exit_code())
}
