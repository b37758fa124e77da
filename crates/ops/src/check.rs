//! `check`: which rules a placement breaks, and whether it can still be completed.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::{ms, Artifacts, Context};
use crate::instance::Instance;
use queens_engine::backtrack;
use queens_engine::{Answer, EngineSpec};
use queens_model::error::Error;
use queens_model::model::Pos;
use queens_model::status::Status;
use queens_model::verify::{conflicts_up_to, Violation};

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
    /// Also list the empty cells the queens rule out (`attacked`): hints for a player.
    #[serde(default)]
    pub hints: bool,
    /// Also count the board's completions, up to this many (`completions`), at most
    /// 1,000,000 (`MAX_COMPLETIONS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<u64>,
}

impl CheckRequest {
    /// Checks the options before any work.
    pub fn validate(&self) -> Result<(), Error> {
        match self.completions {
            Some(k) if k == 0 || k > MAX_COMPLETIONS => Err(Error::unsupported_at_field(
                "completions",
                format!("must be from 1 to {MAX_COMPLETIONS}"),
            )),
            _ => Ok(()),
        }
    }
}

/// Most completions one `check` counts (a count is work in proportion to it).
pub const MAX_COMPLETIONS: u64 = 1_000_000;

/// Completions of a partial board, counted up to a limit.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Completions {
    /// Completions found (the limit when `limited`).
    pub count: u64,
    /// True when the count stopped at the limit: there are at least `count`.
    pub limited: bool,
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct CheckViolation {
    /// The rule and the cells: `rule`, and `a` and `b` (two queens that attack each other)
    /// or `cell` and `region`.
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
    /// The conflicts, at most 1,000 of them (`MAX_VIOLATIONS`; in row, column, region,
    /// diagonal order).
    pub violations: Vec<CheckViolation>,
    /// How many conflicts there are in all (more than listed when over the cap).
    pub violations_total: u64,
    /// With `hints`: the empty, open cells some queen rules out (same row, column, region,
    /// or diagonal as the rule defines it), `[row, col]` in row order.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Vec<usize>>>)]
    pub attacked: Option<Vec<Pos>>,
    /// With `completions`: how many ways the board can still be completed (null when
    /// invalid, or when the count ran out of time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completions: Option<Completions>,
    /// Wall time, milliseconds.
    pub time_ms: f64,
}

/// Checks the placement: names every conflict; for a consistent partial board, says
/// whether it can still be completed (the completion found is verified first).
pub fn check(req: &CheckRequest, ctx: &Context) -> Result<CheckResponse, Error> {
    req.validate()?;
    let start = Instant::now();
    let ctx = &ctx.with_timeout_ms(req.timeout_ms);
    let base = &req.instance.0;
    if base.is_sparse() && (req.hints || req.completions.is_some()) {
        return Err(Error::too_large_at_field(
            if req.hints { "hints" } else { "completions" },
            format!(
                "a {n}×{n} board is past {}, where hints and completion counts are not \
                 offered; check a full board with --board (column per row)",
                queens_model::model::MAX_N,
                n = base.n()
            ),
        ));
    }
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
    // The board with the queens as fixed queens, for the searches below (built once).
    let placed = match status {
        Status::Consistent => Some(base.replace_fixed(&queens)?),
        Status::Solved if req.completions.is_some() => Some(base.replace_fixed(&queens)?),
        _ => None,
    };
    let completable = match (status, &placed) {
        // A board past the complete engines: whether it completes is `solve`'s question.
        (Status::Consistent, Some(_)) if base.is_sparse() => None,
        (Status::Consistent, Some(problem)) => {
            // `auto`'s choice (queens_engine::plan::choose), complete on every board up to
            // MAX_N: the portfolio's core decides where local search gives up.
            let solved = queens_engine::solve(problem, EngineSpec::Auto { seed: 1 }, &ctx.budget)?;
            match solved.answer {
                Answer::Sat(_) => Some(true),
                Answer::Unsat(()) => Some(false),
                Answer::GaveUp | Answer::Interrupted => None,
            }
        }
        (Status::Solved, _) => Some(true),
        _ => None,
    };
    let attacked = req.hints.then(|| {
        let n = base.n();
        (0..n * n)
            .map(|i| (i / n, i % n))
            .filter(|&cell| {
                base.is_open(cell)
                    && !queens.contains(&cell)
                    && queens.iter().any(|&q| base.attacks(q, cell))
            })
            .collect()
    });
    let completions = match (req.completions, &placed, completable) {
        (Some(limit), Some(problem), Some(true)) => {
            let config = queens_engine::backtrack::Config::within(&ctx.budget, 0);
            let count = backtrack::count(problem, &config, Some(limit));
            (!count.stats.interrupted).then_some(Completions {
                count: count.total,
                limited: count.limited,
            })
        }
        (Some(_), Some(_), Some(false)) => Some(Completions {
            count: 0,
            limited: false,
        }),
        _ => None,
    };
    Ok(CheckResponse {
        attacked,
        completions,
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

/// Checks a full board given as one column per row (`cols[r]` is row r's column) against the
/// problem in time linear in n and the presets
/// ([`queens_model::verify::columns_conflicts_up_to`]): `solved`, or `invalid` with every broken
/// rule, at most 1,000 of them (`MAX_VIOLATIONS`) listed and all counted. What
/// `check FILE --board SOLUTION` answers.
pub fn check_columns(problem: &queens_model::model::Problem, cols: &[u32]) -> CheckResponse {
    let start = Instant::now();
    let (found, violations_total) =
        queens_model::verify::columns_conflicts_up_to(problem, cols, MAX_VIOLATIONS);
    let violations: Vec<CheckViolation> = found
        .into_iter()
        .map(|v| CheckViolation {
            message: v.to_string(),
            violation: v,
        })
        .collect();
    CheckResponse {
        status: if violations.is_empty() {
            Status::Solved
        } else {
            Status::Invalid
        },
        placed: cols.len(),
        completable: violations.is_empty().then_some(true),
        n: problem.n(),
        violations_total,
        violations,
        attacked: None,
        completions: None,
        time_ms: ms(start),
    }
}

/// `check`.
pub struct Check;

impl crate::operation::Operation for Check {
    const NAME: &'static str = "check";
    type Request = CheckRequest;
    type Response = CheckResponse;

    fn run(req: &CheckRequest, ctx: &Context) -> Result<(CheckResponse, Artifacts), Error> {
        Ok((check(req, ctx)?, Artifacts::default()))
    }
    fn validate(req: &CheckRequest) -> Result<(), Error> {
        req.validate()
    }
}

impl crate::operation::Served for Check {
    const PATH: &'static str = "/v1/check";
    const SUMMARY: &'static str =
        "Check a placement: every conflict named; whether a partial board can still be completed.";
}

impl crate::operation::OnInstance for Check {
    fn instance(req: &CheckRequest) -> &Instance {
        &req.instance
    }
    fn instance_mut(req: &mut CheckRequest) -> &mut Instance {
        &mut req.instance
    }
    const SPARSE: crate::operation::Sparse = crate::operation::Sparse::Taken;
}

impl crate::operation::Budgeted for Check {
    /// A consistent board whose completion search ran out of time is no answer within the
    /// limits (`timeout`); any other answer is its own status.
    fn status(resp: &CheckResponse) -> Status {
        match resp.status == Status::Consistent && resp.completable.is_none() {
            true => Status::Timeout,
            false => resp.status,
        }
    }
}

impl crate::operation::Library for Check {}
