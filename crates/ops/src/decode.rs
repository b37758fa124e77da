//! `decode`: an external solver's model read back onto the board, verified.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::Context;
use crate::instance::Instance;
use queens_engine::cnf::{self, FixedMode};
use queens_engine::encode::amo::Encoding;
use queens_engine::encode::Counter;
use queens_model::error::Error;
use queens_model::formats::dimacs::{self, ModelAnswer};
use queens_model::model::{Pos, Problem};

use crate::encode::{cnf_vars, instance_json, sha256_hex};
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
    /// The at-most-one encoding the CNF was made with (as `encode`'s): it fixes the CNF's
    /// variables, and a model with more, or with exactly as many as another encoding's CNF
    /// has, is refused naming the encoding it answers. Without it (and without `vars`) the
    /// encoding is found from the model's variable count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub encoding: Option<Encoding>,
    /// The CNF has the ring bounds (`encode`'s `rings`), and their variables.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rings: bool,
    /// The CNF's variable count, from its `p cnf` line (or its `c queens-cnf` line), when
    /// the CNF itself is at hand; it takes the place of `encoding` and `rings`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0)]
    pub vars: Option<usize>,
    /// The instance's SHA-256 that the CNF's `c queens-cnf` line names: the model of a CNF
    /// made from another instance is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_sha256: Option<String>,
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

/// Refuses an instance whose hash is not the one a CNF's header names, saying so.
pub fn check_instance(problem: &Problem, sha256: &str, origin: &str) -> Result<(), Error> {
    let have = sha256_hex(&instance_json(problem));
    if have.eq_ignore_ascii_case(sha256.trim()) {
        return Ok(());
    }
    Err(Error::input(
        origin,
        format!(
            "the CNF was made from another instance: its header names sha256 {}…, this \
             instance's is {}…",
            &sha256.trim()[..sha256.trim().len().min(12)],
            &have[..12]
        ),
    ))
}

/// The CNFs `encode` can write for the instance, by encoding (and ring bounds), with their
/// variable counts, made one by one as they are asked for.
struct Candidates<'a> {
    problem: &'a Problem,
    rings_apply: bool,
    made: Vec<(Encoding, bool, usize)>,
}

impl<'a> Candidates<'a> {
    fn new(problem: &'a Problem) -> Candidates<'a> {
        Candidates {
            problem,
            rings_apply: queens_engine::cnf::rings::check_applies(problem).is_ok(),
            made: Vec::new(),
        }
    }

    /// Every (encoding, rings) in the order they are tried: `auto` first, as it is
    /// `encode`'s default, then the concrete ones, then the same with the ring bounds.
    fn order(&self) -> Vec<(Encoding, bool)> {
        let encodings = std::iter::once(Encoding::Auto).chain(Encoding::ALL);
        let plain = encodings.clone().map(|e| (e, false));
        let rings = encodings.map(|e| (e, true)).filter(|_| self.rings_apply);
        plain.chain(rings).collect()
    }

    /// The CNFs with `vars` variables, other than `but`, making counts as needed.
    fn with_vars(&mut self, vars: usize, but: Option<(Encoding, bool)>) -> Vec<(Encoding, bool)> {
        let mut found = Vec::new();
        for (e, r) in self.order() {
            if Some((e, r)) != but && self.count(e, r) == Some(vars) {
                found.push((e, r));
            }
        }
        found
    }

    /// Is there a CNF with `vars` variables? Stops at the first (`auto`'s is counted first).
    fn any_with(&mut self, vars: usize) -> bool {
        self.order()
            .into_iter()
            .any(|(e, r)| self.count(e, r) == Some(vars))
    }

    fn count(&mut self, e: Encoding, r: bool) -> Option<usize> {
        if let Some(&(_, _, v)) = self.made.iter().find(|(me, mr, _)| (*me, *mr) == (e, r)) {
            return Some(v);
        }
        let v = cnf_vars(self.problem, e, r)?;
        self.made.push((e, r, v));
        Some(v)
    }

    /// Every count, as `auto 22, pairwise 22, seq 40, …`.
    fn all(&mut self) -> String {
        let mut out = Vec::new();
        for (e, r) in self.order() {
            if let Some(v) = self.count(e, r) {
                out.push(format!("{}{} {v}", e, if r { "+rings" } else { "" }));
            }
        }
        out.join(", ")
    }
}

/// `seq` or `seq with ring bounds`.
fn named(e: Encoding, rings: bool) -> String {
    format!("{e}{}", if rings { " with ring bounds" } else { "" })
}

/// The highest variable a model names (0 for none), and the line and literal where it
/// first passes `bound`. The model's syntax was checked before.
fn model_vars(text: &str, bound: usize) -> (usize, Option<(usize, i64)>) {
    let mut max = 0u64;
    let mut first_over = None;
    for (i, raw) in queens_model::formats::strip_bom(text).lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('c') || line.starts_with("s ") {
            continue;
        }
        if line.starts_with(|c: char| c.is_ascii_uppercase()) {
            continue;
        }
        for lit in line
            .strip_prefix('v')
            .unwrap_or(line)
            .split_whitespace()
            .filter_map(|t| t.parse::<i64>().ok())
        {
            let var = lit.unsigned_abs();
            if var > bound as u64 && first_over.is_none() {
                first_over = Some((i + 1, lit));
            }
            max = max.max(var);
        }
    }
    (usize::try_from(max).unwrap_or(usize::MAX), first_over)
}

/// Reads the model, maps cell variables back to the board and verifies it. A model that
/// does not decode to a valid board is bad input, naming the rule it breaks; a model of
/// another encoding's CNF, or of another instance's, is refused saying which.
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
    if let Some(sha) = &req.instance_sha256 {
        check_instance(problem, sha, "instance")?;
    }
    if req.rings {
        queens_engine::cnf::rings::check_applies(problem)?;
    }
    // The syntax first, with no bound: errors of form come before those of size.
    let answer = dimacs::parse_model(origin, &req.model)?;
    // Cell variables do not depend on the encoding, only on the simplification, so only the
    // cell map and the variable counts are needed: encoded into counting sinks (nothing
    // stored) rather than a formula that may have millions of clauses.
    let mut counter = Counter::default();
    let map = cnf::encode(problem, Encoding::Auto, FixedMode::Simplify, &mut counter);
    let mut candidates = Candidates::new(problem);
    // The CNF the model must answer: given by its count, by its encoding, or found.
    let given = match (req.vars, req.encoding) {
        (Some(vars), _) => Some((vars, "the CNF".to_string(), None)),
        (None, Some(e)) => {
            let vars = candidates
                .count(e, req.rings)
                .ok_or_else(|| Error::internal("ring bounds counted where they do not apply"))?;
            let what = format!("the {} encoding's CNF", named(e, req.rings));
            Some((vars, what, Some((e, req.rings))))
        }
        (None, None) => None,
    };
    if ctx.budget.exhausted() {
        return Ok(out_of_time());
    }
    let bound = given.as_ref().map_or(usize::MAX, |g| g.0);
    let (model_vars, over) = model_vars(&req.model, bound);
    if matches!(answer, ModelAnswer::Sat(_)) {
        match given {
            Some((vars, what, which)) if model_vars != vars => {
                let answers = candidates.with_vars(model_vars, which);
                let whose = if answers.is_empty() {
                    String::new()
                } else {
                    let names: Vec<String> = answers.iter().map(|&(e, r)| named(e, r)).collect();
                    format!(
                        ", as the CNF of the {} encoding of this instance has: a model of \
                         another encoding",
                        match names.split_last() {
                            Some((last, [])) => last.clone(),
                            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                            None => String::new(),
                        }
                    )
                };
                if let Some((line, lit)) = over {
                    let tail = if whose.is_empty() {
                        format!(
                            ", as no CNF of this instance has ({}): a model of another instance",
                            candidates.all()
                        )
                    } else {
                        whose
                    };
                    return Err(Error::input_at_line(
                        origin,
                        line,
                        format!(
                            "literal {lit} is out of range: {what} has {vars} variables; the \
                             model has {model_vars}{tail}"
                        ),
                    ));
                }
                if !answers.is_empty() {
                    return Err(Error::input(
                        origin,
                        format!("the model has {model_vars} variables{whose}; {what} has {vars}"),
                    ));
                }
                // Fewer variables than the CNF's, as no other encoding has: a model that
                // leaves the last variables out, read as it is (the board is verified).
            }
            Some(_) => {}
            None => {
                if !candidates.any_with(model_vars) {
                    let all = candidates.all();
                    let most = candidates.made.iter().map(|c| c.2).max().unwrap_or(0);
                    if model_vars > most {
                        let (line, lit) = model_vars_over(&req.model, most);
                        return Err(Error::input_at_line(
                            origin,
                            line,
                            format!(
                                "literal {lit} is out of range: no CNF of this instance has \
                                 more than {most} variables ({all}); the model has \
                                 {model_vars}: a model of another instance"
                            ),
                        ));
                    }
                }
            }
        }
    }
    if ctx.budget.exhausted() {
        return Ok(out_of_time());
    }
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

/// The line and literal where a model first names a variable past `bound`.
fn model_vars_over(text: &str, bound: usize) -> (usize, i64) {
    model_vars(text, bound).1.unwrap_or((1, 0))
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
