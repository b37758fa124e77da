//! `hint`: the next logical step for a puzzle position (the instance's queens and marks),
//! by the simplest technique that finds one ([`queens_engine::puzzle::deduce`]).

use std::time::Instant;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::{ms, Context};
use crate::instance::Instance;
use crate::limits::check_size;
use queens_engine::puzzle::deduce::{next_step, Technique};
use queens_engine::puzzle::{Line, Position};
use queens_engine::{Answer, EngineSpec};
use queens_model::error::Error;
use queens_model::model::Pos;
use queens_model::status::Status;

/// `hint`: the position is the instance: its `queens` are the player's queens, its `marks`
/// the cells the player marked "no queen".
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HintRequest {
    /// The position: a puzzle with `queens` and `marks`.
    #[schema(value_type = Object)]
    pub instance: Instance,
}

/// `hint`'s answer. `status`: `sat` (a step in `technique`, `place`, `eliminate`, `lines`,
/// `reason`), `solved` (every queen is placed), `unsat` (the queens and marks leave no
/// solution: `reason` says so) or `unknown` (no technique finds a step: the position is
/// beyond them, or has more than one solution).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HintResponse {
    /// `sat`, `solved`, `unsat` or `unknown`.
    pub status: Status,
    /// Board size.
    pub n: usize,
    /// The technique: `attacked`, `last-cell`, `confined`, `subsets`, `would-empty` or
    /// `contradiction` (simplest first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub technique: Option<String>,
    /// Cells that must hold a queen.
    #[schema(value_type = Vec<Vec<usize>>)]
    pub place: Vec<Pos>,
    /// Cells that cannot hold one.
    #[schema(value_type = Vec<Vec<usize>>)]
    pub eliminate: Vec<Pos>,
    /// The lines the reasoning is about: `row 3`, `column 5`, `region C`.
    pub lines: Vec<String>,
    /// One sentence for the player.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Wall time, milliseconds.
    pub time_ms: f64,
}

impl HintResponse {
    /// An answer without a step: `status`, no cells, no reason.
    pub fn nothing(status: Status, n: usize) -> HintResponse {
        HintResponse {
            status,
            n,
            technique: None,
            place: vec![],
            eliminate: vec![],
            lines: vec![],
            reason: None,
            time_ms: 0.0,
        }
    }
}

/// The next step for the position, or why there is none.
pub fn hint(req: &HintRequest, ctx: &Context) -> Result<HintResponse, Error> {
    let start = Instant::now();
    let problem = &req.instance.0;
    check_size(problem.n())?;
    let pos = Position::new(problem, problem.marks());
    let mut resp = HintResponse::nothing(Status::Unknown, problem.n());
    let named = |lines: &[Line]| lines.iter().map(|&l| pos.name(l)).collect::<Vec<_>>();
    if pos.solved() && queens_model::verify::verify(problem, &pos.queens()).is_ok() {
        resp.status = Status::Solved;
        resp.time_ms = ms(start);
        return Ok(resp);
    }
    // A wrong queen or mark first: deductions from a position that has no solution would
    // lead the player further astray. (A search: milliseconds on puzzle-sized boards.)
    let marked = problem.clone().with_blocked(problem.marks())?;
    let spec = EngineSpec::Backtrack { threads: 0 };
    match queens_engine::solve(&marked, spec, &ctx.budget)?.answer {
        Answer::Unsat(()) => {
            resp.status = Status::Unsat;
            resp.reason = Some(
                match queens_model::verify::first_conflict(problem, problem.fixed()) {
                    Some(v) => format!("{v}: undo a queen"),
                    None => {
                        "these queens and marks leave no solution: undo a queen or a mark".into()
                    }
                },
            );
        }
        Answer::GaveUp | Answer::Interrupted => resp.status = Status::interrupted(&ctx.budget),
        Answer::Sat(_) => match next_step(&pos, Technique::Contradiction) {
            Some(step) => {
                resp.status = Status::Sat;
                resp.technique = Some(step.technique.name().to_string());
                resp.lines = named(&step.lines);
                resp.place = step.place;
                resp.eliminate = step.eliminate;
                resp.reason = Some(step.reason);
            }
            None => {
                resp.reason = Some(
                    "no technique finds a next step here (the puzzle may have more than one \
                     solution)"
                        .into(),
                );
            }
        },
    }
    resp.time_ms = ms(start);
    Ok(resp)
}

/// `hint`. Deduction looks at no deadline: under one it runs in a child.
pub struct Hint;

impl crate::operation::Operation for Hint {
    const NAME: &'static str = "hint";
    type Request = HintRequest;
    type Response = HintResponse;

    fn run(
        req: &HintRequest,
        ctx: &Context,
    ) -> Result<(HintResponse, crate::context::Artifacts), Error> {
        Ok((hint(req, ctx)?, crate::context::Artifacts::default()))
    }
}

impl crate::operation::Served for Hint {
    const PATH: &'static str = "/v1/hint";
    const SUMMARY: &'static str = "The next logical step for a region puzzle position \
                                   (`queens` and `marks` in the instance).";
}

impl crate::operation::OnInstance for Hint {
    fn instance(req: &HintRequest) -> &Instance {
        &req.instance
    }
    fn instance_mut(req: &mut HintRequest) -> &mut Instance {
        &mut req.instance
    }
}

impl crate::operation::Budgeted for Hint {
    fn status(resp: &HintResponse) -> Status {
        resp.status
    }
    fn stopped(req: &HintRequest, status: Status, time_ms: f64) -> Option<HintResponse> {
        Some(HintResponse {
            time_ms,
            ..HintResponse::nothing(status, req.instance.0.n())
        })
    }
}

impl crate::operation::Isolated for Hint {
    fn uninterruptible(_req: &HintRequest) -> bool {
        true
    }
    fn reply(stdout: &str) -> Result<HintResponse, Error> {
        crate::operation::reply(stdout)
    }
}

impl crate::operation::Library for Hint {}
