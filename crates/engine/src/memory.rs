//! Memory estimates, made before anything is allocated: what the SAT engine would build
//! for a problem ([`sat_estimate`], [`check_sat_memory`]), and what local search needs
//! ([`check_local_memory`]). An engine over the budget's limit is refused with the estimate
//! and what to do instead, and so is a board past [`queens_model::model::MAX_N`] to the
//! complete engines, which keep n² bits ([`complete_only`], [`nothing_counts`]).

use crate::completion;
use crate::encode::amo::Encoding;
use crate::local;
use crate::spec::EngineSpec;
use queens_model::error::Error;
use queens_model::model::Problem;
use queens_model::Budget;

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
    crate::cnf::encode(
        problem,
        encoding,
        crate::cnf::FixedMode::Simplify,
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
    // Counting stops once the estimate passes the limit: the figures are how far it got,
    // and none at all when the solver's fixed cost alone is over the limit.
    let size = match est.vars {
        0 => format!(
            "the SAT solver's fixed cost alone is about {} MB",
            mb(estimated_bytes(&crate::encode::Counter::default(), memory))
        ),
        _ => format!(
            "at least {} variables and {} clauses",
            est.vars, est.clauses
        ),
    };
    Err(Error::too_large(format!(
        "the SAT encoding of this {n}×{n} problem ({encoding}) would need more than the \
         memory limit of {} MB ({size}): use the backtrack engine{lighter}, or raise the \
         limit (--max-memory)",
        limit >> 20,
    ))
    .about("engine"))
}

/// Half of the memory this process can have: the smallest of the machine's memory, the
/// cgroup's limit (a container's, a Slurm job's) and `RLIMIT_AS` ([`queens_model::machine`]); 4 GiB
/// where none can be read. The default memory limit of one command. Half, because the
/// estimates are within about a fifth of the peak, and the address space also holds the
/// binary, thread stacks and the allocator's reserve.
pub fn default_max_memory() -> u64 {
    queens_model::machine::memory_ceiling().map_or(4 << 30, |(bytes, _)| bytes / 2)
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

/// Refuses a board past [`queens_model::model::MAX_N`] to the complete engines, which keep n²
/// bits, except backtrack, sat, ext and their race on a classic board whose core fits
/// ([`completion::fits`]): they search the core.
pub fn complete_only(problem: &Problem, spec: EngineSpec) -> Result<(), Error> {
    if problem.is_sparse() && spec.keeps_the_board() {
        if spec.searches_the_core() && completion::applies(problem) {
            return completion::fits(problem);
        }
        let n = problem.n();
        return Err(Error::too_large_at_field(
            "n",
            format!(
                "the {} engine works on boards up to {}×{} (it keeps n² bits); a \
                 {n}×{n} board is solved by local search: use engine local or auto",
                spec.name(),
                queens_model::model::MAX_N,
                queens_model::model::MAX_N
            ),
        ));
    }
    Ok(())
}

/// Refuses to count or list an empty board past [`queens_model::model::MAX_N`]: no engine does
/// (the complete engines keep n² bits up to it, and past it search only the rows fixed queens
/// leave free; local search finds one solution and counts nothing).
pub fn nothing_counts(problem: &Problem) -> Result<(), Error> {
    if problem.is_sparse() && problem.fixed().is_empty() {
        let (n, max) = (problem.n(), queens_model::model::MAX_N);
        return Err(Error::too_large_at_field(
            "n",
            format!(
                "no engine counts or lists the solutions of an empty board past {max} rows \
                 (this one has {n}): the complete engines keep n² bits up to {max}×{max}, and \
                 past it search only the rows that fixed queens leave free; one solution of \
                 it is `solve`'s (local search)"
            ),
        ));
    }
    Ok(())
}
