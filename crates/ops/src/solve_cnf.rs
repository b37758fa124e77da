//! `solve_cnf`: any DIMACS CNF formula, answered with a model or with an LRAT proof of
//! unsatisfiability that the built-in checker accepted. The games' SAT calls go through it:
//! under a deadline each call is this request in a child `queens op`, killed when the
//! deadline passes ([`runner`]).

use std::time::Instant;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use varisat::{CnfFormula, Lit};

use crate::context::{ms, Artifacts, Context};
use crate::isolate;
use crate::operation::Operation;
use queens_engine::formula::{self, Outcome};
use queens_model::error::Error;
use queens_model::status::Status;

/// `solve_cnf`'s request.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SolveCnfRequest {
    /// The formula as DIMACS CNF text (`p cnf VARS CLAUSES`, then clauses ending in 0).
    pub cnf: String,
}

impl SolveCnfRequest {
    /// The request for `formula`.
    pub fn of(formula: &CnfFormula) -> Result<SolveCnfRequest, Error> {
        let mut text = Vec::new();
        varisat::dimacs::write_dimacs(&mut text, formula)
            .map_err(|e| Error::internal_from("writing the CNF", e))?;
        let cnf = String::from_utf8(text)
            .map_err(|e| Error::internal_from("the CNF text is not UTF-8", e))?;
        Ok(SolveCnfRequest { cnf })
    }

    /// The formula, or an input error naming the line.
    pub fn formula(&self) -> Result<CnfFormula, Error> {
        varisat::dimacs::DimacsParser::parse(self.cnf.as_bytes())
            .map_err(|e| Error::input_at_field("request", "cnf", e))
    }

    /// Checks that the formula parses and fits the memory limit, before any work.
    pub fn validate(&self, ctx: &Context) -> Result<CnfFormula, Error> {
        let f = self.formula()?;
        // The solver's figures for a formula kept whole (queens_engine::sat_estimate).
        let bytes = (16u64 << 20)
            .saturating_add(35u64.saturating_mul(f.len() as u64))
            .saturating_add(240u64.saturating_mul(f.var_count() as u64));
        if let Some(limit) = ctx.budget.max_memory.filter(|&m| bytes > m) {
            return Err(Error::too_large_at_field(
                "cnf",
                format!(
                    "{} variables and {} clauses need about {} MB, over the memory \
                     limit of {} MB",
                    f.var_count(),
                    f.len(),
                    bytes >> 20,
                    limit >> 20
                ),
            ));
        }
        Ok(f)
    }
}

/// `solve_cnf`'s answer. `status`: `sat`, `unsat` (the proof checked), `timeout` or
/// `cancelled`. The proof itself is the job's `proof` file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SolveCnfResponse {
    /// `sat`, `unsat`, `timeout` or `cancelled`.
    pub status: Status,
    /// With `sat`: one DIMACS literal per variable (positive: true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Vec<isize>>,
    /// Variables of the formula.
    pub vars: usize,
    /// Clauses of the formula.
    pub clauses: usize,
    /// With `unsat`: lemmas of the LRAT proof, after trimming.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lemmas: Option<u64>,
    /// With `unsat`: milliseconds the built-in checker took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_ms: Option<f64>,
    /// Milliseconds in all.
    pub time_ms: f64,
}

impl SolveCnfResponse {
    /// An answer with nothing found: `timeout` or `cancelled`.
    pub fn nothing(status: Status) -> SolveCnfResponse {
        SolveCnfResponse {
            status,
            model: None,
            vars: 0,
            clauses: 0,
            lemmas: None,
            check_ms: None,
            time_ms: 0.0,
        }
    }
}

/// Solves the formula here; an UNSAT answer's LRAT proof is the `proof` artifact, checked
/// before the answer is given.
pub fn solve_cnf(
    req: &SolveCnfRequest,
    ctx: &Context,
) -> Result<(SolveCnfResponse, Artifacts), Error> {
    let start = Instant::now();
    let f = req.validate(ctx)?;
    if ctx.budget.exhausted() {
        return Ok((
            SolveCnfResponse::nothing(Status::interrupted(&ctx.budget)),
            Artifacts::default(),
        ));
    }
    let mut resp = SolveCnfResponse {
        vars: f.var_count(),
        clauses: f.len(),
        ..SolveCnfResponse::nothing(Status::Sat)
    };
    let mut artifacts = Artifacts::default();
    match formula::solve_here(&f)? {
        Outcome::Sat(model) => resp.model = Some(model.iter().map(|l| l.to_dimacs()).collect()),
        Outcome::Unsat(proof) => {
            resp.status = Status::Unsat;
            resp.lemmas = Some(proof.lemmas);
            resp.check_ms = Some(proof.check_ms);
            artifacts.0.push(("proof".into(), proof.lrat));
        }
        Outcome::Timeout => resp.status = Status::Timeout,
    }
    resp.time_ms = ms(start);
    Ok((resp, artifacts))
}

/// Where the games' SAT calls run under `ctx`: with a deadline and an executable to isolate
/// work in, each call is a `solve_cnf` request in a child process killed at the deadline,
/// its proof checked again here against the caller's formula; otherwise here (`None`).
pub fn runner(ctx: &Context) -> Option<impl Fn(&CnfFormula) -> Result<Outcome, Error> + Sync + '_> {
    let exe = ctx.isolate.as_ref()?;
    ctx.budget.deadline?;
    Some(move |f: &CnfFormula| {
        let (resp, artifacts) = isolate::run::<SolveCnf>(exe, &SolveCnfRequest::of(f)?, ctx)?;
        match resp.status {
            Status::Sat => {
                let model = resp.model.unwrap_or_default();
                // A 0 ends a DIMACS clause and is no literal: a model holding one is broken.
                if model.contains(&0) {
                    return Err(Error::internal("the SAT child's model holds a 0"));
                }
                Ok(Outcome::Sat(
                    model.into_iter().map(Lit::from_dimacs).collect(),
                ))
            }
            Status::Unsat => {
                let lrat = artifacts.get("proof").ok_or_else(|| {
                    Error::internal("the SAT child's UNSAT answer came without its proof")
                })?;
                formula::certify(f, lrat.to_vec())
            }
            _ => Ok(Outcome::Timeout),
        }
    })
}

/// `solve_cnf`: a job or a child's work only (no synchronous endpoint); varisat runs to the
/// end once started.
pub struct SolveCnf;

impl Operation for SolveCnf {
    const NAME: &'static str = "solve_cnf";
    type Request = SolveCnfRequest;
    type Response = SolveCnfResponse;

    fn run(req: &SolveCnfRequest, ctx: &Context) -> Result<(SolveCnfResponse, Artifacts), Error> {
        solve_cnf(req, ctx)
    }
    fn validate(req: &SolveCnfRequest) -> Result<(), Error> {
        req.validate(&Context::default()).map(|_| ())
    }
}

impl crate::operation::Budgeted for SolveCnf {
    fn status(resp: &SolveCnfResponse) -> Status {
        resp.status
    }
    fn stopped(_req: &SolveCnfRequest, status: Status, time_ms: f64) -> Option<SolveCnfResponse> {
        Some(SolveCnfResponse {
            time_ms,
            ..SolveCnfResponse::nothing(status)
        })
    }
}

impl crate::operation::Isolated for SolveCnf {
    fn uninterruptible(_req: &SolveCnfRequest) -> bool {
        true
    }
    // varisat runs to the end once started.
    const ANSWERS_AT_DEADLINE: bool = false;
    fn reply(stdout: &str) -> Result<SolveCnfResponse, Error> {
        crate::operation::reply(stdout)
    }
}

impl crate::operation::Certifying for SolveCnf {
    fn certified(resp: &SolveCnfResponse) -> bool {
        resp.status == Status::Unsat
    }
}
