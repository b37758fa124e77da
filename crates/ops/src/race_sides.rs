//! `solve` on the racing engine: the plan's side-by-side step (the backtracker here on one
//! thread, the SAT engine in a child process), run by [`queens_engine::side_by_side::first_answer`],
//! where the first answer wins and the other is stopped. This layer supplies what the engine
//! crate cannot: the child process (given by the caller as a closure) and each side's
//! context. With a proof, each side certifies its own UNSAT, so the "no" comes with
//! whichever proof is ready first.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::context::{ms, Artifacts, Context};
use crate::solve::{SolveRequest, SolveResponse};
use queens_engine::plan::{Ending, Step};
use queens_engine::side_by_side::{first_answer, Side};
use queens_engine::{EngineName, EngineSpec};
use queens_model::error::Error;
use queens_model::status::Status;

/// The side of a side-by-side step that runs in a child process: `solve` of this request
/// in a child of this executable, under this context (the operations layer's `isolate`).
pub type ChildSide<'a> =
    dyn Fn(&SolveRequest, &Context) -> Result<(SolveResponse, Artifacts), Error> + Sync + 'a;

/// Runs the side-by-side step `step` of a validated request under `ctx` (its timeout
/// already applied); `child` runs a side's request in a child process.
pub(super) fn run(
    req: &SolveRequest,
    step: &mut Step,
    ctx: &Context,
    child: &ChildSide<'_>,
) -> Result<(SolveResponse, Artifacts), Error> {
    let start = Instant::now();
    if ctx.isolate.is_none() {
        return Err(Error::unsupported(
            "engine race runs its SAT side in a child process of the queens executable, and \
             this caller named none (Context::isolate)"
                .into(),
        ));
    }
    // Each side gets the caller's deadline and memory limit, and its own stop flag: the
    // race sets it when the other side answers or the caller cancels.
    let side_ctx = |stop: Arc<AtomicBool>| {
        let mut c = ctx.clone();
        c.budget.cancel = Some(stop);
        c.budget.progress = None;
        c
    };
    let definite = |resp: &SolveResponse| matches!(resp.status, Status::Sat | Status::Unsat);
    let engine_of = |s: &Step| s.all().iter().find_map(|s| s.engine);
    let (Some(here), Some(there)) = (
        step.steps.first().and_then(engine_of),
        step.steps.get(1).and_then(engine_of),
    ) else {
        return Err(Error::internal("a race is two steps side by side"));
    };
    let here_step = Mutex::new(step.steps[0].clone());
    let ended: Mutex<[f64; 2]> = Mutex::new([0.0; 2]);
    let won = first_answer(
        |stop| {
            // Past MAX_N the backtracker searches the core and answers a column per row (in
            // a file past INLINE_MAX_N rows), as `solve --engine backtrack` does.
            let side = one_side(req, here);
            let c = side_ctx(stop);
            let mut s = here_step.lock().expect("one side at a time");
            let got = if req.instance.0.is_sparse() && req.proof.is_none() {
                crate::solve::solve_step(&side, &mut s, &c)
            } else {
                crate::solve::solve_on(&side, here, &c)
            };
            ended.lock().expect("no side panics")[0] = ms(start);
            let (resp, artifacts) = got?;
            Ok(definite(&resp).then_some((resp, artifacts)))
        },
        |stop| {
            // Its proof comes back as an artifact: the caller's proof file is the
            // backtracking side's, and a losing side must not replace the winner's proof.
            let mut child_ctx = side_ctx(stop);
            child_ctx.proof_file = None;
            let got = child(&one_side(req, there), &child_ctx);
            ended.lock().expect("no side panics")[1] = ms(start);
            let (resp, artifacts) = got?;
            Ok(definite(&resp).then_some((resp, artifacts)))
        },
        ctx.budget.cancel.as_deref(),
        ctx.budget.deadline,
    )?;
    let ended = ended.into_inner().expect("no side panics");
    step.steps[0] = here_step.into_inner().expect("no side panics");
    let winner = won.as_ref().map(|(side, _)| *side);
    for (i, side) in [Side::First, Side::Second].into_iter().enumerate() {
        let ending = match winner {
            Some(w) if w == side => Ending::Answered,
            _ => Ending::Stopped,
        };
        step.steps[i].ran(0.0, ended[i], ending);
    }
    let Some((side, (mut resp, artifacts))) = won else {
        step.ran(0.0, ms(start), Ending::Stopped);
        let resp = SolveResponse {
            time_ms: ms(start),
            ..SolveResponse::nothing(
                Status::interrupted(&ctx.budget),
                req.instance.0.n(),
                EngineName::Race,
            )
        };
        return Ok((resp, Artifacts::default()));
    };
    step.ran(0.0, ms(start), Ending::Answered);
    resp.engine = EngineName::Race;
    let by = match side {
        Side::First => here,
        Side::Second => there,
    };
    resp.answered_by = Some(EngineName::of(by));
    resp.time_ms = ms(start);
    Ok((resp, artifacts))
}

/// The request of one side of the race: `spec`'s engine (its threads, its encoding) on the
/// race's question, without a timeout of its own (the race's deadline stops it).
fn one_side(req: &SolveRequest, spec: EngineSpec) -> SolveRequest {
    let f = spec.fields();
    SolveRequest {
        engine: f.engine,
        threads: f.threads.map_or(req.threads, |t| (t > 0).then_some(t)),
        encoding: f.encoding.unwrap_or(req.encoding),
        timeout_ms: None,
        ..req.clone()
    }
}
