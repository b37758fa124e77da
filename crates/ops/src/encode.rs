//! `encode`: the problem as DIMACS CNF with its cell map.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::Context;
use crate::instance::Instance;
use queens_engine::cnf::FixedMode;
use queens_engine::encode::amo::Encoding;
use queens_engine::sat;
use queens_model::error::Error;
use queens_model::report;

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
    queens_engine::check_sat_memory(
        problem,
        req.encoding,
        queens_engine::SatMemory::WithText,
        &ctx.budget,
    )?;
    let mut encoded = sat::encode_problem(problem, req.encoding, FixedMode::Simplify);
    if req.rings {
        queens_engine::ext::add_rings(problem, &mut encoded)?;
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
        queens_engine::dimacs_text_bound(encoded.stats.vars, encoded.stats.clauses, literals)
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

/// `encode`: over HTTP the DIMACS text itself, its sizes in headers.
pub struct Encode;

impl crate::operation::Operation for Encode {
    const NAME: &'static str = "encode";
    type Request = EncodeRequest;
    type Response = EncodeResponse;

    fn run(
        req: &EncodeRequest,
        ctx: &Context,
    ) -> Result<(EncodeResponse, crate::context::Artifacts), Error> {
        Ok((encode(req, ctx)?, crate::context::Artifacts::default()))
    }
}

impl crate::operation::Served for Encode {
    const PATH: &'static str = "/v1/encode";
    const SUMMARY: &'static str = "The SAT encoding as DIMACS CNF (`text/plain`; sizes in \
                                   `x-queens-vars` and\n`x-queens-clauses`).";
    const PLAIN_TEXT: Option<fn(EncodeResponse) -> crate::operation::PlainText> =
        Some(|r| crate::operation::PlainText {
            body: r.dimacs,
            headers: vec![
                ("x-queens-vars", r.vars.to_string()),
                ("x-queens-clauses", r.clauses.to_string()),
            ],
        });
}

impl crate::operation::OnInstance for Encode {
    fn instance(req: &EncodeRequest) -> &Instance {
        &req.instance
    }
    fn instance_mut(req: &mut EncodeRequest) -> &mut Instance {
        &mut req.instance
    }
    const SPARSE: crate::operation::Sparse = crate::operation::Sparse::Core;
}

impl crate::operation::Library for Encode {}
