//! `solve` on the racing engine: the backtracker here on one thread, the SAT engine in a
//! child `queens op` of this executable; the first answer wins and the other is stopped
//! ([`queens_engine::race`]). With a proof, each side certifies its own UNSAT, so the "no"
//! comes with whichever proof is ready first.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use crate::context::{ms, Artifacts, Context};
use crate::isolate;
use crate::operation::Operation;
use crate::solve::{solve_on, SolveRequest, SolveResponse};
use queens_engine::race::{race, Side};
use queens_engine::EngineName;
use queens_engine::{EngineSpec, Work};
use queens_model::error::Error;
use queens_model::status::Status;

/// Runs a validated race request under `ctx` (its timeout already applied); `Solve` is the
/// `solve` operation, whose SAT side runs in the child.
pub(super) fn solve<Solve: Operation<Request = SolveRequest, Response = SolveResponse>>(
    req: &SolveRequest,
    ctx: &Context,
) -> Result<(SolveResponse, Artifacts), Error> {
    let start = Instant::now();
    let exe = ctx.isolate.clone().ok_or_else(|| {
        Error::unsupported(
            "engine race runs its SAT side in a child process of the queens executable, and \
             this caller named none (Context::isolate)"
                .into(),
        )
    })?;
    // Each side gets the caller's deadline and memory limit, and its own stop flag: the
    // race sets it when the other side answers or the caller cancels.
    let side_ctx = |stop: Arc<AtomicBool>| {
        let mut c = ctx.clone();
        c.budget.cancel = Some(stop);
        c.budget.progress = None;
        c
    };
    let definite = |resp: &SolveResponse| matches!(resp.status, Status::Sat | Status::Unsat);
    let one_side = |engine: EngineName| SolveRequest {
        engine,
        timeout_ms: None,
        ..req.clone()
    };
    let won = race(
        |stop| {
            let side = one_side(EngineName::Backtrack);
            // Past MAX_N the backtracker searches the core and answers a column per row (in
            // a file past INLINE_MAX_N rows), as `solve --engine backtrack` does.
            let (resp, artifacts) = if req.instance.0.is_sparse() && req.proof.is_none() {
                crate::solve::solve(&side, &side_ctx(stop))?
            } else {
                solve_on(&side, EngineSpec::Backtrack { threads: 1 }, &side_ctx(stop))?
            };
            Ok(definite(&resp).then_some((resp, artifacts)))
        },
        |stop| {
            // Its proof comes back as an artifact: the caller's proof file is the
            // backtracking side's, and a losing side must not replace the winner's proof.
            let mut sat_ctx = side_ctx(stop);
            sat_ctx.proof_file = None;
            let (resp, artifacts) =
                isolate::run::<Solve>(&exe, &one_side(EngineName::Sat), &sat_ctx)?;
            Ok(definite(&resp).then_some((resp, artifacts)))
        },
        ctx.budget.cancel.as_deref(),
        ctx.budget.deadline,
    )?;
    let plan = crate::solve::plan(req)?;
    let problem = &req.instance.0;
    let Some((side, (mut resp, artifacts))) = won else {
        let resp = SolveResponse {
            time_ms: ms(start),
            why: Some(plan.reason(problem, &Work::default())),
            ..SolveResponse::nothing(
                Status::interrupted(&ctx.budget),
                req.instance.0.n(),
                EngineName::Race,
            )
        };
        return Ok((resp, Artifacts::default()));
    };
    resp.engine = EngineName::Race;
    let by = match side {
        Side::First => EngineSpec::Backtrack { threads: 1 },
        Side::Second => EngineSpec::Sat(req.encoding),
    };
    resp.answered_by = Some(EngineName::of(by));
    let work = Work {
        answered_by: Some(by),
        ..Work::default()
    };
    resp.why = Some(plan.reason(problem, &work));
    resp.time_ms = ms(start);
    Ok((resp, artifacts))
}
