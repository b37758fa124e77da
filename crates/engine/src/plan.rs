//! The one place an engine is chosen: a request's engine fields and question become a
//! [`Plan`] (which engines run, in what order or side by side, with what memory, and why),
//! and `auto`'s choice on a board is [`choose`]. The operations layer asks [`plan`] once per
//! `solve` and runs its [`Route`]; `auto` runs [`choose`]'s [`Choice`], and on a classic
//! completion the portfolio runs [`portfolio`]'s [`Portfolio`] decision.

use crate::completion::{self, Open};
pub use crate::decision::{Ending, Portfolio, PortfolioRun};
use crate::{local, Budget, EngineName, EngineSpec, Work};
use queens_model::model::{Problem, MAX_N};

/// Boards smaller than this go to the backtracker alone: it answers them in well under a
/// millisecond, and proves "no solution" where there is none (n = 2, 3).
pub const RACE_FROM_N: usize = 32;

/// Cells Hall's condition looks at on the bitmaps of a core too large to build yet, at once
/// (a few milliseconds): it settles the boards of up to about 2,000 free rows.
pub const HALL_QUICK_LOOKS: u64 = 1 << 22;

/// How long local search runs alone before Hall's condition takes more than
/// [`HALL_QUICK_LOOKS`] beside it: 250 ms, and 1 µs a row on boards past 250,000 rows (on
/// a lightly preset board local search answers in about half that, and a refutation only
/// matters where it cannot answer at all).
pub fn hall_later(n: usize) -> std::time::Duration {
    std::time::Duration::from_micros((n as u64).max(250_000))
}

/// Cells Hall's condition looks at on the bitmaps in all (about a third of a second): past
/// it the condition is left unknown and the engines decide.
pub const HALL_LOOKS: u64 = 100_000_000;

/// How long the portfolio searches a core built at once alone, before local search starts
/// beside it: near the crossing the core search answers in well under this, and starting two
/// threads costs more than the answer; a search not done by then starts again on its thread.
pub const CORE_ALONE: std::time::Duration = std::time::Duration::from_millis(20);

/// What `auto` runs on a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The backtracker alone.
    Backtrack,
    /// Local search alone.
    Local,
    /// The whole-board backtracker against local search, one core each.
    Race,
    /// The portfolio of a classic completion ([`portfolio`]): refutations, then the core
    /// search and local search side by side.
    Portfolio,
}

/// `auto`'s choice for one solution of `problem`: the portfolio on a classic completion of
/// at least [`completion::AUTO_FROM_N`] rows, local search on an empty board past
/// [`MAX_N`], the backtracker on small boards and where local search cannot go (regions,
/// the `touch` rule), and the race of the two whole-board engines in between.
pub fn choose(problem: &Problem) -> Choice {
    let completion = completion::applies(problem)
        && !problem.fixed().is_empty()
        && problem.n() >= completion::AUTO_FROM_N;
    if completion {
        Choice::Portfolio
    } else if problem.n() > MAX_N {
        Choice::Local
    } else if local::supports(problem).is_err() || problem.n() < RACE_FROM_N {
        Choice::Backtrack
    } else {
        Choice::Race
    }
}

impl Portfolio {
    /// The decision for people, in one clause: the estimates, and what ran first.
    pub fn why(&self) -> String {
        let estimate = format!(
            "the core ({} free rows) was estimated at {} against local search's {}",
            self.free_rows,
            bytes(self.core_memory),
            bytes(self.local_memory)
        );
        match (self.local, self.core, self.core_first) {
            (true, true, true) => format!(
                "{estimate}, so the core was built at once and searched alone for up to {} ms, \
                 then beside local search",
                CORE_ALONE.as_millis()
            ),
            (true, true, false) => format!(
                "{estimate}, so local search ran first, beside Hall's condition on the bitmaps, \
                 and the core only once local search gave up"
            ),
            (true, false, _) => format!(
                "{estimate}, and the core is over the limits (the core search's bound or the \
                 memory limit), so local search ran, beside Hall's condition on the bitmaps"
            ),
            (false, true, _) => format!(
                "{estimate}, and local search is over the memory limit, so the core search ran \
                 alone"
            ),
            (false, false, _) => format!("{estimate}: neither fits the limits"),
        }
    }
}

impl PortfolioRun {
    /// What ran and why, for people: the decision and how the run ended.
    pub fn why(&self) -> String {
        let Some(decision) = self.decision else {
            return "portfolio: refuted by the fixed queens before any engine ran".into();
        };
        let ended = match self.ending {
            Ending::Presets => "the fixed queens break a rule",
            Ending::Hall => "Hall's condition refuted the board before the core was built",
            Ending::Core { searched: false } => {
                "the core's presolve refuted the board before any search (the reason says how)"
            }
            Ending::Core { searched: true } => "the core search answered",
            Ending::WholeBoard => "local search gave up, and the whole-board backtracker answered",
            Ending::Local => "local search answered",
            Ending::GaveUp => "local search gave up, and no complete engine takes this core",
            Ending::Stopped => "the limits stopped both before an answer",
        };
        format!("portfolio: {}; {ended}", decision.why())
    }
}

/// A size for people: kilobytes under a megabyte, megabytes above.
fn bytes(b: u64) -> String {
    if b < 1 << 20 {
        format!("{} KB", b.div_ceil(1 << 10))
    } else {
        format!("{} MB", b.div_ceil(1 << 20))
    }
}

/// The portfolio's decision for a classic completion (see [`Portfolio`]): the core's memory
/// estimated from the bitmaps ([`Open::estimate_cells`]) against local search's and the
/// budget's limit. `open` is the problem's bitmaps.
pub fn portfolio(problem: &Problem, open: &Open, budget: &Budget) -> Portfolio {
    let cells = open.estimate_cells();
    let core_memory = completion::memory_estimate(problem.n(), cells as usize);
    let local_memory = local::memory_estimate(problem);
    let under = |need: u64| budget.max_memory.is_none_or(|limit| need <= limit);
    let local = under(local_memory) && local::supports(problem).is_ok();
    let core = under(core_memory) && completion::fits(problem).is_ok();
    // A core no larger than local search's own memory (at least 8 MiB) is built at once:
    // it keeps `auto` within twice the faster engine's peak, and it is built in about the
    // time local search takes to start. Past that the core costs more than local search in
    // time too (measured: 1,000 rows with 600 free, 4,000 with 800 free), until local
    // search gives up.
    let core_first = core && (!local || core_memory <= local_memory);
    Portfolio {
        free_rows: open.free_rows(),
        cells,
        core_memory,
        local_memory,
        local,
        core,
        core_first,
    }
}

/// What a `solve` request asks, beside its engine.
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

/// How the operations layer runs a `solve`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// One solution as one column per row, by this engine through the solve path's stages
    /// (local search, `auto`, and the complete engines on the core past [`MAX_N`]).
    Columns(EngineSpec),
    /// A complete engine on the board: listing, proving, cross-checking.
    Board(EngineSpec),
    /// A race (engine `race`): `here` runs in this process against `child` in a child
    /// process the caller starts (varisat cannot be interrupted, a process can be killed),
    /// each on one core with the caller's deadline and memory limit and its own stop flag
    /// ([`crate::race::race`]); the first answer wins and stops the other.
    Race {
        /// The side in this process: the backtracker on one thread (on the core of a
        /// completion past [`MAX_N`]).
        here: EngineSpec,
        /// The side in the child process: the SAT engine.
        child: EngineSpec,
    },
}

/// The plan of one `solve`: its route and, for people, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// How it runs.
    pub route: Route,
    /// The engine the request named, which the answer reports as `engine`.
    pub engine: EngineName,
    /// Why this route.
    pub why: &'static str,
}

impl Plan {
    /// What ran and why, for people, once the run's `work` is done: for `auto` on one
    /// solution its choice on the board (and on a completion the portfolio's decision and
    /// how it ended), for a race the engine that answered first, otherwise the route.
    pub fn reason(&self, problem: &Problem, work: &Work) -> String {
        let by = work.answered_by.map(EngineName::of);
        match self.route {
            Route::Columns(EngineSpec::Auto { .. }) => auto_reason(problem, work),
            Route::Race { .. } => match by {
                Some(e) => format!("race: {}; the {} engine answered first", self.why, e.name()),
                None => format!("race: {}; neither answered within the limits", self.why),
            },
            _ => format!("{}: {}", self.engine.name(), self.why),
        }
    }
}

/// [`Plan::reason`] of `auto` on one solution.
fn auto_reason(problem: &Problem, work: &Work) -> String {
    match choose(problem) {
        Choice::Portfolio => work.portfolio.map_or_else(
            || "portfolio: the core search and local search".into(),
            |run| run.why(),
        ),
        Choice::Backtrack if problem.n() < RACE_FROM_N => format!(
            "auto: the backtracker alone, on a board under {RACE_FROM_N} rows (it answers \
             them in well under a millisecond)"
        ),
        Choice::Backtrack => {
            "auto: the backtracker alone, as local search cannot take this board (regions or \
             the touch rule)"
                .into()
        }
        Choice::Local => format!(
            "auto: local search alone, on an empty board past {MAX_N} rows (the complete \
             engines keep n² bits)"
        ),
        Choice::Race => {
            let first = match work.answered_by.map(EngineName::of) {
                Some(e) => format!("the {} engine answered first", e.name()),
                None => "neither answered within the limits".into(),
            };
            format!("auto: the backtracker against local search, one core each; {first}")
        }
    }
}

/// The plan of a `solve` of `problem` asking `ask` of the engine `spec` names.
pub fn plan(problem: &Problem, spec: EngineSpec, ask: Ask) -> Plan {
    let engine = EngineName::of(spec);
    let single = !(ask.many || ask.proof || ask.cross_check);
    let (route, why) = match spec {
        EngineSpec::Race(encoding) => (
            Route::Race {
                here: EngineSpec::Backtrack { threads: 1 },
                child: EngineSpec::Sat(encoding),
            },
            "the backtracker here against the SAT engine in a child process",
        ),
        EngineSpec::Local { .. } => (Route::Columns(spec), "the engine named"),
        EngineSpec::Auto { .. } if single && !ask.rings => {
            (Route::Columns(spec), "its choice on the board")
        }
        EngineSpec::Auto { .. } => {
            let threads = ask.threads.unwrap_or(0);
            let spec = if ask.rings {
                EngineSpec::BacktrackRings { threads }
            } else {
                EngineSpec::Backtrack { threads }
            };
            (
                Route::Board(spec),
                "the backtracker, as listing, proving and cross-checking need a complete \
                 engine",
            )
        }
        EngineSpec::Backtrack { .. } | EngineSpec::Sat(_) | EngineSpec::Ext(_)
            if problem.is_sparse() && single =>
        {
            (
                Route::Columns(spec),
                "the engine named, on the core of the completion (past 4096 rows the \
                 complete engines search only the rows left free)",
            )
        }
        EngineSpec::Backtrack { .. } | EngineSpec::BacktrackRings { .. } => {
            let threads = ask.threads;
            let spec = match (spec, threads) {
                (EngineSpec::Backtrack { .. }, Some(threads)) => EngineSpec::Backtrack { threads },
                (EngineSpec::BacktrackRings { .. }, Some(threads)) => {
                    EngineSpec::BacktrackRings { threads }
                }
                _ => spec,
            };
            (Route::Board(spec), "the engine named, on the board")
        }
        EngineSpec::Sat(_) | EngineSpec::Ext(_) => {
            (Route::Board(spec), "the engine named, on the board")
        }
    };
    Plan { route, engine, why }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_on_a_completion_is_the_portfolio_and_lists_with_the_backtracker() {
        let p = Problem::new(100).unwrap().with_fixed(&[(0, 1)]).unwrap();
        assert_eq!(choose(&p), Choice::Portfolio);
        assert_eq!(choose(&Problem::new(100).unwrap()), Choice::Race);
        assert_eq!(choose(&Problem::new(10).unwrap()), Choice::Backtrack);
        let auto = EngineSpec::Auto { seed: 1 };
        assert_eq!(plan(&p, auto, Ask::default()).route, Route::Columns(auto));
        let many = Ask {
            many: true,
            ..Ask::default()
        };
        assert_eq!(
            plan(&p, auto, many).route,
            Route::Board(EngineSpec::Backtrack { threads: 0 })
        );
    }
}
