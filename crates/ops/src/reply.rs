//! A child process's reply on stdout, one JSON object: `{"ok": <response>}` or
//! `{"error": {"kind", "origin", "line", "field", "message"}}` (the field, when the error is
//! about one, as data: the parent's error names it as the child's did). The worker writes
//! it, the parent reads it ([`crate::isolate`]).

use serde::{Deserialize, Serialize};

use queens_model::error::Error;

/// An error crossing the process boundary.
#[derive(Serialize, Deserialize)]
pub(crate) struct ErrorBody {
    kind: String,
    origin: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    field: Option<String>,
    message: String,
}

impl From<&Error> for ErrorBody {
    fn from(e: &Error) -> ErrorBody {
        let (kind, origin, line, message) = e.parts();
        ErrorBody {
            kind: kind.into(),
            origin,
            line,
            field: e.field(),
            message,
        }
    }
}

impl From<ErrorBody> for Error {
    fn from(b: ErrorBody) -> Error {
        let ErrorBody {
            kind,
            origin,
            line,
            field,
            message,
        } = b;
        match kind.as_str() {
            "input" => Error::Input {
                origin: origin.unwrap_or_default(),
                line,
                field,
                message,
            },
            "model" => Error::Model { field, message },
            "unsupported" => Error::Unsupported { field, message },
            "too_large" => Error::TooLarge { field, message },
            _ => Error::internal(message),
        }
    }
}

/// A child's reply: its operation's response, or the error it stopped with.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Reply<T> {
    /// The response.
    Ok(T),
    /// The error.
    Error(ErrorBody),
}

/// Reads a child's reply: `Err` when it is not one, else the response or the error it
/// carries.
pub(crate) fn read<T: serde::de::DeserializeOwned>(
    stdout: &str,
) -> Result<Result<T, Error>, serde_json::Error> {
    Ok(match serde_json::from_str::<Reply<T>>(stdout.trim())? {
        Reply::Ok(v) => Ok(v),
        Reply::Error(b) => Err(b.into()),
    })
}
