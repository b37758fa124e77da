//! Errors for bad input, I/O and misuse; "no solution" is a result, never an error.

use std::path::PathBuf;

/// Everything that can go wrong before an engine gets a well-formed problem.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Malformed input. `origin` is the file name (or `<stdin>`); `line` and `field` say
    /// where in it, as data, and `message` says it in words too. Made with [`Error::input`],
    /// [`Error::input_at_line`] or [`Error::input_at_field`].
    #[error("{origin}: {message}")]
    Input {
        /// File name or `<stdin>`.
        origin: String,
        /// The line (1-based) the error is about, when the input is text with lines.
        line: Option<usize>,
        /// The JSON field the error is about, as a path (`queens[1]`, `deal.boxes`).
        field: Option<String>,
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
    /// proof did not check, a worker process died. A bug, never the user's fault. Made with
    /// [`Error::internal`], or [`Error::internal_from`] to keep the error that caused it.
    #[error("{message}{}", source.as_ref().map(|s| format!(": {s}")).unwrap_or_default())]
    Internal {
        /// What failed (`writing the CNF`, `two engines disagreed: …`).
        message: String,
        /// The error that caused it, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
    },
}

impl Error {
    /// The CLI's exit code for this error: 3 for a failed internal check, 2 for the rest.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Internal { .. } => 3,
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
            Error::Io { .. } | Error::Internal { .. } => 500,
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
            Error::Internal { .. } => "internal check failed",
        }
    }

    /// The input field the error is about: an input error's own; for a request an operation
    /// refuses, the field its message begins with (``field `deals`: …``).
    pub fn field(&self) -> Option<String> {
        let text = match self {
            Error::Input { field, .. } => return field.clone(),
            Error::Model(m) | Error::Unsupported(m) | Error::TooLarge(m) => m.as_str(),
            _ => return None,
        };
        let rest = text.strip_prefix("field `")?;
        Some(rest[..rest.find('`')?].to_string())
    }

    /// An internal check that failed, said in `message`.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::Internal {
            message: message.into(),
            source: None,
        }
    }

    /// An internal failure caused by `source` (`writing the CNF: disk full`): the message
    /// reads `{message}: {source}`, and the source stays reachable through
    /// [`std::error::Error::source`].
    pub fn internal_from(
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    ) -> Error {
        Error::Internal {
            message: message.into(),
            source: Some(source.into()),
        }
    }

    pub(crate) fn model(msg: impl Into<String>) -> Error {
        Error::Model(msg.into())
    }

    /// Bad input from `origin`, not about one line or field.
    pub fn input(origin: &str, msg: impl Into<String>) -> Error {
        Error::Input {
            origin: origin.to_string(),
            line: None,
            field: None,
            message: msg.into(),
        }
    }

    /// Bad input on line `line` of `origin` (`line 3: …`).
    pub fn input_at_line(origin: &str, line: usize, msg: impl std::fmt::Display) -> Error {
        Error::Input {
            origin: origin.to_string(),
            line: Some(line),
            field: None,
            message: format!("line {line}: {msg}"),
        }
    }

    /// Bad input in the JSON field `field` of `origin` (``field `queens[1]`: …``).
    pub fn input_at_field(
        origin: &str,
        field: impl Into<String>,
        msg: impl std::fmt::Display,
    ) -> Error {
        let field = field.into();
        Error::Input {
            origin: origin.to_string(),
            line: None,
            message: format!("field `{field}`: {msg}"),
            field: Some(field),
        }
    }
}
