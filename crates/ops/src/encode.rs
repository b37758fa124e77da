//! `encode`: the problem as DIMACS CNF with its cell map.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::context::Context;
use crate::instance::Instance;
use queens_engine::cnf::FixedMode;
use queens_engine::encode::amo::Encoding;
use queens_engine::sat;
use queens_model::error::Error;
use queens_model::model::Problem;
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

/// What `encode` writes in the CNF's header comments for `decode`: the instance's hash, the
/// encoding, the variable count, and where the cell variables end. `decode MODEL --cnf FILE`
/// reads it back ([`CnfHeader::read`]) with the instance itself, written on a
/// `c queens-instance` line as its JSON. Variables past the cells are the encoding's
/// auxiliary variables (and the ring bounds' counters after them): they decode to nothing,
/// but their count tells one encoding's model from another's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CnfHeader {
    /// The at-most-one encoding, as asked (`auto` included).
    pub encoding: Encoding,
    /// The ring bounds were added.
    pub rings: bool,
    /// Variables of the CNF, auxiliary ones included (its `p cnf` count).
    pub vars: usize,
    /// Cell variables: 1 to `cells`.
    pub cells: usize,
    /// SHA-256 (hex) of the instance's JSON on the `c queens-instance` line.
    pub instance_sha256: String,
}

/// The comment line that starts what [`CnfHeader::read`] reads.
const HEADER_TAG: &str = "queens-cnf";
/// The comment line that holds the instance's JSON.
const INSTANCE_TAG: &str = "queens-instance";

impl CnfHeader {
    /// The header's comment lines (without the `c `): a summary for people, then the
    /// machine-read `queens-cnf` and `queens-instance` lines.
    pub fn lines(&self, problem: &Problem, json: &str) -> Vec<String> {
        let aux = if self.vars > self.cells {
            format!(
                ", {}..={} auxiliary (the encoding's{})",
                self.cells + 1,
                self.vars,
                if self.rings {
                    " and the ring bounds'"
                } else {
                    ""
                }
            )
        } else {
            String::new()
        };
        vec![
            format!("queens CNF: {}", report::summary(problem)),
            format!(
                "encoding {}{}; fixed queens simplified away; variables 1..={} are cells{aux}",
                self.encoding,
                if self.rings { " with ring bounds" } else { "" },
                self.cells,
            ),
            "decode a model with: queens decode MODEL --cnf CNF (CNF: this file), or queens \
             decode INSTANCE MODEL"
                .to_string(),
            format!(
                "{HEADER_TAG} encoding={} rings={} vars={} cells={} sha256={}",
                self.encoding,
                if self.rings { "yes" } else { "no" },
                self.vars,
                self.cells,
                self.instance_sha256
            ),
            format!("{INSTANCE_TAG} {json}"),
        ]
    }

    /// The header of a CNF `encode` wrote, and its instance's JSON; `None` for a CNF without
    /// one (written by something else). Only the comments before the `p cnf` line are read.
    /// A header that is there but broken is an error naming the line.
    pub fn read(origin: &str, text: &str) -> Result<Option<(CnfHeader, String)>, Error> {
        let mut header = None;
        let mut instance = None;
        for (i, raw) in queens_model::formats::strip_bom(text).lines().enumerate() {
            let line = raw.trim();
            if line.starts_with('p') {
                break;
            }
            let Some(comment) = line.strip_prefix('c') else {
                continue;
            };
            let comment = comment.trim_start();
            let bad = |m: String| Error::input_at_line(origin, i + 1, m);
            if let Some(rest) = comment
                .strip_prefix(HEADER_TAG)
                .filter(|r| r.starts_with(' '))
            {
                header = Some(parse_header(rest).map_err(bad)?);
            } else if let Some(rest) = comment
                .strip_prefix(INSTANCE_TAG)
                .filter(|r| r.starts_with(' '))
            {
                instance = Some(rest.trim().to_string());
            }
        }
        match (header, instance) {
            (Some(h), Some(json)) => {
                if sha256_hex(&json) != h.instance_sha256 {
                    return Err(Error::input(
                        origin,
                        format!(
                            "the `c {INSTANCE_TAG}` line does not match the sha256 of the \
                             `c {HEADER_TAG}` line: the header was edited"
                        ),
                    ));
                }
                Ok(Some((h, json)))
            }
            (Some(_), None) => Err(Error::input(
                origin,
                format!("a `c {HEADER_TAG}` line without its `c {INSTANCE_TAG}` line"),
            )),
            (None, _) => Ok(None),
        }
    }
}

/// The fields of a `queens-cnf` line (`encoding=E rings=yes|no vars=V cells=C sha256=H`).
fn parse_header(rest: &str) -> Result<CnfHeader, String> {
    let mut fields = std::collections::HashMap::new();
    for word in rest.split_whitespace() {
        let (k, v) = word
            .split_once('=')
            .ok_or_else(|| format!("{word:?} is not KEY=VALUE in the `c {HEADER_TAG}` line"))?;
        fields.insert(k, v);
    }
    let get = |k: &str| {
        fields
            .get(k)
            .copied()
            .ok_or_else(|| format!("the `c {HEADER_TAG}` line has no `{k}=`"))
    };
    let count = |k: &str| -> Result<usize, String> {
        let v = get(k)?;
        v.parse()
            .map_err(|_| format!("`{k}={v}` in the `c {HEADER_TAG}` line is not a count"))
    };
    let encoding = get("encoding")?.parse().map_err(|e| format!("{e}"))?;
    let rings = match get("rings")? {
        "yes" => true,
        "no" => false,
        v => return Err(format!("`rings={v}`: expected yes or no")),
    };
    let sha = get("sha256")?;
    if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("`sha256={sha}` is not a SHA-256 in hex"));
    }
    Ok(CnfHeader {
        encoding,
        rings,
        vars: count("vars")?,
        cells: count("cells")?,
        instance_sha256: sha.to_ascii_lowercase(),
    })
}

/// The instance as one line of JSON (the JSON instance format, compact): what the CNF's
/// header holds and its hash is taken of.
pub fn instance_json(problem: &Problem) -> String {
    let text = queens_model::formats::write_json(problem, "instance");
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) => v.to_string(),
        // write_json always writes JSON; were it not to, its own text still identifies it.
        Err(_) => text.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

/// SHA-256 of `text`, in lower-case hex.
pub fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The variables of the CNF `encode` writes for `problem` with `encoding` (and the ring
/// bounds): counted into a sink that keeps nothing, so no formula is built. `None` with
/// `rings` where the ring bounds do not apply.
pub fn cnf_vars(problem: &Problem, encoding: Encoding, rings: bool) -> Option<usize> {
    let mut counter = queens_engine::encode::Counter::default();
    let map = queens_engine::cnf::encode(problem, encoding, FixedMode::Simplify, &mut counter);
    if rings {
        queens_engine::cnf::rings::check_applies(problem).ok()?;
        queens_engine::cnf::rings::add_rings(problem, &map, &mut counter);
    }
    Some(counter.vars)
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
    let json = instance_json(problem);
    let header = CnfHeader {
        encoding: req.encoding,
        rings: req.rings,
        vars: encoded.stats.vars,
        cells: encoded.map.cells().len(),
        instance_sha256: sha256_hex(&json),
    }
    .lines(problem, &json);
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
