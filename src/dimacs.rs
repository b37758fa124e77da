//! DIMACS in and out: the CNF with its cell map as comments, and external solvers' models.

use std::io::{self, Write};

use crate::error::Error;
use crate::sat::Encoded;

/// Writes the encoded problem as DIMACS CNF. Comment lines map cell variables
/// (`c cell <var> <row> <col>`) and name queens decided before encoding (`c fixed <row> <col>`),
/// so any external solver's model can be read back.
pub fn write_cnf(out: &mut impl Write, encoded: &Encoded, header: &[String]) -> io::Result<()> {
    for line in header {
        writeln!(out, "c {line}")?;
    }
    let queens_before = encoded.map.decode(|_| false);
    for (r, c) in queens_before {
        writeln!(out, "c fixed {r} {c}")?;
    }
    for (i, &(r, c)) in encoded.map.cells().iter().enumerate() {
        writeln!(out, "c cell {} {r} {c}", i + 1)?;
    }
    varisat::dimacs::write_dimacs(out, &encoded.formula)
}

/// A solver's answer read from its output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelAnswer {
    /// `s SATISFIABLE` (or a bare literal list): the true variables (1-based DIMACS numbers).
    Sat(Vec<usize>),
    /// `s UNSATISFIABLE`.
    Unsat,
    /// `s UNKNOWN` / `s INDETERMINATE`: the solver gave up.
    Unknown,
}

/// Reads a model in the SAT competition format (`s …` line, `v … 0` lines, comments) or a
/// bare list of literals. Errors name the line.
pub fn parse_model(origin: &str, text: &str) -> Result<ModelAnswer, Error> {
    let mut status = None;
    let mut true_vars = Vec::new();
    let mut saw_literals = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let err = |m: String| Error::input(origin, format!("line {}: {m}", i + 1));
        if line.is_empty() || line.starts_with('c') {
            continue;
        }
        if let Some(s) = line.strip_prefix("s ") {
            status = Some(match s.trim() {
                "SATISFIABLE" => ModelAnswer::Sat(Vec::new()),
                "UNSATISFIABLE" => ModelAnswer::Unsat,
                "UNKNOWN" | "INDETERMINATE" => ModelAnswer::Unknown,
                other => return Err(err(format!("unknown status {other:?}"))),
            });
            continue;
        }
        let body = line.strip_prefix('v').unwrap_or(line);
        for tok in body.split_whitespace() {
            let lit: i64 = tok.parse().map_err(|_| {
                err(format!(
                    "{tok:?} is not a literal (expected a signed integer)"
                ))
            })?;
            saw_literals = true;
            if lit > 0 {
                true_vars.push(lit as usize);
            }
        }
    }
    match status {
        Some(ModelAnswer::Sat(_)) | None if saw_literals => Ok(ModelAnswer::Sat(true_vars)),
        Some(ModelAnswer::Sat(_)) => Err(Error::input(
            origin,
            "says SATISFIABLE but lists no literals (expected `v … 0` lines)",
        )),
        Some(answer) => Ok(answer),
        None => Err(Error::input(
            origin,
            "no solver answer found (expected `s SATISFIABLE`/`s UNSATISFIABLE` or literals)",
        )),
    }
}
