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
        req.validate().map_err(|e| at_n(e, n_field(req)))?;
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
            // The estimate speaks of the board's size as the command line does (`n`); the
            // request holds it at the operation's own field (`instance.n`), as every other
            // refusal of a size says.
            return queens_ops::check_memory(problem, &ctx).map_err(|e| at_n(e, O::N_FIELD));
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

/// The problem of `e`, with a refusal of the board size (field `n`, as the command line
/// names it) moved to `n_field`, where the request holds the size (`instance.n`): one field
/// path for the size on every route, synchronous or a job.
fn at_n(e: queens_model::Error, n_field: &'static str) -> ApiError {
    let about_n = e.field().as_deref() == Some("n");
    let mut api = ApiError::from(e);
    if about_n && n_field != "n" {
        if let Some((object, _)) = n_field.rsplit_once('.') {
            api.problem.detail = format!("{object}: {}", api.problem.detail);
        }
        api = api.field(n_field);
    }
    api
}

/// The field that holds the board size in a request of `req`'s operation.
fn n_field(req: &Request) -> &'static str {
    struct Find<'a>(&'a Request, &'static str);
    impl Visit for Find<'_> {
        fn visit<O: Member>(&mut self) {
            if O::request(self.0).is_some() {
                self.1 = O::N_FIELD;
            }
        }
    }
    let mut find = Find(req, "n");
    queens_ops::for_each(&mut find);
    find.1
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
