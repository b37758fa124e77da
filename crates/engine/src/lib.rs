//! One interface over both engines: which engine, within what budget, and verified answers.
//!
//! Every board an engine returns passes [`verify`] here before anyone sees it; a board that
//! does not is an [`Error::Internal`], never an answer. "No solution" is [`Answer::Unsat`], a
//! result; running out of time or being cancelled is [`Answer::Interrupted`], neither.

pub mod child;
pub mod encode;
pub mod generate;
pub mod puzzle;

pub use queens_model::{Budget, Progress};

// The crates below, and this one, under the names the modules use.
pub(crate) use crate as engine;
pub(crate) use queens_model::{error, formats, limits, model, report, rng, verify};
pub(crate) use queens_proof as proof;

use std::fmt;
use std::str::FromStr;

use std::time::Instant;

use crate::encode::amo::Encoding;
use crate::engine::sat::SatStats;
use crate::error::Error;
use crate::model::{Pos, Problem};

pub mod auto;
pub mod backtrack;
pub mod certify;
pub mod completion;
pub mod explain;
pub mod ext;
pub mod formula;
pub mod local;
pub mod name;
pub mod race;
pub mod sat;

pub use name::EngineName;

/// One engine configuration, written `backtrack`, `backtrack:T` (T threads), `sat:ENCODING`
/// or `race` / `race:ENCODING` (the backtracker on one core against the SAT engine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineSpec {
    /// The bitset backtracker; 0 threads means all cores.
    Backtrack {
        /// Worker threads (0 = all cores).
        threads: usize,
    },
    /// varisat on the given at-most-one encoding.
    Sat(Encoding),
    /// The backtracker (one thread) and varisat (this encoding, in a child process) at
    /// once; the first answer wins ([`race`]). It answers "is there a solution?" only, and
    /// runs through a caller that can start the child: the operations layer or `compare`.
    Race(Encoding),
    /// An external SAT solver ([`ext`]) on the CNF `queens encode` writes, in a child
    /// process killed at the deadline: `ext:NAME[:ENCODING][+rings]`.
    Ext(ext::ExtSpec),
    /// The backtracker pruning with the ring bounds ([`crate::encode::rings`]):
    /// `backtrack+rings`, `backtrack:T+rings`. The n-queens rule only.
    BacktrackRings {
        /// Worker threads (0 = all cores).
        threads: usize,
    },
    /// Local search ([`local`]) with this seed: any classic board up to
    /// [`crate::model::MAX_BIG_N`]; incomplete (it finds solutions, it proves nothing
    /// beyond [`local::refute`]'s cheap checks).
    Local {
        /// The seed (`local:SEED`; 1 when not given).
        seed: u64,
    },
    /// The engine for the job ([`auto`]): the backtracker on small boards and whatever must
    /// be proved or counted, local search on boards past [`crate::model::MAX_N`], and a race
    /// of the two in between. The answer names the engine that answered.
    Auto {
        /// The local engine's seed.
        seed: u64,
    },
}

impl EngineSpec {
    /// The engine's family name, as JSON output reports it ([`EngineName`]).
    pub fn name(self) -> &'static str {
        EngineName::of(self).name()
    }

    /// The other family (for cross-checks), with its defaults and this spec's encoding.
    pub fn other(self, encoding: Encoding) -> EngineSpec {
        match self {
            EngineSpec::Backtrack { .. }
            | EngineSpec::BacktrackRings { .. }
            | EngineSpec::Race(_) => EngineSpec::Sat(encoding),
            EngineSpec::Sat(_)
            | EngineSpec::Ext(_)
            | EngineSpec::Local { .. }
            | EngineSpec::Auto { .. } => EngineSpec::Backtrack { threads: 0 },
        }
    }

    /// True for engines that cannot be interrupted in-process (varisat): a caller that needs
    /// a hard deadline runs them in a child process.
    pub fn uninterruptible(self) -> bool {
        matches!(self, EngineSpec::Sat(_))
    }
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineSpec::Backtrack { threads: 0 } => write!(f, "backtrack"),
            EngineSpec::Backtrack { threads } => write!(f, "backtrack:{threads}"),
            EngineSpec::Sat(e) => write!(f, "sat:{e}"),
            EngineSpec::Race(Encoding::Auto) => write!(f, "race"),
            EngineSpec::Race(e) => write!(f, "race:{e}"),
            EngineSpec::Ext(x) => write!(f, "{x}"),
            EngineSpec::BacktrackRings { threads: 0 } => write!(f, "backtrack+rings"),
            EngineSpec::BacktrackRings { threads } => write!(f, "backtrack:{threads}+rings"),
            EngineSpec::Local { seed: 1 } => write!(f, "local"),
            EngineSpec::Local { seed } => write!(f, "local:{seed}"),
            EngineSpec::Auto { seed: 1 } => write!(f, "auto"),
            EngineSpec::Auto { seed } => write!(f, "auto:{seed}"),
        }
    }
}

impl FromStr for EngineSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<EngineSpec, String> {
        if let Some(plain) = s
            .strip_suffix("+rings")
            .filter(|p| p.starts_with("backtrack"))
        {
            return match plain.parse::<EngineSpec>() {
                Ok(EngineSpec::Backtrack { threads }) => Ok(EngineSpec::BacktrackRings { threads }),
                _ => Err(format!(
                    "`{s}`: use backtrack+rings or backtrack:THREADS+rings"
                )),
            };
        }
        let (name, arg) = match s.split_once(':') {
            Some((a, b)) => (a, Some(b)),
            None => (s, None),
        };
        match (name, arg) {
            ("backtrack", None) => Ok(EngineSpec::Backtrack { threads: 0 }),
            ("backtrack", Some(t)) => match t.parse::<usize>() {
                Ok(threads) if threads >= 1 => Ok(EngineSpec::Backtrack { threads }),
                _ => Err(format!(
                    "`{s}`: after `backtrack:` give a thread count of 1 or more"
                )),
            },
            ("sat", None) => Ok(EngineSpec::Sat(Encoding::Auto)),
            ("sat", Some(e)) => e
                .parse::<Encoding>()
                .map(EngineSpec::Sat)
                .map_err(|err| format!("`{s}`: {err}")),
            ("race", None) => Ok(EngineSpec::Race(Encoding::Auto)),
            ("race", Some(e)) => e
                .parse::<Encoding>()
                .map(EngineSpec::Race)
                .map_err(|err| format!("`{s}`: {err}")),
            ("ext", Some(rest)) => ext::ExtSpec::parse(rest)
                .map(EngineSpec::Ext)
                .map_err(|err| format!("`{s}`: {err}")),
            ("local", None) => Ok(EngineSpec::Local { seed: 1 }),
            ("auto", None) => Ok(EngineSpec::Auto { seed: 1 }),
            ("local" | "auto", Some(t)) => match t.parse::<u64>() {
                Ok(seed) if name == "local" => Ok(EngineSpec::Local { seed }),
                Ok(seed) => Ok(EngineSpec::Auto { seed }),
                _ => Err(format!(
                    "`{s}`: after `{name}:` give a seed (a whole number)"
                )),
            },
            _ => Err(format!(
                "`{s}`: unknown engine (use backtrack, backtrack:THREADS, sat:ENCODING, \
                 race, local[:SEED], auto[:SEED] or ext:SOLVER, e.g. sat:seq or ext:cadical)"
            )),
        }
    }
}

/// The answer to "is there a solution?": a solution `S`, or a proven "no" carrying `U`, or no
/// answer. One type for every engine: [`solve`]'s (cells sorted by row, nothing more),
/// [`ColumnAnswer`] (one column per row, and the reason a cheap refutation found) and
/// [`certify::CertifiedAnswer`] (the checked proof).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer<S = Vec<Pos>, U = ()> {
    /// A solution, checked by the verifier.
    Sat(S),
    /// Proven: no solution.
    Unsat(U),
    /// The local engine spent its restarts: no answer (not "no solution").
    GaveUp,
    /// The budget ran out (deadline or cancel) before an answer.
    Interrupted,
}

impl<S, U> Answer<S, U> {
    /// A solution or a proven "no" (not a stop).
    pub fn is_decided(&self) -> bool {
        matches!(self, Answer::Sat(_) | Answer::Unsat(_))
    }

    /// The same answer with its solution given another way.
    pub fn map_sat<T>(self, f: impl FnOnce(S) -> T) -> Answer<T, U> {
        match self {
            Answer::Sat(s) => Answer::Sat(f(s)),
            Answer::Unsat(u) => Answer::Unsat(u),
            Answer::GaveUp => Answer::GaveUp,
            Answer::Interrupted => Answer::Interrupted,
        }
    }

    /// The same answer with another "no".
    pub fn map_unsat<V>(self, f: impl FnOnce(U) -> V) -> Answer<S, V> {
        match self {
            Answer::Sat(s) => Answer::Sat(s),
            Answer::Unsat(u) => Answer::Unsat(f(u)),
            Answer::GaveUp => Answer::GaveUp,
            Answer::Interrupted => Answer::Interrupted,
        }
    }
}

/// The work one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work {
    /// Backtracker: queens placed by the search.
    pub nodes: Option<u64>,
    /// SAT engine: formula size, timings, solver calls.
    pub sat: Option<SatStats>,
    /// Local engine: starts, swaps, collisions after the start.
    pub local: Option<local::Stats>,
    /// With `auto`: the engine whose answer this is.
    pub answered_by: Option<EngineSpec>,
    /// When the search ran on the core of a completion ([`completion`]): its size.
    pub core: Option<completion::CoreSize>,
    /// Wall time of the whole run, milliseconds.
    pub time_ms: f64,
}

/// [`solve`]'s result.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The answer.
    pub answer: Answer,
    /// Work done.
    pub work: Work,
}

/// [`enumerate`]'s result.
#[derive(Clone, Debug)]
pub struct Listed {
    /// The solutions found, each verified.
    pub solutions: Vec<Vec<Pos>>,
    /// True when the cap stopped the listing (there may be more).
    pub limited: bool,
    /// True when the budget ran out first: the list is incomplete.
    pub interrupted: bool,
    /// Work done.
    pub work: Work,
}

/// [`count`]'s result.
#[derive(Clone, Copy, Debug)]
pub struct Counted {
    /// Solutions counted (a lower bound when `limited` or `interrupted`).
    pub count: u64,
    /// Solutions up to rotation and reflection, where defined (the empty classic board,
    /// backtracker, counted in full).
    pub unique: Option<u64>,
    /// True when the count stopped at the limit.
    pub limited: bool,
    /// True when the budget ran out first.
    pub interrupted: bool,
    /// Work done.
    pub work: Work,
}

/// Milliseconds since `t`, rounded to microseconds.
pub fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// What the SAT engine would build for a problem, counted without building it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SatEstimate {
    /// Variables of the CNF.
    pub vars: usize,
    /// Clauses of the CNF.
    pub clauses: usize,
    /// Literals in all clauses.
    pub literals: usize,
    /// Estimated peak memory of encoding and solving, bytes.
    pub bytes: u64,
}

/// What a SAT run holds besides the solver, for [`sat_estimate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SatMemory {
    /// The clauses go straight into the solver: solving, counting, listing, explaining.
    Streamed,
    /// The whole formula is built first and kept: proofs.
    WithFormula,
    /// The whole formula is built and written out as DIMACS text in memory (`encode`):
    /// [`SatMemory::WithFormula`] plus the text, [`dimacs_text_bound`].
    WithText,
}

/// An upper bound on the DIMACS text of a formula of this size, bytes: every literal as
/// long as the largest variable's number, with its sign and a space; `0\n` per clause; a
/// `c cell` line per variable (a bound on the cells) and the `p cnf` and comment header.
pub fn dimacs_text_bound(vars: usize, clauses: usize, literals: usize) -> u64 {
    let digits = (vars.max(1) as f64).log10().floor() as u64 + 1;
    let per_literal = digits + 2;
    let per_cell_line = 8 + 3 * digits + 1;
    4096u64
        .saturating_add(per_literal.saturating_mul(literals as u64))
        .saturating_add(2u64.saturating_mul(clauses as u64))
        .saturating_add(per_cell_line.saturating_mul(vars as u64))
}

/// Counts the CNF's size by running the encoder into a counting sink (time linear in the
/// clauses, no memory for them) and estimates the peak memory as
///
/// - [`SatMemory::Streamed`]: 24 MiB + 12 bytes per clause + 320 per variable, fitted to the
///   peak RSS of `cargo run --release --example sat_scale` (the SAT engine on the empty board,
///   every encoding, n = 100–2000: within −18 % and +23 % of each; BENCHMARKS.md, "SAT at
///   scale"). A binary clause is two literals in varisat's implication lists, which grow by
///   doubling; a variable is a dozen per-variable arrays.
/// - [`SatMemory::WithFormula`]: 16 MB + 35 bytes per clause + 240 per variable, fitted when
///   every run built a `CnfFormula` first and copied it into the solver (n = 500 and 1000,
///   seq, product and bimander; within 5 % of each).
///
/// With `stop_above`, counting stops once the estimate passes it (the figures are then a
/// lower bound), so refusing a huge encoding takes time in proportion to the limit, not to
/// the encoding.
pub fn sat_estimate(
    problem: &Problem,
    encoding: Encoding,
    memory: SatMemory,
    stop_above: Option<u64>,
) -> SatEstimate {
    let mut sink = Capped {
        counter: crate::encode::Counter::default(),
        memory,
        cap: stop_above.unwrap_or(u64::MAX),
    };
    crate::encode::cnf::encode(
        problem,
        encoding,
        crate::encode::cnf::FixedMode::Simplify,
        &mut sink,
    );
    let c = sink.counter;
    SatEstimate {
        vars: c.vars,
        clauses: c.clauses,
        literals: c.literals,
        bytes: estimated_bytes(&c, memory),
    }
}

fn estimated_bytes(c: &crate::encode::Counter, memory: SatMemory) -> u64 {
    let (base, per_clause, per_var) = match memory {
        SatMemory::Streamed => (24u64 << 20, 12u64, 320u64),
        SatMemory::WithFormula | SatMemory::WithText => (16 << 20, 35, 240),
    };
    let text = match memory {
        SatMemory::WithText => dimacs_text_bound(c.vars, c.clauses, c.literals),
        _ => 0,
    };
    base.saturating_add(per_clause.saturating_mul(c.clauses as u64))
        .saturating_add(per_var.saturating_mul(c.vars as u64))
        .saturating_add(text)
}

/// A counter that is full once its memory estimate passes `cap`.
struct Capped {
    counter: crate::encode::Counter,
    memory: SatMemory,
    cap: u64,
}

impl crate::encode::ClauseSink for Capped {
    fn new_var(&mut self) -> varisat::Lit {
        self.counter.new_var()
    }

    fn add_clause(&mut self, lits: &[varisat::Lit]) {
        self.counter.add_clause(lits);
    }

    fn full(&self) -> bool {
        estimated_bytes(&self.counter, self.memory) > self.cap
    }
}

/// Refuses SAT work over the budget's memory limit, with the estimate and what to do
/// instead.
pub fn check_sat_memory(
    problem: &Problem,
    encoding: Encoding,
    memory: SatMemory,
    budget: &Budget,
) -> Result<(), Error> {
    let Some(limit) = budget.max_memory else {
        return Ok(());
    };
    let est = sat_estimate(problem, encoding, memory, Some(limit));
    if est.bytes <= limit {
        return Ok(());
    }
    let mb = |b: u64| b.div_ceil(1 << 20);
    let n = problem.n();
    let lighter = match encoding {
        Encoding::Product => String::new(),
        _ => match sat_estimate(problem, Encoding::Product, memory, Some(limit)) {
            p if p.bytes <= limit => format!(", the product encoding (about {} MB)", mb(p.bytes)),
            _ => String::new(),
        },
    };
    Err(Error::too_large(format!(
        "the SAT encoding of this {n}×{n} problem ({encoding}) would need more than the \
         memory limit of {} MB (over {} variables and {} clauses): use the backtrack \
         engine{lighter}, or raise the limit (--max-memory)",
        limit >> 20,
        est.vars,
        est.clauses,
    )))
}

/// Half of the memory this process can have: the smallest of the machine's memory, the
/// cgroup's limit (a container's, a Slurm job's) and `RLIMIT_AS` ([`crate::limits`]); 4 GiB
/// where none can be read. The default memory limit of one command. Half, because the
/// estimates are within about a fifth of the peak, and the address space also holds the
/// binary, thread stacks and the allocator's reserve.
pub fn default_max_memory() -> u64 {
    crate::limits::memory_ceiling().map_or(4 << 30, |(bytes, _)| bytes / 2)
}

/// The error for a race asked of an entry point that cannot start its SAT child, or for
/// more than one solution.
pub(crate) fn race_needs_a_caller() -> Error {
    Error::unsupported(
        "engine race answers whether there is a solution (solve, one solution); use \
         backtrack or sat for counting and listing"
            .into(),
    )
}

/// Checks a board an engine returned: a board that breaks a rule is a bug, reported as
/// [`Error::Internal`] naming the engine and the rule.
pub fn checked(problem: &Problem, queens: &[Pos], engine: &str) -> Result<(), Error> {
    verify(problem, queens).map_err(|v| {
        Error::internal(format!(
            "the {engine} engine returned a board that breaks a rule: {v}"
        ))
    })
}

/// Finds one solution or proves there is none, within the budget (the SAT engine only
/// notices the budget before it starts: run it in a child process for a hard deadline).
pub fn solve(problem: &Problem, spec: EngineSpec, budget: &Budget) -> Result<Solved, Error> {
    let start = Instant::now();
    if budget.exhausted() {
        return Ok(Solved {
            answer: Answer::Interrupted,
            work: Work::default(),
        });
    }
    let columns = matches!(spec, EngineSpec::Local { .. } | EngineSpec::Auto { .. })
        || problem.is_sparse() && matches!(spec, EngineSpec::Backtrack { .. });
    if columns {
        let solved = solve_columns(problem, spec, budget)?;
        let answer = solved
            .answer
            .map_sat(|cols| {
                cols.iter()
                    .enumerate()
                    .map(|(r, &c)| (r, c as usize))
                    .collect()
            })
            .map_unsat(|_| ());
        return Ok(Solved {
            answer,
            work: solved.work,
        });
    }
    complete_only(problem, spec)?;
    let (found, mut work, interrupted) = match spec {
        EngineSpec::Local { .. } | EngineSpec::Auto { .. } => unreachable!("answered above"),
        EngineSpec::Backtrack { .. } if problem.is_sparse() => unreachable!("answered above"),
        EngineSpec::Backtrack { threads } => {
            let (found, stats) =
                backtrack::solve(problem, &backtrack::Config::within(budget, threads));
            let work = Work {
                nodes: Some(stats.nodes),
                ..Work::default()
            };
            (found, work, stats.interrupted)
        }
        EngineSpec::BacktrackRings { threads } => {
            crate::encode::rings::check_applies(problem)?;
            let config = backtrack::Config {
                rings: true,
                ..backtrack::Config::within(budget, threads)
            };
            let (found, stats) = backtrack::solve(problem, &config);
            let work = Work {
                nodes: Some(stats.nodes),
                ..Work::default()
            };
            (found, work, stats.interrupted)
        }
        EngineSpec::Race(_) => return Err(race_needs_a_caller()),
        EngineSpec::Sat(encoding) => {
            check_sat_memory(problem, encoding, SatMemory::Streamed, budget)?;
            let (found, stats) = sat::solve(problem, encoding)?;
            let work = Work {
                sat: Some(stats),
                ..Work::default()
            };
            (found, work, false)
        }
        EngineSpec::Ext(x) => {
            let run = ext::solve(problem, x, budget)?;
            let work = Work {
                sat: Some(run.stats),
                ..Work::default()
            };
            // `s UNKNOWN` is no answer within the limits, as a timeout is.
            match run.answer {
                ext::ExtAnswer::Sat(q) => (Some(q), work, false),
                ext::ExtAnswer::Unsat => (None, work, false),
                ext::ExtAnswer::Unknown | ext::ExtAnswer::Interrupted => (None, work, true),
            }
        }
    };
    work.time_ms = ms(start);
    if let (true, Some(sat)) = (problem.is_sparse(), work.sat) {
        // Past MAX_N the formula is the core's: one variable per open cell.
        work.core = Some(completion::CoreSize {
            rows: completion::free_rows(problem),
            cells: sat.cell_vars,
        });
    }
    let answer = match found {
        Some(q) => {
            checked(problem, &q, spec.name())?;
            Answer::Sat(q)
        }
        None if interrupted => Answer::Interrupted,
        None => Answer::Unsat(()),
    };
    Ok(Solved { answer, work })
}

/// [`solve`] on the SAT engine, also counting the clauses the solver learns
/// (`work.sat.learned`, see [`sat::solve_counting_learned`]): what `compare` reports beside
/// the backtracker's nodes.
pub fn solve_counting_learned(
    problem: &Problem,
    encoding: Encoding,
    budget: &Budget,
) -> Result<Solved, Error> {
    let start = Instant::now();
    if budget.exhausted() {
        return Ok(Solved {
            answer: Answer::Interrupted,
            work: Work::default(),
        });
    }
    complete_only(problem, EngineSpec::Sat(encoding))?;
    check_sat_memory(problem, encoding, SatMemory::Streamed, budget)?;
    let (found, stats) = sat::solve_counting_learned(problem, encoding)?;
    let answer = match found {
        Some(q) => {
            checked(problem, &q, "sat")?;
            Answer::Sat(q)
        }
        None => Answer::Unsat(()),
    };
    let work = Work {
        sat: Some(stats),
        time_ms: ms(start),
        ..Work::default()
    };
    Ok(Solved { answer, work })
}

/// Lists solutions, up to `cap` of them, each verified.
pub fn enumerate(
    problem: &Problem,
    spec: EngineSpec,
    cap: Option<u64>,
    budget: &Budget,
) -> Result<Listed, Error> {
    let mut solutions: Vec<Vec<Pos>> = Vec::new();
    let (work, seen, interrupted) = visit_all(problem, spec, cap, budget, &mut |q| {
        solutions.push(q.to_vec())
    })?;
    Ok(Listed {
        solutions,
        limited: cap.is_some_and(|k| seen >= k),
        interrupted,
        work,
    })
}

/// Runs `on_board` on each solution (verified first), up to `cap`. Returns the work, the
/// number of solutions seen and whether the budget cut the run short (never when the cap
/// was reached).
fn visit_all(
    problem: &Problem,
    spec: EngineSpec,
    cap: Option<u64>,
    budget: &Budget,
    on_board: &mut dyn FnMut(&[Pos]),
) -> Result<(Work, u64, bool), Error> {
    let start = Instant::now();
    let mut seen = 0u64;
    let mut bad = None;
    let mut sat_stopped = false;
    let mut visit = |q: &[Pos]| {
        if let Err(e) = checked(problem, q, spec.name()) {
            bad = Some(e);
            return false;
        }
        seen += 1;
        on_board(q);
        // The SAT engine looks at the budget between models.
        if spec.uninterruptible() && budget.exhausted() {
            sat_stopped = true;
            return false;
        }
        true
    };
    let spec = counting_engine(spec)?;
    complete_only(problem, spec)?;
    let (mut work, interrupted) = match spec {
        EngineSpec::Race(_) => return Err(race_needs_a_caller()),
        EngineSpec::Local { .. } | EngineSpec::Auto { .. } => {
            unreachable!("counting_engine maps these")
        }
        _ if budget.exhausted() => (Work::default(), true),
        EngineSpec::Backtrack { threads } => {
            let stats = backtrack::enumerate(
                problem,
                &backtrack::Config::within(budget, threads),
                cap,
                &mut visit,
            );
            let work = Work {
                nodes: Some(stats.nodes),
                ..Work::default()
            };
            (work, stats.interrupted)
        }
        EngineSpec::BacktrackRings { threads } => {
            crate::encode::rings::check_applies(problem)?;
            let config = backtrack::Config {
                rings: true,
                ..backtrack::Config::within(budget, threads)
            };
            let stats = backtrack::enumerate(problem, &config, cap, &mut visit);
            let work = Work {
                nodes: Some(stats.nodes),
                ..Work::default()
            };
            (work, stats.interrupted)
        }
        EngineSpec::Sat(encoding) => {
            check_sat_memory(problem, encoding, SatMemory::Streamed, budget)?;
            let stats = sat::enumerate(problem, encoding, cap, &mut visit)?;
            let work = Work {
                sat: Some(stats),
                ..Work::default()
            };
            (work, false)
        }
        EngineSpec::Ext(x) => {
            let (stats, stopped) = ext::enumerate(problem, x, cap, budget, &mut visit)?;
            let work = Work {
                sat: Some(stats),
                ..Work::default()
            };
            (work, stopped)
        }
    };
    if let Some(e) = bad {
        return Err(e);
    }
    let limited = cap.is_some_and(|k| seen >= k);
    work.time_ms = ms(start);
    Ok((work, seen, (interrupted || sat_stopped) && !limited))
}

/// Counts solutions, up to `limit` if given (the backtracker on all cores, or the SAT
/// engine with blocking clauses, verifying every model it counts).
pub fn count(
    problem: &Problem,
    spec: EngineSpec,
    limit: Option<u64>,
    budget: &Budget,
) -> Result<Counted, Error> {
    let start = Instant::now();
    let by_core = matches!(spec, EngineSpec::Auto { .. }) && completion::suits_auto(problem)
        || problem.is_sparse() && matches!(spec, EngineSpec::Backtrack { .. });
    if by_core {
        let (c, core) = completion::count(problem, limit, budget)?;
        return Ok(Counted {
            count: c.count,
            unique: None,
            limited: c.limited,
            interrupted: c.interrupted,
            work: Work {
                nodes: Some(c.stats.nodes),
                core,
                time_ms: ms(start),
                ..Work::default()
            },
        });
    }
    let spec = counting_engine(spec)?;
    complete_only(problem, spec)?;
    let mut counted = match spec {
        EngineSpec::Backtrack { threads } if !budget.exhausted() => {
            let c = backtrack::count(problem, &backtrack::Config::within(budget, threads), limit);
            Counted {
                count: c.total,
                unique: c.unique,
                limited: c.limited,
                interrupted: c.stats.interrupted,
                work: Work {
                    nodes: Some(c.stats.nodes),
                    ..Work::default()
                },
            }
        }
        _ => {
            let (work, seen, interrupted) = visit_all(problem, spec, limit, budget, &mut |_| {})?;
            Counted {
                count: seen,
                unique: None,
                limited: limit.is_some_and(|k| seen >= k),
                interrupted,
                work,
            }
        }
    };
    counted.work.time_ms = ms(start);
    Ok(counted)
}

/// The engine that lists or counts for `spec`: `auto` counts with the backtracker; local
/// search cannot count (it finds one solution at a time and proves nothing).
fn counting_engine(spec: EngineSpec) -> Result<EngineSpec, Error> {
    match spec {
        EngineSpec::Auto { .. } => Ok(EngineSpec::Backtrack { threads: 0 }),
        EngineSpec::Local { .. } => Err(Error::unsupported(
            "the local engine finds one solution; count or list solutions with backtrack or \
             sat"
            .into(),
        )),
        spec => Ok(spec),
    }
}

/// Refuses a board past [`crate::model::MAX_N`] to the complete engines, which keep n² bits,
/// except backtrack, sat, ext and their race on a classic board whose core fits
/// ([`completion::fits`]): they search the core.
pub fn complete_only(problem: &Problem, spec: EngineSpec) -> Result<(), Error> {
    if problem.is_sparse() && !matches!(spec, EngineSpec::Local { .. } | EngineSpec::Auto { .. }) {
        let on_core = matches!(
            spec,
            EngineSpec::Backtrack { .. }
                | EngineSpec::Sat(_)
                | EngineSpec::Ext(_)
                | EngineSpec::Race(_)
        );
        if on_core && completion::applies(problem) {
            return completion::fits(problem);
        }
        let n = problem.n();
        return Err(Error::too_large_at_field(
            "n",
            format!(
                "the {} engine works on boards up to {}×{} (it keeps n² bits); a \
                 {n}×{n} board is solved by local search: use engine local or auto",
                spec.name(),
                crate::model::MAX_N,
                crate::model::MAX_N
            ),
        ));
    }
    Ok(())
}

/// An answer given as one column per row (what [`solve_columns`] returns: a board of 10⁸
/// rows is 400 MB this way, 1.6 GB as cells): `cols[r]` is the column of row `r`'s queen;
/// a "no" carries the reason when a cheap refutation found it.
pub type ColumnAnswer = Answer<Vec<u32>, Option<String>>;

/// [`solve_columns`]'s result.
#[derive(Clone, Debug)]
pub struct SolvedColumns {
    /// The answer.
    pub answer: ColumnAnswer,
    /// Work done; `answered_by` names the engine that answered.
    pub work: Work,
}

/// Finds one solution or proves there is none, as one column per row: any engine, and the
/// only way to solve a board past [`crate::model::MAX_N`] (local or auto). Every solution has
/// passed [`crate::verify::verify_columns`].
pub fn solve_columns(
    problem: &Problem,
    spec: EngineSpec,
    budget: &Budget,
) -> Result<SolvedColumns, Error> {
    let start = Instant::now();
    let mut solved = match spec {
        EngineSpec::Local { seed } => {
            check_local_memory(problem, budget)?;
            local_columns(problem, seed, budget)?
        }
        EngineSpec::Auto { seed } => auto::solve(problem, seed, budget)?,
        EngineSpec::Backtrack { .. } if problem.is_sparse() => {
            completion::solve_columns(problem, 1, budget)?
        }
        spec => {
            let s = solve(problem, spec, budget)?;
            let answer = s
                .answer
                .map_sat(|q| columns_of(problem.n(), &q))
                .map_unsat(|()| None);
            let mut work = s.work;
            work.answered_by = Some(spec);
            SolvedColumns { answer, work }
        }
    };
    if let ColumnAnswer::Sat(cols) = &solved.answer {
        let by = solved.work.answered_by.unwrap_or(spec).name();
        crate::verify::verify_columns(problem, cols).map_err(|v| {
            Error::internal(format!(
                "the {by} engine returned a board that breaks a rule: {v}"
            ))
        })?;
    }
    solved.work.time_ms = ms(start);
    Ok(solved)
}

/// The local engine alone, as a [`SolvedColumns`] (not yet verified).
pub(crate) fn local_columns(
    problem: &Problem,
    seed: u64,
    budget: &Budget,
) -> Result<SolvedColumns, Error> {
    let config = local::Config {
        seed,
        ..local::Config::default()
    };
    let (outcome, stats) = local::solve(problem, config, budget)?;
    let answer = match outcome {
        local::Outcome::Solved(cols) => ColumnAnswer::Sat(cols),
        local::Outcome::Refuted(why) => ColumnAnswer::Unsat(Some(why)),
        local::Outcome::GaveUp => ColumnAnswer::GaveUp,
        local::Outcome::Interrupted => ColumnAnswer::Interrupted,
    };
    Ok(SolvedColumns {
        answer,
        work: Work {
            local: Some(stats),
            answered_by: Some(EngineSpec::Local { seed }),
            time_ms: stats.time_ms,
            ..Work::default()
        },
    })
}

/// One column per row from a full set of cells (one queen per row).
fn columns_of(n: usize, queens: &[Pos]) -> Vec<u32> {
    let mut cols = vec![u32::MAX; n];
    for &(r, c) in queens {
        if r < n {
            cols[r] = c as u32;
        }
    }
    cols
}

/// Refuses a local search whose memory estimate ([`local::memory_estimate`]) is over the
/// budget's limit, before allocating anything.
pub fn check_local_memory(problem: &Problem, budget: &Budget) -> Result<(), Error> {
    let Some(limit) = budget.max_memory else {
        return Ok(());
    };
    let need = local::memory_estimate(problem);
    if need <= limit {
        return Ok(());
    }
    let n = problem.n();
    Err(Error::too_large_at_field(
        "n",
        format!(
            "local search on this {n}×{n} board needs about {} MB (12 bytes a row, \
             32 a preset, 8 MB more), over the memory limit of {} MB: raise the limit \
             (--max-memory)",
            need.div_ceil(1 << 20),
            limit >> 20
        ),
    ))
}
