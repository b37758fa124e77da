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
}

impl Error {
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
