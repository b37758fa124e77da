//! Errors for bad input, I/O and misuse; "no solution" is a result, never an error.

use std::path::PathBuf;

/// Everything that can go wrong before an engine gets a well-formed problem.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Malformed input. `origin` is the file name (or `<stdin>`); `message` starts with the
    /// line, column or JSON field it is about.
    #[error("{origin}: {message}")]
    Input {
        /// File name or `<stdin>`.
        origin: String,
        /// What is wrong and where, e.g. `line 3: row has 7 cells, expected 8`.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A problem built through the API is inconsistent (a coordinate off the board, a region
    /// map with the wrong number of regions, an out-of-range size).
    #[error("{0}")]
    Model(String),
    /// A request the engines cannot serve (an option that does not apply, a size too large).
    #[error("{0}")]
    Unsupported(String),
    /// A request over a resource limit (board size, memory estimate, unbounded work on a
    /// synchronous call); the message says what to do instead.
    #[error("{0}")]
    TooLarge(String),
    /// An internal check failed: an engine's board broke a rule, two engines disagreed, a
    /// proof did not check, a worker process died. A bug, never the user's fault.
    #[error("{0}")]
    Internal(String),
}

impl Error {
    /// The CLI's exit code for this error: 3 for a failed internal check, 2 for the rest.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Internal(_) => 3,
            _ => 2,
        }
    }

    /// The HTTP status the service answers with: 422 for a request it understood but cannot
    /// serve, 500 for its own failures.
    pub fn http_status(&self) -> u16 {
        match self {
            Error::Input { .. } | Error::Model(_) | Error::Unsupported(_) | Error::TooLarge(_) => {
                422
            }
            Error::Io { .. } | Error::Internal(_) => 500,
        }
    }

    /// A short, stable title for the kind of error (problem+json `title`).
    pub fn title(&self) -> &'static str {
        match self {
            Error::Input { .. } => "invalid instance",
            Error::Model(_) => "invalid problem",
            Error::Unsupported(_) => "unsupported request",
            Error::TooLarge(_) => "over a limit",
            Error::Io { .. } => "I/O error",
            Error::Internal(_) => "internal check failed",
        }
    }

    /// The input field the error is about, when its message names one (``field `queens[1]`: …``).
    pub fn field(&self) -> Option<String> {
        let text = match self {
            Error::Input { message, .. } => message.as_str(),
            Error::Model(m) | Error::Unsupported(m) | Error::TooLarge(m) => m.as_str(),
            _ => return None,
        };
        let rest = &text[text.find("field `")? + "field `".len()..];
        Some(rest[..rest.find('`')?].to_string())
    }

    pub(crate) fn model(msg: impl Into<String>) -> Error {
        Error::Model(msg.into())
    }

    pub(crate) fn input(origin: &str, msg: impl Into<String>) -> Error {
        Error::Input {
            origin: origin.to_string(),
            message: msg.into(),
        }
    }
}
