//! One error type for every error response: RFC 9457 `application/problem+json`, mapped
//! once from the library's [`queens_model::Error`] (the same error the CLI maps to an exit code).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

/// A problem details body (RFC 9457).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Problem {
    /// A URI naming the kind of problem (`about:blank`: the title says it).
    #[serde(rename = "type")]
    pub kind: String,
    /// Short and stable for the kind: `invalid JSON`, `invalid instance`, `queue full`, ….
    pub title: String,
    /// The HTTP status.
    pub status: u16,
    /// What is wrong, in the same words the CLI prints for the same input.
    pub detail: String,
    /// The request field the problem is about, as a path (`instance.queens[1]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// An error answer: a status, a problem body, and optionally `Retry-After`.
#[derive(Debug)]
pub struct ApiError {
    /// The body.
    pub problem: Problem,
    /// Seconds for `Retry-After` (503).
    pub retry_after: Option<u32>,
}

impl ApiError {
    /// An error with this status, title and detail.
    pub fn new(status: StatusCode, title: &str, detail: impl Into<String>) -> ApiError {
        ApiError {
            problem: Problem {
                kind: "about:blank".into(),
                title: title.into(),
                status: status.as_u16(),
                detail: detail.into(),
                field: None,
            },
            retry_after: None,
        }
    }

    /// The same error, about `field`.
    pub fn field(mut self, field: impl Into<String>) -> ApiError {
        self.problem.field = Some(field.into());
        self
    }

    /// 503: every worker is busy and the queue is full.
    pub fn busy(detail: impl Into<String>) -> ApiError {
        let mut e = ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "queue full", detail);
        e.retry_after = Some(1);
        e
    }

    /// 409 for a part of a job that the job does not have in its state (a proof of a job that
    /// found a solution, the solution of one still running).
    pub fn not_available(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, "not available", detail)
    }

    /// 404 for a resource that is not there.
    pub fn not_found(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not found", detail)
    }
}

impl From<queens_model::Error> for ApiError {
    fn from(e: queens_model::Error) -> ApiError {
        let status =
            StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if status.is_server_error() {
            // Our failure, not the client's: logged in full, answered in full too, since an
            // internal check failure is a bug report the client can pass on.
            tracing::error!(error = %e, "internal error");
        }
        // An error carries the request field it is about, when it is about one; an input
        // error without one is about an input text, which only a decode's `model` is.
        let field = match &e {
            queens_model::Error::Input { .. } => e.field().or_else(|| Some("model".into())),
            _ => e.field(),
        };
        let mut api = ApiError::new(status, e.title(), e.to_string());
        api.problem.field = field;
        api
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = serde_json::to_string(&self.problem).unwrap_or_else(|_| "{}".into());
        let mut resp = (status, body).into_response();
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if let Some(s) = self.retry_after {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        resp
    }
}
