//! `solve` on the racing engine: the sides the plan names ([`Route::Race`]: the backtracker
//! here on one thread, the SAT engine in a child `queens op` of this executable), raced by
//! [`queens_engine::race`], where the first answer wins and the other is stopped. This layer
//! supplies what the engine crate cannot: the child process and each side's context. With a proof, each side certifies its own UNSAT, so the "no"
//! comes with whichever proof is ready first.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use crate::context::{ms, Artifacts, Context};
use crate::isolate;
use crate::operation::Declared;
use crate::solve::{SolveRequest, SolveResponse};
use queens_engine::plan::Route;
use queens_engine::race::{race, Side};
use queens_engine::EngineName;
use queens_engine::{EngineSpec, Work};
use queens_model::error::Error;
use queens_model::status::Status;

/// Runs a validated race request under `ctx` (its timeout already applied); `Solve` is the
/// `solve` operation, whose SAT side runs in the child.
pub(super) fn run<Solve: Declared<Request = SolveRequest, Response = SolveResponse>>(
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
    // What runs on which side is the plan's; this layer runs the child process.
    let plan = crate::solve::plan(req)?;
    let Route::Race { here, child } = plan.route else {
        return Err(Error::internal("a race request planned as no race"));
    };
    let won = race(
        |stop| {
            // Past MAX_N the backtracker searches the core and answers a column per row (in
            // a file past INLINE_MAX_N rows), as `solve --engine backtrack` does.
            let (resp, artifacts) =
                crate::solve::solve_planned(&one_side(req, here), &side_ctx(stop))?;
            Ok(definite(&resp).then_some((resp, artifacts)))
        },
        |stop| {
            // Its proof comes back as an artifact: the caller's proof file is the
            // backtracking side's, and a losing side must not replace the winner's proof.
            let mut child_ctx = side_ctx(stop);
            child_ctx.proof_file = None;
            let (resp, artifacts) = isolate::run::<Solve>(&exe, &one_side(req, child), &child_ctx)?;
            Ok(definite(&resp).then_some((resp, artifacts)))
        },
        ctx.budget.cancel.as_deref(),
        ctx.budget.deadline,
    )?;
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
        Side::First => here,
        Side::Second => child,
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

/// The request of one side of the race: `spec`'s engine (its threads, its encoding) on the
/// race's question, without a timeout of its own (the race's deadline stops it).
fn one_side(req: &SolveRequest, spec: EngineSpec) -> SolveRequest {
    let (threads, encoding) = match spec {
        EngineSpec::Backtrack { threads } => ((threads > 0).then_some(threads), req.encoding),
        EngineSpec::Sat(encoding) => (req.threads, encoding),
        _ => (req.threads, req.encoding),
    };
    SolveRequest {
        engine: EngineName::of(spec),
        threads,
        encoding,
        timeout_ms: None,
        ..req.clone()
    }
}
