//! `auto` on a classic completion, the plan's `portfolio` node: the cheap refutations first,
//! then the core search and local search side by side on one core each
//! ([`crate::side_by_side::side_by_side`]), the first answer stopping the other.
//!
//! Neither engine alone is good at every density: near the crossing local search gives up
//! where the core search answers in milliseconds, and on lightly preset boards local search
//! answers in milliseconds where the core holds millions of cells. The core's memory is
//! estimated from the bitmaps before it is built ([`crate::completion::estimate_core`], when the
//! plan is made); a core larger than local search's own memory is not built while local
//! search is in play: its side checks Hall's condition on the bitmaps (the "no" local search
//! cannot give) and waits, and builds the core only once local search has given up. Both
//! sides run on scoped threads with their own stop flags, so when the portfolio returns
//! nothing it started is still running. Its run writes how each of its steps went into the
//! plan's tree.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::answer::{ColumnAnswer, SolvedColumns};
use crate::completion::CoreEstimate;
use crate::completion::{self, Hall, Open};
use crate::engines::{Backtrack, Engine, Local};
use crate::plan::{Ending, Step, CORE_ALONE};
use crate::side_by_side::{side_by_side, Side};
use crate::spec::EngineSpec;
use crate::work::{ms, Work};
use queens_model::error::Error;
use queens_model::model::Problem;
use queens_model::Budget;

/// How often the core's side looks whether local search is still in play.
const WAIT: Duration = Duration::from_millis(1);

/// Cells Hall's condition looks at on the bitmaps of a core too large to build yet, at once
/// (a few milliseconds): it settles the boards of up to about 2,000 free rows.
pub const HALL_QUICK_LOOKS: u64 = 1 << 22;

/// How long local search runs alone before Hall's condition takes more than
/// [`HALL_QUICK_LOOKS`] beside it: 250 ms, and 1 µs a row on boards past 250,000 rows (on
/// a lightly preset board local search answers in about half that, and a refutation only
/// matters where it cannot answer at all).
pub fn hall_later(n: usize) -> Duration {
    Duration::from_micros((n as u64).max(250_000))
}

/// Cells Hall's condition looks at on the bitmaps in all (about a third of a second): past
/// it the condition is left unknown and the engines decide.
pub const HALL_LOOKS: u64 = 100_000_000;

/// The core search's answers name the backtracker on one thread.
const CORE: EngineSpec = EngineSpec::Backtrack { threads: 1 };

/// How a run of the portfolio ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortfolioEnding {
    /// The fixed queens break a rule: refuted before any engine ran.
    Presets,
    /// Hall's condition on the bitmaps refuted the board before any core was built.
    Hall,
    /// The core's side answered: its presolve's refutations (`searched` false) or its
    /// search.
    Core {
        /// The core was built and searched.
        searched: bool,
    },
    /// Local search gave up, and the whole-board backtracker answered.
    WholeBoard,
    /// Local search answered.
    Local,
    /// Local search gave up and no complete engine could take the board.
    GaveUp,
    /// The limits (time, cancel) stopped the run before an answer.
    Stopped,
}

impl PortfolioEnding {
    /// How the run ended, for people.
    pub fn said(self) -> &'static str {
        match self {
            PortfolioEnding::Presets => "refuted by the fixed queens before any engine ran",
            PortfolioEnding::Hall => "Hall's condition refuted the board before the core was built",
            PortfolioEnding::Core { searched: false } => {
                "the core's presolve refuted the board before any search (the reason says how)"
            }
            PortfolioEnding::Core { searched: true } => "the core search answered",
            PortfolioEnding::WholeBoard => {
                "local search gave up, and the whole-board backtracker answered"
            }
            PortfolioEnding::Local => "local search answered",
            PortfolioEnding::GaveUp => {
                "local search gave up, and no complete engine takes this core"
            }
            PortfolioEnding::Stopped => "the limits stopped both before an answer",
        }
    }
}

fn answer(answer: ColumnAnswer, by: EngineSpec) -> SolvedColumns {
    SolvedColumns {
        answer,
        work: Work {
            answered_by: Some(by),
            ..Work::default()
        },
    }
}

/// Milliseconds from the plan's start `t0` to now.
fn now(t0: Instant) -> f64 {
    (t0.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// Runs the plan's `portfolio` node `step` on `problem` with its bitmaps `open` (`clash`
/// when two fixed queens share a line), writing how each of its steps went. `t0` is the
/// plan's start.
pub fn run(
    step: &mut Step,
    problem: &Problem,
    open: &Open,
    clash: bool,
    budget: &Budget,
    t0: Instant,
) -> Result<SolvedColumns, Error> {
    let begun = now(t0);
    let decision = step
        .estimate
        .ok_or_else(|| Error::internal("the portfolio's node carries its estimates"))?;
    let seed = step
        .all()
        .iter()
        .find_map(|s| match s.engine {
            Some(EngineSpec::Local { seed }) => Some(seed),
            _ => None,
        })
        .unwrap_or(1);
    let mut trace = Trace {
        t0,
        begun,
        refuted: begun,
        presolved: None,
        alone: None,
        sides: None,
    };
    let (solved, ending) = decide(problem, open, clash, decision, seed, budget, &mut trace)?;
    trace.write(step, ending, &solved);
    step.skip_rest();
    step.said = Some(ending.said().into());
    step.ran(begun, now(t0), Ending::of(&solved.answer));
    if ending == PortfolioEnding::Presets {
        step.ending = Some(Ending::Refuted);
    }
    Ok(solved)
}

/// When the portfolio's steps ended, for its trace (milliseconds from the plan's start).
struct Trace {
    t0: Instant,
    begun: f64,
    refuted: f64,
    presolved: Option<f64>,
    alone: Option<f64>,
    /// The side-by-side step: its start and each side's end.
    sides: Option<(f64, [f64; 2])>,
}

impl Trace {
    /// Writes the portfolio's steps' times and endings.
    fn write(&self, step: &mut Step, ending: PortfolioEnding, solved: &SolvedColumns) {
        let end = now(self.t0);
        let answered = Ending::of(&solved.answer);
        let steps = &mut step.steps;
        let refute = if ending == PortfolioEnding::Presets {
            Ending::Refuted
        } else {
            Ending::Passed
        };
        steps[0].ran(self.begun, self.refuted, refute);
        if ending == PortfolioEnding::Presets {
            step.skip_rest();
            return;
        }
        let mut i = 1;
        if let Some(presolved) = self.presolved {
            let e = match ending {
                PortfolioEnding::Core { searched: false } if self.alone.is_none() => {
                    Ending::Refuted
                }
                _ => Ending::Passed,
            };
            steps[1].ran(self.refuted, presolved, e);
            i = 3;
            if let Some(alone) = self.alone {
                let e = if self.sides.is_none() {
                    answered
                } else {
                    Ending::Stopped
                };
                steps[2].ran(presolved, alone, e);
            }
        } else if steps.len() == 3 {
            // The core alone (local search over the limits): presolve and search as one.
            let e = match ending {
                PortfolioEnding::Core { searched: false } => Ending::Refuted,
                _ => Ending::Passed,
            };
            steps[1].ran(self.refuted, end, e);
            steps[2].ran(self.refuted, end, answered);
            if e == Ending::Refuted {
                steps[2].ending = Some(Ending::Skipped);
            }
            return;
        }
        let Some(pair) = steps.get_mut(i) else {
            return;
        };
        let Some((start, ended)) = self.sides else {
            pair.skip_rest();
            return;
        };
        pair.ran(start, end, answered);
        let local_won = ending == PortfolioEnding::Local;
        let core_side = match ending {
            PortfolioEnding::Local => Ending::Stopped,
            PortfolioEnding::GaveUp => Ending::GaveUp,
            PortfolioEnding::Stopped => Ending::Stopped,
            _ => Ending::Answered,
        };
        let local_side = if local_won {
            Ending::Answered
        } else if matches!(ending, PortfolioEnding::Stopped) {
            Ending::Stopped
        } else if matches!(
            ending,
            PortfolioEnding::WholeBoard | PortfolioEnding::GaveUp
        ) {
            Ending::GaveUp
        } else {
            Ending::Stopped
        };
        pair.steps[0].ran(start, ended[0], core_side);
        pair.steps[1].ran(start, ended[1], local_side);
        // Hall's condition, then a complete engine once local search gave up.
        if let [hall, complete] = &mut pair.steps[0].steps[..] {
            let hall_end = match ending {
                PortfolioEnding::Hall => Ending::Refuted,
                PortfolioEnding::WholeBoard | PortfolioEnding::Core { .. } => Ending::Passed,
                _ => Ending::Stopped,
            };
            hall.ran(start, ended[0].min(ended[1]).max(start), hall_end);
            match ending {
                PortfolioEnding::WholeBoard | PortfolioEnding::Core { .. } => {
                    complete.ran(ended[1], ended[0], Ending::Answered)
                }
                PortfolioEnding::GaveUp => complete.ran(ended[1], ended[0], Ending::GaveUp),
                _ => complete.skip_rest(),
            }
        }
    }
}

/// The portfolio's run on its estimates `decision`: the answer and how it came about.
fn decide(
    problem: &Problem,
    open: &Open,
    clash: bool,
    decision: CoreEstimate,
    seed: u64,
    budget: &Budget,
    trace: &mut Trace,
) -> Result<(SolvedColumns, PortfolioEnding), Error> {
    let start = Instant::now();
    // Fixed queens that break a rule: no engine needs to start.
    if clash || !problem.blocked().is_empty() || !problem.excluded().is_empty() {
        if let Some(why) = crate::local::refute_presets(problem) {
            trace.refuted = now(trace.t0);
            let solved = answer(ColumnAnswer::Unsat(Some(why.into())), CORE);
            return Ok((solved, PortfolioEnding::Presets));
        }
    }
    trace.refuted = now(trace.t0);
    let ran = |solved: SolvedColumns, hall: bool| {
        let e = ending(&solved, hall);
        (solved, e)
    };
    if !decision.local {
        // Local search is over the memory limit (or cannot take the board): the core
        // alone, whose presolve refuses it over the limit as it grows.
        return Ok(ran(
            completion::solve_columns(problem, seed, budget)?,
            false,
        ));
    }
    // A core no larger than local search's memory is built here, before any thread
    // starts: near the crossing its presolve (an empty line, propagation) decides most
    // boards in well under a millisecond, less than starting two threads takes.
    let mut built = None;
    if decision.core_first {
        let presolved = completion::presolve_stage(problem, budget);
        trace.presolved = Some(now(trace.t0));
        match presolved {
            Ok(completion::Presolve::Answered(mut solved)) => {
                solved.work.time_ms = ms(start);
                return Ok(ran(solved, false));
            }
            Ok(completion::Presolve::Core(core, work)) => {
                // Around the crossing the search makes no wrong turn: a short try here
                // answers most boards without a thread.
                let quick = Budget {
                    deadline: Some(
                        budget
                            .deadline
                            .map_or(start + CORE_ALONE, |d| d.min(start + CORE_ALONE)),
                    ),
                    ..budget.clone()
                };
                let found = completion::search::find(&core, seed, &quick);
                trace.alone = Some(now(trace.t0));
                if !matches!(found.0, completion::search::Found::Interrupted) {
                    let mut solved = completion::lift(problem, &core, found, work);
                    solved.work.time_ms = ms(start);
                    return Ok(ran(solved, false));
                }
                built = Some(Ok((core, work)));
            }
            // Over the memory limit after all (the estimate is a sample): local search
            // still decides, and the core's side reports the error if it cannot.
            Err(e) => built = Some(Err(e)),
        }
    }
    let local_out = AtomicBool::new(false);
    let hall_refuted = AtomicBool::new(false);
    let side = |stop: Arc<AtomicBool>| Budget {
        cancel: Some(stop),
        progress: None,
        ..budget.clone()
    };
    let sides_from = now(trace.t0);
    let done = side_by_side(
        |stop| {
            let b = side(stop);
            if let Some(built) = built {
                let solved = built.map(|(core, work)| {
                    let found = completion::search::find(&core, seed, &b);
                    completion::lift(problem, &core, found, work)
                });
                if solved.as_ref().is_ok_and(|s| s.answer.is_decided()) {
                    return solved;
                }
                wait_for(&local_out, &b, None);
                return solved;
            }
            // Hall's condition: the quick look at once, the long one after local search
            // has had its time alone (or once it is out).
            let mut hall = completion::hall_on_bitmaps(open, HALL_QUICK_LOOKS, &b);
            if hall == Hall::Unknown {
                let later = start + hall_later(problem.n());
                if !wait_for(&local_out, &b, Some(later)) {
                    return Ok(answer(ColumnAnswer::Interrupted, CORE));
                }
                hall = completion::hall_on_bitmaps(open, HALL_LOOKS, &b);
            }
            if let Hall::Fails(why) = hall {
                hall_refuted.store(true, Ordering::Release);
                return Ok(answer(ColumnAnswer::Unsat(Some(why)), CORE));
            }
            if !wait_for(&local_out, &b, None) {
                return Ok(answer(ColumnAnswer::Interrupted, CORE));
            }
            // Local search gave up: a complete engine decides, on both cores now. Up to
            // MAX_N the whole-board backtracker (n² bits, less than this large core),
            // past it the core where it fits.
            if !problem.is_sparse() {
                let spec = EngineSpec::Backtrack { threads: 0 };
                let mut solved = Backtrack {
                    threads: 0,
                    rings: false,
                }
                .solve(problem, &b)?;
                solved.work.answered_by = Some(spec);
                Ok(solved)
            } else if decision.core {
                completion::solve_columns(problem, seed, &b)
            } else {
                Ok(answer(ColumnAnswer::GaveUp, CORE))
            }
        },
        |stop| {
            let solved = Local { seed }.solve(problem, &side(stop));
            let decided = solved.as_ref().is_ok_and(|s| s.answer.is_decided());
            if !decided {
                local_out.store(true, Ordering::Release);
            }
            // Local search failing (it cannot take the board) leaves the core to answer.
            solved.or_else(|_| Ok(answer(ColumnAnswer::GaveUp, EngineSpec::Local { seed })))
        },
        |r| r.as_ref().map_or(true, |s| s.answer.is_decided()),
        budget.cancel.as_deref(),
        budget.deadline,
    );
    let at = |t: Instant| (t.saturating_duration_since(trace.t0).as_secs_f64() * 1e6).round() / 1e3;
    trace.sides = Some((sides_from, [at(done.ended[0]), at(done.ended[1])]));
    // The earlier of two answers wins; neither answering leaves local search's word
    // (it gave up) unless the budget stopped them, and the core's error if it failed.
    let core_decided = matches!(&done.first, Ok(c) if c.answer.is_decided());
    let local = done.second?;
    let local_first = local.answer.is_decided() && done.earlier == Side::Second;
    let mut solved = if core_decided && !local_first {
        done.first?
    } else if local.answer.is_decided() {
        local
    } else {
        let core = done.first?;
        let gave_up = matches!(local.answer, ColumnAnswer::GaveUp)
            && !matches!(core.answer, ColumnAnswer::Interrupted);
        SolvedColumns {
            answer: if gave_up {
                ColumnAnswer::GaveUp
            } else {
                ColumnAnswer::Interrupted
            },
            work: local.work,
        }
    };
    solved.work.time_ms = ms(start);
    Ok(ran(solved, hall_refuted.load(Ordering::Acquire)))
}

/// How the portfolio's answer `solved` came about; `hall` when the core's side refuted the
/// board by Hall's condition on the bitmaps.
fn ending(solved: &SolvedColumns, hall: bool) -> PortfolioEnding {
    match (&solved.answer, solved.work.answered_by) {
        (ColumnAnswer::GaveUp, _) => PortfolioEnding::GaveUp,
        (ColumnAnswer::Interrupted, _) => PortfolioEnding::Stopped,
        (_, Some(EngineSpec::Local { .. })) => PortfolioEnding::Local,
        _ if hall => PortfolioEnding::Hall,
        (_, Some(EngineSpec::Backtrack { threads: 0 })) => PortfolioEnding::WholeBoard,
        _ => PortfolioEnding::Core {
            searched: solved.work.core.is_some(),
        },
    }
}

/// Waits until local search is out of play or `until` has passed (true), or the budget is
/// spent (false).
fn wait_for(local_out: &AtomicBool, budget: &Budget, until: Option<Instant>) -> bool {
    loop {
        if local_out.load(Ordering::Acquire) || until.is_some_and(|t| Instant::now() >= t) {
            return true;
        }
        if budget.exhausted() {
            return false;
        }
        std::thread::sleep(WAIT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;
    use crate::local;
    use crate::name::EngineName;
    use crate::plan::{self, Action, Ask};

    fn by(solved: &SolvedColumns) -> Option<EngineName> {
        solved.work.answered_by.map(EngineName::of)
    }

    /// `auto` on `p`: the answer, the account of what ran and why (as `solve` gives it), and
    /// the executed plan.
    fn solve(p: &Problem, budget: &Budget) -> (SolvedColumns, String, Step) {
        let auto = EngineSpec::Auto { seed: 1 };
        let mut made = plan::plan(p, auto, Ask::default(), budget);
        assert_eq!(made.root.step, Action::Portfolio);
        let (open, clash) = made.bitmaps.take().expect("the portfolio's bitmaps");
        let solved = run(&mut made.root, p, &open, clash, budget, Instant::now()).unwrap();
        drop(open);
        (solved, made.why(), made.root)
    }

    /// An n×n board whose last `free` rows are free, the others holding the queens of a
    /// solution local search found, with two free rows closed but for one column they share:
    /// no row is empty, so local search's checks pass and it can only give up, but Hall's
    /// condition says "no".
    fn hall_board(n: usize, free: usize) -> Problem {
        let budget = Budget::default();
        let (local::Outcome::Solved(sol), _) =
            local::search(&Problem::new(n).unwrap(), local::Config::default(), &budget).unwrap()
        else {
            panic!("local search solves the empty board")
        };
        let rows: Vec<usize> = (n - free..n).collect();
        let fixed: Vec<(usize, usize)> = (0..n - free).map(|r| (r, sol[r] as usize)).collect();
        let base = Problem::new(n).unwrap().with_fixed(&fixed).unwrap();
        let (open, _) = Open::new(&base);
        // Rows a and b both open in column sol[a]: close the rest of the two rows.
        let (a, b) = rows
            .iter()
            .flat_map(|&a| rows.iter().map(move |&b| (a, b)))
            .find(|&(a, b)| a != b && open.open(b, sol[a] as usize))
            .expect("two free rows share an open column");
        let keep = sol[a] as usize;
        let cols: Vec<usize> = rows.iter().map(|&r| sol[r] as usize).collect();
        let blocked: Vec<(usize, usize)> = [a, b]
            .iter()
            .flat_map(|&r| cols.iter().filter(|&&c| c != keep).map(move |&c| (r, c)))
            .collect();
        base.with_blocked(&blocked).unwrap()
    }

    /// Two free rows whose open cells all lie in one column: no row is empty, so local
    /// search's checks pass and it can only give up, but Hall's condition says "no".
    #[test]
    fn a_refutation_local_search_never_gives() {
        let (n, budget) = (100, Budget::default());
        let p = hall_board(n, 10);
        assert_eq!(
            local::refute(&p),
            None,
            "local search's checks see no empty line"
        );
        let (open, _) = Open::new(&p);
        assert!(matches!(
            completion::hall_on_bitmaps(&open, u64::MAX, &budget),
            Hall::Fails(_)
        ));
        let (solved, said, root) = solve(&p, &budget);
        let ColumnAnswer::Unsat(Some(why)) = &solved.answer else {
            panic!("{:?}", solved.answer)
        };
        assert!(why.contains("cannot all get a queen"), "{why}");
        assert_eq!(by(&solved), Some(EngineName::Backtrack));
        // The core is small: it is built beside local search, and its presolve refutes it.
        assert_eq!(
            root.said.as_deref(),
            Some(PortfolioEnding::Core { searched: false }.said())
        );
        assert!(root.all().iter().all(|s| s.ending.is_some()), "{root:?}");
        assert!(
            said.starts_with("portfolio: the core (10 free rows) was estimated at ")
                && said.contains("so the core was built at once and searched alone for up to 20 ms, then beside local search")
                && said.ends_with(
                    "the core's presolve refuted the board before any search (the reason says how)"
                ),
            "{said}"
        );
        // A limit under local search's memory leaves the refutation to the core alone.
        let decision = root.estimate.expect("a decision");
        let tight = Budget {
            max_memory: Some(decision.core_memory + 1024),
            ..Budget::default()
        };
        assert!(decision.local_memory > decision.core_memory + 1024);
        let (solved, said, _) = solve(&p, &tight);
        assert!(matches!(solved.answer, ColumnAnswer::Unsat(_)));
        assert!(
            said.contains("local search is over the memory limit, so the core search ran alone"),
            "{said}"
        );
        // Fixed queens that break a rule: nothing runs.
        let mut fixed = p.fixed().to_vec();
        fixed[1] = (fixed[1].0, fixed[0].1);
        let clash = Problem::new(n).unwrap().with_fixed(&fixed).unwrap();
        let (solved, said, _) = solve(&clash, &budget);
        assert!(matches!(solved.answer, ColumnAnswer::Unsat(_)));
        assert_eq!(
            said,
            "portfolio: refuted by the fixed queens before any engine ran"
        );
    }

    /// The same refutation on a core larger than local search: the core is not built, and
    /// Hall's condition on the bitmaps refutes the board beside local search.
    #[test]
    fn a_refutation_on_the_bitmaps_before_any_core() {
        let p = hall_board(3000, 1000);
        let (open, _) = Open::new(&p);
        let decision = completion::estimate_core(&p, &open, &Budget::default());
        assert!(decision.local && !decision.core_first, "{decision:?}");
        let (solved, said, _) = solve(&p, &Budget::default());
        assert!(matches!(solved.answer, ColumnAnswer::Unsat(_)));
        assert_eq!(solved.work.core, None, "the core was never built");
        assert!(
            said.contains("so local search ran first")
                && said.ends_with("; Hall's condition refuted the board before the core was built"),
            "{said}"
        );
    }

    /// A lightly preset board: the core would hold far more than local search, so it is not
    /// built, and local search answers.
    #[test]
    fn a_middle_band_board_goes_to_local_search_without_its_core() {
        let p = generate::completion(4000, 2000, 1).unwrap();
        let (open, _) = Open::new(&p);
        let decision = completion::estimate_core(&p, &open, &Budget::default());
        assert!(
            decision.core && decision.local && !decision.core_first,
            "{decision:?}"
        );
        assert!(
            decision.core_memory > 2 * decision.local_memory,
            "{decision:?}"
        );
        let (solved, said, _) = solve(&p, &Budget::default());
        assert!(matches!(solved.answer, ColumnAnswer::Sat(_)));
        assert_eq!(by(&solved), Some(EngineName::Local));
        assert_eq!(solved.work.core, None, "the core was never built");
        let (core, local) = (
            decision.core_memory.div_ceil(1 << 20),
            decision.local_memory.div_ceil(1 << 20),
        );
        assert_eq!(
            said,
            format!(
                "portfolio: the core (2000 free rows) was estimated at {core} MB against local \
                 search's {local} MB, so local search ran first, beside Hall's condition on the \
                 bitmaps, and the core only once local search gave up; local search answered"
            )
        );
    }

    /// Near the crossing local search gives up; the core search decides.
    #[test]
    fn a_crossing_board_is_decided_by_the_core_where_local_search_gives_up() {
        let p = generate::completion(1000, 900, 2).unwrap();
        let quick = local::Config {
            seed: 1,
            restarts: 3,
        };
        let (outcome, _) = local::search(&p, quick, &Budget::default()).unwrap();
        assert!(matches!(outcome, local::Outcome::GaveUp), "{outcome:?}");
        let (solved, said, _) = solve(&p, &Budget::default());
        assert!(solved.answer.is_decided(), "{:?}", solved.answer);
        assert_eq!(by(&solved), Some(EngineName::Backtrack));
        assert!(solved.work.core.is_some());
        // The core is no larger than local search's memory: both ran, and the core answered.
        assert!(
            said.starts_with("portfolio: the core (100 free rows) was estimated at ")
                && said.ends_with(
                    "so the core was built at once and searched alone for up to 20 ms, then beside local search; the core search answered"
                ),
            "{said}"
        );
    }
}
