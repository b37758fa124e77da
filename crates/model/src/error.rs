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
    /// map with the wrong number of regions, an out-of-range size). Made with
    /// [`Error::model`] or [`Error::model_at_field`].
    #[error("{message}")]
    Model {
        /// The request field the error is about, as a path (`instance.n`), when it is about
        /// one.
        field: Option<String>,
        /// What is wrong, with the field first when there is one (``field `n`: …``).
        message: String,
    },
    /// A request the engines cannot serve (an option that does not apply, a size too large).
    /// Made with [`Error::unsupported`] or [`Error::unsupported_at_field`].
    #[error("{message}")]
    Unsupported {
        /// The request field the error is about, as a path (`limit`), when it is about one.
        field: Option<String>,
        /// Why not, with the field first when there is one (``field `limit`: …``).
        message: String,
    },
    /// A request over a resource limit (board size, memory estimate, unbounded work on a
    /// synchronous call); the message says what to do instead. Made with
    /// [`Error::too_large`] or [`Error::too_large_at_field`].
    #[error("{message}")]
    TooLarge {
        /// The request field the error is about, as a path (`deals`), when it is about one.
        field: Option<String>,
        /// What is over which limit, with the field first when there is one.
        message: String,
    },
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

/// The two constructors of a kind of error that may be about one request field (`Model`,
/// `Unsupported`, `TooLarge`): `$plain(message)`, about no field, and
/// `$at_field(field, msg)`, whose message names the field first ([`at_field`]).
macro_rules! about_a_field {
    (
        $(#[$plain_doc:meta])* $plain:ident,
        $(#[$at_field_doc:meta])* $at_field:ident => $variant:ident
    ) => {
        $(#[$plain_doc])*
        pub fn $plain(message: String) -> Error {
            Error::$variant {
                field: None,
                message,
            }
        }

        $(#[$at_field_doc])*
        pub fn $at_field(field: impl Into<String>, msg: impl std::fmt::Display) -> Error {
            let (field, message) = at_field(field.into(), msg);
            Error::$variant { field, message }
        }
    };
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
            Error::Input { .. }
            | Error::Model { .. }
            | Error::Unsupported { .. }
            | Error::TooLarge { .. } => 422,
            Error::Io { .. } | Error::Internal { .. } => 500,
        }
    }

    /// A short, stable title for the kind of error (problem+json `title`).
    pub fn title(&self) -> &'static str {
        match self {
            Error::Input { .. } => "invalid instance",
            Error::Model { .. } => "invalid problem",
            Error::Unsupported { .. } => "unsupported request",
            Error::TooLarge { .. } => "over a limit",
            Error::Io { .. } => "I/O error",
            Error::Internal { .. } => "internal check failed",
        }
    }

    /// The input or request field the error is about, as it was given when the error was
    /// made (never read back out of the message).
    pub fn field(&self) -> Option<String> {
        match self {
            Error::Input { field, .. }
            | Error::Model { field, .. }
            | Error::Unsupported { field, .. }
            | Error::TooLarge { field, .. } => field.clone(),
            Error::Io { .. } | Error::Internal { .. } => None,
        }
    }

    /// The same error about the request field `field`, as data, when it names none yet: for
    /// a message that already names the value it refuses (``solver `x` is not on this
    /// server's list``), so the words stay as the command line prints them. Input, I/O and
    /// internal errors are returned as they are.
    pub fn about(self, field: &str) -> Error {
        match self {
            Error::Model {
                field: None,
                message,
            } => Error::Model {
                field: Some(field.to_string()),
                message,
            },
            Error::Unsupported {
                field: None,
                message,
            } => Error::Unsupported {
                field: Some(field.to_string()),
                message,
            },
            Error::TooLarge {
                field: None,
                message,
            } => Error::TooLarge {
                field: Some(field.to_string()),
                message,
            },
            other => other,
        }
    }

    /// The error as data, for a caller across a boundary (a child process's reply, the
    /// Python package): its kind (`input`, `model`, `unsupported`, `too_large`, and
    /// `internal` for I/O and internal failures, with their whole text as the message), the
    /// file and line an input error is about, and the bare message.
    pub fn parts(&self) -> (&'static str, Option<String>, Option<usize>, String) {
        match self {
            Error::Input {
                origin,
                line,
                message,
                ..
            } => ("input", Some(origin.clone()), *line, message.clone()),
            Error::Model { message, .. } => ("model", None, None, message.clone()),
            Error::Unsupported { message, .. } => ("unsupported", None, None, message.clone()),
            Error::TooLarge { message, .. } => ("too_large", None, None, message.clone()),
            other => ("internal", None, None, other.to_string()),
        }
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

    about_a_field!(
        /// An inconsistent problem, not about one request field.
        model,
        /// An inconsistent value in the request field `field` (``field `instance.n`: …``).
        model_at_field => Model
    );

    about_a_field!(
        /// A request the engines cannot serve, not about one request field.
        unsupported,
        /// A value of the request field `field` the engines cannot serve (``field `limit`: …``).
        unsupported_at_field => Unsupported
    );

    about_a_field!(
        /// A request over a resource limit, not about one request field.
        too_large,
        /// A value of the request field `field` over a resource limit (``field `deals`: …``).
        too_large_at_field => TooLarge
    );

    /// Bad input from `origin`, not about one line or field.
    pub fn input(origin: &str, msg: impl Into<String>) -> Error {
        input_at(origin, None, None, msg.into())
    }

    /// Bad input on line `line` of `origin` (`line 3: …`).
    pub fn input_at_line(origin: &str, line: usize, msg: impl std::fmt::Display) -> Error {
        input_at(origin, Some(line), None, msg.to_string())
    }

    /// Bad input in the JSON field `field` of `origin` (``field `queens[1]`: …``).
    pub fn input_at_field(
        origin: &str,
        field: impl Into<String>,
        msg: impl std::fmt::Display,
    ) -> Error {
        let (field, message) = at_field(field.into(), msg);
        input_at(origin, None, field, message)
    }

    /// Bad input in the field `field` of the JSON on line `line` of `origin` (``line 3:
    /// field `shard.index`: …``).
    pub fn input_at_line_and_field(
        origin: &str,
        line: usize,
        field: impl Into<String>,
        msg: impl std::fmt::Display,
    ) -> Error {
        let (field, message) = at_field(field.into(), msg);
        input_at(origin, Some(line), field, message)
    }
}

/// Bad input from `origin`, on `line` and in `field` when given: the one place the words
/// `line …: ` are written.
fn input_at(origin: &str, line: Option<usize>, field: Option<String>, message: String) -> Error {
    let message = match line {
        Some(line) => format!("line {line}: {message}"),
        None => message,
    };
    Error::Input {
        origin: origin.to_string(),
        line,
        field,
        message,
    }
}

/// The field as data, and the message that names it first: the one place the words
/// ``field `…`: `` are written.
fn at_field(field: String, msg: impl std::fmt::Display) -> (Option<String>, String) {
    let message = format!("field `{field}`: {msg}");
    (Some(field), message)
}

#[cfg(test)]
mod tests {
    use super::Error;

    #[test]
    fn the_field_is_the_one_given_not_one_read_from_the_words() {
        let e = Error::unsupported_at_field("limit", "must be at least 1");
        assert_eq!(e.field().as_deref(), Some("limit"));
        assert_eq!(e.to_string(), "field `limit`: must be at least 1");
        // Words that look like a field name are only words.
        for e in [
            Error::model("field `n`: 0 is not a board size".to_string()),
            Error::unsupported("field `engine`: not this one".to_string()),
            Error::too_large("field `deals`: too many".to_string()),
            Error::input("game.json", "field `moves[3]`: off the board"),
            Error::internal("field `x`: a bug"),
        ] {
            assert_eq!(e.field(), None, "{e}");
        }
        let e = Error::too_large_at_field("instance.n", "n = 5000 is over 4096");
        assert_eq!(
            (e.field().as_deref(), e.title(), e.http_status()),
            (Some("instance.n"), "over a limit", 422)
        );
        let e = Error::model_at_field("queens[1]", "(9, 0) is off the board");
        assert_eq!(e.field().as_deref(), Some("queens[1]"));
        assert_eq!(e.to_string(), "field `queens[1]`: (9, 0) is off the board");
        let e = Error::input_at_field("board.json", "queens[1]", "off the board");
        assert_eq!(e.field().as_deref(), Some("queens[1]"));
        assert_eq!(
            e.to_string(),
            "board.json: field `queens[1]`: off the board"
        );
    }
}
