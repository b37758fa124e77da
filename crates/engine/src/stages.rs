//! The solve path as one line of stages, every answer of [`solve_columns`] (and so of
//! [`crate::solve`]) going through each in turn:
//!
//! ```text
//! presolve → engine → lift → verify
//! ```
//!
//! - **presolve** ([`crate::completion::presolve_stage`]): where the backtracker searches the
//!   core of a completion (past [`queens_model::model::MAX_N`]), the fixed queens' lines are
//!   taken out and the cheap refutations tried; what is left is the core. `auto` on a
//!   completion presolves in its portfolio ([`crate::portfolio`]), which refutes before it
//!   chooses between the core and local search.
//! - **engine**: the core search ([`crate::completion::search`]) on the core, or the engine
//!   the spec names ([`crate::named::engine_of`], behind [`crate::Engine`]) on the board. The
//!   SAT engines past `MAX_N` encode the core themselves ([`crate::cnf`]).
//! - **lift** ([`crate::completion::lift`]): the core's answer back on the n×n board.
//! - **verify** ([`crate::checked::verify_columns`], the model's verifier): every board,
//!   whichever engine found it; a board that breaks a rule is an internal error, never an
//!   answer.
//!
//! A "no" that must carry a proof takes the proving line of [`crate::prove`] (engine → CNF →
//! search writing DRAT or LRAT → conversion → proof check by `queens-proof` → store).

use std::time::Instant;

use crate::checked::verify_columns;
use crate::completion::{self, Core};
use crate::engines::Engine;
use crate::named::engine_of;
use crate::{check_local_memory, ms, Budget, ColumnAnswer, EngineSpec, SolvedColumns, Work};
use queens_model::error::Error;
use queens_model::model::Problem;

/// Finds one solution or proves there is none, as one column per row: any engine, and the
/// only way to solve a board past [`queens_model::model::MAX_N`] (local, auto, or a complete engine
/// on the core). Every solution has passed [`queens_model::verify::verify_columns`].
pub fn solve_columns(
    problem: &Problem,
    spec: EngineSpec,
    budget: &Budget,
) -> Result<SolvedColumns, Error> {
    let start = Instant::now();
    let mut solved = match presolve(problem, spec, budget)? {
        Presolved::Answered(solved) => solved,
        Presolved::Core { core, seed, work } => {
            let found = completion::search::find(&core, seed, budget);
            completion::lift(problem, &core, found, work)
        }
        Presolved::WholeBoard => engine(problem, spec, budget)?,
    };
    verify_columns(problem, spec, &solved)?;
    solved.work.time_ms = ms(start);
    Ok(solved)
}

/// What the presolve stage hands on.
enum Presolved {
    /// The answer presolving gave: a cheap refutation, or the budget spent.
    Answered(SolvedColumns),
    /// The core, for the core search with this seed; the work so far.
    Core {
        core: Box<Core>,
        seed: u64,
        work: Work,
    },
    /// Not a core search: the engine takes the whole board.
    WholeBoard,
}

/// The presolve stage: the core of the completion where the spec's engine searches it.
fn presolve(problem: &Problem, spec: EngineSpec, budget: &Budget) -> Result<Presolved, Error> {
    let seed = match spec {
        EngineSpec::Backtrack { .. } if problem.is_sparse() => 1,
        _ => return Ok(Presolved::WholeBoard),
    };
    Ok(match completion::presolve_stage(problem, budget)? {
        completion::Presolve::Answered(solved) => Presolved::Answered(solved),
        completion::Presolve::Core(core, work) => Presolved::Core { core, seed, work },
    })
}

/// The engine stage on the whole board: the engine the spec names (local search with its
/// memory checked first), its work naming the spec unless the engine names the one that
/// answered.
fn engine(problem: &Problem, spec: EngineSpec, budget: &Budget) -> Result<SolvedColumns, Error> {
    if answers_in_columns(spec) {
        if let EngineSpec::Local { .. } = spec {
            check_local_memory(problem, budget)?;
        }
        return engine_of(spec)?.solve(problem, budget);
    }
    let mut solved = on_whole_board(problem, engine_of(spec), spec, budget)?;
    solved.work.answered_by = Some(spec);
    Ok(solved)
}

/// The engines that answer one column per row themselves: local search and `auto` (the
/// backtracker past [`queens_model::model::MAX_N`] searches the core, from the presolve stage).
fn answers_in_columns(spec: EngineSpec) -> bool {
    matches!(spec, EngineSpec::Local { .. } | EngineSpec::Auto { .. })
}

/// A complete engine on the board (on its core past [`queens_model::model::MAX_N`], where the core
/// fits): `Interrupted` when the budget ran out before it started, the board refused where
/// the engine cannot take it ([`complete_only`]), then the engine's run, timed.
pub(crate) fn on_whole_board(
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

/// Refuses a board past [`queens_model::model::MAX_N`] to the complete engines, which keep n² bits,
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
                queens_model::model::MAX_N,
                queens_model::model::MAX_N
            ),
        ));
    }
    Ok(())
}
