//! Request bodies: read within the size limit, parsed as JSON objects only, and a bad value
//! answered with 400 or a 422 that names its field; a job body's `op` picks its request.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request as HttpRequest};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use super::error::ApiError;
use super::strict;
use queens_ops::Request;

/// A JSON request body: 413 over the size limit, 400 when it is not JSON, 422 naming the
/// field when a value is wrong (unknown engine, off-board queen, ragged grid, …).
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: HttpRequest, state: &S) -> Result<Self, ApiError> {
        let RawBody(bytes) = RawBody::from_request(req, state).await?;
        parse_body(&bytes).map(JsonBody)
    }
}

/// A request body as bytes, within the size limit (413 past it).
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(req: HttpRequest, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "body too large",
                    "the request body is over this server's limit (--max-body)",
                )
            } else {
                ApiError::new(StatusCode::BAD_REQUEST, "unreadable body", e.body_text())
            }
        })?;
        Ok(RawBody(bytes))
    }
}

/// Parses a request body, naming the field of a bad value.
pub fn parse_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // Every body is an object; serde would take an array for a struct's fields in order.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(
            match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
                Err(e) => ApiError::new(StatusCode::BAD_REQUEST, "invalid JSON", e.to_string()),
                Ok(_) => ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "invalid request",
                    "expected a JSON object",
                )
                .field("."),
            },
        );
    }
    if let Some(body) = with_engine_word_split(bytes)? {
        let value = serde_path_to_error::deserialize(&body).map_err(|e| invalid(e, Some(&body)))?;
        objects_only::<T>(&body)?;
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let body = serde_json::from_slice(bytes).ok();
        invalid(e, body.as_ref())
    })?;
    de.end()
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "invalid JSON", e.to_string()))?;
    if let Ok(body) = serde_json::from_slice::<serde_json::Value>(bytes) {
        objects_only::<T>(&body)?;
    }
    Ok(value)
}

/// The body with its `"engine": "ext:SOLVER…"` word split into the request's fields
/// ([`queens_ops::engine_word`]); `None` for a body without one, read as it is.
fn with_engine_word_split(bytes: &[u8]) -> Result<Option<serde_json::Value>, ApiError> {
    // Only a body that names an external solver in its engine word is read twice.
    if !bytes.windows(4).any(|w| w == b"ext:") {
        return Ok(None);
    }
    let Ok(serde_json::Value::Object(mut map)) = serde_json::from_slice(bytes) else {
        return Ok(None);
    };
    if !matches!(map.get("engine"), Some(serde_json::Value::String(w)) if w.starts_with("ext:")) {
        return Ok(None);
    }
    queens_ops::engine_word::split_engine_word(&mut map)?;
    Ok(Some(serde_json::Value::Object(map)))
}

/// 422 naming the field where `body` gives an array for an object ([`strict`]).
fn objects_only<T: DeserializeOwned>(body: &serde_json::Value) -> Result<(), ApiError> {
    strict::check::<T>(body).map_err(|(path, message)| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid request",
            format!("{path}: {message}"),
        )
        .field(path)
    })
}

/// A body that does not deserialize: 400 when it is not JSON (`body` is the body as JSON,
/// `None` when it is not), 422 naming the field when a value is wrong. serde_json reports
/// some wrong values as syntax (a `[row, col]` with a third element: "trailing
/// characters"), so whether the body is JSON decides, not the error's kind.
fn invalid(
    e: serde_path_to_error::Error<serde_json::Error>,
    body: Option<&serde_json::Value>,
) -> ApiError {
    let path = e.path().to_string();
    let inner = e.into_inner();
    let Some(body) = body else {
        return ApiError::new(StatusCode::BAD_REQUEST, "invalid JSON", inner.to_string());
    };
    let message = inner.to_string();
    // serde passes an instance's error up as text only: the instance is read again on its
    // own for the field inside it (`instance.queens[1]`).
    let field = match instance_field(&path, body) {
        Some(f) => format!("instance.{f}"),
        None => path.clone(),
    };
    let detail = if path == "." {
        message
    } else {
        format!("{path}: {message}")
    };
    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid request", detail).field(field)
}

/// The field inside the request's instance that `path` (where deserializing stopped) fails
/// on, when it is the instance in the JSON format (an error in a `{"text": …}` instance is
/// about the instance as a whole, and says its line).
fn instance_field(path: &str, body: &serde_json::Value) -> Option<String> {
    let instance = body.get("instance").filter(|_| path == "instance")?;
    if instance.get("text").is_some() {
        return None;
    }
    queens_model::formats::problem_from_json(instance)
        .err()?
        .field
}

/// A job body: `op` picks the operation, and the rest is read as that operation's request,
/// so an error names its field as on the synchronous endpoint (an internally tagged enum
/// would buffer the body and lose the path).
pub fn parse_job(bytes: &[u8]) -> Result<Request, ApiError> {
    let mut object = match parse_body::<queens_model::formats::StrictValue>(bytes)?.0 {
        serde_json::Value::Object(map) => map,
        _ => unreachable!("parse_body accepts objects only"),
    };
    let op = match object.remove("op") {
        Some(serde_json::Value::String(op)) => op,
        other => {
            let detail = match other {
                None => "missing field `op`".to_string(),
                Some(v) => format!("expected a string, got {v}"),
            };
            return Err(
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid request", detail)
                    .field("op"),
            );
        }
    };
    queens_ops::engine_word::split_engine_word(&mut object)?;
    let rest = serde_json::Value::Object(object);
    /// The rest of the body as the operation's request.
    struct Typed(serde_json::Value);
    impl queens_ops::ReadRequest<ApiError> for Typed {
        fn read<T: DeserializeOwned>(self) -> Result<T, ApiError> {
            let v = self.0;
            let value = serde_path_to_error::deserialize(&v).map_err(|e| invalid(e, Some(&v)))?;
            objects_only::<T>(&v)?;
            Ok(value)
        }
    }
    match Request::read_as(&op, Typed(rest)) {
        Some(req) => req,
        None => {
            let mut names = Request::names();
            let last = names.pop().unwrap_or_default();
            Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid request",
                format!("unknown op `{op}` (use {} or {last})", names.join(", ")),
            )
            .field("op"))
        }
    }
}
