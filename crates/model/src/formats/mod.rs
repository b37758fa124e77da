//! Every way into or out of the program: instance text (grids, JSON), CSPLib prob079 and
//! prob080 parameter files, JSON-lines corpora and folders, and DIMACS.
//!
//! Every error names the origin (file name or `<stdin>`) and the line or JSON field, and says
//! what was expected. Well-formed but contradictory input (two fixed queens attacking each
//! other) parses fine: that is a result for the engines, not an input error.

pub mod columns;
pub mod csplib;
pub mod dimacs;
pub mod grid;
pub mod json;
pub mod sources;
mod text;

use std::path::Path;

use serde::de;

use crate::error::Error;
use crate::model::Problem;

pub use grid::{grid_cells, parse_grid};
pub use json::{
    json_kind, json_value, not_an_object, parse_json, problem_from_json, write_json, JsonError,
    StrictValue,
};
pub use text::{strip_bom, EMPTY_INPUT};

/// Reads an instance from a path, or from standard input when the path is `-`.
pub fn read_path(path: &Path) -> Result<Problem, Error> {
    let (origin, text) = read_text(path)?;
    parse(&origin, &text)
}

/// Reads a file's text, or standard input when the path is `-`, with the name error messages
/// should use for it (`<stdin>` for `-`). A leading byte-order mark is dropped; bytes that are
/// not UTF-8 are an input error naming the line and byte column (see [`decode_text`]).
pub fn read_text(path: &Path) -> Result<(String, String), Error> {
    let io = |e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let (origin, bytes) = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map_err(io)?;
        ("<stdin>".to_string(), bytes)
    } else {
        (path.display().to_string(), std::fs::read(path).map_err(io)?)
    };
    let text = decode_text(&origin, bytes)?;
    Ok((origin, text))
}

/// The text in `bytes`, without a leading UTF-8 byte-order mark (what Windows editors write).
/// Invalid UTF-8 is an input error naming the line and the byte column (1-based) of the first
/// bad byte. The buffer is reused, not copied.
pub fn decode_text(origin: &str, bytes: Vec<u8>) -> Result<String, Error> {
    let mut text = String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = at
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
            + 1;
        Error::input(
            origin,
            format!(
                "line {line} column {column}: invalid UTF-8 (byte 0x{:02X}; the column counts \
                 bytes); the input must be UTF-8 text",
                bytes[at]
            ),
        )
    })?;
    if text.starts_with('\u{FEFF}') {
        text.drain(..'\u{FEFF}'.len_utf8());
    }
    Ok(text)
}

/// Whether [`parse`] reads `text` as JSON: it starts with `{` or `[`, or is one JSON scalar
/// (`3`, `"x"`, `true`), which can only be a mistake. The price is that a 1×1 region map
/// named by a number, or a grid whose first cell is `{` or `[`, cannot be written as a text
/// grid; the JSON format holds them.
pub fn looks_like_json(text: &str) -> bool {
    let t = strip_bom(text).trim_start();
    t.starts_with(['{', '['])
        || (t.starts_with(|c: char| {
            c == '"' || c == '-' || c.is_ascii_digit() || c == 't' || c == 'f' || c == 'n'
        }) && serde_json::from_str::<de::IgnoredAny>(t).is_ok())
}

/// Parses an instance, detecting the format: JSON when [`looks_like_json`], a text grid
/// otherwise. `origin` names the source in error messages. A leading byte-order mark is
/// skipped; an input with nothing but blanks and comments is refused as [`EMPTY_INPUT`].
pub fn parse(origin: &str, text: &str) -> Result<Problem, Error> {
    if looks_like_json(text) {
        parse_json(origin, text)
    } else {
        parse_grid(origin, text)
    }
}
