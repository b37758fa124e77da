//! `explain`: a minimal set of presets that has no completion.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::{ms, Artifacts, Context};
use crate::instance::Instance;
use crate::proof_info::ProofInfo;
use crate::solve::{certificate, prove_no};
use queens_engine::encode::amo::Encoding;
use queens_engine::ext::ExtName;
use queens_engine::plan::Ask;
use queens_engine::prove::CertifiedAnswer;
use queens_engine::sat::{self, Explanation};
use queens_engine::EngineName;
use queens_engine::EngineSpec;
use queens_model::error::Error;
use queens_model::formats::csplib::to_csplib;
use queens_model::model::Pos;
use queens_model::status::Status;
use queens_proof::ProofFormat;

/// `explain`: why the presets have no completion.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExplainRequest {
    /// The instance.
    #[schema(value_type = Object)]
    pub instance: Instance,
    /// `backtrack` (default: drops one preset at a time and searches again; minimises
    /// fixed queens, blocked cells and excluded diagonals) or `sat` (varisat's failed
    /// assumptions, then the same shrinking; fixed queens and blocked cells only).
    #[serde(default)]
    pub engine: EngineName,
    /// At-most-one encoding for the SAT engine and for the proof's CNF.
    #[serde(default)]
    pub encoding: Encoding,
    /// On `unsat`, certify the core: a proof in this format, from the backtracker, that the
    /// board with only the core's presets has no solution (checked before the answer).
    pub proof: Option<ProofFormat>,
    /// Give up after this many milliseconds (`status: "timeout"`).
    pub timeout_ms: Option<u64>,
    /// The solver of engine `ext` (`"engine": "ext:NAME"` gives it too), read so that an
    /// external solver is refused for what it is: explain runs backtrack or sat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub solver: Option<ExtName>,
}

impl ExplainRequest {
    /// Checks the options before any work.
    pub fn validate(&self) -> Result<(), Error> {
        if self.engine.runs_in_child() {
            return Err(Error::unsupported_at_field(
                "engine",
                "explain runs backtrack or sat, not race or ext",
            ));
        }
        if self.solver.is_some() {
            return Err(Error::unsupported_at_field(
                "solver",
                "names the solver of engine ext only",
            ));
        }
        Ok(())
    }
}

/// `explain`'s answer. `status`: `sat` (solvable: a verified solution in `queens`),
/// `unsat` (a minimal core), `timeout` or `cancelled`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ExplainResponse {
    /// `sat`, `unsat`, `timeout` or `cancelled`.
    pub status: Status,
    /// Board size.
    pub n: usize,
    /// The engine that explained.
    pub engine: EngineName,
    /// With `sat`: a solution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Vec<usize>>>)]
    pub queens: Option<Vec<Pos>>,
    /// With `unsat`: fixed queens of a minimal core (removing any one member of the core
    /// makes the rest completable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Vec<usize>>>)]
    pub core: Option<Vec<Pos>>,
    /// With `unsat`: blocked cells of the core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Vec<usize>>>)]
    pub blocked_core: Option<Vec<Pos>>,
    /// With `unsat`: excluded diagonals of the core, as CSPLib `[k, t]` pairs (engine
    /// `sat`: all of the instance's, which it does not minimise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Vec<usize>>>)]
    pub excluded_core: Option<Vec<(usize, u8)>>,
    /// With `unsat`: a direct reason when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Engine calls made: SAT solver calls, or backtracking searches.
    pub solver_calls: u64,
    /// With `unsat` and `proof`: the certificate of the core (the CNF of the board with only
    /// the core's presets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<ProofInfo>,
    /// Wall time, milliseconds.
    pub time_ms: f64,
}

impl ExplainResponse {
    /// An answer with nothing found yet: `status` (usually `timeout` or `cancelled`).
    pub fn nothing(status: Status, n: usize, engine: EngineName) -> ExplainResponse {
        ExplainResponse {
            status,
            n,
            engine,
            queens: None,
            core: None,
            blocked_core: None,
            excluded_core: None,
            reason: None,
            solver_calls: 0,
            proof: None,
            time_ms: 0.0,
        }
    }
}

/// Explains an unsolvable completion with a minimal core of presets, or shows a solution;
/// with `proof`, certifies the core. Artifacts: `proof` and `cnf` when a proof was made.
pub fn explain(req: &ExplainRequest, ctx: &Context) -> Result<(ExplainResponse, Artifacts), Error> {
    req.validate()?;
    let start = Instant::now();
    let ctx = &ctx.with_timeout_ms(req.timeout_ms);
    let problem = &req.instance.0;
    let mut resp =
        ExplainResponse::nothing(Status::interrupted(&ctx.budget), problem.n(), req.engine);
    let mut artifacts = Artifacts::default();
    if ctx.budget.exhausted() {
        resp.time_ms = ms(start);
        return Ok((resp, artifacts));
    }
    let spec = req.engine.spec(req.encoding, None, false)?;
    let ask = Ask {
        explain: true,
        ..Ask::default()
    };
    let made = queens_engine::plan::plan(problem, spec, ask, &ctx.budget);
    let (exp, calls) = if let Some(encoding) = made.root.engine.and_then(EngineSpec::sat_encoding) {
        queens_engine::check_sat_memory(
            problem,
            encoding,
            queens_engine::SatMemory::Streamed,
            &ctx.budget,
        )?;
        let (exp, stats) = sat::explain(problem, encoding)?;
        (Some(exp), stats.solver_calls)
    } else {
        let found = queens_engine::explain::explain(problem, &ctx.budget)?;
        (found.explanation, found.searches)
    };
    resp.solver_calls = calls;
    match exp {
        None => {}
        Some(Explanation::Solvable(q)) => {
            queens_engine::checked(problem, &q, EngineSpec::name(spec))?;
            resp.status = Status::Sat;
            resp.queens = Some(q);
        }
        Some(Explanation::Unsolvable {
            core,
            blocked_core,
            excluded_core,
            reason,
        }) => {
            if let Some(format) = req.proof {
                let alone = queens_engine::explain::with_presets(
                    problem,
                    &core,
                    &blocked_core,
                    &excluded_core,
                )?;
                let spec = EngineSpec::Backtrack { threads: 0 };
                let certified = prove_no(&alone, spec, req.encoding, format, ctx)?;
                match certified.answer {
                    CertifiedAnswer::Unsat(cert) => {
                        let (info, files) = certificate(&alone, *cert, req.encoding, spec)?;
                        resp.proof = Some(info);
                        artifacts = files;
                    }
                    CertifiedAnswer::GaveUp | CertifiedAnswer::Interrupted => {
                        resp.time_ms = ms(start);
                        return Ok((resp, artifacts));
                    }
                    CertifiedAnswer::Sat(q) => {
                        return Err(Error::internal(format!(
                            "the explanation's core has a completion after all: {q:?}"
                        )))
                    }
                }
            }
            let n = problem.n();
            resp.status = Status::Unsat;
            resp.core = Some(core);
            resp.blocked_core = Some(blocked_core);
            resp.excluded_core = Some(excluded_core.iter().map(|&d| to_csplib(n, d)).collect());
            resp.reason = reason;
        }
    }
    resp.time_ms = ms(start);
    Ok((resp, artifacts))
}

/// `explain`.
pub struct Explain;

impl crate::operation::Operation for Explain {
    const NAME: &'static str = "explain";
    type Request = ExplainRequest;
    type Response = ExplainResponse;

    fn run(req: &ExplainRequest, ctx: &Context) -> Result<(ExplainResponse, Artifacts), Error> {
        explain(req, ctx)
    }
    fn validate(req: &ExplainRequest) -> Result<(), Error> {
        req.validate()
    }
}

impl crate::operation::Served for Explain {
    const PATH: &'static str = "/v1/explain";
    const SUMMARY: &'static str =
        "A minimal set of presets with no completion (or a solution when there is one).";
}

impl crate::operation::OnInstance for Explain {
    fn instance(req: &ExplainRequest) -> &Instance {
        &req.instance
    }
    fn instance_mut(req: &mut ExplainRequest) -> &mut Instance {
        &mut req.instance
    }
}

impl crate::operation::Budgeted for Explain {
    fn status(resp: &ExplainResponse) -> Status {
        resp.status
    }
    fn timeout_ms(req: &ExplainRequest) -> Option<u64> {
        req.timeout_ms
    }
    fn stopped(req: &ExplainRequest, status: Status, time_ms: f64) -> Option<ExplainResponse> {
        Some(ExplainResponse {
            time_ms,
            ..ExplainResponse::nothing(status, req.instance.0.n(), req.engine)
        })
    }
}

impl crate::operation::Isolated for Explain {
    fn uninterruptible(req: &ExplainRequest) -> bool {
        req.engine == EngineName::Sat || req.proof.is_some()
    }
    fn reply(stdout: &str) -> Result<ExplainResponse, Error> {
        crate::operation::reply(stdout)
    }
    fn boards(resp: &ExplainResponse) -> Vec<&Vec<Pos>> {
        resp.queens.iter().collect()
    }
}

impl crate::operation::Certifying for Explain {
    fn certified(resp: &ExplainResponse) -> bool {
        resp.proof.is_some()
    }
    fn proof_mut(resp: &mut ExplainResponse) -> Option<&mut ProofInfo> {
        resp.proof.as_mut()
    }
    fn wants_proof(req: &ExplainRequest) -> bool {
        req.proof.is_some()
    }
}

impl crate::operation::Library for Explain {}
