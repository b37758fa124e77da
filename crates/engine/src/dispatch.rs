//! The dispatch: one call per question (one solution, one solution as a column per row, a
//! listing, a count) on the engine an [`EngineSpec`] names, and every board it returns
//! verified before anyone sees it.

use std::time::Instant;

use crate::encode::amo::Encoding;
use crate::error::Error;
use crate::model::{Pos, Problem};
use crate::verify;
use crate::{
    auto, backtrack, check_local_memory, check_sat_memory, completion, ext, local, ms, sat, Answer,
    Budget, ColumnAnswer, Counted, EngineSpec, Listed, SatMemory, Solved, SolvedColumns, Work,
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
pub(crate) fn columns_of(n: usize, queens: &[Pos]) -> Vec<u32> {
    let mut cols = vec![u32::MAX; n];
    for &(r, c) in queens {
        if r < n {
            cols[r] = c as u32;
        }
    }
    cols
}
