//! The dispatch: one call per question (one solution, one solution as a column per row, a
//! listing, a count) on the engine an [`EngineSpec`] names, and every board it returns
//! verified before anyone sees it.

use std::time::Instant;

use crate::auto::Auto;
use crate::checked::{checked, verify_columns};
use crate::encode::amo::Encoding;
use crate::engines::{self, Core, Engine};
use crate::error::Error;
use crate::model::{Pos, Problem};
use crate::{
    check_local_memory, completion, ms, Answer, Budget, ColumnAnswer, Counted, EngineSpec, Listed,
    Solved, SolvedColumns, Work,
};

/// The error for a race asked of an entry point that cannot start its SAT child, or for
/// more than one solution.
pub(crate) fn race_needs_a_caller() -> Error {
    Error::unsupported(
        "engine race answers whether there is a solution (solve, one solution); use \
         backtrack or sat for counting and listing"
            .into(),
    )
}

/// The engine `spec` names. A race of the backtracker and the SAT engine needs a caller that
/// can start a child process (the operations layer), so it is not one here.
pub fn engine_of(spec: EngineSpec) -> Result<Box<dyn Engine>, Error> {
    Ok(match spec {
        EngineSpec::Backtrack { threads } => Box::new(engines::Backtrack {
            threads,
            rings: false,
        }),
        EngineSpec::BacktrackRings { threads } => Box::new(engines::Backtrack {
            threads,
            rings: true,
        }),
        EngineSpec::Sat(encoding) => Box::new(engines::Sat {
            encoding,
            learned: false,
        }),
        EngineSpec::Ext(x) => Box::new(engines::Ext(x)),
        EngineSpec::Local { seed } => Box::new(engines::Local { seed }),
        EngineSpec::Auto { seed } => Box::new(Auto { seed }),
        EngineSpec::Race(_) => return Err(race_needs_a_caller()),
    })
}

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
    let solved = if answers_in_columns(problem, spec) {
        solve_columns(problem, spec, budget)?
    } else {
        on_whole_board(problem, engine_of(spec), spec, budget)?
    };
    Ok(as_cells(solved))
}

/// The engines that answer one column per row themselves: local search, `auto`, and the
/// backtracker past [`crate::model::MAX_N`] (on the core of the completion).
fn answers_in_columns(problem: &Problem, spec: EngineSpec) -> bool {
    matches!(spec, EngineSpec::Local { .. } | EngineSpec::Auto { .. })
        || problem.is_sparse() && matches!(spec, EngineSpec::Backtrack { .. })
}

/// A complete engine on the board (on its core past [`crate::model::MAX_N`], where the core
/// fits): `Interrupted` when the budget ran out before it started, the board refused where
/// the engine cannot take it ([`complete_only`]), then the engine's run, timed.
fn on_whole_board(
    problem: &Problem,
    engine: Result<Box<dyn Engine>, Error>,
    spec: EngineSpec,
    budget: &Budget,
) -> Result<SolvedColumns, Error> {
    let start = Instant::now();
    if budget.exhausted() {
        return Ok(SolvedColumns {
            answer: ColumnAnswer::Interrupted,
            work: Work::default(),
        });
    }
    complete_only(problem, spec)?;
    let mut solved = engine?.solve(problem, budget)?;
    solved.work.time_ms = ms(start);
    Ok(solved)
}

/// [`solve`] on the SAT engine, also counting the clauses the solver learns
/// (`work.sat.learned`, see [`sat::solve_counting_learned`]): what `compare` reports beside
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
    let by_core = matches!(spec, EngineSpec::Auto { .. }) && completion::suits_auto(problem)
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

/// Finds one solution or proves there is none, as one column per row: any engine, and the
/// only way to solve a board past [`crate::model::MAX_N`] (local or auto). Every solution has
/// passed [`crate::verify::verify_columns`].
pub fn solve_columns(
    problem: &Problem,
    spec: EngineSpec,
    budget: &Budget,
) -> Result<SolvedColumns, Error> {
    let start = Instant::now();
    let mut solved = if answers_in_columns(problem, spec) {
        if let EngineSpec::Local { .. } = spec {
            check_local_memory(problem, budget)?;
        }
        engine_of(spec)?.solve(problem, budget)?
    } else {
        let mut solved = on_whole_board(problem, engine_of(spec), spec, budget)?;
        solved.work.answered_by = Some(spec);
        solved
    };
    verify_columns(problem, spec, &solved)?;
    solved.work.time_ms = ms(start);
    Ok(solved)
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
