//! The one interface every engine implements, and the engines behind it.
//!
//! An [`Engine`] answers "is there a solution?" within a budget, as one column per row
//! ([`SolvedColumns`], not yet verified: [`crate::execute`] verifies); a complete engine
//! also lists the solutions ([`Engine::list`]) and may count them faster than listing
//! ([`Engine::count`]). Proving a "no" is [`crate::prove`]'s, on the engines that can.
//!
//! The leaf engines are [`Backtrack`], [`Sat`], [`Ext`], [`Local`] and [`CoreSearch`] (the
//! backtracker on the core of a completion); [`crate::plan`] chooses and combines them and
//! [`crate::execute`] runs them. [`crate::table::engine_of`] builds the
//! engine an [`EngineSpec`] names.

use crate::answer::{ColumnAnswer, Counted, Solved, SolvedColumns};
use crate::checked::cells_answer;
use crate::encode::amo::Encoding;
use crate::leaf::About;
use crate::memory::{check_sat_memory, complete_only, SatMemory};
use crate::name::EngineName;
use crate::spec::EngineSpec;
use crate::work::{ms, SatStats, Work};
use crate::{backtrack, completion, ext, local, sat};
use queens_model::error::Error;
use queens_model::model::{Pos, Problem};
use queens_model::Budget;

/// One engine.
pub trait Engine: Sync {
    /// Its family's name, as answers write it.
    fn name(&self) -> &'static str;

    /// One solution (one column per row, not yet verified) or a proven "no", within
    /// `budget`. `work.answered_by` names the configuration that answered.
    fn solve(&self, problem: &Problem, budget: &Budget) -> Result<SolvedColumns, Error>;

    /// Calls `visit` on each solution up to `cap`, until it returns false. Returns the work
    /// and whether the budget cut the listing short. Only the complete engines list.
    fn list(
        &self,
        _problem: &Problem,
        _cap: Option<u64>,
        _budget: &Budget,
        _visit: &mut dyn FnMut(&[Pos]) -> bool,
    ) -> Result<(Work, bool), Error> {
        Err(Error::unsupported(format!(
            "the {} engine does not list solutions; count or list them with backtrack or sat",
            self.name()
        ))
        .about("engine"))
    }

    /// Counts solutions up to `limit` without listing them, where the engine can (the
    /// backtracker by symmetry); `None` to count by [`Engine::list`].
    fn count(
        &self,
        _problem: &Problem,
        _limit: Option<u64>,
        _budget: &Budget,
    ) -> Option<Result<Counted, Error>> {
        None
    }
}

/// An engine without options: what it says of itself, and the engine. Its folder defines
/// one, and one line of the engine table ([`crate::table::LEAVES`]) lists it.
pub struct Leaf {
    /// Its name and help.
    pub about: About,
    /// The engine.
    pub build: fn() -> Box<dyn Engine>,
}

/// A complete engine's answer when the budget ran out before it started.
fn not_started(budget: &Budget, spec: EngineSpec) -> Option<SolvedColumns> {
    budget.exhausted().then(|| SolvedColumns {
        answer: ColumnAnswer::Interrupted,
        work: Work {
            answered_by: Some(spec),
            ..Work::default()
        },
    })
}

/// The bitset backtracker ([`backtrack`]) on `threads` threads (0 = all cores), with the
/// ring prune or without; past [`queens_model::model::MAX_N`] it searches the core of the
/// completion ([`CoreSearch`]).
pub struct Backtrack {
    /// Worker threads (0 = all cores).
    pub threads: usize,
    /// Prune with the ring bounds.
    pub rings: bool,
}

impl Backtrack {
    fn spec(&self) -> EngineSpec {
        let threads = self.threads;
        match self.rings {
            true => EngineSpec::BacktrackRings { threads },
            false => EngineSpec::Backtrack { threads },
        }
    }

    fn config(&self, problem: &Problem, budget: &Budget) -> Result<backtrack::Config, Error> {
        if self.rings {
            crate::cnf::rings::check_applies(problem)?;
        }
        Ok(backtrack::Config {
            rings: self.rings,
            ..backtrack::Config::within(budget, self.threads)
        })
    }

    fn work(&self, nodes: u64) -> Work {
        Work {
            nodes: Some(nodes),
            answered_by: Some(self.spec()),
            ..Work::default()
        }
    }
}

impl Engine for Backtrack {
    fn name(&self) -> &'static str {
        EngineName::Backtrack.name()
    }

    fn solve(&self, problem: &Problem, budget: &Budget) -> Result<SolvedColumns, Error> {
        if problem.is_sparse() && !self.rings {
            return CoreSearch { seed: 1 }.solve(problem, budget);
        }
        if let Some(stopped) = not_started(budget, self.spec()) {
            return Ok(stopped);
        }
        let (found, stats) = backtrack::first_solution(problem, &self.config(problem, budget)?);
        let work = self.work(stats.nodes);
        cells_answer(problem, found, stats.interrupted, "backtrack", work)
    }

    fn list(
        &self,
        problem: &Problem,
        cap: Option<u64>,
        budget: &Budget,
        visit: &mut dyn FnMut(&[Pos]) -> bool,
    ) -> Result<(Work, bool), Error> {
        let stats = backtrack::enumerate(problem, &self.config(problem, budget)?, cap, visit);
        Ok((self.work(stats.nodes), stats.interrupted))
    }

    fn count(
        &self,
        problem: &Problem,
        limit: Option<u64>,
        budget: &Budget,
    ) -> Option<Result<Counted, Error>> {
        if self.rings || budget.exhausted() {
            return None;
        }
        let c = backtrack::count(
            problem,
            &backtrack::Config::within(budget, self.threads),
            limit,
        );
        Some(Ok(Counted {
            count: c.total,
            unique: c.unique,
            limited: c.limited,
            interrupted: c.stats.interrupted,
            work: Work {
                nodes: Some(c.stats.nodes),
                ..Work::default()
            },
        }))
    }
}

/// varisat ([`sat`]) on `encoding`; with `learned`, also counting the clauses it learns
/// (`work.sat.learned`, [`sat::solve_counting_learned`]). It notices the budget only before
/// it starts: run it in a child process for a hard deadline.
pub struct Sat {
    /// The at-most-one encoding.
    pub encoding: Encoding,
    /// Count the learned clauses.
    pub learned: bool,
}

/// One solution (cells sorted by row) by varisat, also counting the clauses it learns
/// (`work.sat.learned`): what `compare` reports beside the backtracker's nodes. A leaf called
/// directly, on a board the engine can take ([`complete_only`]).
pub fn solve_counting_learned(
    problem: &Problem,
    encoding: Encoding,
    budget: &Budget,
) -> Result<Solved, Error> {
    let start = std::time::Instant::now();
    complete_only(problem, EngineSpec::Sat(encoding))?;
    let learned = Sat {
        encoding,
        learned: true,
    };
    let mut solved = learned.solve(problem, budget)?;
    solved.work.time_ms = ms(start);
    Ok(SolvedColumns::into_cells(solved))
}

/// A SAT engine's work: its solver's statistics, and the configuration that answered.
fn sat_work(stats: SatStats, spec: EngineSpec) -> Work {
    Work {
        sat: Some(stats),
        answered_by: Some(spec),
        ..Work::default()
    }
}

/// The size of the core a SAT formula past [`queens_model::model::MAX_N`] encodes (one variable per
/// open cell).
fn sat_core(problem: &Problem, work: &mut Work) {
    if let (true, Some(sat)) = (problem.is_sparse(), work.sat) {
        work.core = Some(completion::CoreSize {
            rows: completion::free_rows(problem),
            cells: sat.cell_vars,
        });
    }
}

impl Engine for Sat {
    fn name(&self) -> &'static str {
        EngineName::Sat.name()
    }

    fn solve(&self, problem: &Problem, budget: &Budget) -> Result<SolvedColumns, Error> {
        if let Some(stopped) = not_started(budget, EngineSpec::Sat(self.encoding)) {
            return Ok(stopped);
        }
        check_sat_memory(problem, self.encoding, SatMemory::Streamed, budget)?;
        let (found, stats) = match self.learned {
            true => sat::solve_counting_learned(problem, self.encoding)?,
            false => sat::first_solution(problem, self.encoding)?,
        };
        let mut work = sat_work(stats, EngineSpec::Sat(self.encoding));
        if !self.learned {
            sat_core(problem, &mut work);
        }
        cells_answer(problem, found, false, "sat", work)
    }

    fn list(
        &self,
        problem: &Problem,
        cap: Option<u64>,
        budget: &Budget,
        visit: &mut dyn FnMut(&[Pos]) -> bool,
    ) -> Result<(Work, bool), Error> {
        check_sat_memory(problem, self.encoding, SatMemory::Streamed, budget)?;
        let stats = sat::enumerate(problem, self.encoding, cap, visit)?;
        Ok((sat_work(stats, EngineSpec::Sat(self.encoding)), false))
    }
}

/// An external SAT solver ([`ext`]) in a child process killed at the deadline.
pub struct Ext(pub ext::ExtSpec);

impl Engine for Ext {
    fn name(&self) -> &'static str {
        EngineName::Ext.name()
    }

    fn solve(&self, problem: &Problem, budget: &Budget) -> Result<SolvedColumns, Error> {
        if let Some(stopped) = not_started(budget, EngineSpec::Ext(self.0)) {
            return Ok(stopped);
        }
        let run = ext::run_solver(problem, self.0, budget)?;
        let mut work = sat_work(run.stats, EngineSpec::Ext(self.0));
        sat_core(problem, &mut work);
        // `s UNKNOWN` is no answer within the limits, as a timeout is.
        let (found, stopped) = match run.answer {
            ext::ExtAnswer::Sat(q) => (Some(q), false),
            ext::ExtAnswer::Unsat => (None, false),
            ext::ExtAnswer::Unknown | ext::ExtAnswer::Interrupted => (None, true),
        };
        cells_answer(problem, found, stopped, "ext", work)
    }

    fn list(
        &self,
        problem: &Problem,
        cap: Option<u64>,
        budget: &Budget,
        visit: &mut dyn FnMut(&[Pos]) -> bool,
    ) -> Result<(Work, bool), Error> {
        let (stats, stopped) = ext::enumerate(problem, self.0, cap, budget, visit)?;
        Ok((sat_work(stats, EngineSpec::Ext(self.0)), stopped))
    }
}

/// Local search ([`local`]) with this seed: it finds solutions, and proves "no" only by its
/// cheap checks ([`local::refute`]). Its memory is checked by the caller
/// ([`crate::memory::check_local_memory`]).
pub struct Local {
    /// The seed.
    pub seed: u64,
}

impl Engine for Local {
    fn name(&self) -> &'static str {
        EngineName::Local.name()
    }

    fn solve(&self, problem: &Problem, budget: &Budget) -> Result<SolvedColumns, Error> {
        let config = local::Config {
            seed: self.seed,
            ..local::Config::default()
        };
        let (outcome, stats) = local::search(problem, config, budget)?;
        let answer = match outcome {
            local::Outcome::Solved(cols) => ColumnAnswer::Sat(cols),
            local::Outcome::Refuted(why) => ColumnAnswer::Unsat(Some(why.into())),
            local::Outcome::GaveUp => ColumnAnswer::GaveUp,
            local::Outcome::Interrupted => ColumnAnswer::Interrupted,
        };
        Ok(SolvedColumns {
            answer,
            work: Work {
                local: Some(stats),
                answered_by: Some(EngineSpec::Local { seed: self.seed }),
                time_ms: stats.time_ms,
                ..Work::default()
            },
        })
    }
}

/// The backtracker on the core of a completion ([`completion`]): the fixed queens' lines
/// taken out, the free rows searched, the solution lifted back onto the whole board.
pub struct CoreSearch {
    /// The seed of the search's value order.
    pub seed: u64,
}

impl Engine for CoreSearch {
    fn name(&self) -> &'static str {
        EngineName::Backtrack.name()
    }

    fn solve(&self, problem: &Problem, budget: &Budget) -> Result<SolvedColumns, Error> {
        completion::solve_columns(problem, self.seed, budget)
    }

    fn count(
        &self,
        problem: &Problem,
        limit: Option<u64>,
        budget: &Budget,
    ) -> Option<Result<Counted, Error>> {
        let start = std::time::Instant::now();
        Some(
            completion::count(problem, limit, budget).map(|(c, core)| Counted {
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
            }),
        )
    }
}
