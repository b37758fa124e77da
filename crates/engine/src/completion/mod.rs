//! The core of a classic completion: what is left to decide once the fixed queens stand.
//!
//! A classic board (rule `full`, no regions) with fixed queens, blocked cells and excluded
//! diagonals leaves δ free rows and δ free columns. Every solution puts one queen in each free
//! row and column, on a cell no fixed queen attacks diagonally, that is not blocked and not on
//! an excluded diagonal: the *open* cells of the free rows × free columns. Two open cells
//! conflict when they share a row, a column, or one of the board's diagonals. That δ×δ
//! problem, the core, is all the search needs, whatever n is: memory and time grow with the
//! presets and the open cells, never with n².
//!
//! [`presolve`] builds the core in O(n / 64 + presets + δ²) time and 6n bits of bitmaps
//! (rows, columns and both directions of diagonals, 0.75 n bytes in all) and refutes on it what is cheap and sound: a free row or column without an
//! open cell, and a set of free rows whose open cells lie in fewer free columns than rows
//! (Hall's condition, found by a maximum matching). [`search`] decides the rest
//! completely, and [`cnf`] writes the core as CNF for SAT solvers and proofs. Every answer
//! is lifted back to the n×n board ([`Core::lift`]) and verified there by the caller.

pub mod cnf;
mod core;
mod estimate;
mod matching;
mod open;
pub mod search;

use queens_model::error::Error;
use queens_model::model::{DiagonalRule, Problem};
use queens_model::Budget;

use self::core::empty_line_reason;
pub use self::core::Core;
use self::core::{Lines, NONE};
pub use self::estimate::{bytes, estimate_core, CoreEstimate, CORE_ALONE};
pub use self::matching::{hall_on_bitmaps, Hall, HALL_LOOKS, HALL_QUICK_LOOKS};
pub use self::open::Open;
pub use crate::work::CoreSize;

/// Largest core (free rows) the complete core engines take: the open cells are held in
/// memory (about 28 bytes each: up to δ² of them, about δ² / 40 on Gent-style random
/// completions near the crossing), so a core of 8,192 rows needs at most about 2 GB. Past
/// it, the board goes to local search.
pub const MAX_CORE_ROWS: usize = 8_192;

/// Bytes the core holds per open cell, at its peak: its row, column and diagonals (16), its
/// place in the column and diagonal lists (12), the search's alive flag and trail (5), and the
/// sort that numbers the diagonals (24, freed before the search).
pub const CELL_BYTES: u64 = 60;

/// Bytes a core of `cells` open cells on an n×n board takes at its peak: the bitmaps of the
/// rows, columns and diagonals, and [`CELL_BYTES`] a cell. A core has at most 4096² cells up
/// to [`queens_model::model::MAX_N`] rows and [`MAX_CORE_ROWS`]² past it, so every index fits a
/// `u32`.
pub fn memory_estimate(n: usize, cells: usize) -> u64 {
    (3 * n as u64) / 4 + CELL_BYTES * cells as u64
}

/// What [`presolve`] found.
#[derive(Debug)]
pub enum Presolved {
    /// Proven: no solution, with the reason.
    Refuted(Refutation),
    /// The core, to search.
    Core(Box<Core>),
}

/// Why the core has no solution, found without search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refutation {
    /// The fixed queens break a rule, or stand on a closed cell (the local engine's checks).
    Presets(String),
    /// A free row or column without an open cell: its clause in the core CNF is empty.
    EmptyLine(String),
    /// Free rows whose open cells lie in fewer free columns (Hall's condition), with them
    /// and their columns as data.
    Hall(crate::answer::Reason),
}

impl Refutation {
    /// The reason, for people.
    pub fn reason(&self) -> &str {
        match self {
            Refutation::Presets(s) | Refutation::EmptyLine(s) => s,
            Refutation::Hall(r) => r,
        }
    }

    /// The reason, with its data.
    pub fn into_reason(self) -> crate::answer::Reason {
        match self {
            Refutation::Presets(s) | Refutation::EmptyLine(s) => s.into(),
            Refutation::Hall(r) => r,
        }
    }
}

/// Whether the core engines take this problem: classic rule, no regions.
pub fn applies(problem: &Problem) -> bool {
    problem.rule() == DiagonalRule::Full && problem.regions().is_none()
}

/// The number of free rows of a classic problem (δ), without building anything: n minus the
/// rows that hold a fixed queen.
pub fn free_rows(problem: &Problem) -> usize {
    let fixed = problem.fixed();
    let taken = fixed.len() - fixed.windows(2).filter(|w| w[0].0 == w[1].0).count();
    problem.n() - taken
}

/// Whether the core is small against the board: at most [`MAX_CORE_ROWS`] free rows and at
/// most 40 % of the board's. Above that it is no completion with few rows left but a lightly
/// preset board, which local search solves, and its core could hold up to δ² cells; and up to
/// 4096 rows the whole-board backtracker catches up with the core search there (measured on
/// boards preset with rows of a solution: at 2,000 and 4,000 rows the core search was 4–8×
/// faster with a quarter of the rows free, 2.3–3.5× with a third, 1.3–1.8× with 40 %, and
/// 0.7–0.9× with half).
fn is_small(problem: &Problem) -> bool {
    let delta = free_rows(problem);
    delta <= MAX_CORE_ROWS && 5 * delta <= 2 * problem.n()
}

/// Refuses (with [`Error::TooLarge`]) a board past [`queens_model::model::MAX_N`] whose core is not
/// small (see [`suits_auto`]); up to [`queens_model::model::MAX_N`] every core fits (at most 4096
/// rows).
pub fn fits(problem: &Problem) -> Result<(), Error> {
    if !problem.is_sparse() || is_small(problem) {
        return Ok(());
    }
    let n = problem.n();
    let max = queens_model::model::MAX_N;
    if problem.fixed().is_empty() {
        return Err(Error::too_large_at_field(
            "n",
            format!(
                "the complete engines search boards up to {max}×{max}, and past that only \
                 completions whose fixed queens leave few rows free; this {n}×{n} board has no \
                 fixed queen: local search solves it (engine local or auto)"
            ),
        ));
    }
    Err(Error::too_large_at_field(
        "n",
        format!(
            "the core of this {n}×{n} board has {} free rows; past {}, the complete engines \
             take a completion with at most 40 % of its rows and at most {MAX_CORE_ROWS} \
             free: use engine local or auto",
            free_rows(problem),
            queens_model::model::MAX_N
        ),
    ))
}

/// Builds the core of a classic problem and, with `refute`, refutes what is cheap (see the
/// module documentation); without it only fixed queens that break a rule are refuted, and a
/// core with an empty line is returned as it is (a proof refutes its CNF, whose clause for
/// that line is empty). Refuses (with [`Error::TooLarge`]) a core that does not [`fits`];
/// `None` when the budget ran out.
pub fn presolve(
    problem: &Problem,
    refute: bool,
    budget: &Budget,
) -> Result<Option<Presolved>, Error> {
    build(problem, refute, budget, Bound::Small)
}

/// Which cores [`build`] takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    /// Only a core that [`fits`]: what a search for one solution builds, leaving a lightly
    /// preset board to local search.
    Small,
    /// Any core under the memory limit: a count searches the whole core whatever its size,
    /// and no other engine counts a board past [`queens_model::model::MAX_N`].
    Memory,
}

impl Bound {
    /// What a caller over the memory limit can do instead.
    fn advice(self) -> &'static str {
        match self {
            Bound::Small => "raise the limit (--max-memory) or use engine local or auto",
            Bound::Memory => {
                "a count searches the whole core, so raise the limit (--max-memory) or fix \
                 more queens"
            }
        }
    }
}

/// Most open cells of any core: every index of a cell is a `u32`.
const MAX_CELLS: u64 = u32::MAX as u64 - 1;

/// [`presolve`] under `bound`.
fn build(
    problem: &Problem,
    refute: bool,
    budget: &Budget,
    bound: Bound,
) -> Result<Option<Presolved>, Error> {
    if !applies(problem) {
        return Err(Error::unsupported(
            "the core engines solve classic boards (rule full, no regions)".into(),
        )
        .about("engine"));
    }
    if bound == Bound::Small || problem.fixed().is_empty() {
        fits(problem)?;
    }
    let n = problem.n();
    // One pass marks the fixed queens' lines. A line marked twice is two fixed queens that
    // attack each other, and a fixed queen may stand on a closed cell: the local engine's
    // checks (which sort) then name the queens; on a consistent board they are skipped.
    let (open, clash) = Open::new(problem);
    if clash || !problem.blocked().is_empty() || !problem.excluded().is_empty() {
        if let Some(why) = crate::local::refute_presets(problem) {
            return Ok(Some(Presolved::Refuted(Refutation::Presets(why))));
        }
    }
    if clash {
        return Err(Error::internal(
            "two fixed queens share a line, but the preset checks found none",
        ));
    }
    // The memory before the core: an estimate from a sample of its rows, then the count as
    // it grows (the sample may miss a dense part). Past the small bound the cells are not
    // bounded by MAX_CORE_ROWS², so the width of their indices bounds them too.
    let limit = match bound {
        Bound::Small => budget.max_memory,
        Bound::Memory => Some(
            budget
                .max_memory
                .unwrap_or(u64::MAX)
                .min(memory_estimate(n, MAX_CELLS as usize)),
        ),
    };
    if let Some(limit) = limit {
        let cells = open.estimate_cells();
        let need = memory_estimate(n, cells as usize);
        if need > limit {
            return Err(Error::too_large_at_field(
                "n",
                format!(
                    "the core of this {n}×{n} board would need about {} MB ({cells} open cells \
                     estimated from its {} free rows, {CELL_BYTES} bytes a cell and 0.75 a \
                     row), over the memory limit of {} MB: {}",
                    need.div_ceil(1 << 20),
                    open.free_rows(),
                    limit >> 20,
                    bound.advice()
                ),
            ));
        }
    }
    let (rows, cols) = (&open.rows, &open.cols);
    let mut cell_row = Vec::new();
    let mut cell_col = Vec::new();
    let mut row_start = Vec::with_capacity(rows.len() + 1);
    row_start.push(0u32);
    let mut col_count = vec![0u32; cols.len()];
    for (i, &r) in rows.iter().enumerate() {
        if i % 64 == 0 && budget.exhausted() {
            return Ok(None);
        }
        let r = r as usize;
        for (j, &c) in cols.iter().enumerate() {
            if !open.open(r, c as usize) {
                continue;
            }
            cell_row.push(i as u32);
            cell_col.push(j as u32);
            col_count[j] += 1;
        }
        let need = memory_estimate(n, cell_row.len());
        if limit.is_some_and(|limit| need > limit) {
            return Err(Error::too_large_at_field(
                "n",
                format!(
                    "the core of this {n}×{n} board needs more than {} MB (0.75 bytes a row, \
                     {CELL_BYTES} a cell of the core, {} so far), over the memory limit of {} MB: \
                     {}",
                    need >> 20,
                    cell_row.len(),
                    limit.unwrap_or(0) >> 20,
                    bound.advice()
                ),
            ));
        }
        if refute && cell_row.len() == *row_start.last().unwrap_or(&0) as usize {
            return Ok(Some(Presolved::Refuted(Refutation::EmptyLine(
                empty_line_reason("row", r as u32),
            ))));
        }
        row_start.push(cell_row.len() as u32);
    }
    if let Some(j) = col_count.iter().position(|&k| k == 0).filter(|_| refute) {
        return Ok(Some(Presolved::Refuted(Refutation::EmptyLine(
            empty_line_reason("column", cols[j]),
        ))));
    }
    let col_cells = Lines::group(&cell_col, cols.len());
    // Diagonals shared by two or more open cells get a line id; the others none.
    let diagonal_ids = |key: &dyn Fn(usize) -> u64| -> (Vec<u32>, usize) {
        let mut keyed: Vec<(u64, u32)> = (0..cell_row.len()).map(|x| (key(x), x as u32)).collect();
        keyed.sort_unstable();
        let mut ids = vec![NONE; cell_row.len()];
        let mut next = 0u32;
        let mut a = 0;
        while a < keyed.len() {
            let mut b = a + 1;
            while b < keyed.len() && keyed[b].0 == keyed[a].0 {
                b += 1;
            }
            if b - a >= 2 {
                for &(_, x) in &keyed[a..b] {
                    ids[x as usize] = next;
                }
                next += 1;
            }
            a = b;
        }
        (ids, next as usize)
    };
    let orig = |x: usize| {
        (
            rows[cell_row[x] as usize] as u64,
            cols[cell_col[x] as usize] as u64,
        )
    };
    let (cell_sum, sums) = diagonal_ids(&|x| {
        let (r, c) = orig(x);
        r + c
    });
    let (cell_diff, diffs) = diagonal_ids(&|x| {
        let (r, c) = orig(x);
        c + n as u64 - 1 - r
    });
    let sum_cells = Lines::group(&cell_sum, sums);
    let diff_cells = Lines::group(&cell_diff, diffs);
    let core = Core {
        n,
        rows: open.rows,
        cols: open.cols,
        cell_row,
        cell_col,
        cell_sum,
        cell_diff,
        row_start,
        col_cells,
        sum_cells,
        diff_cells,
    };
    if refute {
        if let Some(why) = matching::hall_violation(&core, Some(budget)) {
            return Ok(Some(Presolved::Refuted(Refutation::Hall(why))));
        }
    }
    Ok(Some(Presolved::Core(Box::new(core))))
}

/// Below this many rows `auto` leaves a board to the engines of the whole board: they answer
/// small boards in microseconds, and their work counts are what users of those sizes know.
pub const AUTO_FROM_N: usize = 64;

/// Whether `auto` counts `problem` on its core ([`crate::plan::counts_on_core`]; one
/// solution is the portfolio's, a node of [`crate::plan`]): a classic board of at least
/// [`AUTO_FROM_N`] rows with fixed queens, at most 40 % of its rows free and at most
/// [`MAX_CORE_ROWS`].
pub fn suits_auto(problem: &Problem) -> bool {
    applies(problem)
        && !problem.fixed().is_empty()
        && problem.n() >= AUTO_FROM_N
        && is_small(problem)
}

/// What the presolve stage of the core path leaves: the answer presolving already gives (a
/// cheap refutation, or the budget spent), or the core to search with the work so far.
pub enum Presolve {
    /// Decided (or interrupted) before any search.
    Answered(crate::answer::SolvedColumns),
    /// The core, for the engine stage.
    Core(Box<Core>, crate::work::Work),
}

/// The presolve stage of the core path: the fixed queens' lines taken out and the cheap
/// refutations tried ([`presolve`]), the work counted as the backtracker's on one thread.
pub fn presolve_stage(problem: &Problem, budget: &Budget) -> Result<Presolve, Error> {
    use crate::answer::{ColumnAnswer, SolvedColumns};
    use crate::spec::EngineSpec;
    use crate::work::Work;
    let mut work = Work {
        answered_by: Some(EngineSpec::Backtrack { threads: 1 }),
        nodes: Some(0),
        ..Work::default()
    };
    let core = match presolve(problem, true, budget)? {
        None => {
            return Ok(Presolve::Answered(SolvedColumns {
                answer: ColumnAnswer::Interrupted,
                work,
            }))
        }
        Some(Presolved::Refuted(why)) => {
            return Ok(Presolve::Answered(SolvedColumns {
                answer: ColumnAnswer::Unsat(Some(why.into_reason())),
                work,
            }))
        }
        Some(Presolved::Core(core)) => core,
    };
    work.core = Some(core.size());
    Ok(Presolve::Core(core, work))
}

/// The lift stage of the core path: the core search's answer back on the n×n board, one
/// column per row (not verified: the verify stage follows).
pub fn lift(
    problem: &Problem,
    core: &Core,
    (found, stats): (search::Found, search::Stats),
    mut work: crate::work::Work,
) -> crate::answer::SolvedColumns {
    use crate::answer::{ColumnAnswer, SolvedColumns};
    work.nodes = Some(stats.nodes);
    let answer = match found {
        search::Found::Solution(cells) => ColumnAnswer::Sat(core.lift(problem, &cells)),
        search::Found::None => ColumnAnswer::Unsat(Some(exhausted(core, stats.nodes).into())),
        search::Found::Interrupted => ColumnAnswer::Interrupted,
    };
    SolvedColumns { answer, work }
}

/// One solution (one column per row, not yet verified) or a proven "no" with its reason, by
/// the core search; `work.core` gives the core's size.
pub fn solve_columns(
    problem: &Problem,
    seed: u64,
    budget: &Budget,
) -> Result<crate::answer::SolvedColumns, Error> {
    Ok(match presolve_stage(problem, budget)? {
        Presolve::Answered(solved) => solved,
        Presolve::Core(core, work) => lift(problem, &core, search::find(&core, seed, budget), work),
    })
}

/// The number of solutions of a classic problem, up to `limit`, by the core search. A count
/// searches the whole core in any case, so any core under the budget's memory limit is
/// built, past the bound of [`fits`] too (that bound leaves a lightly preset board to local
/// search, which counts nothing); a core over the limit is refused before it is built, from
/// the estimate of its cells.
pub fn count(
    problem: &Problem,
    limit: Option<u64>,
    budget: &Budget,
) -> Result<(search::CoreCount, Option<CoreSize>), Error> {
    match build(problem, true, budget, Bound::Memory)? {
        None => Ok((
            search::CoreCount {
                interrupted: true,
                ..search::CoreCount::default()
            },
            None,
        )),
        Some(Presolved::Refuted(_)) => Ok((search::CoreCount::default(), None)),
        Some(Presolved::Core(core)) => Ok((search::count(&core, limit, budget), Some(core.size()))),
    }
}

/// "No solution" found by searching the core.
fn exhausted(core: &Core, nodes: u64) -> String {
    format!(
        "the search of the core ({} free rows, {} open cells) is exhausted ({nodes} nodes)",
        core.rows(),
        core.cells()
    )
}

/// A checked LRAT refutation of a core's CNF.
pub struct CoreProof {
    /// The core the CNF encodes (its cell map).
    pub core: Box<Core>,
    /// The core CNF ([`cnf::formula`]).
    pub formula: varisat::CnfFormula,
    /// The proof: LRAT text, or the search's DRAT text.
    pub proof: Vec<u8>,
    /// Lemmas in the proof (after trimming, for LRAT).
    pub lemmas: u64,
    /// Milliseconds the built-in checker took to accept it.
    pub check_ms: f64,
}

/// What [`prove`] found.
pub enum Proved {
    /// A solution, one column per row (not yet verified).
    Sat(Vec<u32>),
    /// No solution: the reason, and the proof (none when the fixed queens themselves break a
    /// rule: no core exists, and the verifier shows the broken rule directly).
    Unsat(String, Option<CoreProof>),
    /// The budget ran out.
    Interrupted,
}

/// Solves a classic problem on its core, and refutes the core CNF when
/// there is no solution: the search's DRAT lemmas, turned into LRAT with hints (`lrat`) or
/// kept as DRAT, accepted by the built-in checker before anything is returned.
pub fn prove(
    problem: &Problem,
    lrat: bool,
    budget: &Budget,
) -> Result<(Proved, crate::work::Work), Error> {
    use crate::spec::EngineSpec;
    use crate::work::Work;
    let mut work = Work {
        answered_by: Some(EngineSpec::Backtrack { threads: 1 }),
        nodes: Some(0),
        ..Work::default()
    };
    let core = match presolve(problem, false, budget)? {
        None => return Ok((Proved::Interrupted, work)),
        Some(Presolved::Refuted(why)) => {
            return Ok((Proved::Unsat(why.reason().to_string(), None), work))
        }
        Some(Presolved::Core(core)) => core,
    };
    work.core = Some(core.size());
    let mut drat = Vec::new();
    let mut log = search::DratLog::new(&mut drat);
    let (found, stats) = search::prove(&core, &mut log, budget)
        .map_err(|e| Error::internal_from("writing the core proof", e))?;
    work.nodes = Some(stats.nodes);
    let proof_error = |e| Error::internal_from("the core proof", e);
    match found {
        search::Found::Interrupted => Ok((Proved::Interrupted, work)),
        search::Found::Solution(cells) => Ok((Proved::Sat(core.lift(problem, &cells)), work)),
        search::Found::None => {
            let formula = cnf::formula(&core);
            let start = std::time::Instant::now();
            let (proof, lemmas) = if lrat {
                let mut out = Vec::new();
                queens_proof::drat_to_lrat(&formula, &drat, false, &mut out)
                    .map_err(proof_error)?;
                let stats = queens_proof::check::check_lrat(&formula, &out).map_err(proof_error)?;
                (out, stats.lemmas)
            } else {
                let stats =
                    queens_proof::drat::check_drat(&formula, &drat, false).map_err(proof_error)?;
                (drat, stats.lemmas)
            };
            let check_ms = crate::work::ms(start);
            // The cheap reasons say more than "exhausted" where they hold.
            let why = core
                .empty_line()
                .or_else(|| matching::hall_violation(&core, None).map(|r| r.text))
                .unwrap_or_else(|| exhausted(&core, stats.nodes));
            let proof = CoreProof {
                core,
                formula,
                proof,
                lemmas,
                check_ms,
            };
            Ok((Proved::Unsat(why, Some(proof)), work))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nauck_core_has_six_rows_and_two_completions() {
        // b4 and d5 on the 8×8 board: rows 4 and 3 from the top, columns 1 and 3.
        let p = Problem::new(8)
            .unwrap()
            .with_fixed(&[(4, 1), (3, 3)])
            .unwrap();
        let Some(Presolved::Core(core)) = presolve(&p, true, &Budget::default()).unwrap() else {
            panic!("expected a core")
        };
        assert_eq!(core.rows(), 6);
        let counted = search::count(&core, None, &Budget::default());
        assert_eq!(counted.count, 2);
    }

    #[test]
    fn a_core_over_the_memory_limit_is_refused_as_it_grows() {
        let p = Problem::new(64).unwrap().with_fixed(&[(0, 0)]).unwrap();
        let budget = Budget {
            max_memory: Some(10_000),
            ..Budget::default()
        };
        match presolve(&p, true, &budget) {
            Err(Error::TooLarge { .. }) => {}
            other => panic!("{other:?}"),
        }
        assert!(presolve(&p, true, &Budget::default()).unwrap().is_some());
    }

    #[test]
    fn empty_row_is_refuted() {
        // On 4×4, queens at (0,1) and (1,3) leave row 2: (2,0) attacked by (0,... ) etc.
        let p = Problem::new(4)
            .unwrap()
            .with_blocked(&[(2, 0), (2, 2)])
            .unwrap();
        let p = p.with_fixed(&[(0, 1)]).unwrap();
        match presolve(&p, true, &Budget::default()).unwrap() {
            Some(Presolved::Refuted(Refutation::EmptyLine(why))) => {
                assert!(why.contains("row 2"), "{why}")
            }
            other => panic!("{other:?}"),
        }
    }
}
