//! The operations layer: one function per question the product answers, shared by the CLI
//! and the HTTP service.
//!
//! Each operation takes a serde request and a [`Context`] (deadline, cancel flag, progress,
//! and whether uninterruptible work runs in a child process) and returns a serde response or
//! a typed [`Error`]. The CLI's `--json` output and the service's response body are the same
//! serialization of the same response type, so one schema is documented once
//! (`GET /openapi.json`). Every board in a response has passed [`crate::verify()`].

pub mod batch_file;
pub mod compare;
pub mod merge;
pub mod plot;
pub mod shard;

// The crates below, and this one, under the names the modules use.
pub(crate) use crate as ops;
pub(crate) use queens_engine as engine;
pub(crate) use queens_engine::{child, encode};
pub(crate) use queens_games as games;
pub(crate) use queens_model::{error, formats, model, report, status, verify};
pub(crate) use queens_proof as proof;

pub mod batch;
mod cnf;
pub mod collection;
mod count;
mod diagnose;
mod formula;
mod generate;
mod isolate;
pub mod mod2;
mod puzzle;
mod race;
mod solve;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

use crate::engine::Budget;
use crate::error::Error;
use crate::model::Problem;

pub use crate::engine::EngineName;
pub use crate::status::Status;
pub use cnf::{decode, encode, DecodeRequest, DecodeResponse, EncodeRequest, EncodeResponse};
pub use count::{count, CountRequest, CountResponse};
pub use diagnose::{
    check, check_columns, explain, CheckRequest, CheckResponse, CheckViolation, Completions,
    ExplainRequest, ExplainResponse, MAX_COMPLETIONS,
};
pub use formula::{solve_cnf, SolveCnfRequest, SolveCnfResponse};
pub use generate::{
    generate, GenerateKind, GenerateRequest, GenerateResponse, PresetSource, MAX_GENERATE_COUNT,
};
pub use isolate::{child_main, child_main_of};
pub use puzzle::{grade, hint, GradeRequest, GradeResponse, HintRequest, HintResponse, StepReport};
pub use solve::{check_memory, ProofInfo, SolveRequest, SolveResponse, WorkReport, INLINE_MAX_N};

/// An instance inside a request: the JSON instance format the CLI reads (an object with
/// `n`, `regions`, `queens`, …), or `{"text": "<the contents of a grid or JSON file>"}`.
#[derive(Clone, Debug)]
pub struct Instance(pub Problem);

impl<'de> Deserialize<'de> for Instance {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Instance, D::Error> {
        use serde::de::Error as _;
        // Like the CLI's reader: an object with a key given twice is refused, not merged.
        let value = crate::formats::StrictValue::deserialize(d)?.0;
        let text = match &value {
            serde_json::Value::Object(m) if m.len() == 1 && m.contains_key("text") => {
                match &m["text"] {
                    serde_json::Value::String(t) => Some(t.as_str()),
                    _ => return Err(D::Error::custom("field `text`: expected a string")),
                }
            }
            serde_json::Value::Object(_) => None,
            _ => {
                return Err(D::Error::custom(
                    "expected a JSON object (an instance, or {\"text\": \"<grid>\"})",
                ))
            }
        };
        let problem = match text {
            Some(t) => crate::formats::parse("text", t).map_err(|e| match e {
                Error::Input { message, .. } => D::Error::custom(format!("text: {message}")),
                e => D::Error::custom(e),
            })?,
            None => crate::formats::problem_from_json(&value).map_err(D::Error::custom)?,
        };
        Ok(Instance(problem))
    }
}

impl Serialize for Instance {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        let text = crate::formats::write_json(&self.0, "instance");
        let value: serde_json::Value = serde_json::from_str(&text).map_err(S::Error::custom)?;
        value.serialize(s)
    }
}

/// Files an operation produced beside its JSON answer (an UNSAT proof and the CNF it
/// refutes), by name: the CLI writes them where the user asked, the service stores them with
/// the job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Artifacts(pub Vec<(String, Vec<u8>)>);

impl Artifacts {
    /// The artifact called `name`.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
    }
}

/// How an operation may run: its budget, and whether work on an engine that cannot be
/// interrupted (varisat) runs in a child process of `isolate` (this program's executable,
/// as `queens op`), killed at the deadline or on cancel.
#[derive(Clone, Default)]
pub struct Context {
    /// Deadline, cancel flag and progress callback.
    pub budget: Budget,
    /// The `queens` executable to run uninterruptible work in; `None` runs it in-process
    /// (the deadline is then only looked at between solver calls).
    pub isolate: Option<PathBuf>,
    /// Where a proof goes when the caller wants it in a file (the CLI's `--proof`): the
    /// backtracker's LRAT then streams there instead of coming back as an artifact, so the
    /// disk, not memory, bounds it. `None`: proofs are artifacts.
    pub proof_file: Option<PathBuf>,
}

impl Context {
    /// This context with the deadline moved up to `timeout_ms` from now, if that is sooner.
    pub fn with_timeout_ms(&self, timeout_ms: Option<u64>) -> Context {
        let mut ctx = self.clone();
        if let Some(ms) = timeout_ms {
            let d = Instant::now().checked_add(Duration::from_millis(ms));
            ctx.budget.deadline = match (ctx.budget.deadline, d) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        ctx
    }

    /// This context with a progress callback.
    pub fn with_progress(mut self, progress: impl Fn(u64, u64) + Send + Sync + 'static) -> Self {
        self.budget.progress = Some(Arc::new(progress));
        self
    }
}

/// Any operation's request, tagged by `op` (the body of `POST /v1/jobs`, and what a child
/// process `queens op` reads).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// [`solve`].
    Solve(SolveRequest),
    /// [`count`].
    Count(CountRequest),
    /// [`check`].
    Check(CheckRequest),
    /// [`explain`].
    Explain(ExplainRequest),
    /// [`encode`].
    Encode(EncodeRequest),
    /// [`decode`].
    Decode(DecodeRequest),
    /// [`generate`].
    Generate(GenerateRequest),
    /// [`hint`].
    Hint(HintRequest),
    /// [`grade`].
    Grade(GradeRequest),
    /// [`collection::deal`].
    CollectionDeal(collection::DealRequest),
    /// [`collection::play`].
    CollectionPlay(collection::PlayRequest),
    /// [`collection::simulate`].
    CollectionSimulate(collection::SimulateRequest),
    /// [`collection::solve`].
    CollectionSolve(collection::SolveRequest),
    /// [`collection::study`].
    CollectionStudy(collection::StudyRequest),
    /// [`solve_cnf`].
    SolveCnf(SolveCnfRequest),
    /// [`mod2::check_instance`].
    Mod2Check(mod2::CheckRequest),
    /// [`mod2::replay_request`].
    Mod2Replay(mod2::ReplayRequest),
    /// [`mod2::solve`].
    Mod2Solve(mod2::SolveRequest),
    /// [`mod2::optimum`].
    Mod2Optimum(mod2::OptimumRequest),
}

/// Any operation's response (untagged: each is the operation's own JSON).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum Response {
    /// From [`solve`].
    Solve(SolveResponse),
    /// From [`count`].
    Count(CountResponse),
    /// From [`check`].
    Check(CheckResponse),
    /// From [`explain`].
    Explain(ExplainResponse),
    /// From [`encode`].
    Encode(EncodeResponse),
    /// From [`decode`].
    Decode(DecodeResponse),
    /// From [`generate`].
    Generate(GenerateResponse),
    /// From [`hint`].
    Hint(HintResponse),
    /// From [`grade`].
    Grade(GradeResponse),
    /// From [`collection::deal`].
    CollectionDeal(crate::games::collection::Deal),
    /// From [`collection::play`].
    CollectionPlay(collection::PlayResponse),
    /// From [`collection::simulate`].
    CollectionSimulate(collection::SimulateResponse),
    /// From [`collection::solve`].
    CollectionSolve(collection::SolveResponse),
    /// From [`collection::study`].
    CollectionStudy(collection::StudyResponse),
    /// From [`solve_cnf`].
    SolveCnf(SolveCnfResponse),
    /// From [`mod2::check_instance`].
    Mod2Check(mod2::CheckResponse),
    /// From [`mod2::replay_request`].
    Mod2Replay(mod2::ReplayAnswer),
    /// From [`mod2::solve`].
    Mod2Solve(mod2::SolveResponse),
    /// From [`mod2::optimum`].
    Mod2Optimum(crate::games::mod2::questions::Optimum),
}

impl Response {
    /// The CLI's exit code for this answer: its status's ([`Status::exit_code`]), except
    /// that a finished count shard gives 0, that a consistent `check` whose completion search ran out of time gives 4 (no answer
    /// within the limits), and `encode`, which always answers, gives 0.
    pub fn exit_code(&self) -> u8 {
        match self {
            Response::Solve(r) => r.status.exit_code(),
            // A finished shard is a success whatever its part of the count (a scheduler
            // would take exit 1 for a failed task).
            Response::Count(r) if r.shard.is_some() && !self.interrupted() => 0,
            Response::Count(r) => r.status.exit_code(),
            Response::Check(r) if r.status == Status::Consistent && r.completable.is_none() => 4,
            Response::Check(r) => r.status.exit_code(),
            Response::Explain(r) => r.status.exit_code(),
            Response::Encode(_) => 0,
            Response::Decode(r) => r.status.exit_code(),
            Response::Generate(r) => r.status.exit_code(),
            Response::Hint(r) => r.status.exit_code(),
            Response::Grade(_) => 0,
            Response::CollectionDeal(_) | Response::CollectionPlay(_) => 0,
            Response::CollectionSimulate(r) => r.exit_code(),
            Response::CollectionSolve(r) => r.exit_code(),
            Response::CollectionStudy(r) => r.exit_code(),
            Response::SolveCnf(r) => r.status.exit_code(),
            Response::Mod2Check(_) => 0,
            Response::Mod2Replay(r) => r.exit_code(),
            Response::Mod2Solve(r) => r.exit_code(),
            Response::Mod2Optimum(r) => mod2::optimum_exit_code(r),
        }
    }
}

impl Response {
    /// True when the budget cut the operation short (`timeout` or `cancelled`).
    pub fn interrupted(&self) -> bool {
        let status = match self {
            Response::Solve(r) => Some(r.status),
            Response::Count(r) => Some(r.status),
            Response::Explain(r) => Some(r.status),
            Response::Decode(r) => Some(r.status),
            Response::Generate(r) => Some(r.status),
            Response::Hint(r) => Some(r.status),
            Response::Grade(_) => None,
            Response::Check(r) => (r.status == Status::Consistent && r.completable.is_none())
                .then_some(Status::Timeout),
            Response::Encode(_) | Response::CollectionDeal(_) | Response::CollectionPlay(_) => None,
            Response::CollectionSimulate(r) => Some(r.status),
            Response::CollectionSolve(r) => Some(r.budget),
            Response::CollectionStudy(r) => Some(r.status),
            Response::SolveCnf(r) => Some(r.status),
            Response::Mod2Check(_) | Response::Mod2Replay(_) => None,
            Response::Mod2Solve(r) => Some(r.status),
            Response::Mod2Optimum(r) => Some(r.status),
        };
        matches!(status, Some(Status::Timeout | Status::Cancelled))
    }
}

impl Request {
    /// The operation's name (`solve`, `count`, …).
    pub fn op(&self) -> &'static str {
        match self {
            Request::Solve(_) => "solve",
            Request::Count(_) => "count",
            Request::Check(_) => "check",
            Request::Hint(_) => "hint",
            Request::Grade(_) => "grade",
            Request::Explain(_) => "explain",
            Request::Encode(_) => "encode",
            Request::Decode(_) => "decode",
            Request::Generate(_) => "generate",
            Request::CollectionDeal(_) => "collection_deal",
            Request::CollectionPlay(_) => "collection_play",
            Request::CollectionSimulate(_) => "collection_simulate",
            Request::CollectionSolve(_) => "collection_solve",
            Request::CollectionStudy(_) => "collection_study",
            Request::SolveCnf(_) => "solve_cnf",
            Request::Mod2Check(_) => "mod2_check",
            Request::Mod2Replay(_) => "mod2_replay",
            Request::Mod2Solve(_) => "mod2_solve",
            Request::Mod2Optimum(_) => "mod2_optimum",
        }
    }

    /// The instance the request is about (none for `generate` and the collection game).
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            Request::Solve(r) => Some(&r.instance.0),
            Request::Count(r) => Some(&r.instance.0),
            Request::Check(r) => Some(&r.instance.0),
            Request::Hint(r) => Some(&r.instance.0),
            Request::Grade(r) => Some(&r.instance.0),
            Request::Explain(r) => Some(&r.instance.0),
            Request::Encode(r) => Some(&r.instance.0),
            Request::Decode(r) => Some(&r.instance.0),
            Request::Mod2Check(r) => Some(&r.instance.0),
            Request::SolveCnf(_)
            | Request::Mod2Replay(_)
            | Request::Mod2Solve(_)
            | Request::Mod2Optimum(_)
            | Request::Generate(_)
            | Request::CollectionDeal(_)
            | Request::CollectionPlay(_)
            | Request::CollectionSimulate(_)
            | Request::CollectionSolve(_)
            | Request::CollectionStudy(_) => None,
        }
    }

    /// The board size the request works on.
    pub fn n(&self) -> usize {
        match self {
            Request::Generate(r) => r.n,
            Request::Mod2Solve(r) => r.n,
            Request::Mod2Optimum(r) => r.n,
            Request::Mod2Check(r) => r.instance.0.n(),
            r => r.problem().map_or(0, Problem::n),
        }
    }

    /// Checks the request's options against each other and the limits, before any work (the
    /// operation checks them again; the service checks before it accepts a job).
    pub fn validate(&self) -> Result<(), Error> {
        self.check_sparse()?;
        match self {
            Request::Solve(r) => r.validate(),
            Request::Count(r) => r.validate(),
            Request::Generate(r) => r.validate(),
            Request::Explain(r) => r.validate(),
            Request::Check(r) => r.validate(),
            Request::CollectionPlay(r) => r.validate(),
            Request::CollectionSimulate(r) => r.validate(),
            Request::CollectionSolve(r) => r.validate(),
            Request::CollectionStudy(r) => r.validate(),
            Request::CollectionDeal(r) => r
                .difficulty
                .validate()
                .map_err(|e| Error::unsupported_at_field("difficulty.remove_wilds", e)),
            Request::SolveCnf(r) => r.validate(&Context::default()).map(|_| ()),
            Request::Mod2Check(r) => mod2::validate_check(r, None),
            Request::Mod2Replay(r) => mod2::validate_replay(r),
            Request::Mod2Solve(r) => r.validate(),
            Request::Mod2Optimum(r) => r.validate(),
            Request::Encode(_) | Request::Decode(_) | Request::Hint(_) | Request::Grade(_) => {
                Ok(())
            }
        }
    }

    /// Refuses a board past [`crate::model::MAX_N`] to every operation but `solve`, `check`,
    /// `count` (which refuse what their engines cannot do, with the engine's reason), and
    /// `encode` and `decode` of a core that fits: the others keep n² structures.
    pub fn check_sparse(&self) -> Result<(), Error> {
        let Some(p) = self.problem().filter(|p| p.is_sparse()) else {
            return Ok(());
        };
        match self {
            Request::Solve(_) | Request::Check(_) | Request::Count(_) => Ok(()),
            // The CNF of a board past MAX_N is its core's.
            Request::Encode(_) | Request::Decode(_) => crate::engine::completion::fits(p),
            other => Err(Error::too_large_at_field(
                "n",
                format!(
                    "{} works on boards up to {max}×{max}, not {n}×{n}; past {max} only \
                     solve, count, check, encode and decode take a board (local search, or \
                     the complete engines on the core of a completion)",
                    other.op(),
                    max = crate::model::MAX_N,
                    n = p.n()
                ),
            )),
        }
    }

    /// Why this request has no bound on its work, if it has none: counting or listing every
    /// solution of a board too large to finish quickly. Synchronous callers (the service's
    /// `/v1/*` endpoints) refuse these and point to jobs or a limit.
    pub fn unbounded(&self) -> Option<String> {
        let n = self.n();
        match self {
            Request::Count(r) if r.limit.is_none() && n > UNBOUNDED_COUNT_N => Some(format!(
                "counting every solution of a {n}×{n} board can take hours: give `limit`, or \
                 submit it as a job (POST /v1/jobs with \"op\": \"count\")"
            )),
            Request::Solve(r) if r.all && r.limit.is_none() && n > UNBOUNDED_LIST_N => {
                Some(format!(
                    "listing every solution of a {n}×{n} board is unbounded: give `limit`, or \
                     submit it as a job (POST /v1/jobs)"
                ))
            }
            Request::CollectionSimulate(r) if r.deals > collection::MAX_SYNC_SIMULATE_DEALS => {
                Some(format!(
                    "{} deals is over the {} a synchronous simulation plays: submit it as a \
                     job (POST /v1/jobs with \"op\": \"collection_simulate\")",
                    r.deals,
                    collection::MAX_SYNC_SIMULATE_DEALS
                ))
            }
            Request::CollectionStudy(r) if r.deals > collection::MAX_SYNC_STUDY_DEALS => {
                Some(format!(
                    "{} deals is over the {} a synchronous study solves: submit it as a job \
                     (POST /v1/jobs with \"op\": \"collection_study\")",
                    r.deals,
                    collection::MAX_SYNC_STUDY_DEALS
                ))
            }
            Request::Mod2Solve(r) if r.retrograde() => Some(format!(
                "the retrograde sweep of a {n}×{n} board takes hours (n = 6: 3.5 GB): submit \
                 it as a job (POST /v1/jobs with \"op\": \"mod2_solve\")"
            )),
            _ => None,
        }
    }

    /// Runs the request under the context: in a child process when it needs an engine that
    /// cannot be interrupted and the context asks for isolation, in-process otherwise.
    pub fn run(&self, ctx: &Context) -> Result<(Response, Artifacts), Error> {
        self.check_sparse()?;
        if let Some(exe) = &ctx.isolate {
            if self.uninterruptible() {
                return isolate::run(exe, self, ctx);
            }
        }
        self.run_here(ctx)
    }

    /// Runs the request in a child `queens op` of `exe` whatever it is, killed at the
    /// context's deadline or on cancel (then the answer says `timeout` / `cancelled`); every
    /// board the child reports is verified here. `compare` runs each attempt this way, so
    /// every engine's time is measured apart from the others' memory and threads.
    pub fn run_in_child(
        &self,
        exe: &std::path::Path,
        ctx: &Context,
    ) -> Result<(Response, Artifacts), Error> {
        self.check_sparse()?;
        isolate::run(exe, self, ctx)
    }

    /// Runs the request in this process.
    pub fn run_here(&self, ctx: &Context) -> Result<(Response, Artifacts), Error> {
        let none = Artifacts::default;
        Ok(match self {
            Request::Solve(r) => {
                let (resp, artifacts) = solve(r, ctx)?;
                (Response::Solve(resp), artifacts)
            }
            Request::Count(r) => (Response::Count(count(r, ctx)?), none()),
            Request::Check(r) => (Response::Check(check(r, ctx)?), none()),
            Request::Hint(r) => (Response::Hint(hint(r, ctx)?), none()),
            Request::Grade(r) => (Response::Grade(grade(r, ctx)?), none()),
            Request::Explain(r) => {
                let (resp, artifacts) = explain(r, ctx)?;
                (Response::Explain(resp), artifacts)
            }
            Request::Encode(r) => (Response::Encode(encode(r, ctx)?), none()),
            Request::Decode(r) => (Response::Decode(decode(r, ctx)?), none()),
            Request::Generate(r) => (Response::Generate(generate(r, ctx)?), none()),
            Request::CollectionDeal(r) => {
                (Response::CollectionDeal(collection::deal(r, ctx)?), none())
            }
            Request::CollectionPlay(r) => {
                (Response::CollectionPlay(collection::play(r, ctx)?), none())
            }
            Request::CollectionSimulate(r) => (
                Response::CollectionSimulate(collection::simulate(r, ctx)?),
                none(),
            ),
            Request::CollectionSolve(r) => (
                Response::CollectionSolve(collection::solve(r, ctx)?),
                none(),
            ),
            Request::CollectionStudy(r) => (
                Response::CollectionStudy(collection::study(r, ctx)?),
                none(),
            ),
            Request::SolveCnf(r) => {
                let (resp, artifacts) = solve_cnf(r, ctx)?;
                (Response::SolveCnf(resp), artifacts)
            }
            Request::Mod2Check(r) => (Response::Mod2Check(mod2::check_instance(r, None)?), none()),
            Request::Mod2Replay(r) => (
                Response::Mod2Replay(mod2::replay_request_until(r, &|| ctx.budget.exhausted())?),
                none(),
            ),
            Request::Mod2Solve(r) => (Response::Mod2Solve(mod2::solve(r, ctx)?), none()),
            Request::Mod2Optimum(r) => (Response::Mod2Optimum(mod2::optimum(r, ctx)?), none()),
        })
    }

    /// True when the request runs part of its work in a child of the `queens` executable
    /// whatever the deadline (the race's SAT side): callers must set [`Context::isolate`].
    pub fn spawns(&self) -> bool {
        matches!(self, Request::Solve(r) if r.engine == EngineName::Race)
    }

    /// True when the request runs an engine that only stops when its process is killed
    /// (the SAT engine, the region generator's uniqueness search).
    pub fn uninterruptible(&self) -> bool {
        match self {
            // A proof's conversion and check run to the end once started.
            Request::Solve(r) => r.engine == EngineName::Sat || r.cross_check || r.proof.is_some(),
            Request::Count(r) => r.engine == EngineName::Sat || r.cross_check,
            Request::Explain(r) => r.engine == EngineName::Sat || r.proof.is_some(),
            Request::Generate(r) => r.kind == GenerateKind::Regions,
            // Deduction looks at no deadline: under one it runs in a child.
            Request::Hint(_) | Request::Grade(_) => true,
            // Play checks no deadline but is bounded (35 turns); simulate stops between deals.
            Request::Check(_)
            | Request::Encode(_)
            | Request::Decode(_)
            | Request::CollectionDeal(_)
            | Request::CollectionPlay(_)
            | Request::CollectionSimulate(_) => false,
            // The optimum's search looks at the deadline every 4096 positions; its SAT method
            // runs each solver call in a child of the context's executable itself.
            Request::CollectionSolve(_) => false,
            Request::CollectionStudy(_) => false,
            // varisat runs to the end once started.
            Request::SolveCnf(_) => true,
            Request::Mod2Check(_) | Request::Mod2Replay(_) => false,
            // The memoised search looks at the deadline, not at a cancel flag; the
            // retrograde sweep looks at both, and keeps its progress in this process.
            Request::Mod2Solve(r) => !r.retrograde(),
            // The SAT method builds encodings of millions of clauses and checks proofs,
            // which look at the deadline only between steps: under one, the whole question
            // runs in a child (its solver calls in grandchildren, each killed at the
            // deadline), so it ends when the child is killed, whatever it was doing. The
            // exhaustive search looks at the deadline.
            Request::Mod2Optimum(r) => r.method == mod2::OptimumMethod::Sat,
        }
    }
}

/// Finds a solution (or up to `limit`, or all) and verifies it; with `proof`, certifies an
/// UNSAT answer. Artifacts: `proof` and `cnf` when a proof was made. Engine `race` is the
/// backtracker here against the SAT engine in a child process ([`race`]).
pub fn solve(req: &SolveRequest, ctx: &Context) -> Result<(SolveResponse, Artifacts), Error> {
    if req.engine == EngineName::Race {
        req.validate()?;
        return race::solve(req, &ctx.with_timeout_ms(req.timeout_ms));
    }
    solve::solve(req, ctx)
}

/// Largest board whose solutions a synchronous call may count without a limit (n = 16:
/// 1.4 s on two cores).
pub const UNBOUNDED_COUNT_N: usize = 16;

/// Largest board whose solutions a synchronous call may list without a limit (n = 10: 724).
pub const UNBOUNDED_LIST_N: usize = 10;

/// Milliseconds a timeout stands for in a response, rounded to microseconds.
pub(crate) fn ms(t: Instant) -> f64 {
    crate::engine::ms(t)
}
