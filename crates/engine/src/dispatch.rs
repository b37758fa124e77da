//! The dispatch: one call per question (one solution as cells, a listing, a count) on the
//! engine an [`EngineSpec`] names, and every board it returns verified before anyone sees
//! it. One solution goes through the solve path's stages ([`crate::stages`]).

use std::time::Instant;

use crate::checked::checked;
use crate::encode::amo::Encoding;
use crate::engines::{self, Core, Engine};
use crate::named::engine_of;
use crate::stages::{self, complete_only, on_whole_board};
use crate::{ms, Answer, Budget, Counted, EngineSpec, Listed, Solved, SolvedColumns, Work};
use queens_model::error::Error;
use queens_model::model::{Pos, Problem};

/// Finds one solution or proves there is none, within the budget (the SAT engine only
/// notices the budget before it starts: run it in a child process for a hard deadline).
/// The cells are sorted by row.
pub fn solve(problem: &Problem, spec: EngineSpec, budget: &Budget) -> Result<Solved, Error> {
    if budget.exhausted() {
        return Ok(Solved {
            answer: Answer::Interrupted,
            work: Work::default(),
        });
    }
    Ok(as_cells(stages::solve_columns(problem, spec, budget)?))
}

/// [`solve`] on the SAT engine, also counting the clauses the solver learns
/// (`work.sat.learned`, see [`crate::sat::solve_counting_learned`]): what `compare` reports beside
/// the backtracker's nodes.
pub fn solve_counting_learned(
    problem: &Problem,
    encoding: Encoding,
    budget: &Budget,
) -> Result<Solved, Error> {
    let spec = EngineSpec::Sat(encoding);
    let engine = engines::Sat {
        encoding,
        learned: true,
    };
    let solved = on_whole_board(problem, Ok(Box::new(engine)), spec, budget)?;
    Ok(as_cells(solved))
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
    nothing_counts(problem)?;
    let spec = counting_engine(spec)?;
    complete_only(problem, spec)?;
    let engine = engine_of(spec)?;
    let (mut work, interrupted) = if budget.exhausted() {
        (Work::default(), true)
    } else {
        engine.list(problem, cap, budget, &mut visit)?
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
    nothing_counts(problem)?;
    let by_core = matches!(spec, EngineSpec::Auto { .. }) && crate::plan::counts_on_core(problem)
        || problem.is_sparse() && matches!(spec, EngineSpec::Backtrack { .. });
    if by_core {
        return Core { seed: 1 }
            .count(problem, limit, budget)
            .expect("the core search counts");
    }
    let spec = counting_engine(spec)?;
    complete_only(problem, spec)?;
    let engine = engine_of(spec)?;
    let mut counted = match engine.count(problem, limit, budget) {
        Some(counted) => counted?,
        None => {
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

/// Refuses to count or list an empty board past [`queens_model::model::MAX_N`]: no engine does
/// (the complete engines keep n² bits up to it, and past it search only the rows fixed queens
/// leave free; local search finds one solution and counts nothing).
fn nothing_counts(problem: &Problem) -> Result<(), Error> {
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

/// An answer as cells sorted by row, from one column per row.
fn as_cells(solved: SolvedColumns) -> Solved {
    let answer = solved
        .answer
        .map_sat(|cols| {
            cols.iter()
                .enumerate()
                .map(|(r, &c)| (r, c as usize))
                .collect()
        })
        .map_unsat(|_| ());
    Solved {
        answer,
        work: solved.work,
    }
}
