//! What a request must pass before any work is queued: its own validation, this server's
//! bounds ([`super::bounds`]), the board size (`--max-n`, and the memory of a large board an
//! operation takes as a job), and, for a synchronous call, work that a deadline bounds. What
//! differs between operations follows from their declarations ([`Member::N_FIELD`],
//! [`Member::LARGE_AS_JOB`], [`Member::unbounded`], [`Member::BOUND_FIELD`]).

use axum::http::StatusCode;

use super::bounds;
use super::error::ApiError;
use super::state::AppState;
use queens_engine::Budget;
use queens_ops::{Member, Request, Visit};

impl AppState {
    /// Checks a request against the service's limits before any work is queued.
    pub(crate) fn admit(&self, req: &Request, synchronous: bool) -> Result<(), ApiError> {
        req.validate()?;
        bounds::check(req, &self.config)?;
        let mut admit = Admit {
            state: self,
            req,
            synchronous,
            result: Ok(()),
        };
        queens_ops::for_each(&mut admit);
        admit.result
    }

    /// [`AppState::admit`]'s checks of the board size and the work, for operation `O`.
    fn admit_as<O: Member>(&self, r: &O::Request, synchronous: bool) -> Result<(), ApiError> {
        let n = O::n(r);
        let max_n = self.config.max_n;
        // A classic board past the complete engines' limit is local search's: a job (never
        // a synchronous call), refused up front when its memory estimate is over
        // --max-memory.
        let large = O::problem(r).filter(|p| O::LARGE_AS_JOB && n > max_n && p.is_sparse());
        if let Some(problem) = large {
            if synchronous {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "over a limit",
                    format!(
                        "n = {n} is over this server's limit of {max_n} for synchronous calls: \
                         submit it as a job (POST /v1/jobs with \"op\": \"{}\")",
                        O::NAME
                    ),
                )
                .field(O::N_FIELD));
            }
            let ctx = queens_ops::Context {
                budget: Budget {
                    max_memory: Some(self.config.max_memory),
                    ..Budget::default()
                },
                isolate: None,
                proof_file: None,
            };
            queens_ops::check_memory(problem, &ctx)?;
            return Ok(());
        }
        if n > max_n {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "over a limit",
                format!("n = {n} is over this server's limit of {max_n} (--max-n)"),
            )
            .field(O::N_FIELD));
        }
        if synchronous {
            if let Some(why) = O::unbounded(r, n) {
                return Err(
                    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "unbounded work", why)
                        .field(O::BOUND_FIELD),
                );
            }
        }
        Ok(())
    }
}

/// [`AppState::admit_as`] for the operation of `req`, found in the table.
struct Admit<'a> {
    state: &'a AppState,
    req: &'a Request,
    synchronous: bool,
    result: Result<(), ApiError>,
}

impl Visit for Admit<'_> {
    fn visit<O: Member>(&mut self) {
        if let Some(r) = O::request(self.req) {
            self.result = self.state.admit_as::<O>(r, self.synchronous);
        }
    }
}
