//! The one place an engine is chosen: a request's engine fields and question become a
//! [`Plan`] (which engines run, in what order or side by side, with what memory, and why),
//! and `auto`'s choice on a board is [`choose`]. The operations layer asks [`plan`] once per
//! `solve` and runs its [`Route`]; `auto` runs [`choose`]'s [`Choice`], and on a classic
//! completion the portfolio runs [`portfolio`]'s [`Portfolio`] decision.

use crate::completion::{self, Open};
use crate::encode::amo::Encoding;
use crate::{local, Budget, EngineName, EngineSpec};
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

/// The portfolio's decision on a classic completion, made before any core is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Portfolio {
    /// Free rows.
    pub free_rows: usize,
    /// The core's open cells, estimated from a sample of its rows.
    pub cells: u64,
    /// The core's memory at its peak, estimated ([`completion::memory_estimate`]).
    pub core_memory: u64,
    /// Local search's memory ([`local::memory_estimate`]).
    pub local_memory: u64,
    /// Local search runs (it fits the memory limit).
    pub local: bool,
    /// The core may be built at all: it fits [`completion::fits`] and the memory limit.
    pub core: bool,
    /// The core is built at once, beside local search; otherwise only once local search has
    /// given up (or when it does not run).
    pub core_first: bool,
}

impl Portfolio {
    /// Why, for people: the plan in one sentence.
    pub fn why(&self) -> String {
        let core = format!(
            "the core ({} free rows, about {} open cells, {} MB)",
            self.free_rows,
            self.cells,
            self.core_memory.div_ceil(1 << 20)
        );
        match (self.local, self.core, self.core_first) {
            (true, true, true) => format!("{core} searched beside local search"),
            (true, true, false) => format!(
                "local search first, beside Hall's condition on the bitmaps; {core} only if \
                 local search gives up"
            ),
            (true, false, _) => format!(
                "local search, beside Hall's condition on the bitmaps; {core} is over the \
                 limits"
            ),
            (false, true, _) => format!("{core} alone: local search is over the memory limit"),
            (false, false, _) => {
                format!("nothing fits: {core} and local search are over the limits")
            }
        }
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
    /// The backtracker here against the SAT engine in a child process.
    Race(Encoding),
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

/// The plan of a `solve` of `problem` asking `ask` of the engine `spec` names.
pub fn plan(problem: &Problem, spec: EngineSpec, ask: Ask) -> Plan {
    let engine = EngineName::of(spec);
    let single = !(ask.many || ask.proof || ask.cross_check);
    let (route, why) = match spec {
        EngineSpec::Race(encoding) => (Route::Race(encoding), "engine race"),
        EngineSpec::Local { .. } => (Route::Columns(spec), "engine local"),
        EngineSpec::Auto { .. } if single && !ask.rings => (
            Route::Columns(spec),
            "auto, one solution: its choice on the board",
        ),
        EngineSpec::Auto { .. } => {
            let threads = ask.threads.unwrap_or(0);
            let spec = if ask.rings {
                EngineSpec::BacktrackRings { threads }
            } else {
                EngineSpec::Backtrack { threads }
            };
            (
                Route::Board(spec),
                "auto, listing, proving or cross-checking: the backtracker",
            )
        }
        EngineSpec::Backtrack { .. } | EngineSpec::Sat(_) | EngineSpec::Ext(_)
            if problem.is_sparse() && single =>
        {
            (
                Route::Columns(spec),
                "a complete engine past the dense limit: the core of the completion",
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

/// Whether `auto` counts (and lists) `problem` on its core: a classic completion of at least
/// [`completion::AUTO_FROM_N`] rows whose core is small ([`completion::suits_auto`]); the
/// whole-board backtracker otherwise.
pub fn counts_on_core(problem: &Problem) -> bool {
    completion::suits_auto(problem)
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
