//! `check` (which rules a placement breaks, and whether it can still be completed) and
//! `explain` (a minimal set of presets that has no completion).

use std::time::Instant;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{ms, Context, Instance, Status};
use crate::encode::amo::Encoding;
use crate::engine::{self, Answer, EngineSpec};
use crate::error::Error;
use crate::model::Pos;
use crate::sat::{self, Explanation};
use crate::verify::{conflicts_up_to, Violation};

/// Most conflicts a `check` lists: a placement with m queens in one line has m(m − 1)/2
/// pairs, which must not make a small request a huge answer.
pub const MAX_VIOLATIONS: usize = 1000;

/// `check`: the instance's fixed queens, plus `queens` if given, against the rules.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {
    /// The instance (a puzzle; its fixed queens are part of the checked board).
    #[schema(value_type = Object)]
    pub instance: Instance,
    /// More queens to check, `[row, col]`: a player's placement on the puzzle.
    #[serde(default)]
    #[schema(value_type = Vec<Vec<usize>>)]
    pub queens: Vec<Pos>,
    /// Give up the completability search after this many milliseconds
    /// (`completable: null`).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct CheckViolation {
    /// The rule and the cells, as [`Violation`] serializes (`rule`, `a`, `b`, or `cell`,
    /// `region`).
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub violation: Violation,
    /// The same in words.
    pub message: String,
}

/// `check`'s answer. `status`: `solved`, `consistent` or `invalid`.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct CheckResponse {
    /// `solved` (n queens, no conflict), `consistent` (fewer, no conflict) or `invalid`.
    pub status: Status,
    /// Queens on the board.
    pub placed: usize,
    /// Whether the board can still be completed (null when invalid, or when the search
    /// ran out of time).
    pub completable: Option<bool>,
    /// Board size.
    pub n: usize,
    /// The conflicts, at most [`MAX_VIOLATIONS`] of them (in row, column, region, diagonal
    /// order).
    pub violations: Vec<CheckViolation>,
    /// How many conflicts there are in all (more than listed when over the cap).
    pub violations_total: u64,
    /// Wall time, milliseconds.
    pub time_ms: f64,
}

/// Checks the placement: names every conflict; for a consistent partial board, says
/// whether it can still be completed (the completion found is verified first).
pub fn check(req: &CheckRequest, ctx: &Context) -> Result<CheckResponse, Error> {
    let start = Instant::now();
    let ctx = &ctx.with_timeout_ms(req.timeout_ms);
    let base = &req.instance.0;
    // The board as placed: a queen given twice or off the board is a violation to name, so
    // the list is checked as it is, not merged into the problem first.
    let mut queens = base.fixed().to_vec();
    queens.extend_from_slice(&req.queens);
    let (violations, violations_total) = conflicts_up_to(base, &queens, MAX_VIOLATIONS);
    let status = if !violations.is_empty() {
        Status::Invalid
    } else if queens.len() == base.n() {
        Status::Solved
    } else {
        Status::Consistent
    };
    let completable = match status {
        Status::Consistent => {
            let problem = base.replace_fixed(&queens)?;
            let solved =
                engine::solve(&problem, EngineSpec::Backtrack { threads: 0 }, &ctx.budget)?;
            match solved.answer {
                Answer::Sat(_) => Some(true),
                Answer::Unsat => Some(false),
                Answer::Interrupted => None,
            }
        }
        Status::Solved => Some(true),
        _ => None,
    };
    Ok(CheckResponse {
        status,
        placed: queens.len(),
        completable,
        n: base.n(),
        violations_total,
        violations: violations
            .into_iter()
            .map(|v| CheckViolation {
                message: v.to_string(),
                violation: v,
            })
            .collect(),
        time_ms: ms(start),
    })
}

/// `explain`: why the presets have no completion.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExplainRequest {
    /// The instance.
    #[schema(value_type = Object)]
    pub instance: Instance,
    /// At-most-one encoding for the SAT engine.
    #[serde(default)]
    pub encoding: Encoding,
    /// Give up after this many milliseconds (`status: "timeout"`).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// `explain`'s answer. `status`: `sat` (solvable: a verified solution in `queens`),
/// `unsat` (a minimal core), `timeout` or `cancelled`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ExplainResponse {
    /// `sat`, `unsat`, `timeout` or `cancelled`.
    pub status: Status,
    /// Board size.
    pub n: usize,
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
    /// With `unsat`: a direct reason when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// SAT solver calls made.
    pub solver_calls: u64,
    /// Wall time, milliseconds.
    pub time_ms: f64,
}

/// Explains an unsolvable completion with a minimal core of presets, or shows a solution.
pub fn explain(req: &ExplainRequest, ctx: &Context) -> Result<ExplainResponse, Error> {
    let start = Instant::now();
    let ctx = &ctx.with_timeout_ms(req.timeout_ms);
    let problem = &req.instance.0;
    let mut resp = ExplainResponse {
        status: Status::interrupted(&ctx.budget),
        n: problem.n(),
        queens: None,
        core: None,
        blocked_core: None,
        reason: None,
        solver_calls: 0,
        time_ms: 0.0,
    };
    if !ctx.budget.exhausted() {
        engine::check_sat_memory(problem, req.encoding, &ctx.budget)?;
        let (exp, stats) = sat::explain(problem, req.encoding)?;
        resp.solver_calls = stats.solver_calls;
        match exp {
            Explanation::Solvable(q) => {
                engine::checked(problem, &q, "sat")?;
                resp.status = Status::Sat;
                resp.queens = Some(q);
            }
            Explanation::Unsolvable {
                core,
                blocked_core,
                reason,
            } => {
                resp.status = Status::Unsat;
                resp.core = Some(core);
                resp.blocked_core = Some(blocked_core);
                resp.reason = reason;
            }
        }
    }
    resp.time_ms = ms(start);
    Ok(resp)
}
