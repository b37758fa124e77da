//! How a command's output ends: the failures that stop it (an error, or a reader that went
//! away), answers as JSON, and files written whole or not at all.

use std::path::{Path, PathBuf};

use queens::Error;

/// Why a command stopped before it printed its whole answer.
pub(crate) enum Failure {
    /// An error, printed on stderr with its exit code.
    Error(Error),
    /// The output was closed early (piped into `head`, say): not an error.
    BrokenPipe,
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Error(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::BrokenPipe
        } else if e.get_ref().is_some_and(|inner| inner.is::<Error>()) {
            // An error of the product's that a text writer carried out as an I/O error.
            match e.into_inner().map(|inner| inner.downcast::<Error>()) {
                Some(Ok(inner)) => Failure::Error(*inner),
                _ => Failure::Error(Error::internal("an error changed its type")),
            }
        } else {
            Failure::Error(Error::Io {
                path: "<stdout>".into(),
                source: e,
            })
        }
    }
}

/// Writes `bytes` to `path` through a temporary file beside it, renamed into place: a reader
/// (or `queens merge`) sees the old file or the whole new one, never half of it.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// A value as one line of JSON (an answer, a record): what `--json` prints.
pub(crate) fn to_json(value: &impl serde::Serialize) -> Result<String, Error> {
    serde_json::to_string(value)
        .map_err(|e| Error::internal_from("an answer does not serialize", e))
}
