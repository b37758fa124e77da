//! `decode`: an external solver's model read back onto the board, verified.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::Context;
use crate::instance::Instance;
use queens_engine::cnf::{self, FixedMode};
use queens_engine::encode::amo::Encoding;
use queens_engine::encode::Counter;
use queens_engine::sat;
use queens_model::error::Error;
use queens_model::formats::dimacs::{self, ModelAnswer};
use queens_model::model::Pos;
use queens_model::status::Status;

/// `decode`: an external solver's output for the instance's CNF.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DecodeRequest {
    /// The instance the CNF was made from.
    #[schema(value_type = Object)]
    pub instance: Instance,
    /// The solver's output: `s SATISFIABLE` + `v … 0` lines, or a bare literal list.
    pub model: String,
    /// Where the model came from, for error messages (default `model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_origin: Option<String>,
    /// The at-most-one encoding the CNF was made with (default `auto`, as `encode`'s): it
    /// fixes the CNF's variables, and a model literal beyond them is refused.
    #[serde(default)]
    pub encoding: Encoding,
    /// The CNF has the ring bounds (`encode`'s `rings`), and their variables.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rings: bool,
    /// The CNF's variable count, from its `p cnf` line, when the CNF itself is at hand; it
    /// takes the place of `encoding` and `rings`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0)]
    pub vars: Option<usize>,
}

/// `decode`'s answer. `status`: `sat` (the model is a valid board), `unsat` (the solver
/// says UNSATISFIABLE), `unknown` (the solver gave up), or `timeout`/`cancelled`.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct DecodeResponse {
    /// `sat`, `unsat`, `unknown`, `timeout` or `cancelled`.
    pub status: Status,
    /// With `sat`: the board the model decodes to.
    #[schema(value_type = Option<Vec<Vec<usize>>>)]
    pub queens: Option<Vec<Pos>>,
    /// Board size.
    pub n: usize,
}

/// Reads the model, maps cell variables back to the board and verifies it. A model that
/// does not decode to a valid board is bad input, naming the rule it breaks.
pub fn decode(req: &DecodeRequest, ctx: &Context) -> Result<DecodeResponse, Error> {
    let problem = &req.instance.0;
    let origin = req.model_origin.as_deref().unwrap_or("model");
    // The work is linear in the model and the board, so the budget is looked at between
    // its steps only.
    let out_of_time = || DecodeResponse {
        status: Status::interrupted(&ctx.budget),
        queens: None,
        n: problem.n(),
    };
    if ctx.budget.exhausted() {
        return Ok(out_of_time());
    }
    // Cell variables do not depend on the encoding, only on the simplification, so only the
    // cell map and the variable count are needed: encode into a counting sink (nothing
    // stored) rather than building a formula that may have millions of clauses.
    let mut counter = Counter::default();
    let map = cnf::encode(problem, req.encoding, FixedMode::Simplify, &mut counter);
    let vars = match req.vars {
        Some(vars) => vars,
        None if req.rings => {
            // The ring bounds' variables come after the encoding's: counted by adding them.
            queens_engine::check_sat_memory(
                problem,
                req.encoding,
                queens_engine::SatMemory::WithFormula,
                &ctx.budget,
            )?;
            let mut encoded = sat::encode_problem(problem, req.encoding, FixedMode::Simplify);
            queens_engine::ext::add_rings(problem, &mut encoded)?;
            encoded.stats.vars
        }
        None => counter.vars,
    };
    if ctx.budget.exhausted() {
        return Ok(out_of_time());
    }
    let answer = dimacs::parse_model_for(origin, &req.model, vars)?;
    let (status, queens) = match answer {
        ModelAnswer::Sat(true_vars) => {
            let set: HashSet<usize> = true_vars.into_iter().collect();
            let q = map.decode(|l| set.contains(&(l.index() + 1)));
            if let Err(v) = queens_model::verify(problem, &q) {
                return Err(Error::input(
                    origin,
                    format!("the model does not decode to a valid board: {v}"),
                ));
            }
            (Status::Sat, Some(q))
        }
        ModelAnswer::Unsat => (Status::Unsat, None),
        ModelAnswer::Unknown => (Status::Unknown, None),
    };
    Ok(DecodeResponse {
        status,
        queens,
        n: problem.n(),
    })
}

/// `decode`.
pub struct Decode;

impl crate::operation::Operation for Decode {
    const NAME: &'static str = "decode";
    type Request = DecodeRequest;
    type Response = DecodeResponse;

    fn run(
        req: &DecodeRequest,
        ctx: &Context,
    ) -> Result<(DecodeResponse, crate::context::Artifacts), Error> {
        Ok((decode(req, ctx)?, crate::context::Artifacts::default()))
    }
}

impl crate::operation::Served for Decode {
    const PATH: &'static str = "/v1/decode";
    const SUMMARY: &'static str =
        "An external solver's output read back onto the board and verified.";
}

impl crate::operation::OnInstance for Decode {
    fn instance(req: &DecodeRequest) -> &Instance {
        &req.instance
    }
    fn instance_mut(req: &mut DecodeRequest) -> &mut Instance {
        &mut req.instance
    }
    const SPARSE: crate::operation::Sparse = crate::operation::Sparse::Core;
}

impl crate::operation::Budgeted for Decode {
    fn status(resp: &DecodeResponse) -> Status {
        resp.status
    }
}

impl crate::operation::Library for Decode {}
