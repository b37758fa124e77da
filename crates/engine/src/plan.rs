//! The one place an engine is chosen. [`plan`] turns a request (its engine, what it asks
//! beside one solution, the budget's memory limit) and the problem into a [`Plan`]: a small
//! tree of [`Step`]s (refute, presolve to the core, run an engine, two steps side by side,
//! one step if another gave up, a cross-check, a certificate). `auto`'s choice on a board
//! and the completion portfolio's decision ([`CoreEstimate`]) are nodes of that tree, made
//! once per request; [`crate::execute`] runs the tree and writes into each step how long it
//! took and how it ended, so the answer carries what ran (`"plan"`) and its `why` is read
//! from it.
//!
//! `auto` on a classic completion is the tree's `portfolio` node ([`run_portfolio`]): the
//! cheap refutations first, then the core search and local search side by side on one core
//! each ([`crate::side_by_side::side_by_side`]), the first answer stopping the other.
//!
//! Neither engine alone is good at every density: near the crossing local search gives up
//! where the core search answers in milliseconds, and on lightly preset boards local search
//! answers in milliseconds where the core holds millions of cells. The core's memory is
//! estimated from the bitmaps before it is built ([`estimate_core`], when the plan is made); a
//! core larger than local search's own memory is not built while local search is in play:
//! its side checks Hall's condition on the bitmaps (the "no" local search cannot give) and
//! waits, and builds the core only once local search has given up. Both sides run on scoped
//! threads with their own stop flags, so when the portfolio returns nothing it started is
//! still running. Its run writes how each of its steps went into the plan's tree.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

use crate::answer::{Answer, ColumnAnswer, SolvedColumns};
use crate::completion::{self, bytes, estimate_core, CoreEstimate, Hall, Open, CORE_ALONE};
use crate::engines::{Backtrack, Engine, Local};
use crate::local;
use crate::name::EngineName;
use crate::side_by_side::{side_by_side, Side};
use crate::spec::EngineSpec;
use crate::work::{ms, Work};
use queens_model::error::Error;
use queens_model::model::{Problem, MAX_N};
use queens_model::Budget;

/// Boards smaller than this go to the backtracker alone: it answers them in well under a
/// millisecond, and proves "no solution" where there is none (n = 2, 3).
pub const RACE_FROM_N: usize = 32;

/// What one step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Cheap, sound reasons for "no" (the fixed queens' rules, Hall's condition).
    Refute,
    /// The fixed queens' lines taken out: the core of a completion.
    Presolve,
    /// One engine.
    Run,
    /// Its steps at once, one core each: the first verified answer wins and stops the other.
    SideBySide,
    /// Its first step; its second only if the first gave up.
    ThenIfGaveUp,
    /// Its first step, then its second, which must agree.
    CrossCheck,
    /// Its step, whose "no" comes with a proof checked before it is given.
    Certify,
    /// `auto` on a classic completion: its steps in order, each only if the one before
    /// did not answer.
    Portfolio,
}

/// How a step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// It gave the answer.
    Answered,
    /// It ran out of moves without an answer (local search spent its starts).
    GaveUp,
    /// The limits, or the other side's answer, stopped it.
    Stopped,
    /// It proved "no solution" before any search.
    Refuted,
    /// It never ran (an earlier step answered).
    Skipped,
    /// It ran and left the answer to a later step.
    Passed,
}

impl Ending {
    /// How a step's answer ended it.
    pub fn of(answer: &ColumnAnswer) -> Ending {
        match answer {
            Answer::Sat(_) | Answer::Unsat(_) => Ending::Answered,
            Answer::GaveUp => Ending::GaveUp,
            Answer::Interrupted => Ending::Stopped,
        }
    }
}

/// One step of a plan, and once run, how it went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Step {
    /// What it does.
    pub step: Action,
    /// The engine it runs (`run` steps).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "spec_out",
        deserialize_with = "spec_in"
    )]
    #[schema(value_type = Option<String>)]
    pub engine: Option<EngineSpec>,
    /// What it is, for people.
    pub what: String,
    /// On `run` steps of engine `race`: this side runs in a child process.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub child: bool,
    /// The estimates the choice was made on (the completion portfolio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<CoreEstimate>,
    /// Once run: when it started, in milliseconds from the start of the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_ms: Option<f64>,
    /// Once run: when it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_ms: Option<f64>,
    /// Once run: how it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ending: Option<Ending>,
    /// Once run, where it says more than its ending: how, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub said: Option<String>,
    /// Its own steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(no_recursion)]
    pub steps: Vec<Step>,
}

fn spec_out<S: Serializer>(spec: &Option<EngineSpec>, s: S) -> Result<S::Ok, S::Error> {
    match spec {
        Some(spec) => s.serialize_str(&spec.to_string()),
        None => s.serialize_none(),
    }
}

fn spec_in<'de, D: Deserializer<'de>>(d: D) -> Result<Option<EngineSpec>, D::Error> {
    let text = Option::<String>::deserialize(d)?;
    text.map(|t| t.parse::<EngineSpec>().map_err(serde::de::Error::custom))
        .transpose()
}

impl Step {
    /// A step that does `step` with `steps` under it.
    pub fn new(step: Action, what: impl Into<String>, steps: Vec<Step>) -> Step {
        Step {
            step,
            engine: None,
            what: what.into(),
            child: false,
            estimate: None,
            start_ms: None,
            end_ms: None,
            ending: None,
            said: None,
            steps,
        }
    }

    /// A `run` step of `engine`.
    pub fn run(engine: EngineSpec, what: impl Into<String>) -> Step {
        Step {
            engine: Some(engine),
            ..Step::new(Action::Run, what, Vec::new())
        }
    }

    /// The step's trace: started and ended (milliseconds from the plan's start) and how.
    pub fn ran(&mut self, start_ms: f64, end_ms: f64, ending: Ending) {
        self.start_ms = Some(start_ms);
        self.end_ms = Some(end_ms);
        self.ending = Some(ending);
    }

    /// Marks this step and every step under it that has no ending as skipped.
    pub fn skip_rest(&mut self) {
        if self.ending.is_none() {
            self.ending = Some(Ending::Skipped);
        }
        for s in &mut self.steps {
            s.skip_rest();
        }
    }

    /// The tree for people, one step a line, indented two spaces a level: what each does,
    /// and once run, its times and ending.
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write(0, &mut out);
        out
    }

    fn write(&self, depth: usize, out: &mut String) {
        let pad = "  ".repeat(depth);
        let name = match self.step {
            Action::Refute => "refute",
            Action::Presolve => "presolve",
            Action::Run => "run",
            Action::SideBySide => "side by side",
            Action::ThenIfGaveUp => "then if it gave up",
            Action::CrossCheck => "cross-check",
            Action::Certify => "certify",
            Action::Portfolio => "portfolio",
        };
        let engine = self.engine.map(|e| format!(" {e}")).unwrap_or_default();
        let child = if self.child { " (child process)" } else { "" };
        out.push_str(&format!("{pad}{name}{engine}{child}: {}", self.what));
        if let Some(e) = &self.estimate {
            out.push_str(&format!(
                " [{} free rows; core {}, local search {}]",
                e.free_rows,
                bytes(e.core_memory),
                bytes(e.local_memory)
            ));
        }
        match (self.ending, self.start_ms, self.end_ms) {
            (Some(Ending::Skipped), _, _) => out.push_str(" — skipped"),
            (Some(ending), Some(a), Some(b)) => {
                let ending = serde_json::to_value(ending).expect("an ending serializes");
                let ending = ending.as_str().unwrap_or_default().replace('_', " ");
                out.push_str(&format!(" — {ending}, {a:.3}–{b:.3} ms"));
            }
            _ => {}
        }
        out.push('\n');
        for s in &self.steps {
            s.write(depth + 1, out);
        }
    }

    /// The steps under this one and itself, depth first.
    pub fn all(&self) -> Vec<&Step> {
        let mut v = vec![self];
        for s in &self.steps {
            v.extend(s.all());
        }
        v
    }
}

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
    let (run, columns) = match spec {
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
            Step::run(
                core,
                format!(
                    "the core search alone, for up to {} ms",
                    CORE_ALONE.as_millis()
                ),
            ),
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
        let complete = if problem.is_sparse() {
            Step::run(core, "the core search, on the core built now")
        } else {
            Step::run(
                EngineSpec::Backtrack { threads: 0 },
                "the whole-board backtracker",
            )
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
                        vec![
                            Step::new(
                                Action::Refute,
                                "Hall's condition on the bitmaps",
                                Vec::new(),
                            ),
                            complete,
                        ],
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
pub fn run_portfolio(
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
