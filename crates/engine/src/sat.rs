//! The SAT engine: encode ([`crate::cnf`]), solve with varisat, decode the model to queens.
//!
//! Solving encodes straight into the solver: no [`CnfFormula`] is kept unless one is asked for
//! ([`encode_problem`], for DIMACS and proofs), which halves the peak memory at n = 1000.
//!
//! Counting enumerates models with blocking clauses over the cell variables only (auxiliary
//! variables of the encodings may take several values for one board). Explanations shrink
//! varisat's failed assumptions to a minimal set of fixed queens and blocked cells.

use std::collections::HashMap;
use std::io::Write;
use std::time::Instant;

use varisat::{CnfFormula, ExtendFormula, Lit, Solver, Var};

use crate::cnf::{encode, CellMap, FixedMode, Preset};
use crate::encode::amo::Encoding;
use crate::encode::{self, Counter};
use queens_model::error::Error;
use queens_model::formats::dimacs;
use queens_model::model::{Diagonal, Pos, Problem};
use queens_proof::write::{empty_clause, DratStyle};
use queens_proof::{check_and_write, drat_to_lrat, ProofError, ProofFormat};

use crate::work::ms;

pub use crate::work::SatStats;

/// A problem encoded into a formula, with its cell map.
pub struct Encoded {
    /// The CNF, exactly as given to the solver.
    pub formula: CnfFormula,
    /// Cells ↔ variables, assumptions.
    pub map: CellMap,
    /// Size and encode time.
    pub stats: SatStats,
}

impl Encoded {
    /// Writes the formula as DIMACS with its cell map ([`dimacs::write_cnf`]).
    pub fn write_dimacs(
        &self,
        out: &mut impl std::io::Write,
        header: &[String],
    ) -> std::io::Result<()> {
        // A core's fixed queens are the instance's, up to 2³¹ of them: not repeated here.
        let fixed = if self.map.is_core() {
            Vec::new()
        } else {
            self.map.decode(|_| false)
        };
        dimacs::write_cnf(out, &self.formula, self.map.cells(), &fixed, header)
    }
}

/// Encodes the problem into a fresh formula.
pub fn encode_problem(problem: &Problem, encoding: Encoding, mode: FixedMode) -> Encoded {
    let start = Instant::now();
    let mut formula = CnfFormula::new();
    let map = encode(problem, encoding, mode, &mut formula);
    let stats = SatStats {
        vars: formula.var_count(),
        clauses: formula.len(),
        cell_vars: map.cells().len(),
        encode_ms: ms(start),
        ..SatStats::default()
    };
    Encoded {
        formula,
        map,
        stats,
    }
}

/// A problem loaded into a solver, and how the solver's literals relate to the encoding's.
///
/// varisat 0.2 has no API for the decision order or the first phase, but both follow from
/// how variables reach it. Its decision heap starts with every activity 0 in the order the
/// variables first appear in a clause, and pops the first variable, then the others from
/// the last one backwards (`varisat/src/decision/vsids.rs`: ties never move in the heap);
/// every variable is first tried false. Encoded as is, its first descent decides auxiliary
/// variables first and cells "no queen" one by one: at n = 1000, 594 learned clauses and
/// 1.9 s of search, each restart re-deciding a million cells.
///
/// So [`load`] declares the variables before any clause (one tautology, which varisat maps
/// and then drops): auxiliary variables first, then the cells in a shuffled order, and it
/// negates every cell literal, so that to the solver "false" is a queen. The first descent
/// then places queens on random free cells, each one's propagation clearing its lines: a
/// random greedy placement, which on an open board leaves only a few queens to repair by
/// conflicts (1–2 learned clauses at n = 1000 and 5–20 at n = 300, with every encoding).
/// The shuffle is seeded, so a run is reproducible. Nothing outside this module sees the
/// negation.
struct Loaded<'a> {
    solver: Solver<'a>,
    map: CellMap,
    stats: SatStats,
    /// Variables below this index are cells, negated in the solver.
    cells: usize,
}

impl Loaded<'_> {
    /// The solver's literal for an encoding's literal, and back.
    fn solver_lit(&self, l: Lit) -> Lit {
        solver_lit(self.cells, l)
    }

    /// The queens of the solver's current model.
    fn decode(&self) -> Vec<Pos> {
        let model = self
            .solver
            .model()
            .expect("a satisfiable solver has a model");
        self.map.decode(|l| model[l.index()] == self.solver_lit(l))
    }
}

/// The solver's literal for an encoding's literal when the first `cells` variables are
/// cells, and back (negation is its own inverse).
fn solver_lit(cells: usize, l: Lit) -> Lit {
    if l.index() < cells {
        !l
    } else {
        l
    }
}

/// Seed of the cell order [`load`] declares: fixed, so runs are reproducible.
const DECLARE_SEED: u64 = 0x5eed_ce11;

/// Encodes the problem straight into `solver` (which must be fresh), guiding its first
/// descent as [`Loaded`] explains.
fn load<'a>(
    problem: &Problem,
    encoding: Encoding,
    mode: FixedMode,
    mut solver: Solver<'a>,
) -> Loaded<'a> {
    let start = Instant::now();
    // The auxiliary variables must be declared before the cells, so count them first: a
    // dry run that keeps nothing (0.17 s of the 4 s at n = 1000).
    let mut size = Counter::default();
    let cells = encode(problem, encoding, mode, &mut size).cells().len();
    let mut order: Vec<usize> = (0..cells).collect();
    queens_model::rng::Rng::new(DECLARE_SEED).shuffle(&mut order);
    // The first variable declared is decided first, the others from the last backwards.
    let (first, rest) = order
        .split_first()
        .map_or((None, &[][..]), |(f, r)| (Some(*f), r));
    let declared: Vec<usize> = first
        .into_iter()
        .chain(cells..size.vars)
        .chain(rest.iter().copied())
        .collect();
    if let Some(&v) = declared.first() {
        let mut tautology: Vec<Lit> = declared
            .iter()
            .map(|&i| Var::from_index(i).positive())
            .collect();
        tautology.push(Var::from_index(v).negative());
        solver.add_clause(&tautology);
    }
    let mut sink = Negated {
        solver: &mut solver,
        cells,
        buf: Vec::new(),
        counter: Counter::default(),
    };
    let map = encode(problem, encoding, mode, &mut sink);
    debug_assert_eq!(sink.counter, size, "both runs write the same formula");
    let stats = SatStats {
        vars: sink.counter.vars,
        clauses: sink.counter.clauses,
        cell_vars: cells,
        encode_ms: ms(start),
        ..SatStats::default()
    };
    Loaded {
        solver,
        map,
        stats,
        cells,
    }
}

/// The sink [`load`] encodes through: numbers variables itself, as the counting run did (so
/// they are the ones declared), and negates cell literals on their way into the solver.
struct Negated<'s, 'a> {
    solver: &'s mut Solver<'a>,
    cells: usize,
    buf: Vec<Lit>,
    counter: Counter,
}

impl encode::ClauseSink for Negated<'_, '_> {
    fn new_var(&mut self) -> Lit {
        encode::ClauseSink::new_var(&mut self.counter)
    }

    fn add_clause(&mut self, lits: &[Lit]) {
        encode::ClauseSink::add_clause(&mut self.counter, lits);
        self.buf.clear();
        let cells = self.cells;
        self.buf.extend(lits.iter().map(|&l| solver_lit(cells, l)));
        ExtendFormula::add_clause(self.solver, &self.buf);
    }
}

fn solver_error(e: varisat::solver::SolverError) -> Error {
    Error::unsupported(format!("the SAT solver failed: {e}"))
}

/// Finds one solution with the SAT engine (not yet verified: callers verify).
pub fn first_solution(
    problem: &Problem,
    encoding: Encoding,
) -> Result<(Option<Vec<Pos>>, SatStats), Error> {
    solve_with(problem, encoding, false)
}

/// Like [`first_solution`], and also counts the clauses the solver learns (`stats.learned`), the
/// CDCL measure of work that the backtracker's node count corresponds to.
///
/// varisat 0.2 has no statistics API, so the count is read off its binary DRAT proof stream
/// as it is written: one `a` record per learned clause. Writing the stream costs a few per
/// cent of solve time (measured: 27.9 s without, about 30 s with, on prob079 diag-21-4-102
/// with 19 diagonals), so plain [`first_solution`] does not do it.
pub fn solve_counting_learned(
    problem: &Problem,
    encoding: Encoding,
) -> Result<(Option<Vec<Pos>>, SatStats), Error> {
    solve_with(problem, encoding, true)
}

fn solve_with(
    problem: &Problem,
    encoding: Encoding,
    count_learned: bool,
) -> Result<(Option<Vec<Pos>>, SatStats), Error> {
    let mut first = None;
    let stats = enumerate_with(problem, encoding, Some(1), count_learned, &mut |q| {
        first = Some(q.to_vec());
        true
    })?;
    Ok((first, stats))
}

/// Calls `visit` with each solution, up to `limit`, adding a blocking clause after each.
pub fn enumerate(
    problem: &Problem,
    encoding: Encoding,
    limit: Option<u64>,
    mut visit: impl FnMut(&[Pos]) -> bool,
) -> Result<SatStats, Error> {
    enumerate_with(problem, encoding, limit, false, &mut visit)
}

/// Counts `a` (lemma) records in a binary DRAT stream: each record is a tag byte, then
/// variable-length literals whose last byte is never 0, then a 0 byte.
struct LemmaCounter {
    lemmas: std::rc::Rc<std::cell::Cell<u64>>,
    at_tag: bool,
}

impl std::io::Write for LemmaCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for &b in buf {
            if self.at_tag {
                if b == b'a' {
                    self.lemmas.set(self.lemmas.get() + 1);
                }
                self.at_tag = false;
            } else if b == 0 {
                self.at_tag = true;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn enumerate_with(
    problem: &Problem,
    encoding: Encoding,
    limit: Option<u64>,
    count_learned: bool,
    visit: &mut dyn FnMut(&[Pos]) -> bool,
) -> Result<SatStats, Error> {
    let mut solver = Solver::new();
    let lemmas = std::rc::Rc::new(std::cell::Cell::new(0));
    if count_learned {
        // Before the first clause: varisat refuses a proof writer once clauses are in.
        let counter = LemmaCounter {
            lemmas: lemmas.clone(),
            at_tag: true,
        };
        solver.write_proof(counter, varisat::ProofFormat::BinaryDrat);
    }
    let mut loaded = load(problem, encoding, FixedMode::Simplify, solver);
    let mut stats = loaded.stats;
    let start = Instant::now();
    let mut found = 0u64;
    while limit.is_none_or(|k| found < k) {
        stats.solver_calls += 1;
        if !loaded.solver.solve().map_err(solver_error)? {
            break;
        }
        let queens = loaded.decode();
        found += 1;
        // Stop before adding a blocking clause nobody needs (and which a solver writing a
        // DRAT proof, as `solve_counting_learned`'s does, would refuse).
        if !visit(&queens) || limit.is_some_and(|k| found >= k) {
            break;
        }
        let block: Vec<Lit> = loaded
            .map
            .blocking_clause(&queens)
            .into_iter()
            .map(|l| loaded.solver_lit(l))
            .collect();
        if block.is_empty() {
            // Every queen was decided before encoding: that was the only solution.
            break;
        }
        loaded.solver.add_clause(&block);
    }
    if count_learned {
        // Flushes the proof writer, so every lemma has been counted.
        loaded.solver.close_proof().map_err(solver_error)?;
        stats.learned = Some(lemmas.get());
    }
    stats.solve_ms = ms(start);
    Ok(stats)
}

/// Counts solutions with blocking clauses, up to `limit`. Returns (count, limited, stats).
pub fn count(
    problem: &Problem,
    encoding: Encoding,
    limit: Option<u64>,
) -> Result<(u64, bool, SatStats), Error> {
    let mut total = 0;
    let stats = enumerate(problem, encoding, limit, |_| {
        total += 1;
        true
    })?;
    Ok((total, limit.is_some_and(|k| total >= k), stats))
}

/// Why a problem is unsolvable: a minimal set of presets with no completion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Explanation {
    /// The problem has a solution after all (shown).
    Solvable(Vec<Pos>),
    /// No solution. Removing any one member of `core` ∪ `blocked_core` makes the rest
    /// solvable; both empty means the board has no solution even without presets.
    Unsolvable {
        /// Fixed queens in the core.
        core: Vec<Pos>,
        /// Blocked cells in the core.
        blocked_core: Vec<Pos>,
        /// Excluded diagonals in the core (the SAT engine keeps them all: their cells have no
        /// variable to assume).
        excluded_core: Vec<Diagonal>,
        /// A direct reason when there is one (two fixed queens attacking each other).
        reason: Option<String>,
    },
}

/// A direct reason for a minimal core, when there is one: two fixed queens that attack each
/// other, a fixed queen on a blocked cell or an excluded diagonal, or no preset at all.
/// `excluded` is the core's excluded diagonals, or `None` when the explanation kept them all
/// rather than minimise them (the SAT engine's).
pub fn core_reason(
    problem: &Problem,
    queens: &[Pos],
    blocked: &[Pos],
    excluded: Option<&[Diagonal]>,
) -> Option<String> {
    match (queens, blocked, excluded.unwrap_or_default()) {
        ([a, b], [], []) if problem.attacks(*a, *b) => Some(format!(
            "fixed queens ({},{}) and ({},{}) attack each other",
            a.0, a.1, b.0, b.1
        )),
        ([a], [b], []) if a == b => Some(format!(
            "fixed queen ({},{}) stands on a blocked cell",
            a.0, a.1
        )),
        ([a], [], [d]) if d.contains(problem.n(), *a) => Some(format!(
            "fixed queen ({},{}) stands on an excluded diagonal",
            a.0, a.1
        )),
        ([], [], []) if excluded.is_some() || problem.excluded().is_empty() => {
            Some("the board has no solution even without any preset".to_string())
        }
        ([], [], []) => Some(
            "the excluded diagonals alone leave no completion (this engine does not minimise \
             them: explain with the backtrack engine)"
                .to_string(),
        ),
        _ => None,
    }
}

/// Explains an unsolvable completion: failed assumptions from varisat, then deletion-based
/// shrinking (drop a member, re-solve; keep it out while still unsatisfiable), so the result
/// is minimal: every strict subset of it has a completion.
pub fn explain(problem: &Problem, encoding: Encoding) -> Result<(Explanation, SatStats), Error> {
    // A fixed queen on an excluded diagonal has no variable to assume: it is a core alone.
    if let Some(&p) = problem
        .fixed()
        .iter()
        .find(|&&p| !problem.is_open(p) && problem.blocked().binary_search(&p).is_err())
    {
        let reason = format!(
            "fixed queen ({},{}) stands on an excluded diagonal",
            p.0, p.1
        );
        let exp = Explanation::Unsolvable {
            core: vec![p],
            blocked_core: Vec::new(),
            excluded_core: problem.excluded().to_vec(),
            reason: Some(reason),
        };
        return Ok((exp, SatStats::default()));
    }
    let mut loaded = load(problem, encoding, FixedMode::Assume, Solver::new());
    let mut stats = loaded.stats;
    let start = Instant::now();
    // Assumptions and cores are in the solver's literals throughout.
    let all: Vec<Lit> = loaded
        .map
        .assumptions()
        .iter()
        .map(|&(l, _)| loaded.solver_lit(l))
        .collect();
    // First call: either a model (solvable) or the failed core.
    stats.solver_calls += 1;
    loaded.solver.assume(&all);
    if loaded.solver.solve().map_err(solver_error)? {
        let queens = loaded.decode();
        stats.solve_ms = ms(start);
        return Ok((Explanation::Solvable(queens), stats));
    }
    let mut core = loaded
        .solver
        .failed_core()
        .map(<[Lit]>::to_vec)
        .unwrap_or_default();
    // Deletion-based minimisation. Members before `i` are needed: dropping one made the rest
    // satisfiable, so every smaller unsatisfiable subset still contains it and the filtered
    // core keeps them in place.
    let mut i = 0;
    while i < core.len() {
        let trial: Vec<Lit> = core
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &l)| l)
            .collect();
        stats.solver_calls += 1;
        loaded.solver.assume(&trial);
        if loaded.solver.solve().map_err(solver_error)? {
            i += 1;
        } else {
            let failed = loaded
                .solver
                .failed_core()
                .map(<[Lit]>::to_vec)
                .unwrap_or_default();
            core = trial.into_iter().filter(|l| failed.contains(l)).collect();
        }
    }
    stats.solve_ms = ms(start);
    let mut queens_core = Vec::new();
    let mut blocked_core = Vec::new();
    for &(l, preset) in loaded.map.assumptions() {
        if core.contains(&loaded.solver_lit(l)) {
            match preset {
                Preset::Queen(p) => queens_core.push(p),
                Preset::Blocked(p) => blocked_core.push(p),
            }
        }
    }
    queens_core.sort_unstable();
    queens_core.dedup();
    blocked_core.sort_unstable();
    let reason = core_reason(problem, &queens_core, &blocked_core, None);
    Ok((
        Explanation::Unsolvable {
            core: queens_core,
            blocked_core,
            excluded_core: problem.excluded().to_vec(),
            reason,
        },
        stats,
    ))
}

/// Solves `formula` with varisat and writes a proof in `format` to `out`.
///
/// Returns the model (one literal per variable) if the formula is satisfiable, `None` if it is
/// not; only then is `out` a complete proof of unsatisfiability of exactly `formula`. On SAT a
/// DRAT `out` holds the lemmas varisat learned before finding the model and an LRAT `out` is
/// left empty.
///
/// There are no assumptions: varisat 0.2.2 panics when it has to write an assumption step into
/// a DRAT proof. Add assumed literals as unit clauses (and write them into the CNF) instead.
///
/// varisat writes no empty clause when it finds the formula unsatisfiable while loading it (an
/// empty clause or two complementary unit clauses in the input); the empty clause is appended
/// here in that case so that every proof ends with it. LRAT is produced by [`drat_to_lrat`]
/// from a binary DRAT proof kept in memory.
pub fn solve_with_proof(
    formula: &CnfFormula,
    format: ProofFormat,
    out: &mut dyn Write,
) -> Result<Option<Vec<Lit>>, ProofError> {
    match format {
        ProofFormat::Drat => run_varisat(formula, false, out),
        ProofFormat::BinaryDrat => run_varisat(formula, true, out),
        ProofFormat::Lrat => {
            let mut drat = Vec::new();
            let model = run_varisat(formula, true, &mut drat)?;
            if model.is_none() {
                drat_to_lrat(formula, &drat, true, out)?;
            }
            Ok(model)
        }
        ProofFormat::BinaryLrat => {
            let mut text = Vec::new();
            let model = solve_with_proof(formula, ProofFormat::Lrat, &mut text)?;
            if model.is_none() {
                check_and_write(formula, &text[..], false, out, false)?;
            }
            Ok(model)
        }
    }
}

fn run_varisat(
    formula: &CnfFormula,
    binary: bool,
    out: &mut dyn Write,
) -> Result<Option<Vec<Lit>>, ProofError> {
    let solver_error = |e: varisat::solver::SolverError| match e {
        varisat::solver::SolverError::ProofIoError { cause } => ProofError::Io(cause),
        other => ProofError::Solver(other.to_string()),
    };
    let mut solver = Solver::new();
    let varisat_format = if binary {
        varisat::ProofFormat::BinaryDrat
    } else {
        varisat::ProofFormat::Drat
    };
    solver.write_proof(&mut *out, varisat_format);
    solver.add_formula(formula);
    let sat = solver.solve().map_err(solver_error)?;
    // Flushes varisat's buffer; the DRAT writers ignore the `End` step it adds.
    solver.close_proof().map_err(solver_error)?;
    let model = if sat { solver.model() } else { None };
    drop(solver);
    if !sat && refuted_while_loading(formula) {
        let style = if binary {
            DratStyle::Binary
        } else {
            DratStyle::Text
        };
        out.write_all(&empty_clause(style))?;
    }
    out.flush()?;
    Ok(model)
}

/// The two cases in which varisat's loader sets UNSAT without writing a proof step.
fn refuted_while_loading(formula: &CnfFormula) -> bool {
    let mut units = HashMap::new();
    for clause in formula.iter() {
        let mut lits = clause.to_vec();
        lits.sort_unstable();
        lits.dedup();
        match lits[..] {
            [] => return true,
            [lit] => {
                if units.get(&lit.var()) == Some(&!lit.is_positive()) {
                    return true;
                }
                units.insert(lit.var(), lit.is_positive());
            }
            _ => {}
        }
    }
    false
}
