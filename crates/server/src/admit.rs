//! What a request must pass before any work is queued: its own validation, this server's
//! bounds ([`super::limits`]), the board size (`--max-n`, and the memory of a big solve), and,
//! for a synchronous call, work that a deadline bounds.

use axum::http::StatusCode;

use super::error::ApiError;
use super::limits;
use super::state::AppState;
use crate::engine::Budget;
use crate::ops::Request;

impl AppState {
    /// Checks a request against the service's limits before any work is queued.
    pub(crate) fn admit(&self, req: &Request, synchronous: bool) -> Result<(), ApiError> {
        req.validate()?;
        limits::check(req, &self.config)?;
        let n = req.n();
        // A classic board past the complete engines' limit is local search's: a solve job
        // (never a synchronous call), refused up front when its memory estimate is over
        // --max-memory.
        let big_solve = match req {
            Request::Solve(r) if n > self.config.max_n && r.instance.0.is_sparse() => Some(r),
            _ => None,
        };
        if let Some(r) = big_solve {
            if synchronous {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "over a limit",
                    format!(
                        "n = {n} is over this server's limit of {} for synchronous calls: \
                         submit it as a job (POST /v1/jobs with \"op\": \"solve\")",
                        self.config.max_n
                    ),
                )
                .field("instance.n"));
            }
            let ctx = crate::ops::Context {
                budget: Budget {
                    max_memory: Some(self.config.max_memory),
                    ..Budget::default()
                },
                isolate: None,
                proof_file: None,
            };
            crate::ops::check_memory(&r.instance.0, &ctx)?;
            return Ok(());
        }
        if n > self.config.max_n {
            let field = if matches!(req, Request::Generate(_)) {
                "n"
            } else {
                "instance.n"
            };
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "over a limit",
                format!(
                    "n = {n} is over this server's limit of {} (--max-n)",
                    self.config.max_n
                ),
            )
            .field(field));
        }
        if synchronous {
            if let Some(why) = req.unbounded() {
                let field = match req {
                    Request::CollectionSimulate(_) | Request::CollectionStudy(_) => "deals",
                    Request::Mod2Solve(_) => "n",
                    _ => "limit",
                };
                return Err(
                    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "unbounded work", why)
                        .field(field),
                );
            }
        }
        Ok(())
    }
}
