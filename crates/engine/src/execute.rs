//! The executor: runs any [`Plan`] and writes into each step when it started, when it
//! ended and how, and verifies every board before anyone sees it. One solution goes
//! through the plan's tree ([`execute`]); a listing or a count runs one complete engine
//! ([`enumerate`], [`count`]). Two steps side by side run through the one combinator,
//! [`crate::side_by_side`], whose sides may be closures over a child process the caller
//! supplies.
//!
//! The leaves are the engines, built from their spec by the engine table
//! ([`crate::table::engine_of`]). The steps pass to each other through a context: the core a
//! presolve step built, the completion's bitmaps, and, inside a pair, whether the other side
//! is out; the completion portfolio's node is steps in turn like any other.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::answer::{Answer, ColumnAnswer, Counted, Listed, Solved, SolvedColumns};
use crate::checked::{checked, verify_columns};
use crate::completion::{self, Hall, HALL_LOOKS, HALL_QUICK_LOOKS};
use crate::engines::{CoreSearch, Engine};
use crate::memory::{check_local_memory, complete_only, nothing_counts};
use crate::plan::{plan, Ask, Plan, CORE};
use crate::side_by_side::{side_by_side, Side};
use crate::spec::EngineSpec;
use crate::step::{Action, Ending, Step};
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
    let open = match plan.bitmaps.take() {
        None if plan.root.step == Action::Portfolio => Some(completion::Open::new(problem)),
        open => open,
    };
    run_tree(&mut plan.root, problem, spec, budget, open.as_ref())
}

/// Runs one step of a one-solution plan (a side of a side-by-side step, given alone), filling
/// in its trace; the answer is verified.
pub fn execute_step(
    step: &mut Step,
    problem: &Problem,
    spec: EngineSpec,
    budget: &Budget,
) -> Result<SolvedColumns, Error> {
    run_tree(step, problem, spec, budget, None)
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

/// How often a step that waits for the other side looks whether it is out.
const WAIT: Duration = Duration::from_millis(1);

/// How long local search runs alone before Hall's condition takes more than
/// [`HALL_QUICK_LOOKS`] beside it: 250 ms, and 1 µs a row on boards past 250,000 rows (on
/// a lightly preset board local search answers in about half that, and a refutation only
/// matters where it cannot answer at all).
pub fn hall_later(n: usize) -> Duration {
    Duration::from_micros((n as u64).max(250_000))
}

/// What a presolve step left for the steps after it: the core and the work so far, or
/// `Err` when it could not be built (the error went up the tree).
type Built = Result<(Box<completion::Core>, Work), ()>;

/// What a step runs with.
#[derive(Clone, Copy)]
struct Ctx<'a, 'p> {
    problem: &'p Problem,
    budget: &'a Budget,
    /// The plan's start: every step's times count from it.
    t0: Instant,
    /// When the portfolio began: a `run` step's `limit_ms` and Hall's wait count from it.
    began: Instant,
    /// The core search's seed: the portfolio's, else 1.
    seed: u64,
    /// A completion's bitmaps, and whether two fixed queens share a line.
    open: Option<&'a (completion::Open<'p>, bool)>,
    /// The core, once a presolve step built it; a later `run` of the backtracker searches it.
    core: &'a OnceLock<Built>,
    /// Inside a pair: set once the other side is out (it returned without an answer).
    other_out: Option<&'a AtomicBool>,
}

/// An answer with no search behind it, by `by`.
fn answer(answer: ColumnAnswer, by: EngineSpec) -> SolvedColumns {
    SolvedColumns {
        answer,
        work: Work {
            answered_by: Some(by),
            ..Work::default()
        },
    }
}

/// Runs the tree `root` of a one-solution plan: every step gets its times and ending, and
/// the answer is verified.
fn run_tree(
    root: &mut Step,
    problem: &Problem,
    spec: EngineSpec,
    budget: &Budget,
    open: Option<&(completion::Open<'_>, bool)>,
) -> Result<SolvedColumns, Error> {
    let (t0, core) = (Instant::now(), OnceLock::new());
    let ctx = Ctx {
        problem,
        budget,
        t0,
        began: t0,
        seed: 1,
        open,
        core: &core,
        other_out: None,
    };
    let solved = run(root, ctx);
    root.skip_rest();
    let mut solved = solved?.unwrap_or_else(|| answer(ColumnAnswer::GaveUp, CORE));
    verify_columns(problem, spec, &solved)?;
    solved.work.time_ms = ms(t0);
    Ok(solved)
}

/// Runs one step, writing when it started and ended and how. `None`: the step passed,
/// leaving the answer to the steps after it.
fn run(step: &mut Step, ctx: Ctx) -> Result<Option<SolvedColumns>, Error> {
    let begun = ms(ctx.t0);
    let out = match step.step {
        Action::Run => run_engine(step, ctx).map(Some),
        Action::Refute => Ok(refute(ctx)),
        Action::Hall => Ok(hall(ctx)),
        Action::Presolve => presolve(step, ctx),
        Action::SideBySide => two_sides(step, ctx).map(Some),
        Action::ThenIfGaveUp => then_if_gave_up(step, ctx),
        Action::Portfolio => portfolio(step, ctx).map(Some),
        Action::CrossCheck | Action::Certify => Err(Error::internal(
            "one solution as columns runs engines, side by side or one after another",
        )),
    };
    if step.ending.is_none() {
        let refutes = matches!(step.step, Action::Refute | Action::Hall | Action::Presolve);
        let ending = match &out {
            Ok(None) => Ending::Passed,
            Ok(Some(s)) if refutes && matches!(s.answer, Answer::Unsat(_)) => Ending::Refuted,
            Ok(Some(s)) => Ending::of(&s.answer),
            Err(e) => {
                step.said = Some(e.to_string());
                Ending::GaveUp
            }
        };
        step.ran(begun, ms(ctx.t0), ending);
    }
    out
}

/// Steps in order, each only if the ones before did not answer (and the limits allow). A
/// step's error is kept and returned only if no later step answers.
fn in_turn(steps: &mut [Step], ctx: Ctx) -> Result<Option<SolvedColumns>, Error> {
    let (mut last, mut failed) = (None, None);
    for i in 0..steps.len() {
        match run(&mut steps[i], ctx) {
            Ok(Some(s)) if s.answer.is_decided() || ctx.budget.exhausted() => {
                steps[i + 1..].iter_mut().for_each(Step::skip_rest);
                return Ok(Some(s));
            }
            Ok(s) => last = s.or(last),
            Err(e) => failed = Some(e),
        }
    }
    failed.map_or(Ok(last), Err)
}

/// The completion portfolio: its steps in turn, on its seed and from its start; then how
/// it ended, read from them.
fn portfolio(step: &mut Step, ctx: Ctx) -> Result<SolvedColumns, Error> {
    let begun = ms(ctx.t0);
    let seed = step.all().iter().find_map(|s| match s.engine {
        Some(EngineSpec::Local { seed }) => Some(seed),
        _ => None,
    });
    let ctx = Ctx {
        began: Instant::now(),
        seed: seed.unwrap_or(1),
        ..ctx
    };
    let solved = in_turn(&mut step.steps, ctx)?.unwrap_or(answer(ColumnAnswer::GaveUp, CORE));
    step.skip_rest();
    let mut ending = Ending::of(&solved.answer);
    if step.steps[0].ending == Some(Ending::Refuted) {
        ending = Ending::Refuted;
    }
    step.ran(begun, ms(ctx.t0), ending);
    step.said = Some(crate::plan::portfolio_said(step).into());
    Ok(solved)
}

/// Fixed queens that break a rule: "no" before any engine starts.
fn refute(ctx: Ctx) -> Option<SolvedColumns> {
    let p = ctx.problem;
    let clash = ctx.open.is_some_and(|&(_, clash)| clash);
    if clash || !p.blocked().is_empty() || !p.excluded().is_empty() {
        let why = crate::local::refute_presets(p)?;
        return Some(answer(ColumnAnswer::Unsat(Some(why.into())), CORE));
    }
    None
}

/// Hall's condition on the bitmaps: the quick look at once, the long one after the other
/// side has had its time alone (or once it is out).
fn hall(ctx: Ctx) -> Option<SolvedColumns> {
    let (open, _) = ctx.open?;
    let mut hall = completion::hall_on_bitmaps(open, HALL_QUICK_LOOKS, ctx.budget);
    if hall == Hall::Unknown {
        let later = ctx.began + hall_later(ctx.problem.n());
        if !wait_for(ctx.other_out, ctx.budget, Some(later)) {
            return Some(answer(ColumnAnswer::Interrupted, CORE));
        }
        hall = completion::hall_on_bitmaps(open, HALL_LOOKS, ctx.budget);
    }
    let Hall::Fails(why) = hall else { return None };
    Some(answer(ColumnAnswer::Unsat(Some(why)), CORE))
}

/// The core of the completion, kept for the steps after this one, then this step's own
/// steps in turn. Its presolve may answer (a cheap refutation, or the limits).
fn presolve(step: &mut Step, ctx: Ctx) -> Result<Option<SolvedColumns>, Error> {
    let begun = ms(ctx.t0);
    let built = match completion::presolve_stage(ctx.problem, ctx.budget) {
        Ok(completion::Presolve::Answered(solved)) => return Ok(Some(solved)),
        Ok(completion::Presolve::Core(core, work)) => Ok((core, work)),
        Err(e) => {
            let _ = ctx.core.set(Err(()));
            return Err(e);
        }
    };
    if ctx.core.set(built).is_err() {
        return Err(Error::internal("a plan builds the core once"));
    }
    if step.steps.is_empty() {
        return Ok(None);
    }
    step.ran(begun, ms(ctx.t0), Ending::Passed);
    in_turn(&mut step.steps, ctx)
}

/// A `run` step: the backtracker on the core a presolve step built, else the engine on the
/// board ([`on_board`]), within the step's `limit_ms`.
fn run_engine(step: &Step, ctx: Ctx) -> Result<SolvedColumns, Error> {
    let spec = step
        .engine
        .ok_or_else(|| Error::internal("a run step names its engine"))?;
    let capped;
    let budget = match step.limit_ms {
        Some(limit) => {
            let until = ctx.began + Duration::from_millis(limit);
            capped = Budget {
                deadline: Some(ctx.budget.deadline.map_or(until, |d| d.min(until))),
                ..ctx.budget.clone()
            };
            &capped
        }
        None => ctx.budget,
    };
    match (spec, ctx.core.get()) {
        (EngineSpec::Backtrack { .. }, Some(Ok((core, work)))) => {
            let found = completion::search::find(core, ctx.seed, budget);
            Ok(completion::lift(ctx.problem, core, found, *work))
        }
        // The core could not be built: the presolve step's error goes up the tree.
        (EngineSpec::Backtrack { .. }, Some(Err(()))) => Ok(answer(ColumnAnswer::GaveUp, spec)),
        _ => on_board(ctx.problem, spec, budget),
    }
}

/// One side of a pair: its first step, and once the other side is out, its second (or
/// giving up where there is none).
fn then_if_gave_up(step: &mut Step, ctx: Ctx) -> Result<Option<SolvedColumns>, Error> {
    let [first, rest @ ..] = &mut step.steps[..] else {
        return Err(Error::internal("a step then another"));
    };
    if let Some(solved) = run(first, ctx)? {
        return Ok(Some(solved));
    }
    if !wait_for(ctx.other_out, ctx.budget, None) {
        return Ok(Some(answer(ColumnAnswer::Interrupted, CORE)));
    }
    match rest.first_mut() {
        Some(second) => run(second, ctx),
        None => Ok(Some(answer(ColumnAnswer::GaveUp, CORE))),
    }
}

/// Waits until the other side is out (or there is none) or `until` has passed (true), or
/// the budget is spent (false).
fn wait_for(out: Option<&AtomicBool>, budget: &Budget, until: Option<Instant>) -> bool {
    loop {
        let out = out.is_none_or(|o| o.load(Ordering::Acquire));
        if out || until.is_some_and(|t| Instant::now() >= t) {
            return true;
        }
        if budget.exhausted() {
            return false;
        }
        std::thread::sleep(WAIT);
    }
}

/// Two steps side by side in this process, each on one core with its own stop flag, on the
/// caller's deadline: the earlier decided answer wins and stops the other. Giving up, being
/// stopped or failing leaves the other side to finish alone; with neither answering, the
/// first side's error, else "gave up" when both gave up, else [`ColumnAnswer::Interrupted`],
/// with both sides' work.
fn two_sides(step: &mut Step, ctx: Ctx) -> Result<SolvedColumns, Error> {
    let [a, b] = &mut step.steps[..] else {
        return Err(Error::internal("two steps side by side"));
    };
    let outs = [AtomicBool::new(false), AtomicBool::new(false)];
    let decided = |r: &Result<SolvedColumns, Error>| matches!(r, Ok(s) if s.answer.is_decided());
    let side = |s: &mut Step, me: usize, stop: Arc<AtomicBool>| {
        let budget = Budget {
            cancel: Some(stop),
            progress: None,
            ..ctx.budget.clone()
        };
        let ctx = Ctx {
            budget: &budget,
            other_out: Some(&outs[1 - me]),
            ..ctx
        };
        let r = run(s, ctx).map(|s| s.unwrap_or_else(|| answer(ColumnAnswer::GaveUp, CORE)));
        if !decided(&r) {
            outs[me].store(true, Ordering::Release);
        }
        r
    };
    let done = side_by_side(
        |stop| side(a, 0, stop),
        |stop| side(b, 1, stop),
        decided,
        ctx.budget.cancel.as_deref(),
        ctx.budget.deadline,
    );
    let later = match done.earlier {
        Side::First => Side::Second,
        Side::Second => Side::First,
    };
    let winner = [done.earlier, later]
        .into_iter()
        .find(|&s| decided(done.of(s)));
    if let Some(w) = winner {
        let loser = &mut step.steps[if w == Side::First { 1 } else { 0 }];
        if loser.ending == Some(Ending::Answered) {
            loser.ending = Some(Ending::Passed);
        }
    }
    let (first, second) = (done.first, done.second);
    match winner {
        Some(Side::First) => first,
        Some(Side::Second) => second,
        None => {
            let (first, second) = (first?, second?);
            let gave_up = |s: &SolvedColumns| matches!(s.answer, ColumnAnswer::GaveUp);
            Ok(SolvedColumns {
                answer: if gave_up(&first) && gave_up(&second) {
                    ColumnAnswer::GaveUp
                } else {
                    ColumnAnswer::Interrupted
                },
                work: Work {
                    nodes: first.work.nodes.or(second.work.nodes),
                    sat: first.work.sat.or(second.work.sat),
                    local: first.work.local.or(second.work.local),
                    ..Work::default()
                },
            })
        }
    }
}

/// A `run` step: the engine the spec names on the whole board (local search with its memory
/// checked first; a complete engine refused where it cannot take the board), timed, its work
/// naming the spec unless the engine names the one that answered.
fn on_board(problem: &Problem, spec: EngineSpec, budget: &Budget) -> Result<SolvedColumns, Error> {
    if let EngineSpec::Local { .. } = spec {
        check_local_memory(problem, budget)?;
        return engine_of(spec)?.solve(problem, budget);
    }
    if budget.exhausted() {
        return Ok(answer(ColumnAnswer::Interrupted, spec));
    }
    let start = Instant::now();
    complete_only(problem, spec)?;
    let mut solved = engine_of(spec)?.solve(problem, budget)?;
    solved.work.time_ms = ms(start);
    solved.work.answered_by = Some(spec);
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

/// Lists solutions, up to `cap` of them, each verified. Only `auto` is planned here: any
/// other spec is one the caller's plan chose, and lists as it is.
pub fn enumerate(
    problem: &Problem,
    spec: EngineSpec,
    cap: Option<u64>,
    budget: &Budget,
) -> Result<Listed, Error> {
    let mut solutions: Vec<Vec<Pos>> = Vec::new();
    let many = Ask {
        many: true,
        ..Ask::default()
    };
    let made = matches!(spec, EngineSpec::Auto { .. }).then(|| plan(problem, spec, many, budget));
    let spec = counting_engine(made.as_ref(), spec)?;
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

/// Runs `on_board` on each solution (verified first) of the engine `spec`, up to `cap`.
/// Returns the work, the number of solutions seen and whether the budget cut the run short
/// (never when the cap was reached).
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

/// Counts solutions, up to `limit` if given, as the plan of a count says: the core search on
/// a completion's core, else the backtracker on all cores or the SAT engine with blocking
/// clauses, verifying every model it counts.
pub fn count(
    problem: &Problem,
    spec: EngineSpec,
    limit: Option<u64>,
    budget: &Budget,
) -> Result<Counted, Error> {
    let start = Instant::now();
    nothing_counts(problem)?;
    let ask = Ask {
        many: true,
        count: true,
        ..Ask::default()
    };
    let made = plan(problem, spec, ask, budget);
    if made.root.step == Action::Presolve {
        return CoreSearch { seed: 1 }
            .count(problem, limit, budget)
            .expect("the core search counts");
    }
    let spec = counting_engine(Some(&made), spec)?;
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

/// The engine a listing's or count's plan `made` runs, else `spec`; local search cannot
/// count (it finds one solution at a time and proves nothing).
fn counting_engine(made: Option<&Plan<'_>>, spec: EngineSpec) -> Result<EngineSpec, Error> {
    match made.and_then(|m| m.root.engine).unwrap_or(spec) {
        EngineSpec::Local { .. } => Err(Error::unsupported(
            "the local engine finds one solution; count or list solutions with backtrack or \
             sat"
            .into(),
        )
        .about("engine")),
        spec => Ok(spec),
    }
}
