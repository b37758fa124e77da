//! The arguments several commands share: which records of a corpus, `--timeout` and
//! `--max-memory`, `compare`'s arguments (which `batch` and `merge` reuse in part), the
//! external solvers, `--engine` with its encoding, and where a proof goes.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use queens::encode::amo::Encoding;
use queens::formats::sources::Selection;
use queens::ops::compare::EngineSpec;
use queens::ops::{Artifacts, EngineName, ProofInfo};
use queens::proof::ProofFormat;
use queens::Error;

/// Which records of a corpus to use, and which prefix of their lists.
#[derive(Args)]
pub(crate) struct SelectionArgs {
    /// Keep instances whose FIELD equals VALUE (repeatable): `--select n=21`. JSON records
    /// and files offer their fields; text grids and CSPLib files their `id` (file name) and `n`.
    #[arg(long, value_name = "FIELD=VALUE", value_parser = Selection::parse_filter)]
    pub(crate) select: Vec<(String, String)>,
    /// Use only the first D excluded diagonals (and fixed queens) of each instance, as CSPLib
    /// prob079 defines its instances.
    #[arg(long, value_name = "D")]
    pub(crate) first: Option<usize>,
}

impl SelectionArgs {
    pub(crate) fn get(&self, take: Option<usize>) -> Selection {
        Selection {
            filters: self.select.clone(),
            first: self.first,
            take,
        }
    }
}

/// `--timeout SECS` of the commands that answer one question.
#[derive(Args, Clone, Copy, Default)]
pub(crate) struct Timeout {
    /// Give up after SECS seconds (counted from the start of the command): print what was
    /// found so far and exit 4. A SAT solver that cannot stop by itself runs in a child
    /// process, killed at the limit.
    #[arg(long, value_name = "SECS", value_parser = seconds)]
    pub(crate) timeout: Option<Duration>,
    /// Refuse SAT work whose estimated memory is over MB megabytes, before allocating it
    /// (default: half the smallest of this machine's memory, the cgroup's limit and
    /// `ulimit -v`).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_memory: Option<u64>,
}

/// A number of seconds for `--timeout`: positive, finite, at most a year.
pub(crate) fn seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    match Duration::try_from_secs_f64(secs) {
        Ok(t) if secs > 0.0 && t <= Duration::from_secs(366 * 24 * 3600) => Ok(t),
        _ => Err("must be a positive number of seconds, at most a year".into()),
    }
}

/// `queens compare`'s arguments.
#[derive(Args)]
pub(crate) struct CompareArgs {
    /// Instance files, folders (every file inside) or JSON-lines corpora.
    #[arg(required = true, value_name = "INPUT")]
    pub(crate) inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) selection: SelectionArgs,
    /// Use at most K instances.
    #[arg(long, value_name = "K")]
    pub(crate) take: Option<usize>,
    /// Comma-separated engines: backtrack (all cores), backtrack:THREADS, sat:ENCODING, race,
    /// ext:SOLVER[:ENCODING][+rings] (an external SAT solver). The first is the reference for
    /// ratios and the x axis of --plot.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "backtrack,sat:auto",
        value_name = "LIST"
    )]
    pub(crate) engines: Vec<EngineSpec>,
    /// Seconds each attempt may run before it is killed and reported as a timeout.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = seconds)]
    pub(crate) timeout: Duration,
    /// Instances run at the same time (1 keeps timings clean; engines of one instance always
    /// run one after the other).
    #[arg(long, value_name = "J", default_value_t = 1)]
    pub(crate) jobs: usize,
    /// Also write one CSV line per attempt here.
    #[arg(long, value_name = "FILE")]
    pub(crate) csv: Option<PathBuf>,
    /// Write an SVG log-log scatter of each engine's time against the first engine's.
    #[arg(long, value_name = "FILE.svg")]
    pub(crate) plot: Option<PathBuf>,
    /// Print one JSON object (every attempt and the summary) instead of the table.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also print per engine and n: median time, share solved within the limit, and the
    /// fitted growth rate b of time ≈ a·bⁿ with its spread (in the JSON as `growth`).
    #[arg(long)]
    pub(crate) growth: bool,
    /// Write an SVG of each engine's median time against n (implies --growth).
    #[arg(long, value_name = "FILE.svg")]
    pub(crate) growth_plot: Option<PathBuf>,
    /// Use the first round(R·n) excluded diagonals (and fixed queens) of each instance, n
    /// its board size: CSPLib prob079's instances at one ratio d/n across sizes.
    #[arg(long, value_name = "R", conflicts_with = "first")]
    pub(crate) first_ratio: Option<f64>,
    /// Use at most K instances of each board size (in input order).
    #[arg(long, value_name = "K")]
    pub(crate) per_n: Option<usize>,
    #[command(flatten)]
    pub(crate) solvers: SolverArgs,
    /// Prove every UNSAT answer of the engines that can (backtrack, sat): the same solve is
    /// run again with a proof, checked as it is written, and its time and size are reported
    /// beside the plain answer's.
    #[arg(long)]
    pub(crate) proof: bool,
    /// The proofs' format: lrat, binary-lrat, drat or binary-drat.
    #[arg(long, value_name = "F", default_value = "lrat", requires = "proof")]
    pub(crate) proof_format: ProofFormat,
    /// Keep the proofs and their CNFs in this folder (created if missing; default: a
    /// temporary folder, removed at the end).
    #[arg(long, value_name = "DIR", requires = "proof")]
    pub(crate) proof_dir: Option<PathBuf>,
}

/// External SAT solvers a command may run (`--engine ext:NAME`).
#[derive(Args, Clone, Default)]
pub(crate) struct SolverArgs {
    /// An external solver: NAME=CMD (CMD split on spaces, no shell; {cnf} is replaced by the
    /// CNF file, {proof} by a DRAT proof file, {model} by a model file; without {cnf} the CNF
    /// goes to stdin), or a known NAME alone (cadical, kissat, minisat, cryptominisat5,
    /// picosat; known solvers on PATH need no flag). Repeatable.
    #[arg(long = "solver", value_name = "NAME=CMD")]
    pub(crate) solver: Vec<String>,
    /// Only the solvers given with --solver (what a server passes to its workers).
    #[arg(long, hide = true)]
    pub(crate) solvers_only: bool,
}

impl SolverArgs {
    /// Makes these the process's solver table.
    pub(crate) fn configure(&self) -> Result<(), Error> {
        queens::engine::ext::configure(queens::engine::ext::SolverTable::from_args(
            &self.solver,
            self.solvers_only,
        )?);
        Ok(())
    }
}

/// `--engine`: one of [`EngineName`]'s names, or `ext:SOLVER[:ENCODING][+rings]`.
#[derive(Clone, Copy)]
pub(crate) struct EngineChoice {
    pub(crate) engine: EngineName,
    pub(crate) ext: Option<queens::engine::ext::ExtSpec>,
}

/// `--engine`'s help: the engine table's names.
fn engine_help() -> String {
    let names: Vec<&str> = EngineName::built_in().map(EngineName::name).collect();
    format!(
        "Which engine answers (by default auto for solve, backtrack for count): {}, or \
         ext:SOLVER (an external SAT solver, e.g. ext:cadical; see --solver)",
        names.join(", ")
    )
}

pub(crate) fn engine_choice(s: &str) -> Result<EngineChoice, String> {
    if let Some(rest) = s.strip_prefix("ext:") {
        let ext = queens::engine::ext::ExtSpec::parse(rest)?;
        return Ok(EngineChoice {
            engine: EngineName::Ext,
            ext: Some(ext),
        });
    }
    EngineName::from_str(s, true)
        .map(|engine| EngineChoice { engine, ext: None })
        .map_err(|_| EngineName::unknown(s))
}

#[derive(Args)]
pub(crate) struct ProofArgs {
    /// When the answer is UNSAT, write a proof of it here (checked by the
    /// built-in checker before the answer is printed).
    #[arg(long, value_name = "P")]
    pub(crate) proof: Option<PathBuf>,
    /// Proof format: lrat (the default; the backtracker writes it with its own hints and
    /// checks it as it writes), binary-lrat (the same, a third of the size; cake_lpr reads
    /// it), drat or binary-drat.
    #[arg(long, value_name = "F", default_value = "lrat", requires = "proof")]
    pub(crate) proof_format: ProofFormat,
    /// Where to write the exact CNF the proof refutes (default: the proof path + `.cnf`).
    #[arg(long, value_name = "C", requires = "proof")]
    pub(crate) cnf: Option<PathBuf>,
}

impl ProofArgs {
    /// The proof format a request asks for: `--proof-format` when `--proof` is given.
    pub(crate) fn format(&self) -> Option<ProofFormat> {
        self.proof.is_some().then_some(self.proof_format)
    }

    /// Writes the proof and the CNF it refutes (the answer's artifacts, present on UNSAT)
    /// where the user asked, and names them in the answer.
    pub(crate) fn write(
        &self,
        info: Option<&mut ProofInfo>,
        artifacts: &Artifacts,
    ) -> Result<(), Error> {
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
pub(crate) struct EngineArgs {
    // Its help lists the engine table's names (`engine_help`).
    #[arg(long, value_parser = engine_choice, value_name = "ENGINE", help = engine_help())]
    pub(crate) engine: Option<EngineChoice>,
    /// At-most-one encoding for the SAT engine: pairwise, seq, commander, product, bimander, auto.
    #[arg(long, default_value = "auto")]
    pub(crate) encoding: Encoding,
    /// With ext:SOLVER: add the ring bounds (`queens rings`) to its CNF as redundant
    /// cardinality constraints.
    #[arg(long)]
    pub(crate) rings: bool,
    /// Also run the other engine and fail (exit 3, both answers shown) if they disagree.
    #[arg(long)]
    pub(crate) cross_check: bool,
}

impl EngineArgs {
    /// The engine, the encoding, the external solver and the ring flag of a request (an
    /// encoding or `+rings` written into `ext:…` counts as given).
    pub(crate) fn request(
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
