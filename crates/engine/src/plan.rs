//! The one place an engine is chosen. [`plan`] turns a request (its engine, what it asks
//! beside one solution, the budget's memory limit) and the problem into a [`Plan`]: a small
//! tree of [`Step`]s (refute, presolve to the core, run an engine, two steps side by side,
//! one step if another gave up, a cross-check, a certificate). `auto`'s choice on a board
//! and the completion portfolio's decision ([`crate::completion::CoreEstimate`]) are nodes of that tree, made
//! once per request; [`crate::execute`] runs the tree and writes into each step how long it
//! took and how it ended, so the answer carries what ran (`"plan"`) and its `why` is read
//! from it.
//!
//! `auto` on a classic completion is the tree's `portfolio` node: the cheap refutations
//! first, then the core search and local search side by side on one core each, the first
//! answer stopping the other; the executor runs its steps as it runs any others.
//!
//! Neither engine alone is good at every density: near the crossing local search gives up
//! where the core search answers in milliseconds, and on lightly preset boards local search
//! answers in milliseconds where the core holds millions of cells. The core's memory is
//! estimated from the bitmaps before it is built ([`estimate_core`], when the plan is made); a
//! core larger than local search's own memory is not built while local search is in play:
//! its side checks Hall's condition on the bitmaps (the "no" local search cannot give) and
//! waits, and builds the core only once local search has given up.

use std::cell::Cell;

use crate::completion::{self, estimate_core, Open, CORE_ALONE};
use crate::local;
use crate::name::EngineName;
use crate::spec::EngineSpec;
pub use crate::step::{Action, Ending, Step};
use queens_model::model::{Problem, MAX_N};
use queens_model::Budget;

/// The core search's answers name the backtracker on one thread.
pub(crate) const CORE: EngineSpec = EngineSpec::Backtrack { threads: 1 };

/// Boards smaller than this go to the backtracker alone: it answers them in well under a
/// millisecond, and proves "no solution" where there is none (n = 2, 3).
pub const RACE_FROM_N: usize = 32;

/// What a request asks, beside its engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ask {
    /// More than one solution (`all` or `limit`).
    pub many: bool,
    /// A proof of "no".
    pub proof: bool,
    /// A second engine to agree.
    pub cross_check: bool,
    /// The ring bounds.
    pub rings: bool,
    /// A count, not a listing: the core search counts a completion's core where it suits
    /// ([`counts_on_core`]).
    pub count: bool,
    /// A minimal core of the presets, or a solution (`explain`).
    pub explain: bool,
    /// Backtracker threads, when the request names them.
    pub threads: Option<usize>,
}

/// The plan of one request: its tree, and what the executor needs beside it.
pub struct Plan<'p> {
    /// The steps.
    pub root: Step,
    /// The engine the request named, which the answer reports as `engine`.
    pub engine: EngineName,
    /// One solution as one column per row, through the executor ([`crate::execute`]);
    /// otherwise on the board (listing, proving, cross-checking, a complete engine named).
    pub columns: bool,
    /// The completion portfolio's bitmaps, built for its estimates and handed to its run.
    pub(crate) bitmaps: Option<(Open<'p>, bool)>,
}

impl std::fmt::Debug for Plan<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan")
            .field("root", &self.root)
            .field("engine", &self.engine)
            .field("columns", &self.columns)
            .finish()
    }
}

thread_local! {
    static PLANS_MADE: Cell<u64> = const { Cell::new(0) };
}

/// Plans made on this thread so far: a request makes exactly one (tests count them).
pub fn plans_made() -> u64 {
    PLANS_MADE.with(Cell::get)
}

/// Whether `auto` runs the completion portfolio on `problem` for one solution: a classic
/// completion of at least [`completion::AUTO_FROM_N`] rows.
pub fn is_portfolio_board(problem: &Problem) -> bool {
    completion::applies(problem)
        && !problem.fixed().is_empty()
        && problem.n() >= completion::AUTO_FROM_N
}

/// The plan of `problem` asking `ask` of the engine `spec` names, within `budget`'s memory
/// limit: the one place an engine is chosen.
pub fn plan<'p>(problem: &'p Problem, spec: EngineSpec, ask: Ask, budget: &Budget) -> Plan<'p> {
    PLANS_MADE.with(|c| c.set(c.get() + 1));
    let engine = EngineName::of(spec);
    let single = !(ask.many || ask.proof || ask.cross_check);
    let mut bitmaps = None;
    let named = "the engine named, on the board";
    let on_core = match spec {
        EngineSpec::Auto { .. } => counts_on_core(problem),
        EngineSpec::Backtrack { .. } => problem.is_sparse(),
        _ => false,
    };
    let (run, columns) = match spec {
        EngineSpec::Sat(_) if ask.explain => (
            Step::run(spec, "the SAT engine's failed assumptions, then deletion"),
            false,
        ),
        _ if ask.explain => {
            let why = "deletion: each preset dropped while the rest still has no completion";
            (Step::run(EngineSpec::Backtrack { threads: 0 }, why), false)
        }
        _ if ask.count && on_core => (
            Step::new(
                Action::Presolve,
                "the core of the completion",
                vec![Step::run(CORE, "the core search counts every solution")],
            ),
            false,
        ),
        EngineSpec::Race(encoding) => (
            Step::new(
                Action::SideBySide,
                "the backtracker here against the SAT engine in a child process",
                vec![
                    here(problem),
                    Step {
                        child: true,
                        ..Step::run(
                            EngineSpec::Sat(encoding),
                            "varisat, which only a kill stops",
                        )
                    },
                ],
            ),
            false,
        ),
        EngineSpec::Local { .. } => (Step::run(spec, "the engine named"), true),
        EngineSpec::Auto { seed } if single && !ask.rings => {
            let (step, open) = auto(problem, seed, budget);
            bitmaps = open;
            (step, true)
        }
        EngineSpec::Auto { .. } => {
            let threads = ask.threads.unwrap_or(0);
            let spec = if ask.rings {
                EngineSpec::BacktrackRings { threads }
            } else {
                EngineSpec::Backtrack { threads }
            };
            let why = "the backtracker, as listing, proving and cross-checking need a complete \
                       engine";
            (Step::run(spec, why), false)
        }
        EngineSpec::Backtrack { .. } | EngineSpec::Sat(_) | EngineSpec::Ext(_)
            if problem.is_sparse() && single =>
        {
            let why = "the engine named, on the core of the completion (past 4096 rows the \
                       complete engines search only the rows left free)";
            let run = Step::run(spec, why);
            let step = match spec {
                EngineSpec::Backtrack { .. } => Step::new(
                    Action::Presolve,
                    "the fixed queens' lines taken out, the cheap refutations tried",
                    vec![run],
                ),
                _ => run,
            };
            (step, true)
        }
        EngineSpec::Backtrack { .. } | EngineSpec::BacktrackRings { .. } => {
            let spec = match (spec, ask.threads) {
                (EngineSpec::Backtrack { .. }, Some(threads)) => EngineSpec::Backtrack { threads },
                (EngineSpec::BacktrackRings { .. }, Some(threads)) => {
                    EngineSpec::BacktrackRings { threads }
                }
                _ => spec,
            };
            (Step::run(spec, named), false)
        }
        EngineSpec::Sat(_) | EngineSpec::Ext(_) | EngineSpec::Leaf(_) => {
            (Step::run(spec, named), false)
        }
    };
    let root = if ask.proof {
        Step::new(
            Action::Certify,
            "a \"no\" comes with a proof, checked before it is given",
            vec![run],
        )
    } else if ask.cross_check {
        let first = run.engine.unwrap_or(spec);
        let other = Step::run(
            first.other(crate::encode::amo::Encoding::Auto),
            "the other engine, which must agree",
        );
        Step::new(
            Action::CrossCheck,
            "both engines, one after the other",
            vec![run, other],
        )
    } else {
        run
    };
    Plan {
        root,
        engine,
        columns,
        bitmaps,
    }
}

/// The race's side in this process: the backtracker on one thread, on the core of a
/// completion past [`MAX_N`].
fn here(problem: &Problem) -> Step {
    let run = Step::run(
        EngineSpec::Backtrack { threads: 1 },
        "the backtracker, one core",
    );
    if problem.is_sparse() {
        Step::new(Action::Presolve, "the core of the completion", vec![run])
    } else {
        run
    }
}

/// `auto`'s choice for one solution: the portfolio on a classic completion of at least
/// [`completion::AUTO_FROM_N`] rows, local search on an empty board past [`MAX_N`], the
/// backtracker on small boards and where local search cannot go (regions, the `touch`
/// rule), and the two whole-board engines side by side in between.
fn auto<'p>(problem: &'p Problem, seed: u64, budget: &Budget) -> (Step, Option<(Open<'p>, bool)>) {
    let local = EngineSpec::Local { seed };
    if is_portfolio_board(problem) {
        let (open, clash) = Open::new(problem);
        let step = portfolio(problem, &open, seed, budget);
        return (step, Some((open, clash)));
    }
    let step = if problem.n() > MAX_N {
        Step::run(
            local,
            format!(
                "local search alone, on an empty board past {MAX_N} rows (the complete \
                 engines keep n² bits)"
            ),
        )
    } else if local::supports(problem).is_err() {
        Step::run(
            EngineSpec::Backtrack { threads: 0 },
            "the backtracker alone, as local search cannot take this board (regions or the \
             touch rule)",
        )
    } else if problem.n() < RACE_FROM_N {
        Step::run(
            EngineSpec::Backtrack { threads: 0 },
            format!(
                "the backtracker alone, on a board under {RACE_FROM_N} rows (it answers \
                 them in well under a millisecond)"
            ),
        )
    } else {
        Step::new(
            Action::SideBySide,
            "the backtracker against local search, one core each",
            vec![
                Step::run(EngineSpec::Backtrack { threads: 1 }, "the whole board"),
                Step::run(local, "gives up rather than proves"),
            ],
        )
    };
    (step, None)
}

/// The completion portfolio's node: its estimates ([`estimate_core`]) and the steps they
/// choose.
fn portfolio(problem: &Problem, open: &Open, seed: u64, budget: &Budget) -> Step {
    let e = estimate_core(problem, open, budget);
    let core = EngineSpec::Backtrack { threads: 1 };
    let local = EngineSpec::Local { seed };
    let refute = Step::new(Action::Refute, "the fixed queens' rules", Vec::new());
    let presolve = || {
        Step::new(
            Action::Presolve,
            "the core: the fixed queens' lines taken out, the cheap refutations tried",
            Vec::new(),
        )
    };
    let steps = if !e.local {
        vec![refute, presolve(), Step::run(core, "the core search alone")]
    } else if e.core_first {
        vec![
            refute,
            presolve(),
            Step {
                limit_ms: Some(CORE_ALONE.as_millis() as u64),
                ..Step::run(
                    core,
                    format!(
                        "the core search alone, for up to {} ms",
                        CORE_ALONE.as_millis()
                    ),
                )
            },
            Step::new(
                Action::SideBySide,
                "the core search against local search",
                vec![
                    Step::run(core, "the core search, again"),
                    Step::run(local, "local search"),
                ],
            ),
        ]
    } else {
        // A complete engine once local search gave up: up to MAX_N the whole-board
        // backtracker (n² bits, less than this large core), past it the core where it fits.
        let hall = Step::new(Action::Hall, "Hall's condition on the bitmaps", Vec::new());
        let then = match (problem.is_sparse(), e.core) {
            (false, _) => vec![
                hall,
                Step::run(
                    EngineSpec::Backtrack { threads: 0 },
                    "the whole-board backtracker",
                ),
            ],
            (true, true) => vec![
                hall,
                Step::new(
                    Action::Presolve,
                    "the core, built now",
                    vec![Step::run(core, "the core search")],
                ),
            ],
            (true, false) => vec![hall],
        };
        vec![
            refute,
            Step::new(
                Action::SideBySide,
                "Hall's condition, then a complete engine, against local search",
                vec![
                    Step::new(
                        Action::ThenIfGaveUp,
                        "a complete engine only once local search gave up",
                        then,
                    ),
                    Step::run(local, "local search"),
                ],
            ),
        ]
    };
    Step {
        estimate: Some(e),
        ..Step::new(
            Action::Portfolio,
            "the core search and local search on a classic completion",
            steps,
        )
    }
}

impl Plan<'_> {
    /// What ran and why, for people, read from the executed tree: for `auto` its choice (on
    /// a completion the portfolio's estimates and how it ended), for two engines side by
    /// side the one that answered first, otherwise the step that ran.
    pub fn why(&self) -> String {
        let root = match self.root.step {
            Action::Certify | Action::CrossCheck => &self.root.steps[0],
            _ => &self.root,
        };
        let first = || match root
            .steps
            .iter()
            .find(|s| s.ending == Some(Ending::Answered))
        {
            Some(s) => format!(
                "the {} engine answered first",
                EngineName::of(s.all().iter().find_map(|s| s.engine).expect("a run step")).name()
            ),
            None => "neither answered within the limits".into(),
        };
        match (self.engine, root.step) {
            (_, Action::Portfolio) => match (&root.said, root.estimate) {
                (Some(said), _) if root.steps[0].ending == Some(Ending::Refuted) => {
                    format!("portfolio: {said}")
                }
                (Some(said), Some(e)) => format!("portfolio: {}; {said}", e.why()),
                _ => "portfolio: the core search and local search".into(),
            },
            (EngineName::Race, _) => format!("race: {}; {}", root.what, first()),
            (EngineName::Auto, Action::SideBySide) => format!("auto: {}; {}", root.what, first()),
            (EngineName::Auto, _) => format!("auto: {}", root.what),
            (e, Action::Presolve) => format!("{}: {}", e.name(), root.steps[0].what),
            (e, _) => format!("{}: {}", e.name(), root.what),
        }
    }
}

/// Whether `auto` counts `problem` on its core: a classic completion of at least
/// [`completion::AUTO_FROM_N`] rows whose core is small ([`completion::suits_auto`]), and
/// every classic completion past [`MAX_N`], whatever its core's size (a count searches the
/// whole core, so the bound that leaves a lightly preset board to local search for one
/// solution does not apply: the memory limit does, [`completion::count`]); the whole-board
/// backtracker otherwise.
pub fn counts_on_core(problem: &Problem) -> bool {
    completion::suits_auto(problem)
        || problem.is_sparse() && completion::applies(problem) && !problem.fixed().is_empty()
}

/// How a run of the portfolio node `step` ended, for people, read from its executed steps.
pub fn portfolio_said(step: &Step) -> &'static str {
    let all = step.all();
    let refuted = |a: Action| {
        all.iter()
            .any(|s| s.step == a && s.ending == Some(Ending::Refuted))
    };
    let answered = all
        .iter()
        .find(|s| s.step == Action::Run && s.ending == Some(Ending::Answered))
        .and_then(|s| s.engine);
    if refuted(Action::Refute) {
        "refuted by the fixed queens before any engine ran"
    } else if refuted(Action::Hall) {
        "Hall's condition refuted the board before the core was built"
    } else if refuted(Action::Presolve) {
        "the core's presolve refuted the board before any search (the reason says how)"
    } else {
        match answered {
            Some(EngineSpec::Local { .. }) => "local search answered",
            Some(EngineSpec::Backtrack { threads: 0 }) => {
                "local search gave up, and the whole-board backtracker answered"
            }
            Some(_) => "the core search answered",
            None if step.ending == Some(Ending::GaveUp) => {
                "local search gave up, and no complete engine takes this core"
            }
            None => "the limits stopped both before an answer",
        }
    }
}
