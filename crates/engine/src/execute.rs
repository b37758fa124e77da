//! The executor: runs any [`Plan`] and writes into each step when it started, when it
//! ended and how, and verifies every board before anyone sees it. One solution goes
//! through the plan's tree ([`execute`]); a listing or a count runs one complete engine
//! ([`enumerate`], [`count`]). Two steps side by side run through the one combinator,
//! [`crate::side_by_side`], whose sides may be closures over a child process the caller
//! supplies.
//!
//! The leaves are the engines, built from their spec by the engine table
//! ([`crate::table::engine_of`]); the completion portfolio's node runs in
//! [`crate::plan::run_portfolio`].

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use crate::answer::{Answer, ColumnAnswer, Counted, Listed, Solved, SolvedColumns};
use crate::checked::{checked, verify_columns};
use crate::completion;
use crate::encode::amo::Encoding;
use crate::engines::{self, CoreSearch, Engine};
use crate::memory::{check_local_memory, complete_only, nothing_counts};
use crate::plan::{plan, Action, Ask, Ending, Plan, Step};
use crate::side_by_side::side_by_side;
use crate::spec::EngineSpec;
use crate::table::engine_of;
use crate::work::{ms, Work};
use queens_model::error::Error;
use queens_model::model::{Pos, Problem};
use queens_model::Budget;

/// Finds one solution or proves there is none, as one column per row: any engine, and the
/// only way to solve a board past [`queens_model::model::MAX_N`] (local, auto, or a complete
/// engine on the core). The plan is made here, once. Every solution has passed
/// [`queens_model::verify::verify_columns`].
pub fn solve_columns(
    problem: &Problem,
    spec: EngineSpec,
    budget: &Budget,
) -> Result<SolvedColumns, Error> {
    let mut plan = plan(problem, spec, Ask::default(), budget);
    execute(&mut plan, problem, spec, budget)
}

/// Runs a one-solution plan of `problem` (`spec` is the engine the request named), filling
/// in its trace; the answer is verified.
pub fn execute(
    plan: &mut Plan<'_>,
    problem: &Problem,
    spec: EngineSpec,
    budget: &Budget,
) -> Result<SolvedColumns, Error> {
    let start = Instant::now();
    let bitmaps = plan.bitmaps.take();
    let mut solved = run(&mut plan.root, problem, budget, bitmaps, start)?;
    verify_columns(problem, spec, &solved)?;
    solved.work.time_ms = ms(start);
    Ok(solved)
}

/// Runs one step of a one-solution plan (a side of a side-by-side step, given alone), filling
/// in its trace; the answer is verified.
pub fn execute_step(
    step: &mut Step,
    problem: &Problem,
    spec: EngineSpec,
    budget: &Budget,
) -> Result<SolvedColumns, Error> {
    let start = Instant::now();
    let mut solved = run(step, problem, budget, None, start)?;
    verify_columns(problem, spec, &solved)?;
    solved.work.time_ms = ms(start);
    Ok(solved)
}

/// One solution by the complete engine `spec` names, as the leaf of a plan: on the core of
/// a completion past [`queens_model::model::MAX_N`] for the backtracker, else on the board.
/// The cells are sorted by row.
pub fn solve_leaf(problem: &Problem, spec: EngineSpec, budget: &Budget) -> Result<Solved, Error> {
    if budget.exhausted() {
        return Ok(Solved {
            answer: Answer::Interrupted,
            work: Work::default(),
        });
    }
    let mut step = Step::run(spec, "the engine named");
    if problem.is_sparse() && matches!(spec, EngineSpec::Backtrack { .. }) {
        step = Step::new(Action::Presolve, "the core", vec![step]);
    }
    Ok(SolvedColumns::into_cells(execute_step(
        &mut step, problem, spec, budget,
    )?))
}

/// Milliseconds from the plan's start `t0` to `t`.
fn at(t0: Instant, t: Instant) -> f64 {
    (t.saturating_duration_since(t0).as_secs_f64() * 1e6).round() / 1e3
}

/// Runs one step of a one-solution plan.
fn run(
    step: &mut Step,
    problem: &Problem,
    budget: &Budget,
    bitmaps: Option<(completion::Open<'_>, bool)>,
    t0: Instant,
) -> Result<SolvedColumns, Error> {
    let begun = at(t0, Instant::now());
    let solved = match step.step {
        Action::Run => {
            let spec = step.engine.expect("a run step names its engine");
            on_board(problem, spec, budget)?
        }
        Action::Presolve => {
            // The core of the completion, searched by the step under it.
            match completion::presolve_stage(problem, budget)? {
                completion::Presolve::Answered(solved) => {
                    let end = at(t0, Instant::now());
                    let ending = match solved.answer {
                        Answer::Interrupted => Ending::Stopped,
                        _ => Ending::Refuted,
                    };
                    step.ran(begun, end, ending);
                    step.skip_rest();
                    return Ok(solved);
                }
                completion::Presolve::Core(core, work) => {
                    let presolved = at(t0, Instant::now());
                    step.ran(begun, presolved, Ending::Passed);
                    let found = completion::search::find(&core, 1, budget);
                    let solved = completion::lift(problem, &core, found, work);
                    if let Some(search) = step.steps.first_mut() {
                        search.ran(
                            presolved,
                            at(t0, Instant::now()),
                            Ending::of(&solved.answer),
                        );
                    }
                    return Ok(solved);
                }
            }
        }
        Action::SideBySide => return two_engines(step, problem, budget, t0),
        Action::Portfolio => {
            let (open, clash) = bitmaps.unwrap_or_else(|| completion::Open::new(problem));
            return crate::plan::run_portfolio(step, problem, &open, clash, budget, t0);
        }
        Action::Refute | Action::ThenIfGaveUp | Action::CrossCheck | Action::Certify => {
            return Err(Error::internal(
                "one solution as columns runs engines, side by side or one after another",
            ))
        }
    };
    step.ran(begun, at(t0, Instant::now()), Ending::of(&solved.answer));
    Ok(solved)
}

/// A `run` step: the engine the spec names on the whole board (local search with its memory
/// checked first; a complete engine refused where it cannot take the board), its work naming
/// the spec unless the engine names the one that answered.
fn on_board(problem: &Problem, spec: EngineSpec, budget: &Budget) -> Result<SolvedColumns, Error> {
    if let EngineSpec::Local { .. } = spec {
        check_local_memory(problem, budget)?;
        return engine_of(spec)?.solve(problem, budget);
    }
    let mut solved = on_whole_board(problem, engine_of(spec), spec, budget)?;
    solved.work.answered_by = Some(spec);
    Ok(solved)
}

/// Two engines side by side in this process, on the caller's deadline and memory limit, each
/// with its own stop flag (`auto`'s backtracker against local search). A solution, a proven
/// "no" or an error ends both; giving up (local search spent its restarts) leaves the other
/// side to finish alone. With both answered, the first engine's answer wins (the
/// backtracker's: it can prove); with neither, the answer is [`ColumnAnswer::Interrupted`]
/// with both sides' work.
fn two_engines(
    step: &mut Step,
    problem: &Problem,
    budget: &Budget,
    t0: Instant,
) -> Result<SolvedColumns, Error> {
    let begun = at(t0, Instant::now());
    let specs: Vec<EngineSpec> = step.steps.iter().filter_map(|s| s.engine).collect();
    let [a, b] = specs[..] else {
        return Err(Error::internal("two engines side by side"));
    };
    let (first, second) = (engine_of(a)?, engine_of(b)?);
    let side = |stop: Arc<AtomicBool>| Budget {
        cancel: Some(stop),
        progress: None,
        ..budget.clone()
    };
    let decided = |r: &Result<SolvedColumns, Error>| match r {
        Ok(s) => s.answer.is_decided(),
        Err(_) => true,
    };
    let done = side_by_side(
        |stop| first.solve(problem, &side(stop)),
        |stop| second.solve(problem, &side(stop)),
        |r| decided(r),
        budget.cancel.as_deref(),
        None,
    );
    let ended = done.ended;
    let (first, second) = (done.first?, done.second?);
    let winner = if first.answer.is_decided() {
        Some(0)
    } else if second.answer.is_decided() {
        Some(1)
    } else {
        None
    };
    for (i, (s, r)) in step.steps.iter_mut().zip([&first, &second]).enumerate() {
        let ending = match (winner, Ending::of(&r.answer)) {
            (Some(w), Ending::Answered) if w != i => Ending::Passed,
            (_, e) => e,
        };
        s.ran(begun, at(t0, ended[i]), ending);
    }
    let solved = match winner {
        Some(0) => first,
        Some(_) => second,
        None => SolvedColumns {
            answer: ColumnAnswer::Interrupted,
            work: Work {
                nodes: first.work.nodes.or(second.work.nodes),
                sat: first.work.sat.or(second.work.sat),
                local: first.work.local.or(second.work.local),
                ..Work::default()
            },
        },
    };
    step.ran(begun, at(t0, Instant::now()), Ending::of(&solved.answer));
    Ok(solved)
}

/// A complete engine on the board (on its core past [`queens_model::model::MAX_N`], where the
/// core fits): `Interrupted` when the budget ran out before it started, the board refused
/// where the engine cannot take it ([`complete_only`]), then the engine's run, timed.
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
    Ok(SolvedColumns::into_cells(solve_columns(
        problem, spec, budget,
    )?))
}

/// [`solve`] on the SAT engine, also counting the clauses the solver learns
/// (`work.sat.learned`, see [`crate::sat::solve_counting_learned`]): what `compare` reports
/// beside the backtracker's nodes.
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
    Ok(SolvedColumns::into_cells(solved))
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
        return CoreSearch { seed: 1 }
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
        )
        .about("engine")),
        spec => Ok(spec),
    }
}
