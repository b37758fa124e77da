//! A synchronous call: a request run on a worker within the server's time limit, cancelled
//! when its client goes away, and the 503s of a full queue or a missed deadline.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::StatusCode;

use super::error::ApiError;
use super::state::AppState;
use super::workers;
use queens_engine::Budget;
use queens_ops::{Artifacts, Context, Request, Response};

/// Sets the cancel flag when dropped: a synchronous request whose client went away (axum
/// drops the handler's future) cancels its work.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl AppState {
    /// Runs a synchronous request on a worker, within the server's time limit, cancelled if
    /// the client goes away. 503 with `Retry-After` when the queue is full, when no worker
    /// can start the request before its deadline (at once when the pool knows it cannot,
    /// else at the deadline), and when the work does not stop at its deadline.
    pub(crate) async fn run_sync(&self, req: Request) -> Result<(Response, Artifacts), ApiError> {
        self.admit(&req, true)?;
        if self.shutting_down.load(Ordering::SeqCst) {
            return Err(ApiError::busy("the server is shutting down"));
        }
        let cancel = Arc::new(AtomicBool::new(false));
        let _guard = CancelOnDrop(cancel.clone());
        let limit = Duration::from_millis(self.config.timeout_ms);
        let deadline = Instant::now() + limit;
        let ctx = Context {
            budget: Budget {
                deadline: Some(deadline),
                cancel: Some(cancel.clone()),
                progress: None,
                max_memory: Some(self.config.max_memory),
            },
            isolate: Some(self.config.exe.clone()),
            proof_file: None,
        };
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        let state = self.clone();
        let op = req.op();
        let started = Arc::new(AtomicBool::new(false));
        let started_here = started.clone();
        self.pool
            .submit_by(deadline, move || {
                // Given up by its caller (client gone, or still queued a while past its
                // deadline): the worker goes on to the next task. One that starts just past
                // its deadline (the task ahead stopped a little after its own) runs with its
                // budget spent and answers `timeout` at once.
                if cancel.load(Ordering::SeqCst) || Instant::now() >= deadline + START_GRACE {
                    return;
                }
                started_here.store(true, Ordering::SeqCst);
                let start = Instant::now();
                let result = req.run(&ctx);
                state.metrics.op_time(op, start.elapsed().as_secs_f64());
                let _ = tx.send(result);
            })
            .map_err(|refused| match refused {
                workers::Refused::Full => ApiError::busy(format!(
                    "all {} workers are busy and {} requests are waiting: retry shortly, or \
                     submit a job (POST /v1/jobs)",
                    self.pool.workers(),
                    self.pool.capacity()
                )),
                workers::Refused::Late(wait) => late(
                    wait,
                    format!(
                        "no worker can start this request within its time limit of {} ms \
                         (--timeout-ms): every worker is taken until then; retry later, or \
                         submit a job (POST /v1/jobs)",
                        self.config.timeout_ms
                    ),
                ),
            })?;
        let answer = match tokio::time::timeout_at((deadline + START_GRACE).into(), &mut rx).await {
            Ok(answer) => answer,
            Err(_) if !started.load(Ordering::SeqCst) => {
                // Still queued past its deadline: the task sees the cancel flag (set when
                // this returns) and is skipped.
                return Err(late(
                    Duration::from_secs(1),
                    format!(
                        "no worker could start this request within its time limit of {} ms \
                         (--timeout-ms): retry later, or submit a job (POST /v1/jobs)",
                        self.config.timeout_ms
                    ),
                ));
            }
            // Running: the operation stops at the deadline (a child process is killed then)
            // and answers `timeout`; the grace period only guards against one that does not.
            Err(_) => match tokio::time::timeout(Duration::from_secs(2), rx).await {
                Ok(answer) => answer,
                Err(_) => {
                    tracing::error!(op, "an operation did not stop at its deadline");
                    return Err(late(
                        Duration::from_secs(1),
                        format!(
                            "the {op} operation did not finish within the time limit of {} ms \
                             (--timeout-ms): submit it as a job (POST /v1/jobs)",
                            self.config.timeout_ms
                        ),
                    ));
                }
            },
        };
        match answer {
            // An internal failure of an operation that ran out of time (its child killed
            // mid-answer, say) is the server's time limit, not a fault. (An operation with
            // no `timeout` answer of its own says so with a 422, as it always has: the work
            // is over what a synchronous call may do.)
            Ok(Err(e))
                if Instant::now() >= deadline
                    && matches!(e, queens_model::Error::Internal { .. }) =>
            {
                tracing::warn!(op, error = %e, "an operation ran out of time");
                Err(late(
                    Duration::from_secs(1),
                    format!(
                        "the {op} operation ran out of its time limit of {} ms \
                         (--timeout-ms): submit it as a job (POST /v1/jobs)",
                        self.config.timeout_ms
                    ),
                ))
            }
            Ok(result) => result.map_err(ApiError::from),
            // The task was skipped: it came to a worker after its deadline.
            Err(_) => Err(late(
                Duration::from_secs(1),
                format!(
                    "no worker could start this request within its time limit of {} ms \
                     (--timeout-ms): retry later, or submit a job (POST /v1/jobs)",
                    self.config.timeout_ms
                ),
            )),
        }
    }
}

/// How long past its deadline a queued synchronous request may still start (with its budget
/// spent, it answers `timeout`): the task ahead of it stops a little after its own deadline,
/// and one that came just after it must not be a 503 for that.
const START_GRACE: Duration = Duration::from_secs(1);

/// 503 `busy`, with `Retry-After` the whole seconds of `wait` (at least 1).
fn late(wait: Duration, detail: String) -> ApiError {
    let mut e = ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "busy", detail);
    e.retry_after = Some(u32::try_from(wait.as_secs() + 1).unwrap_or(u32::MAX));
    e
}
