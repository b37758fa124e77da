//! `solve`: one engine (or both, cross-checked), every board verified, UNSAT
//! optionally certified by a proof the built-in checker has accepted.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::{ms, Artifacts, Context};
use crate::instance::Instance;
use crate::limits::check_limit;
use crate::proof_info::ProofInfo;
use queens_engine::encode::amo::Encoding;
use queens_engine::ext::ExtName;
use queens_engine::plan::{is_portfolio_board, Action, Ask, Ending, Plan, Step};
use queens_engine::prove::{self, CertifiedAnswer};
use queens_engine::{Answer, EngineName, EngineSpec, Work};
use queens_model::error::Error;
use queens_model::model::{Pos, Problem};
use queens_model::status::Status;
use queens_model::verify::first_conflict;
use queens_proof::ProofFormat;

/// The default engine of `solve` requests: `auto`.
fn auto_engine() -> EngineName {
    EngineName::Auto
}

/// Largest board whose solution a `solve` answer carries inline (`queens`); above it the
/// answer names the column-per-row file instead (`solution_path` on the command line,
/// `solution_url` in a job), so a board of millions of rows is never forced through JSON.
pub const INLINE_MAX_N: usize = 100_000;

/// `solve`: one solution, or up to `limit` (or `all`), with a proof of UNSAT on request.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SolveRequest {
    /// The instance.
    #[schema(value_type = Object)]
    pub instance: Instance,
    /// `auto` (default), `backtrack`, `sat`, `race` or `local`.
    #[serde(default = "auto_engine")]
    pub engine: EngineName,
    /// At-most-one encoding for the SAT engine (default `auto`).
    #[serde(default)]
    pub encoding: Encoding,
    /// List every solution.
    #[serde(default)]
    pub all: bool,
    /// List at most this many solutions (implies `all`); at least 1.
    pub limit: Option<u64>,
    /// Also run the other engine; a disagreement is an internal error.
    #[serde(default)]
    pub cross_check: bool,
    /// Give up after this many milliseconds (`status: "timeout"`).
    pub timeout_ms: Option<u64>,
    /// On UNSAT, produce a proof in this format (from either engine), checked by the
    /// built-in checker before the answer is given.
    pub proof: Option<ProofFormat>,
    /// Backtracker threads, 1 to 256 (default: all cores). `queens batch` runs one instance
    /// per core with 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// With engine `ext`: the solver's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub solver: Option<ExtName>,
    /// With engine `ext`: add the ring bounds as redundant cardinality constraints.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rings: bool,
    /// Seed of the local search (engines `local` and `auto`; default 1): the same seed gives
    /// the same solution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Engine `sat`, one solution: also count the clauses the solver learns (`learned` in
    /// the answer), the CDCL measure of work beside the backtracker's `nodes`. It costs a
    /// few per cent of solve time, so it is off by default.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub learned: bool,
    /// Make the plan and answer it without running it (`status: "unknown"`, the steps in
    /// `plan`), like a database's EXPLAIN.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub plan_only: bool,
}

impl SolveRequest {
    /// The external solver that answers, with engine `ext`.
    pub fn ext_solver(&self) -> Option<ExtName> {
        self.solver.filter(|_| self.engine == EngineName::Ext)
    }

    /// Checks the options against each other and the limits, before any work.
    pub fn validate(&self) -> Result<(), Error> {
        check_limit(self.limit)?;
        self.engine.spec(self.encoding, self.solver, self.rings)?;
        if let Some(s) = self.solver {
            queens_engine::ext::table()
                .resolve(s)
                .map_err(|e| e.about("solver"))?;
        }
        let n = self.instance.0.n();
        let most = max_listed(n);
        if self.limit.is_some_and(|k| k > most) {
            return Err(Error::too_large_at_field(
                "limit",
                format!(
                    "at most {most} solutions of a {n}×{n} board are listed at \
                     once; count them with `count`"
                ),
            ));
        }
        if self.engine == EngineName::Race && (self.all || self.limit.is_some()) {
            return Err(Error::unsupported_at_field(
                "engine",
                "race answers one solution or \"no solution\": list \
                 solutions with backtrack or sat",
            ));
        }
        if self.engine == EngineName::Race && self.cross_check {
            return Err(Error::unsupported_at_field(
                "cross_check",
                "race already runs both engines; cross-check with \
                 backtrack or sat",
            ));
        }
        // The listing field the caller set (`limit` when both are).
        let listing = if self.limit.is_some() { "limit" } else { "all" };
        if self.engine == EngineName::Local {
            let what = if self.all || self.limit.is_some() {
                Some((listing, "local search finds one solution"))
            } else if self.proof.is_some() {
                Some(("proof", "local search proves nothing"))
            } else if self.cross_check {
                Some((
                    "cross_check",
                    "local search cannot be cross-checked on \"no solution\"",
                ))
            } else {
                None
            };
            if let Some((field, why)) = what {
                return Err(Error::unsupported_at_field(
                    field,
                    format!("{why}; use backtrack, sat or auto"),
                ));
            }
        }
        if self.instance.0.is_sparse() {
            let core_proof = queens_engine::completion::applies(&self.instance.0)
                && self.engine.searcher() == EngineName::Backtrack;
            if core_proof
                && matches!(
                    self.proof,
                    Some(ProofFormat::BinaryDrat | ProofFormat::BinaryLrat)
                )
            {
                return Err(Error::unsupported_at_field(
                    "proof",
                    format!(
                        "a proof of a board past {} refutes its core in text: lrat or drat",
                        queens_model::model::MAX_N
                    ),
                ));
            }
            let field = if self.all || self.limit.is_some() {
                Some(listing)
            } else if self.proof.is_some() && !core_proof {
                Some("proof")
            } else if self.cross_check {
                Some("cross_check")
            } else {
                None
            };
            if let Some(field) = field {
                let max = queens_model::model::MAX_N;
                let why = if field == "proof" {
                    format!(
                        "a {n}×{n} board is past {max}, where proofs refute the core of a \
                         completion and come from the backtracker: engine backtrack or auto"
                    )
                } else {
                    format!(
                        "a {n}×{n} board is past {max}, where local search and the complete \
                         engines on the core of a completion answer one solution (engine local, \
                         backtrack, sat, ext, race or auto)"
                    )
                };
                return Err(Error::too_large_at_field(field, why));
            }
        }
        if self.threads.is_some_and(|t| !(1..=256).contains(&t)) {
            return Err(Error::unsupported_at_field("threads", "between 1 and 256"));
        }
        if self.proof.is_some() && (self.all || self.limit.is_some()) {
            return Err(Error::unsupported_at_field(
                "proof",
                "proves that there is no solution, so it needs a single solve \
                 (no all/limit)",
            ));
        }
        Ok(())
    }

    /// A single solve of `problem` with the default engine (`auto`).
    pub fn new(problem: Problem) -> SolveRequest {
        SolveRequest {
            instance: Instance(problem),
            engine: EngineName::Auto,
            encoding: Encoding::Auto,
            all: false,
            limit: None,
            cross_check: false,
            timeout_ms: None,
            proof: None,
            threads: None,
            solver: None,
            rings: false,
            seed: None,
            learned: false,
            plan_only: false,
        }
    }

    /// A single solve of `problem` on exactly the engine `spec` names (threads, encoding,
    /// solver, rings and seed included): what `compare` runs for each attempt.
    pub fn on_engine(problem: Problem, spec: EngineSpec) -> SolveRequest {
        let base = SolveRequest::new(problem);
        let f = spec.fields();
        SolveRequest {
            engine: f.engine,
            threads: f.threads.filter(|&t| t > 0),
            encoding: f.encoding.unwrap_or(base.encoding),
            solver: f.solver,
            rings: f.rings,
            seed: f.seed,
            ..base
        }
    }
}

/// How much work an engine did (the fields of the engine that ran).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WorkReport {
    /// Backtracker: queens placed by the search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// SAT: the at-most-one encoding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<Encoding>,
    /// SAT: variables in the CNF.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vars: Option<usize>,
    /// SAT: clauses in the CNF.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clauses: Option<usize>,
    /// SAT: milliseconds spent encoding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encode_ms: Option<f64>,
    /// SAT: milliseconds in the solver.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solve_ms: Option<f64>,
    /// SAT: solver calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver_calls: Option<u64>,
    /// SAT, when asked for (`learned` in the request): clauses the solver learned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learned: Option<u64>,
    /// Local search: fresh starts after the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restarts: Option<u64>,
    /// Local search: swaps kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swaps: Option<u64>,
    /// Local search: collisions the last start left for the repair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_conflicts: Option<u64>,
    /// When the search ran on the core of a completion: its free rows and open cells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core: Option<queens_engine::completion::CoreSize>,
    /// Engine `ext`: the external solver that ran (`cadical`), as `engine` says only `ext`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub solver: Option<ExtName>,
}

impl WorkReport {
    /// The report of `work`, done with `encoding` and, for engine `ext`, by `solver`.
    pub(super) fn from_work(
        work: &Work,
        encoding: Encoding,
        solver: Option<ExtName>,
    ) -> WorkReport {
        let mut w = WorkReport {
            nodes: work.nodes,
            core: work.core,
            solver,
            ..WorkReport::default()
        };
        if let Some(st) = work.sat {
            w.encoding = Some(encoding);
            w.vars = Some(st.vars);
            w.clauses = Some(st.clauses);
            w.encode_ms = Some(st.encode_ms);
            w.solve_ms = Some(st.solve_ms);
            w.solver_calls = Some(st.solver_calls);
            w.learned = st.learned;
        }
        if let Some(st) = work.local {
            w.restarts = Some(st.restarts);
            w.swaps = Some(st.swaps);
            w.start_conflicts = Some(st.start_conflicts);
        }
        w
    }

    /// One line for people: `backtrack, 13 nodes, 0.037 ms` or
    /// `sat/auto, 22 vars, 104 clauses, encode 0.036 ms, solve 0.091 ms` (`ext:cadical/auto,
    /// …` for an external solver).
    pub fn describe(&self, searcher: EngineName, time_ms: f64) -> String {
        if let Some(swaps) = self.swaps {
            return format!(
                "local, {} collisions after the start, {swaps} swaps, {} restarts, {time_ms} ms",
                self.start_conflicts.unwrap_or(0),
                self.restarts.unwrap_or(0)
            );
        }
        match (self.encoding, self.vars, self.clauses) {
            (Some(e), Some(v), Some(c)) => format!(
                "{}/{e}, {v} vars, {c} clauses, encode {} ms, solve {} ms",
                match self.solver {
                    Some(s) => format!("ext:{s}"),
                    None => "sat".to_string(),
                },
                self.encode_ms.unwrap_or(0.0),
                self.solve_ms.unwrap_or(0.0)
            ),
            _ => match self.core {
                Some(core) => format!(
                    "{} on the core of {} rows and {} cells, {} nodes, {time_ms} ms",
                    searcher.name(),
                    core.rows,
                    core.cells,
                    self.nodes.unwrap_or(0)
                ),
                None => format!(
                    "{}, {} nodes, {time_ms} ms",
                    searcher.name(),
                    self.nodes.unwrap_or(0)
                ),
            },
        }
    }
}

/// `solve`'s answer. `status`: `sat`, `unsat`, `timeout` or `cancelled` (with `all`/`limit`,
/// also when some solutions were found before the deadline: they are in `solutions`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SolveResponse {
    /// `sat`, `unsat`, `timeout` or `cancelled`.
    pub status: Status,
    /// Board size.
    pub n: usize,
    /// The (first) solution as `[row, col]` pairs sorted by row; null without one.
    #[schema(value_type = Option<Vec<Vec<usize>>>)]
    pub queens: Option<Vec<Pos>>,
    /// `backtrack`, `sat` or `race`.
    pub engine: EngineName,
    /// With `race`: the engine whose answer this is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<EngineName>,
    /// Wall time of the whole operation, milliseconds.
    pub time_ms: f64,
    /// The engine's work.
    #[serde(flatten)]
    pub work: WorkReport,
    /// With `all`/`limit`: every solution found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Vec<Vec<usize>>>>)]
    pub solutions: Option<Vec<Vec<Pos>>>,
    /// With `all`/`limit`: how many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// With `all`/`limit`: true when the limit stopped the listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited: Option<bool>,
    /// With `cross_check`: the engine that agreed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_checked: Option<EngineName>,
    /// With `unsat`: why there is no solution; with `timeout` before any limit was reached:
    /// why the engine stopped (local search gave up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// With a `reason` from Hall's condition: its rows and columns as data (the sentence
    /// lists at most eight of each).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hall: Option<queens_engine::HallSets>,
    /// With `unsat` and `proof`: the certificate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<ProofInfo>,
    /// What ran and why, in one sentence for people: `auto`'s choice on the board (on a
    /// classic completion, the portfolio's memory estimates and which engine answered, e.g.
    /// "portfolio: the core … was estimated at 860 MB against local search's 25 MB, so local
    /// search ran first, …; local search answered"), the race's first answer, or the route
    /// of the engine named. Absent when the run stopped before any engine started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The plan as it ran: a tree of steps, each with its engine, the estimates it was
    /// chosen on, its start and end in milliseconds and how it ended (`answered`,
    /// `gave_up`, `stopped`, `refuted`, `skipped`, `passed`). With `plan_only`, the steps
    /// without their trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub plan: Option<Box<Step>>,
    /// CLI: the column-per-row file the solution was written to (`-o`; always for a board
    /// past 100,000 rows (`INLINE_MAX_N`), whose `queens` are then null).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solution_path: Option<String>,
    /// Service: where to download the solution as column-per-row text
    /// (`GET /v1/jobs/{id}/solution`), for a board past 100,000 rows (`INLINE_MAX_N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solution_url: Option<String>,
}

impl SolveResponse {
    /// An answer with nothing found yet: `status` (usually `timeout` or `cancelled`), no
    /// queens, no work.
    pub fn nothing(status: Status, n: usize, engine: EngineName) -> SolveResponse {
        SolveResponse {
            status,
            n,
            queens: None,
            engine,
            answered_by: None,
            time_ms: 0.0,
            work: WorkReport::default(),
            solutions: None,
            count: None,
            limited: None,
            cross_checked: None,
            reason: None,
            hall: None,
            proof: None,
            why: None,
            plan: None,
            solution_path: None,
            solution_url: None,
        }
    }
}

/// Why a problem has no solution, as precisely as can be said cheaply: a conflict among the
/// fixed queens, or what the engine proved.
fn unsat_reason(problem: &Problem, nodes: Option<u64>) -> String {
    match (first_conflict(problem, problem.fixed()), nodes) {
        (Some(v), _) => format!("the fixed queens already break a rule: {v}"),
        (None, Some(nodes)) => format!("the search is exhausted ({nodes} nodes)"),
        (None, None) => "the SAT solver proved the encoding unsatisfiable".to_string(),
    }
}

/// Cells (queens) all listed solutions may hold together: 2 million, about 32 MB in memory
/// and 16 MB of JSON. `solve --all` stops there (`limited`); a larger `limit` is refused.
pub const MAX_LISTED_CELLS: u64 = 2_000_000;

/// Most solutions of an n×n board one `solve` lists.
pub fn max_listed(n: usize) -> u64 {
    (MAX_LISTED_CELLS / n.max(1) as u64).max(1)
}

/// What one engine found: solutions (verified) and whether the listing is complete.
struct Found {
    solutions: Vec<Vec<Pos>>,
    limited: bool,
    interrupted: bool,
    work: Work,
}

fn find(
    problem: &Problem,
    spec: EngineSpec,
    cap: Option<u64>,
    learned: bool,
    ctx: &Context,
) -> Result<Found, Error> {
    if cap == Some(1) {
        let solved = match spec.sat_encoding().filter(|_| learned) {
            Some(encoding) => {
                queens_engine::solve_counting_learned(problem, encoding, &ctx.budget)?
            }
            None => queens_engine::execute::solve_leaf(problem, spec, &ctx.budget)?,
        };
        let (solutions, interrupted) = match solved.answer {
            Answer::Sat(q) => (vec![q], false),
            Answer::Unsat(()) => (vec![], false),
            Answer::GaveUp | Answer::Interrupted => (vec![], true),
        };
        return Ok(Found {
            limited: !solutions.is_empty(),
            solutions,
            interrupted,
            work: solved.work,
        });
    }
    let listed = queens_engine::enumerate(problem, spec, cap, &ctx.budget)?;
    Ok(Found {
        solutions: listed.solutions,
        limited: listed.limited,
        interrupted: listed.interrupted,
        work: listed.work,
    })
}

/// The status of a run that stopped without an answer: `timeout` or `cancelled`, or
/// `unknown` when an external solver gave up (`s UNKNOWN`) within the limits.
pub(super) fn no_answer(spec: EngineSpec, ctx: &Context) -> Status {
    if spec.may_give_up() && !ctx.budget.exhausted() {
        Status::Unknown
    } else {
        Status::interrupted(&ctx.budget)
    }
}

pub(super) fn disagree(what: &str, a: String, b: String) -> Error {
    Error::internal(format!("the engines disagree on the {what}:\n  {a}\n  {b}"))
}

/// How a side-by-side step with a side in a child process runs (`race_sides.rs`, given the
/// child by `ops::solve`).
pub type WithChild<'a> =
    dyn Fn(&SolveRequest, &mut Step, &Context) -> Result<(SolveResponse, Artifacts), Error> + 'a;

/// [`super::solve`]: the request's plan, made once, and run.
pub(super) fn solve_planned(
    req: &SolveRequest,
    ctx: &Context,
    child: &WithChild<'_>,
) -> Result<(SolveResponse, Artifacts), Error> {
    req.validate()?;
    let ctx = &ctx.with_timeout_ms(req.timeout_ms);
    let mut plan = plan(req, ctx)?;
    if req.plan_only {
        let resp = SolveResponse {
            why: Some(plan.why()),
            plan: Some(Box::new(plan.root)),
            ..SolveResponse::nothing(Status::Unknown, req.instance.0.n(), req.engine)
        };
        return Ok((resp, Artifacts::default()));
    }
    let (mut resp, artifacts) = run_plan(req, &mut plan, ctx, child)?;
    resp.why = Some(plan.why());
    resp.plan = Some(Box::new(plan.root));
    Ok((resp, artifacts))
}

/// Runs a request's plan: a side-by-side step with a child to `with_child`, one
/// solution as columns through the executor, everything else on one engine on the board.
fn run_plan(
    req: &SolveRequest,
    plan: &mut Plan<'_>,
    ctx: &Context,
    child: &WithChild<'_>,
) -> Result<(SolveResponse, Artifacts), Error> {
    if plan.root.steps.iter().any(|s| s.child) {
        return child(req, &mut plan.root, ctx);
    }
    if plan.columns {
        return solve_columns(req, plan, ctx);
    }
    let start = Instant::now();
    let spec = leaf(&plan.root)?;
    let (mut resp, artifacts, first_ms) = solve_on_timed(req, spec, ctx)?;
    if req.engine == EngineName::Auto {
        resp.engine = EngineName::Auto;
        resp.answered_by = Some(EngineName::Backtrack);
    }
    let first_ms = first_ms.unwrap_or(resp.time_ms);
    trace_board(&mut plan.root, &resp, req.cross_check, first_ms, ms(start));
    Ok((resp, artifacts))
}

/// The engine of a plan that runs one engine on the board: its `run` step, under a
/// certificate or first of a cross-check.
fn leaf(root: &Step) -> Result<queens_engine::EngineSpec, Error> {
    let run = match root.step {
        Action::Certify | Action::CrossCheck => root.steps.first(),
        _ => Some(root),
    };
    run.and_then(|s| s.engine)
        .ok_or_else(|| Error::internal("a plan on the board runs one engine"))
}

/// The trace of a plan that ran one engine on the board (and its cross-check), which took
/// `time_ms` in all, the first engine ending at `first_ms`.
fn trace_board(
    root: &mut Step,
    resp: &SolveResponse,
    cross_checked: bool,
    first_ms: f64,
    time_ms: f64,
) {
    let ending = match resp.status {
        Status::Sat | Status::Unsat => Ending::Answered,
        Status::Unknown => Ending::GaveUp,
        _ => Ending::Stopped,
    };
    let first_ms = first_ms.min(time_ms);
    match root.step {
        Action::CrossCheck => {
            let first = root.steps[0].engine.is_some();
            if first {
                root.steps[0].ran(0.0, first_ms, ending);
            }
            match resp.cross_checked {
                Some(_) => root.steps[1].ran(first_ms, time_ms, Ending::Answered),
                None if cross_checked => root.steps[1].ran(first_ms, time_ms, Ending::Stopped),
                None => root.steps[1].skip_rest(),
            }
        }
        Action::Certify => root.steps[0].ran(0.0, first_ms, ending),
        _ => {}
    }
    root.ran(0.0, time_ms, ending);
}

/// The plan of a `solve` request ([`queens_engine::plan::plan`], the one place an engine is
/// chosen), within the context's memory limit.
pub fn plan<'r>(req: &'r SolveRequest, ctx: &Context) -> Result<Plan<'r>, Error> {
    let spec = req
        .engine
        .spec(req.encoding, req.solver, req.rings)?
        .with_seed(req.seed.unwrap_or(1));
    let ask = Ask {
        many: req.all || req.limit.is_some(),
        proof: req.proof.is_some(),
        cross_check: req.cross_check,
        rings: req.rings,
        threads: req.threads,
        ..Ask::default()
    };
    Ok(queens_engine::plan::plan(
        &req.instance.0,
        spec,
        ask,
        &ctx.budget,
    ))
}

/// [`solve`] on one engine (`spec` of `req.engine`'s family; the race's backtracking side
/// runs on one thread).
pub(super) fn solve_on(
    req: &SolveRequest,
    spec: EngineSpec,
    ctx: &Context,
) -> Result<(SolveResponse, Artifacts), Error> {
    solve_on_timed(req, spec, ctx).map(|(resp, artifacts, _)| (resp, artifacts))
}

/// [`solve_on`], and with a cross-check the milliseconds after which the first engine was
/// done (the second ran from then on).
fn solve_on_timed(
    req: &SolveRequest,
    spec: EngineSpec,
    ctx: &Context,
) -> Result<(SolveResponse, Artifacts, Option<f64>), Error> {
    let problem = &req.instance.0;
    let many = req.all || req.limit.is_some();
    if let Some(format) = req.proof {
        return solve_with_proof(req, spec, format, ctx).map(|(r, a)| (r, a, None));
    }
    let start = Instant::now();
    let most = max_listed(problem.n());
    // `all` lists up to the same bound, and says `limited` when it stops there.
    let cap = if many {
        Some(req.limit.unwrap_or(most))
    } else {
        Some(1)
    };
    let found = find(problem, spec, cap, req.learned, ctx)?;
    let first_ms = req.cross_check.then(|| ms(start));
    let mut cross_checked = None;
    if req.cross_check && !found.interrupted {
        let other_spec = spec.other(req.encoding);
        let other = find(problem, other_spec, cap, false, ctx)?;
        if !other.interrupted {
            let same = if many {
                other.solutions.len() == found.solutions.len()
            } else {
                other.solutions.is_empty() == found.solutions.is_empty()
            };
            if !same {
                let show = |name: &str, f: &Found| match (many, f.solutions.first()) {
                    (true, _) => format!("{name}: count {}", f.solutions.len()),
                    (false, Some(q)) => format!("{name}: sat {q:?}"),
                    (false, None) => format!("{name}: unsat"),
                };
                return Err(disagree(
                    if many { "count" } else { "status" },
                    show(spec.name(), &found),
                    show(other_spec.name(), &other),
                ));
            }
            cross_checked = Some(EngineName::of(other_spec));
        }
    }
    // A listing cut short is no answer to "which are all the solutions?", even with some
    // found: it says `timeout` and carries what it has.
    let status = match (found.solutions.is_empty(), found.interrupted) {
        (false, true) if many => no_answer(spec, ctx),
        (false, _) => Status::Sat,
        (true, false) => Status::Unsat,
        (true, true) => no_answer(spec, ctx),
    };
    let resp = SolveResponse {
        status,
        n: problem.n(),
        queens: found.solutions.first().cloned(),
        engine: EngineName::of(spec),
        answered_by: None,
        time_ms: ms(start),
        work: WorkReport::from_work(&found.work, req.encoding, req.ext_solver()),
        count: many.then_some(found.solutions.len() as u64),
        limited: many.then_some(found.limited),
        solutions: many.then_some(found.solutions),
        cross_checked,
        reason: (status == Status::Unsat).then(|| unsat_reason(problem, found.work.nodes)),
        hall: None,
        proof: None,
        why: None,
        plan: None,
        solution_path: None,
        solution_url: None,
    };
    Ok((resp, Artifacts::default(), first_ms))
}

/// One solution as one column per row (engines `local` and `auto`): inline `queens` up to
/// [`INLINE_MAX_N`], the column-per-row text as the `solution` artifact above it.
pub(super) fn solve_columns(
    req: &SolveRequest,
    plan: &mut Plan<'_>,
    ctx: &Context,
) -> Result<(SolveResponse, Artifacts), Error> {
    columns_by(req, ctx, |p, spec, b| {
        queens_engine::execute::execute(plan, p, spec, b)
    })
}

/// [`solve_columns`] of one step of a plan (the race's side in this process).
pub(super) fn solve_step(
    req: &SolveRequest,
    step: &mut Step,
    ctx: &Context,
) -> Result<(SolveResponse, Artifacts), Error> {
    columns_by(req, ctx, |p, spec, b| {
        queens_engine::execute::execute_step(step, p, spec, b)
    })
}

/// One solution as one column per row, found by `run`.
fn columns_by(
    req: &SolveRequest,
    ctx: &Context,
    run: impl FnOnce(
        &Problem,
        queens_engine::EngineSpec,
        &queens_engine::Budget,
    ) -> Result<queens_engine::SolvedColumns, Error>,
) -> Result<(SolveResponse, Artifacts), Error> {
    let start = Instant::now();
    let problem = &req.instance.0;
    let n = problem.n();
    if req.engine == EngineName::Local {
        queens_engine::local::supports(problem)?;
    }
    check_memory(problem, ctx)?;
    let spec = req.engine.spec(req.encoding, req.solver, req.rings)?;
    let solved = run(problem, spec, &ctx.budget)?;
    let by = solved.work.answered_by.map(EngineName::of);
    let mut resp = SolveResponse {
        work: WorkReport::from_work(&solved.work, req.encoding, req.ext_solver()),
        answered_by: by.filter(|_| req.engine == EngineName::Auto),
        ..SolveResponse::nothing(Status::interrupted(&ctx.budget), n, req.engine)
    };
    let mut artifacts = Artifacts::default();
    match solved.answer {
        queens_engine::ColumnAnswer::Sat(cols) => artifacts = sat_columns(&mut resp, &cols),
        queens_engine::ColumnAnswer::Unsat(why) => {
            resp.status = Status::Unsat;
            resp.hall = why.as_ref().and_then(|r| r.hall.clone());
            resp.reason =
                Some(why.map_or_else(|| unsat_reason(problem, solved.work.nodes), |r| r.text));
        }
        queens_engine::ColumnAnswer::GaveUp => {
            resp.status = Status::Timeout;
            let fresh = solved.work.local.map_or(0, |s| s.restarts);
            resp.reason = Some(format!(
                "local search gave up after {} starts, the first and {} fresh ones (it cannot \
                 prove that there is no solution: try another seed, or a complete engine on a \
                 board up to {})",
                fresh + 1,
                fresh,
                queens_model::model::MAX_N
            ));
        }
        queens_engine::ColumnAnswer::Interrupted => {}
    }
    resp.time_ms = ms(start);
    Ok((resp, artifacts))
}

/// A verified solution, one column per row, into the answer: inline `queens` up to
/// [`INLINE_MAX_N`] rows, the column-per-row text as the `solution` artifact above it.
fn sat_columns(resp: &mut SolveResponse, cols: &[u32]) -> Artifacts {
    resp.status = Status::Sat;
    if resp.n <= INLINE_MAX_N {
        resp.queens = Some(
            cols.iter()
                .enumerate()
                .map(|(r, &c)| (r, c as usize))
                .collect(),
        );
        return Artifacts::default();
    }
    Artifacts(vec![(
        "solution".into(),
        queens_model::formats::columns::write(cols),
    )])
}

/// Refuses a local search (and the text of its answer) over the memory limit, before
/// anything is allocated: [`queens_engine::local::memory_estimate`] plus 10 bytes a row for
/// the column-per-row text of a board past [`INLINE_MAX_N`].
pub fn check_memory(problem: &Problem, ctx: &Context) -> Result<(), Error> {
    let Some(limit) = ctx.budget.max_memory else {
        return Ok(());
    };
    if local_path(problem) {
        let n = problem.n() as u64;
        let text = if problem.n() > INLINE_MAX_N {
            10 * n
        } else {
            0
        };
        let need = queens_engine::local::memory_estimate(problem) + text;
        if need > limit {
            return Err(Error::too_large_at_field(
                "n",
                format!(
                    "local search on this {n}×{n} board needs about {} MB (12 bytes a \
                     row, 10 more for the answer's text, 32 a preset), over the memory limit of \
                     {} MB: raise the limit (--max-memory)",
                    need.div_ceil(1 << 20),
                    limit >> 20
                ),
            ));
        }
    }
    Ok(())
}

/// True when a solve of `problem` may run local search alone: not when `auto` runs its
/// portfolio on a completion whose core may be built, which leaves local search out when it
/// is over the limit and checks the core's memory before and as it builds it.
fn local_path(problem: &Problem) -> bool {
    queens_engine::local::supports(problem).is_ok()
        && (!is_portfolio_board(problem) || queens_engine::completion::fits(problem).is_err())
}

/// UNSAT with a proof: the proof and the exact CNF it refutes come back as artifacts, and
/// the proof has passed the built-in checker first.
fn solve_with_proof(
    req: &SolveRequest,
    spec: EngineSpec,
    format: ProofFormat,
    ctx: &Context,
) -> Result<(SolveResponse, Artifacts), Error> {
    let problem = &req.instance.0;
    if problem.is_sparse() {
        return solve_core_with_proof(req, format, ctx);
    }
    let start = Instant::now();
    let certified = prove_no(problem, spec, req.encoding, format, ctx)?;
    let mut resp = SolveResponse {
        work: WorkReport::from_work(&certified.work, req.encoding, req.ext_solver()),
        ..SolveResponse::nothing(
            Status::interrupted(&ctx.budget),
            problem.n(),
            EngineName::of(spec),
        )
    };
    let mut artifacts = Artifacts::default();
    match certified.answer {
        CertifiedAnswer::Sat(q) => {
            resp.status = Status::Sat;
            resp.queens = Some(q);
        }
        CertifiedAnswer::GaveUp | CertifiedAnswer::Interrupted => {}
        CertifiedAnswer::Unsat(cert) => {
            resp.status = Status::Unsat;
            resp.reason = Some(unsat_reason(problem, certified.work.nodes));
            let (info, files) = certificate(problem, *cert, req.encoding, spec)?;
            resp.proof = Some(info);
            artifacts = files;
        }
    }
    resp.time_ms = ms(start);
    Ok((resp, artifacts))
}

/// UNSAT with a proof on a board past [`queens_model::model::MAX_N`]: the backtracker searches the
/// core ([`queens_engine::completion::prove`]) and its refutation of the core CNF comes back
/// with that CNF,
/// whose comment lines map each variable to its board cell.
fn solve_core_with_proof(
    req: &SolveRequest,
    format: ProofFormat,
    ctx: &Context,
) -> Result<(SolveResponse, Artifacts), Error> {
    let start = Instant::now();
    let problem = &req.instance.0;
    let (proved, work) = prove::prove_core(problem, format, &ctx.budget)?;
    let mut resp = SolveResponse {
        work: WorkReport::from_work(&work, req.encoding, req.ext_solver()),
        engine: req.engine,
        answered_by: (req.engine == EngineName::Auto).then_some(EngineName::Backtrack),
        ..SolveResponse::nothing(Status::interrupted(&ctx.budget), problem.n(), req.engine)
    };
    let mut artifacts = Artifacts::default();
    match proved {
        prove::CoreProved::Interrupted => {}
        prove::CoreProved::Sat(cols) => artifacts = sat_columns(&mut resp, &cols),
        prove::CoreProved::Unsat(why, proof) => {
            resp.status = Status::Unsat;
            resp.reason = Some(why);
            if let Some(proof) = proof {
                resp.proof = Some(ProofInfo {
                    format,
                    lemmas: proof.lemmas,
                    checked: true,
                    check_ms: proof.check_ms,
                    checker: None,
                    bytes: proof.proof.len(),
                    path: None,
                    cnf: None,
                    url: None,
                    cnf_url: None,
                });
                artifacts = Artifacts(vec![
                    ("proof".into(), proof.proof),
                    ("cnf".into(), proof.cnf),
                ]);
            }
        }
    }
    resp.time_ms = ms(start);
    Ok((resp, artifacts))
}

/// [`prove::prove_no`] under `ctx`: its budget, and its proof file (the command line's
/// `--proof FILE`) as where the proof goes, else memory.
pub(super) fn prove_no(
    problem: &Problem,
    spec: EngineSpec,
    encoding: Encoding,
    format: ProofFormat,
    ctx: &Context,
) -> Result<prove::Certified, Error> {
    let target = ctx
        .proof_file
        .clone()
        .map_or(prove::ProofTarget::Memory, prove::ProofTarget::File);
    prove::prove_no(problem, spec, encoding, format, &ctx.budget, &target)
}

/// A checked certificate as the answer reports it, and its files: the proof and the DIMACS
/// CNF it refutes (with a header naming the problem, the encoding and the engine).
pub(super) fn certificate(
    problem: &Problem,
    cert: prove::Certificate,
    _encoding: Encoding,
    spec: EngineSpec,
) -> Result<(ProofInfo, Artifacts), Error> {
    let cnf_text = cert.cnf_text(problem, spec)?;
    let info = ProofInfo {
        format: cert.format,
        lemmas: cert.lemmas,
        checked: true,
        check_ms: cert.check_ms,
        checker: (cert.checker != "built-in").then(|| cert.checker.to_string()),
        bytes: cert.bytes as usize,
        path: cert.proof_file.as_ref().map(|p| p.display().to_string()),
        cnf: None,
        url: None,
        cnf_url: None,
    };
    // A proof already in its file is not carried again.
    let mut files = Vec::new();
    if cert.proof_file.is_none() {
        files.push(("proof".into(), cert.proof));
    }
    files.push(("cnf".into(), cnf_text));
    let files = Artifacts(files);
    Ok((info, files))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One request, one plan, whatever it asks: one solution of a completion (the
    /// portfolio), a listing, a cross-check, and the plan alone; each answer carries it.
    #[test]
    fn a_solve_makes_its_plan_once_and_answers_with_it() {
        let p = queens_engine::generate::completion(200, 150, 1).unwrap();
        let small = Problem::new(8).unwrap();
        let requests = [
            SolveRequest::new(p.clone()),
            SolveRequest {
                limit: Some(2),
                ..SolveRequest::new(small.clone())
            },
            SolveRequest {
                cross_check: true,
                engine: EngineName::Backtrack,
                ..SolveRequest::new(small)
            },
            SolveRequest {
                plan_only: true,
                ..SolveRequest::new(p)
            },
        ];
        for req in requests {
            let before = queens_engine::plan::plans_made();
            let (resp, _) = crate::solve(&req, &Context::default()).unwrap();
            assert_eq!(queens_engine::plan::plans_made(), before + 1, "{req:?}");
            let plan = resp.plan.expect("the answer carries its plan");
            let ran = plan.all().iter().all(|s| s.ending.is_some());
            assert_eq!(ran, !req.plan_only, "{plan:?}");
            assert!(resp.why.is_some());
        }
    }
}
