//! The executor: runs any [`Plan`] and writes into each step when it started, when it
//! ended and how, and verifies every board before anyone sees it. One solution goes
//! through the plan's tree ([`execute`]); a listing or a count runs one complete engine
//! ([`enumerate`], [`count`]). Two steps side by side are one combinator,
//! [`side_by_side`]: each side on a scoped thread with its own stop flag, the caller's
//! deadline and cancel flag stopping both, and nothing left running when it returns. A side
//! in a child process (varisat in engine `race`, which only a kill stops) is supplied by the
//! caller as a closure ([`first_answer`]): this crate knows nothing of processes or
//! protocols.
//!
//! The leaves are the engines, built from their spec in one table ([`engine_of`]); the
//! completion portfolio's node runs in [`crate::portfolio`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::answer::{Answer, ColumnAnswer, Counted, Listed, Solved, SolvedColumns};
use crate::checked::{checked, verify_columns};
use crate::completion;
use crate::encode::amo::Encoding;
use crate::engines::{self, Core, Engine};
use crate::memory::check_local_memory;
use crate::plan::{plan, Action, Ask, Ending, Plan, Step};
use crate::spec::EngineSpec;
use crate::work::{ms, Work};
use queens_model::error::Error;
use queens_model::model::{Pos, Problem};
use queens_model::Budget;

/// The error for a race asked of an entry point that cannot start its SAT child, or for
/// more than one solution.
pub(crate) fn race_needs_a_caller() -> Error {
    Error::unsupported(
        "engine race answers whether there is a solution (solve, one solution); use \
         backtrack or sat for counting and listing"
            .into(),
    )
}

/// The engine table: the leaf engine `spec` names. `auto` is a plan, not a leaf, and a race
/// of the backtracker and the SAT engine needs a caller that can start a child process (the
/// operations layer).
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
        EngineSpec::Dlx => Box::new(crate::dlx::Dlx),
        EngineSpec::Auto { .. } => {
            return Err(Error::internal("auto is a plan of engines, not one engine"))
        }
        EngineSpec::Race(_) => return Err(race_needs_a_caller()),
    })
}

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
    Ok(as_cells(execute_step(&mut step, problem, spec, budget)?))
}

/// How a step's answer ended it.
pub(crate) fn ending_of(answer: &ColumnAnswer) -> Ending {
    match answer {
        Answer::Sat(_) | Answer::Unsat(_) => Ending::Answered,
        Answer::GaveUp => Ending::GaveUp,
        Answer::Interrupted => Ending::Stopped,
    }
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
                        search.ran(presolved, at(t0, Instant::now()), ending_of(&solved.answer));
                    }
                    return Ok(solved);
                }
            }
        }
        Action::SideBySide => return two_engines(step, problem, budget, t0),
        Action::Portfolio => {
            let (open, clash) = bitmaps.unwrap_or_else(|| completion::Open::new(problem));
            return crate::portfolio::run(step, problem, &open, clash, budget, t0);
        }
        Action::Refute | Action::ThenIfGaveUp | Action::CrossCheck | Action::Certify => {
            return Err(Error::internal(
                "one solution as columns runs engines, side by side or one after another",
            ))
        }
    };
    step.ran(begun, at(t0, Instant::now()), ending_of(&solved.answer));
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
        let ending = match (winner, ending_of(&r.answer)) {
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
    step.ran(begun, at(t0, Instant::now()), ending_of(&solved.answer));
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

/// Refuses a board past [`queens_model::model::MAX_N`] to the complete engines, which keep n²
/// bits, except backtrack, sat, ext and their race on a classic board whose core fits
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
                queens_model::model::MAX_N,
                queens_model::model::MAX_N
            ),
        ));
    }
    Ok(())
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
    Ok(as_cells(solve_columns(problem, spec, budget)?))
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

/// Which of two steps side by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The first side given (the backtracker, in every race here).
    First,
    /// The second side given.
    Second,
}

/// How often the race looks at the caller's cancel flag and deadline.
const POLL: Duration = Duration::from_millis(2);

/// Both sides' results, and the order in which they came back.
pub struct Finish<T> {
    /// The first side's result.
    pub first: Result<T, Error>,
    /// The second side's result.
    pub second: Result<T, Error>,
    /// The side that came back first.
    pub earlier: Side,
    /// When each side came back.
    pub ended: [Instant; 2],
}

impl<T> Finish<T> {
    fn of(&self, side: Side) -> &Result<T, Error> {
        match side {
            Side::First => &self.first,
            Side::Second => &self.second,
        }
    }
}

/// Runs both sides at once. Once a side returns a result for which `ends` holds, both stop
/// flags are set; a result for which it does not leaves the other side running. The
/// caller's `cancel` flag and `deadline` set both flags.
pub fn side_by_side<T: Send>(
    first: impl FnOnce(Arc<AtomicBool>) -> Result<T, Error> + Send,
    second: impl FnOnce(Arc<AtomicBool>) -> Result<T, Error> + Send,
    ends: impl Fn(&Result<T, Error>) -> bool + Sync,
    cancel: Option<&AtomicBool>,
    deadline: Option<Instant>,
) -> Finish<T> {
    let stops = [
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    ];
    let order: Mutex<Vec<(Side, Instant)>> = Mutex::new(Vec::new());
    let stop_both = || {
        for s in &stops {
            s.store(true, Ordering::Relaxed);
        }
    };
    let finish = |side: Side, result: Result<T, Error>| {
        order
            .lock()
            .expect("no side panics")
            .push((side, Instant::now()));
        if ends(&result) {
            stop_both();
        }
        result
    };
    // Each side says on `done` that it has returned, so the race ends the moment both have,
    // not at the next look at the cancel flag and deadline.
    let (done, returned) = mpsc::channel::<()>();
    let (first, second) = std::thread::scope(|s| {
        let (first_stop, second_stop) = (stops[0].clone(), stops[1].clone());
        let finish = &finish;
        let first_done = done.clone();
        let a = s.spawn(move || {
            let result = finish(Side::First, first(first_stop));
            let _ = first_done.send(());
            result
        });
        let second_done = done;
        let b = s.spawn(move || {
            let result = finish(Side::Second, second(second_stop));
            let _ = second_done.send(());
            result
        });
        let mut back = 0;
        while back < 2 {
            match returned.recv_timeout(POLL) {
                Ok(()) => back += 1,
                Err(RecvTimeoutError::Timeout) => {}
                // A side that panicked dropped its sender without a word: joined below.
                Err(RecvTimeoutError::Disconnected) => break,
            }
            let cancelled = cancel.is_some_and(|c| c.load(Ordering::Relaxed))
                || deadline.is_some_and(|d| Instant::now() >= d);
            if cancelled {
                stop_both();
            }
        }
        let join = |h: std::thread::ScopedJoinHandle<'_, Result<T, Error>>| {
            h.join()
                .unwrap_or_else(|_| Err(Error::internal("a side-by-side step panicked")))
        };
        (join(a), join(b))
    });
    let order = order.into_inner().expect("no side panics");
    let earlier = order.first().map_or(Side::First, |&(side, _)| side);
    let now = Instant::now();
    let when = |side| {
        order
            .iter()
            .find(|&&(s, _)| s == side)
            .map_or(now, |&(_, t)| t)
    };
    let ended = [when(Side::First), when(Side::Second)];
    Finish {
        first,
        second,
        earlier,
        ended,
    }
}

/// What one side of [`first_answer`] returns: `Ok(Some(answer))` to win, `Ok(None)` when it
/// stopped without an answer (its flag was set, or its own limit passed), `Err` when it
/// failed.
pub type SideResult<T> = Result<Option<T>, Error>;

/// [`side_by_side`] where the first answer wins. Returns the winner and its answer, or `None`
/// when neither answered. A side's error is returned only if the other side did not answer
/// either (the later error, when both failed).
pub fn first_answer<T: Send>(
    first: impl FnOnce(Arc<AtomicBool>) -> SideResult<T> + Send,
    second: impl FnOnce(Arc<AtomicBool>) -> SideResult<T> + Send,
    cancel: Option<&AtomicBool>,
    deadline: Option<Instant>,
) -> Result<Option<(Side, T)>, Error> {
    let done = side_by_side(
        first,
        second,
        |r| matches!(r, Ok(Some(_))),
        cancel,
        deadline,
    );
    let later = match done.earlier {
        Side::First => Side::Second,
        Side::Second => Side::First,
    };
    let answered = |side| matches!(done.of(side), Ok(Some(_)));
    let winner = [done.earlier, later].into_iter().find(|&s| answered(s));
    let failed = |side| done.of(side).is_err();
    let error = [later, done.earlier].into_iter().find(|&s| failed(s));
    let Finish { first, second, .. } = done;
    let pick = |side: Side, first: SideResult<T>, second: SideResult<T>| match side {
        Side::First => first,
        Side::Second => second,
    };
    match (winner, error) {
        (Some(side), _) => Ok(pick(side, first, second)?.map(|t| (side, t))),
        (None, Some(side)) => pick(side, first, second).map(|_| None),
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn until_stopped(stop: &AtomicBool) {
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn the_first_answer_wins_and_stops_the_other() {
        let got = first_answer(
            |stop| {
                until_stopped(&stop);
                Ok(None::<u32>)
            },
            |_| Ok(Some(7)),
            None,
            None,
        )
        .unwrap();
        assert_eq!(got, Some((Side::Second, 7)));
        let got = first_answer(
            |_| Ok(Some(1)),
            |stop| {
                until_stopped(&stop);
                Ok(None)
            },
            None,
            None,
        )
        .unwrap();
        assert_eq!(got, Some((Side::First, 1)));
    }

    #[test]
    fn an_error_on_one_side_leaves_the_race_to_the_other() {
        let got = first_answer(
            |_| Err(Error::too_large("no".into())),
            |_| {
                std::thread::sleep(Duration::from_millis(20));
                Ok(Some(2))
            },
            None,
            None,
        )
        .unwrap();
        assert_eq!(got, Some((Side::Second, 2)));
        let err = first_answer::<u32>(
            |_| Err(Error::too_large("no".into())),
            |_| Ok(None),
            None,
            None,
        );
        assert!(matches!(err, Err(Error::TooLarge { .. })));
    }

    #[test]
    fn the_deadline_stops_both_sides() {
        let start = Instant::now();
        let got = first_answer::<u32>(
            |stop| {
                until_stopped(&stop);
                Ok(None)
            },
            |stop| {
                until_stopped(&stop);
                Ok(None)
            },
            None,
            Some(Instant::now() + Duration::from_millis(30)),
        )
        .unwrap();
        assert_eq!(got, None);
        assert!(start.elapsed() < Duration::from_secs(5));
    }
}
