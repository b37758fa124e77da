//! `encode` (the problem as DIMACS CNF with its cell map) and `decode` (an external
//! solver's model read back onto the board, verified).

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Context, Instance, Status};
use crate::encode::amo::Encoding;
use crate::encode::cnf::{self, FixedMode};
use crate::encode::Counter;
use crate::engine::sat;
use crate::error::Error;
use crate::formats::dimacs::{self, ModelAnswer};
use crate::model::Pos;
use crate::report;

/// `encode`: the SAT encoding of the instance.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EncodeRequest {
    /// The instance.
    #[schema(value_type = Object)]
    pub instance: Instance,
    /// At-most-one encoding (default `auto`).
    #[serde(default)]
    pub encoding: Encoding,
    /// Add the ring bounds as redundant cardinality constraints (n-queens rule only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rings: bool,
}

/// `encode`'s answer: the DIMACS text (the service sends it as `text/plain`, with the
/// sizes in headers).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct EncodeResponse {
    /// DIMACS CNF; `c cell <var> <row> <col>` lines map cell variables, `c fixed <row> <col>`
    /// lines name queens decided before encoding.
    pub dimacs: String,
    /// Variables.
    pub vars: usize,
    /// Clauses.
    pub clauses: usize,
}

/// Encodes the instance as DIMACS CNF (fixed queens simplified away).
pub fn encode(req: &EncodeRequest, ctx: &Context) -> Result<EncodeResponse, Error> {
    let problem = &req.instance.0;
    crate::engine::check_sat_memory(
        problem,
        req.encoding,
        crate::engine::SatMemory::WithText,
        &ctx.budget,
    )?;
    let mut encoded = sat::encode_problem(problem, req.encoding, FixedMode::Simplify);
    if req.rings {
        crate::engine::ext::add_rings(problem, &mut encoded)?;
    }
    let header = vec![
        format!("queens CNF: {}", report::summary(problem)),
        format!(
            "encoding {}{}; fixed queens simplified away; variables 1..={} are cells",
            req.encoding,
            if req.rings { " with ring bounds" } else { "" },
            encoded.map.cells().len()
        ),
        "decode a model with: queens decode INSTANCE MODEL".to_string(),
    ];
    // Sized once from the bound the memory check counted: a Vec that doubles as it goes
    // would hold up to three times the text at its last reallocation.
    let literals: usize = encoded.formula.iter().map(|c| c.len()).sum();
    let bound =
        crate::engine::dimacs_text_bound(encoded.stats.vars, encoded.stats.clauses, literals)
            .saturating_add(header.iter().map(|l| l.len() as u64 + 3).sum::<u64>());
    let mut text = Vec::with_capacity(usize::try_from(bound).unwrap_or(usize::MAX));
    encoded
        .write_dimacs(&mut text, &header)
        .map_err(|e| Error::internal_from("writing the CNF", e))?;
    Ok(EncodeResponse {
        dimacs: String::from_utf8(text)
            .map_err(|e| Error::internal_from("the CNF is not UTF-8", e))?,
        vars: encoded.stats.vars,
        clauses: encoded.stats.clauses,
    })
}

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
            crate::engine::check_sat_memory(
                problem,
                req.encoding,
                crate::engine::SatMemory::WithFormula,
                &ctx.budget,
            )?;
            let mut encoded = sat::encode_problem(problem, req.encoding, FixedMode::Simplify);
            crate::engine::ext::add_rings(problem, &mut encoded)?;
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
            if let Err(v) = crate::verify(problem, &q) {
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
